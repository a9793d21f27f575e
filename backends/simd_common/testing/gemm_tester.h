// XNNPACK-style tester for the quantized matrix product: random or fixed operands, any signedness
// and zero points, compared element by element against the plain int64 definition.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "qspec/simd/qgemm.h"

namespace qspec::simd::testing {

class GemmTester {
 public:
  GemmTester& m(std::int64_t v) {
    m_ = v;
    return *this;
  }
  GemmTester& n(std::int64_t v) {
    n_ = v;
    return *this;
  }
  GemmTester& k(std::int64_t v) {
    k_ = v;
    return *this;
  }
  GemmTester& a_signed(bool v) {
    a_signed_ = v;
    return *this;
  }
  GemmTester& w_unsigned(bool v) {
    w_unsigned_ = v;
    return *this;
  }
  GemmTester& za(std::int64_t v) {
    za_ = v;
    return *this;
  }
  GemmTester& zw(std::int64_t v) {
    zw_ = v;
    return *this;
  }
  GemmTester& lda_pad(std::int64_t v) {
    lda_pad_ = v;
    return *this;
  }
  // Every A byte = a, every W byte = w (the saturation traps); otherwise random.
  GemmTester& constant(int a, int w) {
    const_a_ = a;
    const_w_ = w;
    constant_ = true;
    return *this;
  }
  GemmTester& seed(std::uint64_t s) {
    seed_ = s;
    return *this;
  }

  void Test(const GemmEngine& e) const {
    std::mt19937_64 rng(seed_);
    const std::int64_t lda = k_ + lda_pad_;
    std::vector<std::uint8_t> a(static_cast<std::size_t>(std::max<std::int64_t>(m_ * lda, 1)));
    std::vector<std::uint8_t> w(static_cast<std::size_t>(std::max<std::int64_t>(n_ * k_, 1)));
    for (auto& v : a) v = static_cast<std::uint8_t>(constant_ ? const_a_ : static_cast<int>(rng()));
    for (auto& v : w) v = static_cast<std::uint8_t>(constant_ ? const_w_ : static_cast<int>(rng()));
    const QWeights packed = pack_weights(e, n_, k_, w.data(), w_unsigned_, k_);
    std::vector<std::int64_t> y(static_cast<std::size_t>(std::max<std::int64_t>(m_ * n_, 1)), 0x5a5a5a5a5a5a);
    qgemm(e, m_, a.data(), a_signed_, lda, za_, packed, zw_, y.data(), n_);
    // The int32 output is the same value modulo 2^32.
    std::vector<std::int32_t> y32(y.size(), 0x5a5a5a5a);
    qgemm(e, m_, a.data(), a_signed_, lda, za_, packed, zw_, y32.data(), n_);
    for (std::int64_t i = 0; i < m_; ++i)
      for (std::int64_t j = 0; j < n_; ++j) {
        std::int64_t want = 0;
        for (std::int64_t t = 0; t < k_; ++t) {
          const std::uint8_t ab = a[static_cast<std::size_t>(i * lda + t)],
                             wb = w[static_cast<std::size_t>(j * k_ + t)];
          const std::int64_t av = a_signed_ ? static_cast<std::int8_t>(ab) : ab;
          const std::int64_t wv = w_unsigned_ ? wb : static_cast<std::int8_t>(wb);
          want += (av - za_) * (wv - zw_);
        }
        ASSERT_EQ(y32[static_cast<std::size_t>(i * n_ + j)],
                  static_cast<std::int32_t>(static_cast<std::uint32_t>(want)));
        ASSERT_EQ(y[static_cast<std::size_t>(i * n_ + j)], want)
            << e.name() << " m=" << m_ << " n=" << n_ << " k=" << k_ << " at (" << i << "," << j
            << ") a_signed=" << a_signed_ << " w_unsigned=" << w_unsigned_ << " za=" << za_ << " zw=" << zw_;
      }
  }

 private:
  std::int64_t m_ = 1, n_ = 1, k_ = 1, za_ = 0, zw_ = 0, lda_pad_ = 0;
  bool a_signed_ = true, w_unsigned_ = false, constant_ = false;
  int const_a_ = 0, const_w_ = 0;
  std::uint64_t seed_ = 1;
};

}  // namespace qspec::simd::testing
