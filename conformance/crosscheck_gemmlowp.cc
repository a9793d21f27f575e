// Cross-check of the gemmlowp reference against the installed gemmlowp library (Debian libgemmlowp-dev).
//
// The reference functions themselves (cpp_int) are called on every input; nothing is compared
// through an intermediate restatement. Three levels:
//   1. the fixed-point primitives SaturatingRoundingDoublingHighMul and RoundingDivideByPOT, and
//      TFLite's MultiplyByQuantizedMultiplier composed from them, on >= 10^6 random inputs each
//      plus every edge input (int32 extremes, exact ties);
//   2. the output stages, evaluated by gemmlowp's own pipeline evaluator (internal/output.h,
//      OutputPipelineEvalImpl on a 1x1 register block) including the saturating casts and the
//      per-channel (PC) stages;
//   3. the real entry point GemmWithOutputPipeline: a 1x1x1 GEMM whose bias stage injects the
//      accumulator, and random small GEMMs with offsets (gemmlowp.offset_identity).
// This build is scalar (no -msse4.1), so gemmlowp's scalar code paths are the ones compared.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <tuple>
#include <vector>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include <fixedpoint/fixedpoint.h>
#include <public/gemmlowp.h>
#include <public/output_stages.h>
#pragma GCC diagnostic pop

#include "exhaustive_domain.h"
#include "qspec/ref/gemmlowp.h"
#include "qspec/ref/tflite_tosa.h"
#include "qspec/ref/types.h"

namespace ref = qspec::ref;
using ref::Int;

namespace {

constexpr int kRandomPrimitives = 1000000;
constexpr int kRandomStages = 1000000;
// The random cases a loop runs: n, or n / QSPEC_DOMAIN_STRIDE under the sanitizer preset.
int random_cases(int n) { return static_cast<int>(n / qspec::test::domain_stride()); }

std::int64_t to64(const Int& v) { return static_cast<std::int64_t>(v); }

// Edge accumulators: extremes, zero, +-1, powers of two and their neighbours (ties of RDBPOT).
std::vector<std::int32_t> edge_values() {
  std::vector<std::int32_t> v = {INT32_MIN, INT32_MIN + 1, INT32_MAX, INT32_MAX - 1, 0, 1, -1, 2, -2, 3, -3};
  for (int e = 1; e <= 30; ++e) {
    const std::int32_t p = static_cast<std::int32_t>(1) << e;
    for (std::int32_t d : {-1, 0, 1}) {
      v.push_back(p + d);
      v.push_back(-p + d);
      v.push_back(3 * (p / 2) + d);
      v.push_back(-3 * (p / 2) + d);
    }
  }
  return v;
}

std::vector<std::int32_t> edge_multipliers() {
  return {INT32_MIN, INT32_MIN + 1, -(1 << 30), -1, 0, 1, 2, 3, 1 << 29, 1 << 30, (1 << 30) + 1,
          1284042223, 1518500250, INT32_MAX - 1, INT32_MAX};
}

// A random int32 mixing full-range values with small ones (so that ties and small products occur).
std::int32_t random_int32(std::mt19937_64& g) {
  switch (g() % 4) {
    case 0: return static_cast<std::int32_t>(static_cast<std::uint32_t>(g()));
    case 1: return static_cast<std::int32_t>(static_cast<std::int64_t>(g() % 200001) - 100000);
    case 2: return static_cast<std::int32_t>(static_cast<std::uint32_t>(g()) >> (g() % 31));
    default: return -static_cast<std::int32_t>(static_cast<std::uint32_t>(g()) >> (1 + g() % 31));
  }
}

using Block = gemmlowp::RegisterBlock<std::int32_t, 1, 1>;

// Runs an output pipeline through gemmlowp's evaluator on one accumulator at (row, col).
template <typename Pipeline>
std::int64_t eval_pipeline(const Pipeline& pipeline, std::int32_t x, int row = 0, int col = 0) {
  gemmlowp::OutputPipelineEvalImpl<Pipeline, 0, Block> impl(pipeline);
  Block in;
  in.buf.reg[0] = x;
  const auto out = impl.Eval(in, row, col);
  return static_cast<std::int64_t>(out.buf.reg[0]);
}

}  // namespace

