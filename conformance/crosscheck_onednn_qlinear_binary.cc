// Cross-check of qlinear.add.onednn and qlinear.mul.onednn (spec/operators_qlinear_onednn_binary.md)
// against the installed oneDNN (Debian libdnnl-dev 2.6.3): the binary primitive (binary_add,
// binary_mul) on s8/u8 plain tensors of the output's rank, configured as the clause's user does
// (source scales through set_scales(DNNL_ARG_SRC_0/1, 0), the output zero point as an
// eltwise_linear post-op, the clamp as eltwise_clip), on random problems, tie-rich ones (dyadic
// scale ratios: the last rounding sees exact halves) and zero-point-rich ones (a ratio 1/2 + k 2^-24
// where adding z_y in float moves the value onto or off a half). Every output must equal the
// clause's reference, and every parameter set the clause rejects must make oneDNN refuse it.
//
// The dispatched instruction set and implementation (impl_info_str: "jit:uni" or "ref:any": a
// broadcast src0 or most src1 broadcasts run in ref) are read and printed, never assumed; the
// clause claims both compute the same function. Run it under ONEDNN_MAX_CPU_ISA=SSE41 / AVX2 /
// AVX512_CORE / ALL to see each ISA.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <oneapi/dnnl/dnnl.hpp>
#include <random>
#include <string>
#include <vector>

#include "onednn_session.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear_elementwise.h"
#include "qspec/ref/rounding.h"

