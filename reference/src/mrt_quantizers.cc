// MRT's scales, symmetric and affine parameter quantizers, and dequantization (spec/mrt_quantization.md).
//
// MRT computes scales with Python floats (binary64) and quantizes MXNet NDArrays; each float
// operation below is one exactly-modelled IEEE operation (ieee.h), in MRT's order.
#include <algorithm>

#include "qspec/ref/ieee.h"
#include "qspec/ref/mrt.h"
#include "qspec/ref/types.h"

namespace qspec::ref {
namespace {

constexpr std::uint64_t kF64One = 0x3ff0000000000000ull;

bool f64_finite(std::uint64_t b) { return float_is_finite(b, kBinary64); }
bool f32_finite(std::uint32_t b) { return float_is_finite(b, kBinary32); }

// A Python int converted to float (exact below 2^53, which every use here is).
std::uint64_t f64_from_int(const Int& v) { return float_round(Rat(v), kBinary64); }

// Python float subtraction a - b: the exact difference, rounded once (IEEE 754 5.4.1). The sign
// of an exact zero does not matter to any caller (a zero range is rejected before use).
std::uint64_t f64_sub(std::uint64_t a, std::uint64_t b) { return float_round(f64_value(a) - f64_value(b), kBinary64); }

// The largest |W| (as binary64, exact widening), and the minimum/maximum of W.
std::uint64_t f32_absmax_as_f64(const std::vector<std::uint32_t>& w) {
  std::uint32_t best = 0;
  for (auto b : w)
    if (f32_value(b & 0x7fffffffu) > f32_value(best)) best = b & 0x7fffffffu;
  return f64_from_f32(best);
}
std::uint64_t f32_extreme_as_f64(const std::vector<std::uint32_t>& w, bool want_max) {
  std::uint32_t best = w.front();
  for (auto b : w) {
    const bool better = want_max ? f32_value(b) > f32_value(best) : f32_value(b) < f32_value(best);
    if (better) best = b;
  }
  return f64_from_f32(best);
}

void check_prec(int prec, const char* clause) {
  QSPEC_ERROR_IF(prec < 1 || prec > 32, std::string(clause) + ": precision must be in [1, 32], got " + std::to_string(prec));
}

}  // namespace

Int mrt_alpha(int prec) {
  QSPEC_ERROR_IF(prec < 1 || prec > 32, "MRT precision must be in [1, 32], got " + std::to_string(prec));
  return pow2(static_cast<unsigned>(prec - 1)) - 1;
}

// spec: mrt.scale
// scale(th, p) = 1 if th == 0 else alpha(p) / th in Python: int / float converts alpha exactly
// (alpha < 2^31 < 2^53) and performs one binary64 division.
std::uint64_t mrt_scale(std::uint64_t threshold_f64, int prec) {
  check_prec(prec, "mrt.scale");
  QSPEC_REQUIRE(f64_finite(threshold_f64), "mrt.scale: finite threshold");
  const Rat th = f64_value(threshold_f64);
  QSPEC_ERROR_IF(th < 0, "mrt.scale: threshold must be >= 0 (MRT asserts threshold >= 0)");
  if (th == 0) return kF64One;
  const std::uint64_t s = f64_div(f64_from_int(mrt_alpha(prec)), threshold_f64);
  QSPEC_REQUIRE(f64_finite(s), "mrt.scale: alpha / threshold must be finite in binary64");
  return s;
}

// spec: mrt.sym_param_quantizer
// V1 requant_parameter: params.astype("float64") * oscale (exact widening, one binary64
// product), MXNet round (half away from zero), clip to the symmetric range.
Int mrt_sym_quantize_value(std::uint32_t w_f32, std::uint64_t scale_f64, int prec) {
  check_prec(prec, "mrt.sym_param_quantizer");
  QSPEC_REQUIRE(f32_finite(w_f32), "mrt.sym_param_quantizer: finite weight");
  const std::uint64_t prod = f64_mul(f64_from_f32(w_f32), scale_f64);
  QSPEC_REQUIRE(f64_finite(prod), "mrt.sym_param_quantizer: finite product");
  return saturate(round_half_away(f64_value(prod)), mrt_sym_range(prec));
}

// spec: mrt.sym_param_quantizer
MrtSymParamResult mrt_sym_param_quantize(const std::vector<std::uint32_t>& w_f32, int prec,
                                         std::optional<std::uint64_t> threshold_f64, MrtSymVariant variant) {
  check_prec(prec, "mrt.sym_param_quantizer");
  for (auto b : w_f32) QSPEC_REQUIRE(f32_finite(b), "mrt.sym_param_quantizer: finite weights");
  if (!threshold_f64) QSPEC_REQUIRE(!w_f32.empty(), "mrt.sym_param_quantizer: non-empty weights when no threshold is given");
  const std::uint64_t th = threshold_f64 ? *threshold_f64 : f32_absmax_as_f64(w_f32);
  const std::uint64_t sc = mrt_scale(th, prec);  // ERROR_IF th < 0
  MrtSymParamResult r;
  if (f64_value(th) == 0) {
    // MRT: "if th_dict[wname] == 0: oprec, oscale = 1, 1" and the parameter becomes zeros.
    r.q.assign(w_f32.size(), Int(0));
    r.scale = kF64One;
    r.prec = 1;
    return r;
  }
  r.scale = sc;
  r.prec = prec;
  const Range range = mrt_sym_range(prec);
  for (auto w : w_f32) {
    switch (variant) {
      case MrtSymVariant::V1: r.q.push_back(mrt_sym_quantize_value(w, sc, prec)); break;
      case MrtSymVariant::V2: {
        // MXNet float32 array times a Python float: the scalar is cast to float32 first.
        const std::uint32_t prod = f32_mul(w, f32_from_f64(sc));
        QSPEC_REQUIRE(f32_finite(prod), "mrt.sym_param_quantizer (v2): finite product");
        r.q.push_back(saturate(round_half_away(f32_value(prod)), range));
        break;
      }
      case MrtSymVariant::Ideal:
        r.q.push_back(saturate(round_half_away(f32_value(w) * Rat(mrt_alpha(prec)) / f64_value(th)), range));
        break;
    }
  }
  return r;
}

// spec: mrt.affine_param_quantizer
// (2**prec - 1) / (maxv - minv) in Python: one binary64 subtraction, one binary64 division.
std::uint64_t mrt_affine_scale(std::uint64_t min_f64, std::uint64_t max_f64, int prec) {
  check_prec(prec, "mrt.affine_param_quantizer");
  QSPEC_REQUIRE(f64_finite(min_f64) && f64_finite(max_f64), "mrt.affine_param_quantizer: finite range");
  const Rat mn = f64_value(min_f64), mx = f64_value(max_f64);
  QSPEC_ERROR_IF(mn == mx, "mrt.affine_param_quantizer: max == min (MRT divides by max - min unguarded)");
  QSPEC_REQUIRE(mn < mx, "mrt.affine_param_quantizer: min < max");
  // Two distinct finite doubles have a nonzero rounded difference (gradual underflow).
  const std::uint64_t width = f64_sub(max_f64, min_f64);
  QSPEC_REQUIRE(f64_finite(width), "mrt.affine_param_quantizer: finite max - min");
  const std::uint64_t s = f64_div(f64_from_int(pow2(static_cast<unsigned>(prec)) - 1), width);
  QSPEC_REQUIRE(f64_finite(s), "mrt.affine_param_quantizer: finite scale");
  return s;
}

// spec: mrt.affine_param_quantizer
// relu((W - zp) * sc) on the float32 array: MXNet casts each scalar to float32, then one
// binary32 subtraction (a - b is a + (-b) in IEEE) and one binary32 product; MXNet round (half
// away); clip to [0, 2^p - 1].
Int mrt_affine_quantize_value(std::uint32_t w_f32, std::uint64_t zero_point_f64, std::uint64_t scale_f64, int prec) {
  check_prec(prec, "mrt.affine_param_quantizer");
  QSPEC_REQUIRE(f32_finite(w_f32), "mrt.affine_param_quantizer: finite weight");
  const std::uint32_t zp32 = f32_from_f64(zero_point_f64);
  const std::uint32_t sc32 = f32_from_f64(scale_f64);
  QSPEC_REQUIRE(f32_finite(zp32) && f32_finite(sc32), "mrt.affine_param_quantizer: zero point and scale finite in binary32");
  const std::uint32_t diff = f32_add(w_f32, zp32 ^ 0x80000000u);
  QSPEC_REQUIRE(f32_finite(diff), "mrt.affine_param_quantizer: finite W - zp");
  const std::uint32_t prod = f32_mul(diff, sc32);
  QSPEC_REQUIRE(f32_finite(prod), "mrt.affine_param_quantizer: finite product");
  Rat v = f32_value(prod);
  if (v < 0) v = 0;  // nd.relu
  return saturate(round_half_away(v), Range{Int(0), pow2(static_cast<unsigned>(prec)) - 1});
}

// spec: mrt.affine_param_quantizer
MrtAffineParamResult mrt_affine_param_quantize(const std::vector<std::uint32_t>& w_f32, int prec,
                                               std::optional<std::uint64_t> min_f64,
                                               std::optional<std::uint64_t> max_f64) {
  check_prec(prec, "mrt.affine_param_quantizer");
  for (auto b : w_f32) QSPEC_REQUIRE(f32_finite(b), "mrt.affine_param_quantizer: finite weights");
  if (!min_f64 || !max_f64) QSPEC_REQUIRE(!w_f32.empty(), "mrt.affine_param_quantizer: non-empty weights without a range");
  const std::uint64_t mn = min_f64 ? *min_f64 : f32_extreme_as_f64(w_f32, false);
  const std::uint64_t mx = max_f64 ? *max_f64 : f32_extreme_as_f64(w_f32, true);
  MrtAffineParamResult r;
  r.scale = mrt_affine_scale(mn, mx, prec);  // ERROR_IF max == min
  r.zero_point = mn;                          // zp_wr = min Wr, a real number
  for (auto w : w_f32) r.q.push_back(mrt_affine_quantize_value(w, r.zero_point, r.scale, prec));
  return r;
}

// spec: mrt.dequantize
Rat mrt_dequantize(const Int& q, const Rat& scale, const Rat& zero) {
  QSPEC_REQUIRE(scale > 0, "mrt.dequantize: scale > 0");
  return Rat(q) / scale + zero;
}

}  // namespace qspec::ref
