// Properties of qlinear.max_pool2d under pytorch.onednn and pytorch.qnnpack
// (spec/operators_qlinear_pytorch_pool.md, PyTorch 1.13):
// - composition identity: the reference equals ATen's loop (q_maxpool_2d / qmaxpool_2d_nhwc_kernel:
//   h_start advanced by the dilation while negative, from lowest(T)) and, for uint8 under qnnpack,
//   QNNPACK's indirection (doz(p S + i D, pad), min(., H - 1)) then the maximum, both transliterated
//   here independently of the reference's window clause;
// - the engines agree without a dilation (QNNPACK's clamped taps stay in the window);
// - ATen's output is a code of the window or lowest(T) when the window has no tap inside;
// - exhaustively: every row of <= 4 codes from a 4-code alphabet under every 1-row geometry with
//   kernel <= 3, dilation <= 3, stride <= 2, pad <= kernel / 2.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <vector>

#include "ops_arrays.h"
#include "qspec/ref/ops/qlinear_pool_pytorch_max.h"
#include "qspec_rc.h"

using namespace qspec::opstest;

namespace {

long long lo_of(DType t) { return t == DType::I8 ? -128 : 0; }
long long hi_of(DType t) { return t == DType::I8 ? 127 : 255; }

struct Case {
  IntArray x;
  QPoolGeometry g;
  DType t = DType::U8;
};

Case draw_case(QPoolTorchEngine e, bool dilated) {
  Case k;
  k.t = *rc::gen::inRange(0, 2) == 0 ? DType::U8 : DType::I8;
  k.g.kernel = {*rc::gen::inRange<std::int64_t>(1, 5), *rc::gen::inRange<std::int64_t>(1, 5)};
  if (e == QPoolTorchEngine::Qnnpack && k.t == DType::U8 && k.g.kernel[0] * k.g.kernel[1] == 1) k.g.kernel[1] = 2;
  k.g.strides = {*rc::gen::inRange<std::int64_t>(1, 3), *rc::gen::inRange<std::int64_t>(1, 3)};
  if (dilated) k.g.dilations = {*rc::gen::inRange<std::int64_t>(1, 4), *rc::gen::inRange<std::int64_t>(1, 4)};
  const std::int64_t ph = *rc::gen::inRange<std::int64_t>(0, k.g.kernel[0] / 2 + 1);
  const std::int64_t pw = *rc::gen::inRange<std::int64_t>(0, k.g.kernel[1] / 2 + 1);
  k.g.pads = {ph, pw, ph, pw};
  const std::int64_t eh = k.g.dilations[0] * (k.g.kernel[0] - 1) + 1, ew = k.g.dilations[1] * (k.g.kernel[1] - 1) + 1;
  const std::int64_t h = std::max<std::int64_t>(1, eh - 2 * ph) + *rc::gen::inRange<std::int64_t>(0, 4);
  const std::int64_t w = std::max<std::int64_t>(1, ew - 2 * pw) + *rc::gen::inRange<std::int64_t>(0, 4);
  const std::int64_t c = *rc::gen::inRange<std::int64_t>(1, 3);
  k.x = IntArray(Shape{*rc::gen::inRange<std::int64_t>(1, 3), h, w, c});
  for (auto& v : k.x.data) v = Int(*rc::gen::inRange<long long>(lo_of(k.t), hi_of(k.t) + 1));
  return k;
}

// ATen's and QNNPACK's loops in native C++ (NHWC).
std::vector<long long> native(const Case& k, QPoolTorchEngine e) {
  const long long N = k.x.dim(0), H = k.x.dim(1), W = k.x.dim(2), C = k.x.dim(3);
  const long long kH = k.g.kernel[0], kW = k.g.kernel[1], sH = k.g.strides[0], sW = k.g.strides[1];
  const long long dH = k.g.dilations[0], dW = k.g.dilations[1], pH = k.g.pads[0], pW = k.g.pads[1];
  const long long oH = (H + 2 * pH - dH * (kH - 1) - 1) / sH + 1, oW = (W + 2 * pW - dW * (kW - 1) - 1) / sW + 1;
  const auto at = [&](long long n, long long y, long long x, long long c) {
    return static_cast<long long>(k.x.data[static_cast<std::size_t>(((n * H + y) * W + x) * C + c)]);
  };
  std::vector<long long> out;
  for (long long n = 0; n < N; ++n)
    for (long long row = 0; row < oH; ++row)
      for (long long col = 0; col < oW; ++col)
        for (long long c = 0; c < C; ++c) {
          long long m = lo_of(k.t);
          if (e == QPoolTorchEngine::Qnnpack && k.t == DType::U8) {
            const auto doz = [](long long a, long long b) { return a > b ? a - b : 0LL; };
            for (long long py = 0; py < kH; ++py)
              for (long long px = 0; px < kW; ++px)
                m = std::max(m, at(n, std::min(doz(row * sH + py * dH, pH), H - 1),
                                   std::min(doz(col * sW + px * dW, pW), W - 1), c));
          } else {
            long long h_start = row * sH - pH, w_start = col * sW - pW;
            const long long h_end = std::min(h_start + (kH - 1) * dH + 1, H);
            const long long w_end = std::min(w_start + (kW - 1) * dW + 1, W);
            while (h_start < 0) h_start += dH;
            while (w_start < 0) w_start += dW;
            for (long long y = h_start; y < h_end; y += dH)
              for (long long x = w_start; x < w_end; x += dW) m = std::max(m, at(n, y, x, c));
          }
          out.push_back(m);
        }
  return out;
}

void composition(QPoolTorchEngine e) {
  const Case k = draw_case(e, true);
  const IntArray y = qlinear_max_pool2d_pytorch(k.x, k.g, k.t, e);
  const auto want = native(k, e);
  RC_ASSERT(y.data.size() == want.size());
  for (std::size_t i = 0; i < want.size(); ++i) RC_ASSERT(y.data[i] == Int(want[i]));
}

}  // namespace

