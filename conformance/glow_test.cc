// Hand-derived tables for Glow's quantization clauses (spec/glow.md).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include "qspec/ref/float_conventions.h"
#include "qspec/ref/glow.h"

using namespace qspec::ref;

namespace {
std::uint32_t F(float f) { return std::bit_cast<std::uint32_t>(f); }
float V(std::uint32_t b) { return std::bit_cast<float>(b); }
GlowQParams P(float scale, int offset) { return {F(scale), Int(offset)}; }
}  // namespace

TEST(glow_quantize, OffsetAddedBeforeRoundingHalfEven) {
  // x / 0.5 = 2x exactly. Offset 0: 2.5 -> 2, 1.5 -> 2, -2.5 -> -2 (ties to even).
  EXPECT_EQ(glow_quantize(F(1.25f), P(0.5f, 0), DType::I8), 2);
  EXPECT_EQ(glow_quantize(F(0.75f), P(0.5f, 0), DType::I8), 2);
  EXPECT_EQ(glow_quantize(F(-1.25f), P(0.5f, 0), DType::I8), -2);
  // Offset 1: 2.5 + 1 = 3.5 -> 4 (round-then-add conventions give 2 + 1 = 3).
  EXPECT_EQ(glow_quantize(F(1.25f), P(0.5f, 1), DType::I8), 4);
  EXPECT_EQ(xnnpack_convert_quantize(F(1.25f), F(0.5f), Int(1), DType::I8), 3);
  // Saturation, including int32 through the int64 conversion.
  EXPECT_EQ(glow_quantize(F(1000.0f), P(1.0f, 0), DType::I8), 127);
  EXPECT_EQ(glow_quantize(F(-1.0f), P(1.0f, 0), DType::U8), 0);
  EXPECT_EQ(glow_quantize(F(3e9f), P(1.0f, 0), DType::I32), 2147483647);
  // Beyond int64 the cast is undefined.
  EXPECT_THROW(glow_quantize(F(1e20f), P(1.0f, 0), DType::I32), RequireViolated);
  EXPECT_THROW(glow_quantize(F(1e30f), P(1e-10f, 0), DType::I8), RequireViolated);  // inf
}
// E-GLOW-2: Glow's own code base rounds this tie two ways: Base.h (and the Interpreter, current
// libjit) nearbyintf -> 2; older libjit_quantize_i8 and the OpenCL kernel roundf -> 3.
TEST(glow_quantize, NearbyintNotRoundf) {
  EXPECT_EQ(glow_quantize(F(1.25f), P(0.5f, 0), DType::I8), 2);
  EXPECT_EQ(exact_quantize(F(1.25f), F(0.5f), Int(0), DType::I8, Rounding::HalfAway), 3);
}

TEST(glow_dequantize, HandTable) {
  EXPECT_EQ(V(glow_dequantize(Int(10), P(0.25f, 3))), 1.75f);
  EXPECT_EQ(V(glow_dequantize(Int(-128), P(0.5f, -128))), 0.0f);
  // (int64) difference: -2^31 - (2^31 - 1) = -(2^32 - 1) converts to -2^32.
  EXPECT_EQ(V(glow_dequantize(Int(-2147483647 - 1), P(1.0f, 2147483647))), -4294967296.0f);
}

TEST(glow_affine_map, ZeroIsTheOffset) {
  EXPECT_EQ(glow_real_value(Int(-5), P(0.1f, -5)), Rat(0));
  EXPECT_EQ(glow_real_value(Int(3), P(0.5f, 1)), Rat(1));
}

TEST(glow_choose_params_asymmetric, HandTable) {
  // [0, 0]: scale 0 -> 0.1; zero point from max (error 127 < 128) = 127, then forced to 0.
  GlowQParams p = glow_choose_params(F(0.0f), F(0.0f), GlowSchema::Asymmetric, DType::I8);
  EXPECT_EQ(p.scale, F(0.1f));
  EXPECT_EQ(p.offset, 0);
  // [0, 255]: scale 1; from min: -128 - 0 = -128 (error 128 < 382).
  p = glow_choose_params(F(0.0f), F(255.0f), GlowSchema::Asymmetric, DType::I8);
  EXPECT_EQ(p.scale, F(1.0f));
  EXPECT_EQ(p.offset, -128);
  // [-255, 0]: from max: 127 - 0 = 127 (error 127 < 383).
  p = glow_choose_params(F(-255.0f), F(0.0f), GlowSchema::Asymmetric, DType::I8);
  EXPECT_EQ(p.scale, F(1.0f));
  EXPECT_EQ(p.offset, 127);
  // [1, 2] is extended to [0, 2]: scale fl32(2/255), offset -128 (all positive).
  p = glow_choose_params(F(1.0f), F(2.0f), GlowSchema::Asymmetric, DType::I8);
  EXPECT_EQ(p.scale, F(static_cast<float>(2.0 / 255.0)));
  EXPECT_EQ(p.offset, -128);
  // [-1, 1]: both zero points are -0.5; |max + min| = 0 forces 0.
  p = glow_choose_params(F(-1.0f), F(1.0f), GlowSchema::Asymmetric, DType::I8);
  EXPECT_EQ(p.scale, F(static_cast<float>(2.0 / 255.0)));
  EXPECT_EQ(p.offset, 0);
  // int16 [0, 65535]: scale 1, offset -32768.
  p = glow_choose_params(F(0.0f), F(65535.0f), GlowSchema::Asymmetric, DType::I16);
  EXPECT_EQ(p.scale, F(1.0f));
  EXPECT_EQ(p.offset, -32768);
  // int32 uses [-2^29, 2^29 - 1]: [0, 2^30 - 1] gives scale 1 and offset -2^29.
  p = glow_choose_params(F(1073741823.0f), F(1073741823.0f), GlowSchema::Asymmetric, DType::I32);
  EXPECT_EQ(p.offset, -536870912);
}

