// qlinear.mul kernels: the scalar form (mul_one) against hand-derived values of each convention's
// arithmetic (its roundings, its ties, where the zero point is added, TFLite's left shifts), the
// ymm (AVX2) and zmm kernels against the scalar form over random parameters, random codes, every
// length 0..65 and longer ones, and every code pair; and the add / mul handlers on the broadcasts
// that run the kernels (a scalar, a per-channel row, a trailing block, on either side) and one that
// does not, against an element loop indexed here.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "qspec/catalogue/keys.h"
#include "qspec/core/attr.h"
#include "qspec/simd/avx2_backend.h"
#include "qspec/simd/avx2_kernels.h"
#include "elementwise_kernel_tester.h"
#include "qspec/simd/cpu.h"

namespace qspec::simd {
namespace {

using K = MulParams::Kind;

MulParams base(K kind, bool u8) { return ew_testing::base_params<MulParams>(kind, u8); }

// XNNPACK (and ATen): rne of fl32(p) s, then + z_y: a tie rounds to even before the zero point.
TEST(qlinear_mul_scalar, XnnpackRoundsThenAddsZeroPoint) {
  MulParams p = base(K::kXnnpack, false);
  p.s = 0.5f;
  EXPECT_EQ(mul_one(p, 3, 3), 4);     // 4.5
  EXPECT_EQ(mul_one(p, 5, 3), 8);     // 7.5
  EXPECT_EQ(mul_one(p, -3, 3), -4);   // -4.5
  EXPECT_EQ(mul_one(p, 127, 127), 127);  // 8064.5: clamped
  p.zy = 1;
  EXPECT_EQ(mul_one(p, 3, 3), 5);  // 4 + 1
  p.za = 2, p.zb = -1;
  EXPECT_EQ(mul_one(p, 5, 2), 5);  // 3 * 3 = 9: 4.5 -> 4, + 1
}

// ONNX Runtime adds fl32(z_y) before rounding: 4.5 + 1 = 5.5 -> 6 where XNNPACK gives 5.
TEST(qlinear_mul_scalar, OnnxRuntimeAddsZeroPointBeforeRounding) {
  MulParams p = base(K::kOrt, false);
  p.s = 0.5f, p.zy = 1;
  EXPECT_EQ(mul_one(p, 3, 3), 6);
  EXPECT_EQ(mul_one(p, -3, 3), -4);  // -4.5 + 1 = -3.5: ties to even
  EXPECT_EQ(mul_one(p, 127, 127), 127);  // 8065.5: saturated
}

// TFLite with M = 2^30, e = -1 (a real multiplier 1/4): double rounding (SRDHM then RDBPOT) takes
// p = 5 (1.25) to 2 and p = -6 (-1.5) to -2; single rounding floor((p 2^30 + 2^31) / 2^32) gives
// 1 and -1. With e = 1 and M = 3 2^29 (1.5), both give 5 for p = 3 (4.5) and -4 for p = -3.
TEST(qlinear_mul_scalar, TfliteDoubleAndSingleRounding) {
  for (K kind : {K::kTfliteDouble, K::kTfliteSingle}) {
    const bool dbl = kind == K::kTfliteDouble;
    MulParams p = base(kind, false);
    p.m = 1 << 30, p.e = -1;
    EXPECT_EQ(mul_one(p, 5, 1), dbl ? 2 : 1);
    EXPECT_EQ(mul_one(p, -3, 2), dbl ? -2 : -1);
    EXPECT_EQ(mul_one(p, 3, 2), 2);  // 1.5
    p.m = 3 << 29, p.e = 1;
    EXPECT_EQ(mul_one(p, 3, 1), 5);
    EXPECT_EQ(mul_one(p, -3, 1), -4);
    p.m = 1 << 30, p.zy = 7, p.za = -100, p.zb = 100;
    EXPECT_EQ(mul_one(p, -99, 101), 8);  // 1 * 1 * 1 + 7
    EXPECT_EQ(mul_one(p, 27, 0), -128);  // 127 * -100 = -12700: clamped
  }
}

// oneDNN: fl32(a s) times b, + z_y, all binary32, the clamp in float before rne.
TEST(qlinear_mul_scalar, OnednnFloatSteps) {
  MulParams p = base(K::kOnednn, true);
  p.s = 0.5f, p.zy = 3, p.lo = 2, p.hi = 200;
  EXPECT_EQ(mul_one(p, 3, 3), 8);        // 4.5 + 3 = 7.5
  EXPECT_EQ(mul_one(p, 1, 3), 4);        // 1.5 + 3 = 4.5
  EXPECT_EQ(mul_one(p, 7, 1), 6);        // 3.5 + 3 = 6.5
  EXPECT_EQ(mul_one(p, 255, 255), 200);  // 32512.5 + 3: clamped
  p.zy = 0, p.lo = 5;
  EXPECT_EQ(mul_one(p, 9, 1), 5);  // 4.5 clamped to 5 (with integer bounds the same as rne, then the clamp)
}

nlohmann::ordered_json mul_attrs(float sa, float sb, float sy, int za, int zb, int zy) {
  using A = cat::qlinear_mul::attr;
  nlohmann::ordered_json at;
  attr::set(at, A::a_scale, std::bit_cast<std::uint32_t>(sa));
  attr::set(at, A::a_zero_point, za);
  attr::set(at, A::b_scale, std::bit_cast<std::uint32_t>(sb));
  attr::set(at, A::b_zero_point, zb);
  attr::set(at, A::y_scale, std::bit_cast<std::uint32_t>(sy));
  attr::set(at, A::y_zero_point, zy);
  return at;
}

// The spec's multiplier trap (qlinear.mul.pytorch_onednn): s_a s_b = 21/8, s_y = 7. ATen multiplies
// by fl32(1/7): M = 3/8 + 2^-25 and p = 12 gives 4.5 + 3 2^-23, which rounds to 4.5 + 2^-21 -> 5;
// XNNPACK's quotient is 3/8 exactly, 4.5 -> 4. (uint8: ATen's own kernel under both dtypes' rules.)
TEST(qlinear_mul_scalar, PytorchMultipliesByTheReciprocal) {
  const auto at = mul_attrs(3.5f, 0.75f, 7.0f, 0, 0, 0);
  const auto torch = prepared_mul(cat::qlinear_mul::conv::pytorch_onednn, at, QSPEC_DTYPE_UINT8);
  const auto xnn = prepared_mul(cat::qlinear_mul::conv::xnnpack_fp32, at, QSPEC_DTYPE_UINT8);
  ASSERT_TRUE(torch && xnn);
  EXPECT_EQ(torch->s, 0.375f + 0x1.0p-25f);
  EXPECT_EQ(xnn->s, 0.375f);
  EXPECT_EQ(mul_one(*torch, 12, 1), 5);
  EXPECT_EQ(mul_one(*xnn, 12, 1), 4);
}

// Random parameters of each kind inside the kernels' precondition (MulParams::fast).
MulParams random_params(K kind, bool u8, std::mt19937& g) {
  MulParams p = base(kind, u8);
  const auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(g); };
  const auto logu = [&](float lo2, float hi2) {
    return std::exp2(std::uniform_real_distribution<float>(lo2, hi2)(g));
  };
  const int clo = u8 ? 0 : -128, chi = u8 ? 255 : 127;
  ew_testing::draw_zero_points_and_clamp(p, u8, g);
  switch (kind) {
    case K::kXnnpack: p.s = logu(-16, 7.9f); break;
    case K::kOrt:
      p.s = logu(-16, 12);
      p.lo = clo, p.hi = chi;
      break;
    case K::kTfliteDouble:
    case K::kTfliteSingle:
      p.m = uni(1 << 30, INT32_MAX);
      p.e = uni(-31, 14);  // 2^e |p| < 2^30
      if (uni(0, 1) == 1) p.e = uni(-16, -6);  // results inside the dtype more often
      break;
    case K::kOnednn:
      p.za = p.zb = 0;
      p.s = logu(-16, 4);
      break;
  }
  // A power of two in one draw of three: products that tie, where the rounding's place matters.
  if (uni(0, 2) == 0) p.s = std::exp2(std::round(std::log2(p.s)));
  return p;
}

std::string name(K kind) {
  switch (kind) {
    case K::kXnnpack: return "xnnpack";
    case K::kOrt: return "onnxruntime";
    case K::kTfliteDouble: return "tflite.double_round";
    case K::kTfliteSingle: return "tflite.single_round";
    case K::kOnednn: return "onednn";
  }
  return "?";
}

constexpr K kKinds[] = {K::kXnnpack, K::kOrt, K::kTfliteDouble, K::kTfliteSingle, K::kOnednn};

// The kernels this CPU can run: ymm (AVX2) and zmm (AVX512F + BW + VL).
using Kernel = ew_testing::NamedKernel<MulFn>;
std::vector<Kernel> kernels() {
  const CpuFeatures f = detect_cpu_features();
  std::vector<Kernel> v;
  if (f.avx2) v.push_back({"ymm", avx2::qlinear_mul});
  if (f.zmm) v.push_back({"zmm", avx2::qlinear_mul_zmm});
  return v;
}

TEST(qlinear_mul_avx2, MatchesScalarOnEveryTail) {
  if (kernels().empty()) GTEST_SKIP() << "this CPU lacks AVX2";
  ew_testing::for_each_draw(
      kKinds, 40, 20261127, name, [](K k, bool u8, int, std::mt19937& g) { return random_params(k, u8, g); },
      [](const MulParams& p, std::mt19937& g, const std::string& what) {
        ew_testing::expect_scalar_on_lengths(kernels(), &mul_scalar, p, ew_testing::tail_lengths(), g, what);
      });
}

// Every code pair once (65536 elements) for each kind and dtype, with random parameter sets and the
// extremes of the precondition: the largest products (zero points at the dtype's ends) and, for
// TFLite, the largest left shift the handler lets through.
TEST(qlinear_mul_avx2, MatchesScalarOnEveryCodePair) {
  if (kernels().empty()) GTEST_SKIP() << "this CPU lacks AVX2";
  ew_testing::for_each_draw(
      kKinds, 6, 7, name,
      [](K kind, bool u8, int draw, std::mt19937& g) {
        MulParams p = random_params(kind, u8, g);
        if (draw == 0 && kind != K::kOnednn) p.za = u8 ? 255 : -128, p.zb = u8 ? 0 : 127;  // |p| = 255^2
        if (draw == 0 && (kind == K::kTfliteDouble || kind == K::kTfliteSingle)) p.e = 14, p.m = INT32_MAX;
        return p;
      },
      [](const MulParams& p, std::mt19937&, const std::string& what) {
        ew_testing::expect_scalar_on_every_code_pair(kernels(), &mul_scalar, p, what);
      });
}

// Where the zero point is added (XnnpackRoundsThenAddsZeroPoint, OnnxRuntimeAddsZeroPointBeforeRounding)
// in the kernels: 40 elements (a vector step, and a tail or a masked step) of 3 * 3 * 0.5 + 1.
TEST(qlinear_mul_avx2, ZeroPointAfterOrBeforeTheRounding) {
  if (kernels().empty()) GTEST_SKIP() << "this CPU lacks AVX2";
  for (K kind : {K::kXnnpack, K::kOrt}) {
    MulParams p = base(kind, false);
    p.s = 0.5f, p.zy = 1;
    const std::vector<std::uint8_t> a(40, 3), b(40, 3);
    for (const Kernel& k : kernels()) {
      std::vector<std::uint8_t> y(40);
      k.fn(p, a.size(), a.data(), b.data(), y.data());
      EXPECT_EQ(y, std::vector<std::uint8_t>(40, kind == K::kXnnpack ? 5 : 6)) << k.name << " " << name(kind);
    }
  }
}

// ---- the handlers' broadcasts ----

// The row-major strides of `shape` padded to the output's rank, 0 on a broadcast axis.
std::vector<std::size_t> strides(const std::vector<std::int64_t>& shape, const std::vector<std::int64_t>& out) {
  const std::size_t pad = out.size() - shape.size();
  std::vector<std::size_t> s(out.size(), 0);
  std::size_t m = 1;
  for (std::size_t j = out.size(); j-- > pad;) {
    const auto d = static_cast<std::size_t>(shape[j - pad]);
    s[j] = d == 1 ? 0 : m;
    m *= d;
  }
  return s;
}

struct Case {
  std::vector<std::int64_t> a, b, out;
};

// Runs the handler of (op, conv) with kernel set k on random int8 codes of the case's shapes and
// compares each output element with one(a[ia], b[ib]), the indices from the strides above.
template <class One>
void check_broadcast(const KernelSet& k, std::string_view op, std::string_view conv, const nlohmann::ordered_json& at,
                     const Case& c, const One& one, std::mt19937& g) {
  const OpEntry* e = nullptr;
  for (const OpEntry& x : op_table())
    if (x.op == op && x.convention == conv) e = &x;
  ASSERT_NE(e, nullptr);
  const auto count = [](const std::vector<std::int64_t>& s) {
    std::size_t n = 1;
    for (auto d : s) n *= static_cast<std::size_t>(d);
    return n;
  };
  std::uniform_int_distribution<int> byte(0, 255);
  std::vector<std::int8_t> a(count(c.a)), b(count(c.b)), y(count(c.out), 0x5A);
  for (auto& v : a) v = static_cast<std::int8_t>(byte(g));
  for (auto& v : b) v = static_cast<std::int8_t>(byte(g));
  qspec_tensor in[2] = {{"a", QSPEC_DTYPE_INT8, static_cast<std::int32_t>(c.a.size()), c.a.data(), a.data(), a.size()},
                        {"b", QSPEC_DTYPE_INT8, static_cast<std::int32_t>(c.b.size()), c.b.data(), b.data(), b.size()}};
  qspec_tensor out{"y", QSPEC_DTYPE_INT8, static_cast<std::int32_t>(c.out.size()), c.out.data(), y.data(), y.size()};
  OpCall call{k, at, in, 2, &out, 1};
  e->fn(call);
  const std::vector<std::size_t> sa = strides(c.a, c.out), sb = strides(c.b, c.out);
  std::vector<std::int64_t> idx(c.out.size(), 0);
  for (std::size_t i = 0; i < y.size(); ++i) {
    std::size_t ia = 0, ib = 0;
    for (std::size_t j = 0; j < idx.size(); ++j) ia += static_cast<std::size_t>(idx[j]) * sa[j], ib += static_cast<std::size_t>(idx[j]) * sb[j];
    ASSERT_EQ(y[i], one(a[ia], b[ib])) << k.isa << " " << op << " " << conv << " element " << i << " of "
                                       << y.size();
    for (std::size_t j = idx.size(); j-- > 0;)
      if (++idx[j] < c.out[j]) break; else idx[j] = 0;
  }
}

// Each level's kernel set this CPU has: the best, and AVX2 alone (the ymm kernels).
std::vector<KernelSet> levels() {
  const CpuFeatures f = detect_cpu_features();
  std::string problem;
  return {avx2::kernel_set(f), avx2::kernel_set(cap_cpu_features(f, "avx2", &problem))};
}

// A scalar, a per-channel row (shorter and longer than the 256-code tile), a trailing block, the
// same shape in different ranks, the repeating operand on either side; and [6, 1] x [1, 33], which
// repeats neither operand (the element loop).
const Case kCases[] = {{{3, 70}, {70}, {3, 70}},          {{5, 300}, {300}, {5, 300}},
                       {{1}, {2, 3, 67}, {2, 3, 67}},     {{4, 5, 6}, {}, {4, 5, 6}},
                       {{2, 3, 17}, {3, 17}, {2, 3, 17}}, {{33}, {2, 33}, {2, 33}},
                       {{1, 97}, {97}, {1, 97}},          {{9, 3}, {1, 3}, {9, 3}},
                       {{600}, {1}, {600}},               {{6, 1}, {1, 33}, {6, 33}}};

TEST(qlinear_mul_avx2, BroadcastsMatchTheElementLoop) {
  using M = cat::qlinear_mul;
  std::mt19937 g(3);
  const auto at = mul_attrs(0.0371f, 0.0518f, 0.0029f, -3, 5, -2);
  for (const KernelSet& k : levels())
    for (std::string_view conv : {M::conv::xnnpack_fp32, M::conv::onnxruntime, M::conv::tflite_double_round,
                                  M::conv::tflite_single_round, M::conv::pytorch_onednn})
      for (const Case& c : kCases) {
        const auto q = prepared_mul(conv, at, QSPEC_DTYPE_INT8);
        ASSERT_TRUE(q && q->fast);
        check_broadcast(k, M::op, conv, at, c, [&](std::int8_t a, std::int8_t b) { return mul_one(*q, a, b); }, g);
      }
}

TEST(qlinear_add_avx2, BroadcastsMatchTheElementLoop) {
  using A = cat::qlinear_add;
  std::mt19937 g(4);
  const auto at = mul_attrs(0.0371f, 0.0518f, 0.0729f, -3, 5, -2);  // the same attribute names
  for (const KernelSet& k : levels())
    for (std::string_view conv : {A::conv::xnnpack_fp32, A::conv::tflite_double_round, A::conv::tflite_single_round,
                                  A::conv::pytorch_onednn})
      for (const Case& c : kCases) {
        const auto q = prepared_add(conv, at, QSPEC_DTYPE_INT8);
        ASSERT_TRUE(q && q->fast);
        check_broadcast(k, A::op, conv, at, c, [&](std::int8_t a, std::int8_t b) { return add_one(*q, a, b); }, g);
      }
}

}  // namespace
}  // namespace qspec::simd
