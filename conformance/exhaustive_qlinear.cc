// Exhaustive checks of the engines' quantized operators (spec/operators_qlinear.md) on a domain
// small enough to visit whole: every (x, w) pair of 8-bit codes of a 1x1 layer.
//
// A fully connected layer with K = 1, x = every code of its dtype (one per row) and w = every code
// of its dtype (one per output channel) computes every pair's output in one call. For each
// configuration (dtypes, zero points, scales, clamp) and convention, every output is checked
//   - against a transliteration of the engine's epilogue run on this machine's binary32 hardware
//     (qlinear_hw.h): the clause's exact float modelling,
//   - against the error bound of spec/operators_qlinear.md,
// and where both conventions accept the configuration without a fused clamp, ONNX Runtime's
// outputs equal XNNPACK's.
#include <gtest/gtest.h>

#include <bit>
#include <string>
#include <vector>

#include "exhaustive_domain.h"
#include "qlinear_hw.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear.h"

namespace {

using namespace qspec::ref;
using namespace qspec::ref::ops;
namespace hw = qspec::qlinear_hw;

float V(std::uint32_t b) { return std::bit_cast<float>(b); }

struct Config {
  std::string name;
  QLinearParams p;
  bool xnnpack = true, onnxruntime = true;  // which conventions accept it
};

// Every code of t (a strided sample plus both ends under QSPEC_DOMAIN_STRIDE).
std::vector<long long> codes(DType t) {
  const long long lo = t == DType::I8 ? -128 : 0, hi = t == DType::I8 ? 127 : 255;
  const long long stride = qspec::test::domain_stride();
  std::vector<long long> v;
  for (long long c = lo; c <= hi; c += stride) v.push_back(c);
  if (v.back() != hi) v.push_back(hi);
  return v;
}

IntArray column(const std::vector<long long>& v) {
  IntArray a({static_cast<long long>(v.size()), 1});
  for (std::size_t i = 0; i < v.size(); ++i) a.data[i] = Int(v[i]);
  return a;
}

QLinearParams params(DType x, DType w, long long zx, long long zw, long long zy, std::uint32_t xs, std::uint32_t ws,
                     std::uint32_t ys) {
  QLinearParams p;
  p.x_type = x, p.w_type = w;
  p.x_zero_point = zx, p.w_zero_point = zw, p.y_zero_point = zy;
  p.x_scale = xs, p.w_scales = {ws}, p.y_scale = ys;
  return p;
}

std::vector<Config> configs() {
  std::vector<Config> c;
  // Powers of two: S = 2^-2, many exact ties.
  c.push_back({"s8s8 S=2^-2", params(DType::I8, DType::I8, 0, 0, 0, 0x3d800000u, 0x3d800000u, 0x3c800000u)});
  // Odd zero points, random mantissas.
  c.push_back({"s8s8 odd zero points", params(DType::I8, DType::I8, -3, 0, 5, 0x3c6076c9u, 0x3cacd9e8u, 0x3d4ccccdu)});
  // uint8 with S = 3/8 (x 2^-3, w 3 2^-3, y 2^-3): acc S is a tie wherever acc = 4 * odd.
  c.push_back({"u8u8 S=3/8", params(DType::U8, DType::U8, 128, 131, 77, 0x3e000000u, 0x3ec00000u, 0x3e000000u)});
  // uint8 at the ends of the zero points, with a fused clamp [10, 200] (XNNPACK only).
  Config clamp{"u8u8 clamp [10, 200]",
               params(DType::U8, DType::U8, 0, 255, 255, 0x3b9a0ee8u, 0x3a83126fu, 0x3a1d4952u)};
  clamp.p.y_min = Int(10), clamp.p.y_max = Int(200);
  clamp.onnxruntime = false;
  c.push_back(clamp);
  // Per-channel (one scale per w code): exponents 2^-1 .. 2^-8 and five mantissas.
  Config pc{"s8s8 per channel", params(DType::I8, DType::I8, 7, 0, -9, 0x3c000000u, 0x3f800000u, 0x3f800000u)};
  pc.p.w_scales.clear();
  for (int o = 0; o < 256; ++o)
    pc.p.w_scales.push_back(static_cast<std::uint32_t>((126 - o % 8) << 23) |
                            (static_cast<std::uint32_t>(o % 5) << 20));
  c.push_back(pc);
  // ONNX Runtime only: uint8 x int8 with a weight zero point, S >= 256, S < 2^-32.
  Config u8s8{"u8s8", params(DType::U8, DType::I8, 200, -100, 3, 0x3c23d70au, 0x3b03126fu, 0x3c75c28fu)};
  u8s8.xnnpack = false;
  c.push_back(u8s8);
  Config big{"s8s8 S=512", params(DType::I8, DType::I8, 1, 0, -1, 0x41800000u, 0x42000000u, 0x3f800000u)};
  big.xnnpack = false;
  c.push_back(big);
  Config small{"u8u8 S=2^-36", params(DType::U8, DType::U8, 100, 50, 128, 0x35800000u, 0x35800000u, 0x3d800000u)};
  small.xnnpack = false;
  c.push_back(small);
  return c;
}

void check(const Config& cfg, QLinearConvention conv) {
  const std::vector<long long> xs = codes(cfg.p.x_type), ws = codes(cfg.p.w_type);
  QLinearParams p = cfg.p;
  if (p.w_scales.size() > 1) p.w_scales.resize(ws.size());  // one per sampled w code
  const IntArray y = qlinear_fully_connected(column(xs), column(ws), nullptr, p, conv);
  const Range t = int_range(p.x_type);
  const Int lo = p.y_min.value_or(t.lo), hi = p.y_max.value_or(t.hi);
  const Rat u = pow2r(-24), one(1);
  const Rat growth = (one + u) * (one + u) * (one + u) * (one + u) - one;
  long long mismatches = 0, beyond_bound = 0;
  for (std::size_t o = 0; o < ws.size(); ++o) {
    const std::uint32_t wsc = p.w_scales[p.w_scales.size() == 1 ? 0 : o];
    const float s = hw::scale(V(p.x_scale), V(wsc), V(p.y_scale));
    const Rat real_scale = f32_value(p.x_scale) * f32_value(wsc) / f32_value(p.y_scale);
    for (std::size_t n = 0; n < xs.size(); ++n) {
      const long long acc =
          (xs[n] - static_cast<long long>(p.x_zero_point)) * (ws[o] - static_cast<long long>(p.w_zero_point));
      const auto got = static_cast<long long>(y.at2(static_cast<long long>(n), static_cast<long long>(o)));
      const auto a = static_cast<std::int32_t>(acc);
      const auto zp = static_cast<std::int32_t>(static_cast<long long>(p.y_zero_point));
      const long long want = conv == QLinearConvention::XnnpackFp32
                                 ? hw::xnnpack_fp32(a, s, zp, static_cast<std::int32_t>(static_cast<long long>(lo)),
                                                    static_cast<std::int32_t>(static_cast<long long>(hi)))
                                 : hw::onnxruntime(a, s, zp, static_cast<std::int32_t>(static_cast<long long>(t.lo)),
                                                   static_cast<std::int32_t>(static_cast<long long>(t.hi)));
      if (got != want && ++mismatches <= 5)
        ADD_FAILURE() << cfg.name << ": x " << xs[n] << " w " << ws[o] << ": reference " << got << ", hardware "
                      << want;
      const Rat r = Rat(acc) * real_scale, target = Rat(p.y_zero_point) + r, margin = Rat(1, 2) + growth * abs(r);
      const bool ok = Int(got) > lo && Int(got) < hi ? abs(Rat(got) - target) <= margin
                      : Int(got) == lo               ? target <= Rat(got) + margin
                                                     : target >= Rat(got) - margin;
      if (!ok && ++beyond_bound <= 5)
        ADD_FAILURE() << cfg.name << ": x " << xs[n] << " w " << ws[o] << ": " << got << " is beyond the error bound";
    }
  }
  EXPECT_EQ(mismatches, 0) << cfg.name;
  EXPECT_EQ(beyond_bound, 0) << cfg.name;
}

TEST(qlinear_xnnpack_fp32, ExhaustiveOverEvery8BitPairOfA1x1Layer) {
  int n = 0;
  for (const auto& cfg : configs())
    if (cfg.xnnpack) check(cfg, QLinearConvention::XnnpackFp32), ++n;
  EXPECT_EQ(n, 5);
}

TEST(qlinear_onnxruntime, ExhaustiveOverEvery8BitPairOfA1x1Layer) {
  int n = 0;
  for (const auto& cfg : configs())
    if (cfg.onnxruntime) check(cfg, QLinearConvention::OnnxRuntime), ++n;
  EXPECT_EQ(n, 7);
}

TEST(qlinear_onnxruntime, ExhaustivelyEqualsXnnpackWhereBothApply) {
  int n = 0;
  for (const auto& cfg : configs()) {
    if (!cfg.xnnpack || !cfg.onnxruntime) continue;
    ++n;
    QLinearParams p = cfg.p;
    const std::vector<long long> xs = codes(p.x_type), ws = codes(p.w_type);
    if (p.w_scales.size() > 1) p.w_scales.resize(ws.size());
    EXPECT_EQ(qlinear_fully_connected(column(xs), column(ws), nullptr, p, QLinearConvention::OnnxRuntime),
              qlinear_fully_connected(column(xs), column(ws), nullptr, p, QLinearConvention::XnnpackFp32))
        << cfg.name;
  }
  EXPECT_EQ(n, 4);
}

}  // namespace
