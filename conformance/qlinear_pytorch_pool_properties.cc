// Properties of qlinear.avg_pool2d under pytorch.onednn and pytorch.qnnpack
// (spec/operators_qlinear_pool.md, PyTorch 1.13):
// - composition identity: the reference equals the window sum of qlinear.pool.window (here
//   iterated independently, as ATen's hstart / hend) followed by the kernel's epilogue written in
//   native binary32 on this machine (ATen's `input_scale / output_scale / divide_factor`,
//   QNNPACK's `input_scale / (output_scale * (float) pooling_size)`, cvtps2dq / nearbyint);
// - the error bound against the exact real average; ATen's scalar path's reciprocal round trip;
// - exhaustively, every window of <= 4 uint8 / int8 codes' sums (the epilogue over all sums).
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <vector>

#include "ops_arrays.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear_pool_pytorch.h"
#include "qspec_rc.h"

using namespace qspec::opstest;

namespace {

float V(std::uint32_t b) { return std::bit_cast<float>(b); }
long long lo_of(DType t) { return t == DType::I8 ? -128 : 0; }
long long hi_of(DType t) { return t == DType::I8 ? 127 : 255; }

struct Case {
  IntArray x;
  QPoolGeometry g;
  QPoolParams p;
  bool include = false;
};

// A valid problem: symmetric pads <= kernel / 2, a positive normal scale, codes in the dtype.
Case draw_case(QPoolTorchEngine e) {
  Case k;
  k.p.type = *rc::gen::inRange(0, 2) == 0 ? DType::U8 : DType::I8;
  k.g.kernel = {*rc::gen::inRange<std::int64_t>(1, 5), *rc::gen::inRange<std::int64_t>(1, 5)};
  if (e == QPoolTorchEngine::Qnnpack && k.p.type == DType::U8 && k.g.kernel[0] * k.g.kernel[1] == 1)
    k.g.kernel[1] = 2;  // QNNPACK rejects 1x1
  k.g.strides = {*rc::gen::inRange<std::int64_t>(1, 3), *rc::gen::inRange<std::int64_t>(1, 3)};
  const std::int64_t ph = *rc::gen::inRange<std::int64_t>(0, k.g.kernel[0] / 2 + 1);
  const std::int64_t pw = *rc::gen::inRange<std::int64_t>(0, k.g.kernel[1] / 2 + 1);
  k.g.pads = {ph, pw, ph, pw};
  k.include = *rc::gen::arbitrary<bool>();
  const std::int64_t h = std::max<std::int64_t>(1, k.g.kernel[0] - 2 * ph) + *rc::gen::inRange<std::int64_t>(0, 4);
  const std::int64_t w = std::max<std::int64_t>(1, k.g.kernel[1] - 2 * pw) + *rc::gen::inRange<std::int64_t>(0, 4);
  const std::int64_t c = *rc::gen::inRange<std::int64_t>(1, 3);
  const int ex = *rc::gen::inRange(-30, 20);
  const auto mant = *rc::gen::inRange<std::uint32_t>(0, 1u << 23);
  k.p.x_scale = (static_cast<std::uint32_t>(ex + 127) << 23) | mant;
  k.p.x_zero_point = Int(*rc::gen::inRange<long long>(lo_of(k.p.type), hi_of(k.p.type) + 1));
  k.x = IntArray(Shape{1, h, w, c});
  for (auto& v : k.x.data) v = Int(*rc::gen::inRange<long long>(lo_of(k.p.type), hi_of(k.p.type) + 1));
  return k;
}

// The kernel on this machine: ATen's / QNNPACK's loop and float steps in native C++.
std::vector<long long> native(const Case& k, QPoolTorchEngine e) {
  const long long H = k.x.dim(1), W = k.x.dim(2), C = k.x.dim(3);
  const long long kH = k.g.kernel[0], kW = k.g.kernel[1], dH = k.g.strides[0], dW = k.g.strides[1];
  const long long padH = k.g.pads[0], padW = k.g.pads[1];
  const long long oH = (H + 2 * padH - kH) / dH + 1, oW = (W + 2 * padW - kW) / dW + 1;
  const float xs = V(k.p.x_scale);
  const int zp = static_cast<int>(k.p.x_zero_point);
  const bool qnnpack = e == QPoolTorchEngine::Qnnpack && k.p.type == DType::U8;
  std::vector<long long> y;
  for (long long oh = 0; oh < oH; ++oh)
    for (long long ow = 0; ow < oW; ++ow)
      for (long long c = 0; c < C; ++c) {
        long long hstart = oh * dH - padH, wstart = ow * dW - padW;
        long long hend = std::min(hstart + kH, H + padH), wend = std::min(wstart + kW, W + padW);
        const long long pool_size = (hend - hstart) * (wend - wstart);
        hstart = std::max(hstart, 0LL), wstart = std::max(wstart, 0LL);
        hend = std::min(hend, H), wend = std::min(wend, W);
        const long long size = (hend - hstart) * (wend - wstart);
        int acc = static_cast<int>(-zp * size);
        for (long long ih = hstart; ih < hend; ++ih)
          for (long long iw = wstart; iw < wend; ++iw)
            acc += static_cast<int>(k.x.data[static_cast<std::size_t>((ih * W + iw) * C + c)]);
        const int divide_factor = static_cast<int>(k.include ? pool_size : size);
        const float multiplier = qnnpack ? xs / (xs * static_cast<float>(kH * kW)) : xs / xs / divide_factor;
        const float v = static_cast<float>(acc) * multiplier;
        const long long r = static_cast<long long>(std::nearbyint(v)) + zp;
        y.push_back(std::clamp(r, lo_of(k.p.type), hi_of(k.p.type)));
      }
  return y;
}

void composition(QPoolTorchEngine e) {
  const Case k = draw_case(e);
  const IntArray y = qlinear_avg_pool2d_pytorch(k.x, k.g, k.include, k.p, e);
  const auto want = native(k, e);
  RC_ASSERT(y.data.size() == want.size());
  for (std::size_t i = 0; i < want.size(); ++i) RC_ASSERT(y.data[i] == Int(want[i]));
}

// |y - (z + acc / d)| <= 1/2 + ((1 + u)^3 - 1) |acc / d| unless y is at the dtype's end; d = K
// for QNNPACK (uint8 under qnnpack), else by count_include_pad.
void bound(QPoolTorchEngine e) {
  const Case k = draw_case(e);
  const IntArray y = qlinear_avg_pool2d_pytorch(k.x, k.g, k.include, k.p, e);
  const auto [oh, ow] = qlinear_pool_out_size(k.x.shape, k.g);
  const auto windows = qlinear_pool_window_codes(k.x, k.g, oh, ow);
  const Rat u = pow2r(-24);
  const Rat rel = (1 + u) * (1 + u) * (1 + u) - 1;
  const bool qnnpack = e == QPoolTorchEngine::Qnnpack && k.p.type == DType::U8;
  const std::int64_t K = k.g.kernel[0] * k.g.kernel[1];
  for (std::size_t i = 0; i < windows.size(); ++i) {
    Int acc(0);
    for (const auto& v : windows[i]) acc += v - k.p.x_zero_point;
    const std::int64_t d = qnnpack || k.include ? K : static_cast<std::int64_t>(windows[i].size());
    const Rat r = Rat(acc, Int(d));
    if (y.data[i] == Int(lo_of(k.p.type)) || y.data[i] == Int(hi_of(k.p.type))) continue;
    RC_ASSERT(abs(Rat(y.data[i]) - (Rat(k.p.x_zero_point) + r)) <= Rat(1, 2) + rel * abs(r));
  }
}

}  // namespace

