// oneDNN 2.6's s8/u8 pooling (spec/operators_qlinear_onednn_pool.md): no quantization parameters,
// the codes averaged by the jit kernels' reciprocal multiply or ref_pooling's division.
#include <algorithm>
#include <string>

#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear_pool.h"
#include "qspec/ref/rounding.h"

namespace qspec::ref::ops {
namespace {

bool fits(const Int& v, DType t) {
  const Range r = int_range(t);
  return v >= r.lo && v <= r.hi;
}

}  // namespace

// spec: qlinear.avg_pool2d.onednn
Int qlinear_onednn_avgpool_output(const Int& code_sum, std::int64_t count, OneDnnPoolPath path, const QPoolParams& p) {
  const std::uint32_t s = f32_from_int(code_sum);  // vcvtdq2ps; ref's float sum (exact: |s| <= 2^24)
  const std::uint32_t c = f32_from_int(Int(count));
  // jit: p.idivider = 1.0f / count on the host, then one rounding of s * idivider (an FMA with a
  // zero addend); ref: d /= num_summands.
  const std::uint32_t q = path == OneDnnPoolPath::Jit ? f32_mul(s, f32_div(0x3f800000u, c)) : f32_div(s, c);
  const Range r = int_range(p.type);
  const Int y = saturate(round_half_even(f32_value(q)), r);                   // saturate_and_round: nearbyint under rne
  return saturate(y, Range{p.y_min.value_or(r.lo), p.y_max.value_or(r.hi)});  // eltwise_clip
}

// spec: qlinear.avg_pool2d.onednn
OneDnnPoolPath qlinear_onednn_pool_path(const Shape& x, const QPoolGeometry& g, bool* ambiguous) {
  const auto [oh, ow] = qlinear_pool_out_size(x, g);
  const std::int64_t H = x.at(1), W = x.at(2);
  // jit_conf: calculate_end_padding(pad_l, out, in, stride, kernel) = (out - 1) stride + kernel - in - pad_l.
  const std::int64_t pb = (oh - 1) * g.strides[0] + g.kernel[0] - H - g.pads[0];
  const std::int64_t pr = (ow - 1) * g.strides[1] + g.kernel[1] - W - g.pads[1];
  const bool big_pad = g.pads[0] >= g.kernel[0] || g.pads[1] >= g.kernel[1] || pb >= g.kernel[0] || pr >= g.kernel[1];
  // safe_load_n_store: the avx2 / sse41 kernels need mb c min(ih, oh) min(iw, ow) >= 32 / 16 bytes.
  const std::int64_t P = x.at(0) * x.at(3) * std::min(H, oh) * std::min(W, ow);
  if (ambiguous) *ambiguous = !big_pad && P < 16;
  return big_pad ? OneDnnPoolPath::Ref : OneDnnPoolPath::Jit;
}

// spec: qlinear.pool.window
// spec: qlinear.avg_pool2d.onednn
// spec: qlinear.global_avg_pool.onednn
IntArray qlinear_onednn_avg_pool2d(const IntArray& x, const QPoolGeometry& g, bool count_include_pad,
                                   const QPoolParams& p) {
  const std::string c = "onednn average pooling";
  const auto [oh, ow] = qlinear_pool_out_size(x.shape, g);
  QSPEC_ERROR_IF(p.type != DType::I8 && p.type != DType::U8, c + ": x must be int8 or uint8 (s8 / u8)");
  QSPEC_ERROR_IF(p.x_scale != p.y_scale || p.x_zero_point != p.y_zero_point,
                 c + ": oneDNN 2.6 pooling has no quantization parameters (output scales and zero points are "
                     "unimplemented): x and y must share scale and zero point");
  QSPEC_ERROR_IF(!fits(p.x_zero_point, p.type), c + ": the zero point must fit " + std::string(dtype_name(p.type)));
  const Range r = int_range(p.type);
  const Int lo = p.y_min.value_or(r.lo), hi = p.y_max.value_or(r.hi);
  QSPEC_ERROR_IF(!fits(lo, p.type) || !fits(hi, p.type), c + ": y_min and y_max must fit the dtype");
  QSPEC_ERROR_IF(hi < lo, c + ": y_max < y_min (eltwise_clip needs beta >= alpha)");
  const bool padded = std::any_of(g.pads.begin(), g.pads.end(), [](std::int64_t v) { return v != 0; });
  QSPEC_ERROR_IF(count_include_pad && padded && p.x_zero_point != 0,
                 c + ": pooling_avg_include_padding counts a padded tap as the code 0 (real -z s), not this op's "
                     "real 0: a non-zero zero point with padding has no oneDNN equivalent");
  QSPEC_ERROR_IF(!count_include_pad && (g.pads[0] >= g.kernel[0] || g.pads[2] >= g.kernel[0] ||
                                        g.pads[1] >= g.kernel[1] || g.pads[3] >= g.kernel[1]),
                 c + ": pooling_avg_exclude_padding with a pad not below the kernel (invalid_arguments: a window "
                     "totally outside the source)");
  const std::int64_t K = g.kernel[0] * g.kernel[1];
  QSPEC_REQUIRE(K <= 65536, c + ": KH KW <= 65536 (every sum of codes exact in binary32)");
  for (const auto& v : x.data) QSPEC_REQUIRE(fits(v, p.type), c + ": x codes lie in the dtype");
  bool ambiguous = false;
  const OneDnnPoolPath path = qlinear_onednn_pool_path(x.shape, g, &ambiguous);
  const auto windows = qlinear_pool_window_codes(x, g, oh, ow);
  IntArray y(Shape{x.dim(0), oh, ow, x.dim(3)});
  for (std::size_t i = 0; i < windows.size(); ++i) {
    Int s(0);
    for (const auto& v : windows[i]) s += v;  // the codes, not less the zero point
    const std::int64_t count = count_include_pad ? K : static_cast<std::int64_t>(windows[i].size());
    y.data[i] = qlinear_onednn_avgpool_output(s, count, path, p);
    if (ambiguous)
      QSPEC_REQUIRE(y.data[i] == qlinear_onednn_avgpool_output(s, count, OneDnnPoolPath::Ref, p),
                    c + ": N C min(H, OH) min(W, OW) < 16: oneDNN's implementation depends on the ISA (ref below "
                        "AVX-512, jit with it) and their roundings differ here");
  }
  return y;
}

}  // namespace qspec::ref::ops
