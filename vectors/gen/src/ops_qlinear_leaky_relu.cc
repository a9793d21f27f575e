// Vector families of the engines' quantized leaky ReLU (spec/operators_qlinear_pool.md):
// ops/qlinear/leaky_relu/<convention>.json. Every valid test holds all 256 codes of its dtype (the
// whole table, flag "all_codes") under one parameter set: dyadic scales and slopes that make many
// entries exact ties before the rounding, realistic draws, saturating ratios, and the parameters
// each engine rejects. Expected outputs come from the reference (reference/ops/ops_qlinear_lut.cc).
#include <set>
#include <string>
#include <vector>

#include "qspec/catalogue/keys.h"
#include "qspec/core/attr.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear_lut.h"
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
using ref::Rat;
using Op = cat::qlinear_leaky_relu;

struct Case {
  DType t = DType::U8;
  std::uint32_t alpha = 0x3f000000u, xs = 0x3f800000u, ys = 0x3f800000u;
  std::int64_t zx = 0, zy = 0;
  std::optional<std::int64_t> ymin, ymax;
  bool drawn = false;
};

Test to_test(const Case& k, std::string comment, bool invalid = false) {
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
  if (k.ymin) attr::set_unchecked(a, A::y_min, *k.ymin);
  if (k.ymax) attr::set_unchecked(a, A::y_max, *k.ymax);
  t.attributes = std::move(a);
  std::vector<std::int64_t> codes;
  for (std::int64_t v = lo_of(k.t); v <= hi_of(k.t); ++v) codes.push_back(v);
  t.inputs = {tensor(std::string(Op::in::x), k.t, {16, 16}, codes)};
  return t;
}

// The exact value each table entry rounds (for the "tie" flag), as the convention computes it.
int ties_of(const Case& k, bool xnn) {
  int n = 0;
  const std::uint32_t inv = ref::f32_div(0x3f800000u, k.ys);
  for (std::int64_t v = lo_of(k.t); v <= hi_of(k.t); ++v) {
    const std::uint32_t d = ref::f32_mul(ref::f32_from_int(Int(v - k.zx)), k.xs);
    const std::uint32_t f = ref::f32_value(d) < 0 ? ref::f32_mul(d, k.alpha) : d;
    const Rat q = ref::f32_value(xnn ? ref::f32_mul(f, inv) : ref::f32_div(f, k.ys));
    n += ties::is_half_integer(ref::f32_round(q)) ? 1 : 0;
  }
  return n;
}

struct Builder {
  std::string conv;
  bool xnn;
  bool reciprocal;  // the requantization multiplies by fl32(1 / y_scale) (XNNPACK, PyTorch), else divides
  std::vector<Test> tests;
  void add(const Case& k, const std::string& comment) {
    Test t = to_test(k, comment);
    std::vector<Tensor> out;
    if (classify(Op::op, conv, t.attributes, t.inputs, &out) != Verdict::Valid)
      throw std::logic_error("vecgen qlinear.leaky_relu: '" + comment + "' is not valid");
    std::set<std::string> f{"all_codes"};
    const int ties = ties_of(k, reciprocal);
    if (ties > 0) f.insert("tie"), t.comment += " (" + std::to_string(ties) + " of 256 entries are exact ties)";
    const bool narrowed = (k.ymin && *k.ymin > lo_of(k.t)) || (k.ymax && *k.ymax < hi_of(k.t));
    for (auto v : out.at(0).data) {
      if (narrowed && ((k.ymin && v == *k.ymin) || (k.ymax && v == *k.ymax))) f.insert("narrow_clamp");
      if (!narrowed && v == lo_of(k.t)) f.insert("saturate_low");
      if (!narrowed && v == hi_of(k.t)) f.insert("saturate_high");
    }
    if (k.t == DType::U8) f.insert("uint8");
    if (k.drawn) f.insert("random");
    t.flags = {f.begin(), f.end()};
    tests.push_back(std::move(t));
  }
  void add_invalid(const Case& k, const std::string& comment, std::vector<std::string> flags = {}) {
    Test t = to_test(k, "invalid: " + comment, true);
    if (classify(Op::op, conv, t.attributes, t.inputs) != Verdict::Invalid)
      throw std::logic_error("vecgen qlinear.leaky_relu: '" + comment + "' is not rejected");
    t.flags = std::move(flags);
    tests.push_back(std::move(t));
  }
};

