// Cross-check of the onednn pooling conventions (spec/operators_qlinear_onednn_pool.md) against the
// installed oneDNN (Debian libdnnl-dev 2.6.3): pooling_v2_forward on s8/u8 NHWC codes
// (forward_inference), average pooling with and without the padding counted, global average
// pooling (the kernel = the image) and max pooling (dilations), with and without the eltwise_clip
// post-op, on random problems, tie-rich ones (power-of-two counts) and reciprocal-rich ones (counts
// 14, 26, 28, 30 with sums where the jit kernels' fl32(s) * fl32(1 / c) and ref_pooling's division
// round differently). Every output must equal the clause's reference, and every parameter set the
// clause rejects must make oneDNN refuse it.
//
// The dispatched instruction set is read, never assumed: the clause leaves open (REQUIRE) the band
// N C min(H, OH) min(W, OW) < 16 where oneDNN picks ref below AVX-512 and jit with it; there the
// check models the implementation this machine's ISA selects, and it checks that the
// implementation oneDNN names (impl_info_str: "jit_int:<isa>" or "ref:any") is the one the clause's
// dispatch rule predicts. Run it under ONEDNN_MAX_CPU_ISA=SSE41 / AVX2 / ALL to see each ISA.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <oneapi/dnnl/dnnl.hpp>
#include <random>
#include <string>
#include <vector>

#include "onednn_session.h"
#include "qspec/ref/exact.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear_pool.h"

