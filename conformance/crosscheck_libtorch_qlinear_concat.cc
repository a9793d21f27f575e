// Cross-check of PyTorch 1.13's quantized::cat / torch.cat and quantized::leaky_relu / leaky_relu
// (Debian libtorch 1.13.1) against qlinear.concat.pytorch_onednn and qlinear.leaky_relu.pytorch_onednn
// through the reference, under the onednn and the qnnpack engine (neither operator looks at it):
// - concat: contiguous inputs of rank 1 to 4 along any axis (the generic path: dequantize, at::cat,
//   quantize_per_tensor) and 4-D channels-last inputs along dim 1 with fewer than 8 channels each
//   (qcat_nhwc_kernel's scalar tail), explicit output parameters or torch.cat's (the first input's);
// - leaky ReLU: tensors of fewer than 64 elements (cpu_kernel_vec's scalar path), explicit output
//   parameters (quantized::leaky_relu) or the input's (at::leaky_relu);
// - the vector paths (qcat_nhwc_kernel's channel blocks, cpu_kernel_vec's 64/128-element blocks)
//   dequantize with an FMA (E-LIBTORCH-EW-4): every output is the clause's or the FMA's, all the
//   clause's at ATEN_CPU_CAPABILITY=default (run the binary by hand at default, avx2 and avx512);
// - QNNPACK's leaky ReLU table is not used under the qnnpack engine.
// quint8 and qint8; random scales and tie-rich ones (dyadic ratios: the last rounding meets k + 1/2).
// Skipped (GTEST_SKIP, reported as SKIP by CTest) without the engine.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "qspec/ref/exact.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear_concat.h"
#include "qspec/ref/ops/qlinear_lut.h"
#include "qspec/ref/rounding.h"

