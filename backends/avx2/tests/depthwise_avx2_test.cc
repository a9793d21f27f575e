// The depthwise kernels (AVX2 VPMADDWD, AVX-VNNI and AVX512-VNNI VPDPBUSD on ymm and zmm, and zmm with
// VBMI's direct strips) against
// depthwise_scalar, exactly, on every channel tail, strip width and parity, kernel shape, stride,
// dilation, padding, signedness and zero point the layouts distinguish, and on the inputs that
// must fall back to VPMADDWD.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "qspec/simd/avx2_kernels.h"
#include "qspec/simd/conv.h"
#include "qspec/simd/cpu.h"
#include "x86_levels.h"  // backends/simd_common/testing

namespace qspec::simd {
namespace {

struct Kernel {
  const char* name;
  DepthwiseFn fn;
};

std::vector<Kernel> kernels() {
  const CpuFeatures f = detect_cpu_features();
  std::vector<Kernel> v;
  if (f.avx2) v.push_back({"avx2", avx2::depthwise});
  if (f.avxvnni) v.push_back({"avxvnni", avx2::depthwise_avxvnni});
  if (f.avx512vnni) v.push_back({"vnni", avx2::depthwise_vnni});
  if (f.avx512vnni && f.zmm) v.push_back({"vnni512", avx2::depthwise_vnni512});
  if (f.avx512vnni && f.zmm && f.vbmi) v.push_back({"vnni512vbmi", avx2::depthwise_vnni512_vbmi});
  return v;
}

// Names the kernels this host cannot run (they are then untested here, not passed).
TEST(depthwise_avx2, EveryKernelOfThisHost) {
  std::string names;
  for (const Kernel& k : kernels()) names += std::string(" ") + k.name;
  const std::string lacked = testing::lacked_x86_levels_vbmi({"avx2", "avxvnni", "vnni", "vnni512", "vnni512vbmi"});
  if (!lacked.empty()) GTEST_SKIP() << "tested:" << names << "; skipped (this CPU lacks them):" << lacked;
  EXPECT_EQ(names, " avx2 avxvnni vnni vnni512 vnni512vbmi");
}

// XNNPACK-style tester: a geometry, operand ranges and zero points; random operands (or
// constant ones), every kernel compared element by element with the scalar path.
class DepthwiseTester {
 public:
  DepthwiseTester& input(std::int64_t n, std::int64_t h, std::int64_t w, std::int64_t c) {
    g_.n = n, g_.h = h, g_.w = w, g_.c = g_.o = g_.groups = c;
    return *this;
  }
  DepthwiseTester& kernel(std::int64_t kh, std::int64_t kw) {
    g_.kh = kh, g_.kw = kw;
    return *this;
  }
  DepthwiseTester& stride(std::int64_t sh, std::int64_t sw) {
    g_.sh = sh, g_.sw = sw;
    return *this;
  }
  DepthwiseTester& dilation(std::int64_t dh, std::int64_t dw) {
    g_.dh = dh, g_.dw = dw;
    return *this;
  }
  // Top/left and bottom/right padding (-1: as top/left).
  DepthwiseTester& padding(std::int64_t ph, std::int64_t pw, std::int64_t ph2 = -1, std::int64_t pw2 = -1) {
    g_.ph = ph, g_.pw = pw, g_.ph2 = ph2, g_.pw2 = pw2;
    return *this;
  }
  DepthwiseTester& x_signed(bool v) {
    x_signed_ = v;
    return *this;
  }
  DepthwiseTester& za(std::int64_t v) {
    za_ = v;
    return *this;
  }
  DepthwiseTester& pad(std::int64_t v) {
    pad_ = v;
    return *this;
  }
  // The int16 weights w - zw are drawn from [lo, hi].
  DepthwiseTester& weights(int lo, int hi) {
    wlo_ = lo, whi_ = hi;
    return *this;
  }
  // Every input byte = x and every weight = w (the extremes).
  DepthwiseTester& constant(int x, int w) {
    constant_ = true, cx_ = x, cw_ = w;
    return *this;
  }
  DepthwiseTester& seed(std::uint64_t s) {
    seed_ = s;
    return *this;
  }

