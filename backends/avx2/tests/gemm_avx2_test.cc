// The u8 x s8 engines (scalar, AVX2 VPMADDWD, AVX512-VNNI) through qgemm: every m/n/k tail, every
// signedness and zero point, strides, and the traps (VPMADDUBSW's int16 saturation, K beyond int32).
#include <gtest/gtest.h>

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
  return v;
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
