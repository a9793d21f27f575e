// Handlers of qlinear.conv2d and qlinear.fully_connected under armnn.cpuref
// (spec/operators_qlinear_armnn.md): Arm NN CpuRef's float pipeline as scalar binary32 code in the
// workloads' loop order (this library is built with -ffp-contract=off: no fused multiply-add).
#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "nn_common.h"
#include "qlinear_common.h"
#include "qspec/catalogue/keys.h"
#include "qspec/simd/int_tensor.h"

namespace qspec::simd {
namespace {

using nn::reject_if;
using qlinear::f32_of;
using qlinear::named;
using qlinear::optional_input;
using Conv = cat::qlinear_conv2d;
using Fc = cat::qlinear_fully_connected;

struct Params {
  qspec_dtype x_type = QSPEC_DTYPE_INT8, w_type = QSPEC_DTYPE_INT8;
  float x_scale = 1, w_scale = 1, y_scale = 1;
  std::int64_t x_zp = 0, w_zp = 0, y_zp = 0;
};

// The convention's ERROR_IFs (Rejected) and REQUIREs (Unsupported).
template <class Attr>
Params read(const OpCall& c, const qspec_tensor& x, const qspec_tensor& w, bool same_types) {
  const auto eight_bit = [](qspec_dtype t) { return t == QSPEC_DTYPE_INT8 || t == QSPEC_DTYPE_UINT8; };
  if (!eight_bit(x.dtype) || !eight_bit(w.dtype)) throw Unsupported("armnn.cpuref: 8-bit tensors only");
  Params p;
  p.x_type = x.dtype, p.w_type = w.dtype;
  reject_if(same_types && p.x_type != p.w_type, "armnn.cpuref: FullyConnected's input and weight types mismatched");
  const auto ws = attr::get(c.attrs, Attr::w_scales);
  reject_if(ws.size() != 1, "armnn.cpuref: one weight scale only (per-axis QSymmS8 weights: errata E-ARMNN-1)");
  p.x_scale = f32_of(attr::get(c.attrs, Attr::x_scale));
  p.w_scale = f32_of(ws[0]);
  p.y_scale = f32_of(attr::get(c.attrs, Attr::y_scale));
  p.x_zp = attr::get(c.attrs, Attr::x_zero_point);
  p.w_zp = attr::get_or(c.attrs, Attr::w_zero_point, std::int64_t{0});
  p.y_zp = attr::get(c.attrs, Attr::y_zero_point);
  if (!qlinear::fits(p.x_zp, p.x_type) || !qlinear::fits(p.w_zp, p.w_type) || !qlinear::fits(p.y_zp, p.x_type))
    throw Unsupported("armnn.cpuref: zero points outside their dtypes (a REQUIRE)");
  if (!qlinear::finite_positive(p.x_scale) || !qlinear::finite_positive(p.w_scale) ||
      !qlinear::finite_positive(p.y_scale))
    throw Unsupported("armnn.cpuref: scales must be finite and positive (a REQUIRE)");
  return p;
}

float finite(float v) {
  if (!std::isfinite(v)) throw Unsupported("armnn.cpuref: a float step overflows (a REQUIRE)");
  return v;
}
float deq(std::int64_t q, std::int64_t zp, float s) { return finite(static_cast<float>(q - zp) * s); }

// armnn::Quantize<T>: std::round(v / s) + offset, clamped in float.
std::int64_t quantize(float sum, const Params& p) {
  const float v = std::round(sum / p.y_scale) + static_cast<float>(p.y_zp);
  const float lo = static_cast<float>(qlinear::lo_of(p.x_type)), hi = static_cast<float>(qlinear::hi_of(p.x_type));
  return static_cast<std::int64_t>(std::min(std::max(v, lo), hi));
}

std::vector<float> bias_terms(const qspec_tensor* bt, std::int64_t O, const Params& p, const char* op) {
  std::vector<float> b;
  if (!bt) return b;
  const IntArray bi = read_int(*bt);
  reject_if(bi.shape != std::vector<std::int64_t>{O}, std::string(op) + ": bias b must be (O)");
  const float bias_scale = finite(p.x_scale * p.w_scale);
  for (auto v : bi.data) b.push_back(finite(static_cast<float>(v) * bias_scale));
  return b;
}

void armnn_fully_connected(OpCall& c) {
  const qspec_tensor &xt = named(c, Fc::in::x), &wt = named(c, Fc::in::w);
  const IntArray x = read_int(xt), w = read_int(wt);
  reject_if(x.shape.size() != 2 || w.shape.size() != 2, "qlinear.fully_connected: x (N,K) and w (O,K)");
  reject_if(x.dim(1) != w.dim(1) || x.dim(1) < 1 || w.dim(0) < 1 || x.dim(0) < 0,
            "qlinear.fully_connected: K differs or an empty dimension");
  const std::int64_t N = x.dim(0), K = x.dim(1), O = w.dim(0);
  const Params p = read<Fc::attr>(c, xt, wt, true);
  const std::vector<float> b = bias_terms(optional_input(c, Fc::in::b), O, p, "qlinear.fully_connected");
  std::vector<std::int64_t> y;
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t o = 0; o < O; ++o) {
      float sum = 0.0f;
      for (std::int64_t k = 0; k < K; ++k) {
        const float prod = finite(deq(w.data[static_cast<std::size_t>(o * K + k)], p.w_zp, p.w_scale) *
                                  deq(x.data[static_cast<std::size_t>(n * K + k)], p.x_zp, p.x_scale));
        sum = finite(sum + prod);
      }
      if (!b.empty()) sum = finite(sum + b[static_cast<std::size_t>(o)]);
      y.push_back(quantize(sum, p));
    }
  write_int(c.output(Fc::out::y, 0), {N, O}, y);
}

void armnn_conv2d(OpCall& c) {
  const qspec_tensor &xt = named(c, Conv::in::x), &wt = named(c, Conv::in::w);
  const IntArray x = read_int(xt), w = read_int(wt);
  const auto st = nn::pair(c.attrs, Conv::attr::strides, {1, 1}), dl = nn::pair(c.attrs, Conv::attr::dilations, {1, 1});
  const auto pd = attr::get_or(c.attrs, Conv::attr::pads, std::vector<std::int64_t>{0, 0, 0, 0});
  reject_if(pd.size() != 4, "attribute pads needs 4 entries");
  const std::int64_t groups = attr::get_or(c.attrs, Conv::attr::groups, std::int64_t{1});
  reject_if(x.shape.size() != 4 || w.shape.size() != 4, "qlinear.conv2d: x and w must have rank 4");
  reject_if(x.dim(0) < 0 || x.dim(1) < 1 || x.dim(2) < 1 || x.dim(3) < 1, "qlinear.conv2d: x has an empty dimension");
  for (auto d : w.shape) reject_if(d < 1, "qlinear.conv2d: w has an empty dimension");
  for (int i = 0; i < 2; ++i) reject_if(st[i] < 1 || dl[i] < 1, "qlinear.conv2d: strides and dilations must be >= 1");
  for (auto v : pd) reject_if(v < 0, "qlinear.conv2d: pads must be >= 0");
  reject_if(groups < 1, "qlinear.conv2d: groups must be >= 1");
  const std::int64_t N = x.dim(0), H = x.dim(1), W = x.dim(2), C = x.dim(3);
  const std::int64_t O = w.dim(0), KH = w.dim(1), KW = w.dim(2), Cg = w.dim(3);
  reject_if(C != groups * Cg || O % groups != 0, "qlinear.conv2d: channels and groups disagree");
  reject_if(groups != 1 && groups != C, "armnn.cpuref: Convolution2d (groups 1) or DepthwiseConvolution2d (groups C)");
  const Params p = read<Conv::attr>(c, xt, wt, false);
  const std::vector<float> b = bias_terms(optional_input(c, Conv::in::b), O, p, "qlinear.conv2d");
  std::array<std::int64_t, 2> out{};
  for (std::size_t a = 0; a < 2; ++a) {
    const std::int64_t in = a == 0 ? H : W, k = a == 0 ? KH : KW;
    const std::int64_t span = in + pd[a] + pd[a + 2] - (dl[a] * (k - 1) + 1);
    if (span < 0) throw Unsupported("armnn.cpuref: the dilated kernel must fit the padded input (a REQUIRE)");
    out[a] = span / st[a] + 1;
  }
  const std::int64_t M = O / groups;
  std::vector<std::int64_t> y;
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t r = 0; r < out[0]; ++r)
      for (std::int64_t q = 0; q < out[1]; ++q)
        for (std::int64_t o = 0; o < O; ++o) {
          float sum = 0.0f;
          for (std::int64_t ci = 0; ci < Cg; ++ci)
            for (std::int64_t i = 0; i < KH; ++i)
              for (std::int64_t j = 0; j < KW; ++j) {
                const std::int64_t h = r * st[0] - pd[0] + i * dl[0], v = q * st[1] - pd[1] + j * dl[1];
                if (h < 0 || h >= H || v < 0 || v >= W) continue;  // Arm NN adds +-0 here: no change
                const std::int64_t xc = (o / M) * Cg + ci;
                const float xv =
                    deq(x.data[static_cast<std::size_t>(((n * H + h) * W + v) * C + xc)], p.x_zp, p.x_scale);
                const float wv =
                    deq(w.data[static_cast<std::size_t>(((o * KH + i) * KW + j) * Cg + ci)], p.w_zp, p.w_scale);
                sum = finite(sum + finite(wv * xv));
              }
          if (!b.empty()) sum = finite(sum + b[static_cast<std::size_t>(o)]);
          y.push_back(quantize(sum, p));
        }
  write_int(c.output(Conv::out::y, 0), {N, out[0], out[1], O}, y);
}

}  // namespace

void add_qlinear_armnn_ops(std::vector<OpEntry>& t) {
  const std::string what = "Arm NN CpuRef: dequantize to binary32, in-order float sums, bias last, round half away";
  t.push_back(entry<Conv>(Conv::conv::armnn_cpuref, what, armnn_conv2d));
  t.push_back(entry<Fc>(Fc::conv::armnn_cpuref, what, armnn_fully_connected));
}

}  // namespace qspec::simd
