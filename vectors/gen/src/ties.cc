// Constructed exact ties of fp32 requantizations (qspec/vecgen/ties.h).
#include "qspec/vecgen/ties.h"

#include <stdexcept>

#include "qspec/ref/ieee.h"

namespace qspec::vecgen::ties {

using ref::Int;
using ref::Rat;

std::uint32_t f32_dyadic(std::int64_t m, int e) {
  if (m <= -(std::int64_t{1} << 24) || m >= (std::int64_t{1} << 24))
    throw std::logic_error("ties::f32_dyadic: |m| >= 2^24 is not exact");
  const Rat v = Rat(m) * ref::pow2r(e);
  const std::uint32_t b = ref::f32_round(v);
  if (ref::f32_value(b) != v || ((b >> 23) & 0xffu) == 0 || ((b >> 23) & 0xffu) == 0xffu)
    throw std::logic_error("ties::f32_dyadic: m 2^e is not a normal binary32");
  return b;
}

std::uint32_t tie_scale(std::int64_t odd_m, int u) {
  if (odd_m % 2 == 0) throw std::logic_error("ties::tie_scale: m must be odd");
  return f32_dyadic(odd_m, -(u + 1));
}

bool is_half_integer(std::uint32_t v) {
  if (!ref::float_is_finite(v, ref::kBinary32)) return false;
  const Rat twice = ref::f32_value(v) * 2;
  return ref::denominator(twice) == 1 && ref::numerator(twice) % 2 != 0;
}

bool fp32_product_is_tie(const Int& acc, std::uint32_t scale) {
  return is_half_integer(ref::f32_mul(ref::f32_from_int(acc), scale));
}

bool q31_product_is_tie(const Int& acc, const Int& multiplier, int shift) {
  const Rat twice = Rat(acc * multiplier) * ref::pow2r(shift - 30);
  return ref::denominator(twice) == 1 && ref::numerator(twice) % 2 != 0;
}

ScaleSplit split_scale(std::uint32_t s, int ex, int ey, std::int64_t c) {
  const ScaleSplit out{f32_dyadic(1, ex), channel_w_scale(s, ex, ey, c), f32_dyadic(c, ey)};
  const std::uint32_t got = ref::f32_div(ref::f32_mul(out.x_scale, out.w_scale), out.y_scale);
  if (got != s) throw std::logic_error("ties::split_scale: the split does not give the scale back exactly");
  return out;
}

std::uint32_t channel_w_scale(std::uint32_t s, int ex, int ey, std::int64_t c) {
  const Rat w = ref::f32_value(s) * Rat(c) * ref::pow2r(ey - ex);
  const std::uint32_t b = ref::f32_round(w);
  if (ref::f32_value(b) != w) throw std::logic_error("ties::channel_w_scale: s c 2^(ey - ex) is not a binary32");
  return b;
}

}  // namespace qspec::vecgen::ties
