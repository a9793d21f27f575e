// Cross-check of PyTorch 1.13's quantized avg_pool2d (Debian libtorch 1.13.1, no FBGEMM) under the
// onednn and qnnpack engines against the clauses qlinear.avg_pool2d.pytorch_onednn /
// pytorch_qnnpack (the reference's exact IEEE steps, reference/src/ops_qlinear_pool_pytorch.cc).
//
// What is pinned (PyTorch v1.13.1 aten/src/ATen/native/quantized/cpu/AveragePool2d.cpp, measured
// here output for output): a ChannelsLast input runs ATen's _qavg_pool_nhwc_kernel (onednn: quint8
// and qint8; qnnpack: qint8): y = sat(rne(fl32(fl32(acc) fl32(1 / d))) + z); under qnnpack a quint8
// input runs QNNPACK's average pooling: S = fl32(x_s / fl32(x_s K)), always / K. Channel counts
// 1..3, 8, 13 and 40 exercise ATen's AVX2 channel blocks (8 lanes) and its scalar remainder.
// Also measured: the NCHW-contiguous kernel adds the zero point before rounding
// (spec/errata.md E-LIBTORCH-POOL-1) and QNNPACK ignores count_include_pad (E-LIBTORCH-POOL-2).
//
// Skipped (GTEST_SKIP, reported as SKIP by CTest) when the libtorch build lacks the engine.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "qspec/ref/exact.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear_pool_pytorch.h"

namespace {

using namespace qspec::ref;
using namespace qspec::ref::ops;

struct Problem {
  IntArray x;  // NHWC
  QPoolGeometry g;
  QPoolParams p;
  bool include = false;
};

std::int64_t pick(std::mt19937_64& g, std::int64_t lo, std::int64_t hi) {
  return std::uniform_int_distribution<std::int64_t>(lo, hi)(g);
}

Problem draw(std::mt19937_64& g, bool u8, bool tie_rich, bool qnnpack_u8) {
  Problem pr;
  pr.p.type = u8 ? DType::U8 : DType::I8;
  const std::int64_t pow2[] = {1, 2, 4};
  if (tie_rich) {
    pr.g.kernel = {pow2[pick(g, 0, 2)], pow2[pick(g, 0, 2)]};
  } else {
    pr.g.kernel = {pick(g, 1, 4), pick(g, 1, 5)};
  }
  if (qnnpack_u8 && pr.g.kernel[0] * pr.g.kernel[1] == 1) pr.g.kernel[1] = 2;
  pr.g.strides = {pick(g, 1, 2), pick(g, 1, 2)};
  const std::int64_t ph = pick(g, 0, pr.g.kernel[0] / 2), pw = pick(g, 0, pr.g.kernel[1] / 2);
  pr.g.pads = {ph, pw, ph, pw};
  pr.include = pick(g, 0, 1) == 1;
  const std::int64_t channels[] = {1, 2, 3, 8, 13, 40};
  const std::int64_t c = channels[pick(g, 0, 5)];
  const std::int64_t h = std::max<std::int64_t>(1, pr.g.kernel[0] - 2 * ph) + pick(g, 0, 4);
  const std::int64_t w = std::max<std::int64_t>(1, pr.g.kernel[1] - 2 * pw) + pick(g, 0, 4);
  pr.x = IntArray(Shape{pick(g, 1, 2), h, w, c});
  const std::int64_t lo = u8 ? 0 : -128, hi = u8 ? 255 : 127;
  const auto e = static_cast<std::uint32_t>(pick(g, -20, 10) + 127);
  const auto m = static_cast<std::uint32_t>(pick(g, 0, 1) == 0 ? pick(g, 0, (1 << 23) - 1) : pick(g, 0, 15) << 19);
  pr.p.x_scale = (e << 23) | m;
  pr.p.x_zero_point = Int(pick(g, lo, hi));
  const std::int64_t center = pick(g, lo, hi), spread = pick(g, 1, 128);
  for (auto& v : pr.x.data) v = Int(std::clamp(center + pick(g, -spread, spread), lo, hi));
  return pr;
}

// at::avg_pool2d on the ChannelsLast quantized tensor holding pr.x; the output codes in NHWC order.
std::vector<long long> run_torch(const Problem& pr, bool channels_last = true) {
  const bool u8 = pr.p.type == DType::U8;
  at::Tensor raw = at::empty({pr.x.dim(0), pr.x.dim(1), pr.x.dim(2), pr.x.dim(3)}, u8 ? at::kByte : at::kChar);
  for (std::size_t i = 0; i < pr.x.data.size(); ++i) {
    const auto v = static_cast<long long>(pr.x.data[i]);
    if (u8)
      raw.data_ptr<std::uint8_t>()[i] = static_cast<std::uint8_t>(v);
    else
      raw.data_ptr<std::int8_t>()[i] = static_cast<std::int8_t>(v);
  }
  const double scale = static_cast<double>(std::bit_cast<float>(pr.p.x_scale));
  at::Tensor q = at::_make_per_tensor_quantized_tensor(raw.permute({0, 3, 1, 2}), scale,
                                                       static_cast<std::int64_t>(pr.p.x_zero_point));
  q = q.contiguous(channels_last ? at::MemoryFormat::ChannelsLast : at::MemoryFormat::Contiguous);
  const at::Tensor y = at::avg_pool2d(q, {pr.g.kernel[0], pr.g.kernel[1]}, {pr.g.strides[0], pr.g.strides[1]},
                                      {pr.g.pads[0], pr.g.pads[1]}, false, pr.include, c10::nullopt);
  EXPECT_EQ(y.q_scale(), scale);  // the output keeps x's parameters
  EXPECT_EQ(y.q_zero_point(), static_cast<std::int64_t>(pr.p.x_zero_point));
  const at::Tensor r = y.int_repr().permute({0, 2, 3, 1}).contiguous();
  std::vector<long long> out(static_cast<std::size_t>(r.numel()));
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i] = u8 ? r.data_ptr<std::uint8_t>()[i] : r.data_ptr<std::int8_t>()[i];
  return out;
}

