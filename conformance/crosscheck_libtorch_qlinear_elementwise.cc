// Cross-check of PyTorch 1.13's quantized::mul / mul_relu and quantized::add / add_relu (Debian
// libtorch 1.13.1) against their clauses through the reference:
// - mul: qlinear.mul.pytorch_onednn under the onednn and the qnnpack engine (the engine selects
//   nothing: ATen's qmul_kernel, and XNNPACK's multiply for qint8 with y_zero_point < 127);
// - add: qlinear.add.pytorch_onednn under onednn (ATen's qadd_kernel), qlinear.add.pytorch_qnnpack
//   under qnnpack (QNNPACK q8add for quint8 of one shape, ATen for broadcast quint8, XNNPACK for
//   qint8), fewer than 64 outputs (ATen's scalar path); and ATen's vector path, whose FMA
//   dequantization differs (E-LIBTORCH-EW-1): run under ATEN_CPU_CAPABILITY=default, avx2, avx512.
//
// quint8 and qint8, broadcast shapes, the _relu operators as y_min = y_zero_point; random scales
// and tie-rich ones (power-of-two output scales: the last rounding meets k + 1/2). Problems the
// clause rejects (ERROR_IF) must make libtorch throw. Operators are called through the dispatcher by
// name (TorchScript's way: the quantized operators are not in ATen's C++ API); the engine is chosen
// with at::globalContext().setQEngine. Skipped (GTEST_SKIP, reported as SKIP by CTest) without the engine.
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
#include "qspec/ref/ops/qlinear_elementwise.h"
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

IntArray codes(std::mt19937_64& g, Shape s, long long lo, long long hi) {
  IntArray a(std::move(s));
  std::uniform_int_distribution<long long> d(lo, hi);
  for (auto& v : a.data) v = Int(d(g));
  return a;
}

// Two broadcast-compatible shapes of rank <= 3 (equal, a unit axis, a missing axis, a scalar).
std::pair<Shape, Shape> shapes(std::mt19937_64& g) {
  auto pick = [&](long long lo, long long hi) { return std::uniform_int_distribution<long long>(lo, hi)(g); };
  Shape out;
  for (long long r = pick(1, 3); r > 0; --r) out.push_back(pick(1, 6));
  Shape a = out, b = out;
  switch (pick(0, 3)) {
    case 0: break;
    case 1: b[static_cast<std::size_t>(pick(0, static_cast<long long>(b.size()) - 1))] = 1; break;
    case 2:
      b.erase(b.begin());
      if (b.empty()) b = {1};
      break;
    default: b = {1}; break;
  }
  if (pick(0, 1) == 1) std::swap(a, b);
  return {a, b};
}

struct Counts {
  long long problems = 0, outputs = 0, ties = 0, diffs = 0, rejected = 0, xnnpack = 0;
};