TEST(requant_gemmlowp_srdhm, CrosscheckGemmlowp) {
  for (auto a : edge_values())
    for (auto b : edge_multipliers()) {
      ASSERT_EQ(to64(ref::gemmlowp_srdhm(a, b)), gemmlowp::SaturatingRoundingDoublingHighMul(a, b)) << a << " " << b;
      ASSERT_EQ(to64(ref::gemmlowp_srdhm(b, a)), gemmlowp::SaturatingRoundingDoublingHighMul(b, a)) << b << " " << a;
    }
  std::mt19937_64 g(20261121);
  for (int i = 0; i < random_cases(kRandomPrimitives); ++i) {
    const std::int32_t a = random_int32(g), b = random_int32(g);
    ASSERT_EQ(to64(ref::gemmlowp_srdhm(a, b)), gemmlowp::SaturatingRoundingDoublingHighMul(a, b)) << a << " " << b;
  }
}

TEST(requant_gemmlowp_rdbpot, CrosscheckGemmlowp) {
  for (auto x : edge_values())
    for (int e = 0; e <= 31; ++e)
      ASSERT_EQ(to64(ref::gemmlowp_rdbpot(x, e)), gemmlowp::RoundingDivideByPOT(x, e)) << x << " " << e;
  std::mt19937_64 g(20261122);
  for (int i = 0; i < random_cases(kRandomPrimitives); ++i) {
    const std::int32_t x = random_int32(g);
    const int e = static_cast<int>(g() % 32);
    ASSERT_EQ(to64(ref::gemmlowp_rdbpot(x, e)), gemmlowp::RoundingDivideByPOT(x, e)) << x << " " << e;
  }
}

// TFLite's default MultiplyByQuantizedMultiplier is RDBPOT(SRDHM(x * (1 << left), M), right)
// (tensorflow/lite/kernels/internal/common.cc); composed here from gemmlowp's own functions.
TEST(requant_tflite_double_round, CrosscheckGemmlowpComposition) {
  auto tflite_mbqm = [](std::int32_t x, std::int32_t m, int shift) {
    const int left = shift > 0 ? shift : 0, right = shift > 0 ? 0 : -shift;
    return gemmlowp::RoundingDivideByPOT(gemmlowp::SaturatingRoundingDoublingHighMul(x * (1 << left), m), right);
  };
  std::mt19937_64 g(20261123);
  int checked = 0;
  for (int i = 0; i < random_cases(kRandomPrimitives); ++i) {
    const std::int32_t m = static_cast<std::int32_t>((1u << 30) + (g() % (1u << 30)));
    const int shift = static_cast<int>(g() % 40) - 31;  // [-31, 8]
    std::int32_t x = random_int32(g);
    if (shift > 0) x >>= shift;  // keep x * 2^shift in int32
    ASSERT_EQ(to64(ref::tflite_multiply_by_quantized_multiplier_double_round(x, m, shift)), tflite_mbqm(x, m, shift))
        << x << " " << m << " " << shift;
    ++checked;
  }
  EXPECT_EQ(checked, random_cases(kRandomPrimitives));
}

TEST(requant_gemmlowp_fixedpoint_output_stage, CrosscheckPipelineEvaluator) {
  std::mt19937_64 g(20261124);
  for (int i = 0; i < random_cases(kRandomStages); ++i) {
    gemmlowp::OutputStageQuantizeDownInt32ByFixedPoint stage;
    stage.result_fixedpoint_multiplier = (i % 7 == 0) ? random_int32(g) : static_cast<std::int32_t>((1u << 30) + (g() % (1u << 30)));
    stage.result_shift = static_cast<std::int32_t>(g() % 32);
    stage.result_offset_after_shift = static_cast<std::int32_t>(g() % 511) - 255;
    const std::int32_t x = (i < 2000) ? edge_values()[static_cast<std::size_t>(i) % edge_values().size()] : random_int32(g);
    const Int raw = ref::gemmlowp_rdbpot(ref::gemmlowp_srdhm(x, stage.result_fixedpoint_multiplier), stage.result_shift);
    if (raw + stage.result_offset_after_shift > Int(INT32_MAX) || raw + stage.result_offset_after_shift < Int(INT32_MIN))
      continue;  // outside the REQUIRE (int32 addition overflow)
    const Int y = ref::gemmlowp_quantize_down_by_fixedpoint(x, stage.result_fixedpoint_multiplier, stage.result_shift,
                                                           stage.result_offset_after_shift);
    ASSERT_EQ(to64(y), eval_pipeline(std::make_tuple(stage), x)) << x;
    // With each saturating cast stage.
    ASSERT_EQ(to64(ref::saturate(y, ref::DType::U8)),
              eval_pipeline(std::make_tuple(stage, gemmlowp::OutputStageSaturatingCastToUint8()), x));
    ASSERT_EQ(to64(ref::saturate(y, ref::DType::I8)),
              eval_pipeline(std::make_tuple(stage, gemmlowp::OutputStageSaturatingCastToInt8()), x));
    ASSERT_EQ(to64(ref::saturate(y, ref::DType::I16)),
              eval_pipeline(std::make_tuple(stage, gemmlowp::OutputStageSaturatingCastToInt16()), x));
  }
}

