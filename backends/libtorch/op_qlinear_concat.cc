// libtorch's quantized::cat on qlinear.concat and quantized::leaky_relu on qlinear.leaky_relu
// (convention pytorch.onednn under either engine: ATen's kernels, which the engine does not select;
// spec/operators_qlinear_pytorch_concat.md).
//
// - Inputs become contiguous per-tensor quantized tensors (quint8 from uint8, qint8 from int8) with
//   the vector's codes, scales and zero points; quantized::cat gets the output's scale and zero point
//   and the axis as given (libtorch wraps a negative axis and rejects a bad one), so a 4-D
//   concatenation along 1 of tensors whose C or H W extents are 1 takes qcat_nhwc_kernel as a user's
//   call would (channels-last contiguous too). quantized::leaky_relu gets the slope as a double Scalar
//   and the output's parameters; it has no fused clamp (y_min / y_max: UNSUPPORTED).
// - A user's quantized tensors come from torch.quantize_per_tensor, whose checkZeroPoint rejects a zero
//   point outside the dtype; the adapter builds them with _make_per_tensor_quantized_tensor, which does
//   not check, so it refuses them as the user's call would.
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

bool fits(std::int64_t z, qspec_dtype t) { return t == QSPEC_DTYPE_UINT8 ? z >= 0 && z <= 255 : z >= -128 && z <= 127; }

void require_8bit(const Call& call, qspec_dtype t, const char* op) {
  if (t != QSPEC_DTYPE_INT8 && t != QSPEC_DTYPE_UINT8)
    call.refuse(std::string(op) + " of this catalogue takes quint8 or qint8, not " + dtype_name(t));
}

}  // namespace

void run_qlinear_concat(const Call& call) {
  using A = cat::qlinear_concat::attr;
  if (call.inputs.empty()) call.refuse("quantized::cat needs inputs (TORCH_CHECK(qxs.size() > 0))");
  const std::vector<std::uint32_t> scales = attr::get(call.attrs, A::x_scales);
  const std::vector<std::int64_t> zps = attr::get(call.attrs, A::x_zero_points);
  if (scales.size() != call.inputs.size() || zps.size() != call.inputs.size())
    call.refuse("one input scale and zero point per input");
  c10::List<at::Tensor> xs;
  for (std::size_t i = 0; i < call.inputs.size(); ++i) {
    require_8bit(call, call.inputs[i].dtype, "quantized::cat");
    if (!fits(zps[i], call.inputs[i].dtype)) call.refuse("quantize_per_tensor: zero_point is out of range");
    const double s = static_cast<double>(f32_from_bits(scales[i]));
    xs.push_back(guarded(call, "quantized input", [&] { return quantized_tensor(call.inputs[i], s, zps[i]); }));
  }
  const std::int64_t zy = attr::get(call.attrs, A::y_zero_point);
  const double ys = static_cast<double>(f32_from_bits(attr::get(call.attrs, A::y_scale)));
  const at::Tensor y =
      call_op(call, "quantized::cat", "", {xs, std::int64_t{attr::get(call.attrs, A::axis)}, ys, zy}).toTensor();
  write_int_repr(call.first_output(), y.contiguous());
}

void run_qlinear_leaky_relu(const Call& call) {
  using K = cat::qlinear_leaky_relu;
  using A = K::attr;
  const qspec_tensor& x = call.input(K::in::x);
  require_8bit(call, x.dtype, "quantized::leaky_relu");
  if (attr::has(call.attrs, A::y_min) || attr::has(call.attrs, A::y_max))
    throw Unsupported("quantized::leaky_relu has no fused clamp (y_min / y_max)");
  const std::int64_t zx = attr::get(call.attrs, A::x_zero_point);
  if (!fits(zx, x.dtype)) call.refuse("quantize_per_tensor: zero_point is out of range");
  const at::Tensor qx = guarded(call, "x", [&] {
    return quantized_tensor(x, static_cast<double>(f32_from_bits(attr::get(call.attrs, A::x_scale))), zx);
  });
  const at::Scalar slope(static_cast<double>(f32_from_bits(attr::get(call.attrs, A::alpha))));
  const double ys = static_cast<double>(f32_from_bits(attr::get(call.attrs, A::y_scale)));
  const std::int64_t zy = attr::get(call.attrs, A::y_zero_point);
  const at::Tensor y = call_op(call, "quantized::leaky_relu", "", {qx, slope, false, ys, zy}).toTensor();
  write_int_repr(call.first_output(), y);
}

void add_qlinear_concat_claims(std::vector<thirdparty::Claim>& c, bool qnnpack) {
  const std::string engine = qnnpack ? "qnnpack" : "onednn";
  c.push_back(thirdparty::claim<cat::qlinear_concat>(
      cat::qlinear_concat::conv::pytorch_onednn,
      "quantized::cat with the output's scale and zero point, " + engine +
          " engine (ATen's kernels under every engine: dequantize, cat, quantize_per_tensor; qcat_nhwc_kernel for "
          "4-D channels-last along 1, whose vector channels dequantize with an FMA: E-LIBTORCH-EW-4)"));
  c.push_back(thirdparty::claim<cat::qlinear_leaky_relu>(
      cat::qlinear_leaky_relu::conv::pytorch_onednn,
      "quantized::leaky_relu with the output's scale and zero point, " + engine +
          " engine (ATen's leaky_qrelu_out_kernel under every engine; its vector path, 64 elements and more at AVX2, "
          "dequantizes with an FMA: E-LIBTORCH-EW-4)"));
}

}  // namespace qspec::libtorch_adapter