// E-GLOW-1: the "min == -max" test is absolute (|max + min| <= FLT_EPSILON). A tiny all-positive
// range gets offset 0 instead of qmin, so its upper half saturates.
TEST(glow_choose_params_asymmetric, AbsoluteEpsilonLosesHalfTheRange) {
  const GlowQParams p = glow_choose_params(F(0.0f), F(1e-7f), GlowSchema::Asymmetric, DType::I8);
  EXPECT_EQ(p.offset, 0);  // expected -128 for an all-positive range
  EXPECT_EQ(glow_quantize(F(1e-7f), p, DType::I8), 127);
  EXPECT_LT(V(glow_dequantize(Int(127), p)), 0.5e-7f);  // max comes back as less than half of itself
  // Twice the range is beyond FLT_EPSILON and behaves.
  EXPECT_EQ(glow_choose_params(F(0.0f), F(2e-7f), GlowSchema::Asymmetric, DType::I8).offset, -128);
  // uint8 with a symmetric range: offset 0, so every negative value quantizes to 0 (error 1.0).
  const GlowQParams u = glow_choose_params(F(-1.0f), F(1.0f), GlowSchema::Asymmetric, DType::U8);
  EXPECT_EQ(u.offset, 0);
  EXPECT_EQ(glow_quantize(F(-1.0f), u, DType::U8), 0);
}

// E-GLOW-4: with int32 precision the offset can exceed 2^24; quantize adds it as a float32, so
// 0.0 quantizes to fl32(offset) != offset and zero is no longer exactly representable.
TEST(glow_choose_params_asymmetric, Int32OffsetIsNotAFloat) {
  const GlowQParams p = glow_choose_params(F(-0.5f), F(100.0f), GlowSchema::Asymmetric, DType::I32);
  // offset ~ -2^29 + 0.5 (2^30 - 1) / 100.5, far beyond 2^24 in magnitude.
  ASSERT_GT(abs(p.offset), pow2(24));
  ASSERT_NE(f32_value(f32_from_int(p.offset)), Rat(p.offset));  // not a float32
  const Int q0 = glow_quantize(F(0.0f), p, DType::I32);
  EXPECT_EQ(Rat(q0), f32_value(f32_from_int(p.offset)));
  EXPECT_NE(q0, p.offset);
  EXPECT_NE(glow_dequantize(q0, p), F(0.0f));
}

TEST(glow_choose_params_symmetric, HandTable) {
  // [-3, 1]: rmin = 3/128 > rmax = 1/127, so max = 3 * 127 / 128 = 2.9765625 (exact) and
  // scale = (2.9765625 + 3) / 255 = 3/128 exactly; zero point -128 + 128 = 0.
  GlowQParams p = glow_choose_params(F(-3.0f), F(1.0f), GlowSchema::Symmetric, DType::I8);
  EXPECT_EQ(p.scale, F(0.0234375f));
  EXPECT_EQ(p.offset, 0);
  // [2, 5] -> [0, 5]: min = -(5/127) * 128, scale = 5/127 up to rounding, offset 0.
  p = glow_choose_params(F(2.0f), F(5.0f), GlowSchema::Symmetric, DType::I8);
  EXPECT_EQ(p.offset, 0);
  EXPECT_NEAR(V(p.scale), 5.0f / 127.0f, 2e-8f);
  // [0, 0]: (0.1, 0).
  p = glow_choose_params(F(0.0f), F(0.0f), GlowSchema::Symmetric, DType::I16);
  EXPECT_EQ(p.scale, F(0.1f));
  EXPECT_EQ(p.offset, 0);
  EXPECT_THROW(glow_choose_params(F(0.0f), F(1.0f), GlowSchema::Symmetric, DType::U8), RequireViolated);
}

