// Vector families of the engines' quantized concatenation (spec/operators_qlinear_elementwise.md):
// ops/qlinear/concat/<convention>.json.
//
// Inputs only; expected outputs come from the reference ops. Hand cases (ties, saturation, copies,
// negative axes, rejections), tie-rich draws (input-to-output scale ratios k / 2^j, so the
// requantization often lands on exact halves) and realistic draws. Flags are computed from the
// reference's parameters and outputs, never claimed by hand.
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "qspec/catalogue/keys.h"
#include "qspec/core/attr.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear.h"
#include "qspec/ref/ops/qlinear_concat.h"
#include "qspec/vecgen.h"
#include "qspec/vecgen/classify.h"
#include "qspec/vecgen/qlinear_tensors.h"
#include "qspec/vecgen/ties.h"

namespace qspec::vecgen {
namespace {

using qlinear::lo_of;

namespace ro = qspec::ref::ops;
using OJ = nlohmann::ordered_json;
using K = cat::qlinear_concat;
using Dims = std::vector<std::int64_t>;

struct Input {
  Dims shape;
  std::vector<std::int64_t> codes;
  std::uint32_t scale = 0x3f800000;
  std::int64_t zero_point = 0;
  DType type = DType::U8;
};
struct Problem {
  DType type = DType::U8;
  std::vector<Input> xs;
  std::int64_t axis = 0;
  std::uint32_t y_scale = 0x3f800000;
  std::int64_t y_zero_point = 0;
  bool drawn = false;
};

Test to_test(const Problem& pr, std::string comment, bool invalid = false) {
  Test t;
  t.comment = std::move(comment);
  t.invalid = invalid;
  OJ a = OJ::object();
  attr::set_unchecked(a, K::attr::axis, pr.axis);
  std::vector<std::uint32_t> scales;
  std::vector<std::int64_t> zps;
  for (const auto& x : pr.xs) scales.push_back(x.scale), zps.push_back(x.zero_point);
  attr::set(a, K::attr::x_scales, scales);
  attr::set_unchecked(a, K::attr::x_zero_points, zps);
  attr::set(a, K::attr::y_scale, pr.y_scale);
  attr::set_unchecked(a, K::attr::y_zero_point, pr.y_zero_point);
  t.attributes = std::move(a);
  for (std::size_t i = 0; i < pr.xs.size(); ++i)
    t.inputs.push_back(tensor(cat::indexed(K::in::x, i), pr.xs[i].type, pr.xs[i].shape, pr.xs[i].codes));
  return t;
}

// The exact half the convention's rounding of code x of input `in` meets (not for copies).
bool is_tie(ro::QConcatConvention c, const Problem& pr, const Input& in, std::int64_t x) {
  using namespace qspec::ref;
  if (f32_value(in.scale) == f32_value(pr.y_scale) && in.zero_point == pr.y_zero_point) return false;
  if (c == ro::QConcatConvention::Tosa) {  // RESCALE: (x - z_x) M / 2^s on an exact half (copies: none)
    if (f32_value(in.scale) == f32_value(pr.y_scale)) return false;
    const auto m = ro::qlinear_tosa_multiplier_and_shift(f64_div(f64_from_f32(in.scale), f64_from_f32(pr.y_scale)));
    const Int p = Int(x - in.zero_point) * m.multiplier, unit = pow2(static_cast<unsigned>(m.shift));
    return p - floor_div(p, unit) * unit == unit / 2;
  }
  std::uint32_t v;
  if (c == ro::QConcatConvention::PytorchOnednn) {  // PyTorch: fl32(fl32((x - z_x) s_x) fl32(1 / s_y))
    v = f32_mul(f32_mul(f32_from_int(Int(x - in.zero_point)), in.scale), f32_div(0x3f800000u, pr.y_scale));
  } else if (c != ro::QConcatConvention::TfliteReference) {  // ONNX Runtime and Arm NN: fl32(fl32(s_x (x - z_x)) / s_y)
    v = f32_div(f32_mul(in.scale, f32_from_int(Int(x - in.zero_point))), pr.y_scale);
  } else {
    const std::uint32_t scale = f32_mul(in.scale, f32_div(0x3f800000u, pr.y_scale));
    const std::uint32_t bias = f32_mul(f32_from_int(Int(-in.zero_point)), scale);
    v = f32_add(f32_mul(f32_from_int(Int(x)), scale), bias);
  }
  return float_is_finite(v, kBinary32) && ties::is_half_integer(v);
}

struct Builder {
  std::string conv;
  ro::QConcatConvention c;
  std::vector<Test> tests;

