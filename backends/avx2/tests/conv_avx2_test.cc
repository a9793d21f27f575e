// conv2d (im2col + GEMM engines, the direct depthwise kernel, the zmm direct convolution) against the
// int64 definition of the padded, strided, dilated, grouped window sum, on every kernel set this CPU
// can run, the direct convolution against the im2col route bit for bit, and the fused requantizing
// stores of the direct convolution and of the depthwise kernels against the two passes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "qspec/simd/avx2_backend.h"
#include "qspec/simd/conv.h"
#include "qspec/simd/requant.h"
#include "requant_plan.h"  // backends/simd_common/testing
#include "x86_levels.h"    // backends/simd_common/testing

namespace qspec::simd {
namespace {

std::vector<KernelSet> kernel_sets() {
  const CpuFeatures f = detect_cpu_features();
  std::vector<KernelSet> v = {avx2::kernel_set(CpuFeatures{})};
  if (f.avx2) {
    CpuFeatures only_avx2 = f;
    only_avx2.avxvnni = only_avx2.avx512vnni = only_avx2.zmm = only_avx2.vbmi = false;
    v.push_back(avx2::kernel_set(only_avx2));
  }
  if (f.avxvnni) {  // AVX-VNNI's VEX kernels, also where AVX-512 VNNI would take precedence
    CpuFeatures vex = f;
    vex.avx512vnni = vex.zmm = vex.vbmi = false;
    v.push_back(avx2::kernel_set(vex));
  }
  if (f.avx512vnni) {
    CpuFeatures ymm = f;
    ymm.zmm = ymm.vbmi = false;
    v.push_back(avx2::kernel_set(ymm));
  }
  if (f.avx512vnni && f.zmm) {  // zmm without VBMI (Cascade Lake's level), also where VBMI comes next
    CpuFeatures zmm = f;
    zmm.vbmi = false;
    v.push_back(avx2::kernel_set(zmm));
  }
  if (f.avx512vnni && f.zmm && f.vbmi) v.push_back(avx2::kernel_set(f));
  return v;
}

// Names the levels this host cannot run (their kernels are then untested here, not passed).
TEST(qconv2d, EveryIsaLevelOfThisHost) {
  std::string isas;
  for (const KernelSet& k : kernel_sets()) isas += " " + k.isa;
  const std::string lacked =
      testing::lacked_x86_levels_vbmi({"avx2", "avx2+avxvnni", "avx2+avx512vnni", "avx2+avx512vnni+zmm", "avx2+avx512vnni+zmm+vbmi"});
  if (!lacked.empty()) GTEST_SKIP() << "tested:" << isas << "; skipped (this CPU lacks them):" << lacked;
  EXPECT_EQ(isas, " scalar avx2 avx2+avxvnni avx2+avx512vnni avx2+avx512vnni+zmm avx2+avx512vnni+zmm+vbmi");
}

// The definition: y (n, oh, ow, o) = sum over the window of (x - za) (w - zw) in int64, a tap
// outside the input reading pad; x NHWC (int8 if xs, else uint8), w OIHW (uint8 if wu, else int8).
std::vector<std::int64_t> conv_definition(const ConvGeom& g, const std::vector<std::uint8_t>& x, bool xs,
                                          const std::vector<std::uint8_t>& w, bool wu, std::int64_t za,
                                          std::int64_t zw, std::int64_t pad) {
  const std::int64_t oh = g.oh(), ow = g.ow(), cg = g.c / g.groups, og = g.o / g.groups;
  auto xv = [&](std::int64_t i) -> std::int64_t {
    return xs ? static_cast<std::int8_t>(x[static_cast<std::size_t>(i)]) : x[static_cast<std::size_t>(i)];
  };
  auto wv = [&](std::int64_t i) -> std::int64_t {
    return wu ? w[static_cast<std::size_t>(i)] : static_cast<std::int8_t>(w[static_cast<std::size_t>(i)]);
  };
  std::vector<std::int64_t> y(static_cast<std::size_t>(g.n * oh * ow * g.o));
  for (std::int64_t n = 0; n < g.n; ++n)
    for (std::int64_t p = 0; p < oh; ++p)
      for (std::int64_t q = 0; q < ow; ++q)
        for (std::int64_t o = 0; o < g.o; ++o) {
          std::int64_t sum = 0;
          const std::int64_t gi = o / og;
          for (std::int64_t ci = 0; ci < cg; ++ci)
            for (std::int64_t i = 0; i < g.kh; ++i)
              for (std::int64_t j = 0; j < g.kw; ++j) {
                const std::int64_t h = p * g.sh + i * g.dh - g.ph, v = q * g.sw + j * g.dw - g.pw;
                const bool inside = h >= 0 && h < g.h && v >= 0 && v < g.w;
                const std::int64_t a = inside ? xv(((n * g.h + h) * g.w + v) * g.c + gi * cg + ci) : pad;
                sum += (a - za) * (wv(((o * cg + ci) * g.kh + i) * g.kw + j) - zw);
              }
          y[static_cast<std::size_t>(((n * oh + p) * ow + q) * g.o + o)] = sum;
        }
  return y;
}

class ConvTester {
 public:
  ConvTester& geom(const ConvGeom& g) {
    g_ = g;
    return *this;
  }
  ConvTester& x_signed(bool v) {
    xs_ = v;
    return *this;
  }
  ConvTester& w_unsigned(bool v) {
    wu_ = v;
    return *this;
  }
  ConvTester& za(std::int64_t v) {
    za_ = v;
    return *this;
  }
  ConvTester& zw(std::int64_t v) {
    zw_ = v;
    return *this;
  }
  ConvTester& pad(std::int64_t v) {
    pad_ = v;
    return *this;
  }
  ConvTester& seed(std::uint64_t v) {
    seed_ = v;
    return *this;
  }

