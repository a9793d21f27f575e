// Properties of qlinear.global_avg_pool under pytorch.onednn and pytorch.qnnpack
// (spec/operators_qlinear_pytorch_pool.md, PyTorch 1.13 adaptive_avg_pool2d(x, 1)):
// - composition identity: the reference equals _qadaptive_avg_pool_kernel's loop (int32
//   input_zero_point_m_size + the codes, input_scale / output_scale / size, nearbyint) or, for uint8
//   under qnnpack with H W > 1, QNNPACK's input_scale / (output_scale * (float) pooling_size),
//   written in native binary32 here;
// - it equals qlinear.avg_pool2d.pytorch_* with the whole image as the kernel;
// - the error bound against the exact real average; a 1x1 image is the identity.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <vector>

#include "ops_arrays.h"
#include "qspec/ref/ops/qlinear_pool_pytorch_global.h"
#include "qspec_rc.h"

using namespace qspec::opstest;

namespace {

float V(std::uint32_t b) { return std::bit_cast<float>(b); }
long long lo_of(DType t) { return t == DType::I8 ? -128 : 0; }
long long hi_of(DType t) { return t == DType::I8 ? 127 : 255; }

struct Case {
  IntArray x;
  QPoolParams p;
};

Case draw_case() {
  Case k;
  k.p.type = *rc::gen::inRange(0, 2) == 0 ? DType::U8 : DType::I8;
  const int ex = *rc::gen::inRange(-30, 20);
  const auto mant = *rc::gen::inRange<std::uint32_t>(0, 1u << 23);
  k.p.x_scale = (static_cast<std::uint32_t>(ex + 127) << 23) | mant;
  k.p.x_zero_point = Int(*rc::gen::inRange<long long>(lo_of(k.p.type), hi_of(k.p.type) + 1));
  k.x = IntArray(Shape{*rc::gen::inRange<std::int64_t>(1, 3), *rc::gen::inRange<std::int64_t>(1, 9),
                       *rc::gen::inRange<std::int64_t>(1, 9), *rc::gen::inRange<std::int64_t>(1, 4)});
  for (auto& v : k.x.data) v = Int(*rc::gen::inRange<long long>(lo_of(k.p.type), hi_of(k.p.type) + 1));
  return k;
}

std::vector<long long> native(const Case& k, QPoolTorchEngine e) {
  const long long N = k.x.dim(0), size = k.x.dim(1) * k.x.dim(2), C = k.x.dim(3);
  const float xs = V(k.p.x_scale);
  const int zp = static_cast<int>(k.p.x_zero_point);
  const bool qnnpack = e == QPoolTorchEngine::Qnnpack && k.p.type == DType::U8 && size > 1;
  const float multiplier = qnnpack ? xs / (xs * static_cast<float>(size)) : xs / xs / static_cast<int>(size);
  std::vector<long long> y;
  for (long long n = 0; n < N; ++n)
    for (long long c = 0; c < C; ++c) {
      int acc = static_cast<int>(-zp * size);
      for (long long i = 0; i < size; ++i)
        acc += static_cast<int>(k.x.data[static_cast<std::size_t>((n * size + i) * C + c)]);
      const long long r = static_cast<long long>(std::nearbyint(static_cast<float>(acc) * multiplier)) + zp;
      y.push_back(std::clamp(r, lo_of(k.p.type), hi_of(k.p.type)));
    }
  return y;
}

void composition(QPoolTorchEngine e) {
  const Case k = draw_case();
  const IntArray y = qlinear_global_avg_pool_pytorch(k.x, k.p, e);
  const auto want = native(k, e);
  RC_ASSERT(y.data.size() == want.size());
  for (std::size_t i = 0; i < want.size(); ++i) RC_ASSERT(y.data[i] == Int(want[i]));
}

// adaptive_avg_pool2d(x, 1) is avg_pool2d with kernel = stride = (H, W) (QNNPACK's route for uint8).
void is_whole_image_avg_pool(QPoolTorchEngine e) {
  const Case k = draw_case();
  const std::int64_t H = k.x.dim(1), W = k.x.dim(2);
  RC_PRE(!(e == QPoolTorchEngine::Qnnpack && k.p.type == DType::U8 && H * W == 1));  // QNNPACK refuses 1x1
  QPoolGeometry g;
  g.kernel = {H, W};
  g.strides = {H, W};
  RC_ASSERT(qlinear_global_avg_pool_pytorch(k.x, k.p, e).data == qlinear_avg_pool2d_pytorch(k.x, g, true, k.p, e).data);
}

void bound(QPoolTorchEngine e) {
  const Case k = draw_case();
  const IntArray y = qlinear_global_avg_pool_pytorch(k.x, k.p, e);
  const std::int64_t N = k.x.dim(0), K = k.x.dim(1) * k.x.dim(2), C = k.x.dim(3);
  const Rat u = pow2r(-24);
  const Rat rel = (1 + u) * (1 + u) * (1 + u) - 1;
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t c = 0; c < C; ++c) {
      Int acc(0);
      for (std::int64_t i = 0; i < K; ++i)
        acc += k.x.data[static_cast<std::size_t>((n * K + i) * C + c)] - k.p.x_zero_point;
      const Rat r = Rat(acc, Int(K));
      const Int& got = y.data[static_cast<std::size_t>(n * C + c)];
      RC_ASSERT(abs(Rat(got) - (Rat(k.p.x_zero_point) + r)) <= Rat(1, 2) + rel * abs(r));
    }
}

}  // namespace