namespace {

using qspec::onednn_session::engine;
using qspec::onednn_session::isa_name;
using qspec::onednn_session::stream;

using namespace qspec::ref;
using namespace qspec::ref::ops;
using dnnl::memory;
using Dims = memory::dims;

enum class Kind { Avg, Gap, Max };

struct Problem {
  Kind kind = Kind::Avg;
  IntArray x;
  QPoolGeometry g;
  QPoolParams p;
  bool include = false;
};

struct Counts {
  long long problems = 0, outputs = 0, ties = 0, differs = 0, rejected = 0, band = 0, diffs = 0;
  std::map<std::string, long long> impls;
};

bool has_avx512_core() {
  using i = dnnl::cpu_isa;
  const auto isa = dnnl::get_effective_cpu_isa();
  return isa == i::avx512_core || isa == i::avx512_core_vnni || isa == i::avx512_core_bf16 || isa == i::avx512_core_amx;
}
long long lo_of(DType t) { return t == DType::I8 ? -128 : 0; }
long long hi_of(DType t) { return t == DType::I8 ? 127 : 255; }

// Sums s over n taps (in T's range) where the reciprocal and the division round differently, found
// with this machine's binary32 (only to pick inputs: the expected outputs are the reference's).
std::vector<long long> differing_sums(long long n, DType t) {
  std::vector<long long> out;
  for (long long s = lo_of(t) * n; s <= hi_of(t) * n; ++s) {
    volatile float fs = static_cast<float>(s), fc = static_cast<float>(n);
    volatile float r = 1.0f / fc;
    volatile float jit = fs * r, ref = fs / fc;
    if (std::nearbyint(jit) != std::nearbyint(ref)) out.push_back(s);
  }
  return out;
}

// mode 0: random; 1: tie-rich (power-of-two kernels); 2: reciprocal-rich (a whole-image window
// whose count has differing sums, each channel one of them).
Problem draw(std::mt19937_64& g, Kind kind, int mode) {
  auto pick = [&](long long lo, long long hi) { return std::uniform_int_distribution<long long>(lo, hi)(g); };
  Problem pr;
  pr.kind = kind;
  pr.p.type = pick(0, 1) == 0 ? DType::U8 : DType::I8;
  const long long lo = lo_of(pr.p.type), hi = hi_of(pr.p.type);
  Shape s;
  if (mode == 2 && kind != Kind::Max) {
    static const std::array<std::array<long long, 2>, 4> dims{{{2, 7}, {2, 13}, {4, 7}, {5, 6}}};
    const auto d = dims[static_cast<std::size_t>(pick(0, 3))];
    static std::map<std::pair<long long, int>, std::vector<long long>> cache;
    auto& sums = cache[{d[0] * d[1], static_cast<int>(pr.p.type)}];
    if (sums.empty()) sums = differing_sums(d[0] * d[1], pr.p.type);
    const long long C = pick(1, 24), n = d[0] * d[1];
    pr.x = IntArray(Shape{1, d[0], d[1], C});
    for (long long c = 0; c < C; ++c) {
      const long long sum = sums[static_cast<std::size_t>(pick(0, static_cast<long long>(sums.size()) - 1))];
      const long long q = sum >= 0 ? sum / n : -((-sum + n - 1) / n), extra = sum - q * n;
      for (long long i = 0; i < n; ++i) pr.x.data[static_cast<std::size_t>(i * C + c)] = Int(q + (i < extra ? 1 : 0));
    }
    pr.g.kernel = {d[0], d[1]};
    pr.include = pick(0, 1) == 0;
  } else {
    if (kind == Kind::Gap) {
      s = {pick(1, 2), pick(1, 6), pick(1, 6), pick(1, 20)};
      if (mode == 1) s[1] = 1LL << pick(0, 2), s[2] = 1LL << pick(0, 2);
    } else {
      auto& g2 = pr.g;
      g2.kernel = mode == 1 ? std::array<std::int64_t, 2>{1LL << pick(0, 2), 1LL << pick(0, 2)}
                            : std::array<std::int64_t, 2>{pick(1, 4), pick(1, 7)};
      g2.strides = {pick(1, 2), pick(1, 2)};
      if (kind == Kind::Max) g2.dilations = {pick(1, 2), pick(1, 2)};
      if (kind == Kind::Avg) pr.include = pick(0, 1) == 0;
      for (std::size_t i = 0; i < 4; ++i) {
        const long long k = g2.kernel[i % 2];
        g2.pads[i] = pick(0, 2) == 0 ? 0 : pick(0, kind == Kind::Avg && !pr.include ? k - 1 : k);
      }
      const long long eh = g2.dilations[0] * (g2.kernel[0] - 1) + 1, ew = g2.dilations[1] * (g2.kernel[1] - 1) + 1;
      s = {pick(1, 2), std::max<long long>(1, eh - g2.pads[0] - g2.pads[2]) + pick(0, 3),
           std::max<long long>(1, ew - g2.pads[1] - g2.pads[3]) + pick(0, 3), pick(1, 24)};
    }
    pr.x = IntArray(s);
    const long long center = pick(lo, hi), spread = pick(1, 255);
    for (auto& v : pr.x.data) v = Int(std::clamp(center + pick(-spread, spread), lo, hi));
  }
  const bool padded = std::any_of(pr.g.pads.begin(), pr.g.pads.end(), [](std::int64_t v) { return v != 0; });
  pr.p.x_zero_point = pr.p.y_zero_point = Int(pr.include && padded ? 0 : pick(lo, hi));
  pr.p.x_scale = pr.p.y_scale = 0x3c000000u + static_cast<std::uint32_t>(pick(0, (1 << 23) - 1));
  if (pick(0, 3) == 0) {
    const long long a = pick(lo, hi);
    pr.p.y_min = Int(a);
    pr.p.y_max = Int(pick(a, hi));
  }
  return pr;
}

// The clause's output, and in the ISA-dependent band the output of the implementation this ISA runs.
IntArray expected(const Problem& pr, bool* band) {
  *band = false;
  try {
    if (pr.kind == Kind::Avg) return qlinear_avg_pool2d(pr.x, pr.g, pr.include, pr.p, QPoolConvention::OneDnn);
    if (pr.kind == Kind::Gap) return qlinear_global_avg_pool(pr.x, pr.p, QPoolConvention::OneDnn);
    return qlinear_max_pool2d(pr.x, pr.g, pr.p, QPoolConvention::OneDnn);
  } catch (const RequireViolated&) {
    *band = true;
  }
  QPoolGeometry g = pr.g;
  if (pr.kind == Kind::Gap) g.kernel = {pr.x.dim(1), pr.x.dim(2)};
  const auto [oh, ow] = qlinear_pool_out_size(pr.x.shape, g);
  const auto path = has_avx512_core() ? OneDnnPoolPath::Jit : OneDnnPoolPath::Ref;
  IntArray y(Shape{pr.x.dim(0), oh, ow, pr.x.dim(3)});
  const auto windows = qlinear_pool_window_codes(pr.x, g, oh, ow);
  for (std::size_t i = 0; i < windows.size(); ++i) {
    Int s(0);
    for (const auto& v : windows[i]) s += v;
    const std::int64_t count =
        pr.kind == Kind::Avg && !pr.include ? static_cast<std::int64_t>(windows[i].size()) : g.kernel[0] * g.kernel[1];
    y.data[i] = qlinear_onednn_avgpool_output(s, count, path, pr.p);
  }
  return y;
}

// Runs the problem on oneDNN; false when oneDNN refuses the configuration.
bool run(const Problem& pr, std::vector<long long>& out, std::string& impl) {
  const auto dt = pr.p.type == DType::U8 ? memory::data_type::u8 : memory::data_type::s8;
  QPoolGeometry g = pr.g;
  if (pr.kind == Kind::Gap) g.kernel = {pr.x.dim(1), pr.x.dim(2)};
  const auto [oh, ow] = qlinear_pool_out_size(pr.x.shape, g);
  const Dims src{pr.x.dim(0), pr.x.dim(3), pr.x.dim(1), pr.x.dim(2)}, dst{pr.x.dim(0), pr.x.dim(3), oh, ow};
  const memory::desc smd(src, dt, memory::format_tag::nhwc), dmd(dst, dt, memory::format_tag::nhwc);
  const auto alg = pr.kind == Kind::Max                 ? dnnl::algorithm::pooling_max
                   : pr.include || pr.kind == Kind::Gap ? dnnl::algorithm::pooling_avg_include_padding
                                                        : dnnl::algorithm::pooling_avg_exclude_padding;
  dnnl::primitive_attr attr;
  dnnl::pooling_v2_forward::primitive_desc pd;
  try {
    if (pr.p.y_min || pr.p.y_max) {
      dnnl::post_ops po;
      po.append_eltwise(1.0f, dnnl::algorithm::eltwise_clip,
                        static_cast<float>(static_cast<long long>(pr.p.y_min.value_or(Int(lo_of(pr.p.type))))),
                        static_cast<float>(static_cast<long long>(pr.p.y_max.value_or(Int(hi_of(pr.p.type))))));
      attr.set_post_ops(po);
    }
    const dnnl::pooling_v2_forward::desc d(
        dnnl::prop_kind::forward_inference, alg, smd, dmd, {g.strides[0], g.strides[1]}, {g.kernel[0], g.kernel[1]},
        {g.dilations[0] - 1, g.dilations[1] - 1}, {g.pads[0], g.pads[1]}, {g.pads[2], g.pads[3]});
    pd = dnnl::pooling_v2_forward::primitive_desc(d, attr, engine());
  } catch (const dnnl::error&) {
    return false;
  }
  impl = pd.impl_info_str();
  std::vector<std::uint8_t> xb(pr.x.data.size());
  for (std::size_t i = 0; i < xb.size(); ++i) xb[i] = static_cast<std::uint8_t>(static_cast<long long>(pr.x.data[i]));
  memory sm(smd, engine(), xb.data()), dm(dmd, engine());
  dnnl::pooling_v2_forward(pd).execute(stream(), {{DNNL_ARG_SRC, sm}, {DNNL_ARG_DST, dm}});
  stream().wait();
  const auto* p = static_cast<const std::uint8_t*>(dm.get_data_handle());
  out.resize(static_cast<std::size_t>(dst[0] * dst[1] * dst[2] * dst[3]));
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i] = pr.p.type == DType::I8 ? static_cast<std::int8_t>(p[i]) : static_cast<long long>(p[i]);
  return true;
}