  void Test(const KernelSet& k) const {
    std::mt19937_64 rng(seed_);
    const ConvGeom& g = g_;
    std::vector<std::uint8_t> x(static_cast<std::size_t>(g.n * g.h * g.w * g.c)),
        w(static_cast<std::size_t>(g.o * (g.c / g.groups) * g.kh * g.kw));
    for (auto& v : x) v = static_cast<std::uint8_t>(rng());
    for (auto& v : w) v = static_cast<std::uint8_t>(rng());
    const QConvWeights packed = pack_conv_weights(k, g, w.data(), wu_, zw_, za_, pad_);
    const std::int64_t oh = g.oh(), ow = g.ow();
    std::vector<std::int64_t> y(static_cast<std::size_t>(g.n * oh * ow * g.o));
    qconv2d_nhwc(k, packed, x.data(), xs_, za_, pad_, y.data());
    std::vector<std::int32_t> y32(y.size());
    qconv2d_nhwc(k, packed, x.data(), xs_, za_, pad_, y32.data());
    const std::vector<std::int64_t> def = conv_definition(g, x, xs_, w, wu_, za_, zw_, pad_);
    for (std::int64_t n = 0; n < g.n; ++n)
      for (std::int64_t p = 0; p < oh; ++p)
        for (std::int64_t q = 0; q < ow; ++q)
          for (std::int64_t o = 0; o < g.o; ++o) {
            const std::int64_t want = def[static_cast<std::size_t>(((n * oh + p) * ow + q) * g.o + o)];
            ASSERT_EQ(y32[static_cast<std::size_t>(((n * oh + p) * ow + q) * g.o + o)], want);  // |want| < 2^31 here
            ASSERT_EQ(y[static_cast<std::size_t>(((n * oh + p) * ow + q) * g.o + o)], want)
                << k.isa << (packed.depthwise ? " depthwise" : " gemm") << " at n=" << n << " p=" << p << " q=" << q
                << " o=" << o;
          }
  }

