// Internal to simd_common: the engine conventions of the quantized operators (spec/operators_qlinear.md)
// shared by the conv2d, fully_connected and matmul handlers: parameters, their ERROR_IFs, the
// requantization scales and the float epilogue on the requantization kernels.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "nn_common.h"
#include "qspec/core/attr.h"
#include "qspec/core/qlinear_keys.h"
#include "qspec/simd/backend_core.h"
#include "qspec/simd/gemm.h"
#include "qspec/simd/int_tensor.h"
#include "qspec/simd/requant.h"

namespace qspec::simd::qlinear {

// Bit patterns and code ranges the qlinear handlers share: a binary32 from its bits and back, and
// the int8/uint8 code range of a tensor's dtype.
inline float f32_of(std::uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
inline std::uint32_t bits_of(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
inline std::int64_t lo_of(qspec_dtype t) { return t == QSPEC_DTYPE_INT8 ? -128 : 0; }
inline std::int64_t hi_of(qspec_dtype t) { return t == QSPEC_DTYPE_INT8 ? 127 : 255; }
inline bool fits(std::int64_t v, qspec_dtype t) { return v >= lo_of(t) && v <= hi_of(t); }
inline bool positive_normal(float f) { return std::isnormal(f) && f > 0.0f; }
inline bool finite_positive(float f) { return std::isfinite(f) && f > 0.0f; }

enum class Convention {
  kXnnpackFp32,
  kOnnxRuntime,
  kTfliteDouble,
  kTfliteSingle,
  kTosa,
  kPytorchQnnpack,
  kOnednn,
  kPytorchOnednn
};

// Whether a convention has a fused [y_min, y_max] clamp (ONNX Runtime's and PyTorch's operators have none).
constexpr bool has_clamp(Convention c) {
  return c != Convention::kOnnxRuntime && c != Convention::kPytorchQnnpack && c != Convention::kPytorchOnednn;
}
// Whether c has oneDNN's epilogue: the bias added in float, the zero point before rounding.
constexpr bool has_onednn_epilogue(Convention c) { return c == Convention::kOnednn || c == Convention::kPytorchOnednn; }

// The operator whose parameters a convention derives (TFLite derives them per operator).
enum class OpKind { kConv, kFullyConnected, kMatmul };

constexpr bool is_tflite(Convention c) { return c == Convention::kTfliteDouble || c == Convention::kTfliteSingle; }
// CONV_2D / DEPTHWISE_CONV_2D (TFLite) and CONV2D / DEPTHWISE_CONV2D (TOSA): groups 1 or C.
constexpr bool groups_one_or_depthwise(Convention c) { return is_tflite(c) || c == Convention::kTosa; }

// The attribute keys of one op's quantization parameters (matmul: a_* / b_*).
using Keys = QLinearKeys;

struct Params {
  qspec_dtype x_type = QSPEC_DTYPE_INT8, w_type = QSPEC_DTYPE_INT8;
  float x_scale = 1.0f, y_scale = 1.0f;
  std::vector<float> w_scales;
  std::int64_t x_zero_point = 0, w_zero_point = 0, y_zero_point = 0;
  std::int64_t y_min = 0, y_max = 0;  // the fused clamp (XNNPACK, TFLite), else the dtype's range
};

// The input called `name`, or null (optional inputs); named() throws std::invalid_argument instead.
// The TFLite -> TOSA legalization's computeMultiplierAndShift(d, 32) of a finite positive binary64:
// frexp, M = round half away(q 2^31) with the carry, TOSA's right shift s = 31 - e, capped at 62.
struct TosaScale {
  std::int64_t multiplier;
  int shift;
};
TosaScale tosa_multiplier_and_shift(double d);

const qspec_tensor* optional_input(const OpCall& c, std::string_view name);
const qspec_tensor& named(const OpCall& c, std::string_view name);

// Reads the parameters (y_min / y_max not for ONNX Runtime); x and w are the activation and weight tensors.
Params read_params(const OpCall& c, const Keys& k, const qspec_tensor& x, const qspec_tensor& w, Convention conv);

// The convention's ERROR_IFs of operator creation for `channels` output channels of op (throw
// Rejected), then the finalized requantization kernel parameters of every output channel: the
// binary32 scale S_o = (x_scale * w_scale[o]) / y_scale (kFloatThenZp), TFLite's Q31 multiplier
// of its binary64 real multiplier (kQ31Double / kShiftRound), TOSA's RESCALE (kShiftRound) or oneDNN's output
// scale with the zero point added before rounding (kFloatInclZp). A REQUIRE the parameters
// violate throws Unsupported.
std::vector<RequantParams> plan(const Params& p, std::int64_t channels, Convention conv, OpKind op);

// The accumulator plus the bias as the convention adds them: exactly (int64), or, for oneDNN, in
// binary32: the integer fl32(fl32(acc) + fl32(b)) (REQUIRE acc and acc + b in int32, else Unsupported).
std::int64_t add_bias(Convention conv, std::int64_t acc, std::int64_t b);

// y = the epilogue of every accumulator (REQUIRE'd in int32, else Unsupported) with the parameters
// of its channel, the last axis; written to `out` with `shape` (its dtype is x's).
void requantize(const KernelSet& k, const std::vector<std::int64_t>& acc, const std::vector<RequantParams>& plan,
                qspec_tensor& out, const std::vector<std::int64_t>& shape);

// The fused route (the requantization in the GEMM engine's stores, gemm.h) for a product of k_terms
// terms per output with these parameters, plan and bias: its epilogue when the engine fuses in
// registers (fuses_requant: the VNNI engines; the others keep two passes), the plan's kinds have a
// fused form and every accumulator, alone and with its bias, provably fits int32 (for oneDNN's float
// bias, 2^30, so that the float sum does too), so that the two passes' int32 REQUIREs never fire
// and the results are the same; else null (the two-pass route).
std::unique_ptr<FusedRequant> fused_epilogue(const GemmEngine& e, Convention conv, const Params& p,
                                             const std::vector<RequantParams>& plan, std::int64_t k_terms,
                                             std::int64_t channels, const IntArray* bias);

// The bytes of an int8 / uint8 output of `shape` to write directly, or null (then write_int).
std::uint8_t* byte_output(qspec_tensor& t, const std::vector<std::int64_t>& shape);

// PoolParams::fast from p's kind, geometry and parameters: every window's steps bounded by the
// largest |X - zx| and K taps (each product bound with a relative margin above its binary32
// roundings); xs_over_ys is TFLite's Mean's scale ratio.
void set_pool_fast(PoolParams& p, double xs_over_ys);

// An average pooling's output `out` (N, OH, OW, C) from x: the kernel set's pooling kernel on the
// tensors' bytes where p.fast (and y is x's 8-bit type), else pool_scalar (pool_one per window, which
// throws Unsupported where a REQUIRE fails, before anything is written).
void run_pool(OpCall& c, const PoolParams& p, const qspec_tensor& x, std::string_view out);

}  // namespace qspec::simd::qlinear
