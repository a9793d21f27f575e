// Exhaustive checks of the MRT/CVM reference against independent integer and hardware formulations.
//
// CI slice (default): every int16 x every shift 1..16 x precisions {8, 16} for cvm_right_shift
// (formal and CPU), every int8/uint8 level (and the midpoints between levels) of the symmetric
// and affine quantizers on 256 thresholds/ranges, and 2^18 binary32 significands x 4 bit widths
// for cvm_float. QSPEC_EXHAUSTIVE_FULL=1 widens each domain (all shifts and precisions 1..32,
// int16/uint16 levels on 64 thresholds/ranges, all 2^23 significands x 5 widths).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "exhaustive_domain.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/mrt.h"

using namespace qspec::ref;

namespace {

bool full() { return qspec::test::exhaustive_full(); }

struct Timer {
  const char* what;
  std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
  long long points = 0;
  ~Timer() {
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("[ exhaustive ] %s: %lld points in %.2f s\n", what, points, s);
  }
};

long long alpha(int p) { return (1LL << (p - 1)) - 1; }
long long clampll(long long v, long long lo, long long hi) { return std::min(std::max(v, lo), hi); }

// floor(a / b) for b > 0 with C++'s truncating division corrected: independent of the
// reference's shift-based formula.
long long floor_div_ll(long long a, long long b) {
  long long q = a / b;
  if (a % b != 0 && a < 0) --q;
  return q;
}
// Round half up of x / 2^b: the integer n with 2n*2^b - 2^b <= 2x < 2n*2^b + 2^b, i.e.
// n = floor((2x + 2^b) / 2^(b+1)).
long long half_up_shift(long long x, int b) { return floor_div_ll(2 * x + (1LL << b), 1LL << (b + 1)); }

// MRT's cvm_float on the hardware binary64 (the Python source, transliterated).
std::pair<long long, int> cvm_float_hw(double number, int bits) {
  const long long a = bits >= 2 ? (1LL << (bits - 1)) - 1 : 1;
  int b = bits - 1;
  if (number == 0) return {0, 0};
  int exp = 0;
  while (number >= 1) number /= 2, ++exp;
  while (number < 1) number *= 2, --exp;
  while (b > 1) {
    if (std::trunc(number) == number) break;
    number *= 2, --exp, --b;
  }
  return {std::min(static_cast<long long>(std::nearbyint(number)), a), exp};
}

}  // namespace

TEST(cvm_right_shift, ExhaustiveInt16) {
  Timer t{"cvm.right_shift int16 x shifts x precisions"};
  std::vector<int> precisions = {8, 16};
  int max_shift = 16;
  if (full()) {
    precisions.clear();
    for (int p = 1; p <= 32; ++p) precisions.push_back(p);
    max_shift = 32;
  }
  const auto xs = qspec::test::domain_range(-32768, 32767);
  for (int p : precisions)
    for (int b = 1; b <= max_shift; ++b) {
      long long negative_ties_differ = 0;
      for (const long long x : xs) {
        const long long expected = clampll(half_up_shift(x, b), -alpha(p), alpha(p));
        const Int got = cvm_right_shift(x, b, p);
        ++t.points;
        if (got != expected) {
          ADD_FAILURE() << "cvm_right_shift(" << x << ", " << b << ", " << p << ") = " << got << ", expected " << expected;
          return;
        }
        if (p == 16 && got != cvm_right_shift_exact(x, b, p, Rounding::HalfAway)) ++negative_ties_differ;
      }
      // At p = 16 nothing saturates (|x / 2^b| <= 2^14), so half up and half away differ exactly
      // on the negative ties x = -(2k+1) 2^(b-1) in [-32768, -1]: 2^(15-b) of them for b <= 15,
      // one (x = -2^15) for b = 16, none beyond.
      if (p == 16 && qspec::test::domain_stride() == 1) {  // the count needs every x
        const long long ties = b <= 15 ? (1LL << (15 - b)) : (b == 16 ? 1 : 0);
        EXPECT_EQ(negative_ties_differ, ties) << "b = " << b;
      }
    }
}