RC_GTEST_PROP(qlinear_avg_pool2d_pytorch_onednn, EqualsTheWindowSumThenAtenEpilogueNatively, ()) {
  composition(QPoolTorchEngine::Onednn);
}
RC_GTEST_PROP(qlinear_avg_pool2d_pytorch_qnnpack, EqualsTheWindowSumThenTheEngineEpilogueNatively, ()) {
  composition(QPoolTorchEngine::Qnnpack);
}
RC_GTEST_PROP(qlinear_avg_pool2d_pytorch_onednn, WithinTheStatedBoundOfTheRealAverage, ()) {
  bound(QPoolTorchEngine::Onednn);
}
RC_GTEST_PROP(qlinear_avg_pool2d_pytorch_qnnpack, WithinTheStatedBoundOfTheRealAverage, ()) {
  bound(QPoolTorchEngine::Qnnpack);
}

// ATen's remaining channels call quantize_val(1.0f / m, z, acc), which multiplies by
// fl32(1 / fl32(1 / m)) where the vector blocks multiply by m: the same float for every count.
TEST(qlinear_avg_pool2d_pytorch_onednn, ReciprocalRoundTripsForEveryCount) {
  for (int d = 1; d < (1 << 20); ++d) {
    volatile float m = 1.0f / static_cast<float>(d);
    volatile float scale = 1.0f / m;
    volatile float inv = 1.0f / scale;
    ASSERT_EQ(std::bit_cast<std::uint32_t>(static_cast<float>(inv)),
              std::bit_cast<std::uint32_t>(static_cast<float>(m)))
        << "d = " << d;
  }
}