void sweep(at::QEngine engine, DType t, std::uint64_t seed, Counts& n) {
  at::globalContext().setQEngine(engine);
  at::set_num_threads(1);
  std::mt19937_64 g(seed);
  auto pick = [&](long long lo, long long hi) { return std::uniform_int_distribution<long long>(lo, hi)(g); };
  const Range r = int_range(t);
  const long long lo = static_cast<long long>(r.lo), hi = static_cast<long long>(r.hi);
  for (int i = 0; i < 200; ++i) {
    const bool tie_rich = i % 2 == 1;
    QEwParams p;
    p.type = p.b_type = t;
    auto scale = [&](int e_lo, int e_hi) {
      const int e = static_cast<int>(pick(e_lo, e_hi));
      if (tie_rich) return f32_round(Rat(2 * pick(0, 7) + 1) * pow2r(e));
      return (static_cast<std::uint32_t>(127 + e) << 23) | static_cast<std::uint32_t>(g() & 0x7fffffu);
    };
    p.a_scale = scale(-8, -3);
    p.b_scale = scale(-8, -3);
    // The output scale near s_a s_b 2^7 (outputs spread over the codes); a power of two when tie-rich.
    const int ey = static_cast<int>(pick(-10, -4));
    p.y_scale = tie_rich ? f32_round(pow2r(ey)) : scale(-10, -4);
    p.a_zero_point = Int(pick(lo, hi)), p.b_zero_point = Int(pick(lo, hi)), p.y_zero_point = Int(pick(lo, hi));
    const bool relu = pick(0, 3) == 0;
    if (relu) p.y_min = p.y_zero_point;
    const auto [sa, sb] = shapes(g);
    const long long spread = tie_rich ? 12 : 255;
    const long long za = static_cast<long long>(p.a_zero_point), zb = static_cast<long long>(p.b_zero_point);
    const IntArray a = codes(g, sa, std::max(lo, za - spread), std::min(hi, za + spread));
    const IntArray b = codes(g, sb, std::max(lo, zb - spread), std::min(hi, zb + spread));
    IntArray want;
    auto run_mul = [&] {
      return call_op(relu ? "quantized::mul_relu" : "quantized::mul",
                     {quantized(a, t, p.a_scale, p.a_zero_point), quantized(b, t, p.b_scale, p.b_zero_point),
                      static_cast<double>(std::bit_cast<float>(p.y_scale)),
                      static_cast<std::int64_t>(static_cast<long long>(p.y_zero_point))});
    };
    try {
      want = qlinear_elementwise(QEwOp::Mul, a, b, p, QEwConvention::PytorchOnednn);
    } catch (const qspec::ref::ErrorIf&) {  // qint8 through XNNPACK: a multiplier outside its range
      bool threw = false;
      try {
        run_mul();
      } catch (const std::exception&) {
        threw = true;
      }
      EXPECT_TRUE(threw) << "problem " << i << ": the clause rejects it, libtorch computed it";
      ++n.rejected;
      continue;
    }
    const at::Tensor y = run_mul().toTensor().int_repr().to(at::kLong).contiguous();
    ++n.problems;
    ASSERT_EQ(static_cast<std::size_t>(y.numel()), want.data.size());
    const bool xnn = qlinear_mul_pytorch_runs_xnnpack(p);
    n.xnnpack += xnn ? 1 : 0;
    const std::uint32_t m = xnn ? qlinear_mul_xnnpack_scale(p) : qlinear_mul_pytorch_onednn_multiplier(p);
    const auto bc = qlinear_ew_broadcast(a.shape, b.shape);
    for (std::size_t k = 0; k < want.data.size(); ++k) {
      const Int prod = (a.data[static_cast<std::size_t>(bc.a_offset[k])] - p.a_zero_point) *
                       (b.data[static_cast<std::size_t>(bc.b_offset[k])] - p.b_zero_point);
      n.ties += denominator(f32_value(f32_mul(f32_from_int(prod), m))) == 2 ? 1 : 0;
      ++n.outputs;
      const long long got = y.data_ptr<std::int64_t>()[k];
      if (Int(got) != want.data[k] && ++n.diffs <= 5)
        ADD_FAILURE() << "problem " << i << " element " << k << ": libtorch " << got << ", clause " << want.data[k];
    }
  }
}

void run(at::QEngine engine, const char* name, std::uint64_t seed) {
  if (!engine_available(engine)) GTEST_SKIP() << "this libtorch build has no " << name << " engine";
  for (const DType t : {DType::U8, DType::I8}) {
    Counts n;
    sweep(engine, t, seed + (t == DType::U8 ? 0 : 1), n);
    std::printf(
        "libtorch %s mul %s: %lld problems (%lld through XNNPACK), %lld outputs, %lld exact ties, %lld differences; "
        "%lld rejected by both\n",
        name, t == DType::U8 ? "quint8" : "qint8", n.problems, n.xnnpack, n.outputs, n.ties, n.diffs, n.rejected);
    EXPECT_EQ(n.diffs, 0);
    EXPECT_EQ(n.problems + n.rejected, 200);
    EXPECT_GT(n.problems, 150);
  }
}

TEST(crosscheck_libtorch_qlinear_elementwise, OnednnMulIsTheClause) { run(at::QEngine::ONEDNN, "onednn", 1701); }
TEST(crosscheck_libtorch_qlinear_elementwise, QnnpackMulIsTheClause) { run(at::QEngine::QNNPACK, "qnnpack", 1711); }

// ---- quantized::add / add_relu (qlinear.add.pytorch_onednn, qlinear.add.pytorch_qnnpack) ----

// Shapes with fewer than 64 outputs: ATen's loop stays on its scalar path, the clause's.
std::pair<Shape, Shape> small_shapes(std::mt19937_64& g) {
  for (;;) {
    auto s = shapes(g);
    if (shape_numel(qlinear_ew_broadcast(s.first, s.second).out) < 64) return s;
  }
}

