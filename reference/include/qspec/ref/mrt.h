// MRT quantizers, cvm_float and the CVM shift/clip operators, exactly (spec/mrt_quantization.md).
//
// Floats are IEEE bit patterns (binary32 as uint32_t, binary64 as uint64_t); every float
// operation MRT performs in Python or MXNet is modelled with the exact IEEE helpers of ieee.h.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "qspec/ref/exact.h"
#include "qspec/ref/rounding.h"

namespace qspec::ref {

// alpha(p) = 2^(p-1) - 1, the bound of MRT/CVM precision p. ERROR_IF p outside [1, 32].
Int mrt_alpha(int prec);

// ---- Scales and parameter quantizers (reference/src/mrt_quantizers.cc) ----

// spec: mrt.scale
// 1 if th == 0, else fl64(alpha(p) / th), as binary64 bits. ERROR_IF th < 0 or p outside [1, 32].
std::uint64_t mrt_scale(std::uint64_t threshold_f64, int prec);

// The multiplication used by the symmetric parameter quantizer.
enum class MrtSymVariant {
  V1,     // normative: fl64(W * sc) (MRT V1, astype("float64"))
  V2,     // diagnostic: fl32(W * fl32(sc)) (MRT V2 USQuantizer on the float32 array)
  Ideal,  // diagnostic: W * alpha(p) / th with the exact real scale
};

struct MrtSymParamResult {
  std::vector<Int> q;
  std::uint64_t scale = 0;  // binary64 bits
  int prec = 0;
};

// spec: mrt.sym_param_quantizer
// One element: clip_p(half_away(fl64(W * sc))) (V1). `scale` is mrt_scale(th, p) != 0.
Int mrt_sym_quantize_value(std::uint32_t w_f32, std::uint64_t scale_f64, int prec);

// spec: mrt.sym_param_quantizer
// The whole parameter: threshold defaults to max |W|; th == 0 gives zeros, scale 1, prec 1.
MrtSymParamResult mrt_sym_param_quantize(const std::vector<std::uint32_t>& w_f32, int prec,
                                         std::optional<std::uint64_t> threshold_f64 = std::nullopt,
                                         MrtSymVariant variant = MrtSymVariant::V1);

struct MrtAffineParamResult {
  std::vector<Int> q;
  std::uint64_t scale = 0;       // binary64 bits
  std::uint64_t zero_point = 0;  // binary64 bits: the real zero point min
};

// spec: mrt.affine_param_quantizer
// sc = fl64((2^p - 1) / fl64(max - min)). ERROR_IF max == min or p outside [1, 32].
std::uint64_t mrt_affine_scale(std::uint64_t min_f64, std::uint64_t max_f64, int prec);

// spec: mrt.affine_param_quantizer
// One element: sat_[0, 2^p-1](half_away(max(0, fl32(fl32(W - fl32(zp)) * fl32(sc))))).
Int mrt_affine_quantize_value(std::uint32_t w_f32, std::uint64_t zero_point_f64, std::uint64_t scale_f64, int prec);

// spec: mrt.affine_param_quantizer
// The whole parameter; the range defaults to [min W, max W].
MrtAffineParamResult mrt_affine_param_quantize(const std::vector<std::uint32_t>& w_f32, int prec,
                                               std::optional<std::uint64_t> min_f64 = std::nullopt,
                                               std::optional<std::uint64_t> max_f64 = std::nullopt);

// spec: mrt.dequantize
// The exact real value q / scale + zero. REQUIRE scale > 0.
Rat mrt_dequantize(const Int& q, const Rat& scale, const Rat& zero = Rat(0));

// ---- cvm_float (reference/src/mrt_cvm_float.cc) ----

struct CvmFloat {
  Int frac;
  int exp = 0;
};

// spec: mrt.cvm_float
// MRT's (frac, exp) for a binary64 number >= 0. ERROR_IF number < 0; REQUIRE finite, bits <= 32.
CvmFloat mrt_cvm_float(std::uint64_t number_f64, int bits);

// ---- CVM integer operators (reference/src/mrt_cvm_ops.cc) ----

// spec: cvm.clip
// clip_p(x). ERROR_IF p outside [1, 32].
Int cvm_clip(const Int& x, int precision);

// spec: cvm.right_shift
// clip_p(floor((x + 2^(b-1)) / 2^b)) = clip_p(half_up(x / 2^b)). ERROR_IF p or b outside [1, 32].
Int cvm_right_shift(const Int& x, int shift_bit, int precision);

// spec: cvm.right_shift_cpu
// The CPU kernel's result (no rounding for b >= 31, no clip for p + b >= 32). x is an int32.
Int cvm_right_shift_cpu(const Int& x, int shift_bit, int precision);

// spec: cvm.left_shift
// clip_p(x * 2^b) for x of precision ip. ERROR_IF p, b, ip outside [1, 32] or ip + b > 32;
// REQUIRE |x| <= alpha(ip).
Int cvm_left_shift(const Int& x, int shift_bit, int precision, int input_precision);

// The diagnostic family "shift.exact.<rounding>": clip_p(round_mode(x / 2^b)), same ERROR_IFs.
Int cvm_right_shift_exact(const Int& x, int shift_bit, int precision, Rounding mode);

// ---- Requantization (reference/src/mrt_requant.cc) ----

// spec: mrt.realize
// Multiply by frac (if frac > 1), then cvm clip / right shift / left shift by -exp.
// ERROR_IF the CVM precision/shift checks fail; REQUIRE frac >= 1 and |x| <= alpha(ip).
Int mrt_realize(const Int& x, const Int& frac, int exp, int precision, int input_precision);

// The ERROR_IF checks of mrt_realize that depend only on the attributes (so a tensor op rejects
// even when it has no elements).
void mrt_realize_check(const Int& frac, int exp, int precision, int input_precision);

struct MrtRequantResult {
  std::vector<Int> y;
  int prec = 0;
  std::uint64_t scale = 0;  // binary64 bits
  Int zero_point = 0;       // affine input quantizer only
};

// spec: mrt.sym_input_quantizer
MrtRequantResult mrt_sym_input_quantize(const std::vector<Int>& xe, std::uint64_t iscale_f64,
                                        std::uint64_t threshold_f64, int iprec, int prec);

// spec: mrt.sym_input_quantizer
// The precision MRT V2's USQuantizer returns for the requantized operator: get_prec(oscale *
// absmax) = get_bit of the binary64 product of the simulated scale (r.scale) and the threshold,
// the tight bits, where V1 returns p. It is p + 1 whenever the simulated scale rounds the product
// above 2^(p-1) - 1 (errata E-MRT-12).
int mrt_v2_operator_prec(std::uint64_t simulated_scale_f64, std::uint64_t threshold_f64);

// spec: mrt.affine_input_quantizer
MrtRequantResult mrt_affine_input_quantize(const std::vector<Int>& xe, std::uint64_t iscale_f64,
                                           std::uint64_t min_f64, std::uint64_t max_f64, int iprec, int prec);

// spec: mrt.requant_operator
MrtRequantResult mrt_requant_operator(const std::vector<Int>& xe, std::uint64_t iscale_f64,
                                      std::uint64_t threshold_f64, int iprec, int oprec,
                                      std::optional<std::uint64_t> oscale_f64 = std::nullopt, int shift_bits = 5);

// fl64(fl64(iscale * frac) * 2^exp): the simulated scale MRT records after cvm_float.
std::uint64_t mrt_simulated_scale(std::uint64_t iscale_f64, const CvmFloat& cf);

}  // namespace qspec::ref