  void Test(const Kernel& k) const {
    std::mt19937_64 rng(seed_);
    const ConvGeom& g = g_;
    ASSERT_GT(g.oh(), 0);
    ASSERT_GT(g.ow(), 0);
    std::vector<std::uint8_t> x(static_cast<std::size_t>(g.n * g.h * g.w * g.c));
    std::vector<std::int16_t> w(static_cast<std::size_t>(g.kh * g.kw * g.c));
    std::uniform_int_distribution<int> wd(wlo_, whi_);
    for (auto& v : x) v = static_cast<std::uint8_t>(constant_ ? cx_ : static_cast<int>(rng()));
    for (auto& v : w) v = static_cast<std::int16_t>(constant_ ? cw_ : wd(rng));
    const std::size_t outs = static_cast<std::size_t>(g.n * g.oh() * g.ow() * g.c);
    std::vector<std::int32_t> want(outs, 0x5a5a5a5a), got(outs + 64, 0x5a5a5a5a);  // 64 guard entries
    depthwise_scalar(DepthwiseArgs{&g, x.data(), x_signed_, za_, pad_, w.data(), want.data()});
    k.fn(DepthwiseArgs{&g, x.data(), x_signed_, za_, pad_, w.data(), got.data()});
    for (std::size_t i = 0; i < outs; ++i)
      ASSERT_EQ(got[i], want[i]) << k.name << " at output " << i << " (pixel " << i / static_cast<std::size_t>(g.c)
                                 << ", channel " << i % static_cast<std::size_t>(g.c) << ") " << describe();
    for (std::size_t i = outs; i < got.size(); ++i) ASSERT_EQ(got[i], 0x5a5a5a5a) << k.name << " wrote past y";
  }

 private:
  std::string describe() const {
    const ConvGeom& g = g_;
    return "n=" + std::to_string(g.n) + " h=" + std::to_string(g.h) + " w=" + std::to_string(g.w) +
           " c=" + std::to_string(g.c) + " k=" + std::to_string(g.kh) + "x" + std::to_string(g.kw) +
           " s=" + std::to_string(g.sh) + "," + std::to_string(g.sw) + " d=" + std::to_string(g.dh) + "," +
           std::to_string(g.dw) + " p=" + std::to_string(g.ph) + "," + std::to_string(g.pw) + "," +
           std::to_string(g.ph2) + "," + std::to_string(g.pw2) + " signed=" + std::to_string(x_signed_) +
           " za=" + std::to_string(za_) + " pad=" + std::to_string(pad_);
  }