const std::vector<std::pair<std::string, std::string>> kNotes = {
    {"tie", "at least one table entry's value before the rounding is an exact k + 1/2"},
    {"saturate_low", "an output is the dtype's minimum"},
    {"saturate_high", "an output is the dtype's maximum"},
    {"narrow_clamp", "an output is at a fused clamp bound y_min / y_max narrower than the dtype"},
    {"uint8", "uint8 tensors"},
    {"all_codes", "the input holds all 256 codes: the whole table"},
    {"scale_limit", "a scale ratio the engine rejects"},
    {"random", "random draw"},
};

std::uint32_t random_scale(Rng& r, int e) {
  const std::uint32_t m = r.coin() ? static_cast<std::uint32_t>(r.uniform(0, (1 << 23) - 1))
                                   : static_cast<std::uint32_t>(r.uniform(0, 15)) << 19;
  return (static_cast<std::uint32_t>(e + 127) << 23) | m;
}

Case draw(Rng& r, bool xnn, int mode) {
  Case k;
  k.drawn = true;
  k.t = xnn || r.coin() ? DType::U8 : DType::I8;
  const std::int64_t lo = lo_of(k.t), hi = hi_of(k.t);
  k.zx = r.uniform(lo, hi);
  k.zy = r.uniform(lo, hi);
  const int ey = static_cast<int>(r.uniform(-9, -2));
  if (mode == 1) {  // dyadic: x_s / y_s = 2^-j, alpha = m 2^-a: half-integers before the rounding
    k.ys = ties::f32_dyadic(1, ey);
    k.xs = ties::f32_dyadic(1, ey - static_cast<int>(r.uniform(1, 2)));
    const std::int64_t m = 2 * r.uniform(0, 3) + 1;
    k.alpha = ties::f32_dyadic(m, -static_cast<int>(r.uniform(3, 5)));
  } else {
    k.ys = random_scale(r, ey);
    k.xs = random_scale(r, ey + static_cast<int>(mode == 2 ? r.uniform(1, 5) : r.uniform(-3, 1)));
    k.alpha = random_scale(r, -static_cast<int>(r.uniform(1, 8)));
  }
  if (xnn && r.uniform(0, 3) == 0) {
    const std::int64_t a = r.uniform(lo, hi - 1);
    k.ymin = a;
    k.ymax = r.uniform(a + 1, hi);
  }
  return k;
}

// ATen's leaky_qrelu_out_kernel: F.leaky_relu's output parameters (the input's), a slope above 1,
// the E-LIBTORCH-EW-1 scale 0.1f (whose FMA dequantization on the vector path differs), a bad int8 z_x.
void pytorch_hand_cases(Builder& b, const Case& k) {
  Case same = k;
  same.xs = same.ys = 0x3dcccccdu;  // 0.1f
  same.zx = same.zy = 3;
  same.alpha = 0x3c23d70au;  // 0.01f, torch's default slope
  b.add(same, "the input's parameters for the output (F.leaky_relu), scale 0.1f, z 3, alpha 0.01f");
  Case steep = k;
  steep.alpha = ties::f32_dyadic(3, -1);
  b.add(steep, "alpha 3/2 (ATen takes any slope): negative inputs grow and saturate low");
  Case zx = k;
  zx.t = DType::I8, zx.zx = 128, zx.zy = 0;
  b.add_invalid(zx, "int8 x_zero_point 128 does not fit int8 (quantize_per_tensor: zero_point is out of range)");
}

