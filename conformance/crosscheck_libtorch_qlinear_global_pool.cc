// Cross-check of PyTorch 1.13's quantized global average pooling (Debian libtorch 1.13.1) under
// the onednn and qnnpack engines against qlinear.global_avg_pool.pytorch_onednn / pytorch_qnnpack
// (reference/src/ops_qlinear_pool_pytorch_global.cc).
//
// What is pinned (PyTorch v1.13.1 AdaptiveAveragePooling.cpp, ReduceOps.cpp, measured here output
// for output): adaptive_avg_pool2d(x, 1) on a ChannelsLast tensor (ATen's _qadaptive_avg_pool_kernel;
// QNNPACK's average pooling for quint8 under qnnpack); under qnnpack, quint8 x.mean((2, 3)) too
// (QNNPACK's global average pooling). Channel counts 1..3, 8, 13, 40 reach ATen's vector blocks and
// the scalar remainder. Also measured: under onednn, mean((2, 3)) and the NCHW-contiguous kernel
// compute other functions (spec/errata.md E-LIBTORCH-POOL-6).
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
#include "qspec/ref/ops/qlinear_pool_pytorch_global.h"

namespace {

using namespace qspec::ref;
using namespace qspec::ref::ops;

struct Problem {
  IntArray x;  // NHWC
  QPoolParams p;
};

std::int64_t pick(std::mt19937_64& g, std::int64_t lo, std::int64_t hi) {
  return std::uniform_int_distribution<std::int64_t>(lo, hi)(g);
}

Problem draw(std::mt19937_64& g, bool u8, bool tie_rich) {
  Problem pr;
  pr.p.type = u8 ? DType::U8 : DType::I8;
  const std::int64_t pow2[] = {1, 2, 4};
  const std::int64_t h = tie_rich ? pow2[pick(g, 0, 2)] : pick(g, 1, 9);
  const std::int64_t w = tie_rich ? pow2[pick(g, 0, 2)] : pick(g, 1, 9);
  const std::int64_t channels[] = {1, 2, 3, 8, 13, 40};
  pr.x = IntArray(Shape{pick(g, 1, 2), h, w, channels[pick(g, 0, 5)]});
  const std::int64_t lo = u8 ? 0 : -128, hi = u8 ? 255 : 127;
  const auto e = static_cast<std::uint32_t>(pick(g, -20, 10) + 127);
  const auto m = static_cast<std::uint32_t>(pick(g, 0, 1) == 0 ? pick(g, 0, (1 << 23) - 1) : pick(g, 0, 15) << 19);
  pr.p.x_scale = (e << 23) | m;
  pr.p.x_zero_point = Int(pick(g, lo, hi));
  const std::int64_t center = pick(g, lo, hi), spread = pick(g, 1, 128);
  for (auto& v : pr.x.data) v = Int(std::clamp(center + pick(g, -spread, spread), lo, hi));
  return pr;
}

enum class Call { Adaptive, Mean };

// adaptive_avg_pool2d(x, 1) or x.mean((2, 3), keepdim) on the quantized tensor of pr.x; (N, C) codes.
std::vector<long long> run_torch(const Problem& pr, Call call, bool channels_last = true) {
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
  // keepdim: mean((2, 3), false) of a ChannelsLast quantized tensor throws under onednn (E-LIBTORCH-POOL-6).
  const at::Tensor y = call == Call::Adaptive ? at::adaptive_avg_pool2d(q, {1, 1}) : at::mean(q, {2, 3}, true);
  EXPECT_EQ(y.q_scale(), scale);  // the output keeps x's parameters
  EXPECT_EQ(y.q_zero_point(), static_cast<std::int64_t>(pr.p.x_zero_point));
  const at::Tensor r = y.int_repr().reshape({pr.x.dim(0), pr.x.dim(3)}).contiguous();
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

// Outputs whose value before the rounding is an exact k + 1/2.
long long ties_of(const Problem& pr, QPoolTorchEngine e) {
  const std::int64_t N = pr.x.dim(0), K = pr.x.dim(1) * pr.x.dim(2), C = pr.x.dim(3);
  const bool qnnpack = e == QPoolTorchEngine::Qnnpack && pr.p.type == DType::U8 && K > 1;
  const std::uint32_t m = qnnpack ? qlinear_pytorch_qnnpack_avgpool_scale(pr.p.x_scale, K)
                                  : qlinear_pytorch_aten_avgpool_multiplier(pr.p.x_scale, K);
  long long n = 0;
  for (std::int64_t b = 0; b < N; ++b)
    for (std::int64_t c = 0; c < C; ++c) {
      Int acc(0);
      for (std::int64_t i = 0; i < K; ++i)
        acc += pr.x.data[static_cast<std::size_t>((b * K + i) * C + c)] - pr.p.x_zero_point;
      const Rat v = f32_value(f32_mul(f32_from_int(acc), m)) * 2;
      if (denominator(v) == 1 && numerator(v) % 2 != 0) ++n;
    }
  return n;
}

void sweep(QPoolTorchEngine e, bool u8, Call call, int random_problems, int tie_problems, std::uint64_t seed) {
  if (!use_engine(e)) GTEST_SKIP() << "this libtorch build has no such quantized engine";
  std::mt19937_64 g(seed);
  long long outputs = 0, ties = 0, diffs = 0;
  for (int i = 0; i < random_problems + tie_problems; ++i) {
    const Problem pr = draw(g, u8, i >= random_problems);
    const IntArray want = qlinear_global_avg_pool_pytorch(pr.x, pr.p, e);
    const auto got = run_torch(pr, call);
    ASSERT_EQ(got.size(), want.data.size());
    for (std::size_t j = 0; j < got.size(); ++j)
      if (Int(got[j]) != want.data[j] && ++diffs <= 5)
        ADD_FAILURE() << "problem " << i << " output " << j << ": libtorch " << got[j] << ", clause " << want.data[j];
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

TEST(crosscheck_libtorch_qlinear_global_pool, OnednnUint8MatchesTheClause) {
  sweep(QPoolTorchEngine::Onednn, true, Call::Adaptive, 150, 150, 61);
}
TEST(crosscheck_libtorch_qlinear_global_pool, OnednnInt8MatchesTheClause) {
  sweep(QPoolTorchEngine::Onednn, false, Call::Adaptive, 150, 150, 62);
}
TEST(crosscheck_libtorch_qlinear_global_pool, QnnpackUint8MatchesTheClause) {
  sweep(QPoolTorchEngine::Qnnpack, true, Call::Adaptive, 150, 150, 63);
}
TEST(crosscheck_libtorch_qlinear_global_pool, QnnpackInt8MatchesTheClause) {
  sweep(QPoolTorchEngine::Qnnpack, false, Call::Adaptive, 150, 150, 64);
}
TEST(crosscheck_libtorch_qlinear_global_pool, QnnpackUint8MeanMatchesTheClause) {
  sweep(QPoolTorchEngine::Qnnpack, true, Call::Mean, 150, 150, 65);
}

// spec/errata.md E-LIBTORCH-POOL-6: under onednn, mean((2, 3)) and the NCHW-contiguous
// adaptive_avg_pool2d differ from the ChannelsLast adaptive_avg_pool2d on some draws.
TEST(crosscheck_libtorch_qlinear_global_pool, MeanAndNchwDifferUnderOnednn) {
  if (!use_engine(QPoolTorchEngine::Onednn)) GTEST_SKIP() << "this libtorch build has no onednn engine";
  std::mt19937_64 g(66);
  long long mean_diffs = 0, nchw_diffs = 0;
  for (int i = 0; i < 150; ++i) {
    const Problem pr = draw(g, true, false);
    const auto cl = run_torch(pr, Call::Adaptive, true);
    const auto mean = run_torch(pr, Call::Mean, true);
    const auto nchw = run_torch(pr, Call::Adaptive, false);
    for (std::size_t j = 0; j < cl.size(); ++j) {
      mean_diffs += mean[j] != cl[j] ? 1 : 0;
      nchw_diffs += nchw[j] != cl[j] ? 1 : 0;
    }
  }
  std::printf("mean differs in %lld outputs, NCHW in %lld\n", mean_diffs, nchw_diffs);
  EXPECT_GT(mean_diffs, 0);
  EXPECT_GT(nchw_diffs, 0);
}
