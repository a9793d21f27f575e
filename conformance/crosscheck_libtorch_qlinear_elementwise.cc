// Cross-check of PyTorch 1.13's quantized::mul / quantized::mul_relu (Debian libtorch 1.13.1)
// against qlinear.mul.pytorch_onednn through the reference, under the onednn engine (the
// convention's) and the qnnpack engine (the same ATen qmul_kernel: the engine selects nothing).
//
// quint8 only: Debian's 1.13.1 computes qint8 otherwise (later sources: XNNPACK's multiply, _mul_out_xnnpack;
// on some of these draws it throws a c10::Error, and it gives other results on the vectors' int8
// reciprocal case). Broadcast shapes, quantized::mul_relu as y_min =
// y_zero_point; random scales and tie-rich ones (power-of-two output scales keep fl32(1 / s_y) exact, so fl32(p M)
// meets k + 1/2). Operators are called through the dispatcher by name (TorchScript's way: the quantized operators are
// not in ATen's C++ API). Skipped (GTEST_SKIP, reported as SKIP by CTest) without the engine.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "qspec/ref/exact.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear_elementwise.h"

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
  long long problems = 0, outputs = 0, ties = 0, diffs = 0;
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
    const IntArray want = qlinear_elementwise(QEwOp::Mul, a, b, p, QEwConvention::PytorchOnednn);
    const at::Tensor y =
        call_op(relu ? "quantized::mul_relu" : "quantized::mul",
                {quantized(a, t, p.a_scale, p.a_zero_point), quantized(b, t, p.b_scale, p.b_zero_point),
                 static_cast<double>(std::bit_cast<float>(p.y_scale)),
                 static_cast<std::int64_t>(static_cast<long long>(p.y_zero_point))})
            .toTensor()
            .int_repr()
            .to(at::kLong)
            .contiguous();
    ++n.problems;
    ASSERT_EQ(static_cast<std::size_t>(y.numel()), want.data.size());
    const std::uint32_t m = qlinear_mul_pytorch_onednn_multiplier(p);
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
  for (const DType t : {DType::U8}) {
    Counts n;
    sweep(engine, t, seed + (t == DType::U8 ? 0 : 1), n);
    std::printf("libtorch %s mul %s: %lld problems, %lld outputs, %lld exact ties, %lld differences\n", name,
                t == DType::U8 ? "quint8" : "qint8", n.problems, n.outputs, n.ties, n.diffs);
    EXPECT_EQ(n.diffs, 0);
    EXPECT_EQ(n.problems, 200);
  }
}

TEST(crosscheck_libtorch_qlinear_elementwise, OnednnMulIsTheClause) { run(at::QEngine::ONEDNN, "onednn", 1701); }
TEST(crosscheck_libtorch_qlinear_elementwise, QnnpackMulIsTheClause) { run(at::QEngine::QNNPACK, "qnnpack", 1711); }

}  // namespace
