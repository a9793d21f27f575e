// MRT's bit-width inference (infer_prec) for each expansion: the formulas as the document writes
// them, and the sound formulas qspec adopts where those are not (spec/bitwidth.md).
#pragma once

#include <optional>
#include <vector>

#include "qspec/ref/exact.h"

namespace qspec::ref::ops {

// Which infer_prec formula (one clause each in spec/bitwidth.md).
enum class PrecFormula {
  ConvSym,        // Convolution 1 (MRT V1 / CVM Conv2DInferPrecision)
  ConvZpX,        // Convolution 2: two partial results, then quantize_scale
  ConvZpW,        // Convolution 3
  ConvZpXW,       // Convolution 4 (the document's python block)
  FcSym,          // FullyConnected 1
  FcZpX,          // FullyConnected 2
  FcZpW,          // FullyConnected 3
  FcZpXW,         // FullyConnected 4
  QuantizeScale,  // broadcast_add / elemwise_add / add_n / concat after quantize_scale
  SamePrec,       // pad, relu, max Pooling, flatten, slice: the input's precision
};

// How a zero-point (affine) operand of precision p is read (spec/bitwidth.md "Precision readings"):
//   Unsigned: q in [0, 2^p - 1]          (MRT V2's UAQuantizer range, "mrange = 2**prec - 1")
//   Signed:   q in [-(2^(p-1)-1), 2^(p-1)-1] (CVM's precision: every CVM tensor is clipped so)
// A symmetric operand holds |q| <= 2^(p-1) - 1 under both. The adopted formulas are sound under
// both readings; the seed's Convolution 4 formula only under Signed (errata E-BITS-4).
enum class ZeroPointReading { Unsigned, Signed };

// The register MRT's inferred precisions must fit: CVM's graph precisions are in [1, 32].
inline constexpr int kMaxInferredPrec = 32;
// CVM's Conv2D and dense VERIFY_LE(input precision, 8) and the same for the weight.
inline constexpr int kMaxConvFcOperandPrec = 8;

// Everything a formula reads. Operands: a symmetric operand of precision p holds |q| <= 2^(p-1)-1;
// a zero-point (affine) operand holds a value of its reading (above).
struct PrecParams {
  Int k{1};  // reduction length: IC*KH*KW (Convolution) or K (FullyConnected)
  int xprec = 8, wprec = 8;
  Int zx{0}, zw{0};        // integer zero points in the "+ zp" convention
  Int x_pad{0};            // Convolution 2: the integer X is padded with (-zx*sc_x/zsc_x)
  std::vector<Int> wsums;  // per output channel m: sum_i Wq[m, i] (the document's C / C2 use it)
  // Convolution 2/3: the precision both partial results are requantized to by quantize_scale.
  int oprec = 16;
  // QuantizeScale / SamePrec: the input precisions (after requantization), and the combining op.
  std::vector<int> in_precs;
  bool concat = false;
};

// spec: bitwidth.fits
// True iff |v| <= 2^(p-1) - 1 (the MRT precision-p range, types.mrt_sym_range).
bool fits_prec(const Int& v, int p);
// spec: bitwidth.fits
// The least p >= 1 with fits_prec(v, p): bitlen(|v|) + 1 (= get_bit(v) for an integer v).
int needed_prec(const Int& v);

// spec: bitwidth.mrt.conv2d_sym
// spec: bitwidth.mrt.conv2d_zpx
// spec: bitwidth.mrt.conv2d_zpw
// spec: bitwidth.mrt.conv2d_zpxw
// spec: bitwidth.mrt.fc_sym
// spec: bitwidth.mrt.fc_zpx
// spec: bitwidth.mrt.fc_zpw
// spec: bitwidth.mrt.fc_zpxw
// spec: bitwidth.mrt.quantize_scale
// spec: bitwidth.mrt.same_prec
// The formula exactly as the source writes it. nullopt where the source has none (Convolution 2
// and 3) or where it is undefined: get_bit_cnt(0) (a zero point or constant of 0) asserts in MRT.
std::optional<int> infer_prec_as_written(PrecFormula f, const PrecParams& p);
// The formula qspec adopts: sound for every input in the declared precisions, under both
// readings (spec/bitwidth.md). ERROR_IF a Convolution/FullyConnected operand precision is outside
// [1, 8] (CVM), K < 1, oprec outside [1, 32], an input precision outside [1, 32], or the result
// exceeds 32 (CVM's register).
int infer_prec(PrecFormula f, const PrecParams& p);

// spec: bitwidth.mrt.effective_prec
// MRT's post-op clip: with the calibrated tight precision `tight` = get_bit(threshold * scale), an
// op whose inferred precision exceeds it is followed by cvm_clip(precision = tight). Returns the
// precision the next op sees, min(inferred, tight). ERROR_IF either is outside [1, 32].
int effective_prec(int inferred, int tight);
// spec: bitwidth.mrt.effective_prec
// The op's output after the post-op clip: cvm_clip(v, tight) if inferred > tight, else v.
Int post_op_clip(const Int& v, int inferred, int tight);

}  // namespace qspec::ref::ops