at::Tensor run_add(bool relu, const IntArray& a, const IntArray& b, const QEwParams& p) {
  return call_op(relu ? "quantized::add_relu" : "quantized::add",
                 {quantized(a, p.type, p.a_scale, p.a_zero_point), quantized(b, p.type, p.b_scale, p.b_zero_point),
                  static_cast<double>(std::bit_cast<float>(p.y_scale)),
                  static_cast<std::int64_t>(static_cast<long long>(p.y_zero_point))})
      .toTensor()
      .int_repr()
      .to(at::kLong)
      .contiguous();
}

struct AddCounts {
  long long problems = 0, outputs = 0, ties = 0, diffs = 0, rejected = 0, q8add = 0, aten = 0, xnnpack = 0;
};

// The output elements whose kernel's last rounding meets an exact half.
long long add_ties(const IntArray& a, const IntArray& b, const QEwParams& p, QEwConvention c) {
  const auto bc = qlinear_ew_broadcast(a.shape, b.shape);
  auto kernel = c;
  if (c == QEwConvention::PytorchQnnpack) {
    const auto path = qlinear_add_pytorch_qnnpack_path(p.type, a.shape, b.shape);
    kernel = path == QEwPytorchQnnpackAddPath::Xnnpack ? QEwConvention::XnnpackFp32
             : path == QEwPytorchQnnpackAddPath::Aten  ? QEwConvention::PytorchOnednn
                                                       : c;
  }
  long long n = 0;
  for (std::size_t k = 0; k < bc.a_offset.size(); ++k) {
    const Int da = a.data[static_cast<std::size_t>(bc.a_offset[k])] - p.a_zero_point;
    const Int db = b.data[static_cast<std::size_t>(bc.b_offset[k])] - p.b_zero_point;
    if (kernel == QEwConvention::PytorchOnednn) {
      const std::uint32_t v = qlinear_add_pytorch_onednn_value(da + p.a_zero_point, db + p.b_zero_point,
                                                               qlinear_add_pytorch_onednn_inverse(p), p);
      n += denominator(f32_value(v)) == 2 ? 1 : 0;
    } else if (kernel == QEwConvention::PytorchQnnpack) {
      const auto q = qlinear_add_pytorch_qnnpack_params(p);
      const Rat v(da * q.a_multiplier + db * q.b_multiplier, pow2(static_cast<unsigned>(q.shift)));
      n += denominator(v) == 2 ? 1 : 0;
    } else {
      const auto x = qlinear_add_xnnpack_params(p);
      const Rat v(da * x.a_multiplier + db * x.b_multiplier, pow2(static_cast<unsigned>(x.shift)));
      n += denominator(v) == 2 ? 1 : 0;
    }
  }
  return n;
}