void hand_cases(Builder& b) {
  Case k;
  k.xs = ties::f32_dyadic(1, -1), k.ys = ties::f32_dyadic(1, 0), k.zx = 128, k.zy = 128;
  b.add(k, "x_scale 1/2, y_scale 1, alpha 1/2: every odd code above the zero point is a tie k + 1/2");
  Case r7 = k;
  r7.xs = 0x40600000u, r7.ys = 0x40e00000u, r7.zx = 0, r7.zy = 0;
  b.add(r7,
        "x_scale 7/2, y_scale 7: i / 2 is exact under ONNX Runtime's division; XNNPACK's fl32(1/7) moves 39 "
        "of the ties off the half-integer");
  if (!b.xnn) {
    Case s = k;
    s.t = DType::I8, s.zx = 0, s.zy = -100;
    b.add(s, "int8, alpha 1/2, y_zero_point -100: negative inputs saturate low");
    Case neg = k;
    neg.alpha = ties::f32_dyadic(-1, -2);
    b.add(neg, "a negative alpha -1/4 (ONNX Runtime takes any slope)");
    Case z = k;
    z.zx = 256;
    b.add_invalid(z, "x_zero_point 256 does not fit uint8");
    if (b.conv == Op::conv::pytorch_onednn) pytorch_hand_cases(b, k);
    return;
  }
  Case c = k;
  c.ymin = 100, c.ymax = 160;
  b.add(c, "a fused clamp [100, 160]");
  Case one = k;
  one.alpha = 0x3f800001u;
  b.add_invalid(one, "alpha just above 1: slope must not exceed 1.0");
  Case zero = k;
  zero.alpha = 0;
  b.add_invalid(zero, "alpha 0: slope must be finite, normalized, and positive");
  Case ratio = k;
  ratio.xs = ties::f32_dyadic(1, 8);
  b.add_invalid(ratio, "x_scale / y_scale = 256: outside [2^-8, 2^8)", {"scale_limit"});
  Case s8 = k;
  s8.t = DType::I8, s8.zx = 0, s8.zy = 0;
  b.add_invalid(s8, "int8: the snapshot has no qs8 leaky ReLU operator");
  Case range = k;
  range.ymin = 7, range.ymax = 7;
  b.add_invalid(range, "y_min = y_max: range min must be below range max");
}

Family leaky_family(std::string_view conv, std::uint64_t seed, int draws_per_mode = 28) {
  const std::string cv(conv);
  const bool xnn = conv == Op::conv::xnnpack_fp32;
  const bool reciprocal = xnn || conv == Op::conv::pytorch_onednn;
  return family<Op>(conv, kNotes, seed, [cv, xnn, reciprocal, draws_per_mode](Rng& r) {
    Builder b{cv, xnn, reciprocal, {}};
    hand_cases(b);
    for (int mode = 0; mode < 3; ++mode)
      // 256 codes a test: >= 100 tests, within the file limit (tie-rich draws 12 more).
      for (int i = 0; i < (mode == 1 ? draws_per_mode + 12 : draws_per_mode); ++i)
        for (int attempt = 0;; ++attempt) {
          const Case k = draw(r, xnn, mode);
          const Test t = to_test(k, "");
          if (classify(Op::op, cv, t.attributes, t.inputs) == Verdict::Valid) {
            b.add(k, mode == 1 ? "tie-rich draw" : mode == 2 ? "random, saturating" : "random");
            break;
          }
          if (attempt > 200) throw std::logic_error("vecgen qlinear.leaky_relu: cannot draw a valid case");
        }
    return std::vector<Group>{Group{OJ::object(), std::move(b.tests)}};
  });
}

QSPEC_REGISTER_VECTOR_FAMILY(leaky_family(Op::conv::xnnpack_fp32, 1531));
QSPEC_REGISTER_VECTOR_FAMILY(leaky_family(Op::conv::onnxruntime, 1532));
// PyTorch: ATen takes int8 and any slope, as ONNX Runtime does; 27 draws a mode keep its 101 tests
// (two whole tables each) within a twentieth of a file's element limit (kMaxFileElements,
// qspec/harness/vector_limits.h).
QSPEC_REGISTER_VECTOR_FAMILY(leaky_family(Op::conv::pytorch_onednn, 1782, 27));

}  // namespace
}  // namespace qspec::vecgen