// Every window of 1 to 4 codes: each sum acc in [-4 * 255, 4 * 255], each count d <= 4, a few zero
// points and scales: the reference's epilogue equals the native one.
TEST(qlinear_avg_pool2d_pytorch_onednn, ExhaustiveOverWindowsOfAtMostFourCodes) {
  for (DType t : {DType::U8, DType::I8})
    for (long long zp : {lo_of(t), lo_of(t) + 1, lo_of(t) + 128, hi_of(t)})
      for (int d = 1; d <= 4; ++d) {
        const std::uint32_t m = qlinear_pytorch_aten_avgpool_multiplier(0x3dcccccdu, d);
        ASSERT_EQ(m, std::bit_cast<std::uint32_t>(0.1f / 0.1f / d));
        for (int acc = -d * 255; acc <= d * 255; ++acc) {
          const long long want = std::clamp<long long>(
              static_cast<long long>(std::nearbyint(static_cast<float>(acc) * V(m))) + zp, lo_of(t), hi_of(t));
          ASSERT_EQ(qlinear_pytorch_avgpool_output(Int(acc), m, Int(zp), t), Int(want)) << acc << " / " << d;
        }
      }
}
TEST(qlinear_avg_pool2d_pytorch_qnnpack, ExhaustiveOverWindowsOfAtMostFourCodes) {
  for (std::uint32_t s : {0x3dcccccdu, 0x3f8ccccdu, 0x3f800000u, 0x00800000u})
    for (int k = 2; k <= 4; ++k) {
      const std::uint32_t S = qlinear_pytorch_qnnpack_avgpool_scale(s, k);
      ASSERT_EQ(S, std::bit_cast<std::uint32_t>(V(s) / (V(s) * static_cast<float>(k))));
      for (long long zp : {0LL, 1LL, 128LL, 255LL})
        for (int acc = -k * 255; acc <= k * 255; ++acc) {
          const long long want = std::clamp<long long>(
              static_cast<long long>(std::nearbyint(static_cast<float>(acc) * V(S))) + zp, 0, 255);
          ASSERT_EQ(qlinear_pytorch_avgpool_output(Int(acc), S, Int(zp), DType::U8), Int(want)) << acc << " / " << k;
        }
    }
  EXPECT_THROW(qlinear_pytorch_qnnpack_avgpool_scale(0x3f800000u, 1), qspec::ref::ErrorIf);
}