void add_sweep(at::QEngine engine, DType t, std::uint64_t seed, AddCounts& n) {
  at::globalContext().setQEngine(engine);
  at::set_num_threads(1);
  const QEwConvention conv =
      engine == at::QEngine::QNNPACK ? QEwConvention::PytorchQnnpack : QEwConvention::PytorchOnednn;
  std::mt19937_64 g(seed);
  auto pick = [&](long long lo, long long hi) { return std::uniform_int_distribution<long long>(lo, hi)(g); };
  const Range r = int_range(t);
  const long long lo = static_cast<long long>(r.lo), hi = static_cast<long long>(r.hi);
  for (int i = 0; i < 300; ++i) {
    const bool tie_rich = i % 2 == 1;
    QEwParams p;
    p.type = p.b_type = t;
    // Tie-rich: s_a, s_b odd multiples of 2^e and s_y a power of two: d / s_y are short dyadic
    // fractions; else random mantissas. Ratios within about [2^-5, 2^5].
    const int ea = static_cast<int>(pick(-9, -4));
    auto scale = [&](int e) {
      if (tie_rich) return f32_round(Rat(2 * pick(0, 7) + 1) * pow2r(e));
      return (static_cast<std::uint32_t>(127 + e) << 23) | static_cast<std::uint32_t>(g() & 0x7fffffu);
    };
    p.a_scale = scale(ea);
    p.b_scale = scale(ea + static_cast<int>(pick(-2, 2)));
    const int ey = ea + static_cast<int>(pick(-1, 3));
    p.y_scale = tie_rich ? f32_round(pow2r(ey)) : scale(ey);
    p.a_zero_point = Int(pick(lo, hi)), p.b_zero_point = Int(pick(lo, hi)), p.y_zero_point = Int(pick(lo, hi));
    const bool relu = pick(0, 3) == 0;
    if (relu) p.y_min = p.y_zero_point;
    auto [sa, sb] = small_shapes(g);
    if (pick(0, 1) == 0) sb = sa;  // equal shapes: the qnnpack engine's q8add for quint8
    const long long spread = tie_rich ? 12 : 255;
    const long long za = static_cast<long long>(p.a_zero_point), zb = static_cast<long long>(p.b_zero_point);
    const IntArray a = codes(g, sa, std::max(lo, za - spread), std::min(hi, za + spread));
    const IntArray b = codes(g, sb, std::max(lo, zb - spread), std::min(hi, zb + spread));
    IntArray want;
    try {
      want = qlinear_elementwise(QEwOp::Add, a, b, p, conv);
    } catch (const qspec::ref::ErrorIf&) {
      // The clause rejects it: libtorch must throw too.
      bool threw = false;
      try {
        run_add(relu, a, b, p);
      } catch (const std::exception&) {
        threw = true;
      }
      EXPECT_TRUE(threw) << "problem " << i << ": the clause rejects it, libtorch computed it";
      ++n.rejected;
      continue;
    }
    const at::Tensor y = run_add(relu, a, b, p);
    ++n.problems;
    if (conv == QEwConvention::PytorchQnnpack) {
      const auto path = qlinear_add_pytorch_qnnpack_path(t, a.shape, b.shape);
      (path == QEwPytorchQnnpackAddPath::Q8Add  ? n.q8add
       : path == QEwPytorchQnnpackAddPath::Aten ? n.aten
                                                : n.xnnpack)++;
    }
    ASSERT_EQ(static_cast<std::size_t>(y.numel()), want.data.size());
    n.ties += add_ties(a, b, p, conv);
    for (std::size_t k = 0; k < want.data.size(); ++k) {
      ++n.outputs;
      const long long got = y.data_ptr<std::int64_t>()[k];
      if (Int(got) != want.data[k] && ++n.diffs <= 5)
        ADD_FAILURE() << "problem " << i << " element " << k << ": libtorch " << got << ", clause " << want.data[k];
    }
  }
}

void add_run(at::QEngine engine, const char* name, std::uint64_t seed) {
  if (!engine_available(engine)) GTEST_SKIP() << "this libtorch build has no " << name << " engine";
  const char* cap = std::getenv("ATEN_CPU_CAPABILITY");
  for (const DType t : {DType::U8, DType::I8}) {
    AddCounts n;
    add_sweep(engine, t, seed + (t == DType::U8 ? 0 : 1), n);
    std::printf(
        "libtorch %s add %s (ATEN_CPU_CAPABILITY=%s): %lld problems (q8add %lld, ATen %lld, XNNPACK %lld), %lld "
        "outputs, %lld exact ties, %lld differences; %lld rejected by both\n",
        name, t == DType::U8 ? "quint8" : "qint8", cap ? cap : "(unset)", n.problems, n.q8add, n.aten, n.xnnpack,
        n.outputs, n.ties, n.diffs, n.rejected);
    EXPECT_EQ(n.diffs, 0);
    EXPECT_EQ(n.problems + n.rejected, 300);
    EXPECT_GT(n.problems, 250);
  }
}

TEST(crosscheck_libtorch_qlinear_elementwise, OnednnAddIsTheClause) { add_run(at::QEngine::ONEDNN, "onednn", 1721); }
TEST(crosscheck_libtorch_qlinear_elementwise, QnnpackAddIsTheClause) { add_run(at::QEngine::QNNPACK, "qnnpack", 1731); }

