// Golden-vector families for gemmlowp's example quantization code: choose params, quantize, dequantize.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "qspec/catalogue/keys.h"
#include "qspec/core/attr.h"
#include "qspec/vecgen.h"

namespace qspec::vecgen {
namespace {

// float32 bit patterns written out (never computed with float arithmetic here).
constexpr std::int64_t kF_0 = 0x00000000, kF_Neg0 = 0x80000000;
constexpr std::int64_t kF_1 = 0x3f800000, kF_M1 = 0xbf800000;
constexpr std::int64_t kF_Half = 0x3f000000;
constexpr std::int64_t kF_2 = 0x40000000, kF_M2 = 0xc0000000;
constexpr std::int64_t kF_M3 = 0xc0400000;
constexpr std::int64_t kF_6 = 0x40c00000;
constexpr std::int64_t kF_M0_1 = 0xbdcccccd;  // -0.1f
constexpr std::int64_t kF_10 = 0x41200000, kF_M10 = 0xc1200000;
constexpr std::int64_t kF_MinSub = 0x00000001;  // 2^-149
constexpr std::int64_t kF_NegMinSub = 0x80000001;
constexpr std::int64_t kF_3e38 = 0x7f61b1e6, kF_M3e38 = 0xff61b1e6;  // +-3e38f
constexpr std::int64_t kF_ZpTieMin = 0xbec90000;                     // -0.392578125 = -100.5/256
constexpr std::int64_t kF_ZpTieMax = 0x3f1a8000;                     // 0.603515625 = 154.5/256

std::vector<Group> generate_choose_params(Rng& rng) {
  Group g;
  auto add = [&](std::int64_t lo, std::int64_t hi, std::vector<std::string> flags, const std::string& comment,
                 bool invalid = false) {
    Test t;
    t.comment = comment;
    t.flags = std::move(flags);
    t.inputs = {scalar_vector(std::string(cat::choose_quant_params::in::range), DType::F32, {lo, hi})};
    t.invalid = invalid;
    g.tests.push_back(std::move(t));
  };
  add(kF_M1, kF_1, {"symmetric"}, "[-1, 1]: fl32(2/255) is above 2/255, so the zero point is 127, not 128");
  add(kF_M10, kF_10, {"symmetric"}, "[-10, 10]");
  add(kF_0, kF_Half, {"all_positive"}, "[0, 0.5]: zero point 0");
  add(kF_1, kF_6, {"all_positive"}, "[1, 6] is extended to [0, 6]");
  add(kF_M3, kF_M1, {"all_negative"}, "[-3, -1] is extended to [-3, 0]: zero point 255");
  add(kF_2, kF_2, {"min_eq_max_nonzero"}, "[2, 2] is [0, 2]");
  add(kF_M2, kF_M2, {"min_eq_max_nonzero"}, "[-2, -2] is [-2, 0]");
  add(kF_M0_1, kF_6, {"typical"}, "[-0.1, 6]: a ReLU6-like range");
  add(kF_ZpTieMin, kF_ZpTieMax, {"zero_point_tie"}, "scale 2^-8 exactly, -min/scale = 100.5: std::round -> 101");
  add(kF_Neg0, kF_1, {"signed_zero"}, "min = -0.0");
  add(kF_0, kF_0, {"min_eq_max_zero"}, "[0, 0]: scale 0, ERROR_IF (the example converts NaN)", true);
  add(kF_Neg0, kF_0, {"min_eq_max_zero"}, "[-0, 0]: scale 0, ERROR_IF", true);
  add(kF_0, kF_MinSub, {"scale_underflow"}, "[0, 2^-149]: fl32(2^-149 / 255) = 0, ERROR_IF", true);
  add(kF_NegMinSub, kF_0, {"scale_underflow"}, "[-2^-149, 0]: scale 0, ERROR_IF", true);
  add(kF_M3e38, kF_3e38, {"scale_overflow"}, "[-3e38, 3e38]: max - min overflows to inf, ERROR_IF", true);
  for (int i = 0; i < 80; ++i) {
    // A random negative min and positive max with exponents in [2^-20, 2^20).
    const std::int64_t lo = (1LL << 31) | (rng.uniform(127 - 20, 127 + 19) << 23) | rng.uniform(0, (1 << 23) - 1);
    const std::int64_t hi = (rng.uniform(127 - 20, 127 + 19) << 23) | rng.uniform(0, (1 << 23) - 1);
    add(lo, hi, {"random"}, "random range containing 0");
  }
  return {g};
}

QSPEC_REGISTER_VECTOR_FAMILY(
    family<cat::choose_quant_params>(cat::choose_quant_params::conv::gemmlowp_choose_params,
                                     {{"symmetric", "a range symmetric around 0"},
                                      {"all_positive", "min > 0 or min = 0: the range is extended down to 0"},
                                      {"all_negative", "max < 0: the range is extended up to 0"},
                                      {"min_eq_max_nonzero", "min == max != 0"},
                                      {"min_eq_max_zero", "min == max == 0: scale 0, ERROR_IF"},
                                      {"typical", "a typical activation range"},
                                      {"zero_point_tie", "-min/scale is exactly k + 1/2: std::round rounds away"},
                                      {"signed_zero", "a negative zero bound"},
                                      {"scale_underflow", "(max - min) / 255 underflows to 0 in float32: ERROR_IF"},
                                      {"scale_overflow", "max - min overflows float32: ERROR_IF"},
                                      {"random", "random ranges"}},
                                     3051, generate_choose_params));

std::vector<Group> generate_quantize(Rng& rng) {
  std::vector<Group> groups;
  struct Params {
    std::uint32_t scale_bits;
    std::int64_t zp;
  };
  const Params params[] = {{0x3e800000, 3},     // 0.25, zp 3 (research/third-party-libraries.md tie example)
                           {0x3c008081, 127},   // fl32(2/255), zp 127 (ChooseQuantizationParams(-1, 1))
                           {0x3b808081, 0},     // fl32(1/255), zp 0
                           {0x3d000000, 255}};  // 1/32, zp 255
  for (const auto& p : params) {
    Group g;
    attr::set(g.attributes, cat::quantize::attr::scale, p.scale_bits);
    attr::set(g.attributes, cat::quantize::attr::zero_point, p.zp);
    auto add = [&](std::vector<std::int64_t> xs, std::vector<std::string> flags, const std::string& comment) {
      Test t;
      t.comment = comment;
      t.flags = std::move(flags);
      t.inputs = {scalar_vector(std::string(cat::quantize::in::x), DType::F32, xs)};
      g.tests.push_back(std::move(t));
    };
    if (p.scale_bits == 0x3e800000) {
      // x / 0.25 + 3 = 3.5, 4.5, 5.5, 2.5, 0.5 exactly: std::round goes away from zero.
      add({0x3e000000, 0x3ec00000, 0x3f200000, 0xbe000000, 0xbf200000}, {"tie"},
          "0.125, 0.375, 0.625, -0.125, -0.625: ties 3.5, 4.5, 5.5, 2.5, 0.5");
    }
    add({0x7f7fffff, 0x42c80000, 0xff7fffff, 0xc2c80000}, {"saturate_high", "saturate_low", "overflow"},
        "FLT_MAX (x/scale overflows to inf), 100, -FLT_MAX, -100");
    add({0x00000000, 0x80000000, 0x00000001, 0x80000001}, {"zero"}, "+-0 and +-2^-149: the zero point");
    if (p.zp == 0 || p.zp == 255) add({0x3f800000, 0xbf800000}, {p.zp == 0 ? "zp_min" : "zp_max"}, "+-1");
    for (int i = 0; i < 25; ++i) {
      std::vector<std::int64_t> xs;
      for (int k = 0; k < 8; ++k) {
        const std::int64_t sign = rng.coin() ? (1LL << 31) : 0;
        xs.push_back(sign | (rng.uniform(127 - 10, 127 + 3) << 23) | rng.uniform(0, (1 << 23) - 1));
      }
      add(xs, {"random"}, "random values in about [-16, 16]");
    }
    groups.push_back(std::move(g));
  }
  return groups;
}

QSPEC_REGISTER_VECTOR_FAMILY(
    family<cat::quantize>(cat::quantize::conv::gemmlowp_quantize,
                          {{"tie", "zero_point + x/scale is exactly k + 1/2: std::round rounds away"},
                           {"saturate_high", "values above 255 after scaling"},
                           {"saturate_low", "values below 0 after scaling"},
                           {"overflow", "x / scale overflows float32 to an infinity before the clamp"},
                           {"zero", "signed zeros and the smallest subnormals"},
                           {"zp_min", "zero point 0"},
                           {"zp_max", "zero point 255"},
                           {"random", "random float32 values"}},
                          3052, generate_quantize));

std::vector<Group> generate_dequantize(Rng& rng) {
  std::vector<Group> groups;
  struct Params {
    std::uint32_t scale_bits;
    std::int64_t zp;
    const char* flag;
  };
  const Params params[] = {{0x3c008081, 127, "typical"},  // fl32(2/255)
                           {0x3dcccccd, 0, "zp_min"},     // 0.1f
                           {0x3f7fffff, 255, "zp_max"},   // 1 - 2^-24: products round
                           {0xbe800000, 3, "negative_scale"}};
  for (const auto& p : params) {
    Group g;
    attr::set(g.attributes, cat::dequantize::attr::scale, p.scale_bits);
    attr::set(g.attributes, cat::dequantize::attr::zero_point, p.zp);
    std::vector<std::int64_t> all(256);
    for (int q = 0; q < 256; ++q) all[static_cast<std::size_t>(q)] = q;
    Test t;
    t.comment = "every uint8 value";
    t.flags = {p.flag, "all_values"};
    t.inputs = {tensor(std::string(cat::dequantize::in::x), DType::U8, {16, 16}, all)};
    g.tests.push_back(std::move(t));
    for (int i = 0; i < 4; ++i) {
      Test r;
      r.comment = "random";
      r.flags = {"random"};
      std::vector<std::int64_t> xs;
      for (int k = 0; k < 8; ++k) xs.push_back(rng.uniform(0, 255));
      r.inputs = {scalar_vector(std::string(cat::dequantize::in::x), DType::U8, xs)};
      g.tests.push_back(std::move(r));
    }
    groups.push_back(std::move(g));
  }
  return groups;
}

QSPEC_REGISTER_VECTOR_FAMILY(
    family<cat::dequantize>(cat::dequantize::conv::gemmlowp_dequantize,
                            {{"typical", "the scale and zero point ChooseQuantizationParams(-1, 1) gives"},
                             {"zp_min", "zero point 0"},
                             {"zp_max", "zero point 255, products that round in float32"},
                             {"negative_scale", "a negative scale: signed zeros and negative products"},
                             {"all_values", "all 256 quantized values"},
                             {"random", "random quantized values"}},
                            3053, generate_dequantize));

}  // namespace
}  // namespace qspec::vecgen