RC_GTEST_PROP(qlinear_max_pool2d_pytorch_onednn, EqualsAtensLoopNatively, ()) { composition(QPoolTorchEngine::Onednn); }
RC_GTEST_PROP(qlinear_max_pool2d_pytorch_qnnpack, EqualsQnnpacksIndirectionOrAtensLoopNatively, ()) {
  composition(QPoolTorchEngine::Qnnpack);
}

RC_GTEST_PROP(qlinear_max_pool2d_pytorch_qnnpack, EqualsAtenWithoutADilation, ()) {
  const Case k = draw_case(QPoolTorchEngine::Qnnpack, false);
  RC_ASSERT(qlinear_max_pool2d_pytorch(k.x, k.g, k.t, QPoolTorchEngine::Qnnpack).data ==
            qlinear_max_pool2d_pytorch(k.x, k.g, k.t, QPoolTorchEngine::Onednn).data);
}

RC_GTEST_PROP(qlinear_max_pool2d_pytorch_onednn, IsAWindowCodeOrTheLowest, ()) {
  const Case k = draw_case(QPoolTorchEngine::Onednn, true);
  const IntArray y = qlinear_max_pool2d_pytorch(k.x, k.g, k.t, QPoolTorchEngine::Onednn);
  const auto [oh, ow] = qlinear_pool_out_size(k.x.shape, k.g);
  const auto windows = qlinear_pool_window_codes(k.x, k.g, oh, ow);
  for (std::size_t i = 0; i < windows.size(); ++i) {
    if (windows[i].empty()) {
      RC_ASSERT(y.data[i] == Int(lo_of(k.t)));
      continue;
    }
    RC_ASSERT(std::find(windows[i].begin(), windows[i].end(), y.data[i]) != windows[i].end());
    for (const auto& v : windows[i]) RC_ASSERT(v <= y.data[i]);
  }
}

// Every 1-row input of 1..4 codes from {lo, lo + 1, mid, hi} under every geometry with kernel
// 1..3, dilation 1..3, stride 1..2, pad 0..kernel / 2 whose dilated kernel fits.
TEST(qlinear_max_pool2d_pytorch_qnnpack, ExhaustiveOverSmallRows) {
  long long checked = 0;
  for (DType t : {DType::U8, DType::I8})
    for (QPoolTorchEngine e : {QPoolTorchEngine::Onednn, QPoolTorchEngine::Qnnpack})
      for (long long w = 1; w <= 4; ++w)
        for (long long kw = 1; kw <= 3; ++kw)
          for (long long dw = 1; dw <= 3; ++dw)
            for (long long sw = 1; sw <= 2; ++sw)
              for (long long pw = 0; pw <= kw / 2; ++pw) {
                if (w + 2 * pw < dw * (kw - 1) + 1) continue;
                if (e == QPoolTorchEngine::Qnnpack && t == DType::U8 && kw == 1) continue;
                const long long alphabet[] = {lo_of(t), lo_of(t) + 1, lo_of(t) + 100, hi_of(t)};
                long long combos = 1;
                for (long long i = 0; i < w; ++i) combos *= 4;
                for (long long m = 0; m < combos; ++m) {
                  Case k;
                  k.t = t;
                  k.g.kernel = {1, kw};
                  k.g.dilations = {1, dw};
                  k.g.strides = {1, sw};
                  k.g.pads = {0, pw, 0, pw};
                  k.x = IntArray(Shape{1, 1, w, 1});
                  long long digits = m;
                  for (auto& v : k.x.data) {
                    v = Int(alphabet[digits % 4]);
                    digits /= 4;
                  }
                  const auto want = native(k, e);
                  ASSERT_EQ(qlinear_max_pool2d_pytorch(k.x, k.g, t, e).data.size(), want.size());
                  const IntArray y = qlinear_max_pool2d_pytorch(k.x, k.g, t, e);
                  for (std::size_t i = 0; i < want.size(); ++i) ASSERT_EQ(y.data[i], Int(want[i]));
                  ++checked;
                }
              }
  EXPECT_GT(checked, 1000);
}

TEST(qlinear_max_pool2d_pytorch_onednn, RejectsWhatAtenRejects) {
  QPoolGeometry g;
  g.kernel = {3, 3};
  g.pads = {2, 2, 2, 2};  // pad > kernel / 2
  const IntArray x(Shape{1, 4, 4, 1});
  EXPECT_THROW(qlinear_max_pool2d_pytorch(x, g, DType::U8, QPoolTorchEngine::Onednn), qspec::ref::ErrorIf);
  g.pads = {1, 0, 0, 0};  // asymmetric
  EXPECT_THROW(qlinear_max_pool2d_pytorch(x, g, DType::I8, QPoolTorchEngine::Onednn), qspec::ref::ErrorIf);
  g.pads = {1, 1, 1, 1};
  EXPECT_NO_THROW(qlinear_max_pool2d_pytorch(x, g, DType::I8, QPoolTorchEngine::Onednn));
  g.kernel = {1, 1};
  g.pads = {0, 0, 0, 0};
  EXPECT_NO_THROW(qlinear_max_pool2d_pytorch(x, g, DType::U8, QPoolTorchEngine::Onednn));
  EXPECT_THROW(qlinear_max_pool2d_pytorch(x, g, DType::U8, QPoolTorchEngine::Qnnpack), qspec::ref::ErrorIf);
  EXPECT_NO_THROW(qlinear_max_pool2d_pytorch(x, g, DType::I8, QPoolTorchEngine::Qnnpack));
}
