// Cross-check of qlinear.onednn (spec/operators_qlinear.md) against the installed oneDNN (Debian
// libdnnl-dev 2.6.3): convolution_forward (NHWC, OHWI weights reordered from format_tag::any) and
// matmul (fully connected with a (1, O) s32 bias; batched matmul with broadcast batch dimensions)
// on random problems (geometry with asymmetric pads, strides, dilations, groups, depthwise
// multipliers; realistic float scales, per-tensor and per-channel; s8 and u8 sources; source,
// weights (matmul) and destination zero points; eltwise_clip for a narrowed clamp) and on
// tie-rich ones (dyadic scales: about half the products land on k + 1/2). Every output must equal
// the exact reference (qlinear_* under QLinearConvention::Onednn), and every parameter set the
// clause rejects (u8 weights, a convolution's weights zero point) must make oneDNN refuse it.
//
// The dispatched instruction set is never assumed. With VNNI (avx512_core_vnni and up, avx2_vnni)
// the int8 kernels are exact for every input. Without it (sse41, avx, avx2, avx512_core) oneDNN
// multiplies u8 x s8 pairs with (v)pmaddubsw, whose int16 pair sums saturate (documented: "the
// user's responsibility"), and its convolution halves the weights of an s8 source
// (scale_adjust 0.5, rounding odd weights); so there the problems take the configuration the
// documentation names as exact: weights even and within s7 [-64, 62]. The run prints the ISA, the
// implementations seen and how many primitives had their weights halved (scale_adjust).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <map>
#include <oneapi/dnnl/dnnl.hpp>
#include <optional>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "onednn_session.h"
#include "qspec/ref/exact.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear.h"

