// libtorch's quantized max_pool2d on qlinear.max_pool2d under pytorch.onednn (onednn engine) and
// pytorch.qnnpack (qnnpack engine) (spec/operators_qlinear_pytorch_pool.md, PyTorch 1.13).
//
// The vector's NHWC codes become a quantized ChannelsLast tensor (scale 1, zero point 0: max pooling
// passes the codes and the parameters through, and qlinear.max_pool2d carries none), handed to
// at::max_pool2d with ceil_mode false. libtorch's own refusals (a pad above half the kernel,
// QNNPACK's 1x1 kernel, a zero stride or dilation) are reported as libtorch's error messages;
// padding that differs between the two sides of an axis cannot be expressed (one padding per axis)
// and is refused before libtorch is called; a fused clamp other than the dtype's range is
// untranslatable (other conventions' vectors in the all-conventions mode).
#include <ATen/ATen.h>

#include <string>
#include <vector>

#include "ops.h"
#include "qspec/catalogue/keys.h"
#include "qspec/core/attr.h"
#include "qspec/thirdparty/tensor_io.h"
#include "torch_util.h"

namespace qspec::libtorch_adapter {
namespace {

using namespace thirdparty;
using Max = cat::qlinear_max_pool2d;

}  // namespace

void add_qlinear_maxpool_claims(std::vector<Claim>& c, bool qnnpack_engine) {
  if (qnnpack_engine)
    c.push_back(claim<Max>(Max::conv::pytorch_qnnpack,
                           "at::max_pool2d, qnnpack engine, ChannelsLast (quint8: QNNPACK's max pooling; qint8: "
                           "ATen's kernel)"));
  else
    c.push_back(claim<Max>(Max::conv::pytorch_onednn,
                           "at::max_pool2d, onednn engine, ChannelsLast (ATen's quantized kernel, quint8 / qint8)"));
}

void run_qlinear_max_pool2d(const Call& call) {
  if (call.inputs.size() != 1) call.refuse("max_pool2d takes one input");
  const qspec_tensor& xt = call.input(Max::in::x);
  qspec_tensor& yt = call.output(Max::out::y);
  if (xt.dtype != QSPEC_DTYPE_INT8 && xt.dtype != QSPEC_DTYPE_UINT8)
    call.refuse("libtorch's quantized max_pool2d takes qint8 / quint8 data here");
  if (xt.rank != 4) call.refuse("max_pool2d needs x (N, H, W, C)");
  if (!attr::has(call.attrs, Max::attr::kernel)) call.refuse("kernel is required");
  const auto k = int_list(call, Max::attr::kernel, {1, 1}, 2);
  const auto s = int_list(call, Max::attr::strides, {1, 1}, 2);
  const auto d = int_list(call, Max::attr::dilations, {1, 1}, 2);
  const auto pads = int_list(call, Max::attr::pads, {0, 0, 0, 0}, 4);
  if (pads[0] != pads[2] || pads[1] != pads[3])
    call.refuse("libtorch's max_pool2d pads both sides of an axis alike (one padding per axis)");
  const std::int64_t lo = xt.dtype == QSPEC_DTYPE_INT8 ? -128 : 0, hi = xt.dtype == QSPEC_DTYPE_INT8 ? 127 : 255;
  if (attr::get_or(call.attrs, Max::attr::y_min, lo) != lo || attr::get_or(call.attrs, Max::attr::y_max, hi) != hi)
    throw Unsupported("libtorch's quantized max_pool2d has no fused clamp (y_min / y_max)");
  const at::Tensor x = guarded(call, "quantized x", [&] {
    return at::_make_per_tensor_quantized_tensor(int_tensor(xt).permute({0, 3, 1, 2}), 1.0, 0)
        .contiguous(at::MemoryFormat::ChannelsLast);
  });
  const at::Tensor y = guarded(call, "max_pool2d", [&] {
    return at::max_pool2d(x, {k[0], k[1]}, {s[0], s[1]}, {pads[0], pads[1]}, {d[0], d[1]}, false);
  });
  write_int_repr(yt, y.permute({0, 2, 3, 1}).contiguous());
}

}  // namespace qspec::libtorch_adapter
