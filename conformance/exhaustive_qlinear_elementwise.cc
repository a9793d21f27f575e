// Exhaustive checks of the engines' quantized add and mul (spec/operators_qlinear_elementwise.md):
// every (A, B) pair of 8-bit codes (65,536 per configuration) through the exact reference, against
// the engine's transliteration on this machine's IEEE hardware and int64 integers
// (qlinear_elementwise_hw.h), for int8 and uint8 and several scale / zero-point / clamp sets per
// (op, convention): tie-rich dyadic ratios, realistic scales with long mantissas and narrowed clamps.
//
// The operands are a (256, 1) column of every code against a (1, 256) row: the broadcast forms
// every pair in one call. ONNX Runtime's add clause needs both operands to span the last axis, so
// it gets (256, 256) operands instead (the same pairs).
#include <gtest/gtest.h>

#include <bit>
#include <string>
#include <vector>

#include "exhaustive_domain.h"
#include "qlinear_elementwise_models.h"
#include "qspec/ref/ops/qlinear_concat.h"
#include "qspec/ref/ops/qlinear_elementwise.h"

namespace {

using namespace qspec::ref;
using namespace qspec::ref::ops;
namespace models = qspec::qlinear_ew_models;

struct Config {
  std::string name;
  QEwParams p;
};

QEwParams params(DType t, std::uint32_t sa, std::uint32_t sb, std::uint32_t sy, long long za, long long zb,
                 long long zy) {
  QEwParams p;
  p.type = p.b_type = t;
  p.a_scale = sa, p.b_scale = sb, p.y_scale = sy;
  p.a_zero_point = za, p.b_zero_point = zb, p.y_zero_point = zy;
  return p;
}

// Configurations per op: the scales keep every convention's parameters valid.
std::vector<Config> configs(QEwOp op) {
  std::vector<Config> v;
  for (DType t : {DType::I8, DType::U8}) {
    const bool s8 = t == DType::I8;
    const std::string n = s8 ? "int8 " : "uint8 ";
    if (op == QEwOp::Add) {
      // s_a / s_y = 3/4, s_b / s_y = 1/2 (dyadic: many exact ties).
      v.push_back({n + "ratios 3/4 and 1/2",
                   params(t, 0x3c400000u, 0x3c000000u, 0x3c800000u, s8 ? 5 : 130, s8 ? -7 : 120, s8 ? 3 : 128)});
      // Long mantissas, unequal magnitudes.
      v.push_back({n + "realistic scales",
                   params(t, 0x3c23d70au, 0x3b9a6b51u, 0x3c8f5c29u, s8 ? -20 : 100, s8 ? 33 : 140, s8 ? -1 : 127)});
    } else {
      // S = 3/64.
      v.push_back({n + "S = 3/64",
                   params(t, 0x3d400000u, 0x3c800000u, 0x3c800000u, s8 ? 3 : 128, s8 ? -2 : 125, s8 ? 1 : 131)});
      v.push_back({n + "realistic scales",
                   params(t, 0x3c23d70au, 0x3c4ccccdu, 0x3d0f5c29u, s8 ? -9 : 117, s8 ? 11 : 135, s8 ? 5 : 125)});
    }
    Config c = v.back();
    c.name = n + "realistic scales, clamp [zp - 20, zp + 50]";
    c.p.y_min = c.p.y_zero_point - 20;
    c.p.y_max = c.p.y_zero_point + 50;
    v.push_back(c);
  }
  return v;
}

std::vector<long long> codes(DType t) {
  const long long lo = t == DType::I8 ? -128 : 0, hi = t == DType::I8 ? 127 : 255;
  const long long stride = qspec::test::domain_stride();
  std::vector<long long> v;
  for (long long c = lo; c <= hi; c += stride) v.push_back(c);
  if (v.back() != hi) v.push_back(hi);
  return v;
}

void check(QEwOp op, QEwConvention c) {
  long long checked = 0;
  for (Config cfg : configs(op)) {
    if (c == QEwConvention::OnnxRuntime) cfg.p.y_min.reset(), cfg.p.y_max.reset();  // no fused clamp
    const auto hw = models::hw_element(op, c, cfg.p);
    ASSERT_TRUE(hw) << cfg.name << ": the engine rejects the configuration";
    const auto cs = codes(cfg.p.type);
    const auto n = static_cast<long long>(cs.size());
    const bool square = op == QEwOp::Add && c == QEwConvention::OnnxRuntime;
    IntArray a(square ? Shape{n, n} : Shape{n, 1}), b(square ? Shape{n, n} : Shape{1, n});
    for (long long i = 0; i < n; ++i)
      for (long long j = 0; j < n; ++j) {
        if (square) {
          a.data[static_cast<std::size_t>(i * n + j)] = Int(cs[static_cast<std::size_t>(i)]);
          b.data[static_cast<std::size_t>(i * n + j)] = Int(cs[static_cast<std::size_t>(j)]);
        } else if (j == 0) {
          a.data[static_cast<std::size_t>(i)] = Int(cs[static_cast<std::size_t>(i)]);
          b.data[static_cast<std::size_t>(i)] = Int(cs[static_cast<std::size_t>(i)]);
        }
      }
    const IntArray y = qlinear_elementwise(op, a, b, cfg.p, c);
    ASSERT_EQ(y.data.size(), static_cast<std::size_t>(n * n));
    for (long long i = 0; i < n; ++i)
      for (long long j = 0; j < n; ++j) {
        const long long got = static_cast<long long>(y.data[static_cast<std::size_t>(i * n + j)]);
        const long long want = hw(cs[static_cast<std::size_t>(i)], cs[static_cast<std::size_t>(j)]);
        ASSERT_EQ(got, want) << cfg.name << ": A = " << cs[static_cast<std::size_t>(i)]
                             << ", B = " << cs[static_cast<std::size_t>(j)];
        ++checked;
      }
  }
  ::testing::Test::RecordProperty("pairs_checked", std::to_string(checked));
  EXPECT_GT(checked, 0);
}

TEST(qlinear_add_xnnpack_fp32, EveryCodePairEqualsTheHardwareTransliteration) {
  check(QEwOp::Add, QEwConvention::XnnpackFp32);
}
TEST(qlinear_add_onnxruntime, EveryCodePairEqualsTheHardwareTransliteration) {
  check(QEwOp::Add, QEwConvention::OnnxRuntime);
}
TEST(qlinear_add_tflite_double_round, EveryCodePairEqualsTheHardwareTransliteration) {
  check(QEwOp::Add, QEwConvention::TfliteDoubleRound);
}
TEST(qlinear_add_tflite_single_round, EveryCodePairEqualsTheHardwareTransliteration) {
  check(QEwOp::Add, QEwConvention::TfliteSingleRound);
}
TEST(qlinear_mul_xnnpack_fp32, EveryCodePairEqualsTheHardwareTransliteration) {
  check(QEwOp::Mul, QEwConvention::XnnpackFp32);
}
TEST(qlinear_mul_onnxruntime, EveryCodePairEqualsTheHardwareTransliteration) {
  check(QEwOp::Mul, QEwConvention::OnnxRuntime);
}
TEST(qlinear_mul_tflite_double_round, EveryCodePairEqualsTheHardwareTransliteration) {
  check(QEwOp::Mul, QEwConvention::TfliteDoubleRound);
}
TEST(qlinear_mul_tflite_single_round, EveryCodePairEqualsTheHardwareTransliteration) {
  check(QEwOp::Mul, QEwConvention::TfliteSingleRound);
}

// qlinear.concat: every code of one input through the operator, for several (s_x, z_x, s_y, z_y),
// against the hardware transliteration of the engine's requantization.
void check_concat(QConcatConvention c) {
  long long checked = 0;
  const std::uint32_t scales[][2] = {{0x3f000000u, 0x3f800000u},   // s_x / s_y = 1/2: ties
                                     {0x3c23d70au, 0x3c8f5c29u},   // long mantissas
                                     {0x40400000u, 0x3f800000u},   // 3: saturation
                                     {0x3b9a6b51u, 0x3a83126fu}};  // about 1.18
  for (DType t : {DType::I8, DType::U8}) {
    if (c == QConcatConvention::TfliteReference && t == DType::I8) continue;  // int8: copies only
    for (const auto& s : scales)
      for (long long zx : {t == DType::I8 ? -5LL : 3LL, t == DType::I8 ? 100LL : 200LL}) {
        QConcatParams p;
        p.type = t;
        p.input_types = {t};
        p.x_scales = {s[0]}, p.x_zero_points = {Int(zx)}, p.y_scale = s[1];
        p.y_zero_point = Int(t == DType::I8 ? 7 : 131);
        const auto cs = codes(t);
        IntArray x({static_cast<long long>(cs.size())});
        for (std::size_t i = 0; i < cs.size(); ++i) x.data[i] = Int(cs[i]);
        const IntArray y = qlinear_concat({x}, 0, p, c);
        const float sx = std::bit_cast<float>(s[0]), sy = std::bit_cast<float>(s[1]);
        for (std::size_t i = 0; i < cs.size(); ++i) {
          const long long want =
              c == QConcatConvention::OnnxRuntime
                  ? qspec::qlinear_ew_hw::ort_concat(t == DType::U8, sx, zx, sy, static_cast<long long>(p.y_zero_point),
                                                     cs[i])
                  : qspec::qlinear_ew_hw::tfl_concat(sx, zx, sy, static_cast<long long>(p.y_zero_point), cs[i]);
          ASSERT_EQ(static_cast<long long>(y.data[i]), want) << "x = " << cs[i] << ", z_x = " << zx;
          ++checked;
        }
      }
  }
  ::testing::Test::RecordProperty("codes_checked", std::to_string(checked));
  EXPECT_GT(checked, 0);
}

TEST(qlinear_concat_onnxruntime, EveryCodeEqualsTheHardwareTransliteration) {
  check_concat(QConcatConvention::OnnxRuntime);
}
TEST(qlinear_concat_tflite_reference, EveryCodeEqualsTheHardwareTransliteration) {
  check_concat(QConcatConvention::TfliteReference);
}

}  // namespace