namespace {

using namespace qspec::ref;
using namespace qspec::ref::ops;

c10::IValue call_op(const char* name, std::vector<c10::IValue> args) {
  const c10::OperatorHandle op = c10::Dispatcher::singleton().findSchemaOrThrow(name, "");
  torch::jit::Stack stack(std::move(args));
  op.callBoxed(&stack);
  return stack.at(0);
}

bool engine_available(at::QEngine want) {
  const auto& engines = at::globalContext().supportedQEngines();
  return std::find(engines.begin(), engines.end(), want) != engines.end();
}

const char* capability() {
  const char* cap = std::getenv("ATEN_CPU_CAPABILITY");
  return cap ? cap : "(unset)";
}

at::Tensor quantized(const IntArray& v, DType t, std::uint32_t scale, const Int& zp) {
  std::vector<std::int64_t> shape(v.shape.begin(), v.shape.end());
  at::Tensor raw = at::empty(shape, t == DType::U8 ? at::kByte : at::kChar);
  for (std::size_t k = 0; k < v.data.size(); ++k) {
    const auto x = static_cast<long long>(v.data[k]);
    if (t == DType::U8)
      raw.data_ptr<std::uint8_t>()[k] = static_cast<std::uint8_t>(x);
    else
      raw.data_ptr<std::int8_t>()[k] = static_cast<std::int8_t>(x);
  }
  return at::_make_per_tensor_quantized_tensor(raw, static_cast<double>(std::bit_cast<float>(scale)),
                                               static_cast<std::int64_t>(static_cast<long long>(zp)));
}

// The codes of a quantized result in its logical (row-major) order, whatever its memory format.
std::vector<long long> codes_of(const at::Tensor& y) {
  const at::Tensor r = y.int_repr().to(at::kLong).contiguous();
  return {r.data_ptr<std::int64_t>(), r.data_ptr<std::int64_t>() + r.numel()};
}

std::uint32_t random_scale(std::mt19937_64& g, int e) {
  return (static_cast<std::uint32_t>(127 + e) << 23) | static_cast<std::uint32_t>(g() & 0x7fffffu);
}

// dequantize_val's FMA form on the vector paths: fma(s, q, fl32(s * -z)).
std::uint32_t fma_dequantize(std::uint32_t s, const Int& q, const Int& z) {
  const std::uint32_t premul = f32_mul(s, f32_from_int(-z));
  return f32_round(f32_value(s) * Rat(q) + f32_value(premul));
}

// Native binary32 twins of the two dequantizations and of the requantization, for fast searches
// (the counts use the exact models).
float native_dequantize(float s, long long q, long long z) {
  return static_cast<float>(static_cast<double>(q - z) * static_cast<double>(s));
}
float native_fma_dequantize(float s, long long q, long long z) {
  const float premul = s * -static_cast<float>(z);
  return std::fmaf(s, static_cast<float>(q), premul);
}
float native_slope(float d, float alpha) {
  volatile float e = d > 0 ? d : d * alpha;
  return e;
}
float native_scaled(float e, float sy) {
  volatile float inv = 1.0f / sy;
  volatile float v = e * inv;
  return v;
}

struct Counts {
  long long problems = 0, outputs = 0, ties = 0, diffs = 0, channels_last = 0, torch_cat = 0;
};

// ---- concat ----

bool concat_tie(const QConcatParams& p, std::size_t i, const Int& x) {
  const std::uint32_t d = f32_mul(f32_from_int(x - p.x_zero_points[i]), p.x_scales[i]);
  return denominator(f32_value(f32_mul(d, f32_div(0x3f800000u, p.y_scale)))) == 2;
}

void concat_sweep(at::QEngine engine, DType t, std::uint64_t seed, Counts& n) {
  at::globalContext().setQEngine(engine);
  at::set_num_threads(1);
  std::mt19937_64 g(seed);
  auto pick = [&](long long lo, long long hi) { return std::uniform_int_distribution<long long>(lo, hi)(g); };
  const Range r = int_range(t);
  const long long lo = static_cast<long long>(r.lo), hi = static_cast<long long>(r.hi);
  for (int it = 0; it < 150; ++it) {
    const bool tie_rich = it % 2 == 1;
    const bool channels_last = it % 3 == 2;                // 4-D, dim 1, channels-last: qcat_nhwc_kernel
    const bool torch_cat = !channels_last && it % 4 == 0;  // at::cat: the first input's parameters
    QConcatParams p;
    p.type = t;
    const int ey = static_cast<int>(pick(-9, -3));
    p.y_scale = tie_rich ? f32_round(Rat(2 * pick(0, 2) + 1) * pow2r(ey)) : random_scale(g, ey);
    p.y_zero_point = Int(pick(lo, hi));
    const std::size_t rank = channels_last ? 4 : static_cast<std::size_t>(pick(1, 4));
    const std::size_t ax = channels_last ? 1 : static_cast<std::size_t>(pick(0, static_cast<long long>(rank) - 1));
    Shape base;
    for (std::size_t d = 0; d < rank; ++d) base.push_back(pick(1, 3));
    std::vector<IntArray> xs;
    const long long inputs = pick(1, 4);
    for (long long k = 0; k < inputs; ++k) {
      Shape s = base;
      s[ax] = channels_last ? pick(1, 7) : pick(1, 3);
      IntArray x(s);
      for (auto& v : x.data) v = Int(pick(lo, hi));
      xs.push_back(x);
      p.input_types.push_back(t);
      if (pick(0, 4) == 0) {  // the output's parameters: qcat_nhwc_kernel's memcpy
        p.x_scales.push_back(p.y_scale), p.x_zero_points.push_back(p.y_zero_point);
      } else {
        p.x_scales.push_back(tie_rich ? f32_round(Rat(2 * pick(0, 4) + 1) * pow2r(ey - static_cast<int>(pick(0, 3))))
                                      : random_scale(g, ey + static_cast<int>(pick(-2, 2))));
        p.x_zero_points.emplace_back(pick(lo, hi));
      }
    }
    if (torch_cat) p.y_scale = p.x_scales[0], p.y_zero_point = p.x_zero_points[0];
    const long long axis =
        pick(0, 1) == 0 ? static_cast<long long>(ax) : static_cast<long long>(ax) - static_cast<long long>(rank);
    const IntArray want = qlinear_concat(xs, axis, p, QConcatConvention::PytorchOnednn);
    c10::List<at::Tensor> list;
    std::vector<at::Tensor> tensors;
    for (std::size_t k = 0; k < xs.size(); ++k) {
      at::Tensor q = quantized(xs[k], t, p.x_scales[k], p.x_zero_points[k]);
      if (channels_last) q = q.contiguous(at::MemoryFormat::ChannelsLast);
      list.push_back(q);
      tensors.push_back(q);
    }
    const at::Tensor y =
        torch_cat ? at::cat(tensors, axis)
                  : call_op("quantized::cat", {list, static_cast<std::int64_t>(axis),
                                               static_cast<double>(std::bit_cast<float>(p.y_scale)),
                                               static_cast<std::int64_t>(static_cast<long long>(p.y_zero_point))})
                        .toTensor();
    ++n.problems;
    n.channels_last += channels_last ? 1 : 0;
    n.torch_cat += torch_cat ? 1 : 0;
    const auto got = codes_of(y);
    ASSERT_EQ(got.size(), want.data.size());
    for (std::size_t i = 0; i < xs.size(); ++i)
      for (const auto& x : xs[i].data) n.ties += concat_tie(p, i, x) ? 1 : 0;
    for (std::size_t k = 0; k < got.size(); ++k) {
      ++n.outputs;
      if (Int(got[k]) != want.data[k] && ++n.diffs <= 5)
        ADD_FAILURE() << "problem " << it << " element " << k << ": libtorch " << got[k] << ", clause " << want.data[k];
    }
  }
}

void concat_run(at::QEngine engine, const char* name, std::uint64_t seed) {
  if (!engine_available(engine)) GTEST_SKIP() << "this libtorch build has no " << name << " engine";
  for (const DType t : {DType::U8, DType::I8}) {
    Counts n;
    concat_sweep(engine, t, seed + (t == DType::U8 ? 0 : 1), n);
    std::printf(
        "libtorch %s cat %s (ATEN_CPU_CAPABILITY=%s): %lld problems (%lld channels-last, %lld torch.cat), %lld "
        "outputs, %lld exact ties, %lld differences\n",
        name, t == DType::U8 ? "quint8" : "qint8", capability(), n.problems, n.channels_last, n.torch_cat, n.outputs,
        n.ties, n.diffs);
    EXPECT_EQ(n.diffs, 0);
    EXPECT_EQ(n.problems, 150);
  }
}

TEST(crosscheck_libtorch_qlinear_concat, OnednnCatIsTheClause) { concat_run(at::QEngine::ONEDNN, "onednn", 1791); }
TEST(crosscheck_libtorch_qlinear_concat, QnnpackCatIsTheClause) { concat_run(at::QEngine::QNNPACK, "qnnpack", 1793); }

// Rejections the clause states: an output zero point outside T on the generic path, mixed dtypes.
TEST(crosscheck_libtorch_qlinear_concat, RejectsWhatTheClauseRejects) {
  if (!engine_available(at::QEngine::ONEDNN)) GTEST_SKIP() << "this libtorch build has no onednn engine";
  at::globalContext().setQEngine(at::QEngine::ONEDNN);
  IntArray x(Shape{2, 3});
  for (std::size_t k = 0; k < x.data.size(); ++k) x.data[k] = Int(static_cast<long long>(k));
  c10::List<at::Tensor> same;
  same.push_back(quantized(x, DType::U8, 0x3f000000u, Int(3)));
  same.push_back(quantized(x, DType::U8, 0x3f000000u, Int(3)));
  EXPECT_ANY_THROW(call_op("quantized::cat", {same, std::int64_t{1}, 1.0, std::int64_t{300}}));
  c10::List<at::Tensor> mixed;
  mixed.push_back(quantized(x, DType::U8, 0x3f000000u, Int(3)));
  mixed.push_back(quantized(x, DType::I8, 0x3f000000u, Int(3)));
  EXPECT_ANY_THROW(call_op("quantized::cat", {mixed, std::int64_t{1}, 1.0, std::int64_t{3}}));
  QConcatParams p;
  p.type = DType::U8;
  p.input_types = {DType::U8, DType::I8};
  p.x_scales = {0x3f000000u, 0x3f000000u};
  p.x_zero_points = {Int(3), Int(3)};
  IntArray xi = x;
  EXPECT_THROW(qlinear_concat({x, xi}, 1, p, QConcatConvention::PytorchOnednn), ErrorIf);
}

// E-LIBTORCH-EW-4: qcat_nhwc_kernel's channel blocks dequantize with fma(s, q, fl32(s * -z)). Inputs
// whose codes requantize differently under the two, 64 channels channels-last: every output is one
// of the two, all the clause's at capability default.
TEST(crosscheck_libtorch_qlinear_concat, ChannelsLastVectorPathDequantizesWithAnFma) {
  if (!engine_available(at::QEngine::ONEDNN)) GTEST_SKIP() << "this libtorch build has no onednn engine";
  at::globalContext().setQEngine(at::QEngine::ONEDNN);
  at::set_num_threads(1);
  std::mt19937_64 g(1795);
  long long outputs = 0, clause = 0, fma = 0, neither = 0, problems = 0;
  for (int it = 0; it < 200000 && problems < 6; ++it) {
    QConcatParams p;
    p.type = DType::U8;
    p.input_types = {DType::U8};
    // s_y = 2 s_x: (x - z_x) / 2 is an exact half for odd differences, which the two dequantizations'
    // errors push to either side (E-LIBTORCH-EW-1's 0.1f / 0.2f).
    p.x_scales = {random_scale(g, -5)};
    p.x_zero_points = {Int(static_cast<long long>(g() % 256))};
    p.y_scale = f32_mul(p.x_scales[0], 0x40000000u);
    p.y_zero_point = Int(static_cast<long long>(g() % 256));
    const auto clause_map = qlinear_concat_pytorch_map(p, 0);
    const std::uint32_t inv = f32_div(0x3f800000u, p.y_scale);
    const auto fma_code = [&](const Int& x) {
      const std::uint32_t d = fma_dequantize(p.x_scales[0], x, p.x_zero_points[0]);
      return saturate(round_half_even(f32_value(f32_mul(d, inv))) + p.y_zero_point, Range{0, 255});
    };
    // (the search below runs on native binary32)
    const float sx = std::bit_cast<float>(p.x_scales[0]), sy = std::bit_cast<float>(p.y_scale);
    const auto zx = static_cast<long long>(p.x_zero_points[0]);
    std::vector<Int> differing;
    const auto zy = static_cast<long long>(p.y_zero_point);
    const auto code = [&](float v) { return std::clamp(static_cast<long long>(std::nearbyint(v)) + zy, 0LL, 255LL); };
    for (long long x = 0; x < 256; ++x)
      if (code(native_scaled(native_dequantize(sx, x, zx), sy)) !=
          code(native_scaled(native_fma_dequantize(sx, x, zx), sy)))
        differing.emplace_back(x);
    if (differing.empty()) continue;
    ++problems;
    IntArray x(Shape{1, 64, 1, 2});
    for (std::size_t k = 0; k < x.data.size(); ++k) x.data[k] = differing[k % differing.size()];
    c10::List<at::Tensor> list;
    list.push_back(
        quantized(x, DType::U8, p.x_scales[0], p.x_zero_points[0]).contiguous(at::MemoryFormat::ChannelsLast));
    const auto got =
        codes_of(call_op("quantized::cat", {list, std::int64_t{1}, static_cast<double>(std::bit_cast<float>(p.y_scale)),
                                            static_cast<std::int64_t>(static_cast<long long>(p.y_zero_point))})
                     .toTensor());
    for (std::size_t k = 0; k < got.size(); ++k) {
      const Int v(got[k]);
      const bool is_clause = v == clause_map(x.data[k]), is_fma = v == fma_code(x.data[k]);
      ++outputs, clause += is_clause ? 1 : 0, fma += is_fma ? 1 : 0, neither += !is_clause && !is_fma ? 1 : 0;
    }
  }
  std::printf(
      "ATen channels-last cat (ATEN_CPU_CAPABILITY=%s): %lld problems, %lld outputs where the two dequantizations "
      "differ: %lld the clause's, %lld the FMA's, %lld neither\n",
      capability(), problems, outputs, clause, fma, neither);
  ASSERT_EQ(problems, 6);
  EXPECT_EQ(neither, 0);
  if (std::string(capability()) == "default") {
    EXPECT_EQ(clause, outputs);
  }
}

// ---- leaky ReLU ----

at::Tensor run_leaky(const IntArray& x, std::uint32_t alpha, const QPoolParams& p, bool given) {
  const at::Tensor qx = quantized(x, p.type, p.x_scale, p.x_zero_point);
  const at::Scalar slope(static_cast<double>(std::bit_cast<float>(alpha)));
  if (!given) return at::leaky_relu(qx, slope);
  return call_op("quantized::leaky_relu", {qx, slope, false, static_cast<double>(std::bit_cast<float>(p.y_scale)),
                                           static_cast<std::int64_t>(static_cast<long long>(p.y_zero_point))})
      .toTensor();
}

bool leaky_tie(const Int& x, std::uint32_t alpha, const QPoolParams& p) {
  const std::uint32_t d = f32_mul(f32_from_int(x - p.x_zero_point), p.x_scale);
  const std::uint32_t e = f32_value(d) > 0 ? d : f32_mul(d, alpha);
  return denominator(f32_value(f32_mul(e, f32_div(0x3f800000u, p.y_scale)))) == 2;
}

void leaky_sweep(at::QEngine engine, DType t, std::uint64_t seed, Counts& n) {
  at::globalContext().setQEngine(engine);
  at::set_num_threads(1);
  std::mt19937_64 g(seed);
  auto pick = [&](long long lo, long long hi) { return std::uniform_int_distribution<long long>(lo, hi)(g); };
  const Range r = int_range(t);
  const long long lo = static_cast<long long>(r.lo), hi = static_cast<long long>(r.hi);
  for (int it = 0; it < 80; ++it) {
    const bool tie_rich = it % 2 == 1;
    const bool given = it % 4 != 0;  // else at::leaky_relu: the input's parameters
    QPoolParams p;
    p.type = t;
    const int ey = static_cast<int>(pick(-9, -3));
    p.y_scale = tie_rich ? f32_round(pow2r(ey)) : random_scale(g, ey);
    p.x_scale = tie_rich ? f32_round(Rat(2 * pick(0, 3) + 1) * pow2r(ey - static_cast<int>(pick(1, 3))))
                         : random_scale(g, ey + static_cast<int>(pick(-3, 2)));
    p.x_zero_point = Int(pick(lo, hi));
    p.y_zero_point = Int(pick(lo, hi));
    if (!given) p.y_scale = p.x_scale, p.y_zero_point = p.x_zero_point;
    std::uint32_t alpha = tie_rich ? f32_round(Rat(2 * pick(0, 3) + 1) * pow2r(-static_cast<int>(pick(2, 5))))
                                   : random_scale(g, -static_cast<int>(pick(0, 8)));
    if (pick(0, 7) == 0) alpha |= 0x80000000u;  // a negative slope
    IntArray x(Shape{pick(1, 63)});             // fewer than 64 elements: the scalar path
    for (auto& v : x.data) v = Int(pick(lo, hi));
    const IntArray want = qlinear_leaky_relu(x, alpha, p, QLutConvention::PytorchOnednn);
    const auto got = codes_of(run_leaky(x, alpha, p, given));
    ++n.problems;
    n.torch_cat += given ? 0 : 1;
    ASSERT_EQ(got.size(), want.data.size());
    for (std::size_t k = 0; k < got.size(); ++k) {
      ++n.outputs;
      n.ties += leaky_tie(x.data[k], alpha, p) ? 1 : 0;
      if (Int(got[k]) != want.data[k] && ++n.diffs <= 5)
        ADD_FAILURE() << "problem " << it << " element " << k << ": libtorch " << got[k] << ", clause " << want.data[k];
    }
  }
}

void leaky_run(at::QEngine engine, const char* name, std::uint64_t seed) {
  if (!engine_available(engine)) GTEST_SKIP() << "this libtorch build has no " << name << " engine";
  for (const DType t : {DType::U8, DType::I8}) {
    Counts n;
    leaky_sweep(engine, t, seed + (t == DType::U8 ? 0 : 1), n);
    std::printf(
        "libtorch %s leaky_relu %s (ATEN_CPU_CAPABILITY=%s): %lld problems (%lld at::leaky_relu), %lld outputs, %lld "
        "exact ties, %lld differences\n",
        name, t == DType::U8 ? "quint8" : "qint8", capability(), n.problems, n.torch_cat, n.outputs, n.ties, n.diffs);
    EXPECT_EQ(n.diffs, 0);
    EXPECT_EQ(n.problems, 80);
  }
}

TEST(crosscheck_libtorch_qlinear_concat, OnednnLeakyReluIsTheClause) { leaky_run(at::QEngine::ONEDNN, "onednn", 1801); }
TEST(crosscheck_libtorch_qlinear_concat, QnnpackLeakyReluIsTheClause) {
  leaky_run(at::QEngine::QNNPACK, "qnnpack", 1803);
}

// The inputs that a table built like pytorch_qnnp_create_leaky_relu_nc_q8 (qnnpack/src/leaky-relu.c:
// lrintf of fl32(fl32(s_x / s_y) (i - z_x)) times the slope, clamped in float first) would map
// elsewhere than the clause: under the qnnpack engine libtorch returns the clause's codes for all.
TEST(crosscheck_libtorch_qlinear_concat, QnnpackEngineDoesNotUseQnnpacksLeakyReluTable) {
  if (!engine_available(at::QEngine::QNNPACK)) GTEST_SKIP() << "this libtorch build has no qnnpack engine";
  at::globalContext().setQEngine(at::QEngine::QNNPACK);
  at::set_num_threads(1);
  std::mt19937_64 g(1805);
  long long outputs = 0, clause = 0, table = 0, problems = 0;
  for (int it = 0; it < 200000 && problems < 20; ++it) {
    QPoolParams p;
    p.type = DType::U8;
    p.x_scale = f32_round(Rat(2 * static_cast<long long>(g() % 64) + 1) * pow2r(-11));
    p.y_scale = f32_round(Rat(2 * static_cast<long long>(g() % 64) + 1) * pow2r(-10));
    p.x_zero_point = Int(static_cast<long long>(g() % 256));
    p.y_zero_point = Int(static_cast<long long>(g() % 256));
    const std::uint32_t alpha = random_scale(g, -static_cast<int>(1 + g() % 5));
    const std::uint32_t ratio = f32_div(p.x_scale, p.y_scale);
    if (f32_value(ratio) < pow2r(-8) || f32_value(ratio) >= 256) continue;  // QNNPACK would refuse it
    // The search on native binary32; the counts below use the exact models.
    const float sx = std::bit_cast<float>(p.x_scale), sy = std::bit_cast<float>(p.y_scale);
    const float fa = std::bit_cast<float>(alpha), fr = std::bit_cast<float>(ratio);
    const auto zx = static_cast<long long>(p.x_zero_point), zy = static_cast<long long>(p.y_zero_point);
    bool any = false;
    for (long long i = 0; i < 256 && !any; ++i) {
      const long long c = std::clamp(
          static_cast<long long>(std::nearbyint(native_scaled(native_slope(native_dequantize(sx, i, zx), fa), sy))) +
              zy,
          0LL, 255LL);
      volatile float xr = fr * static_cast<float>(i - zx);
      const float yq = std::clamp(native_slope(xr, fa), static_cast<float>(-zy), static_cast<float>(255 - zy));
      any = c != static_cast<long long>(std::nearbyint(yq)) + zy;
    }
    if (!any) continue;
    const auto want = qlinear_leaky_relu_pytorch_table(alpha, p);
    const auto qnnp = [&](long long i) {
      const std::uint32_t x = f32_mul(ratio, f32_from_int(Int(i) - p.x_zero_point));
      const std::uint32_t y = f32_value(x) < 0 ? f32_mul(x, alpha) : x;
      const Rat v = std::clamp(f32_value(y), Rat(-p.y_zero_point), Rat(255 - p.y_zero_point));
      return round_half_even(v) + p.y_zero_point;
    };
    IntArray x(Shape{0});
    for (long long i = 0; i < 256; ++i)
      if (want[static_cast<std::size_t>(i)] != qnnp(i)) x.data.emplace_back(i);
    if (x.data.empty()) continue;
    x.shape = {static_cast<std::int64_t>(x.data.size())};
    ++problems;
    const auto got = codes_of(run_leaky(x, alpha, p, true));
    for (std::size_t k = 0; k < got.size(); ++k) {
      const long long i = static_cast<long long>(x.data[k]);
      ++outputs, clause += Int(got[k]) == want[static_cast<std::size_t>(i)] ? 1 : 0,
          table += Int(got[k]) == qnnp(i) ? 1 : 0;
    }
  }
  std::printf(
      "qnnpack engine leaky_relu: %lld problems, %lld outputs where QNNPACK's table differs: %lld the clause's, %lld "
      "the table's\n",
      problems, outputs, clause, table);
  ASSERT_EQ(problems, 20);
  if (std::string(capability()) == "default") {
    EXPECT_EQ(clause, outputs);
  }
  EXPECT_EQ(table, 0);
}

// E-LIBTORCH-EW-4: cpu_kernel_vec's vector blocks (64 elements at AVX2, 128 at AVX-512) dequantize
// with the FMA; 256 elements whose codes part the two: each output is one of them, the clause's at default.
TEST(crosscheck_libtorch_qlinear_concat, LeakyReluVectorPathDequantizesWithAnFma) {
  if (!engine_available(at::QEngine::ONEDNN)) GTEST_SKIP() << "this libtorch build has no onednn engine";
  at::globalContext().setQEngine(at::QEngine::ONEDNN);
  at::set_num_threads(1);
  std::mt19937_64 g(1807);
  long long outputs = 0, clause = 0, fma = 0, neither = 0, problems = 0;
  for (int it = 0; it < 200000 && problems < 6; ++it) {
    QPoolParams p;
    p.type = it % 2 ? DType::U8 : DType::I8;
    const long long lo = p.type == DType::U8 ? 0 : -128;
    p.x_scale = random_scale(g, -5);
    p.y_scale = f32_mul(p.x_scale, 0x40000000u);  // s_y = 2 s_x: exact halves, as in the concat test
    p.x_zero_point = Int(lo + static_cast<long long>(g() % 256));
    p.y_zero_point = Int(lo + static_cast<long long>(g() % 256));
    const std::uint32_t alpha = random_scale(g, -static_cast<int>(1 + g() % 5));
    // The search on native binary32; the counts below use the exact models.
    const float sx = std::bit_cast<float>(p.x_scale), sy = std::bit_cast<float>(p.y_scale);
    const float fa = std::bit_cast<float>(alpha);
    const auto zx = static_cast<long long>(p.x_zero_point);
    bool any = false;
    for (long long i = lo; i < lo + 256 && !any; ++i)
      any = std::nearbyint(native_scaled(native_slope(native_dequantize(sx, i, zx), fa), sy)) !=
            std::nearbyint(native_scaled(native_slope(native_fma_dequantize(sx, i, zx), fa), sy));
    if (!any) continue;
    const auto want = qlinear_leaky_relu_pytorch_table(alpha, p);
    const std::uint32_t inv = f32_div(0x3f800000u, p.y_scale);
    const Range r = int_range(p.type);
    const auto fma_code = [&](const Int& x) {
      const std::uint32_t d = fma_dequantize(p.x_scale, x, p.x_zero_point);
      const std::uint32_t e = f32_value(d) > 0 ? d : f32_mul(d, alpha);
      return saturate(round_half_even(f32_value(f32_mul(e, inv))) + p.y_zero_point, r);
    };
    std::vector<Int> differing;
    for (long long i = 0; i < 256; ++i)
      if (want[static_cast<std::size_t>(i)] != fma_code(Int(lo + i))) differing.emplace_back(lo + i);
    if (differing.empty()) continue;
    ++problems;
    IntArray x(Shape{256});
    for (std::size_t k = 0; k < 256; ++k) x.data[k] = differing[k % differing.size()];
    const auto got = codes_of(run_leaky(x, alpha, p, true));
    for (std::size_t k = 0; k < got.size(); ++k) {
      const Int v(got[k]);
      const bool is_clause = v == want[static_cast<std::size_t>(static_cast<long long>(x.data[k]) - lo)];
      const bool is_fma = v == fma_code(x.data[k]);
      ++outputs, clause += is_clause ? 1 : 0, fma += is_fma ? 1 : 0, neither += !is_clause && !is_fma ? 1 : 0;
    }
  }
  std::printf(
      "ATen leaky_relu vector path (ATEN_CPU_CAPABILITY=%s): %lld problems, %lld outputs where the two "
      "dequantizations differ: %lld the clause's, %lld the FMA's, %lld neither\n",
      capability(), problems, outputs, clause, fma, neither);
  ASSERT_EQ(problems, 6);
  EXPECT_EQ(neither, 0);
  if (std::string(capability()) == "default") {
    EXPECT_EQ(clause, outputs);
  }
}

}  // namespace