// E-LIBTORCH-EW-1: on its vector path (64 contiguous outputs and more at AVX2, 128 at AVX-512) ATen
// dequantizes with fma(s, q, fl32(-z s)), not the scalar path's fl32((q - z) s). Inputs where the two
// give different outputs, 256 of them in one contiguous tensor: every output is one of the two, and
// at capability default (no vector path) the clause's.
TEST(crosscheck_libtorch_qlinear_elementwise, AtenAddVectorPathDequantizesWithAnFma) {
  if (!engine_available(at::QEngine::ONEDNN)) GTEST_SKIP() << "this libtorch build has no onednn engine";
  at::globalContext().setQEngine(at::QEngine::ONEDNN);
  at::set_num_threads(1);
  const auto fma_dequantize = [](std::uint32_t s, const Int& q, const Int& z) {
    const std::uint32_t premul = f32_mul(s, f32_from_int(-z));
    return f32_round(f32_value(s) * Rat(q) + f32_value(premul));
  };
  std::mt19937_64 g(1741);
  long long outputs = 0, clause = 0, fma = 0, neither = 0, problems = 0;
  for (int it = 0; it < 400 && problems < 6; ++it) {
    QEwParams p;
    p.type = p.b_type = DType::U8;
    p.a_scale = (static_cast<std::uint32_t>(127 - 4) << 23) | static_cast<std::uint32_t>(g() & 0x7fffffu);
    p.b_scale = (static_cast<std::uint32_t>(127 - 5) << 23) | static_cast<std::uint32_t>(g() & 0x7fffffu);
    p.y_scale = (static_cast<std::uint32_t>(127 - 3) << 23) | static_cast<std::uint32_t>(g() & 0x7fffffu);
    p.a_zero_point = Int(static_cast<long long>(g() % 256)), p.b_zero_point = Int(static_cast<long long>(g() % 256));
    p.y_zero_point = Int(static_cast<long long>(g() % 256));
    const std::uint32_t inv = qlinear_add_pytorch_onednn_inverse(p);
    const auto fma_element = [&](const Int& a, const Int& b) {
      const std::uint32_t c =
          f32_add(fma_dequantize(p.a_scale, a, p.a_zero_point), fma_dequantize(p.b_scale, b, p.b_zero_point));
      return saturate(round_half_even(f32_value(f32_mul(c, inv))) + p.y_zero_point, Range{0, 255});
    };
    // The search on native binary32 (fast); the counts below use the exact models.
    const float sa = std::bit_cast<float>(p.a_scale), sb = std::bit_cast<float>(p.b_scale);
    const float fy = std::bit_cast<float>(inv);
    const auto za = static_cast<float>(static_cast<long long>(p.a_zero_point));
    const auto zb = static_cast<float>(static_cast<long long>(p.b_zero_point));
    const float pa = sa * -za, pb = sb * -zb;
    IntArray a({256}), b({256});
    std::size_t found = 0;
    for (int x = 0; x < 256 && found < 256; ++x)
      for (int y = 0; y < 256 && found < 256; ++y) {
        const float s_dq = static_cast<float>((static_cast<float>(x) - za) * static_cast<double>(sa)) +
                           static_cast<float>((static_cast<float>(y) - zb) * static_cast<double>(sb));
        const float f_dq = std::fmaf(sa, static_cast<float>(x), pa) + std::fmaf(sb, static_cast<float>(y), pb);
        const float vs = s_dq * fy, vf = f_dq * fy;
        if (std::nearbyint(vs) != std::nearbyint(vf)) {
          a.data[found] = Int(x), b.data[found] = Int(y);
          ++found;
        }
      }
    if (found == 0) continue;  // about one parameter set in two has such a pair
    for (std::size_t k = found; k < 256; ++k) a.data[k] = a.data[k % found], b.data[k] = b.data[k % found];
    ++problems;
    const at::Tensor out = run_add(false, a, b, p);
    for (std::size_t k = 0; k < 256; ++k) {
      const Int got(static_cast<long long>(out.data_ptr<std::int64_t>()[k]));
      ++outputs;
      const bool is_clause = got == qlinear_add_pytorch_onednn_element(a.data[k], b.data[k], inv, p);
      const bool is_fma = got == fma_element(a.data[k], b.data[k]);
      clause += is_clause ? 1 : 0, fma += is_fma ? 1 : 0, neither += !is_clause && !is_fma ? 1 : 0;
    }
  }
  const char* cap = std::getenv("ATEN_CPU_CAPABILITY");
  std::printf(
      "ATen add vector path (ATEN_CPU_CAPABILITY=%s): %lld problems, %lld outputs where the two dequantizations "
      "differ: %lld the clause's, %lld the FMA's, %lld neither\n",
      cap ? cap : "(unset)", problems, outputs, clause, fma, neither);
  ASSERT_EQ(problems, 6);
  EXPECT_EQ(neither, 0);
  if (cap && std::string(cap) == "default") {
    EXPECT_EQ(clause, outputs);
  }
}

}  // namespace