 private:
  ConvGeom g_;
  bool xs_ = true, wu_ = false;
  std::int64_t za_ = 0, zw_ = 0, pad_ = 0;
  std::uint64_t seed_ = 1;
};

ConvGeom geom(std::int64_t n, std::int64_t h, std::int64_t w, std::int64_t c, std::int64_t o, std::int64_t k,
              std::int64_t s, std::int64_t p, std::int64_t d = 1, std::int64_t groups = 1) {
  ConvGeom g;
  g.n = n;
  g.h = h;
  g.w = w;
  g.c = c;
  g.o = o;
  g.kh = g.kw = k;
  g.sh = g.sw = s;
  g.ph = g.pw = p;
  g.dh = g.dw = d;
  g.groups = groups;
  return g;
}

TEST(qconv2d, Shapes) {
  for (const KernelSet& k : kernel_sets()) {
    ConvTester().geom(geom(1, 5, 6, 3, 4, 3, 1, 1)).za(-3).zw(2).pad(-3).Test(k);
    ConvTester().geom(geom(2, 9, 7, 8, 17, 3, 2, 1)).za(1).zw(-1).pad(1).Test(k);
    ConvTester().geom(geom(1, 11, 11, 5, 9, 3, 1, 2, 2)).za(0).zw(0).pad(0).seed(3).Test(k);  // dilation
    ConvTester().geom(geom(1, 8, 8, 16, 32, 1, 1, 0)).x_signed(false).za(128).zw(3).Test(k);  // pointwise
    ConvTester().geom(geom(1, 7, 9, 8, 12, 3, 1, 1, 1, 4)).za(5).zw(-7).pad(5).Test(k);       // groups
    ConvTester().geom(geom(1, 6, 5, 4, 4, 5, 1, 2)).x_signed(false).w_unsigned(true).za(200).zw(100).pad(17).Test(k);
    ConvTester().geom(geom(1, 15, 15, 64, 8, 3, 1, 1)).za(-128).zw(127).pad(-128).seed(4).Test(k);  // 66 output pixels:
                                                                                                    // two tiles
  }
}

TEST(qconv2d, Depthwise) {
  for (const KernelSet& k : kernel_sets())
    for (std::int64_t c : {1, 7, 16, 17, 32, 40}) {
      ConvTester()
          .geom(geom(1, 9, 8, c, c, 3, 1, 1, 1, c))
          .za(-5)
          .zw(3)
          .pad(-5)
          .seed(static_cast<std::uint64_t>(c))
          .Test(k);
      ConvTester().geom(geom(2, 7, 7, c, c, 3, 2, 1, 1, c)).x_signed(false).za(128).zw(-128).pad(0).Test(k);
      ConvTester().geom(geom(1, 6, 6, c, c, 2, 1, 0, 2, c)).za(127).zw(-128).pad(-128).Test(k);  // even tap count
    }
}

// The best kernel set (with the zmm direct convolution) and the same without it (im2col tiles),
// or nothing on a CPU without the direct convolution's ISA.
std::optional<std::pair<KernelSet, KernelSet>> direct_and_im2col() {
  const CpuFeatures f = detect_cpu_features();
  if (!(f.avx512vnni && f.zmm)) return std::nullopt;
  KernelSet direct = avx2::kernel_set(f), im2col = direct;
  im2col.direct_conv = nullptr;
  return std::make_pair(direct, im2col);
}
constexpr const char* kNoDirect =
    "the direct convolution needs AVX512F + BW + VNNI (avx2+avx512vnni+zmm), which this CPU lacks";

// The zmm direct convolution (implicit GEMM) against the im2col route of the same kernel set, bit for
// bit in int32 (modulo 2^32) and int64: borders, asymmetric padding, strides, dilation, channel
// tails (c % 4, o % 32), row tails (ow below and above the 14-pixel block), in-place and copied
// sources, every signedness, and zero points that make the corrections wrap int32.
TEST(qconv2d, DirectMatchesIm2col) {
  const auto sets = direct_and_im2col();
  if (!sets) GTEST_SKIP() << kNoDirect;
  const auto& [direct, im2col] = *sets;
  ASSERT_NE(direct.direct_conv, nullptr);
  struct Case {
    ConvGeom g;
    bool xs, wu;
    std::int64_t za, zw, pad;
  };
  auto g2 = [](ConvGeom g, std::int64_t kw, std::int64_t ph2, std::int64_t pw2) {
    g.kw = kw;
    g.ph2 = ph2;
    g.pw2 = pw2;
    return g;
  };
  const std::vector<Case> cases = {
      {geom(1, 9, 17, 64, 64, 3, 1, 1), true, false, -3, 0, -3},  // the benchmark's layer, ow 17: shifted tail
      {geom(2, 11, 11, 8, 40, 3, 2, 1), true, false, 5, -2, 5},   // stride 2, o % 32 = 8, two images
      {g2(geom(1, 7, 9, 3, 5, 5, 1, 2), 3, 0, 3), false, false, 200, 9, 17},  // c % 4, 5x3 window, asymmetric pads
      {geom(1, 6, 15, 16, 33, 1, 1, 0), false, false, 128, 0, 128},           // pointwise uint8: read in place
      {geom(1, 6, 15, 16, 33, 1, 1, 0), false, true, 7, 100, 7},              // in place, uint8 weights, rowsum terms
      {geom(1, 8, 8, 12, 16, 3, 2, 0), false, false, 0, 3, 0},                // windows miss the last row / column
      {geom(1, 8, 8, 12, 16, 3, 2, 0), true, true, -128, 255, -128},          // the same copied, extreme zero points
      {geom(1, 11, 11, 20, 24, 3, 1, 2, 2), true, false, 0, 0, 0},            // dilation 2
      {geom(1, 3, 1, 4, 17, 3, 1, 1), true, false, 1, 1, -128},               // ow 1, padding byte != za
      {geom(1, 4, 3, 4, 17, 3, 1, 1), true, true, -7, 130, -7},               // ow 3: a block of 2 shifted back
      {geom(1, 5, 13, 36, 48, 3, 1, 1), true, false, 70000, -90000, 2},       // corrections wrap int32
  };
  std::mt19937_64 rng(18);
  for (std::size_t ci = 0; ci < cases.size(); ++ci) {
    const Case& c = cases[ci];
    const ConvGeom& g = c.g;
    std::vector<std::uint8_t> x(static_cast<std::size_t>(g.n * g.h * g.w * g.c)),
        w(static_cast<std::size_t>(g.o * g.c * g.kh * g.kw));
    for (auto& v : x) v = static_cast<std::uint8_t>(rng());
    for (auto& v : w) v = static_cast<std::uint8_t>(rng());
    if (ci == 6) std::fill(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(x.size() / 2), 0x80);  // int8 -128
    const QConvWeights pd = pack_conv_weights(direct, g, w.data(), c.wu, c.zw, c.za, c.pad);
    const QConvWeights pi = pack_conv_weights(im2col, g, w.data(), c.wu, c.zw, c.za, c.pad);
    ASSERT_NE(pd.direct.size(), 0u) << "case " << ci << ": the direct kernel declined";
    ASSERT_EQ(pi.direct.size(), 0u);
    const auto outs = static_cast<std::size_t>(g.n * g.oh() * g.ow() * g.o);
    std::vector<std::int32_t> yd(outs), yi(outs);
    std::vector<std::int64_t> yd64(outs), yi64(outs);
    qconv2d_nhwc(direct, pd, x.data(), c.xs, c.za, c.pad, yd.data());
    qconv2d_nhwc(im2col, pi, x.data(), c.xs, c.za, c.pad, yi.data());
    qconv2d_nhwc(direct, pd, x.data(), c.xs, c.za, c.pad, yd64.data());
    qconv2d_nhwc(im2col, pi, x.data(), c.xs, c.za, c.pad, yi64.data());
    for (std::size_t i = 0; i < outs; ++i) {
      ASSERT_EQ(yd[i], yi[i]) << "case " << ci << " int32 output " << i;
      ASSERT_EQ(yd64[i], yi64[i]) << "case " << ci << " int64 output " << i;
    }
  }
}

// The fused epilogues' kinds (every convention run_requant supports reduces to one of them).
constexpr RequantKind kEpilogueKinds[] = {RequantKind::kFloatThenZp, RequantKind::kFloatInclZp,
                                          RequantKind::kQ31Double, RequantKind::kShiftRound};

// A fused-store case's int8 input (on half of the cases), uint8 weights (a quarter) and input zero point.
struct Signedness {
  bool xs, wu;
  std::int64_t za;
};
Signedness random_signedness(std::mt19937_64& rng) {
  const bool xs = rng() % 2 != 0, wu = rng() % 4 == 0;
  return {xs, wu, static_cast<std::int64_t>(rng() % 256) - (xs ? 128 : 0)};
}

// A random epilogue of o channels for case number `cases` of a fused-store test: kFloatInclZp with
// oneDNN's float bias (near 2^29 on every other case), per tensor on every fourth case.
struct EpilogueCase {
  bool float_bias;
  std::vector<std::int64_t> bias;
  std::vector<RequantParams> plan;
  FusedRequant fr;
  EpilogueCase(RequantKind kind, OutType out, std::int64_t o, int cases, std::mt19937_64& rng)
      : float_bias(kind == RequantKind::kFloatInclZp),
        bias(testing::random_bias(o, float_bias && cases % 2 == 0, rng)),
        plan(testing::random_plan(kind, out, o, cases % 4 == 0, rng)),
        fr(plan, o, bias.data(), float_bias) {}
  // A chosen plan (one entry: per tensor) and int32 bias.
  EpilogueCase(std::vector<std::int64_t> b, std::vector<RequantParams> p)
      : float_bias(false),
        bias(std::move(b)),
        plan(std::move(p)),
        fr(plan, static_cast<std::int64_t>(bias.size()), bias.data(), false) {}
};

// The first acc.size() bytes of a fused requantizing store against the two passes: the exact
// convolution acc (o channels, channel-minor), the channel's bias (oneDNN's: added in binary32),
// then requant_one with the channel's plan entry (or the one entry of a per-tensor plan).
void expect_two_passes(const std::vector<std::uint8_t>& got, const std::vector<std::int64_t>& acc,
                       const EpilogueCase& e, std::int64_t o, const std::string& what) {
  const std::vector<std::int64_t>& bias = e.bias;
  const std::vector<RequantParams>& plan = e.plan;
  const bool float_bias = e.float_bias;
  for (std::size_t i = 0; i < acc.size(); ++i) {
    const auto j = static_cast<std::size_t>(static_cast<std::int64_t>(i) % o);
    const std::int64_t c = acc[i], b = bias[j];
    const std::int64_t v = float_bias ? static_cast<std::int64_t>(static_cast<float>(c) + static_cast<float>(b)) : c + b;
    ASSERT_TRUE(v >= INT32_MIN && v <= INT32_MAX);
    const RequantParams& p = plan[plan.size() == 1 ? 0 : j];
    const auto want = static_cast<std::uint8_t>(requant_one(p, static_cast<std::int32_t>(v)));
    ASSERT_EQ(got[i], want) << what << " output " << i << " (channel " << j << ") acc " << c << " bias " << b;
  }
}

// qconv2d_nhwc_requant of depthwise weights (the padding byte is the input zero point, as the qlinear
// operators pass it) on kernel set k against the two passes, and no byte written past the output.
void expect_depthwise_fused(const KernelSet& k, const ConvGeom& g, const std::vector<std::uint8_t>& x, bool xs,
                            const std::vector<std::uint8_t>& w, bool wu, std::int64_t zw, std::int64_t za,
                            const EpilogueCase& e, const std::string& what) {
  const QConvWeights pw = pack_conv_weights(k, g, w.data(), wu, zw, za, za);
  ASSERT_TRUE(pw.depthwise && conv_fuses_requant(k, pw)) << what;
  const auto outs = static_cast<std::size_t>(g.n * g.oh() * g.ow() * g.o);
  std::vector<std::uint8_t> got(outs + 64, 0xa5);
  qconv2d_nhwc_requant(k, pw, x.data(), xs, za, za, e.fr, got.data());
  const std::vector<std::int64_t> acc = conv_definition(g, x, xs, w, wu, za, zw, za);
  ASSERT_NO_FATAL_FAILURE(expect_two_passes(got, acc, e, g.o, what));
  for (std::size_t i = outs; i < got.size(); ++i) ASSERT_EQ(got[i], 0xa5) << what << ": byte " << i << " past the output";
}

// The direct convolution's fused requantizing store (qconv2d_nhwc_requant on its weights) against
// the two passes (the exact int64 convolution of the im2col route, the bias, requant_one), for the
// epilogue of every convention run_requant supports (XNNPACK / ONNX Runtime / qnnpack fp32, TFLite
// double rounding, TFLite single / TOSA rounding, oneDNN's float bias and zero point before the
// rounding), per tensor and per channel, int8 and uint8 outputs, on the tails: output channels
// past a multiple of 32 and below 16, rows not a multiple of the 14-pixel block (and of 7, 4, 2,
// 1), padding (asymmetric too), stride 2, dilation, c % 4, and saturated accumulators.
TEST(qconv2d, DirectFusedRequantMatchesTwoPasses) {
  const auto sets = direct_and_im2col();
  if (!sets) GTEST_SKIP() << kNoDirect;
  const auto& [direct, im2col] = *sets;
  ConvGeom asym = geom(1, 7, 9, 3, 5, 5, 1, 2);
  asym.kw = 3, asym.ph2 = 0, asym.pw2 = 3;
  const ConvGeom geoms[] = {
      geom(1, 9, 31, 64, 64, 3, 1, 1),      // two channel blocks, ow 31: two blocks of 14 and one shifted back
      geom(2, 11, 11, 8, 40, 3, 2, 1),      // stride 2 (ow 6), o % 32 = 8, two images
      asym,                                 // c % 4, o 5, 5x3 window, asymmetric pads
      geom(1, 6, 15, 16, 33, 1, 1, 0),      // pointwise, o 33: a 1-channel group
      geom(1, 11, 11, 20, 24, 3, 1, 2, 2),  // dilation 2, ow 11: blocks of 7
      geom(1, 4, 3, 4, 17, 3, 1, 1),        // ow 3
      geom(1, 3, 1, 4, 50, 3, 1, 1),        // ow 1, o 50: a full and a partial group in the second block
  };
  std::mt19937_64 rng(41);
  int cases = 0;
  for (const ConvGeom& g : geoms)
    for (RequantKind kind : kEpilogueKinds)
      for (OutType out : {OutType::I8, OutType::U8}) {
        ++cases;
        const auto [xs, wu, za] = random_signedness(rng);
        const std::int64_t zw = wu ? static_cast<std::int64_t>(rng() % 256) : 0;
        std::vector<std::uint8_t> x(static_cast<std::size_t>(g.n * g.h * g.w * g.c)),
            w(static_cast<std::size_t>(g.o * g.c * g.kh * g.kw));
        // Saturation: every operand at an extreme (the largest accumulators) on a third of the cases.
        const bool extreme = cases % 3 == 0;
        testing::fill_operands(x, xs, w, wu, extreme, rng);
        const EpilogueCase e(kind, out, g.o, cases, rng);
        ASSERT_TRUE(e.fr.ok());
        // The padding byte is the input zero point, as the qlinear operators pass it.
        const QConvWeights pd = pack_conv_weights(direct, g, w.data(), wu, zw, za, za);
        const QConvWeights pi = pack_conv_weights(im2col, g, w.data(), wu, zw, za, za);
        ASSERT_NE(pd.direct.size(), 0u) << "case " << cases << ": the direct kernel declined";
        ASSERT_TRUE(conv_fuses_requant(direct, pd));
        const auto outs = static_cast<std::size_t>(g.n * g.oh() * g.ow() * g.o);
        std::vector<std::uint8_t> got(outs, 0xa5);
        qconv2d_nhwc_requant(direct, pd, x.data(), xs, za, za, e.fr, got.data());
        std::vector<std::int64_t> acc(outs);
        qconv2d_nhwc(im2col, pi, x.data(), xs, za, za, acc.data());
 ASSERT_NO_FATAL_FAILURE(expect_two_passes(got, acc, e, g.o, "case " + std::to_string(cases) + " kind " +
                                                      std::to_string(static_cast<int>(kind))));
      }
}

// The depthwise kernels' fused requantizing store (qconv2d_nhwc_requant on depthwise weights, on
// every kernel set of this CPU whose depthwise kernel has it) against the two passes (the int64
// definition, the bias, requant_one), for every epilogue kind, per tensor and per channel, int8 and
// uint8 outputs, on the tails: channels below 8, past 16 and past a multiple of 32 (ymm and zmm
// vectors partly valid, a second block), the pair layout with one and two output rows (odd oh),
// odd ow (a pair's second column absent), strips narrower than ow, the general layout (stride 2,
// 5x5, dilation), asymmetric padding, two images, saturated accumulators, and weights w - zw past
// int8 (uint8 weights with zw 0: the kernels' VPMADDWD fallback, requantized after it); c = 32
// (the zmm pair pack's one 64-byte store) and c = 64 (its two 32-byte stores).
TEST(qconv2d, DepthwiseFusedRequantMatchesTwoPasses) {
  std::vector<KernelSet> fused;
  for (const KernelSet& k : kernel_sets())
    if (k.depthwise_fuses_requant) fused.push_back(k);
  if (fused.empty()) GTEST_SKIP() << "no VNNI depthwise kernel on this CPU (AVX-VNNI or AVX512-VNNI)";
  auto dw = [](std::int64_t n, std::int64_t h, std::int64_t w, std::int64_t c, std::int64_t k, std::int64_t s,
               std::int64_t p, std::int64_t d = 1) { return geom(n, h, w, c, c, k, s, p, d, c); };
  ConvGeom asym = dw(1, 7, 9, 20, 3, 1, 1);
  asym.ph2 = 0, asym.pw2 = 2;
  ConvGeom wide = dw(1, 5, 9, 12, 5, 1, 2);
  wide.kh = 2;  // 2x5: the general layout, two groups per kernel row
  const ConvGeom geoms[] = {
      dw(1, 9, 31, 64, 3, 1, 1),   // pairs, two channel blocks, odd ow
      dw(1, 6, 11, 32, 3, 1, 1),   // pairs, one full block: a pixel pair is 64 contiguous bytes; odd ow
      dw(2, 7, 10, 40, 3, 1, 1),   // pairs, oh 7 (a last single row), c % 32 = 8, two images
      dw(1, 4, 70, 36, 3, 1, 1),   // two strips, c % 32 = 4
      dw(1, 9, 9, 7, 3, 2, 1),     // stride 2: the general layout, c below 8
      dw(1, 8, 8, 17, 5, 1, 2),    // 5x5, c just past 16
      dw(1, 11, 11, 24, 3, 1, 2, 2),  // dilation 2
      asym,                        // asymmetric pads
      wide,
  };
  std::mt19937_64 rng(43);
  int cases = 0;
  for (const KernelSet& k : fused)
    for (const ConvGeom& g : geoms)
      for (RequantKind kind : kEpilogueKinds)
        for (OutType out : {OutType::I8, OutType::U8}) {
          ++cases;
          const auto [xs, wu, za] = random_signedness(rng);
          // uint8 weights: zw 128 keeps w - zw in int8 (the u8 x s8 kernel), 0 does not (the fallback).
          const std::int64_t zw = wu ? (rng() % 2 != 0 ? 128 : 0) : 0;
          std::vector<std::uint8_t> x(static_cast<std::size_t>(g.n * g.h * g.w * g.c)),
              w(static_cast<std::size_t>(g.o * g.kh * g.kw));
          const bool extreme = cases % 3 == 0;
          testing::fill_operands(x, xs, w, wu, extreme, rng);
          const EpilogueCase e(kind, out, g.o, cases, rng);
          ASSERT_TRUE(e.fr.ok());
          ASSERT_NO_FATAL_FAILURE(expect_depthwise_fused(
              k, g, x, xs, w, wu, zw, za, e,
              k.isa + " case " + std::to_string(cases) + " kind " + std::to_string(static_cast<int>(kind))));
        }
}

// The zmm pair pack (xnnpack.fp32's epilogue in the depthwise strips) leaves the upper clamp to the
// packs' saturation where qmax is the byte type's maximum and every |scale| < 1
// (FusedRequantView::max_abs_scale < 1), as it leaves the lower one where qmin is the minimum. The
// argument needs fl32(v) * scale < 2^31: at scale 1 a v of 2^31 - 64 or more gives exactly 2^31,
// which VCVTPS2DQ turns into INT32_MIN (a byte of qmin, not qmax). Exact worst cases: every input
// 127 against a zero point of -128 and weights of 127 (-128) on even (odd) channels make each
// interior accumulator +291,465 (-293,760), and biases of INT32_MAX - 291,465 (INT32_MIN + 293,760)
// put v at INT32_MAX (INT32_MIN); random operands then biases within 2^20 of the int32 ends. Scales
// just below 1, exactly 1 and above, full and narrowed ranges, int8 and uint8 outputs, c = 32 and
// 64 (one 64-byte store and two 32-byte ones), odd oh (a single last row).
TEST(qconv2d, DepthwisePairPackSaturatesNearInt32Ends) {
  std::vector<KernelSet> fused;
  for (const KernelSet& k : kernel_sets())
    if (k.depthwise_fuses_requant) fused.push_back(k);
  if (fused.empty()) GTEST_SKIP() << "no VNNI depthwise kernel on this CPU (AVX-VNNI or AVX512-VNNI)";
  constexpr std::int64_t kPos = 9 * 255 * 127, kNeg = 9 * 255 * 128;
  const float scales[] = {std::nextafter(1.0f, 0.0f), 1.0f, 1.5f, 0.25f};
  std::mt19937_64 rng(47);
  int cases = 0;
  for (const KernelSet& k : fused)
    for (std::int64_t c : {32, 64})
      for (float scale : scales)
        for (OutType out : {OutType::I8, OutType::U8})
          for (int variant = 0; variant < 4; ++variant) {
            ++cases;
            const bool extreme = variant % 2 == 0, narrowed = variant >= 2;
            const ConvGeom g = geom(1, 5, 9, c, c, 3, 1, 1, 1, c);
            std::vector<std::uint8_t> x(static_cast<std::size_t>(g.h * g.w * c)), w(static_cast<std::size_t>(c * 9));
            std::vector<std::int64_t> bias(static_cast<std::size_t>(c));
            std::int64_t za = -128;
            if (extreme) {
              std::fill(x.begin(), x.end(), std::uint8_t{127});
              for (std::size_t i = 0; i < w.size(); ++i) w[i] = (i / 9) % 2 == 0 ? 127 : 0x80;
              for (std::size_t j = 0; j < bias.size(); ++j) bias[j] = j % 2 == 0 ? INT32_MAX - kPos : INT32_MIN + kNeg;
            } else {
              testing::fill_operands(x, true, w, false, false, rng);
              za = static_cast<std::int64_t>(rng() % 256) - 128;
              for (std::size_t j = 0; j < bias.size(); ++j) {
                const auto off = static_cast<std::int64_t>(rng() % (1u << 20));
                bias[j] = j % 2 == 0 ? INT32_MAX - kNeg - off : INT32_MIN + kNeg + off;
              }
            }
            RequantParams p;
            p.kind = RequantKind::kFloatThenZp;
            p.out = OutType::I32;  // as the qlinear plans: int32 lanes, narrowed by the store
            p.qmin = out_min(out) + (narrowed ? 10 : 0);
            p.qmax = out_max(out) - (narrowed ? 20 : 0);
            p.zp = out_min(out) + static_cast<std::int32_t>(rng() % 256);
            p.scale = scale;
            p.zp_f = static_cast<float>(p.zp);
            ASSERT_TRUE(finalize(p));
            const EpilogueCase e(bias, {p});
            ASSERT_TRUE(e.fr.ok());
            ASSERT_EQ(e.fr.view().max_abs_scale, scale);
            if (extreme) {  // the construction: pixel (1, 1), channel 0 is the largest accumulator
              ASSERT_EQ(conv_definition(g, x, true, w, false, za, 0, za)[static_cast<std::size_t>((g.ow() + 1) * c)], kPos);
            }
            ASSERT_NO_FATAL_FAILURE(expect_depthwise_fused(k, g, x, true, w, false, 0, za, e,
                                                           k.isa + " case " + std::to_string(cases)));
          }
}

// The shift kinds' folded epilogue (FusedRequantView::folded; the direct strips' ShiftPairPack on
// VBMI CPUs, Sink's per vector elsewhere) against the two passes: TFLite's double rounding (kQ31Double,
// M >= 0, L = 0, R >= 1: folded by q31_as_shift_round), TFLite's single rounding (kShiftRound, one
// constant) and TOSA's double one (c +- 2^30), S from 32 up, multipliers from 0 to INT32_MAX (and
// negative for kShiftRound), per tensor and per channel, full and narrowed ranges, int8 and uint8, on
// c = 32 and 64, odd oh and ow, saturated accumulators. Every plan must fold: else the test would
// not reach the folded form.
TEST(qconv2d, DepthwiseFoldedShiftMatchesTwoPasses) {
  std::vector<KernelSet> fused;
  for (const KernelSet& k : kernel_sets())
    if (k.depthwise_fuses_requant) fused.push_back(k);
  if (fused.empty()) GTEST_SKIP() << "no VNNI depthwise kernel on this CPU (AVX-VNNI or AVX512-VNNI)";
  std::mt19937_64 rng(53);
  auto plan = [&](int form, OutType out, std::int64_t n, bool narrowed) {
    std::vector<RequantParams> v;
    const std::int32_t zp = out_min(out) + static_cast<std::int32_t>(rng() % 256);
    for (std::int64_t j = 0; j < n; ++j) {
      RequantParams p;
      p.out = OutType::I32;  // as the qlinear plans: int32 lanes, narrowed by the store
      p.qmin = out_min(out) + (narrowed ? 10 : 0);
      p.qmax = out_max(out) - (narrowed ? 20 : 0);
      p.zp = zp;
      const auto m = static_cast<std::int32_t>(j % 7 == 0 ? INT32_MAX : j % 7 == 1 ? 0 : (rng() >> 33) >> (rng() % 24));
      if (form == 0) {  // TFLite's double rounding
        p.kind = RequantKind::kQ31Double;
        p.multiplier = m;
        p.right_shift = static_cast<int>(1 + rng() % (j % 2 ? 22 : 12));  // S = 31 + R <= 53: zp * 2^S folds
      } else {  // TFLite's single rounding (1), TOSA's double rounding (2)
        p.kind = RequantKind::kShiftRound;
        p.multiplier = j % 3 == 2 ? -m : m;
        p.shift = static_cast<int>(32 + rng() % (j % 2 ? 22 : 12));
        p.round_pos = p.round_neg = std::int64_t{1} << (p.shift - 1);
        if (form == 2) p.round_pos += std::int64_t{1} << 30, p.round_neg -= std::int64_t{1} << 30;
      }
      EXPECT_TRUE(finalize(p));
      v.push_back(p);
    }
    return v;
  };
  int cases = 0;
  for (const KernelSet& k : fused)
    for (std::int64_t c : {32, 64})
      for (int form = 0; form < 3; ++form)
        for (OutType out : {OutType::I8, OutType::U8})
          for (int variant = 0; variant < 4; ++variant) {
            ++cases;
            const bool per_tensor = variant % 2 == 0, narrowed = variant == 3, extreme = variant == 1;
            const ConvGeom g = geom(1, 5, 9, c, c, 3, 1, 1, 1, c);
            const auto [xs, wu, za] = random_signedness(rng);
            const std::int64_t zw = wu ? 128 : 0;  // w - zw in int8: the u8 x s8 kernel
            std::vector<std::uint8_t> x(static_cast<std::size_t>(g.h * g.w * c)), w(static_cast<std::size_t>(c * 9));
            testing::fill_operands(x, xs, w, wu, extreme, rng);
            const EpilogueCase e(testing::random_bias(c, false, rng), plan(form, out, per_tensor ? 1 : c, narrowed));
            ASSERT_TRUE(e.fr.ok());
            ASSERT_TRUE(e.fr.view().folded) << "case " << cases << ": the plan does not fold";
            ASSERT_NO_FATAL_FAILURE(expect_depthwise_fused(
                k, g, x, xs, w, wu, zw, za, e, k.isa + " case " + std::to_string(cases) + " form " + std::to_string(form)));
          }
}

}  // namespace
}  // namespace qspec::simd
