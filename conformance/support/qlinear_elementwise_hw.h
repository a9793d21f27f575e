// Transliterations of the engines' quantized add and mul (spec/operators_qlinear_elementwise.md)
// on this machine's IEEE binary32 / binary64 hardware and int64 integers: an independent model to
// check the exact reference's element functions against (properties and exhaustive checks).
//
// Every float intermediate goes through a volatile variable (no contraction, no extra precision);
// the fused multiply-adds ONNX Runtime's add performs are std::fma (one rounding, by the C
// library's definition); nearbyint rounds half to even in the default rounding mode.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace qspec::qlinear_ew_hw {

struct Params {
  bool u8 = false;
  float sa = 1, sb = 1, sy = 1;
  std::int64_t za = 0, zb = 0, zy = 0, lo = -128, hi = 127;  // lo/hi: the fused clamp (else the dtype)
};

inline std::int64_t type_lo(const Params& p) { return p.u8 ? 0 : -128; }
inline std::int64_t type_hi(const Params& p) { return p.u8 ? 255 : 127; }
inline std::int64_t clip(std::int64_t v, std::int64_t lo, std::int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

// ---- XNNPACK ----

struct XnnAdd {
  std::int64_t ma = 0, mb = 0, bias = 0;
  int shift = 0;
};
// false where xnn_create_add_nd_* fails on the ratios.
inline bool xnn_add_params(const Params& p, XnnAdd& k) {
  volatile float ra = p.sa / p.sy, rb = p.sb / p.sy;
  const float a = ra, b = rb;
  if (!(a >= 0x1.0p-10f && a < 0x1.0p+8f) || !(b >= 0x1.0p-10f && b < 0x1.0p+8f)) return false;
  int e = 0;
  std::frexp(std::max(a, b), &e);  // max = f 2^e, f in [1/2, 1): the IEEE exponent is e - 1
  k.shift = 20 - (e - 1);
  k.ma = std::llrint(std::ldexp(a, k.shift));
  k.mb = std::llrint(std::ldexp(b, k.shift));
  k.bias = (std::int64_t{1} << (k.shift - 1)) - k.ma * p.za - k.mb * p.zb;
  return true;
}
inline std::int64_t xnn_add(const Params& p, const XnnAdd& k, std::int64_t a, std::int64_t b) {
  const std::int64_t acc = k.bias + a * k.ma + b * k.mb;
  const std::int64_t floor = acc >= 0 ? acc / (std::int64_t{1} << k.shift)
                                      : -((-acc + (std::int64_t{1} << k.shift) - 1) / (std::int64_t{1} << k.shift));
  return clip(floor, p.lo - p.zy, p.hi - p.zy) + p.zy;
}

inline float xnn_mul_scale(const Params& p) {
  volatile float prod = p.sa * p.sb;
  volatile float s = prod / p.sy;
  return s;
}
// The scalar kernel: clamp in float, round with the magic bias (adding 1.5 * 2^23 rounds to even).
inline std::int64_t xnn_mul(const Params& p, float s, std::int64_t a, std::int64_t b) {
  volatile float v = static_cast<float>((a - p.za) * (b - p.zb)) * s;
  float c = std::max(static_cast<float>(v), static_cast<float>(p.lo - p.zy));
  c = std::min(c, static_cast<float>(p.hi - p.zy));
  volatile float biased = c + 12582912.0f;
  const float bf = biased;
  std::int32_t bits;
  std::memcpy(&bits, &bf, 4);
  return static_cast<std::int64_t>(bits - (0x4B400000 - static_cast<std::int32_t>(p.zy)));
}

// ---- ONNX Runtime ----

struct OrtAdd {
  float ra = 0, rb = 0, k = 0;
};
inline OrtAdd ort_add_params(const Params& p) {
  OrtAdd o;
  volatile float ra = p.sa / p.sy, rb = p.sb / p.sy;
  o.ra = ra, o.rb = rb;
  volatile float bz = o.rb * static_cast<float>(p.zb);
  volatile float sum = std::fma(o.ra, static_cast<float>(p.za), static_cast<float>(bz));
  volatile float k = static_cast<float>(p.zy) - sum;
  o.k = k;
  return o;
}
inline std::int64_t ort_add(const Params& p, const OrtAdd& o, std::int64_t a, std::int64_t b) {
  volatile float t = std::fma(static_cast<float>(b), o.rb, o.k);
  volatile float v = std::fma(static_cast<float>(a), o.ra, static_cast<float>(t));
  return clip(static_cast<std::int64_t>(std::nearbyint(static_cast<float>(v))), type_lo(p), type_hi(p));
}

inline std::int64_t ort_mul(const Params& p, float r, std::int64_t a, std::int64_t b) {
  volatile float prod = static_cast<float>((a - p.za) * (b - p.zb)) * r;
  volatile float v = prod + static_cast<float>(p.zy);
  return clip(static_cast<std::int64_t>(std::nearbyint(static_cast<float>(v))), type_lo(p), type_hi(p));
}

// ---- TFLite ----

struct Q31 {
  std::int64_t m = 0;
  int shift = 0;
};
// QuantizeMultiplier: frexp, std::round (half away), carry, flush below 2^-31; the single-rounding
// build also saturates a shift above 30.
inline Q31 quantize_multiplier(double d, bool single) {
  if (d == 0.0) return {};
  int e = 0;
  const double q = std::frexp(d, &e);
  Q31 r{static_cast<std::int64_t>(std::round(q * 2147483648.0)), e};
  if (r.m == (std::int64_t{1} << 31)) r.m /= 2, ++r.shift;
  if (r.shift < -31) r = {};
  if (single && r.shift > 30) r = {2147483647, 30};
  return r;
}
// MultiplyByQuantizedMultiplier: default (SRDHM then RoundingDivideByPOT) or single rounding.
inline std::int64_t mbqm(std::int64_t x, const Q31& q, bool single) {
  if (single) {
    const int t = 31 - q.shift;
    return (x * q.m + (std::int64_t{1} << (t - 1))) >> t;
  }
  const int left = q.shift > 0 ? q.shift : 0, right = q.shift > 0 ? 0 : -q.shift;
  const std::int64_t ab = x * (std::int64_t{1} << left) * q.m;
  const std::int64_t nudge = ab >= 0 ? (std::int64_t{1} << 30) : 1 - (std::int64_t{1} << 30);
  const std::int64_t h = (ab + nudge) / (std::int64_t{1} << 31);  // toward zero
  const std::int64_t mask = (std::int64_t{1} << right) - 1, rem = h & mask, thr = (mask >> 1) + (h < 0 ? 1 : 0);
  return (h >> right) + (rem > thr ? 1 : 0);
}

struct TflAdd {
  Q31 a, b, out;
};
// false where Prepare's TFLITE_CHECKs abort.
inline bool tfl_add_params(const Params& p, bool single, TflAdd& k) {
  volatile float twice = 2.0f * std::max(p.sa, p.sb);
  volatile float denom = 1048576.0f * p.sy;
  const double t = static_cast<float>(twice);
  const double ra = static_cast<double>(p.sa) / t, rb = static_cast<double>(p.sb) / t;
  const double ro = t / static_cast<double>(static_cast<float>(denom));
  for (double r : {ra, rb, ro})
    if (!(r < 1.0 && r > 0.0)) return false;
  k = {quantize_multiplier(ra, single), quantize_multiplier(rb, single), quantize_multiplier(ro, single)};
  return k.a.shift <= 0 && k.b.shift <= 0 && k.out.shift <= 0;
}
inline std::int64_t tfl_add(const Params& p, const TflAdd& k, bool single, std::int64_t a, std::int64_t b) {
  const std::int64_t raw = mbqm((a - p.za) << 20, k.a, single) + mbqm((b - p.zb) << 20, k.b, single);
  return clip(mbqm(raw, k.out, single) + p.zy, p.lo, p.hi);
}
inline Q31 tfl_mul_params(const Params& p, bool single) {
  return quantize_multiplier(static_cast<double>(p.sa) * static_cast<double>(p.sb) / static_cast<double>(p.sy), single);
}
inline std::int64_t tfl_mul(const Params& p, const Q31& q, bool single, std::int64_t a, std::int64_t b) {
  return clip(mbqm((a - p.za) * (b - p.zb), q, single) + p.zy, p.lo, p.hi);
}

// ---- concatenation: one input code requantized to the output ----

// QLinearConcat's table entry: QuantizeLinear(fl32(s_x fl32(x - z_x)), s_y, z_y) (a float division).
inline std::int64_t ort_concat(bool u8, float sx, std::int64_t zx, float sy, std::int64_t zy, std::int64_t x) {
  volatile float v = sx * static_cast<float>(x - zx);
  volatile float q = v / sy;
  const std::int64_t lo = u8 ? 0 : -128, hi = u8 ? 255 : 127;
  const float qf = q;
  if (std::isinf(qf)) return qf > 0 ? hi : lo;
  return clip(static_cast<std::int64_t>(std::nearbyint(qf)) + zy, lo, hi);
}
// ConcatenationWithScaling (uint8): round half away of fl32(fl32(x scale) + bias), + z_y, clamp.
inline std::int64_t tfl_concat(float sx, std::int64_t zx, float sy, std::int64_t zy, std::int64_t x) {
  volatile float inv = 1.0f / sy;
  volatile float scale = sx * inv;
  volatile float bias = static_cast<float>(-zx) * scale;
  volatile float prod = static_cast<float>(x) * scale;
  volatile float v = prod + bias;
  return clip(static_cast<std::int64_t>(std::round(static_cast<float>(v))) + zy, 0, 255);
}

}  // namespace qspec::qlinear_ew_hw
