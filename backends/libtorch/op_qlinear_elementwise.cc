// libtorch's quantized::mul / quantized::mul_relu on qlinear.mul (convention pytorch.onednn,
// spec/operators_qlinear_elementwise.md `qlinear.mul.pytorch_onednn`: ATen's native qmul_kernel).
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

}  // namespace

void run_qlinear_mul(const Call& call) {
  using K = cat::qlinear_mul;
  using A = K::attr;
  const qspec_tensor &a = call.input(K::in::a), &b = call.input(K::in::b);
  qspec_tensor& yt = call.first_output();
  if (b.dtype != a.dtype) call.refuse("quantized::mul: Mul operands should have same data type");
  // Debian's 1.13.1 computes qint8 otherwise (measured: other results than ATen's kernel).
  if (a.dtype != QSPEC_DTYPE_UINT8)
    throw Unsupported(std::string("quantized::mul runs ATen's qmul_kernel on quint8 only (qint8: XNNPACK), not ") +
                      dtype_name(a.dtype));
  const std::int64_t zy = attr::get(call.attrs, A::y_zero_point);
  const std::int64_t lo = attr::get_or(call.attrs, A::y_min, lo_of(a.dtype));
  const std::int64_t hi = attr::get_or(call.attrs, A::y_max, hi_of(a.dtype));
  if (lo < lo_of(a.dtype) || hi > hi_of(a.dtype) || lo > hi)
    call.refuse("the clamp [y_min, y_max] must lie in the dtype");
  // _make_per_tensor_quantized_tensor does not check the zero points (quantize_per_tensor does).
  for (const auto& key : {A::a_zero_point, A::b_zero_point, A::y_zero_point}) {
    const std::int64_t z = attr::get(call.attrs, key);
    if (z < lo_of(a.dtype) || z > hi_of(a.dtype)) call.refuse("zero points must fit the dtype");
  }
  if (hi != hi_of(a.dtype) || (lo != lo_of(a.dtype) && lo != zy))
    throw Unsupported("libtorch has quantized::mul (no clamp) and quantized::mul_relu (y_min = y_zero_point) only");
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
  const at::Tensor y = call_op(call, relu ? "quantized::mul_relu" : "quantized::mul", "", {qa, qb, ys, zy}).toTensor();
  write_int_repr(yt, y);
}

}  // namespace qspec::libtorch_adapter