namespace {

using qspec::onednn_session::engine;
using qspec::onednn_session::isa_name;
using qspec::onednn_session::stream;

using namespace qspec::ref;
using namespace qspec::ref::ops;
using dnnl::memory;
using Dims = memory::dims;

struct Problem {
  QEwParams p;
  IntArray a, b;
};

long long lo_of(DType t) { return t == DType::I8 ? -128 : 0; }
long long hi_of(DType t) { return t == DType::I8 ? 127 : 255; }
std::uint32_t dyadic(long long m, int e) { return f32_round(Rat(m) * pow2r(e)); }
std::uint32_t random_scale(std::mt19937_64& g, int e) {
  const auto m = static_cast<std::uint32_t>(g() % (1u << 23));
  return (static_cast<std::uint32_t>(e + 127) << 23) | ((g() % 2) != 0u ? m : (m & 0x780000u));
}
long long uniform(std::mt19937_64& g, long long lo, long long hi) {
  return lo + static_cast<long long>(g() % static_cast<std::uint64_t>(hi - lo + 1));
}

// Two shapes that broadcast (rank 1..4, each side sometimes with unit axes or a lower rank).
std::pair<Shape, Shape> draw_shapes(std::mt19937_64& g) {
  const long long rank = uniform(g, 1, 4);
  Shape out;
  for (long long i = 0; i < rank; ++i) out.push_back(uniform(g, 1, rank >= 3 ? 4 : 9));
  Shape a = out, b = out;
  const long long kind = uniform(g, 0, 4);
  if (kind == 1) b = Shape{1};
  if (kind == 2 && rank > 1) b = Shape(out.begin() + uniform(g, 1, rank - 1), out.end());
  if (kind >= 3)
    for (std::size_t i = 0; i < b.size(); ++i)
      if (g() % 2 != 0u) (kind == 3 || g() % 2 != 0u ? b : a)[i] = 1;
  if (g() % 4 == 0u) std::swap(a, b);
  return {a, b};
}

IntArray codes(std::mt19937_64& g, const Shape& s, DType t, long long spread) {
  IntArray x(s);
  for (auto& v : x.data)
    v = Int(spread > 0 ? uniform(g, std::max(lo_of(t), -spread), std::min(hi_of(t), spread))
                       : uniform(g, lo_of(t), hi_of(t)));
  return x;
}

// mode 0: random realistic scales; 1: tie-rich; 2: zero-point-rich.
Problem draw(std::mt19937_64& g, QEwOp op, int mode) {
  Problem pr;
  auto& p = pr.p;
  p.type = p.b_type = g() % 2 != 0u ? DType::I8 : DType::U8;
  const auto [sa, sb] = draw_shapes(g);
  long long spread = 0;
  if (mode == 0) {
    const int ea = static_cast<int>(uniform(g, -9, -3)), eb = ea + static_cast<int>(uniform(g, -2, 2));
    p.a_scale = random_scale(g, ea);
    p.b_scale = random_scale(g, eb);
    p.y_scale = random_scale(g, op == QEwOp::Add ? std::max(ea, eb) + static_cast<int>(uniform(g, -1, 1))
                                                 : ea + eb + static_cast<int>(uniform(g, 3, 7)));
  } else if (mode == 1) {
    const long long cy = std::vector<long long>{1, 3, 5, 7}[g() % 4];
    const int ey = static_cast<int>(uniform(g, -12, -2));
    p.y_scale = dyadic(cy, ey);
    const long long ka = std::vector<long long>{1, 3, 5, 7, 9, 15}[g() % 6];
    const long long kb = std::vector<long long>{1, 3, 5, 7, 9, 15}[g() % 6];
    if (op == QEwOp::Add) {
      p.a_scale = dyadic(cy * ka, ey - static_cast<int>(uniform(g, 0, 4)));
      p.b_scale = dyadic(cy * kb, ey - static_cast<int>(uniform(g, 0, 4)));
    } else {
      const int ea = static_cast<int>(uniform(g, -8, -2));
      p.a_scale = dyadic(ka, ea);
      p.b_scale = dyadic(kb * cy, ey - static_cast<int>(uniform(g, 3, 9)) - ea);
    }
    spread = std::vector<long long>{6, 20, 60}[g() % 3];
  } else {
    // s0 = 1/2 + k 2^-24 (or S for mul): A s0 = A/2 + A k 2^-24 sits next to a half.
    p.a_scale = 0x3f000000u + static_cast<std::uint32_t>(uniform(g, -3, 3)) * 1u;
    p.b_scale = op == QEwOp::Add ? dyadic(1, static_cast<int>(uniform(g, -9, -1))) : dyadic(1, 0);
    p.y_scale = dyadic(1, 0);
    spread = 40;
  }
  p.y_zero_point = Int(uniform(g, lo_of(p.type), hi_of(p.type)));
  if (g() % 5 == 0u) {
    const long long lo = uniform(g, lo_of(p.type), hi_of(p.type) - 1);
    p.y_min = Int(lo);
    p.y_max = Int(uniform(g, lo + 1, hi_of(p.type)));
  }
  pr.a = codes(g, sa, p.type, spread);
  pr.b = codes(g, sb, p.type, mode == 2 && op == QEwOp::Mul ? 3 : spread);
  return pr;
}

memory::desc desc_of(const Shape& s, std::size_t rank, DType t) {
  Dims d(rank, 1), strides(rank, 1);
  std::copy(s.begin(), s.end(), d.begin() + static_cast<std::ptrdiff_t>(rank - s.size()));
  for (std::size_t j = rank - 1; j-- > 0;) strides[j] = strides[j + 1] * d[j + 1];
  return memory::desc(d, t == DType::I8 ? memory::data_type::s8 : memory::data_type::u8, strides);
}

std::vector<std::uint8_t> bytes(const IntArray& x) {
  std::vector<std::uint8_t> out(x.data.size());
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<std::uint8_t>(static_cast<long long>(x.data[i]));
  return out;
}

// The primitive as the clause's user configures it; false where oneDNN refuses.
bool run(QEwOp op, const Problem& pr, const Shape& out_shape, std::vector<long long>& out, std::string& impl) {
  const auto& p = pr.p;
  const std::size_t rank = out_shape.size();
  const memory::desc amd = desc_of(pr.a.shape, rank, p.type), bmd = desc_of(pr.b.shape, rank, p.type),
                     ymd = desc_of(out_shape, rank, p.type);
  dnnl::binary::primitive_desc pd;
  try {
    dnnl::primitive_attr attr;
    const float sa = std::bit_cast<float>(p.a_scale), sb = std::bit_cast<float>(p.b_scale),
                sy = std::bit_cast<float>(p.y_scale);
    if (op == QEwOp::Add) {
      attr.set_scales(DNNL_ARG_SRC_0, 0, {sa / sy});
      attr.set_scales(DNNL_ARG_SRC_1, 0, {sb / sy});
    } else {
      attr.set_scales(DNNL_ARG_SRC_0, 0, {(sa * sb) / sy});
    }
    if (p.a_zero_point != 0) attr.set_zero_points(DNNL_ARG_SRC_0, 0, {static_cast<int>(p.a_zero_point)});
    if (p.b_zero_point != 0) attr.set_zero_points(DNNL_ARG_SRC_1, 0, {static_cast<int>(p.b_zero_point)});
    dnnl::post_ops po;
    if (p.y_zero_point != 0)
      po.append_eltwise(1.0f, dnnl::algorithm::eltwise_linear, 1.0f,
                        static_cast<float>(static_cast<long long>(p.y_zero_point)));
    if (p.y_min || p.y_max)
      po.append_eltwise(1.0f, dnnl::algorithm::eltwise_clip,
                        static_cast<float>(static_cast<long long>(p.y_min.value_or(Int(lo_of(p.type))))),
                        static_cast<float>(static_cast<long long>(p.y_max.value_or(Int(hi_of(p.type))))));
    attr.set_post_ops(po);
    const dnnl::binary::desc d(op == QEwOp::Add ? dnnl::algorithm::binary_add : dnnl::algorithm::binary_mul, amd, bmd,
                               ymd);
    pd = dnnl::binary::primitive_desc(d, attr, engine());
  } catch (const dnnl::error&) {
    return false;
  }
  impl = pd.impl_info_str();
  std::vector<std::uint8_t> ab = bytes(pr.a), bb = bytes(pr.b);
  memory am(amd, engine(), ab.data()), bm(bmd, engine(), bb.data()), ym(ymd, engine());
  dnnl::binary(pd).execute(stream(), {{DNNL_ARG_SRC_0, am}, {DNNL_ARG_SRC_1, bm}, {DNNL_ARG_DST, ym}});
  stream().wait();
  const auto* y = static_cast<const std::uint8_t*>(ym.get_data_handle());
  out.resize(static_cast<std::size_t>(shape_numel(out_shape)));
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i] = p.type == DType::I8 ? static_cast<std::int8_t>(y[i]) : static_cast<long long>(y[i]);
  return true;
}

