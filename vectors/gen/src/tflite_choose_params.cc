// Vector family of TFLite's ChooseQuantizationParams (op choose_quant_params, convention tflite):
// ranges as exact dyadic doubles, zero-point ties, narrow ranges, the three types, the ERROR_IFs.
#include <bit>
#include <string>

#include "qspec/catalogue/keys.h"
#include "qspec/vecgen.h"

namespace qspec::vecgen {
namespace {

using OJ = nlohmann::ordered_json;
using K = cat::choose_quant_params;

// rmin = -a / 2^j, rmax = b / 2^j: exact doubles (the generator does no rounding).
std::int64_t dbl(std::int64_t num, int j) {
  return static_cast<std::int64_t>(
      std::bit_cast<std::uint64_t>(static_cast<double>(num) / static_cast<double>(std::int64_t{1} << j)));
}

Test make(std::string comment, std::int64_t a, std::int64_t b, int j, DType dtype, bool narrow, bool invalid = false,
          std::vector<std::string> flags = {}) {
  Test t;
  t.comment = std::move(comment);
  t.flags = std::move(flags);
  t.inputs = {tensor(std::string(K::in::range), DType::F64, {2}, {dbl(-a, j), dbl(b, j)})};
  t.attributes = OJ::object();
  attr::set(t.attributes, K::attr::dtype, dtype);
  attr::set(t.attributes, K::attr::narrow_range, narrow);
  t.invalid = invalid;
  return t;
}

std::vector<Group> generate(Rng& r) {
  std::vector<Test> t;
  for (DType dt : {DType::U8, DType::I8, DType::I16})
    for (bool narrow : {false, true}) {
      t.push_back(make("symmetric [-1, 1]", 1, 1, 0, dt, narrow));
      t.push_back(make("all positive [0, 6]", 0, 6, 0, dt, narrow));
      t.push_back(make("all negative [-3, 0]", 3, 0, 0, dt, narrow));
      t.push_back(make("point range {0}: scale 0, zero point 0", 0, 0, 0, dt, narrow));
      // a + b = 2 (qmax - qmin) and a odd: -rmin / scale = a / 2 is a tie, round() goes away.
      const std::int64_t span = dt == DType::I16 ? 65535 : 255;
      for (std::int64_t a : {1, 3, 101, 253})
        if (!narrow) t.push_back(make("zero point tie a/2", a, 2 * span - a, 4, dt, narrow, false, {"zero_point_tie"}));
    }
  t.push_back(make("ERROR_IF: range above 0", -1, 2, 0, DType::U8, false, true));
  t.push_back(make("ERROR_IF: range below 0", 2, -1, 0, DType::I8, false, true));
  t.push_back(make("ERROR_IF: int32 is not a TFLite T here", 1, 1, 0, DType::I32, false, true));
  for (int i = 0; i < 60; ++i) {
    const DType dt = r.pick(std::vector<DType>{DType::U8, DType::I8, DType::I16});
    // One draw per statement, in the order GCC evaluated make's arguments (right to left).
    const bool flag = r.coin();
    const int e = static_cast<int>(r.uniform(0, 24));
    const std::int64_t b = r.uniform(0, 1 << 20);
    const std::int64_t a = r.uniform(0, 1 << 20);
    t.push_back(make("random", a, b, e, dt, flag));
  }
  return {Group{OJ::object(), std::move(t)}};
}

QSPEC_REGISTER_VECTOR_FAMILY(family<cat::choose_quant_params>(
    cat::choose_quant_params::conv::tflite,
    {{"zero_point_tie", "-rmin / scale is exactly k + 1/2: round() goes away from zero"}}, 902, generate));

}  // namespace
}  // namespace qspec::vecgen