// The header comments' "+ 2^(shift-1) >> shift" is not what the library evaluates at negative
// ties (errata E-GEMMLOWP-4): the library gives -1 for x = -3, M = 2^30, shift 1.
TEST(requant_gemmlowp_fixedpoint_output_stage, LibraryRoundsNegativeTiesAway) {
  gemmlowp::OutputStageQuantizeDownInt32ByFixedPoint stage{1 << 30, 1, 0};
  EXPECT_EQ(eval_pipeline(std::make_tuple(stage), -3), -1);
  EXPECT_EQ(to64(ref::gemmlowp_quantize_down_by_fixedpoint(-3, Int(1 << 30), 1, 0)), -1);
  EXPECT_EQ(((-1) + 1) >> 1, 0);  // the comment's formula on SRDHM's -1
}

// gemmlowp's scalar ShiftLeft saturates (fixedpoint.h); the SSE/NEON versions wrap, so qspec
// REQUIREs x * 2^left to fit (errata E-GEMMLOWP-2). The scalar behaviour, observed:
TEST(requant_gemmlowp_scale_by_fixedpoint_and_exponent, ScalarShiftLeftSaturates) {
  EXPECT_EQ(gemmlowp::ShiftLeft(std::int32_t{1} << 28, 3), INT32_MAX);
  EXPECT_EQ(gemmlowp::ShiftLeft(-(std::int32_t{1} << 28) - 1, 3), INT32_MIN);
  EXPECT_THROW(ref::gemmlowp_scale_by_fixedpoint_and_exponent(Int(1) << 28, Int(1 << 30), 3, 0), ref::RequireViolated);
}

TEST(requant_gemmlowp_scale_by_fixedpoint_and_exponent, CrosscheckPipelineEvaluator) {
  std::mt19937_64 g(20261125);
  for (int i = 0; i < random_cases(kRandomStages); ++i) {
    gemmlowp::OutputStageScaleInt32ByFixedPointAndExponent stage;
    stage.result_fixedpoint_multiplier = static_cast<std::int32_t>((1u << 30) + (g() % (1u << 30)));
    stage.result_exponent = static_cast<std::int32_t>(g() % 62) - 31;  // [-31, 30]
    stage.result_offset_after_shift = static_cast<std::int32_t>(g() % 511) - 255;
    std::int32_t x = random_int32(g);
    if (stage.result_exponent > 0) x >>= stage.result_exponent;  // inside the REQUIRE: no left-shift overflow
    const Int y = ref::gemmlowp_scale_by_fixedpoint_and_exponent(x, stage.result_fixedpoint_multiplier,
                                                                 stage.result_exponent, stage.result_offset_after_shift);
    ASSERT_EQ(to64(y), eval_pipeline(std::make_tuple(stage), x)) << x << " exp " << stage.result_exponent;
  }
}

TEST(requant_gemmlowp_scale_by_fixedpoint_and_exponent_pc, CrosscheckPipelineEvaluator) {
  std::mt19937_64 g(20261126);
  constexpr int kChannels = 4;
  for (int i = 0; i < random_cases(kRandomStages / kChannels); ++i) {
    std::vector<std::int32_t> mult(kChannels), expo(kChannels);
    for (int c = 0; c < kChannels; ++c) {
      mult[static_cast<std::size_t>(c)] = (g() % 5 == 0) ? 0 : static_cast<std::int32_t>((1u << 30) + (g() % (1u << 30)));
      expo[static_cast<std::size_t>(c)] = static_cast<std::int32_t>(g() % 36) - 31;  // [-31, 4]
    }
    using ColMap = gemmlowp::VectorMap<const std::int32_t, gemmlowp::VectorShape::Col>;
    gemmlowp::OutputStageScaleInt32ByFixedPointAndExponentPC<gemmlowp::VectorShape::Col> stage;
    stage.result_fixedpoint_multiplier = ColMap(mult.data(), kChannels);
    stage.result_exponent = ColMap(expo.data(), kChannels);
    stage.result_offset_after_shift = static_cast<std::int32_t>(g() % 255) - 127;
    const std::vector<Int> ms(mult.begin(), mult.end());
    const std::vector<int> es(expo.begin(), expo.end());
    for (int row = 0; row < kChannels; ++row) {
      std::int32_t x = random_int32(g) >> 4;  // exponents up to 4: no left-shift overflow
      const Int y = ref::gemmlowp_scale_by_fixedpoint_and_exponent_pc(x, static_cast<std::size_t>(row), ms, es,
                                                                      stage.result_offset_after_shift);
      ASSERT_EQ(to64(y), eval_pipeline(std::make_tuple(stage), x, row, 0)) << x << " row " << row;
    }
  }
}