void check(QEwOp op, const char* name, int problems) {
  std::mt19937_64 g(op == QEwOp::Add ? 0xb1a0 : 0xb1a1);
  long long n_problems = 0, rejected = 0, outputs = 0, ties = 0, zp_moves = 0, diffs = 0;
  std::map<std::string, long long> impls;
  for (int i = 0; i < problems; ++i) {
    Problem pr = draw(g, op, i % 3);
    if (i % 40 == 39) {  // what the clause rejects and oneDNN refuses
      if (i % 80 == 79)
        pr.p.a_zero_point = Int(1);
      else
        pr.p.y_min = Int(hi_of(pr.p.type)), pr.p.y_max = Int(lo_of(pr.p.type));
    }
    IntArray want;
    bool invalid = false;
    try {
      want = qlinear_elementwise(op, pr.a, pr.b, pr.p, QEwConvention::Onednn);
    } catch (const ErrorIf&) {
      invalid = true;
    }
    std::vector<long long> got;
    std::string impl;
    const Shape out_shape = qlinear_ew_broadcast(pr.a.shape, pr.b.shape).out;
    const bool ran = run(op, pr, out_shape, got, impl);
    ++n_problems;
    if (invalid) {
      EXPECT_FALSE(ran) << name << " problem " << i << ": oneDNN accepted what the clause rejects";
      ++rejected;
      continue;
    }
    ASSERT_TRUE(ran) << name << " problem " << i << ": oneDNN refused a problem the clause accepts";
    ++impls[impl];
    const QEwOnednnScales k = qlinear_ew_onednn_scales(op, pr.p);
    QEwParams p0 = pr.p;
    p0.y_zero_point = 0;
    const QEwBroadcast bc = qlinear_ew_broadcast(pr.a.shape, pr.b.shape);
    for (std::size_t j = 0; j < got.size(); ++j) {
      ++outputs;
      const Int& a = pr.a.data[static_cast<std::size_t>(bc.a_offset[j])];
      const Int& b = pr.b.data[static_cast<std::size_t>(bc.b_offset[j])];
      const Rat w = f32_value(qlinear_ew_onednn_value(op, a, b, k, pr.p));
      if (denominator(w) == 2) ++ties;  // w = k + 1/2
      if (round_half_even(w) !=
          round_half_even(f32_value(qlinear_ew_onednn_value(op, a, b, k, p0))) + pr.p.y_zero_point)
        ++zp_moves;
      if (Int(got[j]) != want.data[j] && ++diffs <= 5)
        ADD_FAILURE() << name << " problem " << i << " output " << j << ": oneDNN " << got[j] << ", clause "
                      << want.data[j] << " (" << impl << ")";
    }
  }
  std::string names;
  for (const auto& [key, v] : impls) names += " " + key + "=" + std::to_string(v);
  std::printf(
      "crosscheck_onednn_qlinear_binary %s at isa %s: %lld problems (%lld rejected as the clause says), %lld outputs, "
      "%lld exact ties, %lld where adding z_y in float changes the code, %lld differences; implementations:%s\n",
      name, isa_name(), n_problems, rejected, outputs, ties, zp_moves, diffs, names.c_str());
  EXPECT_EQ(diffs, 0);
  EXPECT_GT(outputs, 0);
}

