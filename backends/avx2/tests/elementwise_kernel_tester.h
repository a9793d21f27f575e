// Shared by the qlinear.add / qlinear.mul kernel tests (and the pooling test's base parameters): each
// kernel of a list against the scalar form with one parameter set, on random codes of the given lengths (the
// byte past the end must stay untouched) and on every code pair.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "x86_levels.h"

namespace qspec::simd::ew_testing {

// A kernel and the width it runs (x86_levels.h's ymm_zmm_kernels lists the host's).
template <class Fn>
using NamedKernel = testing::WidthKernel<Fn>;

// Parameters of `kind` with the dtype's clamp, marked fast (AddParams / MulParams / PoolParams).
template <class P>
P base_params(typename P::Kind kind, bool u8) {
  P p;
  p.kind = kind;
  p.u8 = u8;
  p.lo = u8 ? 0 : -128;
  p.hi = u8 ? 255 : 127;
  p.fast = true;
  return p;
}

// Random zero points of the dtype's codes and y's clamp: the dtype's range (the stores' saturation
// clamps) or a fused clamp on one side or both, a quarter of the draws each.
template <class P>
void draw_zero_points_and_clamp(P& p, bool u8, std::mt19937& g) {
  const auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(g); };
  const int clo = u8 ? 0 : -128, chi = u8 ? 255 : 127;
  p.za = uni(clo, chi), p.zb = uni(clo, chi), p.zy = uni(clo, chi);
  p.lo = uni(clo, chi), p.hi = uni(clo, chi);
  if (p.lo > p.hi) std::swap(p.lo, p.hi);
  const int range = uni(0, 3);
  if (range == 0 || range == 1) p.lo = clo;
  if (range == 0 || range == 2) p.hi = chi;
}

// A parameter draw's name in a failure message.
inline std::string draw_name(const std::string& kind, bool u8, int draw) {
  return kind + (u8 ? " uint8" : " int8") + " draw " + std::to_string(draw);
}

// Every length 0..65 (two 32-code stores, the tails, 16-lane masked steps, one 64-code iteration
// and one more) and longer ones around the loops' steps.
inline std::vector<std::size_t> tail_lengths() {
  std::vector<std::size_t> v;
  for (std::size_t n = 0; n <= 65; ++n) v.push_back(n);
  for (std::size_t n : {95, 96, 97, 127, 128, 129, 300}) v.push_back(n);
  return v;
}

// Fresh random codes for each length; `what` names the parameter draw in a failure.
template <class P, class Fn>
void expect_scalar_on_lengths(const std::vector<NamedKernel<Fn>>& kernels, Fn scalar, const P& p,
                              const std::vector<std::size_t>& lengths, std::mt19937& g, const std::string& what) {
  std::uniform_int_distribution<int> byte(0, 255);
  for (std::size_t n : lengths) {
    std::vector<std::uint8_t> a(n + 1), b(n + 1), want(n + 1, 0xA5), got(n + 1, 0xA5);
    for (std::size_t i = 0; i < n; ++i) a[i] = static_cast<std::uint8_t>(byte(g)), b[i] = static_cast<std::uint8_t>(byte(g));
    scalar(p, n, a.data(), b.data(), want.data());
    for (const NamedKernel<Fn>& k : kernels) {
      k.fn(p, n, a.data(), b.data(), got.data());
      ASSERT_EQ(got, want) << k.name << " " << what << " n " << n;
    }
  }
}

// The 65536 code pairs (a = i >> 8, b = i mod 256) in one call: the extreme codes included.
template <class P, class Fn>
void expect_scalar_on_every_code_pair(const std::vector<NamedKernel<Fn>>& kernels, Fn scalar, const P& p,
                                      const std::string& what) {
  std::vector<std::uint8_t> a(65536), b(65536), want(65536), got(65536);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<std::uint8_t>(i >> 8), b[i] = static_cast<std::uint8_t>(i);
  scalar(p, a.size(), a.data(), b.data(), want.data());
  for (const NamedKernel<Fn>& k : kernels) {
    k.fn(p, a.size(), a.data(), b.data(), got.data());
    ASSERT_EQ(got, want) << k.name << " " << what;
  }
}

// Both dtypes of every kind in `kinds`, `draws` parameter sets each: check(draw(kind, u8, d, g), g, what)
// with g seeded by `seed` and `what` naming the draw (the loops the add and mul kernel tests share).
template <class Kinds, class Name, class Draw, class Check>
void for_each_draw(const Kinds& kinds, int draws, std::uint32_t seed, Name name, Draw draw, Check check) {
  std::mt19937 g(seed);
  for (auto kind : kinds)
    for (bool u8 : {false, true})
      for (int d = 0; d < draws; ++d) check(draw(kind, u8, d, g), g, draw_name(name(kind), u8, d));
}

}  // namespace qspec::simd::ew_testing
