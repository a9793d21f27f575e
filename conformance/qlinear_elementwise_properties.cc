// Properties of the engines' quantized add and mul (spec/operators_qlinear_elementwise.md):
// - the broadcast offsets are those of the materialized NumPy broadcast (mrt.op.broadcast_add);
// - per (op, convention): the operator equals its transliteration on this machine's IEEE hardware
//   and int64 integers, element by element (the exact float modelling checked against hardware),
//   and lies within the clause's stated error bound of the exact real sum / product;
// - XNNPACK's mul is its fully connected layer of one input channel (the same fp32 epilogue);
// - hand examples of the clauses' edge rules.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <bit>
#include <string>
#include <vector>

#include "ops_arrays.h"
#include "qlinear_elementwise_models.h"
#include "qspec/ref/float_conventions.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/nn.h"
#include "qspec/ref/ops/qlinear.h"
#include "qspec/ref/ops/qlinear_concat.h"
#include "qspec/ref/ops/qlinear_elementwise.h"
#include "qspec/ref/rounding.h"
#include "qspec_rc.h"

using namespace qspec::opstest;
namespace models = qspec::qlinear_ew_models;

namespace {

long long lo_of(DType t) { return t == DType::I8 ? -128 : 0; }
long long hi_of(DType t) { return t == DType::I8 ? 127 : 255; }

// A positive normal float32 2^e (1 + m 2^-23), often with a short mantissa (exact ratios, ties).
std::uint32_t draw_scale(int e) {
  const int kind = *rc::gen::inRange(0, 3);
  const auto m = kind == 0   ? 0u
                 : kind == 1 ? *rc::gen::inRange<std::uint32_t>(0, 16) << 19
                             : *rc::gen::inRange<std::uint32_t>(0, 1u << 23);
  return (static_cast<std::uint32_t>(e + 127) << 23) | m;
}

IntArray draw_array(const Shape& s, long long lo, long long hi) {
  IntArray a(s);
  for (auto& v : a.data) v = Int(*rc::gen::inRange(lo, hi + 1));
  return a;
}

// Two broadcast-compatible shapes of rank <= 4; `spanning`: both operands span the last axis and
// have more than one element (ONNX Runtime's add clause).
std::pair<Shape, Shape> draw_shapes(bool spanning) {
  const int rank = *rc::gen::inRange(1, 5);
  Shape out;
  for (int i = 0; i < rank; ++i) out.push_back(*rc::gen::inRange(1, 4));
  if (spanning && out.back() == 1) out.back() = 2;
  Shape a = out, b = out;
  for (std::size_t i = 0; i + 1 < out.size(); ++i) {
    if (*rc::gen::inRange(0, 3) == 0) a[i] = 1;
    if (*rc::gen::inRange(0, 3) == 0) b[i] = 1;
  }
  if (!spanning && *rc::gen::inRange(0, 3) == 0) b.back() = 1;
  if (*rc::gen::inRange(0, 3) == 0) b.erase(b.begin(), b.begin() + *rc::gen::inRange(0, rank));
  if (b.empty()) b = {1};
  if (*rc::gen::arbitrary<bool>()) std::swap(a, b);
  return {a, b};
}

struct Case {
  QEwParams p;
  IntArray a, b;
};

// Parameters the convention accepts most of the time (a rejection discards the case): input
// scales within 2^4 of each other, the output scale near their sum (add) or product (mul).
Case draw_case(QEwOp op, QEwConvention c) {
  Case k;
  auto& p = k.p;
  p.type = p.b_type = *rc::gen::arbitrary<bool>() ? DType::I8 : DType::U8;
  const int ea = *rc::gen::inRange(-12, 0);
  const int eb = ea + *rc::gen::inRange(-4, 5);
  p.a_scale = draw_scale(ea);
  p.b_scale = draw_scale(eb);
  p.y_scale =
      draw_scale(op == QEwOp::Add ? std::max(ea, eb) + *rc::gen::inRange(-3, 3) : ea + eb + *rc::gen::inRange(0, 9));
  p.a_zero_point = *rc::gen::inRange(lo_of(p.type), hi_of(p.type) + 1);
  p.b_zero_point = *rc::gen::inRange(lo_of(p.type), hi_of(p.type) + 1);
  p.y_zero_point = *rc::gen::inRange(lo_of(p.type), hi_of(p.type) + 1);
  if (c != QEwConvention::OnnxRuntime && *rc::gen::inRange(0, 4) == 0) {
    const long long lo = *rc::gen::inRange(lo_of(p.type), hi_of(p.type));
    p.y_min = Int(lo);
    p.y_max = Int(*rc::gen::inRange(lo + 1, hi_of(p.type) + 1));
  }
  const auto [sa, sb] = draw_shapes(op == QEwOp::Add && c == QEwConvention::OnnxRuntime);
  k.a = draw_array(sa, lo_of(p.type), hi_of(p.type));
  k.b = draw_array(sb, lo_of(p.type), hi_of(p.type));
  return k;
}

// The operator through the reference; a case the convention rejects or leaves undefined is discarded.
IntArray run(QEwOp op, const Case& k, QEwConvention c) {
  try {
    return qlinear_elementwise(op, k.a, k.b, k.p, c);
  } catch (const RequireViolated&) {
    RC_DISCARD("outside a REQUIRE");
  } catch (const ErrorIf&) {
    RC_DISCARD("rejected parameters");
  }
}

// ---- the broadcast ----

RC_GTEST_PROP(qlinear_ew_broadcast, OffsetsAreThoseOfTheMaterializedBroadcast, ()) {
  const auto [sa, sb] = draw_shapes(false);
  const auto bc = qlinear_ew_broadcast(sa, sb);
  // broadcast_add of a's offsets with zeros of b's shape is a's offset at every output position.
  const IntArray oa = broadcast_add(iota_array(sa), IntArray(sb)), ob = broadcast_add(IntArray(sa), iota_array(sb));
  RC_ASSERT(oa.shape == bc.out);
  for (std::size_t i = 0; i < bc.a_offset.size(); ++i) {
    RC_ASSERT(Int(bc.a_offset[i]) == oa.data[i]);
    RC_ASSERT(Int(bc.b_offset[i]) == ob.data[i]);
  }
}

TEST(qlinear_ew_broadcast, ShapesThatDoNotBroadcastOrDtypesThatDifferAreRejected) {
  QEwParams p;
  EXPECT_THROW(qlinear_ew_broadcast({2, 3}, {2}), ErrorIf);
  EXPECT_THROW(
      qlinear_elementwise(QEwOp::Add, ia({2, 3}, {1, 2, 3, 4, 5, 6}), ia({2}, {1, 2}), p, QEwConvention::XnnpackFp32),
      ErrorIf);
  p.b_type = DType::U8;
  EXPECT_THROW(qlinear_elementwise(QEwOp::Mul, ia({2}, {1, 2}), ia({2}, {1, 2}), p, QEwConvention::TfliteDoubleRound),
               ErrorIf);
}

// ---- every (op, convention) equals its hardware transliteration ----

void check_hardware(QEwOp op, QEwConvention c) {
  const Case k = draw_case(op, c);
  const auto hw = models::hw_element(op, c, k.p);
  if (!hw) {  // the engine's own checks reject the parameters: so must the clause
    bool rejected = false;
    try {
      qlinear_elementwise(op, k.a, k.b, k.p, c);
    } catch (const ErrorIf&) {
      rejected = true;
    } catch (const RequireViolated&) {
      RC_DISCARD("outside a REQUIRE");
    }
    RC_ASSERT(rejected);
    return;
  }
  IntArray y;
  try {
    y = qlinear_elementwise(op, k.a, k.b, k.p, c);
  } catch (const ErrorIf& e) {
    RC_FAIL(std::string("the clause rejects what the engine accepts: ") + e.what());
  } catch (const RequireViolated&) {
    RC_DISCARD("outside a REQUIRE");
  }
  const auto bc = qlinear_ew_broadcast(k.a.shape, k.b.shape);
  for (std::size_t i = 0; i < y.data.size(); ++i) {
    const auto a = static_cast<std::int64_t>(k.a.data[static_cast<std::size_t>(bc.a_offset[i])]);
    const auto b = static_cast<std::int64_t>(k.b.data[static_cast<std::size_t>(bc.b_offset[i])]);
    RC_ASSERT(y.data[i] == Int(hw(a, b)));
  }
}

RC_GTEST_PROP(qlinear_add_xnnpack_fp32, EqualsItsTransliterationOnTheHardware, ()) {
  check_hardware(QEwOp::Add, QEwConvention::XnnpackFp32);
}
RC_GTEST_PROP(qlinear_add_onnxruntime, EqualsItsTransliterationOnTheHardware, ()) {
  check_hardware(QEwOp::Add, QEwConvention::OnnxRuntime);
}
RC_GTEST_PROP(qlinear_add_tflite_double_round, EqualsItsTransliterationOnTheHardware, ()) {
  check_hardware(QEwOp::Add, QEwConvention::TfliteDoubleRound);
}
RC_GTEST_PROP(qlinear_add_tflite_single_round, EqualsItsTransliterationOnTheHardware, ()) {
  check_hardware(QEwOp::Add, QEwConvention::TfliteSingleRound);
}
RC_GTEST_PROP(qlinear_mul_xnnpack_fp32, EqualsItsTransliterationOnTheHardware, ()) {
  check_hardware(QEwOp::Mul, QEwConvention::XnnpackFp32);
}
RC_GTEST_PROP(qlinear_mul_onnxruntime, EqualsItsTransliterationOnTheHardware, ()) {
  check_hardware(QEwOp::Mul, QEwConvention::OnnxRuntime);
}
RC_GTEST_PROP(qlinear_mul_tflite_double_round, EqualsItsTransliterationOnTheHardware, ()) {
  check_hardware(QEwOp::Mul, QEwConvention::TfliteDoubleRound);
}
RC_GTEST_PROP(qlinear_mul_tflite_single_round, EqualsItsTransliterationOnTheHardware, ()) {
  check_hardware(QEwOp::Mul, QEwConvention::TfliteSingleRound);
}

// ---- error bounds against the exact real result ----

Rat value(std::uint32_t bits) { return f32_value(bits); }

// The clause's bound on |y - r| for one element (spec/operators_qlinear_elementwise.md).
Rat bound(QEwOp op, QEwConvention c, const QEwParams& p, const Int& a, const Int& b, const Rat& r) {
  const Rat u = pow2r(-24);
  const Int da = abs(a - p.a_zero_point), db = abs(b - p.b_zero_point);
  const Rat dev = abs(r - Rat(p.y_zero_point));  // |r - z_y|
  if (op == QEwOp::Add) {
    const Rat ra = value(p.a_scale) / value(p.y_scale), rb = value(p.b_scale) / value(p.y_scale);
    switch (c) {
      case QEwConvention::XnnpackFp32: {
        const int shift = qlinear_add_xnnpack_params(p).shift;
        return Rat(1, 2) + Rat(da + db) * pow2r(-(shift + 1)) + u * (ra * Rat(da) + rb * Rat(db));
      }
      case QEwConvention::OnnxRuntime:
        return Rat(1, 2) + pow2r(-21) * (abs(Rat(p.y_zero_point)) + ra * Rat(abs(a) + abs(p.a_zero_point)) +
                                         rb * Rat(abs(b) + abs(p.b_zero_point)) + 1);
      default: {
        const Rat m = std::max(value(p.a_scale), value(p.b_scale));
        const Rat real_out = 2 * m / (pow2r(20) * value(p.y_scale));
        return 1 + 2 * real_out + pow2r(-29) * (dev + Rat(da + db));
      }
    }
  }
  switch (c) {
    case QEwConvention::XnnpackFp32: return Rat(1, 2) + ((1 + u) * (1 + u) * (1 + u) - 1) * dev;
    case QEwConvention::OnnxRuntime: return Rat(1, 2) + pow2r(-22) * (dev + abs(Rat(p.y_zero_point)));
    default: return 1 + pow2r(-30) * dev;
  }
}

void check_bound(QEwOp op, QEwConvention c) {
  const Case k = draw_case(op, c);
  const IntArray y = run(op, k, c);
  const auto bc = qlinear_ew_broadcast(k.a.shape, k.b.shape);
  const Range t = int_range(k.p.type);
  const Int lo = k.p.y_min.value_or(t.lo), hi = k.p.y_max.value_or(t.hi);
  for (std::size_t i = 0; i < y.data.size(); ++i) {
    const Int& a = k.a.data[static_cast<std::size_t>(bc.a_offset[i])];
    const Int& b = k.b.data[static_cast<std::size_t>(bc.b_offset[i])];
    const Rat ra = value(k.p.a_scale) * Rat(a - k.p.a_zero_point), rb = value(k.p.b_scale) * Rat(b - k.p.b_zero_point);
    const Rat r = Rat(k.p.y_zero_point) + (op == QEwOp::Add ? ra + rb : ra * rb) / value(k.p.y_scale);
    const Rat margin = bound(op, c, k.p, a, b, r), yv(y.data[i]);
    if (y.data[i] > lo && y.data[i] < hi) RC_ASSERT(abs(yv - r) <= margin);
    if (y.data[i] == lo) RC_ASSERT(r <= yv + margin);
    if (y.data[i] == hi) RC_ASSERT(r >= yv - margin);
  }
}

RC_GTEST_PROP(qlinear_add_xnnpack_fp32, WithinTheStatedBoundOfTheRealSum, ()) {
  check_bound(QEwOp::Add, QEwConvention::XnnpackFp32);
}
RC_GTEST_PROP(qlinear_add_onnxruntime, WithinTheStatedBoundOfTheRealSum, ()) {
  check_bound(QEwOp::Add, QEwConvention::OnnxRuntime);
}
RC_GTEST_PROP(qlinear_add_tflite_double_round, WithinTheStatedBoundOfTheRealSum, ()) {
  check_bound(QEwOp::Add, QEwConvention::TfliteDoubleRound);
}
RC_GTEST_PROP(qlinear_add_tflite_single_round, WithinTheStatedBoundOfTheRealSum, ()) {
  check_bound(QEwOp::Add, QEwConvention::TfliteSingleRound);
}
RC_GTEST_PROP(qlinear_mul_xnnpack_fp32, WithinTheStatedBoundOfTheRealProduct, ()) {
  check_bound(QEwOp::Mul, QEwConvention::XnnpackFp32);
}
RC_GTEST_PROP(qlinear_mul_onnxruntime, WithinTheStatedBoundOfTheRealProduct, ()) {
  check_bound(QEwOp::Mul, QEwConvention::OnnxRuntime);
}
RC_GTEST_PROP(qlinear_mul_tflite_double_round, WithinTheStatedBoundOfTheRealProduct, ()) {
  check_bound(QEwOp::Mul, QEwConvention::TfliteDoubleRound);
}
RC_GTEST_PROP(qlinear_mul_tflite_single_round, WithinTheStatedBoundOfTheRealProduct, ()) {
  check_bound(QEwOp::Mul, QEwConvention::TfliteSingleRound);
}

// ---- composition with the operator clauses ----

// XNNPACK's multiply is its fully connected layer with one input channel: acc = (a - z_a)(b - z_b),
// S = fl32(fl32(s_a s_b) / s_y), the same fp32 epilogue and clamp (qlinear.xnnpack_fp32), wherever
// both operators accept the parameters (qs8 has no kernel zero point: z_b = 0 for int8).
RC_GTEST_PROP(qlinear_mul_xnnpack_fp32, EqualsAOneByOneFullyConnectedLayer, ()) {
  Case k = draw_case(QEwOp::Mul, QEwConvention::XnnpackFp32);
  if (k.p.type == DType::I8) k.p.b_zero_point = 0;
  k.a = draw_array({5}, lo_of(k.p.type), hi_of(k.p.type));
  k.b = draw_array({5}, lo_of(k.p.type), hi_of(k.p.type));
  const IntArray y = run(QEwOp::Mul, k, QEwConvention::XnnpackFp32);
  QLinearParams fp;
  fp.x_type = fp.w_type = k.p.type;
  fp.x_scale = k.p.a_scale, fp.x_zero_point = k.p.a_zero_point;
  fp.w_scales = {k.p.b_scale}, fp.w_zero_point = k.p.b_zero_point;
  fp.y_scale = k.p.y_scale, fp.y_zero_point = k.p.y_zero_point, fp.y_min = k.p.y_min, fp.y_max = k.p.y_max;
  for (std::size_t i = 0; i < 5; ++i) {
    const IntArray fc = qlinear_fully_connected(IntArray({1, 1}, {k.a.data[i]}), IntArray({1, 1}, {k.b.data[i]}),
                                                nullptr, fp, QLinearConvention::XnnpackFp32);
    RC_ASSERT(fc.data[0] == y.data[i]);
  }
}

// ---- hand examples ----

TEST(qlinear_mul_onnxruntime, AddsTheZeroPointBeforeRounding) {
  // R = 1/2, z_y = 3: p = 1 gives v = 0.5 + 3 = 3.5 -> 4; XNNPACK rounds 0.5 -> 0 first: 3.
  QEwParams p;
  p.y_scale = 0x40000000u;  // 2
  p.y_zero_point = Int(3);
  const IntArray a = ia({2}, {1, -1}), b = ia({2}, {1, 1});
  EXPECT_EQ(qlinear_elementwise(QEwOp::Mul, a, b, p, QEwConvention::OnnxRuntime), ia({2}, {4, 2}));
  EXPECT_EQ(qlinear_elementwise(QEwOp::Mul, a, b, p, QEwConvention::XnnpackFp32), ia({2}, {3, 3}));
}

// ONNX Runtime 1.30.0 measured (x86-64, AVX-512): uint8, a one element. QLinearAdd calls MLAS with
// b as InputA and a as the scalar InputB, so the constant folds b's zero point first and a's term
// is added to it before b's: 128 where the general order gives 129.
TEST(qlinear_add_onnxruntime, AScalarAIsFoldedFirstWithTheRolesSwapped) {
  QEwParams p;
  p.type = p.b_type = DType::U8;
  p.a_scale = 0x3b2dcd70u, p.b_scale = 0x3ba7fd70u, p.y_scale = 0x3daf7c96u;
  p.a_zero_point = Int(240), p.b_zero_point = Int(60), p.y_zero_point = Int(120);
  EXPECT_EQ(qlinear_add_onnxruntime_path({1}, {2}), QEwOrtAddPath::ScalarA);
  EXPECT_EQ(qlinear_elementwise(QEwOp::Add, ia({1}, {244}), ia({2}, {200, 200}), p, QEwConvention::OnnxRuntime),
            ia({2}, {128, 128}));
  // The same codes with both operands spanning the axis take the general order.
  EXPECT_EQ(qlinear_elementwise(QEwOp::Add, ia({2}, {244, 244}), ia({2}, {200, 200}), p, QEwConvention::OnnxRuntime),
            ia({2}, {129, 129}));
  // A unit last axis of a against b's is the same path, per span; b one scalar per span is not.
  EXPECT_EQ(qlinear_add_onnxruntime_path({2, 1}, {2, 3}), QEwOrtAddPath::ScalarA);
  EXPECT_EQ(qlinear_add_onnxruntime_path({2, 3}, {2, 1}), QEwOrtAddPath::General);
  EXPECT_EQ(qlinear_add_onnxruntime_path({2, 3}, {1}), QEwOrtAddPath::General);
  EXPECT_EQ(qlinear_add_onnxruntime_path({1}, {1}), QEwOrtAddPath::ScalarA);
  // Unit last axes on both sides with different shapes: how ONNX Runtime cuts spans is not pinned.
  EXPECT_THROW(qlinear_add_onnxruntime_path({2, 1}, {3, 1, 1}), RequireViolated);
}

// The scalar-a path is the general path of the swapped operator b + a (MLAS's own view of the call):
// for every a of one element, y(a, b; p) = y(b, a; p with a's and b's parameters exchanged).
RC_GTEST_PROP(qlinear_add_onnxruntime, AScalarAIsTheGeneralPathWithTheRolesSwapped, ()) {
  Case k = draw_case(QEwOp::Add, QEwConvention::OnnxRuntime);
  k.a = draw_array({1}, lo_of(k.p.type), hi_of(k.p.type));
  if (k.b.data.size() < 2) k.b = draw_array({2, 3}, lo_of(k.p.type), hi_of(k.p.type));
  const IntArray y = run(QEwOp::Add, k, QEwConvention::OnnxRuntime);
  QEwParams swapped = k.p;
  std::swap(swapped.a_scale, swapped.b_scale);
  std::swap(swapped.a_zero_point, swapped.b_zero_point);
  const auto hw = models::hw_element(QEwOp::Add, QEwConvention::OnnxRuntime, swapped);
  RC_PRE(static_cast<bool>(hw));
  for (std::size_t i = 0; i < y.data.size(); ++i)
    RC_ASSERT(y.data[i] == Int(hw(static_cast<std::int64_t>(k.b.data[i]), static_cast<std::int64_t>(k.a.data[0]))));
}

TEST(qlinear_add_xnnpack_fp32, RatioLimitsAreRejected) {
  QEwParams p;
  p.a_scale = 0x43800000u;  // 256: s_a / s_y = 2^8
  EXPECT_THROW(qlinear_add_xnnpack_params(p), ErrorIf);
  p.a_scale = 0x3a800000u;  // 2^-10: inside
  const auto k = qlinear_add_xnnpack_params(p);
  EXPECT_EQ(k.shift, 20);  // the larger ratio is s_b / s_y = 1
  EXPECT_EQ(k.b_multiplier, Int(1 << 20));
  EXPECT_EQ(k.a_multiplier, Int(1 << 10));
}

TEST(qlinear_add_tflite_double_round, AnOutputMultiplierOfOneAborts) {
  QEwParams p;
  p.y_scale = 0x36000000u;  // 2^-19: 2 max(s_a, s_b) / (2^20 s_y) = 1
  EXPECT_THROW(qlinear_add_tflite_params(p, false), ErrorIf);
  EXPECT_THROW(qlinear_add_tflite_params(p, true), ErrorIf);
}

// spec/errata.md E-QEW-1: the documented formula rounds before adding the zero point.
TEST(qlinear_add_onnxruntime, AddsTheZeroPointBeforeRoundingUnlikeItsComment) {
  QEwParams p;
  p.a_scale = p.b_scale = 0x3f000000u;  // 1/2
  p.y_zero_point = Int(1);
  EXPECT_EQ(qlinear_elementwise(QEwOp::Add, ia({2}, {1, 3}), ia({2}, {0, 0}), p, QEwConvention::OnnxRuntime),
            ia({2}, {2, 2}));  // rne(1.5) = 2 (the comment: rne(0.5) + 1 = 1), rne(2.5) = 2
}

// spec/errata.md E-QEW-2: TF 2.x derives MUL's multiplier from double scales (TF 1.x: in float).
TEST(qlinear_mul_tflite_double_round, TheMultiplierIsDerivedInDoubleNotFloat) {
  QEwParams p;
  p.a_scale = 0x3c6a5330u, p.b_scale = 0x3dadddecu, p.y_scale = 0x3e43cc69u;
  const auto m = qlinear_mul_tflite_params(p, false);
  EXPECT_EQ(m.multiplier, Int(1745484483));  // the float derivation: 1745484416
  EXPECT_EQ(m.shift, -7);
  EXPECT_EQ(qlinear_elementwise(QEwOp::Mul, ia({1}, {107}), ia({1}, {-117}), p, QEwConvention::TfliteDoubleRound),
            ia({1}, {-80}));  // the float derivation gives -79
}

// spec/errata.md E-QEW-3: a subnormal scale is finite and positive, and still rejected.
TEST(qlinear_add_xnnpack_fp32, ASubnormalScaleIsRejected) {
  QEwParams p;
  p.a_scale = 0x00400000u;  // 2^-127
  EXPECT_THROW(qlinear_add_xnnpack_params(p), ErrorIf);
  EXPECT_THROW(qlinear_mul_xnnpack_scale(p), ErrorIf);
}

// ---- concatenation ----

struct ConcatCase {
  std::vector<IntArray> xs;
  QConcatParams p;
  std::int64_t axis = 0;
};

// Two to four inputs of one rank along a random axis; some inputs carry the output's parameters.
ConcatCase draw_concat(QConcatConvention c) {
  ConcatCase k;
  auto& p = k.p;
  p.type = *rc::gen::arbitrary<bool>() ? DType::I8 : DType::U8;
  const int rank = *rc::gen::inRange(1, 4);
  Shape base;
  for (int d = 0; d < rank; ++d) base.push_back(*rc::gen::inRange(1, 4));
  const int ax = *rc::gen::inRange(0, rank);
  k.axis = *rc::gen::arbitrary<bool>() ? ax : ax - rank;
  const int ey = *rc::gen::inRange(-10, -2);
  p.y_scale = draw_scale(ey);
  p.y_zero_point = *rc::gen::inRange(lo_of(p.type), hi_of(p.type) + 1);
  const int n = *rc::gen::inRange(1, 5);
  for (int i = 0; i < n; ++i) {
    Shape s = base;
    s[static_cast<std::size_t>(ax)] = *rc::gen::inRange(1, 4);
    k.xs.push_back(draw_array(s, lo_of(p.type), hi_of(p.type)));
    p.input_types.push_back(p.type);
    const bool copy = (c == QConcatConvention::TfliteReference && p.type == DType::I8) || *rc::gen::inRange(0, 4) == 0;
    p.x_scales.push_back(copy ? p.y_scale : draw_scale(ey + *rc::gen::inRange(-3, 4)));
    p.x_zero_points.push_back(copy ? p.y_zero_point : Int(*rc::gen::inRange(lo_of(p.type), hi_of(p.type) + 1)));
  }
  return k;
}

IntArray run_concat(const ConcatCase& k, QConcatConvention c) {
  try {
    return qlinear_concat(k.xs, k.axis, k.p, c);
  } catch (const RequireViolated&) {
    RC_DISCARD("outside a REQUIRE");
  } catch (const ErrorIf& e) {
    RC_FAIL(std::string("a drawn case is rejected: ") + e.what());
  }
}

// The operator is mrt.op.concat of the inputs mapped code by code through the hardware
// transliteration of the engine's requantization (an independent model of both steps).
void check_concat_hardware(QConcatConvention c) {
  const ConcatCase k = draw_concat(c);
  const IntArray y = run_concat(k, c);
  std::vector<IntArray> mapped;
  for (std::size_t i = 0; i < k.xs.size(); ++i) {
    const float sx = std::bit_cast<float>(k.p.x_scales[i]), sy = std::bit_cast<float>(k.p.y_scale);
    const auto zx = static_cast<std::int64_t>(k.p.x_zero_points[i]), zy = static_cast<std::int64_t>(k.p.y_zero_point);
    const bool copy = sx == sy && zx == zy;
    IntArray m = k.xs[i];
    for (auto& v : m.data) {
      const auto x = static_cast<std::int64_t>(v);
      v = Int(copy ? x
              : c == QConcatConvention::OnnxRuntime
                  ? qspec::qlinear_ew_hw::ort_concat(k.p.type == DType::U8, sx, zx, sy, zy, x)
                  : qspec::qlinear_ew_hw::tfl_concat(sx, zx, sy, zy, x));
    }
    mapped.push_back(std::move(m));
  }
  RC_ASSERT(y == concat(mapped, k.axis));
}

RC_GTEST_PROP(qlinear_concat_onnxruntime, IsTheConcatOfTheHardwareRequantizedInputs, ()) {
  check_concat_hardware(QConcatConvention::OnnxRuntime);
}
RC_GTEST_PROP(qlinear_concat_tflite_reference, IsTheConcatOfTheHardwareRequantizedInputs, ()) {
  check_concat_hardware(QConcatConvention::TfliteReference);
}

void check_concat_bound(QConcatConvention c) {
  const ConcatCase k = draw_concat(c);
  const IntArray y = run_concat(k, c);
  // Each output is one input code's map: check every input code's map against its real value.
  const Range t = int_range(k.p.type);
  for (std::size_t i = 0; i < k.xs.size(); ++i) {
    const auto f = qlinear_concat_map(k.p, i, c);
    for (const auto& x : k.xs[i].data) {
      const Rat real = f32_value(k.p.x_scales[i]) * Rat(x - k.p.x_zero_points[i]) / f32_value(k.p.y_scale);
      const Rat r = Rat(k.p.y_zero_point) + real, yv(f(x));
      const Rat margin =
          c == QConcatConvention::OnnxRuntime
              ? Rat(1, 2) + pow2r(-22) * abs(real)
              : Rat(1, 2) + pow2r(-21) * (abs(real) + abs(f32_value(k.p.x_scales[i]) * Rat(k.p.x_zero_points[i]) /
                                                          f32_value(k.p.y_scale)));
      if (f(x) > t.lo && f(x) < t.hi) RC_ASSERT(abs(yv - r) <= margin);
      if (f(x) == t.lo) RC_ASSERT(r <= yv + margin);
      if (f(x) == t.hi) RC_ASSERT(r >= yv - margin);
    }
  }
  RC_ASSERT(!y.data.empty());
}

RC_GTEST_PROP(qlinear_concat_onnxruntime, WithinTheStatedBoundOfTheRealValue, ()) {
  check_concat_bound(QConcatConvention::OnnxRuntime);
}
RC_GTEST_PROP(qlinear_concat_tflite_reference, WithinTheStatedBoundOfTheRealValue, ()) {
  check_concat_bound(QConcatConvention::TfliteReference);
}

TEST(qlinear_concat_tflite_reference, Int8InputsNeedTheOutputsParameters) {
  QConcatParams p;
  p.type = DType::I8;
  p.input_types = {DType::I8};
  p.x_scales = {0x3f000000u};  // 1/2, the output's 1
  p.x_zero_points = {Int(0)};
  EXPECT_THROW(qlinear_concat({ia({2}, {1, 2})}, 0, p, QConcatConvention::TfliteReference), ErrorIf);
  EXPECT_EQ(qlinear_concat({ia({2}, {1, 3})}, 0, p, QConcatConvention::OnnxRuntime),
            ia({2}, {0, 2}));  // 0.5 -> 0, 1.5 -> 2
  p.x_scales = {0x3f800000u};
  EXPECT_EQ(qlinear_concat({ia({2}, {1, 2})}, 0, p, QConcatConvention::TfliteReference), ia({2}, {1, 2}));
}

TEST(qlinear_concat_onnxruntime, ParameterListsNeedOneEntryPerInput) {
  QConcatParams p;
  p.type = DType::U8;
  p.input_types = {DType::U8, DType::U8};
  p.x_scales = {0x3f800000u};
  p.x_zero_points = {Int(0), Int(0)};
  EXPECT_THROW(qlinear_concat({ia({1}, {1}), ia({1}, {2})}, 0, p, QConcatConvention::OnnxRuntime), ErrorIf);
}

// spec/errata.md E-QEW-4: s_x = 0x3efffffa (0.49999982), s_y = 1, z_x = 5, z_y = 0, x = 6: two
// roundings give fl32(6 s_x) + fl32(-5 s_x) = 0.5 exactly -> 1; a fused x * scale + bias gives
// 0.49999988 -> 0.
TEST(qlinear_concat_tflite_reference, AFusedMultiplyAddWouldRoundDifferently) {
  QConcatParams p;
  p.type = DType::U8;
  p.input_types = {DType::U8};
  p.x_scales = {0x3efffffau};
  p.x_zero_points = {Int(5)};
  const auto f = qlinear_concat_map(p, 0, QConcatConvention::TfliteReference);
  EXPECT_EQ(f(Int(6)), Int(1));
  const std::uint32_t scale = p.x_scales[0];  // fl32(s_x fl32(1 / 1)) = s_x
  const std::uint32_t bias = f32_mul(f32_from_int(Int(-5)), scale);
  const std::uint32_t fused = f32_round(Rat(6) * f32_value(scale) + f32_value(bias));
  EXPECT_EQ(round_half_away(f32_value(fused)), Int(0));
}

}  // namespace