TEST(cvm_right_shift_cpu, ExhaustiveInt16) {
  Timer t{"cvm.right_shift_cpu int16 x shifts x precisions"};
  std::vector<int> precisions = {8, 16};
  int max_shift = 16;
  if (full()) {
    precisions.clear();
    for (int p = 1; p <= 32; ++p) precisions.push_back(p);
    max_shift = 32;
  }
  const auto as = qspec::test::domain_range(-32768, 32767);
  for (int p : precisions)
    for (int b = 1; b <= max_shift; ++b)
      for (const std::int64_t a64 : as) {
        const auto a = static_cast<std::int32_t>(a64);
        // src/runtime/cpu/ops/ops.cc, line by line, in int32.
        const std::int32_t mn = static_cast<std::int32_t>(-alpha(p)), mx = -mn;
        std::int32_t c;
        if (mx == 0) c = 0;
        else if (b >= 31) c = a >> 31;
        else if (p + b >= 32) c = ((a >> (b - 1)) + 1) >> 1;
        else {
          const std::int32_t x_min = static_cast<std::int32_t>(static_cast<std::uint32_t>(-2 * mx - 1) << (b - 1));
          const std::int32_t x_max = (2 * mx - 1) << (b - 1);
          c = a < x_min ? mn : (a > x_max ? mx : ((a >> (b - 1)) + 1) >> 1);
        }
        ++t.points;
        if (cvm_right_shift_cpu(a, b, p) != c) {
          ADD_FAILURE() << "cvm_right_shift_cpu(" << a << ", " << b << ", " << p << ") != " << c;
          return;
        }
      }
}

// Every level q of a p-bit symmetric quantizer, and the midpoint between q and q + 1, at a
// grid of thresholds: the reference equals MRT V1 on the hardware (double scale, float64
// product, round half away, clip), and every level round-trips.
TEST(mrt_sym_param_quantizer, ExhaustiveLevels) {
  Timer t{"mrt.sym_param_quantizer levels x thresholds"};
  const int p = full() ? 16 : 8;
  const int thresholds = full() ? 64 : 256;
  for (int k = 0; k < thresholds; ++k) {
    // Thresholds spread over 2^-24 .. 2^23 with varied significands (deterministic).
    const int e = -24 + (k * 47) / thresholds;
    const std::uint32_t th_bits = (static_cast<std::uint32_t>(e + 127) << 23) | ((k * 2654435761u) & 0x7fffffu);
    const float th = std::bit_cast<float>(th_bits);
    std::vector<std::uint32_t> w;
    std::vector<bool> is_level;
    for (long long q = -alpha(p); q <= alpha(p); ++q) {
      w.push_back(f32_round(Rat(q) * f32_value(th_bits) / alpha(p)));
      is_level.push_back(true);
      w.push_back(f32_round((Rat(q) + Rat(1, 2)) * f32_value(th_bits) / alpha(p)));
      is_level.push_back(false);
    }
    const auto r = mrt_sym_param_quantize(w, p, f64_from_f32(th_bits));
    const double sc = static_cast<double>(alpha(p)) / static_cast<double>(th);
    ASSERT_EQ(r.scale, std::bit_cast<std::uint64_t>(sc));
    for (std::size_t i = 0; i < w.size(); ++i) {
      const double prod = static_cast<double>(std::bit_cast<float>(w[i])) * sc;
      const long long hw = clampll(static_cast<long long>(std::round(prod)), -alpha(p), alpha(p));
      ++t.points;
      ASSERT_EQ(r.q[i], hw) << "threshold bits " << th_bits << ", w bits " << w[i];
      if (is_level[i]) {
        ASSERT_EQ(r.q[i], static_cast<long long>(i / 2) - alpha(p)) << "level does not round-trip";
      }
    }
  }
}