  void add(const Problem& pr, const std::string& comment) {
    Test t = to_test(pr, comment);
    std::vector<Tensor> out;
    if (classify(K::op, conv, t.attributes, t.inputs, &out) != Verdict::Valid)
      throw std::logic_error("vecgen qlinear.concat / " + conv + ": hand case '" + comment + "' is not valid");
    finish(pr, t, out.at(0));
  }
  void add_invalid(const Problem& pr, const std::string& comment) {
    Test t = to_test(pr, "invalid: " + comment, true);
    if (classify(K::op, conv, t.attributes, t.inputs) != Verdict::Invalid)
      throw std::logic_error("vecgen qlinear.concat / " + conv + ": '" + comment + "' is not rejected");
    tests.push_back(std::move(t));
  }
  void add_random(int n, const std::function<Problem()>& draw, const std::string& what) {
    for (int i = 0; i < n; ++i)
      for (int attempt = 0;; ++attempt) {
        Problem pr = draw();
        pr.drawn = true;
        Test t = to_test(pr, what);
        std::vector<Tensor> out;
        if (classify(K::op, conv, t.attributes, t.inputs, &out) == Verdict::Valid) {
          finish(pr, t, out.at(0));
          break;
        }
        if (attempt > 200) throw std::logic_error("vecgen qlinear.concat / " + conv + ": cannot draw a valid " + what);
      }
  }
  void finish(const Problem& pr, Test& t, const Tensor& y) {
    std::set<std::string> f;
    int ties_n = 0;
    for (const auto& in : pr.xs) {
      if (f32_value_eq(in.scale, pr.y_scale) && in.zero_point == pr.y_zero_point) f.insert("copy");
      if (c == ro::QConcatConvention::Tosa && f32_value_eq(in.scale, pr.y_scale) && in.zero_point != pr.y_zero_point)
        f.insert("zp_copied");
      for (auto x : in.codes) ties_n += is_tie(c, pr, in, x) ? 1 : 0;
    }
    if (ties_n > 0) f.insert("tie");
    const std::int64_t lo = lo_of(pr.type), hi = lo + 255;
    for (auto v : y.data) {
      if (v == lo) f.insert("saturate_low");
      if (v == hi) f.insert("saturate_high");
    }
    if (pr.type == DType::U8 && c != ro::QConcatConvention::Tosa) f.insert("uint8");
    if (pr.axis < 0) f.insert("negative_axis");
    for (const auto& in : pr.xs)
      if (in.zero_point < lo || in.zero_point > hi) f.insert("zp_outside_type");
    if (pr.xs.size() >= 3) f.insert("many_inputs");
    if (pr.drawn) f.insert("random");
    t.flags.assign(f.begin(), f.end());
    if (ties_n > 0) t.comment += " (" + std::to_string(ties_n) + " exact ties)";
    tests.push_back(std::move(t));
  }
  static bool f32_value_eq(std::uint32_t a, std::uint32_t b) { return ref::f32_value(a) == ref::f32_value(b); }
};

const std::vector<std::pair<std::string, std::string>> kNotes = {
    {"tie", "an input code's requantization meets an exact half (ONNX Runtime: to even; TFLite: away from zero)"},
    {"saturate_low", "an output is the dtype's minimum"},
    {"saturate_high", "an output is the dtype's maximum"},
    {"uint8", "uint8 tensors"},
    {"copy", "an input with the output's scale and zero point (both engines copy it)"},
    {"negative_axis", "a negative axis (counted from the end)"},
    {"many_inputs", "three or more inputs"},
    {"random", "random draw"},
};

// ---- drawing ----

std::uint32_t random_scale(Rng& r, int e) {
  const std::uint32_t m = r.coin() ? static_cast<std::uint32_t>(r.uniform(0, (1 << 23) - 1))
                                   : static_cast<std::uint32_t>(r.uniform(0, 15)) << 19;
  return (static_cast<std::uint32_t>(e + 127) << 23) | m;
}

Problem draw(Rng& r, ro::QConcatConvention c, bool tie_rich) {
  Problem pr;
  const bool tfl = c == ro::QConcatConvention::TfliteReference;
  const bool tosa = c == ro::QConcatConvention::Tosa;
  pr.type = r.uniform(0, 3) == 0 || tosa ? DType::I8 : DType::U8;
  const auto rank = r.uniform(1, 4);
  Dims base;
  for (std::int64_t d = 0; d < rank; ++d) {
    const auto e = r.uniform(1, 3);
    base.push_back(e);
  }
  const auto ax = r.uniform(0, rank - 1);
  pr.axis = r.coin() ? ax : ax - rank;
  const int ey = static_cast<int>(r.uniform(-9, -3));
  const std::int64_t cy = tie_rich ? (tfl ? 1 : r.pick(std::vector<std::int64_t>{1, 3, 5})) : 0;
  pr.y_scale = tie_rich ? ties::f32_dyadic(cy, ey) : random_scale(r, ey);
  pr.y_zero_point = lo_of(pr.type) + r.uniform(0, 255);
  const auto n = r.uniform(1, 5);
  for (std::int64_t i = 0; i < n; ++i) {
    Input in;
    in.type = pr.type;
    in.shape = base;
    const auto extent = r.uniform(1, 3);
    in.shape[static_cast<std::size_t>(ax)] = extent;
    const bool copy = (tfl && pr.type == DType::I8) || r.uniform(0, 4) == 0;
    if (copy) {
      in.scale = pr.y_scale, in.zero_point = pr.y_zero_point;
      if (tosa && r.coin()) in.zero_point = lo_of(pr.type) + r.uniform(0, 255);  // copied, zero point ignored
    } else if (tie_rich) {
      const std::int64_t k = r.pick(std::vector<std::int64_t>{1, 3, 5, 7, 9});
      const int j = static_cast<int>(r.uniform(0, 3));
      in.scale = ties::f32_dyadic(cy * k, ey - j);
      in.zero_point = lo_of(pr.type) + r.uniform(0, 255);
    } else {
      const int shift = static_cast<int>(r.uniform(-2, 2));
      in.scale = random_scale(r, ey + shift);
      in.zero_point = lo_of(pr.type) + r.uniform(0, 255);
    }
    std::int64_t count = 1;
    for (auto d : in.shape) count *= d;
    for (std::int64_t k = 0; k < count; ++k) {
      const auto v = lo_of(pr.type) + r.uniform(0, 255);
      in.codes.push_back(v);
    }
    pr.xs.push_back(std::move(in));
  }
  return pr;
}

// ---- hand cases ----

Problem two_inputs(DType t, std::uint32_t s0, std::int64_t z0, std::uint32_t s1, std::int64_t z1) {
  Problem pr;
  pr.type = t;
  const std::int64_t lo = lo_of(t);
  Input a{{2, 4}, {}, s0, z0, t}, b{{2, 2}, {}, s1, z1, t};
  for (std::int64_t i = 0; i < 8; ++i) a.codes.push_back(lo + (i * 37) % 256);
  for (std::int64_t i = 0; i < 4; ++i) b.codes.push_back(lo + (i * 91 + 7) % 256);
  pr.xs = {a, b};
  pr.axis = 1;
  return pr;
}

void hand_cases(Builder& b) {
  const bool tfl = b.c == ro::QConcatConvention::TfliteReference;
  const std::uint32_t one = 0x3f800000u, half = 0x3f000000u;
  // Every uint8 code at s_x / s_y = 1/2 with an odd zero point difference: half of them are ties.
  Problem grid;
  grid.type = DType::U8;
  Input all{{256}, {}, half, 3, DType::U8};
  for (std::int64_t x = 0; x < 256; ++x) all.codes.push_back(x);
  Input same{{4}, {0, 1, 254, 255}, one, 128, DType::U8};
  grid.xs = {all, same};
  grid.y_zero_point = 128;
  b.add(grid, "every uint8 code, s_x / s_y = 1/2, z_x = 3, then a copied input");
  grid.axis = -1;
  b.add(grid, "the same with axis -1");
  // spec/errata.md E-QEW-4: 6 s_x - 5 s_x is 0.5 after two roundings (-> 1), 0.49999988 fused (-> 0).
  Problem fused;
  fused.type = DType::U8;
  fused.xs = {Input{{4}, {6, 7, 5, 0}, 0x3efffffau, 5, DType::U8}};
  if (b.c == ro::QConcatConvention::ArmnnCpuref)
    b.add_invalid(fused, "one input: CreateDescriptorForConcatenation requires at least 2");
  else
    b.add(fused, "s_x = 0x3efffffa, z_x = 5, x = 6: 0.5 after two roundings (a fused multiply-add gives 0.49999988)");
  Problem sat = two_inputs(DType::U8, 0x40800000u /* 4 */, 128, one, 0);
  sat.y_zero_point = 100;
  b.add(sat, "s_x / s_y = 4: both ends saturate");
  if (!tfl) {
    Problem s8 = two_inputs(DType::I8, 0x3fc00000u /* 1.5 */, -3, 0x3e800000u /* 0.25 */, 5);
    s8.y_zero_point = -1;
    b.add(s8, "int8, s_x / s_y = 1.5 and 0.25");
  } else {
    Problem s8 = two_inputs(DType::I8, one, -3, one, -3);
    s8.y_zero_point = -3;
    b.add(s8, "int8 with the output's parameters: a copy");
    Problem bad = two_inputs(DType::I8, one, -3, half, -3);
    bad.y_zero_point = -3;
    b.add_invalid(bad, "int8 input with another scale than the output's (TF_LITE_ENSURE_EQ)");
  }
  Problem three = two_inputs(DType::U8, half, 1, one, 9);
  three.xs.push_back(three.xs[0]);
  three.axis = -1;
  b.add(three, "three inputs along the last axis");
  Problem zp = two_inputs(DType::U8, one, 256, one, 0);
  if (b.c == ro::QConcatConvention::ArmnnCpuref)
    b.add(zp, "x_zero_points[0] = 256: Arm NN takes any int32 offset");
  else
    b.add_invalid(zp, "x_zero_points[0] = 256 does not fit uint8");
  Problem ax = two_inputs(DType::U8, one, 0, half, 0);
  ax.axis = 2;
  b.add_invalid(ax, "axis 2 of rank-2 inputs");
  Problem ext = two_inputs(DType::U8, one, 0, half, 0);
  ext.axis = 0;
  b.add_invalid(ext, "axis 0: the extents 4 and 2 of axis 1 differ");
  Problem dt = two_inputs(DType::U8, one, 0, half, 0);
  dt.xs[1].type = DType::I8;
  dt.xs[1].codes = {1, 2, 3, 4};
  b.add_invalid(dt, "x0 uint8 with x1 int8");
  if (b.c == ro::QConcatConvention::PytorchOnednn) {
    // spec/errata.md E-LIBTORCH-EW-4: 4-D along 1 with C = 1 x 1 spatial is channels-last contiguous,
    // so libtorch runs qcat_nhwc_kernel; its AVX2 channel blocks (C >= 8) dequantize with an FMA.
    Problem nhwc;
    nhwc.type = DType::U8;
    nhwc.xs = {Input{{1, 8, 1, 1}, std::vector<std::int64_t>(8, 2), 0x3dcccccdu /* 0.1f */, 3, DType::U8}};
    nhwc.axis = 1;
    nhwc.y_scale = 0x3e4ccccdu;  // 0.2f
    nhwc.y_zero_point = 128;
    b.add(nhwc, "s_x 0.1f, z_x 3, x = 2, s_y 0.2f: fl32(-0.1f * 5) = -0.5 exactly -> 128 (an FMA dequantization: 127)");
  }
}

// tosa: int8 only; ties of the fixed-point RESCALE, saturation, copies with another zero point,
// the shift cap and every ERROR_IF of the clause.
void tosa_hand_cases(Builder& b) {
  const std::uint32_t one = 0x3f800000u, half = 0x3f000000u;
  Problem grid;
  grid.type = DType::I8;
  Input all{{256}, {}, half, 3, DType::I8};
  for (std::int64_t x = -128; x < 128; ++x) all.codes.push_back(x);
  Input same{{4}, {-128, -1, 0, 127}, one, -5, DType::I8};
  grid.xs = {all, same};
  grid.y_zero_point = -5;
  b.add(grid, "every int8 code, s_x / s_y = 1/2, z_x = 3 (odd differences are ties, rounded up), then a copied input");
  grid.axis = -1;
  grid.xs[1].zero_point = 20;
  b.add(grid, "the same, axis -1, the second input with the output's scale and z_x = 20: copied, not requantized");
  Problem zp = two_inputs(DType::I8, one, 10, one, -10);
  zp.y_zero_point = 0;
  b.add(zp, "both inputs with the output's scale and zero points 10 and -10 (output 0): copied (E-TOSAOP-5)");
  Problem sat = two_inputs(DType::I8, 0x40800000u /* 4 */, 0, one, 0);
  sat.y_zero_point = 7;
  b.add(sat, "s_x / s_y = 4: both ends saturate");
  Problem thirds = two_inputs(DType::I8, 0x3eaaaaabu /* fl32(1/3) */, -7, 0x3f2aaaabu /* fl32(2/3) */, 6);
  b.add(thirds, "s_x = fl32(1/3), fl32(2/3): long multipliers");
  Problem tiny = two_inputs(DType::I8, 0x2b2aaaabu /* 4/3 2^-41 */, 0, one, 0);
  tiny.y_zero_point = 3;
  b.add(tiny, "s_x / s_y = 4/3 2^-41: the shift capped at 62, the multiplier shifted right");
  Problem three = two_inputs(DType::I8, half, 1, one, 9);
  three.xs.push_back(three.xs[0]);
  three.axis = -1;
  b.add(three, "three inputs along the last axis");
  Problem u8 = two_inputs(DType::U8, one, 0, half, 0);
  b.add_invalid(u8, "uint8 inputs: the lowering takes a TFLite int8 model (uint8 is converted first)");
  Problem zx = two_inputs(DType::I8, half, 128, one, 0);
  b.add_invalid(zx, "x_zero_points[0] = 128 does not fit int8 (RESCALE input_zp)");
  Problem zy = two_inputs(DType::I8, half, 0, one, 0);
  zy.y_zero_point = -129;
  b.add_invalid(zy, "y_zero_point = -129 does not fit int8 (RESCALE: output_zp not representable in out_t)");
  Problem big = two_inputs(DType::I8, 0x4e000000u /* 2^29 */, 0, one, 0);
  b.add_invalid(big, "s_x / s_y = 2^29: computeMultiplierAndShift's shift 1 is outside [2, 62] (buildRescale)");
  Problem ax = two_inputs(DType::I8, one, 0, half, 0);
  ax.axis = 2;
  b.add_invalid(ax, "axis 2 = rank: CONCAT ERROR_IF(axis >= rank) (the legalization lets it through)");
  Problem axn = two_inputs(DType::I8, one, 0, half, 0);
  axn.axis = -3;
  b.add_invalid(axn, "axis -3 of rank-2 inputs");
  Problem ext = two_inputs(DType::I8, one, 0, half, 0);
  ext.axis = 0;
  b.add_invalid(ext, "axis 0: the extents 4 and 2 of axis 1 differ (CONCAT ERROR_IF)");
  Problem dt = two_inputs(DType::I8, one, 0, half, 0);
  dt.xs[1].type = DType::U8;
  dt.xs[1].codes = {1, 2, 3, 4};
  b.add_invalid(dt, "x0 int8 with x1 uint8");
  Problem r7;
  r7.type = DType::I8;
  r7.xs = {Input{{1, 1, 1, 1, 1, 1, 2}, {1, 2}, half, 0, DType::I8},
           Input{{1, 1, 1, 1, 1, 1, 1}, {3}, one, 0, DType::I8}};
  r7.axis = 6;
  b.add_invalid(r7, "rank 7: above TOSA 1.0's MAX_RANK = 6");
}

Family concat_family(std::string_view conv, std::uint64_t seed, int tie_rich, int realistic) {
  const std::string cv(conv);
  auto notes = kNotes;
  if (cv == K::conv::armnn_cpuref)
    notes.emplace_back("zp_outside_type", "a zero point outside the dtype (Arm NN takes any int32 offset)");
  if (cv == K::conv::tosa) {
    std::erase_if(notes, [](const auto& n) { return n.first == "uint8"; });
    notes.emplace_back("zp_copied", "an input with the output's scale and another zero point (the lowering copies it)");
  }
  return family<K>(conv, notes, seed, [cv, tie_rich, realistic](Rng& r) {
    const auto c = cv == K::conv::onnxruntime      ? ro::QConcatConvention::OnnxRuntime
                   : cv == K::conv::armnn_cpuref   ? ro::QConcatConvention::ArmnnCpuref
                   : cv == K::conv::tosa           ? ro::QConcatConvention::Tosa
                   : cv == K::conv::pytorch_onednn ? ro::QConcatConvention::PytorchOnednn
                                                   : ro::QConcatConvention::TfliteReference;
    Builder b{cv, c, {}};
    if (c == ro::QConcatConvention::Tosa)
      tosa_hand_cases(b);
    else
      hand_cases(b);
    b.add_random(
        tie_rich, [&] { return draw(r, c, true); }, "tie-rich draw");
    b.add_random(
        realistic, [&] { return draw(r, c, false); }, "random");
    return std::vector<Group>{Group{OJ::object(), std::move(b.tests)}};
  });
}

QSPEC_REGISTER_VECTOR_FAMILY(concat_family(K::conv::onnxruntime, 1521, 200, 150));
QSPEC_REGISTER_VECTOR_FAMILY(concat_family(K::conv::tflite_reference, 1522, 200, 150));
QSPEC_REGISTER_VECTOR_FAMILY(concat_family(K::conv::armnn_cpuref, 1523, 80, 40));
QSPEC_REGISTER_VECTOR_FAMILY(concat_family(K::conv::tosa, 1524, 100, 50));
QSPEC_REGISTER_VECTOR_FAMILY(concat_family(K::conv::pytorch_onednn, 1781, 80, 40));

}  // namespace
}  // namespace qspec::vecgen
