// Vector families of Glow's quantized operators (spec/operators_glow.md): ops/glow/*.json.
//
// Inputs only; expected outputs come from the reference ops (reference/ops/ops_nn_glow.cc).
// Random cases are drawn, then run through the reference once: a case outside a REQUIRE (an
// accumulator overflow, a float overflow) is drawn again, so every vector is inside the
// clause's domain. Float32 values are built from bit fields (no host float arithmetic). Ops,
// conventions, tensors and attributes are named through the catalogue's typed keys
// (qspec::cat::glow_*, spec/catalogue/glow.*.json).
#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "qspec/catalogue/keys.h"
#include "qspec/core/attr.h"
#include "qspec/ref/exact.h"
#include "qspec/ref/ieee.h"
#include "qspec/vecgen.h"
#include "qspec/vecgen/classify.h"
#include "qspec/vecgen/wide_shapes.h"

namespace qspec::vecgen {
namespace {

using OJ = nlohmann::ordered_json;
using Dims = std::vector<std::int64_t>;
using ref::Int;
using ref::Rat;

std::int64_t numel(const Dims& s) {
  std::int64_t n = 1;
  for (auto d : s) n *= d;
  return n;
}
Tensor tensor_of(std::string_view name, DType t, Dims shape, std::vector<std::int64_t> data) {
  return tensor(std::string(name), t, std::move(shape), std::move(data));
}
Tensor rand_tensor(Rng& r, std::string_view name, const Dims& shape, std::int64_t lo, std::int64_t hi, DType t) {
  std::vector<std::int64_t> d;
  for (std::int64_t i = 0; i < numel(shape); ++i) d.push_back(r.uniform(lo, hi));
  return tensor_of(name, t, shape, d);
}
// float32 2^e * (1 + m / 2^23): a positive normal scale built from its bit fields.
std::uint32_t f32_bits(int e, std::uint32_t m) { return (static_cast<std::uint32_t>(e + 127) << 23) | (m & 0x7fffffu); }
std::uint32_t random_scale(Rng& r, int emin, int emax) {
  const auto e = static_cast<int>(r.uniform(emin, emax));
  const std::uint32_t m = r.coin() ? static_cast<std::uint32_t>(r.uniform(0, (1 << 23) - 1))
                                   : static_cast<std::uint32_t>(r.uniform(0, 7)) << 20;
  return f32_bits(e, m);
}
// The exponent field of a positive float32, unbiased.
int exponent_of(std::uint32_t bits) { return static_cast<int>((bits >> 23) & 0xffu) - 127; }
// A float32 k / 2^d (exact for |k| < 2^24).
std::uint32_t dyadic(std::int64_t k, int d) { return ref::f32_round(Rat(k) * ref::pow2r(-d)); }

// Attributes holding one value.
OJ one(const attr::Int& key, std::int64_t v) {
  OJ a = OJ::object();
  attr::set(a, key, v);
  return a;
}
OJ one(const attr::IntArray& key, const Dims& v) {
  OJ a = OJ::object();
  attr::set(a, key, v);
  return a;
}

Test make(std::string comment, std::vector<Tensor> in, OJ attrs, bool invalid = false) {
  Test t;
  t.comment = std::move(comment);
  t.inputs = std::move(in);
  t.attributes = std::move(attrs);
  t.invalid = invalid;
  return t;
}

// Collects tests of one family, checking each against the reference: a hand-written case must
// be valid (or, when marked invalid, rejected); a random draw outside the REQUIREs is redrawn.
struct Builder {
  std::string op, conv;
  std::vector<Test> tests;
  void add(Test t) {
    const Verdict o = classify(op, conv, t.attributes, t.inputs);
    const Verdict want = t.invalid ? Verdict::Invalid : Verdict::Valid;
    if (o != want)
      throw std::logic_error("vecgen " + op + ": hand case '" + t.comment + "' is not " +
                             (t.invalid ? "invalid" : "valid"));
    tests.push_back(std::move(t));
  }
  void add_random(int n, const std::function<Test()>& draw) {
    for (int i = 0; i < n; ++i)
      for (int attempt = 0;; ++attempt) {
        Test t = draw();
        if (classify(op, conv, t.attributes, t.inputs) == Verdict::Valid) {
          tests.push_back(std::move(t));
          break;
        }
        if (attempt > 200) throw std::logic_error("vecgen " + op + ": cannot draw a valid random case");
      }
  }
  std::vector<Group> groups() { return {Group{OJ::object(), std::move(tests)}}; }
};

Family fam(std::string_view op_name, std::string_view conv_name, std::uint64_t seed,
           std::vector<std::pair<std::string, std::string>> notes, std::function<void(Rng&, Builder&)> gen) {
  const std::string op(op_name), conv(conv_name);
  Family f;
  f.op = op;
  f.convention = conv;
  f.seed = seed;
  f.notes = std::move(notes);
  f.generate = [op, conv, gen](Rng& r) {
    Builder b{op, conv, {}};
    gen(r, b);
    return b.groups();
  };
  return f;
}

Test flagged(Test t, std::string flag) {
  t.flags.push_back(std::move(flag));
  return t;
}

// ---- FullyConnected / Convolution / RowwiseQuantizedFullyConnected ------------------------------

// The keys of one tensor's quantization parameters, and their values.
struct QKeys {
  attr::F32 scale;
  attr::Int offset;
};
template <class Op>
constexpr QKeys kInput{Op::attr::input_scale, Op::attr::input_offset};
template <class Op>
constexpr QKeys kWeights{Op::attr::weights_scale, Op::attr::weights_offset};
template <class Op>
constexpr QKeys kBias{Op::attr::bias_scale, Op::attr::bias_offset};
template <class Op>
constexpr QKeys kOutput{Op::attr::output_scale, Op::attr::output_offset};
void qp(OJ& a, const QKeys& keys, std::uint32_t scale, std::int64_t offset) {
  attr::set(a, keys.scale, scale);
  attr::set(a, keys.offset, offset);
}
// Whether Op has weights parameters (RowwiseQuantizedFullyConnected's are per-row inputs).
template <class Op>
constexpr bool kHasWeightsParams = requires {
  Op::attr::weights_scale;
};

struct LinearDraw {
  DType elem, bias;
  std::int64_t lo, hi;  // element range
};
LinearDraw draw_types(Rng& r) {
  const auto k = r.uniform(0, 9);
  if (k < 4) return {DType::I8, DType::I32, -128, 127};
  if (k < 7) return {DType::I8, DType::I8, -128, 127};
  if (k < 8) return {DType::I16, DType::I16, -32768, 32767};
  return {DType::I16, DType::I32, -32768, 32767};
}

// Random parameters: input/weights scales, a bias scale equal to the matmul scale (the
// glow.bias_int32 choice, exact because both scales are powers of two) or near it, and an output
// scale 2^2..2^10 times the matmul scale so that outputs spread over the int8 range.
template <class Op>
OJ random_linear_attrs(Rng& r, const LinearDraw& d) {
  constexpr bool with_weights = kHasWeightsParams<Op>;
  OJ a = OJ::object();
  const bool pow2 = r.coin();
  const std::uint32_t sx = pow2 ? f32_bits(static_cast<int>(r.uniform(-8, 1)), 0) : random_scale(r, -8, 1);
  const std::uint32_t sw = pow2 ? f32_bits(static_cast<int>(r.uniform(-8, 1)), 0) : random_scale(r, -8, 1);
  const int ep = exponent_of(sx) + exponent_of(sw);
  const std::int64_t span = d.elem == DType::I8 ? 64 : 8192;
  qp(a, kInput<Op>, sx, r.uniform(-span, span));
  if constexpr (with_weights) qp(a, kWeights<Op>, sw, r.uniform(-span, span));
  if (pow2 && with_weights)
    qp(a, kBias<Op>, f32_bits(ep, 0), d.bias == DType::I32 ? 0 : r.uniform(-8, 8));
  else {
    // One draw per statement, in the order GCC evaluated qp's arguments (right to left), which
    // the committed vectors hold: an argument list's order is unspecified.
    const std::int64_t bias_offset = d.bias == DType::I32 ? 0 : r.uniform(-8, 8);
    qp(a, kBias<Op>, random_scale(r, ep - 2, ep + 2), bias_offset);
  }
  const int shift = d.elem == DType::I8 ? static_cast<int>(r.uniform(2, 10)) : static_cast<int>(r.uniform(1, 6));
  const std::int64_t output_offset = r.uniform(d.lo / 2, d.hi / 2);
  qp(a, kOutput<Op>, random_scale(r, ep + shift, ep + shift), output_offset);
  return a;
}
Tensor rand_bias(Rng& r, std::string_view name, std::int64_t m, DType t) {
  const std::int64_t lim = t == DType::I32 ? (1 << 20) : (t == DType::I16 ? 32767 : 127);
  return rand_tensor(r, name, {m}, -lim, lim, t);
}
// Unit parameters with the given overrides (hand cases).
template <class Op>
OJ unit_attrs() {
  OJ a = OJ::object();
  qp(a, kInput<Op>, f32_bits(0, 0), 0);
  if constexpr (kHasWeightsParams<Op>) qp(a, kWeights<Op>, f32_bits(0, 0), 0);
  qp(a, kBias<Op>, f32_bits(0, 0), 0);
  qp(a, kOutput<Op>, f32_bits(0, 0), 0);
  return a;
}
// Unit parameters except p = fl32(s_x * s_w) = 1/2, s_b = 1/2 and o_y = 1: an accumulator of -1 or 1
// gives the exact tie fl32(t) * r = -0.5 or 0.5, which the output offset's position decides.
template <class Op>
OJ tie_attrs() {
  OJ a = unit_attrs<Op>();
  qp(a, kInput<Op>, f32_bits(-1, 0), 0);
  qp(a, kBias<Op>, f32_bits(-1, 0), 0);
  qp(a, kOutput<Op>, f32_bits(0, 0), 1);
  return a;
}
Tensor i8(std::string_view n, Dims s, std::vector<std::int64_t> v) {
  return tensor_of(n, DType::I8, std::move(s), std::move(v));
}
Tensor i32(std::string_view n, Dims s, std::vector<std::int64_t> v) {
  return tensor_of(n, DType::I32, std::move(s), std::move(v));
}

const std::vector<std::pair<std::string, std::string>> kLinearNotes = {
    {"tie_offset",
     "fl32(t) * r is an exact tie k + 1/2 and the output offset changes the rounding: FullyConnected "
     "rounds then adds the offset, Convolution and RowwiseFC add it first (E-GLOWOP-1)"},
    {"large_bias",
     "|bias - bias_offset| > 2^24: float(bias) drops low bits even when the bias scale is the matmul scale"},
    {"float_sum", "|acc + B| > 2^24: float(sum) rounds the accumulator before the scaling"},
    {"saturation", "the output clips at an end of the element type"},
    {"int16", "int16 tensors, accumulated in int64"},
    wide::note(),
};

// ---- wide draws (vecgen/wide_shapes.h): int8, offsets near the codes' mean, an output scale that
// saturates few outputs (the small draws' scale would saturate most of a K of hundreds) ----

// The attributes of a wide draw of k terms, and the weights' scale exponent (RowwiseFC's row scales
// take it, as its weights have no scale attribute).
template <class Op>
std::pair<OJ, int> wide_linear_attrs(Rng& r, std::int64_t k) {
  OJ a = OJ::object();
  const std::uint32_t sx = random_scale(r, -8, 1), sw = random_scale(r, -8, 1);
  const int ep = exponent_of(sx) + exponent_of(sw);
  qp(a, kInput<Op>, sx, r.uniform(-8, 8));
  if constexpr (kHasWeightsParams<Op>) qp(a, kWeights<Op>, sw, r.uniform(-8, 8));
  qp(a, kBias<Op>, random_scale(r, ep - 2, ep), 0);
  const int e = ep + wide::output_exponent(k) + 1;  // + 1: the scales' mantissas multiply to up to 4
  qp(a, kOutput<Op>, random_scale(r, e, e), r.uniform(-8, 8));
  return {a, exponent_of(sw)};
}
Test wide_test(Test t) {
  t.comment = "wide: " + t.comment;
  t.flags.push_back("wide");
  return t;
}

QSPEC_REGISTER_VECTOR_FAMILY(fam(
    cat::glow_fully_connected::op, cat::glow_fully_connected::conv::glow, 1201, kLinearNotes, [](Rng& r, Builder& b) {
      using Op = cat::glow_fully_connected;
      using In = Op::in;
      // acc = -1, p = 0.5, s_y = 1: t * r = -0.5; round first: -1, + offset 1 = 0 (the Convolution gives 1).
      const OJ tie = tie_attrs<Op>();
      b.add(flagged(make("tie -0.5 with output offset 1: round(-0.5) + 1 = 0",
                         {i8(In::x, {1, 1}, {-1}), i8(In::w, {1, 1}, {1}), i32(In::bias, {1}, {0})}, tie),
                    "tie_offset"));
      OJ tie2 = tie;
      attr::set(tie2, Op::attr::output_offset, -1);
      b.add(flagged(make("tie +0.5 with output offset -1: round(0.5) - 1 = 0",
                         {i8(In::x, {1, 1}, {1}), i8(In::w, {1, 1}, {1}), i32(In::bias, {1}, {0})}, tie2),
                    "tie_offset"));
      // bias 201 * 2^17 - 1 at the matmul scale (ratio 1): float(bias) rounds (tie, to even) up by 1, and
      // with output scale 2^18 the result is round(100.5) = 101 where the exact 100.4999962 gives 100.
      OJ lb = unit_attrs<Op>();
      qp(lb, kOutput<Op>, f32_bits(18, 0), 0);
      b.add(flagged(make("bias 26345471 becomes 26345472 in float32: 101, not 100",
                         {i8(In::x, {1, 1}, {0}), i8(In::w, {1, 1}, {0}), i32(In::bias, {1}, {26345471})}, lb),
                    "large_bias"));
      OJ big = unit_attrs<Op>();
      qp(big, kOutput<Op>, f32_bits(20, 0), 0);
      // t = 33 * 2^19 - 1 = 17301503: float(t) = 17301504, * 2^-20 = 16.5 -> 17 (exact value 16.49999905 -> 16).
      b.add(flagged(make("float(sum) rounds 17301503 up to 17301504: 16.5 -> 17",
                         {i8(In::x, {1, 1}, {1}), i8(In::w, {1, 1}, {-1}), i32(In::bias, {1}, {17301504})}, big),
                    "float_sum"));
      OJ sat = unit_attrs<Op>();
      b.add(flagged(make("saturates at 127",
                         {i8(In::x, {1, 2}, {127, 127}), i8(In::w, {2, 1}, {127, 127}), i32(In::bias, {1}, {0})}, sat),
                    "saturation"));
      b.add(
          flagged(make("saturates at -128",
                       {i8(In::x, {1, 2}, {127, -128}), i8(In::w, {2, 1}, {-128, 127}), i32(In::bias, {1}, {0})}, sat),
                  "saturation"));
      OJ ends = unit_attrs<Op>();
      qp(ends, kInput<Op>, f32_bits(-4, 0), -128);
      qp(ends, kWeights<Op>, f32_bits(-3, 0), 127);
      qp(ends, kBias<Op>, f32_bits(-7, 0), 0);
      qp(ends, kOutput<Op>, f32_bits(-2, 0), -128);
      b.add(make("offsets at both ends of int8",
                 {i8(In::x, {2, 3}, {-128, 127, 0, 5, -5, 100}), i8(In::w, {3, 2}, {127, -128, 0, 1, 2, 3}),
                  i32(In::bias, {2}, {1000, -1000})},
                 ends));
      b.add(flagged(make("int16 tensors, int16 bias",
                         {tensor_of(In::x, DType::I16, {1, 2}, {32767, -32768}),
                          tensor_of(In::w, DType::I16, {2, 1}, {2, 3}), tensor_of(In::bias, DType::I16, {1}, {-7})},
                         [] {
                           OJ a = unit_attrs<Op>();
                           qp(a, kOutput<Op>, f32_bits(17, 0), 3);
                           return a;
                         }()),
                    "int16"));
      b.add(make("1x1x1", {i8(In::x, {1, 1}, {7}), i8(In::w, {1, 1}, {-3}), tensor_of(In::bias, DType::I8, {1}, {2})},
                 unit_attrs<Op>()));
      b.add(make("invalid: weights rows != K",
                 {i8(In::x, {1, 2}, {1, 2}), i8(In::w, {3, 1}, {1, 2, 3}), i32(In::bias, {1}, {0})}, unit_attrs<Op>(),
                 true));
      b.add(make("invalid: bias length != M",
                 {i8(In::x, {1, 2}, {1, 2}), i8(In::w, {2, 2}, {1, 2, 3, 4}), i32(In::bias, {3}, {0, 0, 0})},
                 unit_attrs<Op>(), true));
      b.add(make("invalid: input rank 3",
                 {i8(In::x, {1, 1, 2}, {1, 2}), i8(In::w, {2, 1}, {1, 2}), i32(In::bias, {1}, {0})}, unit_attrs<Op>(),
                 true));
      b.add(make("invalid: int8 tensors with an int16 bias",
                 {i8(In::x, {1, 1}, {1}), i8(In::w, {1, 1}, {1}), tensor_of(In::bias, DType::I16, {1}, {0})},
                 unit_attrs<Op>(), true));
      b.add(make("invalid: weights int16, input int8",
                 {i8(In::x, {1, 1}, {1}), tensor_of(In::w, DType::I16, {1, 1}, {1}), i32(In::bias, {1}, {0})},
                 unit_attrs<Op>(), true));
      b.add_random(130, [&r] {
        const auto d = draw_types(r);
        const std::int64_t n = r.uniform(1, 3), k = r.uniform(1, 16), m = r.uniform(1, 4);
        // Attributes before tensors: GCC evaluated make's arguments right to left (the committed order).
        OJ a = random_linear_attrs<Op>(r, d);
        Test t = make("random",
                      {rand_tensor(r, In::x, {n, k}, d.lo, d.hi, d.elem),
                       rand_tensor(r, In::w, {k, m}, d.lo, d.hi, d.elem), rand_bias(r, In::bias, m, d.bias)},
                      std::move(a));
        if (d.elem == DType::I16) t.flags.push_back("int16");
        return t;
      });
      for (int v = 0; v < wide::kDraws; ++v) {
        const wide::Fc f = wide::draw_fc(r, v);
        OJ a = wide_linear_attrs<Op>(r, f.k).first;
        b.add(wide_test(make("random",
                             {rand_tensor(r, In::x, {f.rows, f.k}, -128, 127, DType::I8),
                              rand_tensor(r, In::w, {f.k, f.outputs}, -128, 127, DType::I8),
                              rand_tensor(r, In::bias, {f.outputs}, -4096, 4096, DType::I32)},
                             std::move(a))));
      }
    }));

// Convolution geometry attributes (TLBR pads).
OJ geometry(std::int64_t sh, std::int64_t sw, const Dims& pads, std::int64_t dh, std::int64_t dw, std::int64_t g) {
  using A = cat::glow_convolution::attr;
  OJ a = OJ::object();
  attr::set(a, A::strides, {sh, sw});
  attr::set(a, A::pads, pads);
  attr::set(a, A::dilation, {dh, dw});
  attr::set(a, A::group, g);
  return a;
}
// A random valid Convolution problem (NHWC input, OHWI filter, TLBR pads).
OJ random_conv_geometry(Rng& r, Dims& xs, Dims& ws) {
  const std::int64_t g = r.uniform(1, 3), cg = r.uniform(1, 3), opg = r.uniform(1, 2);
  const std::int64_t kh = r.uniform(1, 3), kw = r.uniform(1, 3), dh = r.uniform(1, 2), dw = r.uniform(1, 2);
  const std::int64_t pt = r.uniform(0, 2), pl = r.uniform(0, 2), pb = r.uniform(0, 2), pr = r.uniform(0, 2);
  const std::int64_t h = std::max<std::int64_t>(1, dh * (kh - 1) + 1 - pt - pb) + r.uniform(0, 3);
  const std::int64_t w = std::max<std::int64_t>(1, dw * (kw - 1) + 1 - pl - pr) + r.uniform(0, 3);
  xs = {r.uniform(1, 2), h, w, g * cg};
  ws = {g * opg, kh, kw, cg};
  const std::int64_t sh = r.uniform(1, 3), sw = r.uniform(1, 3);
  return geometry(sh, sw, {pt, pl, pb, pr}, dh, dw, g);
}

QSPEC_REGISTER_VECTOR_FAMILY(
    fam(cat::glow_convolution::op, cat::glow_convolution::conv::glow, 1202, kLinearNotes, [](Rng& r, Builder& b) {
      using Op = cat::glow_convolution;
      using In = Op::in;
      const OJ tie = tie_attrs<Op>();
      // The FullyConnected tie case as a 1x1 convolution: round(-0.5 + 1) = 1, not 0.
      b.add(flagged(make("tie -0.5 with output offset 1: round(0.5) = 1",
                         {i8(In::x, {1, 1, 1, 1}, {-1}), i8(In::w, {1, 1, 1, 1}, {1}), i32(In::bias, {1}, {0})},
                         merge_attributes(tie, geometry(1, 1, {0, 0, 0, 0}, 1, 1, 1))),
                    "tie_offset"));
      OJ big = merge_attributes(unit_attrs<Op>(), geometry(1, 1, {0, 0, 0, 0}, 1, 1, 1));
      qp(big, kOutput<Op>, f32_bits(20, 0), 0);
      b.add(flagged(
          make("float(sum) rounds 17301503 up: 16.5 + 0 -> 17",
               {i8(In::x, {1, 1, 1, 1}, {1}), i8(In::w, {1, 1, 1, 1}, {-1}), i32(In::bias, {1}, {17301504})}, big),
          "float_sum"));
      OJ lb = merge_attributes(unit_attrs<Op>(), geometry(1, 1, {0, 0, 0, 0}, 1, 1, 1));
      qp(lb, kOutput<Op>, f32_bits(18, 0), 0);
      b.add(flagged(
          make("bias 26345471 becomes 26345472 in float32: 101, not 100",
               {i8(In::x, {1, 1, 1, 1}, {0}), i8(In::w, {1, 1, 1, 1}, {0}), i32(In::bias, {1}, {26345471})}, lb),
          "large_bias"));
      auto edge = [&](const char* c, Dims x, Dims w, OJ g, bool invalid = false) {
        OJ a = merge_attributes(unit_attrs<Op>(), g);
        qp(a, kInput<Op>, f32_bits(-3, 0), 5);
        qp(a, kWeights<Op>, f32_bits(-2, 0), -3);
        qp(a, kBias<Op>, f32_bits(-5, 0), 0);
        qp(a, kOutput<Op>, f32_bits(1, 0), -2);
        b.add(make(c,
                   {rand_tensor(r, In::x, x, -128, 127, DType::I8), rand_tensor(r, In::w, w, -128, 127, DType::I8),
                    rand_tensor(r, In::bias, {w[0]}, -500, 500, DType::I32)},
                   a, invalid));
      };
      edge("1x1 input, 1x1 kernel", {1, 1, 1, 1}, {1, 1, 1, 1}, geometry(1, 1, {0, 0, 0, 0}, 1, 1, 1));
      edge("asymmetric pads (top 2, left 0, bottom 1, right 3)", {1, 3, 3, 2}, {2, 2, 2, 2},
           geometry(1, 1, {2, 0, 1, 3}, 1, 1, 1));
      edge("pads larger than the kernel (border windows see only padding)", {1, 2, 2, 1}, {1, 2, 2, 1},
           geometry(1, 1, {3, 3, 3, 3}, 1, 1, 1));
      edge("stride larger than the kernel", {1, 7, 7, 1}, {1, 2, 2, 1}, geometry(3, 4, {0, 0, 0, 0}, 1, 1, 1));
      edge("dilation 2 with pads", {1, 4, 5, 1}, {1, 2, 3, 1}, geometry(1, 1, {1, 2, 1, 0}, 2, 2, 1));
      edge("group 2", {1, 3, 3, 4}, {4, 2, 2, 2}, geometry(1, 1, {1, 1, 1, 1}, 1, 1, 2));
      edge("depthwise (group = C)", {1, 3, 3, 3}, {3, 2, 2, 1}, geometry(1, 1, {0, 1, 0, 1}, 1, 1, 3));
      edge("invalid: C not a multiple of group", {1, 3, 3, 3}, {2, 1, 1, 1}, geometry(1, 1, {0, 0, 0, 0}, 1, 1, 2),
           true);
      edge("invalid: filter depth * group != C", {1, 2, 2, 2}, {1, 1, 1, 1}, geometry(1, 1, {0, 0, 0, 0}, 1, 1, 1),
           true);
      edge("invalid: kernel larger than the padded input", {1, 2, 2, 1}, {1, 3, 3, 1},
           geometry(1, 1, {0, 0, 0, 0}, 1, 1, 1), true);
      edge("invalid: stride 0", {1, 2, 2, 1}, {1, 1, 1, 1}, geometry(0, 1, {0, 0, 0, 0}, 1, 1, 1), true);
      edge("invalid: negative pad", {1, 2, 2, 1}, {1, 1, 1, 1}, geometry(1, 1, {0, -1, 0, 0}, 1, 1, 1), true);
      edge("invalid: dilation 0", {1, 2, 2, 1}, {1, 1, 1, 1}, geometry(1, 1, {0, 0, 0, 0}, 1, 0, 1), true);
      edge("invalid: group 0", {1, 2, 2, 1}, {1, 1, 1, 1}, geometry(1, 1, {0, 0, 0, 0}, 1, 1, 0), true);
      b.add(make("invalid: bias length != O",
                 {i8(In::x, {1, 1, 1, 1}, {1}), i8(In::w, {1, 1, 1, 1}, {1}), i32(In::bias, {2}, {0, 0})},
                 merge_attributes(unit_attrs<Op>(), geometry(1, 1, {0, 0, 0, 0}, 1, 1, 1)), true));
      b.add(make("invalid: input rank 3",
                 {i8(In::x, {1, 1, 1}, {1}), i8(In::w, {1, 1, 1, 1}, {1}), i32(In::bias, {1}, {0})},
                 merge_attributes(unit_attrs<Op>(), geometry(1, 1, {0, 0, 0, 0}, 1, 1, 1)), true));
      b.add(make("invalid: three pads",
                 {i8(In::x, {1, 1, 1, 1}, {1}), i8(In::w, {1, 1, 1, 1}, {1}), i32(In::bias, {1}, {0})},
                 merge_attributes(unit_attrs<Op>(), geometry(1, 1, {0, 0, 0}, 1, 1, 1)), true));
      b.add_random(120, [&r] {
        const auto d = draw_types(r);
        Dims xs, ws;
        const OJ g = random_conv_geometry(r, xs, ws);
        // Attributes before tensors: GCC evaluated make's arguments right to left (the committed order).
        OJ a = merge_attributes(random_linear_attrs<Op>(r, d), g);
        Test t = make("random",
                      {rand_tensor(r, In::x, xs, d.lo, d.hi, d.elem), rand_tensor(r, In::w, ws, d.lo, d.hi, d.elem),
                       rand_bias(r, In::bias, ws[0], d.bias)},
                      std::move(a));
        if (d.elem == DType::I16) t.flags.push_back("int16");
        return t;
      });
      // NHWC input, OHWI filter; last, the direct depthwise layer (pads per side) with every
      // w - weights_offset in int8.
      for (int v = 0; v <= wide::kDirectDepthwise; ++v) {
        const bool direct = v == wide::kDirectDepthwise;
        const wide::Conv c = direct ? wide::draw_direct_depthwise(r, false) : wide::draw_conv(r, v);
        const OJ g = geometry(c.sh, c.sw, {c.ph, c.pw, c.pb, c.pr}, c.dh, c.dw, c.groups);
        OJ a = merge_attributes(wide_linear_attrs<Op>(r, c.kh * c.kw * (c.C / c.groups)).first, g);
        const auto [w_lo, w_hi] = wide::weight_range(direct, -128, 127, attr::get(a, Op::attr::weights_offset));
        b.add(wide_test(make("random",
                             {rand_tensor(r, In::x, {1, c.H, c.W, c.C}, -128, 127, DType::I8),
                              rand_tensor(r, In::w, {c.O, c.kh, c.kw, c.C / c.groups}, w_lo, w_hi, DType::I8),
                              rand_tensor(r, In::bias, {c.O}, -4096, 4096, DType::I32)},
                             std::move(a))));
      }
    }));

QSPEC_REGISTER_VECTOR_FAMILY(fam(
    cat::glow_rowwise_fully_connected::op, cat::glow_rowwise_fully_connected::conv::glow, 1203, kLinearNotes,
    [](Rng& r, Builder& b) {
      using Op = cat::glow_rowwise_fully_connected;
      using In = Op::in;
      auto scales = [](std::vector<std::uint32_t> v) {
        std::vector<std::int64_t> d;
        for (auto s : v) d.push_back(static_cast<std::int64_t>(s));
        return tensor_of(In::scales, DType::F32, {static_cast<std::int64_t>(v.size())}, d);
      };
      const OJ tie = tie_attrs<Op>();
      b.add(flagged(make("tie -0.5 with output offset 1: round(0.5) = 1 (offset first, as the Convolution)",
                         {i8(In::x, {1, 1}, {-1}), i8(In::w, {1, 1}, {1}), scales({f32_bits(0, 0)}),
                          i32(In::offsets, {1}, {0}), i32(In::bias, {1}, {0})},
                         tie),
                    "tie_offset"));
      OJ two = unit_attrs<Op>();
      qp(two, kInput<Op>, f32_bits(-2, 0), 3);
      qp(two, kOutput<Op>, f32_bits(-1, 0), -5);
      b.add(make("two rows with different scales and offsets (row offsets at the int8 ends)",
                 {i8(In::x, {2, 3}, {1, -2, 3, 127, -128, 0}), i8(In::w, {2, 3}, {10, -20, 30, -128, 127, 5}),
                  scales({f32_bits(-3, 0x400000), f32_bits(-6, 0)}), i32(In::offsets, {2}, {-128, 127}),
                  i32(In::bias, {2}, {100, -100})},
                 two));
      b.add(make("invalid: scales length != M",
                 {i8(In::x, {1, 1}, {1}), i8(In::w, {2, 1}, {1, 2}), scales({f32_bits(0, 0)}),
                  i32(In::offsets, {2}, {0, 0}), i32(In::bias, {2}, {0, 0})},
                 unit_attrs<Op>(), true));
      b.add(make("invalid: offsets length != M",
                 {i8(In::x, {1, 1}, {1}), i8(In::w, {1, 1}, {1}), scales({f32_bits(0, 0)}),
                  i32(In::offsets, {2}, {0, 0}), i32(In::bias, {1}, {0})},
                 unit_attrs<Op>(), true));
      b.add(make("invalid: weights columns != K",
                 {i8(In::x, {1, 2}, {1, 2}), i8(In::w, {1, 1}, {1}), scales({f32_bits(0, 0)}),
                  i32(In::offsets, {1}, {0}), i32(In::bias, {1}, {0})},
                 unit_attrs<Op>(), true));
      b.add(make("invalid: bias length != M",
                 {i8(In::x, {1, 1}, {1}), i8(In::w, {1, 1}, {1}), scales({f32_bits(0, 0)}), i32(In::offsets, {1}, {0}),
                  i32(In::bias, {2}, {0, 0})},
                 unit_attrs<Op>(), true));
      b.add_random(130, [&r, scales] {
        const auto d = draw_types(r);
        const std::int64_t n = r.uniform(1, 3), k = r.uniform(1, 12), m = r.uniform(1, 5);
        OJ a = random_linear_attrs<Op>(r, d);
        const int ex = exponent_of(attr::get(a, Op::attr::input_scale));
        std::vector<std::uint32_t> sc;
        std::vector<std::int64_t> off;
        for (std::int64_t i = 0; i < m; ++i) {
          sc.push_back(random_scale(r, -8, 1));
          off.push_back(r.uniform(d.lo, d.hi));
        }
        // Bias and output scales relative to the smallest row's matmul scale: the bias ratio stays
        // <= 1 and outputs spread over the range.
        int emin = 127;
        for (auto s : sc) emin = std::min(emin, exponent_of(s));
        // One draw per statement, offset before scale (GCC's right-to-left argument order).
        const std::int64_t bias_offset = d.bias == DType::I32 ? 0 : r.uniform(-8, 8);
        qp(a, kBias<Op>, random_scale(r, ex + emin - 2, ex + emin), bias_offset);
        const std::int64_t output_offset = r.uniform(d.lo / 2, d.hi / 2);
        qp(a, kOutput<Op>, random_scale(r, ex + emin + 3, ex + emin + 9), output_offset);
        Test t =
            make("random",
                 {rand_tensor(r, In::x, {n, k}, d.lo, d.hi, d.elem), rand_tensor(r, In::w, {m, k}, d.lo, d.hi, d.elem),
                  scales(sc), tensor_of(In::offsets, DType::I32, {m}, off), rand_bias(r, In::bias, m, d.bias)},
                 a);
        if (d.elem == DType::I16) t.flags.push_back("int16");
        return t;
      });
      for (int v = 0; v < wide::kDraws; ++v) {  // row scales of the weights' exponent, offsets near 0
        const wide::Fc f = wide::draw_fc(r, v);
        auto [a, ew] = wide_linear_attrs<Op>(r, f.k);
        std::vector<std::uint32_t> sc;
        std::vector<std::int64_t> off;
        for (std::int64_t i = 0; i < f.outputs; ++i) {
          sc.push_back(random_scale(r, ew, ew));
          off.push_back(r.uniform(-8, 8));
        }
        b.add(wide_test(
            make("random",
                 {rand_tensor(r, In::x, {f.rows, f.k}, -128, 127, DType::I8),
                  rand_tensor(r, In::w, {f.outputs, f.k}, -128, 127, DType::I8), scales(sc),
                  tensor_of(In::offsets, DType::I32, {f.outputs}, off), rand_bias(r, In::bias, f.outputs, DType::I32)},
                 a)));
      }
    }));

// ---- FusedRowwiseQuantizedSparseLengthsWeightedSum ------------------------------------------------

// A fused row: codes then the little-endian float32 scale and offset.
void push_fused_row(std::vector<std::int64_t>& data, const std::vector<std::int64_t>& codes, std::uint32_t scale,
                    std::uint32_t offset) {
  data.insert(data.end(), codes.begin(), codes.end());
  for (std::uint32_t v : {scale, offset})
    for (int i = 0; i < 4; ++i) data.push_back(static_cast<std::int64_t>((v >> (8 * i)) & 0xffu));
}
Tensor f32_tensor(std::string_view n, std::vector<std::uint32_t> v) {
  std::vector<std::int64_t> d;
  for (auto x : v) d.push_back(static_cast<std::int64_t>(x));
  return tensor_of(n, DType::F32, {static_cast<std::int64_t>(v.size())}, d);
}
std::uint32_t random_signed_float(Rng& r, int emin, int emax) {
  const std::uint32_t v = random_scale(r, emin, emax);
  return r.coin() ? v : v | 0x80000000u;
}

QSPEC_REGISTER_VECTOR_FAMILY(fam(
    cat::glow_fused_rowwise_sparse_lengths_weighted_sum::op,
    cat::glow_fused_rowwise_sparse_lengths_weighted_sum::conv::glow, 1204,
    {{"glow_unit_test",
      "the example of Glow's FusedRowwiseQuantizedSparseLengthsWeightedSum tests: one-column rows "
      "quantize exactly (scale 1, offset = the value), so the outputs are exact"},
     {"order", "the float32 sum depends on the order of the positions (cancellation)"},
     {"empty_segment", "a segment of length 0 gives +0"},
     {"unused_indices", "sum(lengths) < len(indices): the trailing positions are not read"}},
    [](Rng& r, Builder& b) {
      using Op = cat::glow_fused_rowwise_sparse_lengths_weighted_sum;
      using In = Op::in;
      const std::uint32_t one = f32_bits(0, 0);
      // DATA [[2.0], [-0.5], [13]], WEIGHTS [3, 1, 0, 0, 0, 0, 2, -0.5], INDICES [1, 0, 2, 0, 1, 2, 2, 0],
      // LENGTHS [3, 0, 3, 2] -> [0.5, 0, 0, 25].
      std::vector<std::int64_t> data;
      push_fused_row(data, {0}, one, f32_bits(1, 0));                 // 2.0
      push_fused_row(data, {0}, one, f32_bits(-1, 0) | 0x80000000u);  // -0.5
      push_fused_row(data, {0}, one, f32_bits(3, 0x500000));          // 13.0
      b.add(flagged(make("Glow unit-test example: outputs 0.5, 0, 0, 25",
                         {tensor_of(In::data, DType::U8, {3, 9}, data),
                          f32_tensor(In::weights, {f32_bits(1, 0x400000), one, 0, 0, 0, 0, f32_bits(1, 0),
                                                   f32_bits(-1, 0) | 0x80000000u}),
                          tensor_of(In::indices, DType::I64, {8}, {1, 0, 2, 0, 1, 2, 2, 0}),
                          tensor_of(In::lengths, DType::I32, {4}, {3, 0, 3, 2})},
                         OJ::object()),
                    "glow_unit_test"));
      // Rows 2^24, 1, -2^24 (exact one-column rows): (2^24 + 1) - 2^24 = 0 but (2^24 - 2^24) + 1 = 1.
      std::vector<std::int64_t> cancel;
      push_fused_row(cancel, {0}, one, f32_bits(24, 0));
      push_fused_row(cancel, {0}, one, one);
      push_fused_row(cancel, {0}, one, f32_bits(24, 0) | 0x80000000u);
      b.add(flagged(
          make("order matters: 2^24 + 1 - 2^24 = 0, 2^24 - 2^24 + 1 = 1",
               {tensor_of(In::data, DType::U8, {3, 9}, cancel), f32_tensor(In::weights, {one, one, one, one, one, one}),
                tensor_of(In::indices, DType::I32, {6}, {0, 1, 2, 0, 2, 1}),
                tensor_of(In::lengths, DType::I32, {2}, {3, 3})},
               OJ::object()),
          "order"));
      std::vector<std::int64_t> small;
      push_fused_row(small, {0, 255, 17}, f32_bits(-4, 0), f32_bits(-1, 0) | 0x80000000u);
      b.add(flagged(
          make("empty segments only",
               {tensor_of(In::data, DType::U8, {1, 11}, small), f32_tensor(In::weights, {one}),
                tensor_of(In::indices, DType::I32, {1}, {0}), tensor_of(In::lengths, DType::I32, {3}, {0, 0, 0})},
               OJ::object()),
          "empty_segment"));
      b.add(flagged(
          make("sum(lengths) < len(indices)",
               {tensor_of(In::data, DType::U8, {1, 11}, small), f32_tensor(In::weights, {one, one, one}),
                tensor_of(In::indices, DType::I32, {3}, {0, 0, 0}), tensor_of(In::lengths, DType::I32, {1}, {2})},
               OJ::object()),
          "unused_indices"));
      b.add(make("invalid: data has 8 columns (no codes)",
                 {tensor_of(In::data, DType::U8, {1, 8}, {0, 0, 128, 63, 0, 0, 0, 0}), f32_tensor(In::weights, {one}),
                  tensor_of(In::indices, DType::I32, {1}, {0}), tensor_of(In::lengths, DType::I32, {1}, {1})},
                 OJ::object(), true));
      b.add(make("invalid: weights and indices lengths differ",
                 {tensor_of(In::data, DType::U8, {1, 11}, small), f32_tensor(In::weights, {one, one}),
                  tensor_of(In::indices, DType::I32, {1}, {0}), tensor_of(In::lengths, DType::I32, {1}, {1})},
                 OJ::object(), true));
      b.add(make("invalid: negative length",
                 {tensor_of(In::data, DType::U8, {1, 11}, small), f32_tensor(In::weights, {one}),
                  tensor_of(In::indices, DType::I32, {1}, {0}), tensor_of(In::lengths, DType::I32, {2}, {2, -1})},
                 OJ::object(), true));
      b.add(make("invalid: sum(lengths) > len(indices)",
                 {tensor_of(In::data, DType::U8, {1, 11}, small), f32_tensor(In::weights, {one}),
                  tensor_of(In::indices, DType::I32, {1}, {0}), tensor_of(In::lengths, DType::I32, {1}, {2})},
                 OJ::object(), true));
      b.add(make("invalid: lengths rank 2",
                 {tensor_of(In::data, DType::U8, {1, 11}, small), f32_tensor(In::weights, {one}),
                  tensor_of(In::indices, DType::I32, {1}, {0}), tensor_of(In::lengths, DType::I32, {1, 1}, {1})},
                 OJ::object(), true));
      b.add(
          make("invalid: int8 data",
               {tensor_of(In::data, DType::I8, {1, 9}, {0, 0, 0, -128, 63, 0, 0, 0, 0}), f32_tensor(In::weights, {one}),
                tensor_of(In::indices, DType::I32, {1}, {0}), tensor_of(In::lengths, DType::I32, {1}, {1})},
               OJ::object(), true));
      b.add_random(130, [&r] {
        const std::int64_t rows = r.uniform(1, 6), cols = r.uniform(1, 6), segs = r.uniform(1, 4);
        std::vector<std::int64_t> data;
        for (std::int64_t i = 0; i < rows; ++i) {
          std::vector<std::int64_t> codes;
          for (std::int64_t c = 0; c < cols; ++c) codes.push_back(r.uniform(0, 255));
          const std::uint32_t offset = random_signed_float(r, -6, 4);  // drawn first, as GCC did
          push_fused_row(data, codes, random_scale(r, -10, 0), offset);
        }
        std::vector<std::int64_t> lengths, indices;
        std::int64_t total = 0;
        for (std::int64_t s = 0; s < segs; ++s) {
          lengths.push_back(r.uniform(0, 4));
          total += lengths.back();
        }
        const std::int64_t extra = r.uniform(0, 3) == 0 ? r.uniform(1, 2) : 0;
        std::vector<std::uint32_t> weights;
        for (std::int64_t j = 0; j < total + extra; ++j) {
          indices.push_back(r.uniform(0, rows - 1));
          const auto k = r.uniform(0, 5);
          weights.push_back(k == 0 ? f32_bits(0, 0) : k == 1 ? 0u : random_signed_float(r, -4, 3));
        }
        Test t = make("random",
                      {tensor_of(In::data, DType::U8, {rows, cols + 8}, data), f32_tensor(In::weights, weights),
                       tensor_of(In::indices, r.coin() ? DType::I64 : DType::I32, {total + extra}, indices),
                       tensor_of(In::lengths, DType::I32, {segs}, lengths)},
                      OJ::object());
        if (extra) t.flags.push_back("unused_indices");
        if (std::find(lengths.begin(), lengths.end(), 0) != lengths.end()) t.flags.push_back("empty_segment");
        return t;
      });
    }));

// ---- RescaleQuantized ----------------------------------------------------------------------------

std::function<void(Rng&, Builder&)> rescale_family() {
  return [](Rng& r, Builder& b) {
    using Op = cat::glow_rescale;
    using In = Op::in;
    auto attrs = [](std::uint32_t si, std::int64_t oi, std::uint32_t so, std::int64_t oo) {
      OJ a = OJ::object();
      qp(a, kInput<Op>, si, oi);
      qp(a, kOutput<Op>, so, oo);
      return a;
    };
    Tensor all{std::string(In::x), DType::I8, {16, 16}, {}};
    for (int v = -128; v < 128; ++v) all.data.push_back(v);
    b.add(make("identity parameters: every code", {all}, attrs(f32_bits(-4, 0), 3, f32_bits(-4, 0), 3)));
    b.add(make("scale ratio 2, offsets at both ends: every code", {all},
               attrs(f32_bits(-3, 0), -128, f32_bits(-4, 0), 127)));
    b.add(make("scale ratio 1/3: every code", {all}, attrs(dyadic(1, 4), 0, dyadic(3, 4), 0)));
    b.add(flagged(make("saturation both ends", {i8(In::x, {4}, {-128, -100, 100, 127})},
                       attrs(f32_bits(0, 0), 0, f32_bits(-3, 0), 0)),
                  "saturation"));
    b.add(make("rank 0 input", {i8(In::x, {}, {-7})}, attrs(f32_bits(-2, 0x123456), 5, f32_bits(-3, 0x654321), -9)));
    b.add(make("invalid: int16 input", {tensor_of(In::x, DType::I16, {2}, {1, 2})},
               attrs(f32_bits(0, 0), 0, f32_bits(0, 0), 0), true));
    b.add_random(120, [&r, attrs] {
      Dims s;
      for (std::int64_t k = 0, rank = r.uniform(1, 4); k < rank; ++k) s.push_back(r.uniform(1, 4));
      const std::uint32_t si = random_scale(r, -10, 0);
      const std::uint32_t so = random_scale(r, exponent_of(si) - 6, exponent_of(si) + 6);
      // One draw per statement, in the order GCC evaluated make's and attrs' arguments (right to
      // left), which the committed vectors hold.
      const std::int64_t out_offset = r.uniform(-128, 127);
      const std::int64_t in_offset = r.uniform(-128, 127);
      const OJ a = attrs(si, in_offset, so, out_offset);
      return make("random", {rand_tensor(r, In::x, s, -128, 127, DType::I8)}, a);
    });
  };
}
const std::vector<std::pair<std::string, std::string>> kRescaleNotes = {
    {"saturation", "the output clips at -128 or 127"}};

QSPEC_REGISTER_VECTOR_FAMILY(fam(cat::glow_rescale::op, cat::glow_rescale::conv::glow, 1205, kRescaleNotes,
                                 rescale_family()));
QSPEC_REGISTER_VECTOR_FAMILY(fam(cat::glow_rescale::op, cat::glow_rescale::conv::glow_cpu, 1206, kRescaleNotes,
                                 rescale_family()));

// ---- Operators that keep the input's parameters ------------------------------------------------

// Input parameters and different requested output parameters (which Glow ignores).
template <class Op>
OJ keep_attrs(Rng& r) {
  OJ a = OJ::object();
  // One draw per statement, offset before scale (GCC's right-to-left argument order).
  const std::int64_t in_offset = r.uniform(-128, 127);
  qp(a, kInput<Op>, random_scale(r, -8, 2), in_offset);
  const std::int64_t out_offset = r.uniform(-128, 127);
  qp(a, kOutput<Op>, random_scale(r, -8, 2), out_offset);
  return a;
}
// Slice's start and size.
template <class Op>
OJ box(const Dims& start, const Dims& size) {
  OJ a = OJ::object();
  attr::set(a, Op::attr::start, start);
  attr::set(a, Op::attr::size, size);
  return a;
}
Dims random_shape(Rng& r, std::int64_t rmin, std::int64_t rmax, std::int64_t dmax) {
  Dims s;
  for (std::int64_t k = 0, rank = r.uniform(rmin, rmax); k < rank; ++k) s.push_back(r.uniform(1, dmax));
  return s;
}
// Whether some pooling window along one axis (size n, kernel k, stride st, pads lo/hi) misses the input.
bool has_empty_window(std::int64_t n, std::int64_t k, std::int64_t st, std::int64_t lo, std::int64_t hi) {
  for (std::int64_t p = 0; p < (n + lo + hi - k) / st + 1; ++p) {
    const std::int64_t first = p * st - lo, last = first + k - 1;
    if (last < 0 || first >= n) return true;
  }
  return false;
}
const std::vector<std::pair<std::string, std::string>> kKeepNotes = {
    {"empty_window", "a MaxPool window lies entirely in the padding: the output is the offset (real 0)"},
    {"ties", "equal codes: TopK orders them by ascending position"}};

QSPEC_REGISTER_VECTOR_FAMILY(fam(cat::glow_reshape::op, cat::glow_reshape::conv::glow, 1207, kKeepNotes,
                                 [](Rng& r, Builder& b) {
                                   using Op = cat::glow_reshape;
                                   using In = Op::in;
                                   b.add(make("invalid: sizes differ", {i8(In::x, {2, 3}, {1, 2, 3, 4, 5, 6})},
                                              merge_attributes(keep_attrs<Op>(r), one(Op::attr::shape, {4})), true));
                                   b.add(make("invalid: zero entry", {i8(In::x, {1}, {1})},
                                              merge_attributes(keep_attrs<Op>(r), one(Op::attr::shape, {1, 0})), true));
                                   b.add_random(110, [&r] {
                                     const Dims s = random_shape(r, 1, 4, 4);
                                     Dims t = {numel(s)};
                                     // split the element count into random factors
                                     while (r.coin()) {
                                       const std::int64_t last = t.back();
                                       std::vector<std::int64_t> divs;
                                       for (std::int64_t d = 1; d <= last; ++d)
                                         if (last % d == 0) divs.push_back(d);
                                       const std::int64_t d = r.pick(divs);
                                       t.back() = d;
                                       t.push_back(last / d);
                                     }
                                     // Attributes before tensors: GCC evaluated make's arguments right to left (the
                                     // committed order).
                                     OJ a = merge_attributes(keep_attrs<Op>(r), one(Op::attr::shape, t));
                                     return make("random", {rand_tensor(r, In::x, s, -128, 127, DType::I8)},
                                                 std::move(a));
                                   });
                                 }));

QSPEC_REGISTER_VECTOR_FAMILY(fam(cat::glow_slice::op, cat::glow_slice::conv::glow, 1208, kKeepNotes,
                                 [](Rng& r, Builder& b) {
                                   using Op = cat::glow_slice;
                                   using In = Op::in;
                                   b.add(make("invalid: start + size > dim", {i8(In::x, {3}, {1, 2, 3})},
                                              merge_attributes(keep_attrs<Op>(r), box<Op>({2}, {2})), true));
                                   b.add(make("invalid: negative start", {i8(In::x, {3}, {1, 2, 3})},
                                              merge_attributes(keep_attrs<Op>(r), box<Op>({-1}, {1})), true));
                                   b.add(make("invalid: size 0", {i8(In::x, {3}, {1, 2, 3})},
                                              merge_attributes(keep_attrs<Op>(r), box<Op>({0}, {0})), true));
                                   b.add(make("invalid: one entry for a rank-2 input", {i8(In::x, {1, 2}, {1, 2})},
                                              merge_attributes(keep_attrs<Op>(r), box<Op>({0}, {1})), true));
                                   b.add_random(110, [&r] {
                                     const Dims s = random_shape(r, 1, 4, 5);
                                     Dims start, size;
                                     for (auto d : s) {
                                       start.push_back(r.uniform(0, d - 1));
                                       size.push_back(r.uniform(1, d - start.back()));
                                     }
                                     // Attributes before tensors: GCC evaluated make's arguments right to left (the
                                     // committed order).
                                     OJ a = merge_attributes(keep_attrs<Op>(r), box<Op>(start, size));
                                     return make("random", {rand_tensor(r, In::x, s, -128, 127, DType::I8)},
                                                 std::move(a));
                                   });
                                 }));

QSPEC_REGISTER_VECTOR_FAMILY(
    fam(cat::glow_gather::op, cat::glow_gather::conv::glow, 1209, kKeepNotes, [](Rng& r, Builder& b) {
      using Op = cat::glow_gather;
      using In = Op::in;
      b.add(make("invalid: batch_dims = rank", {i8(In::x, {2}, {1, 2}), i32(In::indices, {1}, {0})},
                 merge_attributes(keep_attrs<Op>(r), one(Op::attr::batch_dims, 1)), true));
      b.add(make("invalid: negative batch_dims", {i8(In::x, {2}, {1, 2}), i32(In::indices, {1}, {0})},
                 merge_attributes(keep_attrs<Op>(r), one(Op::attr::batch_dims, -1)), true));
      b.add(make("invalid: float indices", {i8(In::x, {2}, {1, 2}), f32_tensor(In::indices, {0})}, keep_attrs<Op>(r),
                 true));
      b.add(make("repeated indices, rank-0 indices tensor",
                 {i8(In::x, {3, 2}, {1, 2, 3, 4, 5, 6}), tensor_of(In::indices, DType::I64, {}, {2})},
                 keep_attrs<Op>(r)));
      b.add_random(110, [&r] {
        const Dims s = random_shape(r, 1, 3, 4);
        const std::int64_t bd = r.uniform(0, static_cast<std::int64_t>(s.size()) - 1);
        const Dims is = random_shape(r, 0, 2, 3);
        Tensor idx =
            rand_tensor(r, In::indices, is, 0, s[static_cast<std::size_t>(bd)] - 1, r.coin() ? DType::I32 : DType::I64);
        // Attributes before tensors: GCC evaluated make's arguments right to left (the committed order).
        OJ a = merge_attributes(keep_attrs<Op>(r), one(Op::attr::batch_dims, bd));
        return make("random", {rand_tensor(r, In::x, s, -128, 127, DType::I8), idx}, std::move(a));
      });
    }));

QSPEC_REGISTER_VECTOR_FAMILY(
    fam(cat::glow_topk::op, cat::glow_topk::conv::glow, 1210, kKeepNotes, [](Rng& r, Builder& b) {
      using Op = cat::glow_topk;
      using In = Op::in;
      b.add(flagged(make("all equal: positions ascending", {i8(In::x, {5}, {3, 3, 3, 3, 3})},
                         merge_attributes(keep_attrs<Op>(r), one(Op::attr::k, 3))),
                    "ties"));
      b.add(flagged(make("ties between -128 and 127", {i8(In::x, {2, 4}, {127, -128, 127, -128, -128, -128, 0, 127})},
                         merge_attributes(keep_attrs<Op>(r), one(Op::attr::k, 4))),
                    "ties"));
      b.add(make("invalid: k > last dim", {i8(In::x, {2}, {1, 2})},
                 merge_attributes(keep_attrs<Op>(r), one(Op::attr::k, 3)), true));
      b.add(make("invalid: k = 0", {i8(In::x, {2}, {1, 2})}, merge_attributes(keep_attrs<Op>(r), one(Op::attr::k, 0)),
                 true));
      b.add(make("invalid: rank 0", {i8(In::x, {}, {1})}, merge_attributes(keep_attrs<Op>(r), one(Op::attr::k, 1)),
                 true));
      b.add_random(110, [&r] {
        const Dims s = random_shape(r, 1, 3, 6);
        const bool ties = r.coin();
        // k, then the attributes, then the tensor: GCC's right-to-left order for make's and
        // merge_attributes' arguments (the committed order).
        const std::int64_t k = r.uniform(1, s.back());
        OJ a = merge_attributes(keep_attrs<Op>(r), one(Op::attr::k, k));
        Test t = make("random", {rand_tensor(r, In::x, s, ties ? -3 : -128, ties ? 3 : 127, DType::I8)}, std::move(a));
        if (ties) t.flags.push_back("ties");
        return t;
      });
    }));

QSPEC_REGISTER_VECTOR_FAMILY(
    fam(cat::glow_max_pool::op, cat::glow_max_pool::conv::glow, 1211, kKeepNotes, [](Rng& r, Builder& b) {
      using Op = cat::glow_max_pool;
      using In = Op::in;
      auto pool = [](std::int64_t kh, std::int64_t kw, std::int64_t sh, std::int64_t sw,
                     std::vector<std::int64_t> pads) {
        OJ a = OJ::object();
        attr::set(a, Op::attr::kernels, {kh, kw});
        attr::set(a, Op::attr::strides, {sh, sw});
        attr::set(a, Op::attr::pads, pads);
        return a;
      };
      {
        // Attributes before tensors: GCC evaluated make's arguments right to left (the committed order).
        OJ a = merge_attributes(keep_attrs<Op>(r), pool(2, 2, 1, 1, {3, 3, 3, 3}));
        b.add(flagged(make("pads larger than the kernel: corner windows give the offset",
                           {rand_tensor(r, In::x, {1, 2, 2, 1}, -128, -100, DType::I8)}, std::move(a)),
                      "empty_window"));
      }
      b.add(make("all -128", {i8(In::x, {1, 2, 2, 1}, {-128, -128, -128, -128})},
                 merge_attributes(keep_attrs<Op>(r), pool(2, 2, 1, 1, {0, 0, 0, 0}))));
      b.add(make("invalid: kernel larger than the padded input", {i8(In::x, {1, 2, 2, 1}, {1, 2, 3, 4})},
                 merge_attributes(keep_attrs<Op>(r), pool(3, 1, 1, 1, {0, 0, 0, 0})), true));
      b.add(make("invalid: stride 0", {i8(In::x, {1, 2, 2, 1}, {1, 2, 3, 4})},
                 merge_attributes(keep_attrs<Op>(r), pool(1, 1, 0, 1, {0, 0, 0, 0})), true));
      b.add(make("invalid: negative pad", {i8(In::x, {1, 2, 2, 1}, {1, 2, 3, 4})},
                 merge_attributes(keep_attrs<Op>(r), pool(1, 1, 1, 1, {0, 0, -1, 0})), true));
      b.add(make("invalid: rank 3", {i8(In::x, {2, 2, 1}, {1, 2, 3, 4})},
                 merge_attributes(keep_attrs<Op>(r), pool(1, 1, 1, 1, {0, 0, 0, 0})), true));
      b.add_random(110, [&r, pool] {
        const std::int64_t kh = r.uniform(1, 3), kw = r.uniform(1, 3);
        std::vector<std::int64_t> pads = {r.uniform(0, 3), r.uniform(0, 3), r.uniform(0, 3), r.uniform(0, 3)};
        const Dims s{r.uniform(1, 2), std::max<std::int64_t>(1, kh - pads[0] - pads[2]) + r.uniform(0, 3),
                     std::max<std::int64_t>(1, kw - pads[1] - pads[3]) + r.uniform(0, 3), r.uniform(1, 3)};
        const std::int64_t sh = r.uniform(1, 3), sw = r.uniform(1, 3);
        // Attributes before tensors: GCC evaluated make's arguments right to left (the committed order).
        OJ a = merge_attributes(keep_attrs<Op>(r), pool(kh, kw, sh, sw, pads));
        Test t = make("random", {rand_tensor(r, In::x, s, -128, 127, DType::I8)}, std::move(a));
        if (has_empty_window(s[1], kh, sh, pads[0], pads[2]) || has_empty_window(s[2], kw, sw, pads[1], pads[3]))
          t.flags.push_back("empty_window");
        return t;
      });
    }));

}  // namespace
}  // namespace qspec::vecgen