TEST(requant_gemmlowp_legacy_uint8_scale, CrosscheckPipelineEvaluator) {
  std::mt19937_64 g(20261127);
  int negative_ties = 0;
  for (int i = 0; i < random_cases(kRandomStages); ++i) {
    gemmlowp::OutputStageQuantizeDownInt32ToUint8Scale stage;
    stage.result_offset = static_cast<std::int32_t>(g() % 601) - 300;
    stage.result_mult_int = static_cast<std::int32_t>(g() % 3001);
    stage.result_shift = static_cast<std::int32_t>(g() % 24);
    const std::int32_t x = static_cast<std::int32_t>(g() % 400001) - 200000;  // (x + a) * b stays in int32
    const Int y = ref::gemmlowp_quantize_down_uint8_scale(x, stage.result_offset, stage.result_mult_int,
                                                          stage.result_shift);
    const std::int64_t p = (static_cast<std::int64_t>(x) + stage.result_offset) * stage.result_mult_int;
    if (stage.result_shift > 0 && p < 0 && (-p) % (std::int64_t{1} << stage.result_shift) == (std::int64_t{1} << (stage.result_shift - 1)))
      ++negative_ties;
    ASSERT_EQ(to64(y), eval_pipeline(std::make_tuple(stage), x)) << x;
    ASSERT_EQ(to64(ref::saturate(y, ref::DType::U8)),
              eval_pipeline(std::make_tuple(stage, gemmlowp::OutputStageSaturatingCastToUint8()), x));
    ASSERT_EQ(to64(ref::saturate(y, ref::DType::I16)),
              eval_pipeline(std::make_tuple(stage, gemmlowp::OutputStageSaturatingCastToInt16()), x));
  }
  // The legacy stage at exact negative ties: the code rounds away from zero (errata E-GEMMLOWP-1).
  gemmlowp::OutputStageQuantizeDownInt32ToUint8Scale tie{0, 1, 1};
  EXPECT_EQ(eval_pipeline(std::make_tuple(tie), -1), -1);  // the header comment's formula gives 0
  EXPECT_EQ(eval_pipeline(std::make_tuple(tie), -3), -2);  // ... and -1
  EXPECT_GT(negative_ties, 0);
}

TEST(requant_gemmlowp_legacy_uint8_scale_pc, CrosscheckPipelineEvaluator) {
  std::mt19937_64 g(20261128);
  constexpr int kChannels = 3;
  for (int i = 0; i < 20000; ++i) {
    std::vector<std::int32_t> off(kChannels), mul(kChannels);
    for (int c = 0; c < kChannels; ++c) {
      off[static_cast<std::size_t>(c)] = static_cast<std::int32_t>(g() % 257) - 128;
      mul[static_cast<std::size_t>(c)] = static_cast<std::int32_t>(g() % 2001);
    }
    using RowMap = gemmlowp::VectorMap<const std::int32_t, gemmlowp::VectorShape::Row>;
    gemmlowp::OutputStageQuantizeDownInt32ToUint8ScalePC<gemmlowp::VectorShape::Row> stage;
    stage.result_offset = RowMap(off.data(), kChannels);
    stage.result_mult_int = RowMap(mul.data(), kChannels);
    stage.result_shift = static_cast<std::int32_t>(g() % 16);
    const std::vector<Int> os(off.begin(), off.end()), ms(mul.begin(), mul.end());
    for (int col = 0; col < kChannels; ++col) {
      const std::int32_t x = static_cast<std::int32_t>(g() % 200001) - 100000;
      const Int y = ref::gemmlowp_quantize_down_uint8_scale_pc(x, static_cast<std::size_t>(col), os, ms,
                                                               stage.result_shift);
      ASSERT_EQ(to64(y), eval_pipeline(std::make_tuple(stage), x, 0, col)) << x << " col " << col;
    }
  }
}