TEST(glow_choose_params_symmetric_with_uint8, HandTable) {
  // Non-negative range: the asymmetric computation, offset qmin.
  GlowQParams p = glow_choose_params(F(0.0f), F(255.0f), GlowSchema::SymmetricWithUint8, DType::I8);
  EXPECT_EQ(p.scale, F(1.0f));
  EXPECT_EQ(p.offset, -128);
  // Negative values: symmetric, offset 0.
  p = glow_choose_params(F(-3.0f), F(1.0f), GlowSchema::SymmetricWithUint8, DType::I8);
  EXPECT_EQ(p.scale, F(0.0234375f));
  EXPECT_EQ(p.offset, 0);
  // A tiny non-negative range: offset 0 through the absolute epsilon test (E-GLOW-1).
  p = glow_choose_params(F(0.0f), F(1e-8f), GlowSchema::SymmetricWithUint8, DType::I8);
  EXPECT_EQ(p.offset, 0);
  p = glow_choose_params(F(0.0f), F(65535.0f), GlowSchema::SymmetricWithUint8, DType::I16);
  EXPECT_EQ(p.offset, -32768);
}

TEST(glow_bias_int32, HandTable) {
  // 0.5 * 0.25 = 0.125 > 0.1: the product; int32 -> offset 0.
  GlowQParams b = glow_bias_params(P(0.1f, 7), F(0.5f), F(0.25f), DType::I32);
  EXPECT_EQ(b.scale, F(0.125f));
  EXPECT_EQ(b.offset, 0);
  // 0.2 > 0.125: the profiled scale stays.
  b = glow_bias_params(P(0.2f, 7), F(0.5f), F(0.25f), DType::I32);
  EXPECT_EQ(b.scale, F(0.2f));
  EXPECT_EQ(b.offset, 0);
  // int8 bias keeps its offset.
  b = glow_bias_params(P(0.1f, 7), F(0.5f), F(0.25f), DType::I8);
  EXPECT_EQ(b.offset, 7);
}

TEST(glow_uint8_to_int8, HandTable) {
  EXPECT_EQ(glow_uint8_to_int8(Int(0)), -128);
  EXPECT_EQ(glow_uint8_to_int8(Int(128)), 0);
  EXPECT_EQ(glow_uint8_to_int8(Int(255)), 127);
  EXPECT_THROW(glow_uint8_to_int8(Int(256)), RequireViolated);
}

TEST(glow_rowwise, TwoRows) {
  std::vector<Int> q;
  // Row [-1, 0, 1]: (fl32(2/255), 0) as in the asymmetric table; q = round(+-127.5) = +-128
  // ... in float: 1 / fl32(2/255) = 127.49999 -> 127 and -127.
  GlowQParams p = glow_rowwise_quantize_row({F(-1.0f), F(0.0f), F(1.0f)}, GlowSchema::Asymmetric, q);
  EXPECT_EQ(p.offset, 0);
  ASSERT_EQ(q.size(), 3u);
  EXPECT_EQ(q[1], 0);
  EXPECT_EQ(q[0], -q[2]);
  // Row [0, 2, 255]: scale 1, offset -128; q = x - 128.
  p = glow_rowwise_quantize_row({F(0.0f), F(2.0f), F(255.0f)}, GlowSchema::Asymmetric, q);
  EXPECT_EQ(p.scale, F(1.0f));
  EXPECT_EQ(p.offset, -128);
  EXPECT_EQ(q, (std::vector<Int>{Int(-128), Int(-126), Int(127)}));
}

TEST(glow_fused_rowwise, HandTable) {
  // Constant row: max - min = 0 < 1e-10 -> scale 1, offset 3, all codes 0, exact round trip.
  GlowFusedRow r = glow_fused_rowwise_quantize_row({F(3.0f), F(3.0f), F(3.0f)});
  EXPECT_EQ(r.scale, F(1.0f));
  EXPECT_EQ(r.offset, F(3.0f));
  EXPECT_EQ(r.q, (std::vector<Int>{Int(0), Int(0), Int(0)}));
  EXPECT_EQ(glow_fused_rowwise_dequantize(Int(0), r.scale, r.offset), F(3.0f));
  // [0, 255]: scale (255 - 0) / 255 = 1 exactly, offset 0, q = x.
  r = glow_fused_rowwise_quantize_row({F(0.0f), F(17.0f), F(255.0f)});
  EXPECT_EQ(r.scale, F(1.0f));
  EXPECT_EQ(r.q, (std::vector<Int>{Int(0), Int(17), Int(255)}));
  // 0.5 / 1 -> roundf ties away -> 1 (nearbyintf would give 0).
  r = glow_fused_rowwise_quantize_row({F(0.0f), F(0.5f), F(255.0f)});
  EXPECT_EQ(r.q[1], 1);
  // Zero is not representable in [-1, 1]: q * s - 1 = 0 needs q = 127.5.
  r = glow_fused_rowwise_quantize_row({F(-1.0f), F(1.0f)});
  EXPECT_EQ(r.offset, F(-1.0f));
  for (int q = 0; q < 256; ++q) EXPECT_NE(V(glow_fused_rowwise_dequantize(Int(q), r.scale, r.offset)), 0.0f) << q;
}

