// libtorch's quantized::mul / mul_relu on qlinear.mul (convention pytorch.onednn,
// spec/operators_qlinear_elementwise.md `qlinear.mul.pytorch_onednn`: ATen's native qmul_kernel) and
// quantized::add / add_relu on qlinear.add (pytorch.onednn under the onednn engine, pytorch.qnnpack
// under the qnnpack engine: spec/operators_qlinear_pytorch_elementwise.md).
//
// - a and b become per-tensor quantized tensors with the vector's codes, scales and zero points
//   (quint8 from uint8; both must have one dtype: "Mul operands should have same data type"),
//   y_scale / y_zero_point are the op's output parameters; quantized::mul broadcasts. int8 is
//   UNSUPPORTED: Debian's 1.13.1 computes qint8 otherwise (later sources: XNNPACK's multiply; the
//   vectors' int8 reciprocal case measure other results than ATen's kernel).
// - The fused clamp maps onto the two operators libtorch has: none (y_min, y_max the dtype's range)
//   is quantized::mul, y_min = y_zero_point with y_max the dtype's maximum is quantized::mul_relu;
//   any other clamp is UNSUPPORTED (no operator computes it), an invalid one is left to the
//   reference's ERROR_IF (refused here).
#include <ATen/ATen.h>

#include <cstdint>
#include <string>
#include <vector>

#include "ops.h"
#include "qspec/catalogue/keys.h"
#include "qspec/core/attr.h"
#include "qspec/thirdparty/requant_params.h"
#include "qspec/thirdparty/tensor_io.h"
#include "torch_util.h"

namespace qspec::libtorch_adapter {
namespace {
using namespace thirdparty;

std::int64_t lo_of(qspec_dtype t) { return t == QSPEC_DTYPE_UINT8 ? 0 : -128; }
std::int64_t hi_of(qspec_dtype t) { return t == QSPEC_DTYPE_UINT8 ? 255 : 127; }

// The shared call of quantized::{add,mul}[_relu]: the clamp mapped onto the operator's fused ReLU.
template <class K>
void run_binary(const Call& call, const char* name, const char* relu_name) {
  using A = typename K::attr;
  const qspec_tensor &a = call.input(K::in::a), &b = call.input(K::in::b);
  qspec_tensor& yt = call.first_output();
  if (a.dtype != QSPEC_DTYPE_INT8 && a.dtype != QSPEC_DTYPE_UINT8)
    call.refuse(std::string(name) + " takes quint8 or qint8, not " + dtype_name(a.dtype));
  if (b.dtype != a.dtype) call.refuse(std::string(name) + ": operands should have same data type");
  const std::int64_t zy = attr::get(call.attrs, A::y_zero_point);
  const std::int64_t lo = attr::get_or(call.attrs, A::y_min, lo_of(a.dtype));
  const std::int64_t hi = attr::get_or(call.attrs, A::y_max, hi_of(a.dtype));
  if (lo < lo_of(a.dtype) || hi > hi_of(a.dtype) || lo > hi)
    call.refuse("the clamp [y_min, y_max] must lie in the dtype");
  if (zy < lo_of(a.dtype) || zy > hi_of(a.dtype)) call.refuse("y_zero_point must fit the dtype");
  // A user's quantized operands come from torch.quantize_per_tensor, whose checkZeroPoint rejects a
  // zero point outside the dtype ("zero_point is out of range"); the adapter builds its tensors with
  // _make_per_tensor_quantized_tensor, which does not check, so it refuses them as the user's call would.
  for (const std::int64_t z : {attr::get(call.attrs, A::a_zero_point), attr::get(call.attrs, A::b_zero_point)})
    if (z < lo_of(a.dtype) || z > hi_of(a.dtype)) call.refuse("quantize_per_tensor: zero_point is out of range");
  if (hi != hi_of(a.dtype) || (lo != lo_of(a.dtype) && lo != zy))
    throw Unsupported(std::string("libtorch has ") + name + " (no clamp) and " + relu_name +
                      " (y_min = y_zero_point) only");
  const bool relu = lo == zy && lo != lo_of(a.dtype);
  const at::Tensor qa = guarded(call, "a", [&] {
    return quantized_tensor(a, static_cast<double>(f32_from_bits(attr::get(call.attrs, A::a_scale))),
                            attr::get(call.attrs, A::a_zero_point));
  });
  const at::Tensor qb = guarded(call, "b", [&] {
    return quantized_tensor(b, static_cast<double>(f32_from_bits(attr::get(call.attrs, A::b_scale))),
                            attr::get(call.attrs, A::b_zero_point));
  });
  const double ys = static_cast<double>(f32_from_bits(attr::get(call.attrs, A::y_scale)));
  const at::Tensor y = call_op(call, relu ? relu_name : name, "", {qa, qb, ys, zy}).toTensor();
  write_int_repr(yt, y);
}

}  // namespace

void run_qlinear_mul(const Call& call) { run_binary<cat::qlinear_mul>(call, "quantized::mul", "quantized::mul_relu"); }

void run_qlinear_add(const Call& call) { run_binary<cat::qlinear_add>(call, "quantized::add", "quantized::add_relu"); }

void add_qlinear_elementwise_claims(std::vector<thirdparty::Claim>& c, bool qnnpack) {
  // quantized::mul runs the same kernels under every engine (ATen's qmul_kernel; XNNPACK's multiply for
  // qint8 with y_zero_point < 127).
  c.push_back(thirdparty::claim<cat::qlinear_mul>(
      cat::qlinear_mul::conv::pytorch_onednn,
      std::string("quantized::mul / quantized::mul_relu (y_min = y_zero_point), ") + (qnnpack ? "qnnpack" : "onednn") +
          " engine: ATen's qmul_kernel, XNNPACK's multiply for qint8"));
  if (qnnpack)
    c.push_back(thirdparty::claim<cat::qlinear_add>(
        cat::qlinear_add::conv::pytorch_qnnpack,
        "quantized::add / quantized::add_relu (y_min = y_zero_point), qnnpack engine: QNNPACK q8add (quint8 of one "
        "shape), ATen's qadd_kernel (broadcast quint8), XNNPACK's add (qint8)"));
  else
    c.push_back(thirdparty::claim<cat::qlinear_add>(
        cat::qlinear_add::conv::pytorch_onednn,
        "quantized::add / quantized::add_relu (y_min = y_zero_point), onednn engine: ATen's qadd_kernel (scalar path: "
        "fewer than 64 outputs, E-LIBTORCH-EW-1)"));
}

}  // namespace qspec::libtorch_adapter
