// Vector families of TFLite's quantized leaky ReLU (spec/operators_qlinear_leaky_relu.md):
// ops/qlinear/leaky_relu/tflite.{double,single}_round.json. A few tests hold all 256 codes (the whole
// map, flag "all_codes"); the rest hold 16 codes each, chosen among the exact ties of the drawn
// parameters when there are any (dyadic scale ratios and slopes make v M 2^(sh - 31) a half-integer),
// so the families stay small. Saturation both ends, alpha 0 and alpha > 1, int8 and uint8, and the
// parameters TFLite's conventions reject. Expected outputs come from the reference
// (reference/ops/ops_qlinear_leaky_relu_tflite.cc).
#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "qspec/catalogue/keys.h"
#include "qspec/core/attr.h"
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

// Whether code x's exact product v M 2^(sh - 31) (its sign's multiplier) is an exact k + 1/2.
bool is_tie(const Case& k, std::int64_t x, bool single) {
  const auto m = ro::qlinear_leaky_relu_tflite_multipliers(k.alpha, params_of(k), single);
  const Int v = Int(x - k.zx);
  const auto& q = v >= 0 ? m.identity : m.alpha;
  return ties::q31_product_is_tie(v, q.multiplier, q.shift);
}

struct Builder {
  std::string conv;
  bool single;
  std::vector<Test> tests;
  void add(const Case& k, const std::vector<std::int64_t>& codes, const std::string& comment) {
    Test t = to_test(k, codes, comment);
    std::vector<Tensor> out;
    if (classify(Op::op, conv, t.attributes, t.inputs, &out) != Verdict::Valid)
      throw std::logic_error("vecgen qlinear.leaky_relu tflite: '" + comment + "' is not valid");
    std::set<std::string> f;
    if (codes.size() == 256) f.insert("all_codes");
    int ties = 0;
    for (auto x : codes) ties += is_tie(k, x, single) ? 1 : 0;
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
    if (k.drawn) f.insert("random");
    t.flags = {f.begin(), f.end()};
    tests.push_back(std::move(t));
  }
  void add_invalid(const Case& k, const std::string& comment) {
    Test t = to_test(k, {lo_of(k.t), hi_of(k.t)}, "invalid: " + comment, true);
    if (classify(Op::op, conv, t.attributes, t.inputs) != Verdict::Invalid)
      throw std::logic_error("vecgen qlinear.leaky_relu tflite: '" + comment + "' is not rejected");
    tests.push_back(std::move(t));
  }
};

const std::vector<std::pair<std::string, std::string>> kNotes = {
    {"tie", "at least one code's exact product v M 2^(shift - 31) is an exact k + 1/2"},
    {"saturate_low", "an output is the dtype's minimum"},
    {"saturate_high", "an output is the dtype's maximum"},
    {"uint8", "uint8 tensors"},
    {"all_codes", "the input holds all 256 codes: the whole map"},
    {"alpha_zero", "alpha = 0: the alpha multiplier is (0, 0), every negative v gives y_zero_point"},
    {"alpha_above_one", "alpha > 1: a positive shift of the alpha multiplier"},
    {"random", "random draw"},
};

std::uint32_t random_scale(Rng& r, int e) {
  const std::uint32_t m = r.coin() ? static_cast<std::uint32_t>(r.uniform(0, (1 << 23) - 1))
                                   : static_cast<std::uint32_t>(r.uniform(0, 15)) << 19;
  return (static_cast<std::uint32_t>(e + 127) << 23) | m;
}

// mode 0: realistic scales; 1: dyadic (tie-rich); 2: large ratios (saturating); 3: alpha > 1.
Case draw(Rng& r, int mode) {
  Case k;
  k.drawn = true;
  k.t = r.coin() ? DType::U8 : DType::I8;
  const std::int64_t lo = lo_of(k.t), hi = hi_of(k.t);
  k.zx = r.uniform(lo, hi);
  k.zy = r.uniform(lo, hi);
  const int ey = static_cast<int>(r.uniform(-9, -2));
  if (mode == 1) {
    k.ys = ties::f32_dyadic(1, ey);
    k.xs = ties::f32_dyadic(1, ey - static_cast<int>(r.uniform(1, 3)));
    const std::int64_t m = 2 * r.uniform(0, 3) + 1;
    k.alpha = ties::f32_dyadic(m, -static_cast<int>(r.uniform(2, 5)));
  } else {
    k.ys = random_scale(r, ey);
    const int dx = mode == 2 ? static_cast<int>(r.uniform(1, 5)) : static_cast<int>(r.uniform(-3, 1));
    k.xs = random_scale(r, ey + dx);
    k.alpha = mode == 3 ? random_scale(r, static_cast<int>(r.uniform(0, 3)))
                        : random_scale(r, -static_cast<int>(r.uniform(1, 8)));
    if (mode == 3 && k.alpha == 0x3f800000u) k.alpha = 0x3fc00000u;  // strictly above 1
  }
  return k;
}

