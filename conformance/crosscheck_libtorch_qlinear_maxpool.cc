// Cross-check of PyTorch 1.13's quantized max_pool2d (Debian libtorch 1.13.1) under the onednn and
// qnnpack engines against qlinear.max_pool2d.pytorch_onednn / pytorch_qnnpack
// (reference/src/ops_qlinear_pool_pytorch_max.cc).
//
// What is pinned (PyTorch v1.13.1 aten/src/ATen/native/quantized/cpu/Pooling.cpp, measured here
// output for output): ATen's kernels (onednn: quint8 and qint8; qnnpack: qint8) take the maximum of
// the taps inside the window, the dtype's lowest where none is, in both memory formats (each
// problem runs ChannelsLast and NCHW-contiguous); under qnnpack a quint8 input runs QNNPACK's max
// pooling, whose padded taps read the border-clamped element (spec/errata.md E-LIBTORCH-POOL-4).
// Channel counts 1..3, 16, 40 reach ATen's vector blocks and their scalar remainder.
//
// Skipped (GTEST_SKIP, reported as SKIP by CTest) when the libtorch build lacks the engine.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "qspec/ref/exact.h"
#include "qspec/ref/ops/qlinear_pool_pytorch_max.h"

namespace {

using namespace qspec::ref;
using namespace qspec::ref::ops;

struct Problem {
  IntArray x;  // NHWC
  QPoolGeometry g;
  DType t = DType::U8;
};

std::int64_t pick(std::mt19937_64& g, std::int64_t lo, std::int64_t hi) {
  return std::uniform_int_distribution<std::int64_t>(lo, hi)(g);
}

Problem draw(std::mt19937_64& g, bool u8, bool qnnpack_u8) {
  Problem pr;
  pr.t = u8 ? DType::U8 : DType::I8;
  pr.g.kernel = {pick(g, 1, 4), pick(g, 1, 4)};
  if (qnnpack_u8 && pr.g.kernel[0] * pr.g.kernel[1] == 1) pr.g.kernel[1] = 2;
  pr.g.strides = {pick(g, 1, 3), pick(g, 1, 3)};
  pr.g.dilations = {pick(g, 1, 3), pick(g, 1, 3)};
  const std::int64_t ph = pick(g, 0, pr.g.kernel[0] / 2), pw = pick(g, 0, pr.g.kernel[1] / 2);
  pr.g.pads = {ph, pw, ph, pw};
  const std::int64_t channels[] = {1, 2, 3, 16, 40};
  const std::int64_t c = channels[pick(g, 0, 4)];
  const std::int64_t eh = pr.g.dilations[0] * (pr.g.kernel[0] - 1) + 1;
  const std::int64_t ew = pr.g.dilations[1] * (pr.g.kernel[1] - 1) + 1;
  const std::int64_t h = std::max<std::int64_t>(1, eh - 2 * ph) + pick(g, 0, 4);
  const std::int64_t w = std::max<std::int64_t>(1, ew - 2 * pw) + pick(g, 0, 4);
  pr.x = IntArray(Shape{pick(g, 1, 2), h, w, c});
  const std::int64_t lo = u8 ? 0 : -128, hi = u8 ? 255 : 127;
  const std::int64_t center = pick(g, lo, hi), spread = pick(g, 1, 128);
  for (auto& v : pr.x.data) v = Int(std::clamp(center + pick(g, -spread, spread), lo, hi));
  return pr;
}

// at::max_pool2d on the quantized tensor holding pr.x (ChannelsLast or NCHW-contiguous); NHWC codes.
std::vector<long long> run_torch(const Problem& pr, bool channels_last) {
  const bool u8 = pr.t == DType::U8;
  at::Tensor raw = at::empty({pr.x.dim(0), pr.x.dim(1), pr.x.dim(2), pr.x.dim(3)}, u8 ? at::kByte : at::kChar);
  for (std::size_t i = 0; i < pr.x.data.size(); ++i) {
    const auto v = static_cast<long long>(pr.x.data[i]);
    if (u8)
      raw.data_ptr<std::uint8_t>()[i] = static_cast<std::uint8_t>(v);
    else
      raw.data_ptr<std::int8_t>()[i] = static_cast<std::int8_t>(v);
  }
  const std::int64_t zp = u8 ? 3 : -5;
  at::Tensor q = at::_make_per_tensor_quantized_tensor(raw.permute({0, 3, 1, 2}), 0.25, zp);
  q = q.contiguous(channels_last ? at::MemoryFormat::ChannelsLast : at::MemoryFormat::Contiguous);
  const at::Tensor y = at::max_pool2d(q, {pr.g.kernel[0], pr.g.kernel[1]}, {pr.g.strides[0], pr.g.strides[1]},
                                      {pr.g.pads[0], pr.g.pads[1]}, {pr.g.dilations[0], pr.g.dilations[1]}, false);
  EXPECT_EQ(y.q_scale(), 0.25);  // the output keeps x's parameters
  EXPECT_EQ(y.q_zero_point(), zp);
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

void sweep(QPoolTorchEngine e, bool u8, int problems, std::uint64_t seed) {
  if (!use_engine(e)) GTEST_SKIP() << "this libtorch build has no such quantized engine";
  std::mt19937_64 g(seed);
  long long outputs = 0, empty = 0, outside = 0, diffs = 0;
  const bool qnnpack_u8 = e == QPoolTorchEngine::Qnnpack && u8;
  for (int i = 0; i < problems; ++i) {
    const Problem pr = draw(g, u8, qnnpack_u8);
    const IntArray want = qlinear_max_pool2d_pytorch(pr.x, pr.g, pr.t, e);
    const IntArray aten = qlinear_max_pool2d_pytorch(pr.x, pr.g, pr.t, QPoolTorchEngine::Onednn);
    for (bool cl : {true, false}) {
      const auto got = run_torch(pr, cl);
      ASSERT_EQ(got.size(), want.data.size());
      for (std::size_t j = 0; j < got.size(); ++j)
        if (Int(got[j]) != want.data[j] && ++diffs <= 5)
          ADD_FAILURE() << "problem " << i << (cl ? " (ChannelsLast)" : " (NCHW)") << " output " << j << ": libtorch "
                        << got[j] << ", clause " << want.data[j];
      outputs += static_cast<long long>(got.size());
    }
    const auto [oh, ow] = qlinear_pool_out_size(pr.x.shape, pr.g);
    for (const auto& w : qlinear_pool_window_codes(pr.x, pr.g, oh, ow)) empty += w.empty() ? 1 : 0;
    for (std::size_t j = 0; j < want.data.size(); ++j) outside += want.data[j] != aten.data[j] ? 1 : 0;
  }
  ::testing::Test::RecordProperty("outputs", std::to_string(outputs));
  std::printf("%lld outputs (%lld empty windows, %lld QNNPACK reads outside the window), %lld differences\n", outputs,
              empty, outside, diffs);
  EXPECT_EQ(diffs, 0);
  EXPECT_GT(empty, 0);
  if (qnnpack_u8) {
    EXPECT_GT(outside, 0);
  }
}

}  // namespace

TEST(crosscheck_libtorch_qlinear_maxpool, OnednnUint8MatchesTheClause) {
  sweep(QPoolTorchEngine::Onednn, true, 250, 51);
}
TEST(crosscheck_libtorch_qlinear_maxpool, OnednnInt8MatchesTheClause) {
  sweep(QPoolTorchEngine::Onednn, false, 250, 52);
}
TEST(crosscheck_libtorch_qlinear_maxpool, QnnpackUint8MatchesTheClause) {
  sweep(QPoolTorchEngine::Qnnpack, true, 250, 53);
}
TEST(crosscheck_libtorch_qlinear_maxpool, QnnpackInt8MatchesTheClause) {
  sweep(QPoolTorchEngine::Qnnpack, false, 250, 54);
}

// spec/errata.md E-LIBTORCH-POOL-4: 9 1 2 3 4, kernel 1x3, dilation 1x2, padding 1.
TEST(crosscheck_libtorch_qlinear_maxpool, QnnpackUint8DilatedWindowReadsOutsideTheWindow) {
  Problem pr;
  pr.g.kernel = {1, 3};
  pr.g.dilations = {1, 2};
  pr.g.pads = {0, 1, 0, 1};
  pr.x = IntArray(Shape{1, 1, 5, 1});
  const long long row[] = {9, 1, 2, 3, 4};
  for (std::size_t i = 0; i < 5; ++i) pr.x.data[i] = Int(row[i]);
  if (!use_engine(QPoolTorchEngine::Onednn)) GTEST_SKIP() << "this libtorch build has no onednn engine";
  EXPECT_EQ(run_torch(pr, true), (std::vector<long long>{3, 9, 3}));
  if (!use_engine(QPoolTorchEngine::Qnnpack)) GTEST_SKIP() << "this libtorch build has no qnnpack engine";
  EXPECT_EQ(run_torch(pr, true), (std::vector<long long>{9, 9, 4}));
}