  ConvGeom g_ = [] {
    ConvGeom g;
    g.kh = g.kw = 3;
    g.ph = g.pw = 1;
    return g;
  }();
  bool x_signed_ = true, constant_ = false;
  std::int64_t za_ = 3, pad_ = 3;
  int wlo_ = -128, whi_ = 127, cx_ = 0, cw_ = 0;
  std::uint64_t seed_ = 1;
};

// Channel blocks of 32: every tail below, at and above one and two blocks (masked loads/stores).
TEST(depthwise_avx2, ChannelTails) {
  std::uint64_t seed = 1;
  for (const Kernel& k : kernels())
    for (std::int64_t c = 1; c <= 70; c += (c < 34 || c > 62) ? 1 : 7) {
      DepthwiseTester().input(1, 5, 7, c).seed(++seed).Test(k);
      DepthwiseTester().input(1, 4, 5, c).stride(2, 2).seed(++seed).Test(k);  // the general layout
    }
}

// Output strips (about 16 KiB of ring: 32 columns at 32 channels, 64 at 8), column pairs and
// row pairs: widths and heights around every boundary, odd and even.
TEST(depthwise_avx2, WidthsAndHeights) {
  std::uint64_t seed = 100;
  for (const Kernel& k : kernels())
    for (std::int64_t c : {8, 32})
      for (std::int64_t w : {1, 2, 3, 4, 5, 31, 32, 33, 34, 63, 64, 65, 66, 97, 130})
        for (std::int64_t h : {1, 2, 3, 4, 7}) DepthwiseTester().input(1, h, w, c).seed(++seed).Test(k);
}

// Kernel shapes (pairs: kw <= 3, kh <= 4; general: 4-tap groups, one or more per row), strides,
// dilations and paddings, symmetric or not, and batches.
TEST(depthwise_avx2, Geometries) {
  std::uint64_t seed = 1000;
  for (const Kernel& k : kernels())
    for (auto [kh, kw] : std::vector<std::pair<int, int>>{
             {1, 1}, {1, 3}, {3, 1}, {2, 2}, {3, 3}, {4, 4}, {5, 5}, {3, 5}, {5, 3}, {4, 2}, {7, 7}, {1, 9}})
      for (std::int64_t s : {1, 2, 3})
        for (std::int64_t d : {1, 2}) {
          const std::int64_t ph = kh / 2, pw = kw / 2;
          DepthwiseTester()
              .input(2, 11, 13, 17)
              .kernel(kh, kw)
              .stride(s, s)
              .dilation(d, d)
              .padding(ph, pw)
              .seed(++seed)
              .Test(k);
          DepthwiseTester()
              .input(1, 9, 12, 40)
              .kernel(kh, kw)
              .stride(s, 1)
              .dilation(1, d)
              .padding(0, pw + 1, ph + 1, 0)  // asymmetric, as Glow's pads
              .seed(++seed)
              .Test(k);
        }
}

// Signedness, zero points and padding values at both ends of the byte range (p_u = 0 and 255),
// the weight extremes, and constant operands at the extremes (the largest sums).
TEST(depthwise_avx2, ZeroPointsAndExtremes) {
  std::uint64_t seed = 5000;
  for (const Kernel& k : kernels()) {
    for (std::int64_t za : {-128, -1, 0, 127, 255, -300, 300})
      for (std::int64_t pad : {-128, 0, 127}) {
        DepthwiseTester().input(1, 6, 9, 33).x_signed(true).za(za).pad(pad).seed(++seed).Test(k);
        DepthwiseTester().input(1, 6, 9, 33).x_signed(false).za(za).pad(pad + 128).seed(++seed).Test(k);
      }
    for (int x : {0, 127, 128, 255})
      for (int w : {-128, 127}) {
        DepthwiseTester().input(1, 5, 6, 32).constant(x, w).za(-128).pad(-128).Test(k);
        DepthwiseTester().input(1, 5, 6, 32).x_signed(false).constant(x, w).za(255).pad(0).Test(k);
        DepthwiseTester().input(1, 5, 6, 32).x_signed(false).constant(x, w).za(0).pad(255).Test(k);
      }
  }
}

// Outside the u8 x s8 form: weights past int8 (w - zw up to +-255) and a padding value that is
// not a byte of the input's type take the VPMADDWD kernel, still exact.
TEST(depthwise_avx2, FallbackOperands) {
  std::uint64_t seed = 9000;
  for (const Kernel& k : kernels()) {
    DepthwiseTester().input(1, 7, 9, 35).weights(-255, 255).seed(++seed).Test(k);
    DepthwiseTester().input(1, 7, 9, 35).weights(128, 128).seed(++seed).Test(k);
    DepthwiseTester().input(1, 7, 9, 35).weights(-129, -129).seed(++seed).Test(k);
    for (std::int64_t c : {16, 32, 64}) {  // taps * c a multiple of 16: no scalar tail in the range check
      DepthwiseTester().input(1, 6, 7, c).weights(-129, 127).seed(++seed).Test(k);
      DepthwiseTester().input(1, 6, 7, c).weights(-128, 128).seed(++seed).Test(k);
    }
    DepthwiseTester().input(1, 7, 9, 35).pad(128).za(0).seed(++seed).Test(k);  // int8 input, pad 128
    DepthwiseTester().input(1, 7, 9, 35).x_signed(false).pad(-1).za(0).seed(++seed).Test(k);
    DepthwiseTester().input(1, 7, 9, 35).x_signed(false).pad(256).za(300).seed(++seed).Test(k);
  }
}

}  // namespace
}  // namespace qspec::simd