// 16 codes: the exact ties first (a spread of them), then random codes.
std::vector<std::int64_t> pick_codes(Rng& r, const Case& k, bool single) {
  std::vector<std::int64_t> ties_found;
  for (std::int64_t x = lo_of(k.t); x <= hi_of(k.t); ++x)
    if (is_tie(k, x, single)) ties_found.push_back(x);
  std::vector<std::int64_t> codes;
  const std::size_t want_ties = std::min<std::size_t>(10, ties_found.size());
  for (std::size_t i = 0; i < want_ties; ++i) codes.push_back(ties_found[i * ties_found.size() / want_ties]);
  codes.push_back(lo_of(k.t));
  codes.push_back(hi_of(k.t));
  while (codes.size() < 16) {
    const std::int64_t x = r.uniform(lo_of(k.t), hi_of(k.t));
    codes.push_back(x);
  }
  return codes;
}

void hand_cases(Builder& b) {
  Case k;
  k.xs = ties::f32_dyadic(1, -1), k.ys = ties::f32_dyadic(1, 0), k.zx = 128, k.zy = 128;
  b.add(k, all_codes(k.t),
        "x_scale 1/2, y_scale 1, alpha 1/2: every odd v >= 0 and every v = 2 (mod 4) below 0 is a tie");
  Case s8 = k;
  s8.t = DType::I8, s8.zx = 0, s8.zy = 0;
  b.add(s8, all_codes(s8.t), "int8, the same: the builds differ at v = -2, -6, ..., -126 (negative ties)");
  Case a0 = k;
  a0.alpha = 0, a0.t = DType::I8, a0.zx = -20, a0.zy = -128;
  a0.xs = 0x3d4ccccdu, a0.ys = 0x3dcccccdu;
  b.add(a0, all_codes(a0.t),
        "alpha 0, x_scale 0.05, y_scale 0.1: negatives give y_zero_point = -128, positives saturate high");
  Case a3 = k;
  a3.alpha = 0x40400000u, a3.t = DType::I8, a3.zx = 0, a3.zy = 0, a3.xs = 0x3f800000u, a3.ys = 0x3f000000u;
  b.add(a3, all_codes(a3.t), "alpha 3, x_scale / y_scale = 2: both ends saturate; sh_a = 3");
  Case typ = k;
  typ.t = DType::I8, typ.xs = 0x3c23d70au, typ.ys = 0x3c8f5c29u, typ.alpha = 0x3c23d70au, typ.zx = 5, typ.zy = -3;
  b.add(typ, all_codes(typ.t), "typical: x_scale 0.01, y_scale 0.0175, alpha 0.01");
  Case f = k;
  f.t = DType::I8, f.xs = 0x3e2efc83u, f.alpha = 0x3ef57d42u, f.ys = 0x3ef736dcu, f.zx = 51, f.zy = 0;
  b.add(f, all_codes(f.t),
        "the alpha multiplier is the binary32 fl32(fl32(x_s alpha) / y_s): x = -128 gives -31, a double derivation -30 "
        "(E-TFLRELU-1)");
  Case neg = k;
  neg.alpha = ties::f32_dyadic(-1, -2);
  b.add_invalid(neg, "alpha -1/4: a negative real multiplier (QuantizeMultiplier; errata E-TFLRELU-2)");
  Case z = k;
  z.zx = 256;
  b.add_invalid(z, "x_zero_point 256 does not fit uint8");
  Case zy = k;
  zy.t = DType::I8, zy.zx = 0, zy.zy = -129;
  b.add_invalid(zy, "y_zero_point -129 does not fit int8");
}

Family tflite_family(std::string_view conv, bool single, std::uint64_t seed) {
  const std::string cv(conv);
  return family<Op>(conv, kNotes, seed, [cv, single](Rng& r) {
    Builder b{cv, single, {}};
    hand_cases(b);
    const int counts[4] = {30, 50, 15, 15};
    for (int mode = 0; mode < 4; ++mode)
      for (int i = 0; i < counts[mode]; ++i)
        for (int attempt = 0;; ++attempt) {
          const Case k = draw(r, mode);
          const Test t = to_test(k, {lo_of(k.t)}, "");
          if (classify(Op::op, cv, t.attributes, t.inputs) == Verdict::Valid) {
            const auto codes = pick_codes(r, k, single);
            b.add(k, codes,
                  mode == 1   ? "tie-rich draw"
                  : mode == 2 ? "random, saturating"
                  : mode == 3 ? "random, alpha > 1"
                              : "random");
            break;
          }
          if (attempt > 200) throw std::logic_error("vecgen qlinear.leaky_relu tflite: cannot draw a valid case");
        }
    return std::vector<Group>{Group{OJ::object(), std::move(b.tests)}};
  });
}

QSPEC_REGISTER_VECTOR_FAMILY(tflite_family(Op::conv::tflite_double_round, false, 1541));
QSPEC_REGISTER_VECTOR_FAMILY(tflite_family(Op::conv::tflite_single_round, true, 1542));

}  // namespace
}  // namespace qspec::vecgen
