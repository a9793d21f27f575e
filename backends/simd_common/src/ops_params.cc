// Handlers of the scalar parameter computations: TFLite / gemmlowp QuantizeMultiplier and gemmlowp's
// ChooseQuantizationParams, on the hardware's IEEE binary32/binary64 arithmetic (every step the
// spec names is one correctly rounded operation, or exact: frexp, doubling, products by 2^31).
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "qspec/core/json_values.h"
#include "qspec/simd/backend_core.h"

namespace qspec::simd {
namespace {

struct QM {
  std::int64_t m = 0;
  int shift = 0;
};

enum class Build { kDefault, kSingleRounding, kEmulateFloat };

// requant.tflite.quantize_multiplier for a finite d >= 0.
QM tflite_quantize_multiplier(double d, Build build) {
  if (d == 0.0) return {};
  QM r;
  if (build == Build::kEmulateFloat) {
    // IntegerFrExp: the top 30 fraction bits, the 22 discarded ones rounded half DOWN.
    std::uint64_t bits;
    std::memcpy(&bits, &d, 8);
    const std::uint64_t e = (bits >> 52) & 0x7ffu, top = (bits & 0x000fffffffc00000ull) >> 22,
                        low = bits & 0x003fffffull;
    r.shift = static_cast<int>(e) - 1023 + 1;
    r.m = 0x40000000 + static_cast<std::int64_t>(top) + (low > 0x00200000u ? 1 : 0);
  } else {
    const double q = std::frexp(d, &r.shift);                        // exact
    r.m = static_cast<std::int64_t>(std::round(std::ldexp(q, 31)));  // exact product, ties away
  }
  if (r.m == (std::int64_t{1} << 31)) {
    r.m /= 2;
    ++r.shift;
  }
  if (r.shift < -31) r = {};
  if (build == Build::kSingleRounding && r.shift > 30) r = {INT32_MAX, 30};
  return r;
}

// QuantizeMultiplierSmallerThanOne on a float32 in (0, 1).
QM gemmlowp_quantize_multiplier(float real) {
  double m = real;
  int s = 0;
  while (m < 0.5) {
    m *= 2;
    ++s;
  }
  std::int64_t q = static_cast<std::int64_t>(std::round(std::ldexp(m, 31)));
  if (q == (std::int64_t{1} << 31)) {
    q /= 2;
    --s;
  }
  return {q, -s};
}

template <Build kBuild, bool kGemmlowp>
void quantize_multiplier(OpCall& c) {
  const qspec_tensor& r = c.input("real_multiplier", 0);
  expect_dtype(r, kGemmlowp ? QSPEC_DTYPE_FLOAT32 : QSPEC_DTYPE_FLOAT64, "input 'real_multiplier'");
  const auto n = static_cast<std::size_t>(numel(r));
  std::vector<QM> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    if constexpr (kGemmlowp) {
      const float v = static_cast<const float*>(r.data)[i];
      if (!(v > 0.0f && v < 1.0f))
        throw Unsupported("gemmlowp QuantizeMultiplierSmallerThanOne needs 0 < m < 1 (REQUIRE)");
      out[i] = gemmlowp_quantize_multiplier(v);
    } else {
      const double v = static_cast<const double*>(r.data)[i];
      if (!std::isfinite(v)) throw Unsupported("finite double_multiplier (REQUIRE)");
      if (v < 0) throw Rejected("requant.tflite.quantize_multiplier: negative real multiplier (ERROR_IF)");
      out[i] = tflite_quantize_multiplier(v, kBuild);
    }
  }
  qspec_tensor& m = c.output("multiplier", 0);
  qspec_tensor& s = c.output("shift", 1);
  expect_dtype(m, QSPEC_DTYPE_INT32, "output 'multiplier'");
  expect_dtype(s, QSPEC_DTYPE_INT32, "output 'shift'");
  expect_same_shape(r, m, "output 'multiplier'");
  expect_same_shape(r, s, "output 'shift'");
  for (std::size_t i = 0; i < n; ++i) {
    static_cast<std::int32_t*>(m.data)[i] = static_cast<std::int32_t>(out[i].m);
    static_cast<std::int32_t*>(s.data)[i] = out[i].shift;
  }
}

// gemmlowp.choose_params: extend [min, max] to 0, scale = fl32((max - min) / 255), zero point
// std::round(-fl64(min / scale)) clamped to [0, 255].
void gemmlowp_choose_params(OpCall& c) {
  const qspec_tensor& range = c.input("range", 0);
  expect_dtype(range, QSPEC_DTYPE_FLOAT32, "input 'range'");
  if (numel(range) != 2) throw std::invalid_argument("input 'range' must hold (min, max)");
  float mn = static_cast<const float*>(range.data)[0], mx = static_cast<const float*>(range.data)[1];
  if (!std::isfinite(mn) || !std::isfinite(mx)) throw Unsupported("finite min and max (REQUIRE)");
  mn = std::min(mn, 0.0f);  // (b < a) ? b : a: a zero of either sign is kept as given
  mx = std::max(mx, 0.0f);
  const float width = mx - mn;
  if (std::isinf(width)) throw Rejected("gemmlowp.choose_params: max - min overflows float32 (ERROR_IF)");
  const float scale = width / 255.0f;
  if (scale == 0.0f) throw Rejected("gemmlowp.choose_params: the scale is 0 (ERROR_IF)");
  const double initial = 0.0 - static_cast<double>(mn) / static_cast<double>(scale);
  const std::uint8_t zp = initial < 0 ? 0 : initial > 255 ? 255 : static_cast<std::uint8_t>(std::round(initial));
  qspec_tensor& s = c.output("scale", 0);
  qspec_tensor& z = c.output("zero_point", 1);
  expect_dtype(s, QSPEC_DTYPE_FLOAT32, "output 'scale'");
  expect_dtype(z, QSPEC_DTYPE_UINT8, "output 'zero_point'");
  if (numel(s) != 1 || numel(z) != 1) throw std::invalid_argument("scalar outputs");
  std::memcpy(s.data, &scale, 4);
  std::memcpy(z.data, &zp, 1);
}

}  // namespace

void add_param_ops(std::vector<OpEntry>& t) {
  const char* sc = "scalar IEEE";
  t.push_back({"quantize_multiplier", "tflite.quantize_multiplier", sc, quantize_multiplier<Build::kDefault, false>});
  t.push_back({"quantize_multiplier", "tflite.quantize_multiplier_single_round", sc,
               quantize_multiplier<Build::kSingleRounding, false>});
  t.push_back({"quantize_multiplier", "tflite.quantize_multiplier_emulate_float", sc,
               quantize_multiplier<Build::kEmulateFloat, false>});
  t.push_back({"quantize_multiplier", "gemmlowp.quantize_multiplier_smaller_than_one", sc,
               quantize_multiplier<Build::kDefault, true>});
  t.push_back({"choose_quant_params", "gemmlowp.choose_params", sc, gemmlowp_choose_params});
}

}  // namespace qspec::simd
