// libtorch's quantized adaptive_avg_pool2d(x, 1) on qlinear.global_avg_pool under pytorch.onednn
// (onednn engine) and pytorch.qnnpack (qnnpack engine) (spec/operators_qlinear_pytorch_pool.md).
//
// The vector's NHWC codes become a quantized ChannelsLast tensor (x's scale and zero point), handed
// to at::adaptive_avg_pool2d with output size 1x1; the output keeps x's parameters, as the clauses
// say. ChannelsLast selects the kernel the clauses pin (NCHW-contiguous and x.mean((2, 3)) compute
// other functions under onednn: spec/errata.md E-LIBTORCH-POOL-6). Other conventions' vectors with
// output parameters or a clamp (the all-conventions mode) are untranslatable.
#include <ATen/ATen.h>

#include <string>
#include <vector>

#include "ops.h"
#include "qspec/catalogue/keys.h"
#include "qspec/core/attr.h"
#include "qspec/thirdparty/requant_params.h"
#include "qspec/thirdparty/tensor_io.h"
#include "torch_util.h"

namespace qspec::libtorch_adapter {

using namespace thirdparty;
using Gap = cat::qlinear_global_avg_pool;

void add_qlinear_global_pool_claims(std::vector<Claim>& c, bool qnnpack_engine) {
  if (qnnpack_engine)
    c.push_back(claim<Gap>(Gap::conv::pytorch_qnnpack,
                           "at::adaptive_avg_pool2d(x, 1), qnnpack engine, ChannelsLast (quint8: QNNPACK's average "
                           "pooling; qint8: ATen's kernel)"));
  else
    c.push_back(claim<Gap>(Gap::conv::pytorch_onednn,
                           "at::adaptive_avg_pool2d(x, 1), onednn engine, ChannelsLast (ATen's quantized kernel)"));
}

void run_qlinear_global_avg_pool(const Call& call) {
  if (call.inputs.size() != 1) call.refuse("global_avg_pool takes one input");
  const qspec_tensor& xt = call.input(Gap::in::x);
  qspec_tensor& yt = call.output(Gap::out::y);
  if (xt.dtype != QSPEC_DTYPE_INT8 && xt.dtype != QSPEC_DTYPE_UINT8)
    call.refuse("libtorch's quantized adaptive_avg_pool2d takes qint8 / quint8 data here");
  if (xt.rank != 4) call.refuse("global_avg_pool needs x (N, H, W, C)");
  const double scale = static_cast<double>(f32_from_bits(attr::get(call.attrs, Gap::attr::x_scale)));
  const std::int64_t zp = attr::get(call.attrs, Gap::attr::x_zero_point);
  const c10::ScalarType qtype = quantized_type(xt.dtype);
  if (attr::has(call.attrs, Gap::attr::y_scale) &&
      (attr::get(call.attrs, Gap::attr::y_scale) != attr::get(call.attrs, Gap::attr::x_scale) ||
       attr::get_or(call.attrs, Gap::attr::y_zero_point, zp) != zp))
    throw Unsupported(
        "libtorch's quantized adaptive_avg_pool2d keeps the input's scale and zero point (no y_scale / y_zero_point)");
  const std::int64_t lo = xt.dtype == QSPEC_DTYPE_INT8 ? -128 : 0, hi = xt.dtype == QSPEC_DTYPE_INT8 ? 127 : 255;
  if (attr::get_or(call.attrs, Gap::attr::y_min, lo) != lo || attr::get_or(call.attrs, Gap::attr::y_max, hi) != hi)
    throw Unsupported("libtorch's quantized adaptive_avg_pool2d has no fused clamp (y_min / y_max)");
  // The quantizers' zero-point check (checkZeroPoint), as a user making the tensor meets it.
  guarded(call, "x zero point", [&] { return at::quantize_per_tensor(at::zeros({1}, at::kFloat), scale, zp, qtype); });
  const at::Tensor x = guarded(call, "quantized x", [&] {
    return at::_make_per_tensor_quantized_tensor(int_tensor(xt).permute({0, 3, 1, 2}), scale, zp)
        .contiguous(at::MemoryFormat::ChannelsLast);
  });
  const at::Tensor y = guarded(call, "adaptive_avg_pool2d", [&] { return at::adaptive_avg_pool2d(x, {1, 1}); });
  write_int_repr(yt, y.permute({0, 2, 3, 1}).contiguous());
}

}  // namespace qspec::libtorch_adapter
