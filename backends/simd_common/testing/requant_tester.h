// XNNPACK-style tester for the requantization kernels: builds inputs, runs a kernel and the
// scalar path, and compares every output byte (plus guard bytes past the end for overruns).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "qspec/simd/requant.h"

namespace qspec::simd::testing {

class RequantTester {
 public:
  RequantTester& n(std::size_t v) {
    n_ = v;
    return *this;
  }
  RequantTester& params(const RequantParams& p) {
    p_ = p;
    return *this;
  }
  RequantTester& out(OutType t) {
    p_.out = t;
    p_.qmin = out_min(t);
    p_.qmax = out_max(t);
    return *this;
  }
  RequantTester& zero_point(std::int32_t zp) {
    p_.zp = zp;
    return *this;
  }
  // Inputs cycle through these values (else random int32 with extremes mixed in).
  RequantTester& inputs(std::vector<std::int32_t> v) {
    inputs_ = std::move(v);
    return *this;
  }
  RequantTester& seed(std::uint64_t s) {
    seed_ = s;
    return *this;
  }
  RequantTester& iterations(int k) {
    iterations_ = k;
    return *this;
  }

  const RequantParams& params() const { return p_; }

  void Test(RequantFn kernel) const {
    RequantParams p = p_;
    ASSERT_TRUE(finalize(p)) << "parameters rejected by finalize()";
    std::mt19937_64 rng(seed_);
    const std::size_t es = static_cast<std::size_t>(out_size(p.out));
    for (int it = 0; it < iterations_; ++it) {
      std::vector<std::int32_t> x(n_);
      for (std::size_t i = 0; i < n_; ++i) {
        if (!inputs_.empty()) {
          x[i] = inputs_[(i + static_cast<std::size_t>(it)) % inputs_.size()];
        } else {
          switch (rng() % 8) {
            case 0: x[i] = static_cast<std::int32_t>(rng()); break;  // full range
            case 1:
              x[i] = (rng() & 1) ? INT32_MAX - static_cast<std::int32_t>(rng() % 4)
                                 : INT32_MIN + static_cast<std::int32_t>(rng() % 4);
              break;
            case 2: x[i] = static_cast<std::int32_t>(rng() % 64) - 32; break;
            default: x[i] = static_cast<std::int32_t>(static_cast<std::int64_t>(rng() % (1u << 20)) - (1 << 19)); break;
          }
        }
      }
      constexpr std::size_t kGuard = 64;
      std::vector<std::uint8_t> got(n_ * es + kGuard, 0xA5), want(n_ * es + kGuard, 0xA5);
      kernel(p, n_, x.data(), got.data());
      requant_scalar(p, n_, x.data(), want.data());
      for (std::size_t i = 0; i < n_; ++i) {
        std::int64_t g = 0, w = 0;
        std::memcpy(&g, got.data() + i * es, es);
        std::memcpy(&w, want.data() + i * es, es);
        if (g != w) {
          std::int32_t gv = 0, wv = 0;
          std::memcpy(&gv, got.data() + i * es, es);
          std::memcpy(&wv, want.data() + i * es, es);
          FAIL() << "n=" << n_ << " element " << i << " x=" << x[i] << ": kernel bytes " << std::hex << g << ", scalar "
                 << w << std::dec << " (kind " << static_cast<int>(p.kind) << ", out " << static_cast<int>(p.out)
                 << ", M=" << p.multiplier << ", shift L/R/S=" << p.left_shift << "/" << p.right_shift << "/" << p.shift
                 << ", zp=" << p.zp << ")";
        }
      }
      for (std::size_t i = n_ * es; i < got.size(); ++i) ASSERT_EQ(got[i], 0xA5) << "kernel wrote past the end";
    }
  }

 private:
  std::size_t n_ = 1;
  RequantParams p_;
  std::vector<std::int32_t> inputs_;
  std::uint64_t seed_ = 1;
  int iterations_ = 3;
};

}  // namespace qspec::simd::testing