// E-GLOW-3: `(d * scale) + offset` contracted into one fused multiply-add gives a different
// float for some rows: the model (two roundings) must say which one it is.
TEST(glow_fused_rowwise, ContractionWouldChangeTheResult) {
  int differ = 0;
  for (int q = 1; q < 256 && differ == 0; ++q) {
    const float scale = 0.1f, offset = -0.3f;
    volatile float prod = static_cast<float>(q) * scale;
    const float two_roundings = prod + offset;
    const float fused = std::fma(static_cast<float>(q), scale, offset);
    EXPECT_EQ(glow_fused_rowwise_dequantize(Int(q), F(scale), F(offset)), F(two_roundings));
    if (two_roundings != fused) ++differ;
  }
  EXPECT_GT(differ, 0);
}

TEST(glow_rescale_params, HandTable) {
  // Powers of two.
  auto p = glow_rescale_params(F(0.25f));
  EXPECT_EQ(p.pre, 0);
  EXPECT_EQ(p.post, 2);
  EXPECT_EQ(p.scale, 1);
  p = glow_rescale_params(F(4.0f));
  EXPECT_EQ(p.post, 0);
  EXPECT_EQ(p.scale, 4);
  p = glow_rescale_params(F(1.0f));
  EXPECT_EQ(p.post, 0);
  EXPECT_EQ(p.scale, 1);
  // 0.41f = 0.40999999642...: doubled 10 times to 419.84 (>= 256 stops), no pre, S = 420.
  p = glow_rescale_params(F(0.41f));
  EXPECT_EQ(p.pre, 0);
  EXPECT_EQ(p.post, 10);
  EXPECT_EQ(p.scale, 420);
  // 1.5: 1.5 * 2^8 = 384 -> (0, 8, 384).
  p = glow_rescale_params(F(1.5f));
  EXPECT_EQ(p.post, 8);
  EXPECT_EQ(p.scale, 384);
  // 1e-5f = 1.31073 * 2^-17: 16 doublings reach 0.655 (post 16 >= 15 stops); then pre < 8
  // limits the second loop to 8 doublings: 167.77 -> S = 168 (only 8 bits).
  p = glow_rescale_params(F(1e-5f));
  EXPECT_EQ(p.pre, 8);
  EXPECT_EQ(p.post, 16);
  EXPECT_EQ(p.scale, 168);
  // >= 256: nothing doubled, roundf.
  p = glow_rescale_params(F(300.7f));
  EXPECT_EQ(p.post, 0);
  EXPECT_EQ(p.scale, 301);
}

TEST(glow_rescale_integer, HandTable) {
  // ratio 0.41f -> (0, 10, 420): 10 -> (4200 + 512) >> 10 = 4; -10 -> -3688 >> 10 = -4.
  EXPECT_EQ(glow_rescale_integer(Int(10), P(0.41f, 0), P(1.0f, 0)), 4);
  EXPECT_EQ(glow_rescale_integer(Int(-10), P(0.41f, 0), P(1.0f, 0)), -4);
  // Offsets: (10 - 2) -> (3360 + 512) >> 10 = 3, - 3 = 0.
  EXPECT_EQ(glow_rescale_integer(Int(10), P(0.41f, 2), P(1.0f, -3)), 0);
  // 50 * 420 = 21000 + 512 = 21512 >> 10 = 21, while 50 * 0.41f = 20.4999998.
  EXPECT_EQ(glow_rescale_integer(Int(50), P(0.41f, 0), P(1.0f, 0)), 21);
  // Power of two 4: 127 * 4 = 508 -> clip 127.
  EXPECT_EQ(glow_rescale_integer(Int(127), P(4.0f, 0), P(1.0f, 0)), 127);
}
TEST(glow_rescale_float, HandTable) {
  // 50 * 0.41f = 20.499999821 rounds to the float 20.5; / 1 + 0 -> nearbyintf -> 20.
  EXPECT_EQ(glow_rescale_float(Int(50), P(0.41f, 0), P(1.0f, 0)), 20);
  EXPECT_EQ(glow_rescale_float(Int(10), P(0.41f, 2), P(1.0f, -3)), 0);  // 3.28 -> 3, - 3
  EXPECT_EQ(glow_rescale_float(Int(127), P(4.0f, 0), P(1.0f, 0)), 127);
}
