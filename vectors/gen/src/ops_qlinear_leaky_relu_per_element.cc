// Vector families of the per-element (table-free) quantized leaky ReLU conventions
// (spec/operators_qlinear_leaky_relu.md): ops/qlinear/leaky_relu/tflite.{double,single}_round.json
// and armnn.cpuref.json. A few tests hold all 256 codes (the whole map, flag "all_codes"); the rest
// hold 12 codes each, the exact ties of the drawn parameters first (dyadic scale ratios and slopes
// make TFLite's v M 2^(shift - 31), or Arm NN's fl32(f / y_scale), a half-integer), so the families
// stay small. Saturation both ends, alpha 0 and alpha > 1 (Arm NN: negative too), int8 and uint8,
// Arm NN's offsets outside the dtype, and the parameters TFLite's conventions reject (Arm NN checks
// none of the layer's parameters: no invalid tests). Expected outputs come from the reference
// (reference/ops/ops_qlinear_leaky_relu_{tflite,armnn}.cc).
#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "qspec/catalogue/keys.h"
#include "qspec/core/attr.h"
#include "qspec/ref/float_conventions.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear_leaky_relu_tflite.h"
#include "qspec/refops.h"
#include "qspec/vecgen.h"
#include "qspec/vecgen/classify.h"
#include "qspec/vecgen/qlinear_tensors.h"
#include "qspec/vecgen/ties.h"

