// Golden-vector families for MRT's quantizers, cvm_float, realize and CVM's shift/clip ops (vectors/mrt/).
//
// Inputs only: expected outputs come from the reference ops (reference/ops/ops_mrt.cc).
// Float values are built from exact bit patterns or exact rationals (never from float
// arithmetic), so generation is identical on every machine. Each family mixes hand-built edge
// groups (ties, saturation, degenerate ranges, ERROR_IF cases) with seeded random cases.
#include "qspec/ref/mrt.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "qspec/catalogue/keys.h"
#include "qspec/ref/ieee.h"
#include "qspec/vecgen.h"
#include "qspec/vecgen/attrs_of.h"

namespace qspec::vecgen {
namespace {

using OJ = nlohmann::ordered_json;
using ref::Int;
using ref::Rat;

constexpr std::int64_t kI32Min = -2147483648LL;
constexpr std::int64_t kI32Max = 2147483647LL;

// ---- value helpers (exact) ----
std::int64_t f32b(float f) { return static_cast<std::int64_t>(std::bit_cast<std::uint32_t>(f)); }
std::uint64_t f64u(double d) { return std::bit_cast<std::uint64_t>(d); }
std::uint64_t f64_of(const Rat& r) { return ref::f64_round(r); }
std::int64_t f32_of(const Rat& r) { return static_cast<std::int64_t>(ref::f32_round(r)); }
std::int64_t alpha(int p) { return (std::int64_t{1} << (p - 1)) - 1; }

// A random float32 with |v| in [2^lo, 2^(hi+1)) and a random sign (bit pattern).
std::int64_t rand_f32(Rng& rng, int lo, int hi, bool allow_negative = true) {
  const std::uint32_t e = static_cast<std::uint32_t>(rng.uniform(lo, hi) + 127);
  const std::uint32_t m = static_cast<std::uint32_t>(rng.uniform(0, (1 << 23) - 1));
  const std::uint32_t s = (allow_negative && rng.coin()) ? 0x80000000u : 0u;
  return static_cast<std::int64_t>(s | (e << 23) | m);
}
// A random positive float64 in [2^lo, 2^(hi+1)).
std::uint64_t rand_f64(Rng& rng, int lo, int hi) {
  const std::uint64_t e = static_cast<std::uint64_t>(rng.uniform(lo, hi) + 1023);
  const std::uint64_t m = static_cast<std::uint64_t>(rng.uniform(0, (std::int64_t{1} << 52) - 1));
  return (e << 52) | m;
}
std::int64_t rand_in(Rng& rng, std::int64_t bound) { return rng.uniform(-bound, bound); }

Tensor i32(std::string_view name, std::vector<std::int64_t> v) {
  return scalar_vector(std::string(name), DType::I32, std::move(v));
}
Tensor f32t(std::string_view name, std::vector<std::int64_t> v) {
  return scalar_vector(std::string(name), DType::F32, std::move(v));
}

Test make(std::string comment, std::vector<std::string> flags, std::vector<Tensor> inputs, OJ attrs,
          bool invalid = false) {
  Test t;
  t.comment = std::move(comment);
  t.flags = std::move(flags);
  t.inputs = std::move(inputs);
  t.attributes = std::move(attrs);
  t.invalid = invalid;
  return t;
}

// int32 values that exercise a precision p: 0, +-1, +-alpha, +-(alpha+1), int32 extremes.
std::vector<std::int64_t> precision_edges(int p) {
  const std::int64_t a = alpha(p);
  std::vector<std::int64_t> v = {0, 1, -1, a, -a, kI32Max, kI32Min, -128, 127};
  if (a + 1 <= kI32Max) {
    v.push_back(a + 1);
    v.push_back(-a - 1);
  }
  return v;
}

// =====================================================================================
// mrt.sym_quantize
// =====================================================================================
std::vector<Group> gen_sym_quantize(Rng& rng) {
  using A = cat::mrt_sym_quantize::attr;
  const auto wn = cat::mrt_sym_quantize::in::w;
  auto prec = [](int p) { return attrs_of(A::prec, p); };
  auto prec_th = [](int p, double th) { return attrs_of(A::prec, p, A::threshold, f64u(th)); };
  Group hand;
  // th = 1 -> sc = 127: 0.5 * 127 = 63.5 is an exact tie (half away: 64 / -64).
  hand.tests.push_back(make("th = max|W| = 1, sc = 127; +-63.5 ties round away", {"tie", "negative_tie"},
                            {f32t(wn, {f32b(1.0f), f32b(-1.0f), f32b(0.5f), f32b(-0.5f), f32b(0.25f), f32b(0.0f)})},
                            prec(8)));
  // th = 127 -> sc = 1 exactly: +-0.5, +-1.5, +-2.5 are ties of the output step.
  hand.tests.push_back(make(
      "sc = 1: ties +-0.5, +-1.5, +-2.5 -> +-1, +-2, +-3 (half away)", {"tie", "negative_tie"},
      {f32t(wn, {f32b(127.0f), f32b(0.5f), f32b(-0.5f), f32b(1.5f), f32b(-1.5f), f32b(2.5f), f32b(-2.5f)})}, prec(8)));
  // th = 254 -> sc = 0.5: odd integers give ties again.
  hand.tests.push_back(make("sc = 1/2: W = 1, 3, 5 -> 0.5, 1.5, 2.5", {"tie", "negative_tie"},
                            {f32t(wn, {f32b(-254.0f), f32b(1.0f), f32b(3.0f), f32b(5.0f), f32b(-1.0f), f32b(-3.0f)})},
                            prec(8)));
  hand.tests.push_back(make("all zero: th = 0 -> zeros, scale 1, prec 1", {"zero_threshold"},
                            {f32t(wn, {f32b(0.0f), f32b(-0.0f), f32b(0.0f)})}, prec(8)));
  hand.tests.push_back(make("threshold attribute 0 -> zeros even for nonzero W", {"zero_threshold"},
                            {f32t(wn, {f32b(3.0f), f32b(-2.0f)})}, prec_th(8, 0.0)));
  hand.tests.push_back(make("single element: +-alpha", {}, {f32t(wn, {f32b(-0.1f)})}, prec(8)));
  hand.tests.push_back(make("calibrated threshold below max|W|: saturates to +-127, never -128", {"saturate"},
                            {f32t(wn, {f32b(10.0f), f32b(-10.0f), f32b(0.3f), f32b(-1.004f), f32b(1.004f)})},
                            prec_th(8, 1.0)));
  hand.tests.push_back(
      make("all positive weights", {}, {f32t(wn, {f32b(0.5f), f32b(2.0f), f32b(1.25f), f32b(0.01f)})}, prec(8)));
  hand.tests.push_back(
      make("all negative weights", {}, {f32t(wn, {f32b(-0.5f), f32b(-2.0f), f32b(-1.25f), f32b(-0.01f)})}, prec(8)));
  hand.tests.push_back(
      make("prec 1: alpha = 0, scale 0, all zeros", {"prec1"}, {f32t(wn, {f32b(1.0f), f32b(-0.7f)})}, prec(1)));
  for (int p : {2, 4, 16, 24, 31, 32})
    hand.tests.push_back(make("prec " + std::to_string(p), {},
                              {f32t(wn, {f32b(1.0f), f32b(-1.0f), f32b(0.333333f), f32b(-0.7f), f32b(1e-6f)})},
                              prec(p)));
  // V1 multiplies in binary64, V2 in binary32: 103.4999975 (V1 -> 103) vs 103.5 (V2 -> 104).
  hand.tests.push_back(make("V1 (float64 product) and V2 (float32 product) differ: 103 vs 104", {"v1_v2_differ"},
                            {f32t(wn, {0x406f56d8, 0x40430d53})}, prec(8)));
  hand.tests.push_back(make("threshold as a binary64 that is not a float32 (calibrated lambda)", {},
                            {f32t(wn, {f32b(0.5f), f32b(-0.25f), f32b(0.9f)})}, prec_th(8, 0.7071067811865476)));
  hand.tests.push_back(make("prec 0 rejected", {"invalid_prec"}, {f32t(wn, {f32b(1.0f)})}, prec(0), true));
  hand.tests.push_back(make("prec 33 rejected", {"invalid_prec"}, {f32t(wn, {f32b(1.0f)})}, prec(33), true));
  hand.tests.push_back(make("negative threshold rejected (MRT asserts)", {"negative_threshold"},
                            {f32t(wn, {f32b(1.0f)})}, prec_th(8, -1.0), true));

  // Exact ties at random levels: th = alpha * 2^j makes sc = 2^-j exact, W = (k + 1/2) * 2^j.
  Group ties;
  for (int i = 0; i < 60; ++i) {
    const int p = rng.pick(std::vector<int>{4, 8, 8, 12, 16});
    const int j = static_cast<int>(rng.uniform(-8, 8));
    const std::int64_t a = alpha(p);
    const std::int64_t k = rng.uniform(-a, a - 1);
    const Rat step = ref::pow2r(j);
    std::vector<std::int64_t> w = {f32_of(Rat(a) * step), f32_of((Rat(k) + Rat(1, 2)) * step),
                                   f32_of((Rat(-k - 1) + Rat(1, 2)) * step)};
    ties.tests.push_back(
        make("exact tie (k + 1/2) at sc = 2^" + std::to_string(-j), {"tie", "negative_tie"}, {f32t(wn, w)}, prec(p)));
  }

  Group random;
  for (int i = 0; i < 240; ++i) {
    const int p = rng.pick(std::vector<int>{2, 3, 4, 6, 8, 8, 8, 8, 12, 16, 16, 24, 32});
    const int lo = static_cast<int>(rng.uniform(-30, 10));
    std::vector<std::int64_t> w;
    const int n = static_cast<int>(rng.uniform(1, 8));
    for (int k = 0; k < n; ++k) w.push_back(rand_f32(rng, lo, lo + static_cast<int>(rng.uniform(0, 6))));
    OJ attrs = prec(p);
    std::vector<std::string> flags;
    if (rng.uniform(0, 3) == 0) {
      // A calibrated threshold in [max|W|/4, 2 max|W|): below max|W| some elements saturate.
      std::uint32_t mx = 0;
      for (auto b : w) mx = std::max(mx, static_cast<std::uint32_t>(b) & 0x7fffffffu);
      const Rat th = ref::f32_value(mx) * Rat(rng.uniform(16, 127), 64);
      attr::set(attrs, A::threshold, f64_of(th));
      flags.push_back("calibrated_threshold");
    }
    random.tests.push_back(make("random", flags, {f32t(wn, w)}, attrs));
  }
  return {hand, ties, random};
}

QSPEC_REGISTER_VECTOR_FAMILY(family<cat::mrt_sym_quantize>(
    cat::mrt_sym_quantize::conv::mrt,
    {{"tie", "W * sc is exactly k + 1/2: MRT rounds half away from zero (MXNet round)"},
     {"negative_tie", "a tie below zero: half_away gives -k-1 where half_up would give -k"},
     {"zero_threshold", "threshold 0: MRT replaces the parameter by zeros with scale 1 and precision 1"},
     {"saturate", "the threshold is below max|W|: products beyond alpha clip to +-alpha (never -2^(p-1))"},
     {"calibrated_threshold", "a threshold attribute (MRT's calibrated value) instead of max|W|"},
     {"prec1", "precision 1: alpha = 0, so the scale is 0 and every element quantizes to 0"},
     {"v1_v2_differ", "the float64 product (V1, normative) and the float32 product (MRT V2) round differently"},
     {"invalid_prec", "precision outside [1, 32]: ERROR_IF"},
     {"negative_threshold", "threshold < 0: ERROR_IF (MRT asserts threshold >= 0)"}},
    0x6d72742d73796d31ull, gen_sym_quantize));

// =====================================================================================
// mrt.affine_quantize
// =====================================================================================
std::vector<Group> gen_affine_quantize(Rng& rng) {
  using A = cat::mrt_affine_quantize::attr;
  const auto wn = cat::mrt_affine_quantize::in::w;
  auto prec = [](int p) { return attrs_of(A::prec, p); };
  Group hand;
  hand.tests.push_back(make("[min, max] = [-0.25, 0.75], sc = 255: 0.0 -> 64, which is 1/1020, not 0",
                            {"zero_not_representable"}, {f32t(wn, {f32b(-0.25f), f32b(0.0f), f32b(0.75f), f32b(0.5f)})},
                            prec(8)));
  hand.tests.push_back(make("[0, 255], sc = 1: ties 0.5, 1.5, 2.5 -> 1, 2, 3 (half away)", {"tie"},
                            {f32t(wn, {f32b(0.0f), f32b(255.0f), f32b(0.5f), f32b(1.5f), f32b(2.5f), f32b(254.5f)})},
                            prec(8)));
  hand.tests.push_back(make("[-1, 254], sc = 1: W - zp = 0.5, 1.5 are ties", {"tie"},
                            {f32t(wn, {f32b(-1.0f), f32b(254.0f), f32b(-0.5f), f32b(0.5f)})}, prec(8)));
  hand.tests.push_back(make("all positive range [1, 3]: zp = 1, 2 -> 127.5 -> 128", {"tie"},
                            {f32t(wn, {f32b(1.0f), f32b(3.0f), f32b(2.0f), f32b(1.5f)})}, prec(8)));
  hand.tests.push_back(make("all negative range [-3, -1]", {},
                            {f32t(wn, {f32b(-3.0f), f32b(-1.0f), f32b(-2.0f), f32b(-1.1f)})}, prec(8)));
  hand.tests.push_back(make("explicit range narrower than W: relu below, 2^p - 1 above",
                            {"saturate_low", "saturate_high"},
                            {f32t(wn, {f32b(-5.0f), f32b(0.0f), f32b(5.0f), f32b(0.999f)})},
                            attrs_of(A::prec, 4, A::min, f64u(-1.0), A::max, f64u(1.0))));
  for (int p : {1, 2, 16, 24, 31, 32})
    hand.tests.push_back(
        make("prec " + std::to_string(p), {}, {f32t(wn, {f32b(-0.6f), f32b(0.0f), f32b(0.35f), f32b(1.9f)})}, prec(p)));
  hand.tests.push_back(
      make("min == max == 0: division by zero", {"min_eq_max"}, {f32t(wn, {f32b(0.0f), f32b(-0.0f)})}, prec(8), true));
  hand.tests.push_back(
      make("min == max == 3: division by zero", {"min_eq_max"}, {f32t(wn, {f32b(3.0f), f32b(3.0f)})}, prec(8), true));
  hand.tests.push_back(make("explicit min == max", {"min_eq_max"}, {f32t(wn, {f32b(1.0f)})},
                            attrs_of(A::prec, 8, A::min, f64u(2.0), A::max, f64u(2.0)), true));
  hand.tests.push_back(make("prec 0 rejected", {"invalid_prec"}, {f32t(wn, {f32b(0.0f), f32b(1.0f)})}, prec(0), true));
  hand.tests.push_back(
      make("prec 33 rejected", {"invalid_prec"}, {f32t(wn, {f32b(0.0f), f32b(1.0f)})}, prec(33), true));

  Group random;
  for (int i = 0; i < 260; ++i) {
    const int p = rng.pick(std::vector<int>{2, 4, 6, 8, 8, 8, 8, 12, 16});
    const int lo = static_cast<int>(rng.uniform(-20, 8));
    const int n = static_cast<int>(rng.uniform(2, 8));
    const bool positive_only = rng.uniform(0, 3) == 0;
    std::vector<std::int64_t> w;
    for (int k = 0; k < n; ++k)
      w.push_back(rand_f32(rng, lo, lo + static_cast<int>(rng.uniform(0, 4)), !positive_only));
    if (w[0] == w[1]) w[1] ^= 1;  // keep min < max
    OJ attrs = prec(p);
    std::vector<std::string> flags;
    if (rng.uniform(0, 4) == 0) {
      // A calibrated range that may be narrower than the data (relu and saturation).
      const Rat a = ref::f32_value(static_cast<std::uint32_t>(w[0])),
                b = ref::f32_value(static_cast<std::uint32_t>(w[1]));
      const Rat mn = a < b ? a : b, mx = a < b ? b : a;
      attr::set(attrs, A::min, f64_of(mn));
      attr::set(attrs, A::max, f64_of(mx));
      flags.push_back("calibrated_range");
    }
    random.tests.push_back(make("random", flags, {f32t(wn, w)}, attrs));
  }
  return {hand, random};
}

QSPEC_REGISTER_VECTOR_FAMILY(family<cat::mrt_affine_quantize>(
    cat::mrt_affine_quantize::conv::mrt,
    {{"tie", "fl32(fl32(W - zp) * fl32(sc)) is exactly k + 1/2: MXNet round goes away from zero"},
     {"zero_not_representable", "no quantized value dequantizes to real 0 (-zp * sc is not an integer)"},
     {"saturate_low", "W below the calibrated min: relu, then 0"},
     {"saturate_high", "W above the calibrated max: clip to 2^p - 1"},
     {"calibrated_range", "min/max attributes (a calibrated range) instead of the extremes of W"},
     {"min_eq_max", "max == min: ERROR_IF (MRT divides by max - min unguarded)"},
     {"invalid_prec", "precision outside [1, 32]: ERROR_IF"}},
    0x6d72742d61666631ull, gen_affine_quantize));

// =====================================================================================
// mrt.cvm_float
// =====================================================================================
Tensor f64t(std::vector<std::uint64_t> v) {
  std::vector<std::int64_t> d;
  for (auto b : v) d.push_back(static_cast<std::int64_t>(b));
  return scalar_vector(std::string(cat::mrt_cvm_float::in::number), DType::F64, d);
}

std::vector<Group> gen_cvm_float(Rng& rng) {
  auto bits_attr = [](int bits) { return attrs_of(cat::mrt_cvm_float::attr::bits, bits); };
  Group hand;
  hand.tests.push_back(make("shortest mantissa: 0.5 -> (1,-1), 4 -> (1,2), 3 -> (3,0), 6 -> (3,1), 1 -> (1,0)",
                            {"stop_early"}, {f64t({f64u(0.5), f64u(4.0), f64u(3.0), f64u(6.0), f64u(1.0), f64u(0.75)})},
                            bits_attr(8)));
  hand.tests.push_back(make("clamp: 0.999999 -> (127, -7), not (1, 0)", {"clamp"},
                            {f64t({f64u(0.999999), f64u(1.9999), f64u(0.9921875), f64u(0.99609375)})}, bits_attr(8)));
  hand.tests.push_back(
      make("zero and negative zero -> (0, 0)", {"zero"}, {f64t({f64u(0.0), f64u(-0.0)})}, bits_attr(24)));
  // bits 8: D = 6, m_6 in [64, 128). 64.5 / 64 and 65.5 / 64: half-even ties at the last step.
  hand.tests.push_back(
      make("round half to even at the last mantissa bit: 64.5 -> 64, 65.5 -> 66", {"tie"},
           {f64t({f64_of(Rat(129, 128)), f64_of(Rat(131, 128)), f64_of(Rat(129, 256)), f64_of(Rat(255, 128))})},
           bits_attr(8)));
  hand.tests.push_back(make("extremes: smallest subnormal, largest double", {"subnormal", "clamp"},
                            {f64t({1ull, 0x7fefffffffffffffull, 0x0010000000000000ull})}, bits_attr(16)));
  for (int bits : {-3, 0, 1, 2})
    hand.tests.push_back(make("bits <= 2: frac is always 1", {"bits_le_2"},
                              {f64t({f64u(0.3), f64u(1.5), f64u(1.75), f64u(7.0), f64u(1e-9)})}, bits_attr(bits)));
  for (int bits : {3, 16, 24, 31, 32})
    hand.tests.push_back(make(
        "bits " + std::to_string(bits), {},
        {f64t({f64u(0.1), f64u(3.14159265358979), f64u(1e-5), f64u(12345.678), f64u(0.999999999)})}, bits_attr(bits)));
  hand.tests.push_back(make("negative number rejected (MRT asserts number >= 0)", {"negative"},
                            {f64t({f64u(0.5), f64u(-0.5)})}, bits_attr(8), true));

  Group clamp;
  // Numbers at and around the clamp threshold (2 - 2^-(bits-1)) * 2^e.
  for (int i = 0; i < 60; ++i) {
    const int bits = static_cast<int>(rng.uniform(3, 32));
    const int e = static_cast<int>(rng.uniform(-30, 30));
    const Rat thr = (Rat(2) - ref::pow2r(-(bits - 1))) * ref::pow2r(e);
    const Rat ulp = ref::pow2r(e - 52);
    clamp.tests.push_back(make(
        "around the clamp threshold", {"clamp"},
        {f64t({f64_of(thr), f64_of(thr - ulp), f64_of(thr + ulp), f64_of(ref::pow2r(e + 1) - ulp)})}, bits_attr(bits)));
  }

  Group random;
  for (int i = 0; i < 240; ++i) {
    const int bits = rng.pick(std::vector<int>{1, 2, 4, 8, 12, 16, 20, 24, 24, 26, 28, 30, 31, 32});
    std::vector<std::uint64_t> v;
    const int n = static_cast<int>(rng.uniform(1, 6));
    for (int k = 0; k < n; ++k) {
      if (rng.uniform(0, 4) == 0) {
        // A short mantissa (odd n < 2^12) times a power of two: stops early and is exact.
        const std::int64_t odd = 2 * rng.uniform(0, 2047) + 1;
        v.push_back(f64_of(Rat(odd) * ref::pow2r(static_cast<int>(rng.uniform(-40, 20)))));
      } else {
        v.push_back(rand_f64(rng, -40, 30));
      }
    }
    random.tests.push_back(make("random", {}, {f64t(v)}, bits_attr(bits)));
  }
  return {hand, clamp, random};
}

QSPEC_REGISTER_VECTOR_FAMILY(family<cat::mrt_cvm_float>(
    cat::mrt_cvm_float::conv::mrt,
    {{"stop_early", "the mantissa becomes an integer before bits - 2 doublings: the exact, shortest frac"},
     {"clamp", "half_even rounds the mantissa up to 2^(bits-1): MRT clamps to 2^(bits-1) - 1 (not nearest)"},
     {"tie", "the last mantissa is exactly k + 1/2: Python round goes to the even integer"},
     {"zero", "0 (either sign) gives (0, 0)"},
     {"subnormal", "a subnormal binary64 input (many normalising doublings)"},
     {"bits_le_2", "bits <= 2: alpha = 1 and no doubling, so frac = 1 and exp = floor(log2 s)"},
     {"negative", "a negative number: ERROR_IF (MRT asserts number >= 0)"}},
    0x6d72742d63766d66ull, gen_cvm_float));

// =====================================================================================
// cvm.clip
// =====================================================================================
std::vector<Group> gen_cvm_clip(Rng& rng) {
  auto precision = [](int p) { return attrs_of(cat::cvm_clip::attr::precision, p); };
  const auto x = cat::cvm_clip::in::x;
  Group hand;
  for (int p : {1, 2, 8, 16, 31, 32})
    hand.tests.push_back(
        make("precision " + std::to_string(p) + " edges", {"saturate"}, {i32(x, precision_edges(p))}, precision(p)));
  hand.tests.push_back(make("int8: -128 clips to -127", {"saturate"}, {i32(x, {-128, -127, 127, 128})}, precision(8)));
  for (int p : {0, 33, -1})
    hand.tests.push_back(
        make("precision " + std::to_string(p) + " rejected", {"invalid_attr"}, {i32(x, {0, 5})}, precision(p), true));
  Group random;
  for (int i = 0; i < 200; ++i) {
    const int p = static_cast<int>(rng.uniform(1, 32));
    std::vector<std::int64_t> xs;
    for (int k = 0; k < 6; ++k)
      xs.push_back(rng.coin() ? rand_in(rng, 2 * alpha(p) + 1) : rng.uniform(kI32Min, kI32Max));
    for (auto& v : xs) v = std::max(kI32Min, std::min(kI32Max, v));
    random.tests.push_back(make("random", {}, {i32(x, xs)}, precision(p)));
  }
  return {hand, random};
}

QSPEC_REGISTER_VECTOR_FAMILY(
    family<cat::cvm_clip>(cat::cvm_clip::conv::cvm_formal,
                          {{"saturate", "values beyond +-(2^(p-1)-1) clip to it; the range is symmetric (no -2^(p-1))"},
                           {"invalid_attr", "precision outside [1, 32]: ERROR_IF"}},
                          0x63766d2d636c6970ull, gen_cvm_clip));

// =====================================================================================
// cvm.right_shift (formal and CPU)
// =====================================================================================
// Ties +-0.5, +-1.5, +-2.5 of the output step 2^b.
std::vector<std::int64_t> shift_ties(int b) {
  const std::int64_t h = std::int64_t{1} << (b - 1);
  return {h, -h, 3 * h, -3 * h, 5 * h, -5 * h, h - 1, -h + 1, -h - 1};
}

// shift_bit b and precision p of cvm.right_shift.
Attrs shift_attrs(int b, int p) {
  using A = cat::cvm_right_shift::attr;
  return attrs_of(A::shift_bit, b, A::precision, p);
}
constexpr auto kShiftX = cat::cvm_right_shift::in::x;

void add_shift_edges(Group& hand, bool cpu) {
  for (int b : {1, 2, 3, 8, 16})
    hand.tests.push_back(make("ties +-0.5, +-1.5, +-2.5 at b = " + std::to_string(b) + ": -1.5 -> -1, -2.5 -> -2",
                              {"tie", "negative_tie"}, {i32(kShiftX, shift_ties(b))}, shift_attrs(b, 16)));
  hand.tests.push_back(make("saturation at +-127, never -128", {"saturate"},
                            {i32(kShiftX, {255, 256, 257, -255, -256, -257, -258, kI32Min})}, shift_attrs(1, 8)));
  hand.tests.push_back(
      make("precision 1 gives 0", {"prec1"}, {i32(kShiftX, {0, 1, -1, kI32Max, kI32Min})}, shift_attrs(4, 1)));
  for (int b : {30, 31, 32})
    hand.tests.push_back(
        make("large shift b = " + std::to_string(b), {"large_shift"},
             {i32(kShiftX, {kI32Max, kI32Min, 1 << 30, -(1 << 30), (1 << 30) - 1, -(1 << 30) - 1, -1, 1, 0})},
             shift_attrs(b, 8)));
  // p + b = 32: the CPU kernel skips the clip and returns +-(alpha + 1) at the int32 extremes.
  hand.tests.push_back(
      make("p + b = 32 (p = 8, b = 24): int32 extremes", {"no_clip_branch"},
           {i32(kShiftX, {kI32Max, kI32Min, 127 << 24, (127 << 24) + (1 << 23), -(127 << 24) - (1 << 23)})},
           shift_attrs(24, 8)));
  hand.tests.push_back(make("p + b = 32 (p = 16, b = 16)", {"no_clip_branch"},
                            {i32(kShiftX, {kI32Max, kI32Min, 0, 65535})}, shift_attrs(16, 16)));
  hand.tests.push_back(make("p + b = 33 (p = 17, b = 16): no clip needed", {"no_clip_branch"},
                            {i32(kShiftX, {kI32Max, kI32Min})}, shift_attrs(16, 17)));
  if (!cpu) {
    // Exact over Z; the C++ kernel's (x >> 0) + 1 overflows here (errata E-MRT-5).
    hand.tests.push_back(make("b = 1, x = INT32_MAX: exact 2^30, clipped", {"int32_max_b1"},
                              {i32(kShiftX, {kI32Max, kI32Max - 1, kI32Min})}, shift_attrs(1, 32)));
    hand.tests.push_back(
        make("b = 1, x = INT32_MAX at precision 8", {"int32_max_b1"}, {i32(kShiftX, {kI32Max})}, shift_attrs(1, 8)));
  } else {
    hand.tests.push_back(make("b = 1, p = 30: the CPU kernel's thresholds catch INT32_MAX", {"saturate"},
                              {i32(kShiftX, {kI32Max, kI32Max - 1, kI32Min})}, shift_attrs(1, 30)));
  }
  for (auto [b, p] : std::vector<std::pair<int, int>>{{0, 8}, {33, 8}, {-1, 8}, {4, 0}, {4, 33}})
    hand.tests.push_back(make("shift_bit " + std::to_string(b) + ", precision " + std::to_string(p) + " rejected",
                              {"invalid_attr"}, {i32(kShiftX, {1, -1})}, shift_attrs(b, p), true));
}

std::vector<Group> gen_right_shift(Rng& rng, bool cpu) {
  Group hand;
  add_shift_edges(hand, cpu);
  Group random;
  for (int i = 0; i < 300; ++i) {
    const int b = static_cast<int>(rng.uniform(1, 32));
    const int p = rng.pick(std::vector<int>{1, 2, 4, 8, 8, 16, 16, 24, 31, 32});
    std::vector<std::int64_t> x;
    for (int k = 0; k < 6; ++k) {
      const int mode = static_cast<int>(rng.uniform(0, 3));
      std::int64_t v;
      if (mode == 0) {
        v = rng.uniform(kI32Min, kI32Max);
      } else if (mode == 1) {  // an exact tie (2j + 1) * 2^(b-1)
        const std::int64_t h = std::int64_t{1} << (b - 1);
        const std::int64_t jmax = (kI32Max - h) / (2 * h);
        v = (2 * rng.uniform(-jmax, jmax) + 1) * h;
      } else if (p + b > 40) {  // the threshold is beyond int32 anyway (and would overflow int64)
        v = rng.uniform(kI32Min, kI32Max);
      } else {  // near the saturation threshold
        v = (alpha(p) << b) + rng.uniform(-(std::int64_t{1} << b), std::int64_t{1} << b);
        if (rng.coin()) v = -v;
      }
      v = std::max(kI32Min, std::min(kI32Max, v));
      if (cpu && b == 1 && p >= 31 && v == kI32Max) v = kI32Max - 1;  // REQUIRE of cvm.right_shift_cpu
      x.push_back(v);
    }
    random.tests.push_back(make("random", {}, {i32(kShiftX, x)}, shift_attrs(b, p)));
  }
  return {hand, random};
}

std::vector<std::pair<std::string, std::string>> shift_notes(bool cpu) {
  std::vector<std::pair<std::string, std::string>> n = {
      {"tie", "x / 2^b is exactly k + 1/2: CVM rounds half up (toward +infinity)"},
      {"negative_tie", "a negative tie: half up gives -1 for -1.5 and -2 for -2.5 (half away would give -2, -3)"},
      {"saturate", "the rounded value exceeds 2^(p-1)-1 in magnitude and clips (int8: never -128)"},
      {"prec1", "precision 1: alpha = 0, every result is 0"},
      {"large_shift", "shift_bit >= 30: the CPU kernel stops rounding at b >= 31"},
      {"no_clip_branch", "precision + shift_bit >= 32: the CPU kernel does not clip (formal does)"},
      {"invalid_attr", "shift_bit or precision outside [1, 32]: ERROR_IF"}};
  if (!cpu)
    n.push_back({"int32_max_b1", "b = 1, x = 2^31 - 1: exact result 2^30 (the C++ kernel's + 1 overflows int32)"});
  return n;
}

QSPEC_REGISTER_VECTOR_FAMILY(family<cat::cvm_right_shift>(cat::cvm_right_shift::conv::cvm_formal, shift_notes(false),
                                                          0x63766d2d72736866ull,
                                                          [](Rng& rng) { return gen_right_shift(rng, false); }));

QSPEC_REGISTER_VECTOR_FAMILY(family<cat::cvm_right_shift>(cat::cvm_right_shift::conv::cvm_cpu, shift_notes(true),
                                                          0x63766d2d72736863ull,
                                                          [](Rng& rng) { return gen_right_shift(rng, true); }));

// =====================================================================================
// cvm.left_shift
// =====================================================================================
std::vector<Group> gen_left_shift(Rng& rng) {
  auto shift_attrs = [](int b, int p, int ip) {
    using A = cat::cvm_left_shift::attr;
    return attrs_of(A::shift_bit, b, A::precision, p, A::input_precision, ip);
  };
  const auto x = cat::cvm_left_shift::in::x;
  Group hand;
  hand.tests.push_back(make("int8 input, b = 4, p = 8: saturates at +-127", {"saturate"},
                            {i32(x, {0, 1, -1, 7, -7, 8, -8, 127, -127})}, shift_attrs(4, 8, 8)));
  hand.tests.push_back(make("ip + b = 32 exactly: the largest accepted shift", {"saturate"},
                            {i32(x, {127, -127, 1, -1})}, shift_attrs(24, 32, 8)));
  hand.tests.push_back(make("p = 1 gives 0", {"prec1"}, {i32(x, {3, -3, 0})}, shift_attrs(2, 1, 8)));
  hand.tests.push_back(
      make("ip + b = 33: CVM refuses the graph", {"precision_overflow"}, {i32(x, {1})}, shift_attrs(25, 32, 8), true));
  for (auto [b, p, ip] :
       std::vector<std::tuple<int, int, int>>{{0, 8, 8}, {33, 8, 1}, {2, 0, 8}, {2, 33, 8}, {2, 8, 0}})
    hand.tests.push_back(
        make("attribute out of range rejected", {"invalid_attr"}, {i32(x, {0})}, shift_attrs(b, p, ip), true));
  Group random;
  for (int i = 0; i < 220; ++i) {
    const int ip = static_cast<int>(rng.uniform(1, 31));
    const int b = static_cast<int>(rng.uniform(1, 32 - ip));
    const int p = static_cast<int>(rng.uniform(1, 32));
    std::vector<std::int64_t> xs;
    for (int k = 0; k < 6; ++k) xs.push_back(rand_in(rng, alpha(ip)));
    random.tests.push_back(make("random", {}, {i32(x, xs)}, shift_attrs(b, p, ip)));
  }
  return {hand, random};
}

QSPEC_REGISTER_VECTOR_FAMILY(family<cat::cvm_left_shift>(
    cat::cvm_left_shift::conv::cvm_formal,
    {{"saturate", "x * 2^b exceeds 2^(p-1)-1 in magnitude and clips"},
     {"prec1", "precision 1: every result is 0"},
     {"precision_overflow", "input_precision + shift_bit > 32: ERROR_IF (CVM precision inference fails)"},
     {"invalid_attr", "shift_bit, precision or input_precision outside [1, 32]: ERROR_IF"}},
    0x63766d2d6c736866ull, gen_left_shift));

// =====================================================================================
// mrt.realize
// =====================================================================================
std::vector<Group> gen_realize(Rng& rng) {
  Group hand;
  auto attrs = [](std::int64_t frac, int exp, int p, int ip) {
    using A = cat::mrt_realize::attr;
    return attrs_of(A::frac, frac, A::exp, exp, A::precision, p, A::input_precision, ip);
  };
  const auto xn = cat::mrt_realize::in::x;
  hand.tests.push_back(make("frac 3, exp -2: x * 3/4, ties half up (-7.5 -> -7)", {"tie", "negative_tie"},
                            {i32(xn, {10, -10, 2, -2, 6, -6, 100, -100})}, attrs(3, -2, 8, 16)));
  hand.tests.push_back(make("frac 1: no multiply, right shift", {"no_multiply", "tie", "negative_tie"},
                            {i32(xn, {1, -1, 3, -3, 5, -5})}, attrs(1, -1, 8, 8)));
  hand.tests.push_back(
      make("exp 0: clip only", {"clip_only", "saturate"}, {i32(xn, {300, -300, 5})}, attrs(1, 0, 8, 16)));
  hand.tests.push_back(make("exp 0 with frac 5: multiply and clip", {"clip_only", "saturate"},
                            {i32(xn, {20, -20, 30, -30})}, attrs(5, 0, 8, 8)));
  hand.tests.push_back(make("exp > 0: left shift of x * frac", {"left_shift", "saturate"},
                            {i32(xn, {1, -1, 3, -3, 100})}, attrs(3, 4, 8, 8)));
  hand.tests.push_back(make("saturation at +-127, never -128", {"saturate"}, {i32(xn, {32767, -32767, 16384, -16384})},
                            attrs(255, -14, 8, 16)));
  hand.tests.push_back(make("largest accepted product precision: ip + get_bit(frac) = 32", {},
                            {i32(xn, {127, -127, 64})}, attrs((1 << 23) - 1, -24, 16, 8)));
  hand.tests.push_back(make("ip + get_bit(frac) = 33: the product exceeds CVM's 32 bits", {"precision_overflow"},
                            {i32(xn, {1})}, attrs(1 << 23, -24, 16, 8), true));
  hand.tests.push_back(
      make("right shift by 33 rejected", {"invalid_shift"}, {i32(xn, {1})}, attrs(1, -33, 8, 8), true));
  hand.tests.push_back(
      make("left shift beyond 32 bits rejected", {"precision_overflow"}, {i32(xn, {1})}, attrs(1, 25, 8, 8), true));
  hand.tests.push_back(make("precision 33 rejected", {"invalid_attr"}, {i32(xn, {1})}, attrs(3, -2, 33, 8), true));
  hand.tests.push_back(make("input precision 0 rejected", {"invalid_attr"}, {i32(xn, {0})}, attrs(3, -2, 8, 0), true));

  Group random;
  for (int i = 0; i < 260; ++i) {
    const int ip = static_cast<int>(rng.uniform(2, 28));
    // frac with get_bit(frac) <= 32 - ip, i.e. frac < 2^(31 - ip).
    const int fbits = static_cast<int>(rng.uniform(0, 30 - ip));
    const std::int64_t frac =
        fbits == 0 ? 1 : rng.uniform(std::int64_t{1} << (fbits - 1), (std::int64_t{1} << fbits) - 1);
    const int p = static_cast<int>(rng.uniform(2, 32));
    int exp;
    const int kind = static_cast<int>(rng.uniform(0, 5));
    const int ipf = ip + (frac > 1 ? fbits + 1 : 0);  // precision of x * frac (get_bit(frac) = fbits + 1)
    if (kind == 0 && ipf < 32)
      exp = static_cast<int>(rng.uniform(0, 32 - ipf));
    else
      exp = -static_cast<int>(rng.uniform(1, 32));
    std::vector<std::int64_t> x;
    for (int k = 0; k < 6; ++k) x.push_back(rand_in(rng, alpha(ip)));
    random.tests.push_back(make("random", {}, {i32(xn, x)}, attrs(frac, exp, p, ip)));
  }
  return {hand, random};
}

QSPEC_REGISTER_VECTOR_FAMILY(
    family<cat::mrt_realize>(cat::mrt_realize::conv::mrt,
                             {{"tie", "x * frac * 2^exp is exactly k + 1/2: cvm_right_shift rounds half up"},
                              {"negative_tie", "a negative tie: half up rounds toward +infinity (-7.5 -> -7)"},
                              {"no_multiply", "frac = 1: MRT inserts no broadcast_mul"},
                              {"clip_only", "exp = 0: a cvm_clip only"},
                              {"left_shift", "exp > 0: cvm_left_shift of x * frac"},
                              {"saturate", "the result clips to +-(2^(p-1)-1)"},
                              {"precision_overflow", "the product or the left shift needs more than 32 bits: ERROR_IF"},
                              {"invalid_shift", "a shift over 32 bits: ERROR_IF"},
                              {"invalid_attr", "precision or input precision outside [1, 32]: ERROR_IF"}},
                             0x6d72742d7265616cull, gen_realize));

// =====================================================================================
// mrt.sym_input_quantize / mrt.affine_input_quantize / mrt.requant_operator
// =====================================================================================
// A realistic expansion: iprec bits, the calibrated threshold th_int in integer units, and the
// real threshold th = th_int / iscale (binary64).
struct Expansion {
  int iprec;
  std::uint64_t iscale;
  std::int64_t th_int;
  std::uint64_t th;
  std::vector<std::int64_t> x;
};

Expansion random_expansion(Rng& rng, int iprec_lo, int iprec_hi) {
  Expansion e;
  e.iprec = static_cast<int>(rng.uniform(iprec_lo, iprec_hi));
  e.iscale = rand_f64(rng, -12, 12);
  e.th_int = rng.uniform(std::max<std::int64_t>(1, alpha(e.iprec) / 4), alpha(e.iprec));
  e.th = ref::f64_div(f64_of(Rat(e.th_int)), e.iscale);
  for (int k = 0; k < 6; ++k) {
    // Mostly within the calibrated range, sometimes beyond it (up to the precision bound).
    const std::int64_t bound = rng.uniform(0, 4) == 0 ? alpha(e.iprec) : e.th_int;
    e.x.push_back(rand_in(rng, bound));
  }
  return e;
}

std::vector<Group> gen_sym_input(Rng& rng) {
  Group hand;
  using A = cat::mrt_sym_input_quantize::attr;
  auto attrs_bits = [](std::uint64_t iscale, std::uint64_t th, int iprec, int prec) {
    return attrs_of(A::iscale, iscale, A::threshold, th, A::iprec, iprec, A::prec, prec);
  };
  auto attrs = [&](double iscale, double th, int iprec, int prec) {
    return attrs_bits(f64u(iscale), f64u(th), iprec, prec);
  };
  const auto xn = cat::mrt_sym_input_quantize::in::x;
  // iscale 1, th 1000 -> sc_x = 127/1000, bits 16: exact ratio chain checked by hand in mrt_test.cc.
  hand.tests.push_back(make("iscale 1, th 1000, iprec 16 -> prec 8", {"saturate"},
                            {i32(xn, {1000, -1000, 500, -500, 4, -4, 1200, -1200, 0})}, attrs(1.0, 1000.0, 16, 8)));
  hand.tests.push_back(make("power-of-two ratio 2^-8: a pure rounding shift, ties half up", {"tie", "negative_tie"},
                            {i32(xn, {128, -128, 384, -384, 640, -640, 32512, -32512})}, attrs(1.0, 32512.0, 16, 8)));
  hand.tests.push_back(make("threshold 0: X returned unchanged, scale 1", {"zero_threshold"}, {i32(xn, {5, -5, 0})},
                            attrs(2.0, 0.0, 16, 8)));
  // sc_x = 127 / 1 and sc_xe = 127 / 16: the ratio is exactly 16 = (1, 4), a left shift by 4.
  hand.tests.push_back(
      make("ratio 16: a left shift", {"left_shift"}, {i32(xn, {1, -1, 3, 0, 7})}, attrs(7.9375, 1.0, 4, 8)));
  hand.tests.push_back(make("ratio below 2^-32: right shift over 32 rejected", {"invalid_shift"}, {i32(xn, {1})},
                            attrs(1.0, 1e12, 8, 8), true));
  hand.tests.push_back(make("prec 33 rejected", {"invalid_attr"}, {i32(xn, {1})}, attrs(1.0, 10.0, 16, 33), true));
  hand.tests.push_back(make("iprec 0 rejected", {"invalid_attr"}, {i32(xn, {0})}, attrs(1.0, 10.0, 0, 8), true));
  Group random;
  for (int i = 0; i < 220; ++i) {
    const Expansion e = random_expansion(rng, 6, 30);
    const int prec = static_cast<int>(rng.uniform(2, std::min(16, e.iprec)));
    random.tests.push_back(make("random", {}, {i32(xn, e.x)}, attrs_bits(e.iscale, e.th, e.iprec, prec)));
  }
  return {hand, random};
}

QSPEC_REGISTER_VECTOR_FAMILY(family<cat::mrt_sym_input_quantize>(
    cat::mrt_sym_input_quantize::conv::mrt,
    {{"saturate", "values beyond the calibrated threshold clip to +-(2^(p-1)-1)"},
     {"tie", "the rescaled value is exactly k + 1/2: half up"},
     {"negative_tie", "a negative tie: half up rounds toward +infinity"},
     {"zero_threshold", "threshold 0: MRT returns X unchanged with scale 1"},
     {"left_shift", "sc_x / sc_xe > 1 with a short mantissa: exp > 0, a cvm_left_shift"},
     {"invalid_shift", "the ratio needs a right shift over 32 bits: ERROR_IF"},
     {"invalid_attr", "a precision outside [1, 32]: ERROR_IF"}},
    0x6d72742d73796d69ull, gen_sym_input));

std::vector<Group> gen_affine_input(Rng& rng) {
  Group hand;
  using A = cat::mrt_affine_input_quantize::attr;
  auto attrs_bits = [](std::uint64_t iscale, std::uint64_t mn, std::uint64_t mx, int iprec, int prec) {
    return attrs_of(A::iscale, iscale, A::min, mn, A::max, mx, A::iprec, iprec, A::prec, prec);
  };
  auto attrs = [&](double iscale, double mn, double mx, int iprec, int prec) {
    return attrs_bits(f64u(iscale), f64u(mn), f64u(mx), iprec, prec);
  };
  const auto xn = cat::mrt_affine_input_quantize::in::x;
  hand.tests.push_back(make("range [-64, 191] at iscale 1, prec 8: sc_x = 1, zp = -64", {},
                            {i32(xn, {-64, 0, 191, 100, -65, 200})}, attrs(1.0, -64.0, 191.0, 16, 8)));
  hand.tests.push_back(make("zp = round(min * sc_xe) ties to even: -2.5 -> -2", {"zero_point_tie"},
                            {i32(xn, {-2, 0, 10, 253})}, attrs(1.0, -2.5, 252.5, 16, 8)));
  hand.tests.push_back(
      make("all-positive range [100, 355]", {}, {i32(xn, {100, 355, 227, 99})}, attrs(1.0, 100.0, 355.0, 12, 8)));
  hand.tests.push_back(
      make("all-negative range [-300, -45]", {}, {i32(xn, {-300, -45, -172, -40})}, attrs(1.0, -300.0, -45.0, 12, 8)));
  hand.tests.push_back(make("below min clips to 0, above max to 2^p - 1", {"saturate_low", "saturate_high"},
                            {i32(xn, {-1000, 1000, 0})}, attrs(1.0, -10.0, 245.0, 12, 8)));
  hand.tests.push_back(make("min == max rejected", {"min_eq_max"}, {i32(xn, {1})}, attrs(1.0, 3.0, 3.0, 16, 8), true));
  hand.tests.push_back(make("prec 32 rejected (needs CVM precision 33)", {"invalid_attr"}, {i32(xn, {1})},
                            attrs(1.0, 0.0, 10.0, 16, 32), true));
  Group random;
  for (int i = 0; i < 220; ++i) {
    const int iprec = static_cast<int>(rng.uniform(8, 24));
    const int prec = static_cast<int>(rng.uniform(2, std::min(16, iprec - 2)));
    const std::uint64_t iscale = rand_f64(rng, -12, 12);
    const std::int64_t min_int = rng.uniform(-(alpha(iprec) / 2), alpha(iprec) / 4);
    const std::int64_t width = rng.uniform(std::max<std::int64_t>(2, alpha(iprec) / 8), alpha(iprec) / 4);
    const std::int64_t max_int = min_int + width;
    const std::uint64_t mn = ref::f64_div(f64_of(Rat(min_int)), iscale);
    const std::uint64_t mx = ref::f64_div(f64_of(Rat(max_int)), iscale);
    std::vector<std::int64_t> x;
    for (int k = 0; k < 6; ++k)
      x.push_back(rng.uniform(0, 4) == 0 ? rand_in(rng, alpha(iprec)) : rng.uniform(min_int, max_int));
    random.tests.push_back(make("random", {}, {i32(xn, x)}, attrs_bits(iscale, mn, mx, iprec, prec)));
  }
  return {hand, random};
}

QSPEC_REGISTER_VECTOR_FAMILY(family<cat::mrt_affine_input_quantize>(
    cat::mrt_affine_input_quantize::conv::mrt,
    {{"zero_point_tie", "min * sc_xe is exactly k + 1/2: Python round goes to the even integer"},
     {"saturate_low", "Xe below the zero point: the result is clipped to 0"},
     {"saturate_high", "Xe beyond the calibrated max: clipped to 2^p - 1"},
     {"min_eq_max", "max == min: ERROR_IF (division by zero)"},
     {"invalid_attr", "prec outside [1, 31] or iprec outside [1, 32]: ERROR_IF"}},
    0x6d72742d61666969ull, gen_affine_input));

std::vector<Group> gen_requant_operator(Rng& rng) {
  Group hand;
  using A = cat::mrt_requant_operator::attr;
  auto attrs_bits = [](std::uint64_t iscale, std::uint64_t th, int iprec, int oprec) {
    return attrs_of(A::iscale, iscale, A::threshold, th, A::iprec, iprec, A::oprec, oprec);
  };
  auto attrs = [&](double iscale, double th, int iprec, int oprec) {
    return attrs_bits(f64u(iscale), f64u(th), iprec, oprec);
  };
  const auto xn = cat::mrt_requant_operator::in::x;
  hand.tests.push_back(make("tight bits 21 - 8 = 13 > 5: pre-shift by 13, then cvm_float", {"pre_shift"},
                            {i32(xn, {1000000, -1000000, 4096, -4096, 12345, 0})}, attrs(1.0, 1000000.0, 24, 8)));
  hand.tests.push_back(make("tight bits 11 - 8 = 3 <= 5: no pre-shift", {}, {i32(xn, {1000, -1000, 3, -3, 0})},
                            attrs(1.0, 1000.0, 16, 8)));
  hand.tests.push_back(make("iprec <= oprec: no operator, scale = iscale", {"pass_through"}, {i32(xn, {100, -100, 7})},
                            attrs(0.5, 200.0, 8, 16)));
  OJ exact = attrs(1.0, 1000.0, 16, 16);
  attr::set(exact, A::oscale, f64u(0.75));
  hand.tests.push_back(make("oscale given (exactly): requantize even though iprec <= oprec", {"exactly"},
                            {i32(xn, {1000, -1000, 2, -2, 6, -6})}, exact));
  hand.tests.push_back(make("threshold 0: X unchanged, precision 1, scale 1", {"zero_threshold"}, {i32(xn, {5, -5})},
                            attrs(1.0, 0.0, 16, 8)));
  OJ sb0 = attrs(1.0, 1000000.0, 24, 8);
  attr::set(sb0, A::shift_bits, 0);
  hand.tests.push_back(make("shift_bits 0: pre-shift whenever the range exceeds oprec", {"pre_shift"},
                            {i32(xn, {999999, -999999})}, sb0));
  hand.tests.push_back(make("pre-shift leaves precision < 1: rejected", {"invalid_pre_shift"}, {i32(xn, {1})},
                            attrs(1.0, 1000000.0, 8, 8), true));
  hand.tests.push_back(make("oprec 0 rejected", {"invalid_attr"}, {i32(xn, {1})}, attrs(1.0, 10.0, 16, 0), true));
  Group random;
  for (int i = 0; i < 240; ++i) {
    const Expansion e = random_expansion(rng, 8, 31);
    const int oprec = static_cast<int>(rng.uniform(2, 16));
    OJ a = attrs_bits(e.iscale, e.th, e.iprec, oprec);
    std::vector<std::string> flags;
    if (rng.uniform(0, 4) == 0) {
      // An imposed output scale within a factor 4 of the natural one.
      const Rat natural = Rat(alpha(oprec)) / ref::f64_value(e.th);
      attr::set(a, A::oscale, f64_of(natural * Rat(rng.uniform(64, 512), 256)));
      flags.push_back("exactly");
    }
    if (rng.uniform(0, 4) == 0) attr::set(a, A::shift_bits, rng.uniform(0, 8));
    random.tests.push_back(make("random", flags, {i32(xn, e.x)}, a));
  }
  return {hand, random};
}

QSPEC_REGISTER_VECTOR_FAMILY(family<cat::mrt_requant_operator>(
    cat::mrt_requant_operator::conv::mrt,
    {{"pre_shift", "get_bit(th * iscale) - oprec > shift_bits: a coarse cvm_right_shift first"},
     {"pass_through", "iprec <= oprec and no imposed scale: X is returned unchanged with scale iscale"},
     {"exactly", "an output scale is imposed (quantize_scale): always requantize to it"},
     {"zero_threshold", "threshold 0: X unchanged, precision 1, scale 1 (or the imposed scale)"},
     {"invalid_pre_shift", "the pre-shift would leave a precision below 1: ERROR_IF"},
     {"invalid_attr", "a precision outside [1, 32]: ERROR_IF"}},
    0x6d72742d72657175ull, gen_requant_operator));

}  // namespace
}  // namespace qspec::vecgen
