// Golden-vector families of ONNX DynamicQuantizeLinear: the operator and its parameter choice (choose_quant_params).
//
// Expected outputs come from the reference ops; the reference's float32 arithmetic is consulted
// here only to find inputs whose zero point is clamped (a descriptive flag).
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "qspec/catalogue/keys.h"
#include "qspec/ref/ieee.h"
#include "qspec/vecgen.h"
#include "qspec/vecgen/float_helpers.h"

namespace qspec::vecgen {
namespace {

using ref::Int;
using ref::Rat;
using Choose = cat::choose_quant_params;
using Dql = cat::onnx_dynamic_quantize_linear;

constexpr std::uint32_t kSign = 0x80000000u, kF255 = 0x437f0000u;

// The float32 bits of a rational that float32 holds exactly (the constructions below only make those).
std::int64_t bits(const Rat& v) { return ref::f32_round(v); }
Rat pow2(int e) { return e >= 0 ? Rat(Int(1) << e) : Rat(1, Int(1) << -e); }
// A random finite float32 of the given sign with exponent in [2^lo, 2^hi].
std::int64_t random_f32(Rng& rng, bool negative, int lo, int hi) {
  const std::int64_t exponent = rng.uniform(127 + lo, 127 + hi);  // drawn first, in its own statement
  return (negative ? std::int64_t{kSign} : 0) | (exponent << 23) | rng.uniform(0, (1 << 23) - 1);
}

std::vector<Group> generate_params(Rng& rng) {
  Group g;
  auto add = [&](std::int64_t lo, std::int64_t hi, std::vector<std::string> flags, const std::string& comment) {
    Test t;
    t.comment = comment;
    t.flags = std::move(flags);
    t.inputs = {scalar_vector(std::string(Choose::in::range), DType::F32, {lo, hi})};
    g.tests.push_back(std::move(t));
  };
  const std::int64_t z = 0, nz = kSign;
  add(bits(-1), bits(1), {"symmetric"}, "[-1, 1]: fl32(2/255) is above 2/255, zero point 127");
  add(bits(-10), bits(10), {"symmetric"}, "[-10, 10]");
  add(z, bits(Rat(1, 2)), {"all_positive"}, "[0, 0.5]: zero point 0");
  add(bits(1), bits(6), {"all_positive"}, "[1, 6] is extended to [0, 6]");
  add(bits(-3), bits(-1), {"all_negative"}, "[-3, -1] is extended to [-3, 0]: zero point 255");
  add(bits(-1), z, {"all_negative"}, "[-1, 0]: 0 - (-1 / fl32(1/255)) rounds to 255");
  add(z, z, {"all_zero"}, "[0, 0]: max == min, scale 1 and zero point 0 (errata E-FLOAT-5)");
  add(nz, nz, {"all_zero", "signed_zero"}, "[-0, -0]: scale 1");
  add(nz, z, {"all_zero", "signed_zero"}, "[-0, 0]: -0 == 0, scale 1");
  add(bits(2), bits(2), {"min_eq_max_nonzero"}, "[2, 2] is [0, 2]");
  add(bits(-2), bits(-2), {"min_eq_max_nonzero"}, "[-2, -2] is [-2, 0]");
  add(bits(Rat(-1, 10)), bits(6), {"typical"}, "[-0.1, 6]: a ReLU6-like range");
  add(bits(Rat(-3, 2)), bits(Rat(37, 10)), {"typical"}, "[-1.5, 3.7]");
  add(nz, bits(1), {"signed_zero"}, "min = -0: the range is [-0, 1]");
  add(bits(-1), nz, {"signed_zero"}, "max = -0: std::max(-0.f, 0.f) keeps -0");
  add(z, 0x00000001, {"scale_underflow"}, "[0, 2^-149]: fl32(2^-149 / 255) = 0, 0 / 0 is NaN and clamps to 255");
  add(nz | 0x00000001, z, {"scale_underflow"}, "[-2^-149, 0]: scale 0, -min / 0 = +inf clamps to 255");
  add(nz | 0x00000001, 0x00000001, {"scale_underflow"}, "[-2^-149, 2^-149]: scale 0, zero point 255");
  add(z, bits(pow2(-141)), {"scale_subnormal"}, "[0, 2^-141]: scale rounds up to 2^-149, zero point 0");
  add(0xff61b1e6, 0x7f61b1e6, {"scale_overflow"}, "[-3e38, 3e38]: max - min overflows, scale inf, zero point 0");
  add(0xff7fffff, z, {"all_negative"}, "[-FLT_MAX, 0]: the largest finite range");
  // ONNX's node tests (onnx/backend/test/case/node/dynamicquantizelinear.py): the data's ranges.
  add(bits(-3), bits(2), {"onnx_node_test"}, "test_dynamicquantizelinear: [-3, 2], zero point 153");
  add(bits(-4), bits(-1), {"onnx_node_test", "all_negative"}, "test_dynamicquantizelinear_max_adjusted: [-4, 0]");
  add(bits(1), bits(4), {"onnx_node_test", "all_positive"}, "test_dynamicquantizelinear_min_adjusted: [0, 4]");
  // Zero point ties: scale 2^-e exactly and -min / scale = k + 1/2. Half to even gives k for even k
  // (gemmlowp's std::round gives k + 1), and k + 1 for odd k (as does rounding half up).
  auto tie = [&](int e, int k) {
    const Rat s = pow2(-e);
    add(bits(-(Rat(k) + Rat(1, 2)) * s), bits((Rat(254) + Rat(1, 2) - Rat(k)) * s),
        {k % 2 == 0 ? "zero_point_tie_even" : "zero_point_tie_odd"},
        "scale 2^-" + std::to_string(e) + ", -min / scale = " + std::to_string(k) + ".5");
  };
  for (int k = 0; k <= 254; ++k) tie(8, k);
  for (int i = 0; i < 30; ++i) {
    const int e = static_cast<int>(rng.uniform(-30, 30));  // one draw per statement: argument order is unspecified
    tie(e, static_cast<int>(rng.uniform(0, 254)));
  }
  // Zero points clamped to 255: all-negative ranges where the scale rounds down, so that
  // fl32(-min / scale) is above 255.
  int clamped = 0;
  for (std::uint32_t m = 0x3f800000u; clamped < 6 && m < 0x3f810000u; ++m) {
    const std::uint32_t s = ref::f32_div(m, kF255);
    if (ref::f32_value(ref::f32_div(m, s)) > 255) {
      add(std::int64_t{m | kSign}, z, {"zero_point_clamp", "all_negative"}, "0 - min / scale is above 255");
      ++clamped;
    }
  }
  for (int i = 0; i < 100; ++i) {
    const std::int64_t lo = random_f32(rng, true, -20, 19), hi = random_f32(rng, false, -20, 19);
    add(lo, hi, {"random"}, "random range containing 0");
  }
  for (int i = 0; i < 10; ++i) {
    const std::int64_t a = random_f32(rng, false, -20, 19), b = random_f32(rng, false, -20, 19);
    add(std::min(a, b), std::max(a, b), {"random", "all_positive"}, "random positive range");
    add(std::max(a, b) | kSign, std::min(a, b) | kSign, {"random", "all_negative"}, "random negative range");
  }
  return {g};
}

QSPEC_REGISTER_VECTOR_FAMILY(family<Choose>(
    Choose::conv::onnx_dynamic_quantize_linear,
    {{"symmetric", "a range symmetric around 0"},
     {"all_positive", "min >= 0: the range is extended down to 0, zero point 0"},
     {"all_negative", "max <= 0: the range is extended up to 0"},
     {"all_zero", "min == max == 0: scale 1, zero point 0 (ONNX Runtime; errata E-FLOAT-5)"},
     {"min_eq_max_nonzero", "min == max != 0"},
     {"typical", "a typical activation range"},
     {"zero_point_tie_even", "-min / scale is exactly k + 1/2 with k even: half to even gives k, std::round k + 1"},
     {"zero_point_tie_odd", "-min / scale is exactly k + 1/2 with k odd: half to even gives k + 1"},
     {"zero_point_clamp", "0 - min / scale is above 255 in float32: clamped before rounding"},
     {"signed_zero", "a negative zero bound"},
     {"scale_underflow", "(max - min) / 255 underflows to 0 in float32: zero point 255"},
     {"scale_subnormal", "a subnormal scale"},
     {"scale_overflow", "max - min overflows float32: scale +inf, zero point 0"},
     {"onnx_node_test", "the ranges of ONNX's own node tests"},
     {"random", "random ranges"}},
    3061, generate_params));

// Data tensors for the operator. The parameters must stay where QuantizeLinear is defined (a finite,
// nonzero scale: the data's range neither overflows float32 nor is subnormal), so magnitudes stay
// within [2^-20, 2^20) except in the hand-picked cases.
std::vector<Group> generate_operator(Rng& rng) {
  Group g;
  auto add = [&](std::vector<std::int64_t> shape, std::vector<std::int64_t> xs, std::vector<std::string> flags,
                 const std::string& comment) {
    Test t;
    t.comment = comment;
    t.flags = std::move(flags);
    t.inputs = {tensor(std::string(Dql::in::x), DType::F32, std::move(shape), std::move(xs))};
    g.tests.push_back(std::move(t));
  };
  auto f = [](float v) { return std::int64_t{f32(v)}; };
  const std::int64_t z = 0, nz = kSign;
  // ONNX's node tests (onnx/backend/test/case/node/dynamicquantizelinear.py), their inputs as given.
  add({6}, {f(0), f(2), f(-3), f(-2.5f), f(1.34f), f(0.5f)}, {"onnx_node_test"},
      "test_dynamicquantizelinear: ONNX expects scale 0.0196078438, zero point 153, y 153 255 0 26 221 179");
  add({6}, {f(-1.0f), f(-2.1f), f(-1.3f), f(-2.5f), f(-3.34f), f(-4.0f)}, {"onnx_node_test", "all_negative"},
      "test_dynamicquantizelinear_max_adjusted: ONNX expects zero point 255, y 191 121 172 96 42 0");
  add({3, 4},
      {f(1), f(2.1f), f(1.3f), f(2.5f), f(3.34f), f(4.0f), f(1.5f), f(2.6f), f(3.9f), f(4.0f), f(3.0f), f(2.345f)},
      {"onnx_node_test", "all_positive"}, "test_dynamicquantizelinear_min_adjusted: ONNX expects zero point 0");
  add({4}, {z, z, z, z}, {"all_zero"}, "all zeros: scale 1, zero point 0, y 0");
  add({4}, {nz, z, nz, z}, {"all_zero", "signed_zero"}, "zeros of both signs: scale 1");
  add({5}, {nz, f(1), f(0.25f), f(0.5f), f(0.75f)}, {"signed_zero", "all_positive"}, "-0 and positives: zero point 0");
  add({4}, {f(-1), f(-0.5f), nz, f(-0.25f)}, {"signed_zero", "all_negative"}, "negatives and -0: zero point 255");
  for (float v : {1.0f, -1.0f, 3.5f, -1e-3f, 1e5f}) add({1}, {f(v)}, {"single_element"}, "one element: y is 0 or 255");
  // Zero point ties (as in the parameters' family) with data between the ends; and y ties: with
  // scale 2^-e, x = (j + 1/2) 2^-e is a tie of x / scale, rounded half to even before adding zp.
  auto ties = [&](int e, int k) {
    const Rat s = pow2(-e);
    std::vector<std::int64_t> xs = {bits(-(Rat(k) + Rat(1, 2)) * s), bits((Rat(254) + Rat(1, 2) - Rat(k)) * s)};
    for (int j : {0, 1, 2, 3}) xs.push_back(bits((Rat(j) + Rat(1, 2)) * s));
    for (int j : {1, 2}) xs.push_back(bits(-(Rat(j) + Rat(1, 2)) * s));
    add({8}, xs, {k % 2 == 0 ? "zero_point_tie_even" : "zero_point_tie_odd", "y_tie"},
        "scale 2^-" + std::to_string(e) + ", -min / scale = " + std::to_string(k) + ".5, x / scale = +-j.5");
  };
  for (int k = 0; k <= 254; ++k) ties(8, k);
  for (int i = 0; i < 20; ++i) {
    const int e = static_cast<int>(rng.uniform(-20, 20));  // one draw per statement
    ties(e, static_cast<int>(rng.uniform(0, 254)));
  }
  for (int i = 0; i < 60; ++i) {
    const auto n = static_cast<std::size_t>(rng.uniform(2, 16));
    std::vector<std::int64_t> xs;
    const int e = static_cast<int>(rng.uniform(-16, 12));
    for (std::size_t j = 0; j < n; ++j) {
      const bool negative = rng.coin();
      xs.push_back(random_f32(rng, negative, e, e + 4));
    }
    std::vector<std::string> flags = {"random"};
    bool any_neg = false, any_pos = false;
    for (auto v : xs) ((v & kSign) ? any_neg : any_pos) = true;
    if (!any_neg) flags.push_back("all_positive");
    if (!any_pos) flags.push_back("all_negative");
    add({static_cast<std::int64_t>(n)}, xs, flags, "random data");
  }
  return {g};
}

QSPEC_REGISTER_VECTOR_FAMILY(
    family<Dql>(Dql::conv::onnx,
                {{"onnx_node_test", "the inputs of ONNX's own node tests (they hold no ties: a compatibility check)"},
                 {"all_zero", "every element 0: scale 1, zero point 0 (errata E-FLOAT-5)"},
                 {"all_positive", "no negative element: zero point 0"},
                 {"all_negative", "no positive element: zero point 255"},
                 {"zero_point_tie_even", "-min / scale is k + 1/2 with k even: the zero point rounds down to k"},
                 {"zero_point_tie_odd", "-min / scale is k + 1/2 with k odd: the zero point rounds up to k + 1"},
                 {"y_tie", "x / scale is exactly j + 1/2: rounded half to even before the zero point is added"},
                 {"signed_zero", "negative zeros in the data"},
                 {"single_element", "a one-element tensor: the range is [min(x, 0), max(x, 0)]"},
                 {"random", "random data of one magnitude"}},
                3062, generate_operator));

}  // namespace
}  // namespace qspec::vecgen