bool use_engine(QPoolTorchEngine e) {
  const auto want = e == QPoolTorchEngine::Qnnpack ? at::QEngine::QNNPACK : at::QEngine::ONEDNN;
  const auto& engines = at::globalContext().supportedQEngines();
  if (std::find(engines.begin(), engines.end(), want) == engines.end()) return false;
  at::globalContext().setQEngine(want);
  at::set_num_threads(1);
  return true;
}

// Ties: outputs whose value before the rounding, fl32(fl32(acc) m), is an exact k + 1/2.
long long ties_of(const Problem& pr, QPoolTorchEngine e) {
  const auto [oh, ow] = qlinear_pool_out_size(pr.x.shape, pr.g);
  const std::int64_t K = pr.g.kernel[0] * pr.g.kernel[1];
  const bool qnnpack = e == QPoolTorchEngine::Qnnpack && pr.p.type == DType::U8;
  long long n = 0;
  for (const auto& w : qlinear_pool_window_codes(pr.x, pr.g, oh, ow)) {
    Int acc(0);
    for (const auto& v : w) acc += v - pr.p.x_zero_point;
    const std::int64_t d = pr.include ? K : static_cast<std::int64_t>(w.size());
    const std::uint32_t m = qnnpack ? qlinear_pytorch_qnnpack_avgpool_scale(pr.p.x_scale, K)
                                    : qlinear_pytorch_aten_avgpool_multiplier(pr.p.x_scale, d);
    const Rat v = f32_value(f32_mul(f32_from_int(acc), m)) * 2;
    if (denominator(v) == 1 && numerator(v) % 2 != 0) ++n;
  }
  return n;
}