namespace {

using qspec::onednn_session::engine;
using qspec::onednn_session::isa_name;
using qspec::onednn_session::stream;

using namespace qspec::ref;
using namespace qspec::ref::ops;
using dnnl::memory;
using Dims = memory::dims;

enum class Kind { Conv, Fc, Matmul };

struct Problem {
  Kind kind = Kind::Conv;
  IntArray x, w;
  std::optional<IntArray> b;
  QConvGeometry g;
  QLinearParams p;
};

struct Counts {
  long long problems = 0, outputs = 0, ties = 0, rejected = 0, outside_require = 0, halved = 0, diffs = 0;
  std::map<std::string, long long> impls;
};

bool has_vnni() {
  using i = dnnl::cpu_isa;
  const auto isa = dnnl::get_effective_cpu_isa();
  return isa == i::avx512_core_vnni || isa == i::avx512_core_bf16 || isa == i::avx512_core_amx || isa == i::avx2_vnni;
}

float as_float(std::uint32_t b) { return std::bit_cast<float>(b); }

IntArray codes(std::mt19937_64& g, Shape s, long long lo, long long hi, bool even = false) {
  IntArray a(std::move(s));
  std::uniform_int_distribution<long long> d(lo, hi);
  for (auto& v : a.data) {
    long long c = d(g);
    if (even) c &= ~1LL;
    v = Int(c);
  }
  return a;
}

std::uint32_t scale(std::mt19937_64& g, bool tie_rich, int e_lo, int e_hi) {
  std::uniform_int_distribution<int> e(e_lo, e_hi);
  if (tie_rich) return f32_round(Rat(2 * std::uniform_int_distribution<int>(0, 7)(g) + 1) * pow2r(e(g)));
  return (static_cast<std::uint32_t>(127 + e(g)) << 23) | static_cast<std::uint32_t>(g() & 0x7fffffu);
}

Problem draw(std::mt19937_64& g, Kind kind, bool tie_rich, bool exact_everywhere) {
  auto pick = [&](long long lo, long long hi) { return std::uniform_int_distribution<long long>(lo, hi)(g); };
  Problem pr;
  pr.kind = kind;
  const bool u8 = pick(0, 1) == 0;
  pr.p.x_type = u8 ? DType::U8 : DType::I8;
  pr.p.w_type = DType::I8;
  const long long lo = u8 ? 0 : -128, hi = u8 ? 255 : 127;
  const long long wlo = exact_everywhere ? -64 : -128, whi = exact_everywhere ? 62 : 127;
  long long O = 0;
  if (kind == Kind::Fc) {
    const long long N = pick(1, 4), K = pick(1, 40);
    O = pick(1, 16);
    pr.x = codes(g, {N, K}, lo, hi);
    pr.w = codes(g, {O, K}, wlo, whi, exact_everywhere);
  } else if (kind == Kind::Matmul) {
    const long long M = pick(1, 5), K = pick(1, 24);
    O = pick(1, 8);
    const long long shape = pick(0, 2);
    pr.x = codes(g, shape == 0 ? Shape{M, K} : Shape{2, M, K}, lo, hi);
    pr.w = codes(g, shape == 1 ? Shape{K, O} : shape == 2 ? Shape{1, K, O} : Shape{K, O}, wlo, whi, exact_everywhere);
  } else {
    const long long type = pick(0, 2);  // 0: dense, 1: grouped, 2: depthwise with a multiplier
    const long long G = type == 0 ? 1 : type == 1 ? pick(2, 3) : pick(1, 4);
    const long long cg = type == 2 ? 1 : pick(1, 4), og = type == 2 ? pick(1, 3) : pick(1, 4);
    const long long N = pick(1, 2), KH = pick(1, 3), KW = pick(1, 3);
    pr.g.groups = G;
    pr.g.strides = {pick(1, 2), pick(1, 2)};
    pr.g.dilations = {pick(1, 2), pick(1, 2)};
    for (auto& p : pr.g.pads) p = pick(0, 2);
    const long long eh = pr.g.dilations[0] * (KH - 1) + 1, ew = pr.g.dilations[1] * (KW - 1) + 1;
    const long long H = std::max(1LL, eh - pr.g.pads[0] - pr.g.pads[2]) + pick(0, 4);
    const long long W = std::max(1LL, ew - pr.g.pads[1] - pr.g.pads[3]) + pick(0, 4);
    O = G * og;
    pr.x = codes(g, {N, H, W, G * cg}, lo, hi);
    pr.w = codes(g, {O, KH, KW, cg}, wlo, whi, exact_everywhere);
  }
  if (kind != Kind::Matmul && pick(0, 3) != 0) pr.b = codes(g, {O}, -5000, 5000);
  pr.p.x_zero_point = Int(pick(lo, hi));
  pr.p.y_zero_point = Int(pick(lo, hi));
  if (kind != Kind::Conv && pick(0, 1) == 0) pr.p.w_zero_point = Int(pick(-3, 3) * 2);
  pr.p.x_scale = scale(g, tie_rich, tie_rich ? -1 : -8, tie_rich ? 0 : -4);
  pr.p.y_scale = tie_rich ? 0x3f800000u : scale(g, false, -4, -1);
  const long long channels = pick(0, 1) == 0 ? O : 1;
  pr.p.w_scales.clear();
  for (long long o = 0; o < channels; ++o)
    pr.p.w_scales.push_back(scale(g, tie_rich, tie_rich ? -4 : -10, tie_rich ? -1 : -3));
  if (tie_rich) {  // codes near the zero points, so that the half-integers are not saturated away
    std::uniform_int_distribution<long long> d(-4, 4);
    const auto zx = static_cast<long long>(pr.p.x_zero_point), zw = static_cast<long long>(pr.p.w_zero_point);
    for (auto& v : pr.x.data) v = Int(std::clamp(zx + d(g), lo, hi));
    for (auto& v : pr.w.data) v = Int(std::clamp(zw + 2 * d(g), wlo, whi));
    if (pr.b)
      for (auto& v : pr.b->data) v = Int(d(g) * 8);
  }
  if (pick(0, 3) == 0) {  // a narrowed clamp: eltwise_clip
    pr.p.y_min = Int(pick(lo, hi - 10));
    pr.p.y_max = Int(pick(static_cast<long long>(*pr.p.y_min), hi));
  }
  if (const long long k = pick(0, 29); k == 0) {  // parameters the clause rejects
    pr.p.w_type = DType::U8;
    for (auto& v : pr.w.data) v = Int(static_cast<long long>(v) + 128);
  } else if (k == 1 && kind == Kind::Conv) {
    pr.p.w_zero_point = Int(1);
  }
  return pr;
}

enum class Verdict { Valid, Rejected, OutsideRequire };

Verdict reference(const Problem& pr, IntArray& y) {
  try {
    const IntArray* b = pr.b ? &*pr.b : nullptr;
    if (pr.kind == Kind::Conv) y = qlinear_conv2d(pr.x, pr.w, b, pr.g, pr.p, QLinearConvention::Onednn);
    if (pr.kind == Kind::Fc) y = qlinear_fully_connected(pr.x, pr.w, b, pr.p, QLinearConvention::Onednn);
    if (pr.kind == Kind::Matmul) y = qlinear_matmul(pr.x, pr.w, pr.p, QLinearConvention::Onednn);
  } catch (const ErrorIf&) {
    return Verdict::Rejected;
  } catch (const RequireViolated&) {
    return Verdict::OutsideRequire;
  }
  return Verdict::Valid;
}

Dims row_major(const Dims& d) {
  Dims s(d.size(), 1);
  for (std::size_t i = d.size(); i-- > 1;) s[i - 1] = s[i] * d[i];
  return s;
}
std::vector<std::uint8_t> bytes(const IntArray& a) {
  std::vector<std::uint8_t> b;
  for (const auto& v : a.data) b.push_back(static_cast<std::uint8_t>(static_cast<long long>(v)));
  return b;
}

// Runs oneDNN as a user configures it; nullopt when it refuses the configuration.
std::optional<std::vector<long long>> run_onednn(const Problem& pr, Counts& c) {
  const auto& p = pr.p;
  const auto dt = [](DType t) { return t == DType::U8 ? memory::data_type::u8 : memory::data_type::s8; };
  const long long O = pr.kind == Kind::Matmul ? pr.w.shape.back() : pr.w.shape[0];
  std::vector<float> scales;
  for (auto w : p.w_scales) scales.push_back(as_float(p.x_scale) * as_float(w) / as_float(p.y_scale));
  dnnl::primitive_attr attr;
  const int rank = pr.kind == Kind::Matmul ? static_cast<int>(std::max(pr.x.shape.size(), pr.w.shape.size())) : 2;
  attr.set_output_scales(scales.size() == 1 ? 0 : 1 << (pr.kind == Kind::Matmul ? rank - 1 : 1), scales);
  const auto zp = [](const Int& v) { return static_cast<std::int32_t>(static_cast<long long>(v)); };
  if (p.x_zero_point != 0) attr.set_zero_points(DNNL_ARG_SRC, 0, {zp(p.x_zero_point)});
  if (p.w_zero_point != 0) attr.set_zero_points(DNNL_ARG_WEIGHTS, 0, {zp(p.w_zero_point)});
  if (p.y_zero_point != 0) attr.set_zero_points(DNNL_ARG_DST, 0, {zp(p.y_zero_point)});
  if (p.y_min || p.y_max) {
    dnnl::post_ops po;
    po.append_eltwise(1.0f, dnnl::algorithm::eltwise_clip,
                      static_cast<float>(static_cast<long long>(*p.y_min - p.y_zero_point)),
                      static_cast<float>(static_cast<long long>(*p.y_max - p.y_zero_point)));
    attr.set_post_ops(po);
  }
  std::vector<std::uint8_t> x = bytes(pr.x), w = bytes(pr.w);
  std::vector<std::int32_t> b;
  if (pr.b)
    for (const auto& v : pr.b->data) b.push_back(zp(v));
  Dims src_dims, src_str, wei_dims, wei_str, dst_dims, dst_str, bias_dims;
  if (pr.kind == Kind::Conv) {
    const long long N = pr.x.shape[0], H = pr.x.shape[1], W = pr.x.shape[2], C = pr.x.shape[3];
    const long long KH = pr.w.shape[1], KW = pr.w.shape[2], Cg = pr.w.shape[3], G = pr.g.groups, og = O / G;
    const auto [oh, ow] = qlinear_conv2d_out_size(pr.x.shape, pr.w.shape, pr.g, QLinearConvention::Onednn);
    src_dims = {N, C, H, W}, src_str = {H * W * C, 1, W * C, C};
    dst_dims = {N, O, oh, ow}, dst_str = {oh * ow * O, 1, ow * O, O};
    wei_dims = G == 1 ? Dims{O, Cg, KH, KW} : Dims{G, og, Cg, KH, KW};
    wei_str = G == 1 ? Dims{KH * KW * Cg, 1, KW * Cg, Cg} : Dims{og * KH * KW * Cg, KH * KW * Cg, 1, KW * Cg, Cg};
    bias_dims = {O};
  } else if (pr.kind == Kind::Fc) {
    const long long N = pr.x.shape[0], K = pr.x.shape[1];
    src_dims = {N, K}, src_str = {K, 1}, wei_dims = {K, O}, wei_str = {1, K}, dst_dims = {N, O};
    dst_str = row_major(dst_dims), bias_dims = {1, O};
  } else {
    Shape a = pr.x.shape, bw = pr.w.shape;
    while (a.size() < static_cast<std::size_t>(rank)) a.insert(a.begin(), 1);
    while (bw.size() < static_cast<std::size_t>(rank)) bw.insert(bw.begin(), 1);
    src_dims.assign(a.begin(), a.end()), wei_dims.assign(bw.begin(), bw.end());
    src_str = row_major(src_dims), wei_str = row_major(wei_dims);
    dst_dims = src_dims;
    for (int i = 0; i + 2 < rank; ++i) dst_dims[i] = std::max(src_dims[i], wei_dims[i]);
    dst_dims[rank - 1] = O;
    dst_str = row_major(dst_dims);
  }
  const memory::desc src_md(src_dims, dt(p.x_type), src_str), dst_md(dst_dims, dt(p.x_type), dst_str);
  const memory::desc user_wei_md(wei_dims, dt(p.w_type), wei_str),
      wei_any(wei_dims, dt(p.w_type), memory::format_tag::any);
  const memory::desc bias_md =
      pr.b ? memory::desc(bias_dims, memory::data_type::s32, row_major(bias_dims)) : memory::desc();
  dnnl::primitive prim;
  memory::desc wei_md;
  try {
    if (pr.kind == Kind::Conv) {
      using dnnl::convolution_forward;
      const Dims s{pr.g.strides[0], pr.g.strides[1]}, d{pr.g.dilations[0] - 1, pr.g.dilations[1] - 1};
      const Dims l{pr.g.pads[0], pr.g.pads[1]}, r{pr.g.pads[2], pr.g.pads[3]};
      const auto fwd = dnnl::prop_kind::forward_inference;
      const auto alg = dnnl::algorithm::convolution_direct;
      const auto desc = pr.b ? convolution_forward::desc(fwd, alg, src_md, wei_any, bias_md, dst_md, s, d, l, r)
                             : convolution_forward::desc(fwd, alg, src_md, wei_any, dst_md, s, d, l, r);
      const convolution_forward::primitive_desc pd(desc, attr, engine());
      wei_md = pd.weights_desc(), prim = convolution_forward(pd);
      ++c.impls[pd.impl_info_str()];
    } else {
      const auto desc =
          pr.b ? dnnl::matmul::desc(src_md, wei_any, bias_md, dst_md) : dnnl::matmul::desc(src_md, wei_any, dst_md);
      const dnnl::matmul::primitive_desc pd(desc, attr, engine());
      wei_md = pd.weights_desc(), prim = dnnl::matmul(pd);
      ++c.impls[pd.impl_info_str()];
    }
  } catch (const dnnl::error& e) {
    if (e.status == dnnl_unimplemented || e.status == dnnl_invalid_arguments) return std::nullopt;
    throw;
  }
  const dnnl_memory_desc_t& raw = wei_md.data;
  if ((raw.extra.flags & dnnl_memory_extra_flag_scale_adjust) && raw.extra.scale_adjust != 1.0f) ++c.halved;
  memory src(src_md, engine(), x.data()), user_wei(user_wei_md, engine(), w.data()), wei(wei_md, engine());
  memory dst(dst_md, engine());
  dnnl::reorder(user_wei, wei).execute(stream(), user_wei, wei);
  std::unordered_map<int, memory> args{{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_DST, dst}};
  if (pr.b) args[DNNL_ARG_BIAS] = memory(bias_md, engine(), b.data());
  prim.execute(stream(), args);
  stream().wait();
  long long n = 1;
  for (auto v : dst_dims) n *= v;
  std::vector<long long> y(static_cast<std::size_t>(n));
  const void* h = dst.get_data_handle();
  for (std::size_t i = 0; i < y.size(); ++i)
    y[i] = p.x_type == DType::U8 ? static_cast<const std::uint8_t*>(h)[i] : static_cast<const std::int8_t*>(h)[i];
  return y;
}

// The number of outputs whose product fl32(fl32(acc) + fl32(b)) * S is an exact tie k + 1/2.
long long ties_of(const Problem& pr) {
  IntArray acc;
  if (pr.kind == Kind::Conv) {
    const auto [oh, ow] = qlinear_conv2d_out_size(pr.x.shape, pr.w.shape, pr.g, QLinearConvention::Onednn);
    acc = qlinear_acc_conv2d(pr.x, pr.w, pr.b ? &*pr.b : nullptr, pr.g, pr.p.x_zero_point, pr.p.w_zero_point, oh, ow);
  } else if (pr.kind == Kind::Fc) {
    acc = qlinear_acc_fully_connected(pr.x, pr.w, pr.b ? &*pr.b : nullptr, pr.p.x_zero_point, pr.p.w_zero_point);
  } else {
    acc = qlinear_acc_matmul(pr.x, pr.w, pr.p.x_zero_point, pr.p.w_zero_point);
  }
  const auto channels = static_cast<std::size_t>(acc.shape.back());
  long long t = 0;
  for (std::size_t i = 0; i < acc.data.size(); ++i) {
    const std::uint32_t s =
        qlinear_fp32_scale(pr.p.x_scale, pr.p.w_scales[pr.p.w_scales.size() == 1 ? 0 : i % channels], pr.p.y_scale);
    const Rat v = f32_value(f32_mul(f32_from_int(acc.data[i]), s)) * 2;  // |acc| < 2^24: fl32(acc + b) exact
    t += v.denominator() == 1 && v.numerator() % 2 != 0 ? 1 : 0;
  }
  return t;
}

void sweep(Kind kind, int random, int tie_rich, std::uint64_t seed, const char* name) {
  std::mt19937_64 g(seed);
  const bool exact_everywhere = !has_vnni();
  Counts c;
  for (int i = 0; i < random + tie_rich; ++i) {
    const Problem pr = draw(g, kind, i >= random, exact_everywhere);
    IntArray want;
    const Verdict v = reference(pr, want);
    if (v == Verdict::OutsideRequire) {
      ++c.outside_require;
      continue;
    }
    ++c.problems;
    const auto got = run_onednn(pr, c);
    if (v == Verdict::Rejected) {
      ++c.rejected;
      EXPECT_FALSE(got.has_value()) << name << " #" << i << ": oneDNN accepts parameters the clause rejects";
      continue;
    }
    ASSERT_TRUE(got.has_value()) << name << " #" << i << ": oneDNN refuses parameters the clause accepts";
    ASSERT_EQ(got->size(), want.data.size());
    for (std::size_t k = 0; k < got->size(); ++k) c.diffs += Int((*got)[k]) != want.data[k] ? 1 : 0;
    c.outputs += static_cast<long long>(got->size());
    c.ties += ties_of(pr);
  }
  std::string impls;
  for (const auto& [k, n] : c.impls) impls += " " + k + "=" + std::to_string(n);
  std::printf(
      "crosscheck_onednn_qlinear %s at isa %s%s: %lld problems (%lld rejected as the clause says, %lld outside "
      "its REQUIREs, not run), %lld outputs, %lld exact ties, %lld differences; weights halved in %lld "
      "primitives; implementations:%s\n",
      name, isa_name(), has_vnni() ? " (VNNI: every input)" : " (no VNNI: the exact configuration, even s7 weights)",
      c.problems, c.rejected, c.outside_require, c.outputs, c.ties, c.diffs, c.halved, impls.c_str());
  ::testing::Test::RecordProperty("outputs", std::to_string(c.outputs));
  ::testing::Test::RecordProperty("ties", std::to_string(c.ties));
  EXPECT_EQ(c.diffs, 0);
  EXPECT_GT(c.outputs, 0);
  EXPECT_GT(c.ties, 0);
}

TEST(crosscheck_onednn_qlinear, Conv2d) { sweep(Kind::Conv, 200, 200, 1406, "conv2d"); }
TEST(crosscheck_onednn_qlinear, FullyConnected) { sweep(Kind::Fc, 200, 200, 1416, "fully_connected"); }
TEST(crosscheck_onednn_qlinear, Matmul) { sweep(Kind::Matmul, 200, 200, 1426, "matmul"); }

}  // namespace
