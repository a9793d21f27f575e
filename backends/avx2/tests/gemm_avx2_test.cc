// The u8 x s8 engines (scalar, AVX2 VPMADDWD, AVX512-VNNI) through qgemm: every m/n/k tail (and
// every GEMV panel-group tail at M = 1), every signedness and zero point, strides, the fused
// corrections modulo 2^32, and the traps (VPMADDUBSW's int16 saturation, K beyond int32).
#include <gtest/gtest.h>

#include <climits>
#include <random>
#include <string>
#include <vector>

#include "gemm_tester.h"  // backends/simd_common/testing
#include "qspec/simd/avx2_kernels.h"
#include "qspec/simd/cpu.h"

namespace qspec::simd {
namespace {

using testing::GemmTester;

std::vector<const GemmEngine*> engines() {
  std::vector<const GemmEngine*> v = {&scalar_gemm_engine()};
  const CpuFeatures f = detect_cpu_features();
  if (f.avx2) v.push_back(&avx2::gemm_engine_madd());
  if (f.avx512vnni) v.push_back(&avx2::gemm_engine_vnni());
  if (f.avx512vnni && f.zmm) v.push_back(&avx2::gemm_engine_vnni512());
  return v;
}

// Names the engines this host cannot run (their kernels are then untested here, not passed).
TEST(qgemm, EveryEngineOfThisHost) {
  std::string names;
  for (const GemmEngine* e : engines()) names += std::string(" ") + e->name();
  const CpuFeatures f = detect_cpu_features();
  std::string missing;
  if (!f.avx2) missing += " avx2-madd";
  if (!f.avx512vnni) missing += " avx512vnni-ymm";
  if (!(f.avx512vnni && f.zmm)) missing += " avx512vnni-zmm";
  if (!missing.empty()) GTEST_SKIP() << "tested:" << names << "; skipped (this CPU lacks them):" << missing;
  EXPECT_EQ(names, std::string(" ") + scalar_gemm_engine().name() + " avx2-vpmaddwd avx512vnni-ymm avx512vnni-zmm");
}

TEST(qgemm, EveryTail) {
  std::uint64_t seed = 1;
  for (const GemmEngine* e : engines())
    for (std::int64_t m : {1, 2, 3, 5, 6, 7, 12, 13})
      for (std::int64_t n : {1, 7, 8, 15, 16, 17, 33})
        for (std::int64_t k : {1, 2, 3, 4, 5, 8, 15, 16, 17, 63, 64, 65}) {
          ++seed;
          GemmTester().m(m).n(n).k(k).seed(seed).za(seed % 7 == 0 ? -128 : 3).zw(seed % 5 == 0 ? 127 : -2).Test(*e);
        }
}

TEST(qgemm, Signedness) {
  for (const GemmEngine* e : engines())
    for (bool as : {false, true})
      for (bool wu : {false, true})
        for (std::int64_t za : {-128, 0, 5, 127, 255})
          for (std::int64_t zw : {-128, 0, 9, 127, 255})
            GemmTester()
                .m(9)
                .n(19)
                .k(37)
                .a_signed(as)
                .w_unsigned(wu)
                .za(za)
                .zw(zw)
                .seed(static_cast<std::uint64_t>(za * 7 + zw))
                .Test(*e);
}

TEST(qgemm, StridedRowsAndLargeBlocks) {
  for (const GemmEngine* e : engines()) {
    GemmTester().m(7).n(5).k(33).lda_pad(13).Test(*e);
    GemmTester().m(300).n(40).k(70).seed(4).Test(*e);  // more than one row block of the drivers
    GemmTester().m(100).n(130).k(200).seed(5).za(-3).zw(4).Test(*e);
  }
}

// M = 1 takes the VNNI engine's GEMV kernel (four 16-column panels per pass, then 3/2/1-panel
// tails, masked stores past n): every panel-group tail of n, every k tail around the 4-byte
// groups and the 2-group unroll, and a single-row block after full ones (m = 97 = 96 + 1).
TEST(qgemm, GemvEveryTail) {
  std::uint64_t seed = 100;
  for (const GemmEngine* e : engines())
    for (std::int64_t n :
         {1, 8, 15, 16, 17, 31, 32, 33, 47, 48, 49, 63, 64, 65, 79, 80, 96, 113, 127, 128, 129, 255, 256, 257})
      for (std::int64_t k : {1, 2, 3, 4, 5, 7, 8, 9, 12, 31, 32, 33, 63, 64, 65, 200}) {
        ++seed;
        GemmTester().m(1).n(n).k(k).seed(seed).za(seed % 3 == 0 ? 127 : -7).zw(seed % 4 == 0 ? -128 : 5).Test(*e);
      }
  for (const GemmEngine* e : engines()) {
    GemmTester().m(97).n(70).k(37).seed(7).za(4).zw(-3).Test(*e);
    GemmTester().m(1).n(1024).k(1024).seed(8).za(-128).zw(0).Test(*e);  // the benchmark's shape
    GemmTester().m(1).n(33).k(29).lda_pad(3).seed(9).Test(*e);
    GemmTester().m(1).n(65).k(64).a_signed(false).constant(255, 0x80).Test(*e);  // 255 * -128 sums
  }
}

// The zmm engine's blocks: 8-row microkernels over panel pairs (32 columns), then a single
// panel; every row tail 1..7 after full blocks, odd and even panel counts, with and without a
// k tail (rows padded to 4 bytes).
TEST(qgemm, RowBlockAndPanelPairTails) {
  std::uint64_t seed = 300;
  for (const GemmEngine* e : engines())
    for (std::int64_t m : {8, 9, 11, 15, 16, 17, 23, 24})
      for (std::int64_t n : {31, 32, 48, 49, 64, 80})
        for (std::int64_t k : {36, 37}) {
          ++seed;
          GemmTester().m(m).n(n).k(k).seed(seed).za(seed % 3 == 0 ? -128 : 2).zw(seed % 2 ? 127 : -1).Test(*e);
        }
}

// run_fused (qgemm's single-chunk path) adds row_add[i] + col_mul * rowsum(B)[j] modulo 2^32:
// against the scalar engine's run() given the same corrections as an explicit col_add vector,
// with wrapping values (INT32_MIN row terms, multipliers whose products leave int32).
TEST(qgemm, FusedCorrectionsWrap) {
  std::mt19937_64 rng(11);
  for (const GemmEngine* e : engines())
    for (std::int64_t m : {1, 2, 5, 7})
      for (std::int64_t n : {1, 16, 17, 64, 67})
        for (std::int32_t col_mul : {0, 1, -255, 65535, INT32_MIN, INT32_MAX}) {
          const std::int64_t k = 21;
          std::vector<std::uint8_t> a(static_cast<std::size_t>(m * k));
          std::vector<std::int8_t> b(static_cast<std::size_t>(n * k));
          for (auto& v : a) v = static_cast<std::uint8_t>(rng());
          for (auto& v : b) v = static_cast<std::int8_t>(rng());
          std::vector<std::int32_t> row_add(static_cast<std::size_t>(m));
          for (std::int64_t i = 0; i < m; ++i) row_add[static_cast<std::size_t>(i)] = i % 2 ? INT32_MIN : INT32_MAX - 3;
          PackedB pe, ps;
          e->pack(n, k, b.data(), k, pe);
          scalar_gemm_engine().pack(n, k, b.data(), k, ps);
          std::vector<std::int32_t> col_add(static_cast<std::size_t>((n + 15) / 16 * 16), 0);
          for (std::int64_t j = 0; j < n; ++j)
            col_add[static_cast<std::size_t>(j)] =
                static_cast<std::int32_t>(static_cast<std::uint32_t>(col_mul) *
                                          static_cast<std::uint32_t>(ps.row_sums[static_cast<std::size_t>(j)]));
          std::vector<std::int32_t> want(static_cast<std::size_t>(m * n)), got(want.size(), 0x5a5a5a5a);
          scalar_gemm_engine().run(m, a.data(), k, ps, want.data(), n, row_add.data(), col_add.data());
          e->run_fused(m, a.data(), k, pe, got.data(), n, row_add.data(), col_mul);
          ASSERT_EQ(got, want) << e->name() << " m=" << m << " n=" << n << " col_mul=" << col_mul;
        }
}

// 255 * 127 + 255 * 127 = 64770 overflows int16: an engine built on VPMADDUBSW would saturate.
TEST(qgemm, PairSumSaturationTrap) {
  for (const GemmEngine* e : engines()) {
    GemmTester().m(3).n(17).k(64).a_signed(false).constant(255, 127).Test(*e);
    GemmTester().m(3).n(17).k(64).a_signed(false).constant(255, 0x80).Test(*e);  // 255 * -128 pairs
    GemmTester().m(3).n(17).k(66).a_signed(false).w_unsigned(true).constant(255, 255).zw(0).Test(*e);
  }
}

// K past 65793 at the extremes: the exact sum leaves int32 and must come back in int64.
TEST(qgemm, LongReductionBeyondInt32) {
  for (const GemmEngine* e : engines()) {
    GemmTester().m(2).n(3).k(70001).a_signed(false).constant(255, 0x80).Test(*e);  // -2.28e9
    GemmTester().m(1).n(2).k(140000).a_signed(false).w_unsigned(true).constant(255, 255).Test(*e);
    GemmTester().m(2).n(3).k(70001).a_signed(true).za(127).zw(-128).constant(0x80, 127).Test(*e);  // (-255)*(255)
  }
}

}  // namespace
}  // namespace qspec::simd