// Every level q of the affine quantizer [0, 2^p - 1] and the midpoints, on a grid of ranges
// (all-negative, straddling zero, all-positive): reference == MRT V2 in hardware float32.
TEST(mrt_affine_param_quantizer, ExhaustiveLevels) {
  Timer t{"mrt.affine_param_quantizer levels x ranges"};
  const int p = full() ? 16 : 8;
  const int ranges = full() ? 64 : 256;
  const long long top = (1LL << p) - 1;
  for (int k = 0; k < ranges; ++k) {
    const int e = -12 + (k * 20) / ranges;
    const std::uint32_t m1 = (k * 2654435761u) & 0x7fffffu, m2 = (k * 40503u + 12345u) & 0x7fffffu;
    float mn = std::bit_cast<float>((static_cast<std::uint32_t>(e + 127) << 23) | m1);
    float mx = std::bit_cast<float>((static_cast<std::uint32_t>(e + 128) << 23) | m2);
    if (k % 3 == 0) mn = -mn;                     // straddles zero
    if (k % 3 == 1) std::swap(mn, mx), mn = -mn, mx = -mx;  // all negative
    const double dmn = mn, dmx = mx;
    const double sc = static_cast<double>(top) / (dmx - dmn);
    std::vector<std::uint32_t> w = {std::bit_cast<std::uint32_t>(mn), std::bit_cast<std::uint32_t>(mx)};
    for (long long q = 0; q <= top; ++q) {
      w.push_back(f32_round(Rat(q) / f64_value(std::bit_cast<std::uint64_t>(sc)) + Rat(f32_value(w[0]))));
      w.push_back(f32_round((Rat(q) + Rat(1, 2)) / f64_value(std::bit_cast<std::uint64_t>(sc)) + Rat(f32_value(w[0]))));
    }
    const auto r = mrt_affine_param_quantize(w, p, std::bit_cast<std::uint64_t>(dmn), std::bit_cast<std::uint64_t>(dmx));
    ASSERT_EQ(r.scale, std::bit_cast<std::uint64_t>(sc));
    const float zp32 = mn, sc32 = static_cast<float>(sc);
    for (std::size_t i = 0; i < w.size(); ++i) {
      float v = (std::bit_cast<float>(w[i]) - zp32) * sc32;
      v = std::max(v, 0.0f);
      const long long hw = clampll(static_cast<long long>(std::round(v)), 0, top);
      ++t.points;
      ASSERT_EQ(r.q[i], hw) << "range " << mn << " .. " << mx << ", w bits " << w[i];
    }
  }
}

// cvm_float on binary32 significands (as binary64 scales) at several bit widths: the exact
// reference equals MRT's loop run on the hardware.
TEST(mrt_cvm_float, ExhaustiveSignificands) {
  Timer t{"mrt.cvm_float significands x bits"};
  const std::uint32_t stride = (full() ? 1u : (1u << 5)) * static_cast<std::uint32_t>(qspec::test::domain_stride());
  const std::vector<int> widths = full() ? std::vector<int>{2, 8, 16, 24, 32} : std::vector<int>{2, 8, 16, 24};
  for (int bits : widths)
    for (std::uint32_t m = 0; m < (1u << 23); m += stride) {
      // Significand 1.m times 2^(m % 61 - 30): all mantissas, many exponents.
      const int e = static_cast<int>(m % 61) - 30;
      const float f = std::bit_cast<float>((static_cast<std::uint32_t>(e + 127) << 23) | m);
      const double s = f;
      const auto hw = cvm_float_hw(s, bits);
      const CvmFloat cf = mrt_cvm_float(std::bit_cast<std::uint64_t>(s), bits);
      ++t.points;
      if (cf.frac != hw.first || cf.exp != hw.second) {
        ADD_FAILURE() << "cvm_float(" << s << ", " << bits << ") = (" << cf.frac << ", " << cf.exp << "), hardware ("
                      << hw.first << ", " << hw.second << ")";
        return;
      }
    }
}
