// Exhaustive checks of the pooling conventions' per-window arithmetic
// (spec/operators_qlinear_pool.md) against the engines' kernels transliterated on this machine's
// binary32 hardware (qlinear_pool_hw.h), for a few parameter sets per dtype:
// - the conventions whose output depends on the window only through its sum (XNNPACK windowed and
//   global, ONNX Runtime global, TFLite average pooling and Mean): every window sum of n <= 4
//   codes, i.e. every window of <= 4 codes;
// - ONNX Runtime's float pipeline (which sums in window order): every window of 1 and 2 codes
//   (divided by 2, and by 4 as a count_include_pad window for the first parameter set).
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <vector>

#include "qlinear_hw.h"
#include "qlinear_pool_hw.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear.h"
#include "qspec/ref/ops/qlinear_pool.h"

namespace {

using namespace qspec::ref;
using namespace qspec::ref::ops;
namespace hw = qspec::qlinear_pool_hw;
namespace qhw = qspec::qlinear_hw;

float V(std::uint32_t b) { return std::bit_cast<float>(b); }

struct Set {
  DType t;
  std::uint32_t xs, ys;
  int zx, zy, ymin, ymax;
};

// Tie-rich dyadic scales, a realistic pair, a large ratio (saturation) and a narrowed clamp.
std::vector<Set> sets(DType t) {
  const int lo = t == DType::I8 ? -128 : 0, hi = t == DType::I8 ? 127 : 255;
  return {{t, 0x3e800000u, 0x3e800000u, lo + 3, lo + 100, lo, hi},    // 1/4, 1/4
          {t, 0x3c23d70au, 0x3c8ccccdu, lo + 128, lo + 120, lo, hi},  // 0.01, 0.0171...
          {t, 0x40a00000u, 0x3d800000u, hi - 5, lo + 7, lo, hi},      // 5, 1/16: saturates
          {t, 0x3f000000u, 0x3e000000u, lo + 60, lo + 60, lo + 50, lo + 70}};
}

QPoolParams params(const Set& s) {
  QPoolParams p;
  p.type = s.t;
  p.x_scale = s.xs, p.y_scale = s.ys;
  p.x_zero_point = Int(s.zx), p.y_zero_point = Int(s.zy);
  p.y_min = Int(s.ymin), p.y_max = Int(s.ymax);
  return p;
}

QLinearParams epilogue(const QPoolParams& p) {
  QLinearParams q;
  q.x_type = p.type;
  q.y_zero_point = p.y_zero_point;
  q.y_min = p.y_min, q.y_max = p.y_max;
  return q;
}

TEST(exhaustive_qlinear_pool, XnnpackEveryWindowSumOfUpToFourCodes) {
  long long checked = 0;
  for (const auto& s : sets(DType::U8)) {
    const QPoolParams p = params(s);
    for (int n = 2; n <= 4; ++n) {
      QPoolGeometry g;
      g.kernel = {1, n};
      const std::uint32_t S = qlinear_avg_pool2d_xnnpack_scale(p, g, true);
      const float hs = hw::xnnpack_scale(V(s.xs), V(s.ys), n);
      ASSERT_EQ(S, std::bit_cast<std::uint32_t>(hs));
      for (int sum = n * 0; sum <= n * 255; ++sum) {
        const int acc = sum - n * s.zx;
        const Int windowed = qlinear_xnnpack_avgpool_output(Int(acc), S, p);
        const Int global = qlinear_xnnpack_fp32_output(Int(acc), S, epilogue(p));
        ASSERT_EQ(windowed, Int(hw::xnnpack_avgpool(acc, hs, s.zy, s.ymin, s.ymax))) << "n " << n << " sum " << sum;
        ASSERT_EQ(global, Int(qhw::xnnpack_fp32(acc, hs, s.zy, s.ymin, s.ymax))) << "n " << n << " sum " << sum;
        checked += 2;
      }
    }
  }
  for (const auto& s : sets(DType::I8)) {  // global average pooling qs8 (no qs8 windowed operator)
    const QPoolParams p = params(s);
    for (int n = 1; n <= 4; ++n) {
      const std::uint32_t S = qlinear_global_avg_pool_xnnpack_scale(p, n);
      const float hs = hw::xnnpack_scale(V(s.xs), V(s.ys), n);
      for (int sum = -128 * n; sum <= 127 * n; ++sum, ++checked) {
        const int acc = sum - n * s.zx;
        ASSERT_EQ(qlinear_xnnpack_fp32_output(Int(acc), S, epilogue(p)),
                  Int(qhw::xnnpack_fp32(acc, hs, s.zy, s.ymin, s.ymax)));
      }
    }
  }
  RecordProperty("checked", std::to_string(checked));
  EXPECT_GT(checked, 20000);
}

TEST(exhaustive_qlinear_pool, OnnxRuntimeEveryWindowOfOneAndTwoCodesAndEveryGlobalSum) {
  long long checked = 0;
  for (DType t : {DType::I8, DType::U8}) {
    const int lo = t == DType::I8 ? -128 : 0, hi = t == DType::I8 ? 127 : 255;
    for (std::size_t k = 0; k < sets(t).size(); ++k) {
      const Set s = sets(t)[k];
      QPoolParams p = params(s);
      p.y_min.reset(), p.y_max.reset();  // no fused clamp
      for (int a = lo; a <= hi; ++a) {
        ASSERT_EQ(qlinear_onnxruntime_avgpool_output({Int(a)}, 1, p),
                  Int(hw::onnxruntime_avgpool({a}, 1, V(s.xs), s.zx, V(s.ys), s.zy, lo, hi)));
        for (int b = lo; b <= hi; ++b)
          for (int count : {2, 4}) {             // 4: count_include_pad, a 2x2 window with two taps inside
            if (count == 4 && k != 0) continue;  // (the tie-rich set only: the run time)
            ASSERT_EQ(qlinear_onnxruntime_avgpool_output({Int(a), Int(b)}, count, p),
                      Int(hw::onnxruntime_avgpool({a, b}, count, V(s.xs), s.zx, V(s.ys), s.zy, lo, hi)))
                << a << " " << b << " / " << count;
            ++checked;
          }
      }
      for (int n = 1; n <= 4; ++n) {
        const std::uint32_t S = qlinear_global_avg_pool_onnxruntime_scale(p, n);
        const float hs = hw::xnnpack_scale(V(s.xs), V(s.ys), n);
        for (int sum = lo * n; sum <= hi * n; ++sum, ++checked) {
          const int acc = sum - n * s.zx;
          ASSERT_EQ(qlinear_onnxruntime_output(Int(acc), S, epilogue(p)), Int(qhw::onnxruntime(acc, hs, s.zy, lo, hi)));
        }
      }
    }
  }
  RecordProperty("checked", std::to_string(checked));
  EXPECT_GT(checked, 600000);
}

TEST(exhaustive_qlinear_pool, TfliteEveryWindowSumOfUpToFourCodes) {
  long long checked = 0;
  for (DType t : {DType::I8, DType::U8}) {
    const int lo = t == DType::I8 ? -128 : 0, hi = t == DType::I8 ? 127 : 255;
    for (const auto& s : sets(t)) {
      QPoolParams p = params(s);
      for (int n = 1; n <= 4; ++n)
        for (int sum = lo * n; sum <= hi * n; ++sum, ++checked) {
          // A window of n codes in the dtype with this sum: fill from the low end.
          std::vector<Int> codes;
          int rest = sum - n * lo;
          for (int i = 0; i < n; ++i) {
            const int add = std::min(rest, hi - lo);
            codes.push_back(Int(lo + add));
            rest -= add;
          }
          const int expect = std::min(std::max(hw::tflite_rounded_div(sum, n), s.ymin), s.ymax);
          ASSERT_EQ(qlinear_tflite_avgpool_output(codes, p), Int(expect)) << "n " << n << " sum " << sum;
          if (t == DType::I8) {
            const int acc = sum - n * s.zx;
            ASSERT_EQ(qlinear_tflite_mean_output(Int(acc), n, p), Int(hw::tflite_mean(acc, n, V(s.xs), V(s.ys), s.zy)))
                << "n " << n << " sum " << sum;
          }
        }
    }
  }
  RecordProperty("checked", std::to_string(checked));
  EXPECT_GT(checked, 15000);
}

}  // namespace