RC_GTEST_PROP(qlinear_global_avg_pool_pytorch_onednn, EqualsTheImageSumThenAtenEpilogueNatively, ()) {
  composition(QPoolTorchEngine::Onednn);
}
RC_GTEST_PROP(qlinear_global_avg_pool_pytorch_qnnpack, EqualsTheImageSumThenTheEngineEpilogueNatively, ()) {
  composition(QPoolTorchEngine::Qnnpack);
}
RC_GTEST_PROP(qlinear_global_avg_pool_pytorch_onednn, IsAvgPool2dOverTheWholeImage, ()) {
  is_whole_image_avg_pool(QPoolTorchEngine::Onednn);
}
RC_GTEST_PROP(qlinear_global_avg_pool_pytorch_qnnpack, IsAvgPool2dOverTheWholeImage, ()) {
  is_whole_image_avg_pool(QPoolTorchEngine::Qnnpack);
}
RC_GTEST_PROP(qlinear_global_avg_pool_pytorch_onednn, WithinTheStatedBoundOfTheRealAverage, ()) {
  bound(QPoolTorchEngine::Onednn);
}
RC_GTEST_PROP(qlinear_global_avg_pool_pytorch_qnnpack, WithinTheStatedBoundOfTheRealAverage, ()) {
  bound(QPoolTorchEngine::Qnnpack);
}

// Every uint8 / int8 image of 1x1 is its own average under both engines.
TEST(qlinear_global_avg_pool_pytorch_qnnpack, OneByOneImageIsTheIdentity) {
  for (DType t : {DType::U8, DType::I8})
    for (QPoolTorchEngine e : {QPoolTorchEngine::Onednn, QPoolTorchEngine::Qnnpack})
      for (long long zp : {lo_of(t), lo_of(t) + 77, hi_of(t)}) {
        QPoolParams p;
        p.type = t;
        p.x_scale = 0x3dcccccdu;
        p.x_zero_point = Int(zp);
        IntArray x(Shape{1, 1, 1, 256});
        for (std::size_t i = 0; i < 256; ++i) x.data[i] = Int(lo_of(t) + static_cast<long long>(i));
        EXPECT_EQ(qlinear_global_avg_pool_pytorch(x, p, e).data, x.data);
      }
}
