// Convolution / dense conventions agree where their parameters coincide: TVM's four-term lowering,
// gemmlowp's offset trick, and MRT's formalization 4 all compute sum (X - zx)(W - zw); and the
// gemmlowp matmul (seed 001, eqs. (4)-(7)) end to end.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "ops_arrays.h"
#include "qspec/ref/gemmlowp.h"
#include "qspec/ref/ops/mrt_expansion.h"
#include "qspec/ref/ops/quantized.h"
#include "qspec_rc.h"

using namespace qspec::opstest;

RC_GTEST_PROP(tvm_qnn_conv2d, LoweringAndConventionsAgree, ()) {
  const ConvCase c = draw_conv_case();
  const IntArray x = draw_array(c.x, 0, 255), w = draw_array(c.w, 0, 255);
  const Int zx(*rc::gen::inRange(0, 256)), zw(*rc::gen::inRange(0, 256));
  TvmQnnParams p;
  p.input_zero_point = zx;
  p.kernel_zero_point = zw;
  const IntArray direct = tvm_qnn_conv2d(x, w, c.attrs, TvmLayout::NCHW_OIHW, p);
  // TVM's lowering into Term1 - Term2 - Term3 + Term4.
  RC_ASSERT(tvm_qnn_conv2d_terms(x, w, c.attrs, zx, zw) == direct);
  // MRT formalization 4 in the "+ zp" convention: zero points -zx, -zw, pad value -(-zx) = zx.
  const auto mrt = conv2d_expand<Int>(ExpKind::ZpXW, x, w, c.attrs, Int(-zx), Int(-zw), zx);
  RC_ASSERT(mrt.partial_sums.back() == direct);
  // gemmlowp's offset trick (offsets = -zero points) on each output's window, in wrapping int32.
  if (c.attrs.padding[0] == 0 && c.attrs.padding[1] == 0 && c.attrs.groups == 1) {
    const std::int64_t IC = w.dim(1), KH = w.dim(2), KW = w.dim(3);
    for (std::int64_t n = 0; n < direct.dim(0); ++n)
      for (std::int64_t o = 0; o < direct.dim(1); ++o)
        for (std::int64_t pp = 0; pp < direct.dim(2); ++pp)
          for (std::int64_t q = 0; q < direct.dim(3); ++q) {
            std::vector<Int> a, b;
            for (std::int64_t i = 0; i < IC; ++i)
              for (std::int64_t ki = 0; ki < KH; ++ki)
                for (std::int64_t kj = 0; kj < KW; ++kj) {
                  a.push_back(x.at4(n, i, pp * c.attrs.stride[0] + ki * c.attrs.dilation[0], q * c.attrs.stride[1] + kj * c.attrs.dilation[1]));
                  b.push_back(w.at4(o, i, ki, kj));
                }
            RC_ASSERT(gemmlowp_offset_dot_int32(a, b, Int(-zx), Int(-zw)) == direct.at4(n, o, pp, q));
          }
  }
}

// NHWC/HWIO is the NCHW/OIHW operator under the layout permutation.
RC_GTEST_PROP(tvm_qnn_conv2d, NhwcEqualsNchw, ()) {
  const ConvCase c = draw_conv_case();
  const IntArray x = draw_array(c.x, -128, 127), w = draw_array(c.w, -128, 127);
  TvmQnnParams p;
  p.input_zero_point = *rc::gen::inRange(-128, 128);
  p.kernel_zero_point = *rc::gen::inRange(-128, 128);
  auto perm = [](const IntArray& a, std::array<int, 4> pm) {
    Shape s(4);
    for (int i = 0; i < 4; ++i) s[static_cast<std::size_t>(i)] = a.shape[static_cast<std::size_t>(pm[static_cast<std::size_t>(i)])];
    IntArray y(s);
    for (std::int64_t off = 0; off < y.numel(); ++off) {
      const Shape idx = unravel(off, s);
      Shape src(4);
      for (int i = 0; i < 4; ++i) src[static_cast<std::size_t>(pm[static_cast<std::size_t>(i)])] = idx[static_cast<std::size_t>(i)];
      y.data[static_cast<std::size_t>(off)] = a.at(src);
    }
    return y;
  };
  const IntArray nchw = tvm_qnn_conv2d(x, w, c.attrs, TvmLayout::NCHW_OIHW, p);
  const IntArray nhwc = tvm_qnn_conv2d(perm(x, {0, 2, 3, 1}), perm(w, {2, 3, 1, 0}), c.attrs, TvmLayout::NHWC_HWIO, p);
  RC_ASSERT(perm(nchw, {0, 2, 3, 1}) == nhwc);
}

RC_GTEST_PROP(tvm_qnn_dense, EqualsMrtFormalization4, ()) {
  const Shape xs{*rc::gen::inRange(1, 4), *rc::gen::inRange(1, 17)}, ws{*rc::gen::inRange(1, 4), xs[1]};
  const IntArray x = draw_array(xs, -128, 127), w = draw_array(ws, -128, 127);
  TvmQnnParams p;
  p.input_zero_point = *rc::gen::inRange(-128, 128);
  p.kernel_zero_point = *rc::gen::inRange(-128, 128);
  const auto mrt = fc_expand<Int>(ExpKind::ZpXW, x, w, Int(-p.input_zero_point), Int(-p.kernel_zero_point));
  RC_ASSERT(tvm_qnn_dense(x, w, p) == mrt.partial_sums.back());
}

// Equations (4)-(7): the accumulator is exactly (4)'s sum, and the result is within
// 1/2 + 2^-(shift+1) of the exact result_zp + m * acc (m = M 2^(-31-shift)) unless saturated.
RC_GTEST_PROP(gemmlowp_matmul, EndToEndWithinDoubleRoundingOfEquation7, ()) {
  const std::int64_t M = *rc::gen::inRange(1, 4), K = *rc::gen::inRange(1, 33), N = *rc::gen::inRange(1, 4);
  const IntArray l = draw_array({M, K}, 0, 255), r = draw_array({K, N}, 0, 255);
  GemmlowpMatmulParams p;
  p.lhs_zero_point = *rc::gen::inRange(0, 256);
  p.rhs_zero_point = *rc::gen::inRange(0, 256);
  p.result_zero_point = *rc::gen::inRange(0, 256);
  p.multiplier = Int(*rc::gen::inRange<long long>(1LL << 30, 1LL << 31));
  p.shift = *rc::gen::inRange(0, 20);
  const IntArray acc = gemmlowp_matmul_accumulator(l, r, p.lhs_zero_point, p.rhs_zero_point);
  const IntArray y = gemmlowp_matmul(l, r, p);
  const Rat m = Rat(p.multiplier) * pow2r(-31 - p.shift);
  for (std::int64_t i = 0; i < M; ++i)
    for (std::int64_t j = 0; j < N; ++j) {
      Int exact = 0;  // equation (4)
      for (std::int64_t k = 0; k < K; ++k) exact += (l.at2(i, k) - p.lhs_zero_point) * (r.at2(k, j) - p.rhs_zero_point);
      RC_ASSERT(acc.at2(i, j) == exact);
      const Rat ideal = Rat(p.result_zero_point) + m * Rat(exact);  // equation (7), exactly
      if (ideal >= 0 && ideal <= 255)
        RC_ASSERT(abs(Rat(y.at2(i, j)) - ideal) <= Rat(1, 2) + pow2r(-(p.shift + 1)));
      else
        RC_ASSERT(y.at2(i, j) == (ideal < 0 ? 0 : 255));
    }
}