// binary_add s8 of x = 114 and y = 60 (unit scales) with eltwise_linear(alpha, beta), src0 of the
// destination's shape (jit:uni) or broadcast (ref:any); the s8 output code.
long long linear_post_op(float alpha, float beta, bool broadcast_src0, std::string& impl) {
  const memory::desc m0({1, broadcast_src0 ? 1 : 16}, memory::data_type::s8, memory::format_tag::ab),
      m1({1, 16}, memory::data_type::s8, memory::format_tag::ab), md = m1;
  dnnl::primitive_attr attr;
  dnnl::post_ops po;
  po.append_eltwise(1.0f, dnnl::algorithm::eltwise_linear, alpha, beta);
  attr.set_post_ops(po);
  const dnnl::binary::primitive_desc pd(dnnl::binary::desc(dnnl::algorithm::binary_add, m0, m1, md), attr, engine());
  impl = pd.impl_info_str();
  std::vector<std::int8_t> x(broadcast_src0 ? 1 : 16, 114), y(16, 60), z(16);
  memory xm(m0, engine(), x.data()), ym(m1, engine(), y.data()), zm(md, engine(), z.data());
  dnnl::binary(pd).execute(stream(), {{DNNL_ARG_SRC_0, xm}, {DNNL_ARG_SRC_1, ym}, {DNNL_ARG_DST, zm}});
  stream().wait();
  return z[0];
}

}  // namespace

// spec/errata.md E-ONEDNNBIN-1: the linear post-op with alpha != 1 is one rounding in the jit
// kernel where the ISA has FMA (vfmadd213ps) and two in ref_binary and in the sse41 kernel, so the
// clause keeps alpha = 1 (the output scale folded into the source scales).
TEST(crosscheck_onednn_qlinear_binary, ALinearPostOpWithAlphaNotOneRoundsByImplementation) {
  // alpha 174 = 1203.5 - 2.8e-5: fl32 rounds the product to 1203.5, so two roundings give -0.5 and
  // the code 0 (ties to even); one rounding gives -0.50003 and the code -1.
  const float alpha = 0x1.baaaaap+2f, beta = -1204.0f;
  volatile float product = alpha * 174.0f;
  volatile float two = product + beta;
  const float one = std::fma(alpha, 174.0f, beta);
  ASSERT_NE(std::nearbyint(one), std::nearbyint(static_cast<float>(two)));  // the case separates them
  std::string jit_impl, ref_impl;
  const long long jit = linear_post_op(alpha, beta, false, jit_impl), ref = linear_post_op(alpha, beta, true, ref_impl);
  EXPECT_EQ(ref_impl, "ref:any");
  EXPECT_EQ(ref, static_cast<long long>(std::nearbyint(static_cast<float>(two))));
  using i = dnnl::cpu_isa;
  const bool fma = dnnl::get_effective_cpu_isa() != i::sse41 && dnnl::get_effective_cpu_isa() != i::avx;
  EXPECT_EQ(jit, static_cast<long long>(std::nearbyint(fma ? one : static_cast<float>(two))))
      << jit_impl << " at " << isa_name();
  std::printf("linear post-op alpha %a beta %g on 114 + 60: %s at %s gives %lld, %s gives %lld\n",
              static_cast<double>(alpha), static_cast<double>(beta), jit_impl.c_str(), isa_name(), jit,
              ref_impl.c_str(), ref);
}

TEST(crosscheck_onednn_qlinear_binary, AddEqualsTheClause) { check(QEwOp::Add, "add", 600); }
TEST(crosscheck_onednn_qlinear_binary, MulEqualsTheClause) { check(QEwOp::Mul, "mul", 600); }
