// libtorch's quantized avg_pool2d on qlinear.avg_pool2d under pytorch.onednn (onednn engine) and
// pytorch.qnnpack (qnnpack engine) (spec/operators_qlinear_pool.md, PyTorch 1.13).
//
// The vector's NHWC codes become a quantized ChannelsLast tensor (exact: the same codes, x's scale
// and zero point), handed to at::avg_pool2d with ceil_mode false and no divisor override; the
// output keeps x's parameters, as the clauses say. ChannelsLast selects the kernel the clauses pin
// (an NCHW-contiguous tensor rounds after adding the zero point: spec/errata.md E-LIBTORCH-POOL-1).
// libtorch's own refusals (a pad above half the kernel, QNNPACK's 1x1 kernel) are reported as
// libtorch's error messages; padding that differs between the two sides of an axis cannot be
// expressed (avg_pool2d takes one padding per axis) and is refused before libtorch is called.
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
namespace {

using namespace thirdparty;
using Avg = cat::qlinear_avg_pool2d;

}  // namespace

void add_qlinear_pool_claims(std::vector<Claim>& c, bool qnnpack_engine) {
  if (qnnpack_engine)
    c.push_back(claim<Avg>(Avg::conv::pytorch_qnnpack,
                           "at::avg_pool2d, qnnpack engine, ChannelsLast (quint8: QNNPACK's average pooling; qint8: "
                           "ATen's kernel)"));
  else
    c.push_back(claim<Avg>(Avg::conv::pytorch_onednn,
                           "at::avg_pool2d, onednn engine, ChannelsLast (ATen's quantized kernel, quint8 / qint8)"));
}

void run_qlinear_avg_pool2d(const Call& call) {
  if (call.inputs.size() != 1) call.refuse("avg_pool2d takes one input");
  const qspec_tensor& xt = call.input(Avg::in::x);
  qspec_tensor& yt = call.output(Avg::out::y);
  if (xt.dtype != QSPEC_DTYPE_INT8 && xt.dtype != QSPEC_DTYPE_UINT8)
    call.refuse("libtorch's quantized avg_pool2d takes qint8 / quint8 data");
  if (xt.rank != 4) call.refuse("avg_pool2d needs x (N, H, W, C)");
  if (!attr::has(call.attrs, Avg::attr::kernel)) call.refuse("kernel is required");
  const auto k = int_list(call, Avg::attr::kernel, {1, 1}, 2);
  const auto s = int_list(call, Avg::attr::strides, {1, 1}, 2);
  const auto pads = int_list(call, Avg::attr::pads, {0, 0, 0, 0}, 4);
  if (pads[0] != pads[2] || pads[1] != pads[3])
    call.refuse("libtorch's avg_pool2d pads both sides of an axis alike (one padding per axis)");
  const bool include = attr::get_or(call.attrs, Avg::attr::count_include_pad, false);
  const double scale = static_cast<double>(f32_from_bits(attr::get(call.attrs, Avg::attr::x_scale)));
  const std::int64_t zp = attr::get(call.attrs, Avg::attr::x_zero_point);
  const c10::ScalarType qtype = quantized_type(xt.dtype);
  // Other conventions' vectors (the all-conventions mode) may ask for output parameters or a
  // clamp: at::avg_pool2d has neither (its output keeps x's parameters), so they are untranslatable.
  if (attr::has(call.attrs, Avg::attr::y_scale) &&
      (attr::get(call.attrs, Avg::attr::y_scale) != attr::get(call.attrs, Avg::attr::x_scale) ||
       attr::get_or(call.attrs, Avg::attr::y_zero_point, zp) != zp))
    throw Unsupported(
        "libtorch's quantized avg_pool2d keeps the input's scale and zero point (no y_scale / y_zero_point)");
  const std::int64_t lo = xt.dtype == QSPEC_DTYPE_INT8 ? -128 : 0, hi = xt.dtype == QSPEC_DTYPE_INT8 ? 127 : 255;
  if (attr::get_or(call.attrs, Avg::attr::y_min, lo) != lo || attr::get_or(call.attrs, Avg::attr::y_max, hi) != hi)
    throw Unsupported("libtorch's quantized avg_pool2d has no fused clamp (y_min / y_max)");
  // The quantizers' zero-point check (checkZeroPoint), as a user making the tensor meets it.
  guarded(call, "x zero point", [&] { return at::quantize_per_tensor(at::zeros({1}, at::kFloat), scale, zp, qtype); });
  const at::Tensor x = guarded(call, "quantized x", [&] {
    return at::_make_per_tensor_quantized_tensor(int_tensor(xt).permute({0, 3, 1, 2}), scale, zp)
        .contiguous(at::MemoryFormat::ChannelsLast);
  });
  const at::Tensor y = guarded(call, "avg_pool2d", [&] {
    return at::avg_pool2d(x, {k[0], k[1]}, {s[0], s[1]}, {pads[0], pads[1]}, false, include, c10::nullopt);
  });
  write_int_repr(yt, y.permute({0, 2, 3, 1}).contiguous());
}

}  // namespace qspec::libtorch_adapter