// The implementation the clause's dispatch rule predicts: ref when a pad (or an effective end pad)
// is not below its kernel dimension or with a dilation or clip on max pooling; below AVX-512 also
// when N C min(H, OH) min(W, OW) < 16 (sse41's width; avx2 needs 32 and passes to sse41).
bool predicts_jit(const Problem& pr) {
  QPoolGeometry g = pr.g;
  if (pr.kind == Kind::Gap) g.kernel = {pr.x.dim(1), pr.x.dim(2)};
  if (pr.kind == Kind::Max && (g.dilations[0] > 1 || g.dilations[1] > 1 || pr.p.y_min || pr.p.y_max)) return false;
  bool band = false;
  if (qlinear_onednn_pool_path(pr.x.shape, g, &band) == OneDnnPoolPath::Ref) return false;
  return !band || has_avx512_core();
}

void check(Kind kind, const char* name, int problems) {
  std::mt19937_64 g(0x0dd1 + static_cast<int>(kind));
  Counts n;
  for (int i = 0; i < problems; ++i) {
    const int mode = i % 3;
    Problem pr = draw(g, kind, kind == Kind::Max && mode == 2 ? 0 : mode);
    if (i % 25 == 24) {
      // What oneDNN itself refuses: exclude-padding with a pad equal to the kernel (invalid_arguments),
      // or a clip with y_max < y_min (append_eltwise).
      if (kind == Kind::Avg && i % 50 == 49) {
        pr.include = false;
        pr.g.pads[0] = pr.g.kernel[0];
      } else {
        pr.p.y_min = Int(hi_of(pr.p.type));
        pr.p.y_max = Int(lo_of(pr.p.type));
      }
    }
    bool band = false;
    IntArray want;
    bool invalid = false;
    try {
      want = expected(pr, &band);
    } catch (const ErrorIf&) {
      invalid = true;
    }
    std::vector<long long> got;
    std::string impl;
    const bool ran = run(pr, got, impl);
    ++n.problems;
    if (invalid) {
      EXPECT_FALSE(ran) << name << " problem " << i << ": oneDNN accepted what the clause rejects";
      ++n.rejected;
      continue;
    }
    ASSERT_TRUE(ran) << name << " problem " << i << ": oneDNN refused a problem the clause accepts";
    ++n.impls[impl];
    const bool jit = impl.rfind("jit", 0) == 0;
    EXPECT_EQ(jit, predicts_jit(pr)) << name << " problem " << i << ": oneDNN ran " << impl;
    n.band += band ? 1 : 0;
    QPoolGeometry geo = pr.g;
    if (kind == Kind::Gap) geo.kernel = {pr.x.dim(1), pr.x.dim(2)};
    const auto windows = qlinear_pool_window_codes(pr.x, geo, want.dim(1), want.dim(2));
    for (std::size_t j = 0; j < got.size(); ++j) {
      ++n.outputs;
      if (kind != Kind::Max) {
        Int s(0);
        for (const auto& v : windows[j]) s += v;
        const std::int64_t c = kind == Kind::Avg && !pr.include ? static_cast<std::int64_t>(windows[j].size())
                                                                : geo.kernel[0] * geo.kernel[1];
        const long long sl = static_cast<long long>(s);
        if (c > 0 && (2 * sl) % c == 0 && ((2 * sl) / c) % 2 != 0) ++n.ties;  // s / c = k + 1/2
        if (c > 0 && qlinear_onednn_avgpool_output(s, c, OneDnnPoolPath::Jit, pr.p) !=
                         qlinear_onednn_avgpool_output(s, c, OneDnnPoolPath::Ref, pr.p))
          ++n.differs;
      }
      if (Int(got[j]) != want.data[j]) {
        if (++n.diffs <= 5)
          ADD_FAILURE() << name << " problem " << i << " output " << j << ": oneDNN " << got[j] << ", clause "
                        << want.data[j] << " (" << impl << ")";
      }
    }
  }
  std::string impls;
  for (const auto& [k, v] : n.impls) impls += " " + k + "=" + std::to_string(v);
  std::printf(
      "crosscheck_onednn_qlinear_pool %s at isa %s: %lld problems (%lld rejected as the clause says, %lld in the "
      "ISA-dependent band), %lld outputs, %lld exact ties, %lld where the reciprocal and the division differ, %lld "
      "differences; implementations:%s\n",
      name, isa_name(), n.problems, n.rejected, n.band, n.outputs, n.ties, n.differs, n.diffs, impls.c_str());
  EXPECT_EQ(n.diffs, 0);
  EXPECT_GT(n.outputs, 0);
}

}  // namespace

TEST(crosscheck_onednn_qlinear_pool, AvgPool2dEqualsTheClause) { check(Kind::Avg, "avg_pool2d", 300); }
TEST(crosscheck_onednn_qlinear_pool, GlobalAvgPoolEqualsTheClause) { check(Kind::Gap, "global_avg_pool", 150); }
TEST(crosscheck_onednn_qlinear_pool, MaxPool2dEqualsTheClause) { check(Kind::Max, "max_pool2d", 150); }