namespace qspec::vecgen {
namespace {

using qlinear::hi_of;
using qlinear::lo_of;

namespace ro = qspec::ref::ops;
using OJ = nlohmann::ordered_json;
using ref::Int;
using Op = cat::qlinear_leaky_relu;

enum class Kind { TfliteDouble, TfliteSingle, Armnn };

struct Case {
  DType t = DType::U8;
  std::uint32_t alpha = 0x3f000000u, xs = 0x3f800000u, ys = 0x3f800000u;
  std::int64_t zx = 0, zy = 0;
  bool drawn = false;
};

ro::QPoolParams params_of(const Case& k) {
  ro::QPoolParams p;
  p.type = k.t;
  p.x_scale = k.xs, p.y_scale = k.ys;
  p.x_zero_point = Int(k.zx), p.y_zero_point = Int(k.zy);
  return p;
}

Test to_test(const Case& k, const std::vector<std::int64_t>& codes, std::string comment, bool invalid = false) {
  Test t;
  t.comment = std::move(comment);
  t.invalid = invalid;
  OJ a = OJ::object();
  using A = Op::attr;
  attr::set(a, A::alpha, k.alpha);
  attr::set(a, A::x_scale, k.xs);
  attr::set_unchecked(a, A::x_zero_point, k.zx);
  attr::set(a, A::y_scale, k.ys);
  attr::set_unchecked(a, A::y_zero_point, k.zy);
  t.attributes = std::move(a);
  const std::int64_t n = static_cast<std::int64_t>(codes.size());
  t.inputs = {
      tensor(std::string(Op::in::x), k.t, n == 256 ? std::vector<std::int64_t>{16, 16} : std::vector{n}, codes)};
  return t;
}

std::vector<std::int64_t> all_codes(DType t) {
  std::vector<std::int64_t> c;
  for (std::int64_t v = lo_of(t); v <= hi_of(t); ++v) c.push_back(v);
  return c;
}

// Whether code x's value before the convention's rounding is an exact k + 1/2: TFLite's exact
// product v M 2^(shift - 31) (its sign's multiplier), Arm NN's fl32(f / y_scale).
bool is_tie(const Case& k, std::int64_t x, Kind kind) {
  if (kind == Kind::Armnn) {
    const std::uint32_t d = ref::float_dequantize(Int(x), Int(k.zx), k.xs);
    const std::uint32_t f = ref::f32_value(d) > 0 ? d : ref::f32_mul(d, k.alpha);
    return ties::is_half_integer(ref::f32_div(f, k.ys));
  }
  const auto m = ro::qlinear_leaky_relu_tflite_multipliers(k.alpha, params_of(k), kind == Kind::TfliteSingle);
  const Int v = Int(x - k.zx);
  const auto& q = v >= 0 ? m.identity : m.alpha;
  return ties::q31_product_is_tie(v, q.multiplier, q.shift);
}

struct Builder {
  std::string conv;
  Kind kind;
  std::vector<Test> tests;
  void add(const Case& k, const std::vector<std::int64_t>& codes, const std::string& comment) {
    Test t = to_test(k, codes, comment);
    std::vector<Tensor> out;
    if (classify(Op::op, conv, t.attributes, t.inputs, &out) != Verdict::Valid)
      throw std::logic_error("vecgen qlinear.leaky_relu " + conv + ": '" + comment + "' is not valid");
    std::set<std::string> f;
    if (codes.size() == 256) f.insert("all_codes");
    int ties = 0;
    for (auto x : codes) ties += is_tie(k, x, kind) ? 1 : 0;
    if (ties > 0)
      f.insert("tie"),
          t.comment += " (" + std::to_string(ties) + " of " + std::to_string(codes.size()) + " codes are exact ties)";
    for (auto v : out.at(0).data) {
      if (v == lo_of(k.t)) f.insert("saturate_low");
      if (v == hi_of(k.t)) f.insert("saturate_high");
    }
    if (k.t == DType::U8) f.insert("uint8");
    if (k.alpha == 0) f.insert("alpha_zero");
    if (ref::f32_value(k.alpha) > 1) f.insert("alpha_above_one");
    if (kind == Kind::Armnn) {
      if (ref::f32_value(k.alpha) < 0) f.insert("alpha_negative");
      if (k.zx < lo_of(k.t) || k.zx > hi_of(k.t) || k.zy < lo_of(k.t) || k.zy > hi_of(k.t))
        f.insert("offset_outside_dtype");
    }
    if (k.drawn) f.insert("random");
    t.flags = {f.begin(), f.end()};
    tests.push_back(std::move(t));
  }
  void add_invalid(const Case& k, const std::string& comment) {
    Test t = to_test(k, {lo_of(k.t), hi_of(k.t)}, "invalid: " + comment, true);
    if (classify(Op::op, conv, t.attributes, t.inputs) != Verdict::Invalid)
      throw std::logic_error("vecgen qlinear.leaky_relu " + conv + ": '" + comment + "' is not rejected");
    tests.push_back(std::move(t));
  }
};

std::vector<std::pair<std::string, std::string>> notes(Kind kind) {
  const bool armnn = kind == Kind::Armnn;
  std::vector<std::pair<std::string, std::string>> n = {
      {"tie", armnn ? "at least one code's fl32(f / y_scale) is an exact k + 1/2 (rounded half away from zero)"
                    : "at least one code's exact product v M 2^(shift - 31) is an exact k + 1/2"},
      {"saturate_low", "an output is the dtype's minimum"},
      {"saturate_high", "an output is the dtype's maximum"},
      {"uint8", "uint8 tensors"},
      {"all_codes", "the input holds all 256 codes: the whole map"},
      {"alpha_zero", armnn ? "alpha = 0: every code at or below the zero point gives y_zero_point"
                           : "alpha = 0: the alpha multiplier is (0, 0), every negative v gives y_zero_point"},
      {"alpha_above_one", armnn ? "alpha > 1" : "alpha > 1: a positive shift of the alpha multiplier"},
  };
  if (armnn) {
    n.emplace_back("alpha_negative", "alpha < 0 (Arm NN takes any slope)");
    n.emplace_back("offset_outside_dtype", "a zero point outside the dtype (Arm NN's offsets are any int32)");
  }
  n.emplace_back("random", "random draw");
  return n;
}

std::uint32_t random_scale(Rng& r, int e) {
  const std::uint32_t m = r.coin() ? static_cast<std::uint32_t>(r.uniform(0, (1 << 23) - 1))
                                   : static_cast<std::uint32_t>(r.uniform(0, 15)) << 19;
  return (static_cast<std::uint32_t>(e + 127) << 23) | m;
}

// mode 0: realistic scales; 1: dyadic (tie-rich); 2: large ratios (saturating); 3: alpha > 1
// (Arm NN: or negative); 4 (Arm NN): offsets outside the dtype.
Case draw(Rng& r, int mode, Kind kind) {
  Case k;
  k.drawn = true;
  k.t = r.coin() ? DType::U8 : DType::I8;
  const std::int64_t lo = lo_of(k.t), hi = hi_of(k.t);
  k.zx = mode == 4 ? r.uniform(-1000, 1000) : r.uniform(lo, hi);
  k.zy = mode == 4 ? r.uniform(-1000, 1000) : r.uniform(lo, hi);
  const int ey = static_cast<int>(r.uniform(-9, -2));
  if (mode == 1) {
    k.ys = ties::f32_dyadic(1, ey);
    k.xs = ties::f32_dyadic(1, ey - static_cast<int>(r.uniform(1, 3)));
    const std::int64_t m = 2 * r.uniform(0, 3) + 1;
    k.alpha = ties::f32_dyadic(m, -static_cast<int>(r.uniform(2, 5)));
    return k;
  }
  k.ys = random_scale(r, ey);
  const int dx = mode == 2 ? static_cast<int>(r.uniform(1, 5)) : static_cast<int>(r.uniform(-3, 1));
  k.xs = random_scale(r, ey + dx);
  if (mode == 3) {
    const int ea = static_cast<int>(r.uniform(0, 3));
    k.alpha = random_scale(r, ea);
    if (kind == Kind::Armnn && r.coin()) k.alpha |= 0x80000000u;
    if (k.alpha == 0x3f800000u) k.alpha = 0x3fc00000u;  // strictly above 1
  } else {
    const int ea = -static_cast<int>(r.uniform(1, 8));
    k.alpha = random_scale(r, ea);
  }
  return k;
}

// 12 codes: the exact ties first (a spread of them), both ends of the dtype, then random codes.
std::vector<std::int64_t> pick_codes(Rng& r, const Case& k, Kind kind) {
  std::vector<std::int64_t> found;
  for (std::int64_t x = lo_of(k.t); x <= hi_of(k.t); ++x)
    if (is_tie(k, x, kind)) found.push_back(x);
  std::vector<std::int64_t> codes;
  const std::size_t want = std::min<std::size_t>(8, found.size());
  for (std::size_t i = 0; i < want; ++i) codes.push_back(found[i * found.size() / want]);
  codes.push_back(lo_of(k.t));
  codes.push_back(hi_of(k.t));
  while (codes.size() < 12) {
    const std::int64_t x = r.uniform(lo_of(k.t), hi_of(k.t));
    codes.push_back(x);
  }
  return codes;
}

void hand_cases(Builder& b) {
  const bool armnn = b.kind == Kind::Armnn;
  Case k;
  k.xs = ties::f32_dyadic(1, -1), k.ys = ties::f32_dyadic(1, 0), k.zx = 128, k.zy = 128;
  b.add(k, all_codes(k.t),
        "x_scale 1/2, y_scale 1, alpha 1/2: every odd v >= 0 and every v = 2 (mod 4) below 0 is a tie");
  Case s8 = k;
  s8.t = DType::I8, s8.zx = 0, s8.zy = 0;
  b.add(s8, all_codes(s8.t),
        armnn ? "int8, the same: -1/2 rounds to -1 (half away; ONNX Runtime's half to even gives 0)"
              : "int8, the same: the builds differ at v = -2, -6, ..., -126 (negative ties)");
  Case a0 = k;
  a0.alpha = 0, a0.t = DType::I8, a0.zx = -20, a0.zy = -128;
  a0.xs = 0x3d4ccccdu, a0.ys = 0x3dcccccdu;
  b.add(a0, all_codes(a0.t),
        "alpha 0, x_scale 0.05, y_scale 0.1: negatives give y_zero_point = -128, positives saturate high");
  Case a3 = k;
  a3.alpha = 0x40400000u, a3.t = DType::I8, a3.zx = 0, a3.zy = 0, a3.xs = 0x3f800000u, a3.ys = 0x3f000000u;
  b.add(a3, all_codes(a3.t),
        armnn ? "alpha 3, x_scale / y_scale = 2: both ends saturate"
              : "alpha 3, x_scale / y_scale = 2: both ends saturate; sh_a = 3");
  Case typ = k;
  typ.t = DType::I8, typ.xs = 0x3c23d70au, typ.ys = 0x3c8f5c29u, typ.alpha = 0x3c23d70au, typ.zx = 5, typ.zy = -3;
  b.add(typ, all_codes(typ.t), "typical: x_scale 0.01, y_scale 0.0175, alpha 0.01");
  Case neg = k;
  neg.alpha = ties::f32_dyadic(-1, -2);
  if (armnn) {
    b.add(neg, all_codes(neg.t), "alpha -1/4: negative inputs map above the zero point");
    Case off = k;
    off.zx = 1000, off.zy = -900, off.xs = 0x3c23d70au, off.ys = 0x3c23d70au, off.alpha = 0x3c23d70au;
    b.add(off, all_codes(off.t), "offsets 1000 and -900 outside uint8: every code is below the input offset");
    return;
  }
  Case f = k;
  f.t = DType::I8, f.xs = 0x3e2efc83u, f.alpha = 0x3ef57d42u, f.ys = 0x3ef736dcu, f.zx = 51, f.zy = 0;
  b.add(f, all_codes(f.t),
        "the alpha multiplier is the binary32 fl32(fl32(x_s alpha) / y_s): x = -128 gives -31, a double derivation -30 "
        "(E-TFLRELU-1)");
  b.add_invalid(neg, "alpha -1/4: a negative real multiplier (QuantizeMultiplier; errata E-TFLRELU-2)");
  Case z = k;
  z.zx = 256;
  b.add_invalid(z, "x_zero_point 256 does not fit uint8");
  Case zy = k;
  zy.t = DType::I8, zy.zx = 0, zy.zy = -129;
  b.add_invalid(zy, "y_zero_point -129 does not fit int8");
}

Family leaky_family(std::string_view conv, Kind kind, std::uint64_t seed) {
  const std::string cv(conv);
  return family<Op>(conv, notes(kind), seed, [cv, kind](Rng& r) {
    Builder b{cv, kind, {}};
    hand_cases(b);
    const int counts[5] = {24, 44, 12, 12, kind == Kind::Armnn ? 8 : 0};
    for (int mode = 0; mode < 5; ++mode)
      for (int i = 0; i < counts[mode]; ++i) {
        const Case k = draw(r, mode, kind);
        const auto codes = pick_codes(r, k, kind);
        b.add(k, codes,
              mode == 1   ? "tie-rich draw"
              : mode == 2 ? "random, saturating"
              : mode == 3 ? (kind == Kind::Armnn ? "random, alpha > 1 or negative" : "random, alpha > 1")
              : mode == 4 ? "random, offsets outside the dtype"
                          : "random");
      }
    return std::vector<Group>{Group{OJ::object(), std::move(b.tests)}};
  });
}

QSPEC_REGISTER_VECTOR_FAMILY(leaky_family(Op::conv::tflite_double_round, Kind::TfliteDouble, 1541));
QSPEC_REGISTER_VECTOR_FAMILY(leaky_family(Op::conv::tflite_single_round, Kind::TfliteSingle, 1542));
QSPEC_REGISTER_VECTOR_FAMILY(leaky_family(Op::conv::armnn_cpuref, Kind::Armnn, 1543));

}  // namespace
}  // namespace qspec::vecgen