namespace {
// A 1x1x1 uint8 GEMM with zero operands and offsets produces accumulator 0; a bias stage then
// injects `x`, so the rest of the pipeline sees exactly x, through the library's real entry point.
template <typename Stage>
std::int64_t gemm_1x1(gemmlowp::GemmContext& ctx, std::int32_t x, const Stage& stage) {
  const std::uint8_t zero = 0;
  std::uint8_t out = 0;
  const std::int32_t bias[1] = {x};
  gemmlowp::MatrixMap<const std::uint8_t, gemmlowp::MapOrder::RowMajor> lhs(&zero, 1, 1);
  gemmlowp::MatrixMap<const std::uint8_t, gemmlowp::MapOrder::ColMajor> rhs(&zero, 1, 1);
  gemmlowp::MatrixMap<std::uint8_t, gemmlowp::MapOrder::ColMajor> result(&out, 1, 1);
  gemmlowp::OutputStageBiasAddition<gemmlowp::VectorMap<const std::int32_t, gemmlowp::VectorShape::Col>> bias_stage;
  bias_stage.bias_vector = gemmlowp::VectorMap<const std::int32_t, gemmlowp::VectorShape::Col>(bias, 1);
  gemmlowp::GemmWithOutputPipeline<std::uint8_t, std::uint8_t, gemmlowp::DefaultL8R8BitDepthParams>(
      &ctx, lhs, rhs, &result, 0, 0, std::make_tuple(bias_stage, stage, gemmlowp::OutputStageSaturatingCastToUint8()));
  return out;
}
}  // namespace

TEST(requant_gemmlowp_fixedpoint_output_stage, CrosscheckGemmEntryPoint) {
  gemmlowp::GemmContext ctx;
  ctx.set_max_num_threads(1);
  std::mt19937_64 g(20261129);
  int unsaturated = 0;
  for (int i = 0; i < 5000; ++i) {
    gemmlowp::OutputStageQuantizeDownInt32ByFixedPoint stage;
    stage.result_fixedpoint_multiplier = static_cast<std::int32_t>((1u << 30) + (g() % (1u << 30)));
    stage.result_shift = static_cast<std::int32_t>(g() % 32);
    stage.result_offset_after_shift = static_cast<std::int32_t>(g() % 256);
    const std::int32_t x = random_int32(g);
    const Int y = ref::saturate(ref::gemmlowp_quantize_down_by_fixedpoint(x, stage.result_fixedpoint_multiplier,
                                                                          stage.result_shift,
                                                                          stage.result_offset_after_shift),
                                ref::DType::U8);
    ASSERT_EQ(to64(y), gemm_1x1(ctx, x, stage)) << x;
    if (y > 0 && y < 255) ++unsaturated;
  }
  EXPECT_GT(unsaturated, 1000);  // the comparison is not dominated by the clamp
}

// Random small uint8 GEMMs with offsets, int32 results: each entry equals the exact
// sum (a + lhs_offset)(b + rhs_offset) (gemmlowp.offset_identity; K * 255^2 < 2^31 here).
TEST(gemmlowp_offset_identity, CrosscheckGemmEntryPoint) {
  gemmlowp::GemmContext ctx;
  ctx.set_max_num_threads(1);
  std::mt19937_64 g(20261130);
  for (int t = 0; t < 300; ++t) {
    const int rows = 1 + static_cast<int>(g() % 5), depth = 1 + static_cast<int>(g() % 40),
              cols = 1 + static_cast<int>(g() % 5);
    std::vector<std::uint8_t> lhs(static_cast<std::size_t>(rows * depth)), rhs(static_cast<std::size_t>(depth * cols));
    for (auto& v : lhs) v = static_cast<std::uint8_t>(g());
    for (auto& v : rhs) v = static_cast<std::uint8_t>(g());
    const int lo = -static_cast<int>(g() % 256), ro = -static_cast<int>(g() % 256);
    std::vector<std::int32_t> out(static_cast<std::size_t>(rows * cols));
    gemmlowp::MatrixMap<const std::uint8_t, gemmlowp::MapOrder::RowMajor> L(lhs.data(), rows, depth);
    gemmlowp::MatrixMap<const std::uint8_t, gemmlowp::MapOrder::ColMajor> R(rhs.data(), depth, cols);
    gemmlowp::MatrixMap<std::int32_t, gemmlowp::MapOrder::ColMajor> O(out.data(), rows, cols);
    gemmlowp::GemmWithOutputPipeline<std::uint8_t, std::int32_t, gemmlowp::DefaultL8R8BitDepthParams>(
        &ctx, L, R, &O, lo, ro, std::make_tuple());
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j) {
        std::vector<Int> a, b;
        for (int k = 0; k < depth; ++k) {
          a.emplace_back(lhs[static_cast<std::size_t>(i * depth + k)]);
          b.emplace_back(rhs[static_cast<std::size_t>(k + j * depth)]);
        }
        ASSERT_EQ(to64(ref::gemmlowp_offset_dot(a, b, lo, ro)), O(i, j));
        ASSERT_EQ(to64(ref::gemmlowp_offset_dot_int32(a, b, lo, ro)), O(i, j));
      }
  }
}
