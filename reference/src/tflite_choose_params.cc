// TFLite's ChooseQuantizationParams on exact rationals, one binary64 rounding per operation.
#include "qspec/ref/tflite_choose_params.h"

#include <string>

#include "qspec/ref/ieee.h"
#include "qspec/ref/rounding.h"

namespace qspec::ref {
namespace {
// A binary64 operation's result: the exact value rounded to the nearest double (RNE).
Rat d(const Rat& exact) { return f64_value(f64_round(exact)); }
}  // namespace

// spec: tflite.choose_quantization_params
TfliteQuantParams tflite_choose_quantization_params(std::uint64_t rmin_f64, std::uint64_t rmax_f64, DType t,
                                                    bool narrow_range) {
  const char* c = "tflite.choose_quantization_params: ";
  QSPEC_ERROR_IF(!(t == DType::I8 || t == DType::U8 || t == DType::I16),
                 std::string(c) + "T must be int8, uint8 or int16, not " + std::string(dtype_name(t)));
  QSPEC_REQUIRE(float_is_finite(rmin_f64, kBinary64) && float_is_finite(rmax_f64, kBinary64),
                std::string(c) + "finite range");
  const Range r = int_range(t);
  // qmin = numeric_limits<T>::min() + (narrow_range ? 1 : 0); qmax = max().
  const Rat qmin(r.lo + (narrow_range ? 1 : 0)), qmax(r.hi);
  const Rat rmin = f64_value(rmin_f64), rmax = f64_value(rmax_f64);
  QSPEC_ERROR_IF(rmin > 0 || rmax < 0,
                 std::string(c) + "the range must contain 0 (TFLITE_CHECK_LE(rmin, 0.), CHECK_GE(rmax, 0.))");
  if (rmin == rmax) {  // a point range must be {0}: scale 0, zero point 0
    QSPEC_ERROR_IF(rmin != 0, std::string(c) + "a point range must be 0");
    return {0, Int(0)};
  }
  // scale = (rmax - rmin) / (qmax_double - qmin_double): a double subtraction, then a division.
  const Rat scale = d(d(rmax - rmin) / (qmax - qmin));
  // zero_point_from_min = qmin - rmin / scale; _from_max = qmax - rmax / scale; and the error
  // estimates |qmin| + |rmin / scale|, |qmax| + |rmax / scale| (each quotient rounded once).
  const Rat min_over = d(rmin / scale), max_over = d(rmax / scale);
  const Rat from_min = d(qmin - min_over), from_max = d(qmax - max_over);
  const Rat err_min = d(abs(qmin) + abs(min_over)), err_max = d(abs(qmax) + abs(max_over));
  const Rat zp = err_min < err_max ? from_min : from_max;
  // Nudge: clamp below qmin / above qmax, else round() (ties away from zero) to T.
  Int nudged;
  if (zp < qmin)
    nudged = round_floor(qmin);
  else if (zp > qmax)
    nudged = round_floor(qmax);
  else
    nudged = round_half_away(zp);
  return {f64_round(scale), nudged};
}

}  // namespace qspec::ref
