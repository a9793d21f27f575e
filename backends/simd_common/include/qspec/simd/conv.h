// Quantized 2-D convolution on NHWC data: im2col tiles through the GEMM engine, a direct depthwise
// kernel, and an ISA's direct convolution where it has one. Exact int64 results
// y = sum (x - za) * (w - zw) over the window, with the input padded by `pad` (the spec's pad
// value: normally the integer whose real value is 0).
#pragma once

#include <cstdint>
#include <vector>

#include "qspec/simd/qgemm.h"

namespace qspec::simd {

struct KernelSet;

struct ConvGeom {
  std::int64_t n = 1, h = 1, w = 1, c = 1;  // input NHWC
  std::int64_t o = 1, kh = 1, kw = 1;       // output channels and window
  std::int64_t sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1, groups = 1;
  std::int64_t ph2 = -1, pw2 = -1;  // bottom / right padding when it differs from top (ph) / left (pw)
  std::int64_t oh() const { return (h + ph + (ph2 < 0 ? ph : ph2) - dh * (kh - 1) - 1) / sh + 1; }
  std::int64_t ow() const { return (w + pw + (pw2 < 0 ? pw : pw2) - dw * (kw - 1) - 1) / sw + 1; }
};

// Depthwise kernel (one output channel per input channel): with xs = x - za and ps = pad - za
// (int16 after the packer's range check) and ws the int16 weights w - zw,
// y[p][ch] = sum_taps xs[tap(p)][ch] * ws[tap][ch], a tap outside the input reading ps.
// With y8 set instead of y (only for a kernel KernelSet::depthwise_fuses_requant names): the bytes
// of the fused epilogue ep of each channel applied to that int32 y, as DirectConvArgs' y8 (the
// caller has bounded y plus the bias in int32).
struct DepthwiseArgs {
  const ConvGeom* g;
  const std::uint8_t* x;  // n*h*w*c input bytes (int8 if x_signed, else uint8)
  bool x_signed;
  std::int64_t za, pad;
  const std::int16_t* w16;               // kh*kw*c: w - zw (tap-major)
  std::int32_t* y;                       // n*oh*ow*c
  std::uint8_t* y8 = nullptr;            // n*oh*ow*c bytes (int8 or uint8, as ep's plan says)
  const FusedRequantView* ep = nullptr;  // with y8: columns 0..c-1
};
using DepthwiseFn = void (*)(const DepthwiseArgs& a);
void depthwise_scalar(const DepthwiseArgs& a);

// A direct convolution (implicit GEMM: the window read from the input rows, no im2col buffer) an
// ISA may supply (KernelSet::direct_conv) for one group and k = kh*kw*c <= kMaxExactK. It computes
// exactly what qgemm_u8 computes on the im2col rows: with A_u the input bytes XOR `flip` (the
// padding reading pad_u), W_s the weights as packed, za_u = za' and zw_s = zw' of qgemm.h,
//   y = dot(A_u, W_s) - zw_s * rowsum(A_u) - za_u * colsum(W_s) + k * za_u * zw_s
// (int32 results modulo 2^32, int64 results exact), or, for byte outputs, the fused epilogue ep of
// each output channel applied to the int32 y, as GemmEngine::run_requant (the caller has bounded
// y in int32).
struct DirectConvArgs {
  const ConvGeom* g;
  const AlignedBuffer* w;        // pack()'s layout
  const std::int64_t* col_sums;  // o entries: sum over k of W_s
  const std::uint8_t* x;         // NHWC input bytes
  std::uint8_t flip, pad_u;      // flip: 0x80 for int8 input, else 0; pad_u: the padding byte XOR flip
  std::int64_t za_u, zw_s;
  std::int32_t* y32;  // exactly one of y32 / y64 / y8 is set: (n, oh, ow, o)
  std::int64_t* y64;
  std::uint8_t* y8 = nullptr;            // the bytes of ep (int8 or uint8, as its plan says)
  const FusedRequantView* ep = nullptr;  // with y8: columns 0..o-1
};
class DirectConv {
 public:
  virtual ~DirectConv() = default;
  virtual bool supports(const ConvGeom& g) const = 0;
  // Packs o rows of k = kh*kw*c signed bytes W_s, ordered (kh, kw, c), row stride k.
  virtual void pack(const ConvGeom& g, const std::int8_t* w_s, AlignedBuffer& out) const = 0;
  virtual void run(const DirectConvArgs& a) const = 0;
};

struct QConvWeights {
  ConvGeom g;
  std::int64_t zw = 0;
  bool depthwise = false;           // the direct kernel applies (groups == c == o, operands fit int16)
  std::vector<std::int16_t> w16;    // depthwise: kh*kw*c, w - zw
  std::vector<QWeights> per_group;  // GEMM path: og x (kh*kw*cg), k ordered (kh, kw, cg)
  AlignedBuffer direct;             // KernelSet::direct_conv's weights, when it supports g (else empty)
};

// Packs OIHW weights (int8, or uint8 if w_unsigned) with weight zero point zw.
QConvWeights pack_conv_weights(const KernelSet& k, const ConvGeom& g, const void* w_oihw, bool w_unsigned,
                               std::int64_t zw, std::int64_t za, std::int64_t pad);

// y (n, oh, ow, o) = the exact convolution of x (NHWC bytes: int8 if x_signed, else uint8);
// Out = int32_t gives it modulo 2^32 (exact when it fits, as qgemm).
template <class Out>
void qconv2d_nhwc(const KernelSet& k, const QConvWeights& w, const void* x_nhwc, bool x_signed, std::int64_t za,
                  std::int64_t pad, Out* y);

// The int8 / uint8 outputs of the qlinear operators: y (n, oh, ow, o bytes) = the epilogue ep of
// every output channel applied to the convolution, fused into the stores of the depthwise kernel
// (w.depthwise), else of the ISA's direct convolution where it took the weights, else of the im2col
// path's GEMM engine (qgemm_u8_requant) (the caller bounds the accumulators in int32).
// Whether qconv2d_nhwc_requant takes these weights: the direct convolution and the im2col GEMM
// path always; the depthwise kernel where the kernel set's has the epilogue in its stores (the
// others write int32 accumulators, requantized in a second pass).
bool conv_fuses_requant(const KernelSet& k, const QConvWeights& w);
void qconv2d_nhwc_requant(const KernelSet& k, const QConvWeights& w, const void* x_nhwc, bool x_signed, std::int64_t za,
                          std::int64_t pad, const FusedRequant& ep, std::uint8_t* y);

}  // namespace qspec::simd