void sweep(QPoolTorchEngine e, bool u8, int random_problems, int tie_problems, std::uint64_t seed) {
  if (!use_engine(e)) GTEST_SKIP() << "this libtorch build has no such quantized engine";
  std::mt19937_64 g(seed);
  long long outputs = 0, ties = 0, diffs = 0;
  const bool qnnpack_u8 = e == QPoolTorchEngine::Qnnpack && u8;
  for (int i = 0; i < random_problems + tie_problems; ++i) {
    const Problem pr = draw(g, u8, i >= random_problems, qnnpack_u8);
    const IntArray want = qlinear_avg_pool2d_pytorch(pr.x, pr.g, pr.include, pr.p, e);
    const auto got = run_torch(pr);
    ASSERT_EQ(got.size(), want.data.size());
    for (std::size_t j = 0; j < got.size(); ++j) {
      if (Int(got[j]) != want.data[j] && ++diffs <= 5)
        ADD_FAILURE() << "problem " << i << " output " << j << ": libtorch " << got[j] << ", clause " << want.data[j];
    }
    outputs += static_cast<long long>(got.size());
    ties += ties_of(pr, e);
  }
  ::testing::Test::RecordProperty("outputs", std::to_string(outputs));
  ::testing::Test::RecordProperty("ties", std::to_string(ties));
  std::printf("%lld outputs (%lld exact ties), %lld differences\n", outputs, ties, diffs);
  EXPECT_EQ(diffs, 0);
  EXPECT_GT(ties, 0);
}

}  // namespace

TEST(crosscheck_libtorch_qlinear_pool, OnednnUint8MatchesTheClause) {
  sweep(QPoolTorchEngine::Onednn, true, 150, 150, 41);
}
TEST(crosscheck_libtorch_qlinear_pool, OnednnInt8MatchesTheClause) {
  sweep(QPoolTorchEngine::Onednn, false, 150, 150, 42);
}
TEST(crosscheck_libtorch_qlinear_pool, QnnpackUint8MatchesTheClause) {
  sweep(QPoolTorchEngine::Qnnpack, true, 150, 150, 43);
}
TEST(crosscheck_libtorch_qlinear_pool, QnnpackInt8MatchesTheClause) {
  sweep(QPoolTorchEngine::Qnnpack, false, 150, 150, 44);
}

// spec/errata.md E-LIBTORCH-POOL-1: 40 channels of reals (-3, 2), zero point 3, kernel 1x2.
TEST(crosscheck_libtorch_qlinear_pool, NchwContiguousAddsTheZeroPointBeforeRounding) {
  if (!use_engine(QPoolTorchEngine::Onednn)) GTEST_SKIP() << "this libtorch build has no onednn engine";
  Problem pr;
  pr.p.type = DType::U8;
  pr.p.x_zero_point = Int(3);
  pr.g.kernel = {1, 2};
  pr.g.strides = {1, 2};
  pr.x = IntArray(Shape{1, 1, 2, 40});
  for (std::size_t i = 0; i < 80; ++i) pr.x.data[i] = Int(i < 40 ? 0 : 5);
  EXPECT_EQ(run_torch(pr, true).at(0), 3);   // rne(-0.5) + 3
  EXPECT_EQ(run_torch(pr, false).at(0), 2);  // nearbyint(-0.5 + 3)
}

// spec/errata.md E-LIBTORCH-POOL-2: codes 5..20 (zero point 5), kernel 2, stride 2, padding 1.
TEST(crosscheck_libtorch_qlinear_pool, QnnpackUint8IgnoresCountIncludePad) {
  Problem pr;
  pr.p.type = DType::U8;
  pr.p.x_zero_point = Int(5);
  pr.g.kernel = {2, 2};
  pr.g.strides = {2, 2};
  pr.g.pads = {1, 1, 1, 1};
  pr.x = IntArray(Shape{1, 4, 4, 1});
  for (std::size_t i = 0; i < 16; ++i) pr.x.data[i] = Int(5 + static_cast<long long>(i));
  pr.include = false;
  if (!use_engine(QPoolTorchEngine::Onednn)) GTEST_SKIP() << "this libtorch build has no onednn engine";
  EXPECT_EQ(run_torch(pr), (std::vector<long long>{5, 7, 8, 11, 13, 14, 17, 19, 20}));
  if (!use_engine(QPoolTorchEngine::Qnnpack)) GTEST_SKIP() << "this libtorch build has no qnnpack engine";
  EXPECT_EQ(run_torch(pr), (std::vector<long long>{5, 6, 6, 8, 13, 9, 8, 12, 9}));
}
