// Vector families of the engines' quantized operators (spec/operators_qlinear.md): ops/qlinear/<op>/<convention>.json.
//
// Inputs only; expected outputs come from the reference ops (reference/ops/ops_qlinear.cc). Each
// family mixes hand cases (each named by its comment), tie-rich draws (qspec/vecgen/ties.h: every
// output channel's weights and bias are multiples of 2^u and its scale is m 2^-(u+1), so about half
// of the outputs are exact ties k + 1/2), realistic random draws, saturating draws and the
// parameters each engine rejects (invalid tests). The flags of a valid test are computed from what
// the reference says about it (its accumulators, scales and outputs), so a flag is never claimed
// by hand. Ops, tensors and attributes are named through the catalogue's typed keys.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "qspec/catalogue/keys.h"
#include "qspec/core/attr.h"
#include "qspec/core/qlinear_keys.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear.h"
#include "qspec/ref/ops/qlinear_armnn.h"
#include "qspec/ref/rounding.h"
#include "qspec/ref/tflite_tosa.h"
#include "qspec/refops.h"
#include "qspec/refops/qlinear_convention.h"
#include "qspec/vecgen.h"
#include "qspec/vecgen/classify.h"
#include "qspec/vecgen/qlinear_tensors.h"
#include "qspec/vecgen/ties.h"

namespace qspec::vecgen {
namespace {

using qlinear::array_of;
using qlinear::hi_of;
using qlinear::lo_of;
using qlinear::tensor_of;

namespace ro = qspec::ref::ops;
using OJ = nlohmann::ordered_json;
using ref::Int;
using ro::IntArray;
using ro::QLinearConvention;
using Dims = std::vector<std::int64_t>;

enum class OpKind { Conv, Fc, Matmul };

// One test as the generator thinks of it: typed tensors and parameters.
struct Problem {
  OpKind kind = OpKind::Conv;
  ro::QLinearParams p;
  IntArray x, w;
  std::optional<IntArray> b;
  ro::QConvGeometry g;
  bool write_geometry = true;      // conv: write strides/dilations/pads/groups (else: the defaults)
  bool write_w_zero_point = true;  // w_zero_point is optional (default 0)
  bool drawn = false;              // a random draw (flag "random")
  bool wide = false;               // shapes of draw_wide_*_shapes (flag "wide")
};

// ---- writing a Problem as a Test ----

const QLinearKeys& keys(OpKind k) {
  return k == OpKind::Conv ? qlinear_keys<cat::qlinear_conv2d::attr>
         : k == OpKind::Fc ? qlinear_keys<cat::qlinear_fully_connected::attr>
                           : qlinear_matmul_keys;
}

// Attributes are written unchecked where a generator deliberately writes a value the clause rejects.
template <class Key>
void put(OJ& a, const Key& key, const Int& v) {
  attr::set_unchecked(a, key, static_cast<std::int64_t>(v));
}

Test to_test(const Problem& pr, std::string comment, bool invalid = false) {
  Test t;
  t.comment = std::move(comment);
  t.invalid = invalid;
  const auto& p = pr.p;
  const QLinearKeys& k = keys(pr.kind);
  OJ a = OJ::object();
  attr::set(a, k.x_scale, p.x_scale);
  put(a, k.x_zero_point, p.x_zero_point);
  attr::set(a, k.w_scales, p.w_scales);
  if (pr.write_w_zero_point || p.w_zero_point != 0) put(a, k.w_zero_point, p.w_zero_point);
  attr::set(a, k.y_scale, p.y_scale);
  put(a, k.y_zero_point, p.y_zero_point);
  if (p.y_min) put(a, k.y_min, *p.y_min);
  if (p.y_max) put(a, k.y_max, *p.y_max);
  if (pr.kind == OpKind::Conv && pr.write_geometry) {
    using A = cat::qlinear_conv2d::attr;
    attr::set_unchecked(a, A::strides, Dims{pr.g.strides[0], pr.g.strides[1]});
    attr::set_unchecked(a, A::dilations, Dims{pr.g.dilations[0], pr.g.dilations[1]});
    attr::set_unchecked(a, A::pads, Dims(pr.g.pads.begin(), pr.g.pads.end()));
    attr::set_unchecked(a, A::groups, pr.g.groups);
  }
  t.attributes = std::move(a);
  if (pr.kind == OpKind::Matmul) {
    using In = cat::qlinear_matmul::in;
    t.inputs = {tensor_of(In::a, p.x_type, pr.x), tensor_of(In::b, p.w_type, pr.w)};
  } else {
    using In = cat::qlinear_conv2d::in;  // the same names for fully_connected
    t.inputs = {tensor_of(In::x, p.x_type, pr.x), tensor_of(In::w, p.w_type, pr.w)};
    if (pr.b) t.inputs.push_back(tensor_of(In::b, DType::I32, *pr.b));
  }
  return t;
}

// ---- what the reference says about a valid Problem (for its flags) ----

struct Analysis {
  IntArray acc;
  std::vector<std::uint32_t> scales;                  // S_o per output channel (the binary32 conventions)
  std::vector<ref::QuantizedMultiplier> multipliers;  // (M_o, shift_o) per output channel (TFLite)
  int ties = 0, negative_ties = 0;
  int double_single_differ = 0;  // outputs where TFLite's double and single rounding differ
  int float_sum_differs = 0;     // armnn.cpuref: outputs where the float sums change the rounded result
};

bool is_pytorch(QLinearConvention c) { return c == QLinearConvention::PytorchQnnpack; }
// PyTorch's onednn engine: quint8 activations only, weights of zero point 0, oneDNN's epilogue.
bool is_pytorch_onednn(QLinearConvention c) { return c == QLinearConvention::PytorchOnednn; }

ro::QLinearOp op_of(OpKind k) {
  return k == OpKind::Conv ? ro::QLinearOp::Conv2d
         : k == OpKind::Fc ? ro::QLinearOp::FullyConnected
                           : ro::QLinearOp::Matmul;
}

// The exact accumulators (bias included) of a valid Problem.
IntArray accumulators(const Problem& pr, QLinearConvention c) {
  const auto* bias = pr.b ? &*pr.b : nullptr;
  if (pr.kind == OpKind::Conv) {
    const auto [oh, ow] = ro::qlinear_conv2d_out_size(pr.x.shape, pr.w.shape, pr.g, c);
    return ro::qlinear_acc_conv2d(pr.x, pr.w, bias, pr.g, pr.p.x_zero_point, pr.p.w_zero_point, oh, ow);
  }
  if (pr.kind == OpKind::Fc)
    return ro::qlinear_acc_fully_connected(pr.x, pr.w, bias, pr.p.x_zero_point, pr.p.w_zero_point);
  return ro::qlinear_acc_matmul(pr.x, pr.w, pr.p.x_zero_point, pr.p.w_zero_point);
}

Analysis analyse(const Problem& pr, QLinearConvention c) {
  Analysis an;
  const auto* bias = pr.b ? &*pr.b : nullptr;
  an.acc = accumulators(pr, c);
  const auto channels = static_cast<std::size_t>(an.acc.shape.back());
  if (c == QLinearConvention::ArmnnCpuref) {  // ties of fl32(sum / s_y); the exact result rounded half away
    const auto sums = pr.kind == OpKind::Conv ? ro::armnn_conv2d_sums(pr.x, pr.w, bias, pr.g, pr.p)
                                              : ro::armnn_fully_connected_sums(pr.x, pr.w, bias, pr.p);
    const ref::Rat exact_scale =
        ref::f32_value(pr.p.x_scale) * ref::f32_value(pr.p.w_scales[0]) / ref::f32_value(pr.p.y_scale);
    for (std::size_t i = 0; i < sums.sums.size(); ++i) {
      const ref::Rat v = ref::f32_value(ref::f32_div(sums.sums[i], pr.p.y_scale));
      if (ref::denominator(v) == 2) {
        ++an.ties;
        an.negative_ties += v < 0 ? 1 : 0;
      }
      const Int want =
          ref::saturate(ref::round_half_away(an.acc.data[i] * exact_scale) + pr.p.y_zero_point, pr.p.x_type);
      const Int got = ro::armnn_quantize(sums.sums[i], pr.p.y_scale, pr.p.y_zero_point, pr.p.x_type);
      an.float_sum_differs += got != want ? 1 : 0;
    }
    return an;
  }
  if (c == QLinearConvention::Tosa) {  // TOSA's right shift s: the multiplier M 2^-s
    an.multipliers = ro::qlinear_tosa_multipliers(pr.p, an.acc.shape.back());
    for (std::size_t i = 0; i < an.acc.data.size(); ++i) {
      const auto& m = an.multipliers[i % channels];
      if (ties::q31_product_is_tie(an.acc.data[i], m.multiplier, 31 - m.shift)) {
        ++an.ties;
        an.negative_ties += an.acc.data[i] < 0 ? 1 : 0;
      }
    }
    return an;
  }
  if (ro::qlinear_is_tflite(c)) {
    an.multipliers = ro::qlinear_tflite_multipliers(pr.p, an.acc.shape.back(), op_of(pr.kind),
                                                    c == QLinearConvention::TfliteSingleRound);
    for (std::size_t i = 0; i < an.acc.data.size(); ++i) {
      const auto& m = an.multipliers[i % channels];
      const Int& a = an.acc.data[i];
      if (ties::q31_product_is_tie(a, m.multiplier, m.shift)) {
        ++an.ties;
        an.negative_ties += a < 0 ? 1 : 0;
      }
      an.double_single_differ += ref::double_round_minus_single_round(a, m.multiplier, m.shift) != 0 ? 1 : 0;
    }
    return an;
  }
  an.scales = is_pytorch(c) ? ro::qlinear_pytorch_qnnpack_scales(pr.p, an.acc.shape.back(), op_of(pr.kind))
                            : ro::qlinear_scales(pr.p, an.acc.shape.back(), c);
  for (std::size_t i = 0; i < an.acc.data.size(); ++i)
    an.ties += ties::fp32_product_is_tie(an.acc.data[i], an.scales[i % channels]) ? 1 : 0;
  return an;
}

bool is_onednn(QLinearConvention c);
bool fits_dtype(const Int& v, DType t) { return v >= lo_of(t) && v <= hi_of(t); }

int exponent_of(std::uint32_t bits) { return static_cast<int>((bits >> 23) & 0xffu) - 127; }

std::vector<std::string> auto_flags(const Problem& pr, QLinearConvention c, const Analysis& an, const Tensor& y) {
  std::set<std::string> f;
  const auto& p = pr.p;
  if (an.ties > 0) f.insert(p.w_scales.size() > 1 ? "tie_per_channel" : "tie");
  if (an.negative_ties > 0) f.insert("negative_tie");
  if (an.double_single_differ > 0 && c == QLinearConvention::TfliteDoubleRound) f.insert("double_round_differs");
  if (an.float_sum_differs > 0) f.insert("float_sum_differs");
  const bool q31 = ro::qlinear_is_tflite(c) || c == QLinearConvention::Tosa;
  if ((q31 || is_onednn(c)) && p.w_type == DType::I8 && p.w_zero_point != 0) f.insert("w_zero_point");
  if (is_onednn(c)) {
    if (!fits_dtype(p.x_zero_point, p.x_type) || !fits_dtype(p.y_zero_point, p.x_type)) f.insert("wide_zero_point");
    if (pr.b) {  // oneDNN adds the bias in float: fl32(fl32(acc) + fl32(b)) != fl32(acc + b) somewhere
      const auto channels = static_cast<std::size_t>(an.acc.shape.back());
      for (std::size_t i = 0; i < an.acc.data.size(); ++i) {
        const Int& b = pr.b->data[i % channels];
        if (ref::f32_add(ref::f32_from_int(an.acc.data[i] - b), ref::f32_from_int(b)) !=
            ref::f32_from_int(an.acc.data[i]))
          f.insert("float_bias");
      }
    }
  }
  const std::int64_t tmin = lo_of(p.x_type), tmax = hi_of(p.x_type);
  const bool narrowed = (p.y_min && *p.y_min > tmin) || (p.y_max && *p.y_max < tmax);
  for (auto v : y.data) {
    if (narrowed && ((p.y_min && v == *p.y_min) || (p.y_max && v == *p.y_max))) f.insert("narrow_clamp");
    if (!narrowed && v == tmin) f.insert("saturate_low");
    if (!narrowed && v == tmax) f.insert("saturate_high");
  }
  std::set<int> exps;
  for (auto s : p.w_scales) exps.insert(exponent_of(s));
  if (exps.size() > 1) f.insert("per_channel_exponents");
  if (p.x_type == DType::U8) f.insert(p.w_type == DType::U8 ? "uint8" : "uint8_int8");
  if (pr.kind != OpKind::Matmul && !pr.b) f.insert("no_bias");
  for (const auto& v : an.acc.data)
    if (v > Int(1 << 24) || v < -Int(1 << 24)) f.insert("large_acc");
  for (auto s : an.scales) {
    if (ref::f32_value(s) >= 256) f.insert("large_scale");
    if (ref::f32_value(s) < ref::pow2r(-32)) f.insert("small_scale");
  }
  if (pr.kind == OpKind::Conv) {
    const auto& g = pr.g;
    const std::int64_t C = pr.x.dim(3), O = pr.w.dim(0);
    if (g.groups == C && O > C) f.insert("depthwise_multiplier");
    if (g.groups > 1 && g.groups < C) f.insert("groups");
    if (g.dilations[0] > 1 || g.dilations[1] > 1) f.insert("dilation");
    if (g.strides[0] > 1 || g.strides[1] > 1) f.insert("strides");
    if (g.pads[0] != g.pads[2] || g.pads[1] != g.pads[3]) f.insert("asymmetric_pads");
    const bool padded = std::any_of(g.pads.begin(), g.pads.end(), [](std::int64_t v) { return v > 0; });
    if (padded && p.x_zero_point != 0) f.insert("pad_zero_point");
  }
  if (pr.kind == OpKind::Matmul) {
    const Dims ba(pr.x.shape.begin(), pr.x.shape.end() - 2), bb(pr.w.shape.begin(), pr.w.shape.end() - 2);
    if (ba != bb) f.insert("broadcast_batch");
  }
  if (pr.drawn) f.insert("random");
  if (pr.wide) f.insert("wide");
  return {f.begin(), f.end()};
}

// ---- the family builder ----

// Why the reference rejects a test (for a generator bug's message).
std::string reference_message(const Test& t, std::string_view op, std::string_view conv) {
  try {
    refops::find_op(op, conv)->fn(t.attributes, t.inputs);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "accepted";
}

struct Builder {
  std::string op, conv;
  QLinearConvention c;
  std::vector<Test> tests;

  // A hand case: it must be valid (or, marked invalid, rejected), else the generator is wrong.
  void add(const Problem& pr, const std::string& comment, std::vector<std::string> extra = {}) {
    Test t = to_test(pr, comment);
    std::vector<Tensor> out;
    if (classify(op, conv, t.attributes, t.inputs, &out) != Verdict::Valid)
      throw std::logic_error("vecgen " + op + " / " + conv + ": hand case '" + comment +
                             "' is not valid: " + reference_message(t, op, conv));
    finish(pr, t, out, std::move(extra));
  }
  void add_invalid(const Problem& pr, const std::string& comment, std::vector<std::string> flags = {}) {
    Test t = to_test(pr, "invalid: " + comment, true);
    if (classify(op, conv, t.attributes, t.inputs) != Verdict::Invalid)
      throw std::logic_error("vecgen " + op + " / " + conv + ": '" + comment + "' is not rejected");
    t.flags = std::move(flags);
    tests.push_back(std::move(t));
  }
  // n valid draws (a draw outside the clause's REQUIREs or rejected is drawn again).
  void add_random(int n, const std::function<Problem()>& draw, const std::string& what) {
    for (int i = 0; i < n; ++i)
      for (int attempt = 0;; ++attempt) {
        Problem pr = draw();
        pr.drawn = true;
        Test t = to_test(pr, what);
        std::vector<Tensor> out;
        if (classify(op, conv, t.attributes, t.inputs, &out) == Verdict::Valid) {
          finish(pr, t, out, {});
          break;
        }
        if (attempt > 200) throw std::logic_error("vecgen " + op + " / " + conv + ": cannot draw a valid " + what);
      }
  }
  void finish(const Problem& pr, Test& t, const std::vector<Tensor>& out, std::vector<std::string> extra) {
    const Analysis an = analyse(pr, c);
    t.flags = auto_flags(pr, c, an, out.at(0));
    for (auto& e : extra)
      if (std::find(t.flags.begin(), t.flags.end(), e) == t.flags.end()) t.flags.push_back(std::move(e));
    if (an.ties > 0)
      t.comment +=
          " (" + std::to_string(an.ties) + " of " + std::to_string(an.acc.data.size()) + " outputs are exact ties)";
    tests.push_back(std::move(t));
  }
};

const std::vector<std::pair<std::string, std::string>> kNotes = {
    {"tie",
     "at least one output's requantized value is an exact tie k + 1/2 (per-tensor scale): fl32(fl32(acc) * S), "
     "rounded half to even, or the Q31 value acc M 2^(shift - 31) TFLite's MultiplyByQuantizedMultiplier and TOSA's "
     "RESCALE round"},
    {"tie_per_channel", "exact ties under per-channel weight scales"},
    {"saturate_low", "an output is the dtype's minimum"},
    {"saturate_high", "an output is the dtype's maximum"},
    {"narrow_clamp", "an output is at a fused clamp bound y_min / y_max narrower than the dtype"},
    {"per_channel_exponents", "per-channel weight scales whose binary exponents differ"},
    {"pad_zero_point", "padding with a non-zero input zero point: padded taps hold x_zero_point and contribute 0"},
    {"depthwise_multiplier", "depthwise convolution (groups = C) with a channel multiplier O / C > 1"},
    {"groups", "a grouped convolution with 1 < groups < C"},
    {"dilation", "a dilation > 1"},
    {"strides", "a stride > 1"},
    {"asymmetric_pads", "top != bottom or left != right padding"},
    {"uint8", "uint8 activations and weights"},
    {"uint8_int8", "uint8 activations with int8 weights"},
    {"no_bias", "no bias input (its default 0)"},
    {"large_acc", "an accumulator beyond 2^24: fl32(acc) rounds before the scaling"},
    {"large_scale", "a requantization scale >= 256 (ONNX Runtime has no limit)"},
    {"small_scale", "a requantization scale < 2^-32 (ONNX Runtime has no limit)"},
    {"no_output_position", "the dilated kernel is larger than the padded input: ONNX Runtime and TOSA reject it"},
    {"scale_limit", "a requantization scale >= 256: XNNPACK returns xnn_status_unsupported_parameter"},
    {"invalid_scale", "a scale that is not a positive normal float: XNNPACK returns xnn_status_invalid_parameter"},
    {"broadcast_batch", "matmul batch dimensions that broadcast (a missing or unit dimension)"},
    {"negative_tie",
     "an exact tie at a negative value (TFLite: double rounding goes away from zero, single rounding up)"},
    {"double_round_differs",
     "an output where TFLite's double rounding differs from single rounding (requant.double_round_vs_single)"},
    {"w_zero_point", "int8 weights with a non-zero zero point (TFLite's per-tensor fully connected and batch matmul)"},
    {"float_bias",
     "oneDNN adds the bias in float: fl32(fl32(acc) + fl32(b)) differs from fl32(acc + b) (accumulator and bias "
     "beyond 2^24)"},
    {"wide_zero_point", "a zero point outside the tensor's dtype: oneDNN's zero points are s32"},
    {"random", "random draw"},
    {"wide",
     "shapes that fill the optimized kernels' blocks: convolutions of groups 1 with 33-70 output channels (two "
     "16-channel groups of 32-channel blocks and their tails), 15-31 output columns (14-pixel blocks and their "
     "shifted tails) and up to 93 output pixels (64-pixel im2col tiles), depthwise with 17-70 channels, grouped with "
     "17-20 output channels per group; fully connected and matmul with 17-70 columns (16-column panels, the GEMV's "
     "groups of four), 1-20 rows and K up to 300"},
};

// The notes of a family: armnn.cpuref's adds its own flag (the other families' files stay as they were).
std::vector<std::pair<std::string, std::string>> notes_of(std::string_view conv) {
  auto notes = kNotes;
  if (refops::qlinear_convention_of(conv) == QLinearConvention::ArmnnCpuref)
    notes.insert(std::find_if(notes.begin(), notes.end(), [](const auto& n) { return n.first == "random"; }),
                 {"float_sum_differs",
                  "an output where Arm NN's in-order float sums give another "
                  "code than the exact real result rounded half away"});
  return notes;
}

bool is_tflite(QLinearConvention c) { return ro::qlinear_is_tflite(c); }
bool is_tosa(QLinearConvention c) { return c == QLinearConvention::Tosa; }
bool is_onednn(QLinearConvention c) { return c == QLinearConvention::Onednn; }
bool is_armnn(QLinearConvention c) { return c == QLinearConvention::ArmnnCpuref; }

// ---- drawing problems ----

struct TypePair {
  DType x, w;
};
// The (activation, weight) dtypes a convention accepts, and whether per-channel scales go with them.
TypePair draw_types(Rng& r, QLinearConvention c, OpKind kind) {
  if ((is_tflite(c) && kind == OpKind::Matmul) || is_tosa(c)) return {DType::I8, DType::I8};  // int8 operators only
  if (is_pytorch_onednn(c)) return {DType::U8, DType::I8};  // "data type of input should be QUint8"
  if (is_pytorch(c))
    return r.coin() ? TypePair{DType::U8, DType::I8} : TypePair{DType::I8, DType::I8};  // qint8 weights
  if (is_onednn(c))                                                                     // s8 or u8 sources, s8 weights
    return r.coin() ? TypePair{DType::U8, DType::I8} : TypePair{DType::I8, DType::I8};
  if (c == QLinearConvention::XnnpackFp32 || is_tflite(c) || is_armnn(c))
    return r.uniform(0, 2) == 0 ? TypePair{DType::U8, DType::U8} : TypePair{DType::I8, DType::I8};
  switch (r.uniform(0, 2)) {
    case 0: return {DType::U8, DType::U8};
    case 1: return {DType::U8, DType::I8};
    default: return {DType::I8, DType::I8};
  }
}
bool per_channel_allowed(const TypePair& t, QLinearConvention c, OpKind kind) {
  if (is_tosa(c) || is_onednn(c) || is_pytorch_onednn(c)) return true;  // output scales per channel everywhere
  if (is_armnn(c)) return false;                                        // per-axis QSymmS8 weights: E-ARMNN-1
  if (is_tflite(c) && kind == OpKind::Matmul) return false;             // BATCH_MATMUL is per tensor
  if (is_pytorch(c)) return kind == OpKind::Conv || t.x == DType::U8;   // no per-channel qint8 linear
  return c == QLinearConvention::OnnxRuntime || t.x == DType::I8;
}

// A random positive normal float32 2^e (1 + m / 2^23), mostly with few mantissa bits.
std::uint32_t random_scale(Rng& r, int e) {
  const std::uint32_t m = r.coin() ? static_cast<std::uint32_t>(r.uniform(0, (1 << 23) - 1))
                                   : static_cast<std::uint32_t>(r.uniform(0, 15)) << 19;
  return (static_cast<std::uint32_t>(e + 127) << 23) | m;
}

// The shapes of one problem.
struct Shapes {
  Dims x, w;
  std::int64_t channels = 1;  // output channels (the scales' count when per channel)
  ro::QConvGeometry g;
};

// TFLite's SAME padding of one axis: (floor(t / 2), t - floor(t / 2)), t the total (padding.h).
std::array<std::int64_t, 2> same_pads(std::int64_t in, std::int64_t k, std::int64_t d, std::int64_t s) {
  const std::int64_t out = (in + s - 1) / s, e = d * (k - 1) + 1;
  const std::int64_t t = std::max<std::int64_t>((out - 1) * s + e - in, 0);
  return {t / 2, t - t / 2};
}

// The pads a convention allows, from the drawn ones: TFLite's SAME or VALID (VALID where the dilated
// kernel fits the input), TOSA's idiv_check (the end padded so that the stride divides
// in - 1 + pads - (k - 1) d); the others keep them.
void convention_pads(Rng& r, QLinearConvention c, Shapes& s) {
  auto& g = s.g;
  const std::int64_t h = s.x[1], w = s.x[2], kh = s.w[1], kw = s.w[2];
  const std::int64_t eh = g.dilations[0] * (kh - 1) + 1, ew = g.dilations[1] * (kw - 1) + 1;
  if (is_tflite(c)) {
    const bool valid = h >= eh && w >= ew && r.coin();
    const auto ph = valid ? std::array<std::int64_t, 2>{0, 0} : same_pads(h, kh, g.dilations[0], g.strides[0]);
    const auto pw = valid ? std::array<std::int64_t, 2>{0, 0} : same_pads(w, kw, g.dilations[1], g.strides[1]);
    g.pads = {ph[0], pw[0], ph[1], pw[1]};
  }
  if (is_tosa(c)) {
    const std::array<std::int64_t, 2> in{h, w}, k{kh, kw};
    for (std::size_t a = 0; a < 2; ++a) {
      const std::int64_t num = in[a] - 1 + g.pads[a] + g.pads[a + 2] - (k[a] - 1) * g.dilations[a];
      g.pads[a + 2] += (g.strides[a] - num % g.strides[a]) % g.strides[a];
    }
  }
}

Shapes draw_conv_shapes(Rng& r, QLinearConvention c) {
  Shapes s;
  auto& g = s.g;
  auto kind = r.uniform(0, 5);                                             // 0-2: regular, 3: grouped, 4-5: depthwise
  if ((is_tflite(c) || is_tosa(c) || is_armnn(c)) && kind == 3) kind = 0;  // groups 1 or depthwise only
  std::int64_t C, O;
  if (kind <= 2) {
    g.groups = 1, C = r.uniform(1, 4), O = r.uniform(1, 4);
  } else if (kind == 3) {
    g.groups = r.uniform(2, 3);
    C = g.groups * r.uniform(1, 2), O = g.groups * r.uniform(1, 2);
  } else {
    C = r.uniform(1, 4), g.groups = C, O = C * r.uniform(1, 3);
  }
  const std::int64_t kh = r.uniform(1, 3), kw = r.uniform(1, 3);
  g.dilations = {r.uniform(0, 3) == 0 ? 2 : 1, r.uniform(0, 3) == 0 ? 2 : 1};
  g.strides = {r.uniform(0, 2) == 0 ? 2 : 1, r.uniform(0, 2) == 0 ? 2 : 1};
  for (auto& p : g.pads) p = r.uniform(0, 3) == 0 ? 0 : r.uniform(0, 2);
  if (is_pytorch(c) || is_pytorch_onednn(c)) g.pads[2] = g.pads[0], g.pads[3] = g.pads[1];  // one padding per axis
  const std::int64_t eh = g.dilations[0] * (kh - 1) + 1, ew = g.dilations[1] * (kw - 1) + 1;
  const std::int64_t h = std::max<std::int64_t>(1, eh - g.pads[0] - g.pads[2]) + r.uniform(0, 2);
  const std::int64_t w = std::max<std::int64_t>(1, ew - g.pads[1] - g.pads[3]) + r.uniform(0, 2);
  s.x = {r.uniform(0, 4) == 0 ? 2 : 1, h, w, C};
  s.w = {O, kh, kw, C / g.groups};
  s.channels = O;
  convention_pads(r, c, s);
  return s;
}
Shapes draw_fc_shapes(Rng& r) {
  Shapes s;
  const std::int64_t k = r.uniform(1, 24), o = r.uniform(1, 6);
  s.x = {r.uniform(1, 3), k};
  s.w = {o, k};
  s.channels = o;
  return s;
}
Shapes draw_matmul_shapes(Rng& r) {
  Shapes s;
  const std::int64_t m = r.uniform(1, 4), k = r.uniform(1, 12), n = r.uniform(1, 5);
  switch (r.uniform(0, 4)) {
    case 0: s.x = {m, k}, s.w = {k, n}; break;
    case 1: s.x = {2, m, k}, s.w = {k, n}; break;
    case 2: s.x = {2, m, k}, s.w = {2, k, n}; break;
    case 3: s.x = {2, 1, m, k}, s.w = {3, k, n}; break;
    default: s.x = {m, k}, s.w = {2, k, n}; break;
  }
  s.channels = n;
  return s;
}

// ---- wide shapes: the optimized kernels' full blocks and every tail ----
// The draws above stay inside one block of every optimized kernel (the avx2 backend's direct zmm
// convolution: 2 x 16 output channels x 14 output pixels; its GEMM engines: 16-column panels, up to 8
// rows, a GEMV over 4 panels for one row, 64-pixel im2col tiles; its depthwise kernels: 32-channel
// blocks in 16-KiB strips of output columns); a wrong correction of channel 16 onwards passed them all.
// These shapes cross each boundary once and stay small (the vector files' size): tens of channels,
// one to three output rows.

// The input extent of one axis that gives `out` outputs (at least 1; TOSA / TFLite adjust the pads).
std::int64_t input_extent(std::int64_t out, std::int64_t k, std::int64_t d, std::int64_t s, std::int64_t pads) {
  return std::max<std::int64_t>(1, (out - 1) * s + d * (k - 1) + 1 - pads);
}

// The wide variant of a MobileNet depthwise layer (convolutions only): 32 or 64 channels, multiplier 1,
// a kh x 3 kernel (kh 3, sometimes 1 or 2), stride and dilation 1, two or three output rows, every
// w - w_zero_point in int8: the conditions of the avx2 backend's direct depthwise strips
// (depthwise_direct_vbmi.h), which kind 2's 17-70 channels and random strides hardly ever met.
constexpr int kWideDirectDepthwise = 4;

// The direct depthwise layer's shapes: pads 1 all round or 0 / 1 per side (one per axis for PyTorch;
// TFLite's SAME or VALID, drawn before the input's extent so that the output keeps its rows).
Shapes draw_direct_depthwise_shapes(Rng& r, QLinearConvention c) {
  Shapes s;
  auto& g = s.g;
  const std::int64_t C = r.coin() ? 32 : 64, kh = r.uniform(0, 3) == 0 ? r.uniform(1, 2) : 3, kw = 3;
  g.groups = C;
  if (is_tflite(c)) {
    const bool valid = r.coin();
    const auto ph = valid ? std::array<std::int64_t, 2>{0, 0} : same_pads(1, kh, 1, 1);  // stride 1: any extent
    const auto pw = valid ? std::array<std::int64_t, 2>{0, 0} : same_pads(1, kw, 1, 1);
    g.pads = {ph[0], pw[0], ph[1], pw[1]};
  } else {
    const bool all_ones = r.coin();
    for (auto& p : g.pads) p = all_ones ? 1 : r.uniform(0, 1);
    if (is_pytorch(c) || is_pytorch_onednn(c)) g.pads[2] = g.pads[0], g.pads[3] = g.pads[1];
  }
  // Two rows: one call of the two-row strip; three: and the odd last row's one-row strip. With a
  // right pad an even width, so that the last column pair's second output reads that pad through
  // input column w (the strips' edge case v + 1 == w); without one, either parity.
  const std::int64_t oh = r.uniform(2, 3), ow = g.pads[3] == 1 ? 2 * r.uniform(8, 15) : r.uniform(15, 31);
  s.x = {1, input_extent(oh, kh, 1, 1, g.pads[0] + g.pads[2]), input_extent(ow, kw, 1, 1, g.pads[1] + g.pads[3]), C};
  s.w = {C, kh, kw, 1};
  s.channels = C;
  return s;  // stride 1: TOSA's idiv_check holds without convention_pads
}

// variant % 4: 0 groups 1 and 1x1, 1 groups 1 and 3x3, 2 depthwise, 3 grouped (3x3 groups 1 where
// the convention has no groups), so that every family holds each kind; kWideDirectDepthwise above.
Shapes draw_wide_conv_shapes(Rng& r, QLinearConvention c, int variant) {
  if (variant == kWideDirectDepthwise) return draw_direct_depthwise_shapes(r, c);
  Shapes s;
  auto& g = s.g;
  int kind = variant % 4;
  if ((is_tflite(c) || is_tosa(c) || is_armnn(c)) && kind == 3) kind = 1;  // groups 1 or depthwise only
  std::int64_t C, O, kh, kw;
  if (kind <= 1) {  // the direct kernel's two 16-channel groups of a 32-channel block, input channels in 4s
    const bool pointwise = kind == 0;
    kh = kw = pointwise ? 1 : 3;
    g.groups = 1, C = pointwise ? r.uniform(5, 40) : r.uniform(5, 13), O = r.uniform(33, 70);
  } else if (kind == 2) {  // 32-channel blocks; a multiplier > 1 takes the grouped GEMM instead
    kh = r.uniform(1, 3), kw = r.uniform(0, 3) == 0 ? 5 : 3;  // kw 5: the general layout's two groups per row
    C = r.uniform(17, 70), g.groups = C, O = C * (r.uniform(0, 3) == 0 ? 2 : 1);
  } else {  // per group a GEMM of 17-20 columns: a full 16-column panel and a tail
    kh = kw = r.coin() ? 1 : 3;
    g.groups = r.uniform(2, 3);
    C = g.groups * r.uniform(3, 8), O = g.groups * r.uniform(17, 20);
  }
  g.dilations = {r.uniform(0, 5) == 0 ? 2 : 1, r.uniform(0, 5) == 0 ? 2 : 1};
  g.strides = {r.uniform(0, 2) == 0 ? 2 : 1, r.uniform(0, 2) == 0 ? 2 : 1};
  for (auto& p : g.pads) p = kh * kw == 1 || r.uniform(0, 2) == 0 ? 0 : 1;
  if (is_pytorch(c) || is_pytorch_onednn(c)) g.pads[2] = g.pads[0], g.pads[3] = g.pads[1];  // one padding per axis
  const std::int64_t oh = r.uniform(1, 3), ow = r.uniform(15, 31);
  const std::int64_t h = input_extent(oh, kh, g.dilations[0], g.strides[0], g.pads[0] + g.pads[2]);
  const std::int64_t w = input_extent(ow, kw, g.dilations[1], g.strides[1], g.pads[1] + g.pads[3]);
  s.x = {1, h, w, C};
  s.w = {O, kh, kw, C / g.groups};
  s.channels = O;
  convention_pads(r, c, s);
  return s;
}
// variant % 2 == 0: one row (the GEMV kernel).
Shapes draw_wide_fc_shapes(Rng& r, int variant) {
  Shapes s;
  const std::int64_t k = r.uniform(0, 3) == 0 ? r.uniform(161, 300) : r.uniform(25, 160), o = r.uniform(17, 70);
  s.x = {variant % 2 == 0 ? 1 : r.uniform(2, 20), k};
  s.w = {o, k};
  s.channels = o;
  return s;
}
// variant % 2 == 0: one row (the GEMV kernel).
Shapes draw_wide_matmul_shapes(Rng& r, int variant) {
  Shapes s;
  const std::int64_t m = variant % 2 == 0 ? 1 : r.uniform(2, 20), k = r.uniform(5, 70), n = r.uniform(17, 70);
  switch (r.uniform(0, 2)) {  // the batch forms of draw_matmul_shapes, at most 3 matrices
    case 0: s.x = {m, k}, s.w = {k, n}; break;
    case 1: s.x = {2, m, k}, s.w = {2, k, n}; break;
    default: s.x = {m, k}, s.w = {3, k, n}; break;
  }
  s.channels = n;
  return s;
}

// wide: the variant of a wide draw, none for the small shapes.
Shapes draw_shapes(Rng& r, OpKind k, QLinearConvention c, std::optional<int> wide) {
  if (k == OpKind::Conv) return wide ? draw_wide_conv_shapes(r, c, *wide) : draw_conv_shapes(r, c);
  if (k == OpKind::Fc) return wide ? draw_wide_fc_shapes(r, *wide) : draw_fc_shapes(r);
  Shapes s = wide ? draw_wide_matmul_shapes(r, *wide) : draw_matmul_shapes(r);
  if (is_tosa(c)) {  // TOSA MATMUL: equal batch dimensions (b takes a's)
    Dims w(s.x.begin(), s.x.end() - 2);
    w.push_back(s.w[s.w.size() - 2]);
    w.push_back(s.w.back());
    s.w = w;
  }
  return s;
}

// The output channel of weight element i: O is axis 0 of conv / fc weights, N the last axis of b.
std::int64_t weight_channel(OpKind k, const Dims& w, std::int64_t i) {
  if (k == OpKind::Matmul) return i % w.back();
  return i / (ro::shape_numel(w) / w[0]);
}

// Zero points of a draw: XNNPACK's int8 weights have none; the others anywhere in the dtype.
// TFLite's int8 per-channel kernels (every convolution, a per-channel fully connected) have none either.
std::int64_t draw_w_zero_point(Rng& r, const TypePair& t, QLinearConvention c, bool near_middle, OpKind kind,
                               bool per_channel) {
  const bool tflite_symmetric = is_tflite(c) && (kind == OpKind::Conv || per_channel);
  const bool onednn_conv = is_onednn(c) && kind == OpKind::Conv;  // convolution rejects a weights zero point
  if (t.w == DType::I8)
    return c == QLinearConvention::XnnpackFp32 || is_pytorch_onednn(c) || tflite_symmetric || onednn_conv ||
                   (is_pytorch(c) && t.x == DType::I8)
               ? 0
               : (near_middle ? r.uniform(-24, 24) : r.uniform(-128, 127));
  return near_middle ? r.uniform(96, 160) : r.uniform(0, 255);
}

// A tie-rich problem: channel o has weights w_zp + 2^u_o w' and a bias 2^u_o b', and the scale
// S_o = m_o 2^-(u_o + 1) (m_o odd), split into (x_s, w_s[o], y_s) so that the engine's derivation
// gives S_o exactly: every accumulator 2^u_o A with A odd is an exact tie.
Problem draw_tie_rich(Rng& r, OpKind kind, QLinearConvention c, std::optional<int> wide = std::nullopt) {
  const Shapes s = draw_shapes(r, kind, c, wide);
  const TypePair t = draw_types(r, c, kind);
  const bool pc = per_channel_allowed(t, c, kind) && s.channels > 1 && r.uniform(0, 2) != 0;
  Problem pr;
  pr.kind = kind;
  pr.wide = wide.has_value();
  pr.g = s.g;
  auto& p = pr.p;
  p.x_type = t.x, p.w_type = t.w;
  const std::int64_t xlo = lo_of(t.x), xhi = hi_of(t.x), wlo = lo_of(t.w), whi = hi_of(t.w);
  p.x_zero_point = r.uniform(xlo + 8, xhi - 8);
  const std::int64_t wzp = draw_w_zero_point(r, t, c, true, kind, pc);
  p.w_zero_point = wzp;
  const std::int64_t channels = pc ? s.channels : 1;
  std::vector<int> u(static_cast<std::size_t>(s.channels));
  std::vector<std::int64_t> m(static_cast<std::size_t>(s.channels));
  const int u0 = static_cast<int>(r.uniform(0, 3));
  const std::int64_t m0 = 2 * r.uniform(0, 2) + 1;
  for (std::size_t o = 0; o < u.size(); ++o) {
    u[o] = pc ? static_cast<int>(r.uniform(0, 3)) : u0;
    m[o] = pc ? 2 * r.uniform(0, 2) + 1 : m0;
  }
  pr.w = array_of(s.w, [&](std::int64_t i) {
    const int uo = u[static_cast<std::size_t>(weight_channel(kind, s.w, i))];
    const std::int64_t lim = std::min<std::int64_t>({3, (whi - wzp) >> uo, (wzp - wlo) >> uo});
    return wzp + (r.uniform(-lim, lim) << uo);
  });
  pr.x = array_of(s.x, [&](std::int64_t) {
    return std::clamp<std::int64_t>(static_cast<std::int64_t>(p.x_zero_point) + r.uniform(-6, 6), xlo, xhi);
  });
  if (kind != OpKind::Matmul && r.uniform(0, 3) != 0)
    pr.b = array_of({s.channels}, [&](std::int64_t o) { return r.uniform(-16, 16) << u[static_cast<std::size_t>(o)]; });
  const int ex = static_cast<int>(r.uniform(-9, -3)), ey = static_cast<int>(r.uniform(-6, 0));
  // Arm NN divides the float sum by s_y, PyTorch's QNNPACK multiplies by fl32(1 / y_s): a power of
  // two keeps every float step exact (and S_o a tie scale).
  std::int64_t cy = 2 * r.uniform(0, 3) + 1;
  if (is_armnn(c) || is_pytorch(c) || is_pytorch_onednn(c)) cy = 1;
  if (is_pytorch_onednn(c))  // ideep's reciprocal scales stay exact (and M_o = S_o) for powers of two
    std::fill(m.begin(), m.end(), 1);
  p.x_scale = ties::f32_dyadic(1, ex);
  p.y_scale = ties::f32_dyadic(cy, ey);
  p.w_scales.clear();
  for (std::int64_t o = 0; o < channels; ++o) {
    const auto oi = static_cast<std::size_t>(o);
    p.w_scales.push_back(ties::channel_w_scale(ties::tie_scale(m[oi], u[oi]), ex, ey, cy));
  }
  p.y_zero_point = r.uniform(xlo + 16, xhi - 16);
  if (!wide && ro::qlinear_has_clamp(c) && r.uniform(0, 4) == 0) {  // wide: the blocks' outputs unclamped
    p.y_min = Int(xlo + r.uniform(1, 60));
    p.y_max = Int(xhi - r.uniform(1, 60));
  }
  pr.write_w_zero_point = r.coin();
  // The geometry may be left to its defaults only where it is the default one: the flags and the
  // tie count are computed from pr.g, the expected output from the written test.
  const ro::QConvGeometry defaults;
  const bool is_default = s.g.strides == defaults.strides && s.g.dilations == defaults.dilations &&
                          s.g.pads == defaults.pads && s.g.groups == defaults.groups;
  pr.write_geometry = !(s.g.strides == std::array<std::int64_t, 2>{1, 1} && r.coin()) || !is_default;
  return pr;
}

// The number of products summed into one accumulator (for choosing a realistic scale).
std::int64_t terms(OpKind kind, const Shapes& s) {
  if (kind == OpKind::Conv) return s.w[1] * s.w[2] * s.w[3];
  return kind == OpKind::Fc ? s.x[1] : s.x.back();
}

// A realistic problem: codes over the whole dtype, scales with random mantissas, and an output
// scale that maps a typical accumulator to about 2^6 output steps (2^(6 + boost) when saturating).
Problem draw_realistic(Rng& r, OpKind kind, QLinearConvention c, int boost,
                       std::optional<int> wide = std::nullopt) {
  const Shapes s = draw_shapes(r, kind, c, wide);
  const TypePair t = draw_types(r, c, kind);
  const bool pc = per_channel_allowed(t, c, kind) && s.channels > 1 && r.coin();
  Problem pr;
  pr.kind = kind;
  pr.wide = wide.has_value();
  pr.g = s.g;
  auto& p = pr.p;
  p.x_type = t.x, p.w_type = t.w;
  const std::int64_t xlo = lo_of(t.x), xhi = hi_of(t.x), wlo = lo_of(t.w), whi = hi_of(t.w);
  // Wide: zero points near the codes' mean (see the scale below).
  const std::int64_t mid = (xlo + xhi + 1) / 2;
  p.x_zero_point = wide ? r.uniform(mid - 24, mid + 24) : r.uniform(xlo, xhi);
  p.w_zero_point = draw_w_zero_point(r, t, c, wide.has_value(), kind, pc);
  pr.x = array_of(s.x, [&](std::int64_t) { return r.uniform(xlo, xhi); });
  // The direct depthwise layer: w - w_zero_point in int8, as the strips' VPDPBUSD needs.
  const bool direct = kind == OpKind::Conv && wide == kWideDirectDepthwise;
  const auto wzp = static_cast<std::int64_t>(p.w_zero_point);
  const std::int64_t w_lo = direct ? std::max(wlo, wzp - 128) : wlo, w_hi = direct ? std::min(whi, wzp + 127) : whi;
  pr.w = array_of(s.w, [&](std::int64_t) { return r.uniform(w_lo, w_hi); });
  if (kind != OpKind::Matmul && r.coin())
    pr.b = array_of({s.channels}, [&](std::int64_t) { return r.uniform(-(1 << 14), 1 << 14); });
  // log2 of a typical |acc|: about 2^12.4 per sqrt(term) for uniform 8-bit codes.
  const auto k = static_cast<double>(terms(kind, s));
  int log_acc = 12;
  for (double v = 1; v < k; v *= 4) ++log_acc;  // + log2(sqrt(k)), integer arithmetic on a double counter
  // Wide: the accumulators' half range instead, and a y_zero_point that centres the outputs. Over
  // hundreds of terms, zero points away from the codes' mean add k (mean x - zx)(mean w - zw) to
  // every accumulator: the typical scale and a random y_zero_point would saturate most outputs (or
  // round them all to a few codes), which would hide a wrong correction of the channels past the
  // first block.
  Int acc_lo = 0, acc_hi = 0;
  if (wide) {
    const IntArray acc = accumulators(pr, c);
    acc_lo = *std::min_element(acc.data.begin(), acc.data.end());
    acc_hi = *std::max_element(acc.data.begin(), acc.data.end());
    const Int most = (acc_hi - acc_lo) / 2;
    log_acc = 7;  // most < 2^log_acc: the outputs' half range at most 2^(6 + 1) steps
    while (most >= (Int(1) << log_acc)) ++log_acc;
  }
  const int ex = static_cast<int>(r.uniform(-10, -4));
  p.x_scale = random_scale(r, ex);
  p.w_scales.clear();
  const int ew0 = static_cast<int>(r.uniform(-10, -4));
  for (std::int64_t o = 0; o < (pc ? s.channels : 1); ++o) {
    // Wide: channel exponents at most 2 below ew0 (y_scale's), so that no channel's outputs all round to y_zp.
    const int e = !pc ? ew0 : wide ? ew0 - static_cast<int>(r.uniform(0, 2)) : static_cast<int>(r.uniform(-10, -4));
    p.w_scales.push_back(random_scale(r, e));
  }
  const int es = 6 + boost - log_acc + static_cast<int>(r.uniform(-1, 1));
  p.y_scale = random_scale(r, ex + ew0 - es);
  if (wide) {  // the middle of the dtype minus the accumulators' middle scaled (channel 0's scale), +- 8
    const ref::Rat scale =
        ref::f32_value(p.x_scale) * ref::f32_value(p.w_scales[0]) / ref::f32_value(p.y_scale);
    const Int centre = ref::round_half_away(scale * ref::Rat(acc_lo + acc_hi) / 2);
    const Int zp = Int(mid + r.uniform(-8, 8)) - centre;
    p.y_zero_point = std::clamp<std::int64_t>(static_cast<std::int64_t>(std::clamp(zp, Int(xlo - 1), Int(xhi + 1))),
                                              xlo + 16, xhi - 16);
  } else {
    p.y_zero_point = r.uniform(xlo + 32, xhi - 32);
  }
  if (!wide && ro::qlinear_has_clamp(c) && r.uniform(0, 7) == 0) {  // wide: the blocks' outputs unclamped
    p.y_min = Int(xlo + r.uniform(1, 100));
    p.y_max = Int(xhi - r.uniform(1, 100));
  }
  pr.write_w_zero_point = r.coin();
  return pr;
}

// ---- hand cases shared by the three ops ----

// The smallest problem of `kind` whose accumulators are the given values (one per output row):
// x = the values + x_zp, w = 1 (+ w_zp), bias absent. Unit scales except S = 1/2 via y_scale = 2.
Problem unit_problem(OpKind kind, DType t, const std::vector<std::int64_t>& accs, std::int64_t zp) {
  Problem pr;
  pr.kind = kind;
  pr.p.x_type = pr.p.w_type = t;
  pr.p.x_zero_point = zp;
  pr.p.y_zero_point = zp;
  pr.p.w_zero_point = t == DType::U8 ? 128 : 0;
  const std::int64_t wv = t == DType::U8 ? 129 : 1;
  const auto n = static_cast<std::int64_t>(accs.size());
  const auto xs = [&](std::int64_t i) { return accs[static_cast<std::size_t>(i)] + zp; };
  if (kind == OpKind::Conv) {
    pr.x = array_of({1, n, 1, 1}, xs);
    pr.w = array_of({1, 1, 1, 1}, [&](std::int64_t) { return wv; });
  } else {
    pr.x = array_of({n, 1}, xs);
    pr.w = array_of({1, 1}, [&](std::int64_t) { return wv; });
  }
  pr.p.x_scale = ties::f32_dyadic(1, 0);
  pr.p.w_scales = {ties::f32_dyadic(1, 0)};
  pr.p.y_scale = ties::f32_dyadic(1, 1);  // S = 1/2
  return pr;
}

// The saturation and clamp cases of the Q31 conventions (the clamp is named by each engine).
struct ClampWords {
  const char *narrow, *point, *inverted;
};
void add_saturation_and_clamp_cases(Builder& b, OpKind kind, const ClampWords& words) {
  Problem sat = unit_problem(kind, DType::I8, {127, -128, 100, -100}, 0);
  sat.p.y_scale = ties::f32_dyadic(1, -2);  // multiplier 4
  b.add(sat, "multiplier 4 saturates at both ends: 127 -128 127 -128");
  Problem narrow = unit_problem(kind, DType::I8, {1, 3, 40, -40}, 0);
  narrow.p.y_min = Int(-10), narrow.p.y_max = Int(1);
  b.add(narrow, words.narrow);
  Problem point = unit_problem(kind, DType::I8, {1, 3, 40, -40}, 0);
  point.p.y_min = Int(5), point.p.y_max = Int(5);
  b.add(point, words.point);
  Problem inverted = unit_problem(kind, DType::I8, {1}, 0);
  inverted.p.y_min = Int(6), inverted.p.y_max = Int(5);
  b.add_invalid(inverted, words.inverted);
}

// TFLite's own hand cases: its two roundings of exact ties, its clamp, flushing and parameter rules.
void add_tflite_hand_cases(Builder& b, OpKind kind) {
  const bool dbl = b.c == QLinearConvention::TfliteDoubleRound;
  Problem quarter = unit_problem(kind, DType::I8, {2, 6, -2, -6, 10}, 0);
  quarter.p.y_scale = ties::f32_dyadic(1, 2);  // multiplier 1/4: M = 2^30, shift = -1
  b.add(quarter, dbl ? "ties 0.5 1.5 -0.5 -1.5 2.5 at multiplier 1/4 (shift -1), double rounding: RDBPOT rounds "
                       "half away from zero: 1 2 -1 -2 3"
                     : "ties 0.5 1.5 -0.5 -1.5 2.5 at multiplier 1/4 (shift -1), single rounding half up: 1 2 0 -1 3");
  b.add(unit_problem(kind, DType::I8, {1, 3, -1, -3, 5}, 0),
        "ties 0.5 1.5 -0.5 -1.5 2.5 at multiplier 1/2 (M = 2^30, shift 0): no RDBPOT, both builds round half up: "
        "1 2 0 -1 3");
  if (kind != OpKind::Matmul)
    b.add(unit_problem(kind, DType::U8, {1, 3, -1, -3, 5}, 128),
          "uint8, zero points 128: ties rounded before the zero point is added");
  Problem odd = unit_problem(kind, DType::I8, {1, 3, -1, -3}, 0);
  odd.p.y_zero_point = 3;
  b.add(odd, "odd output zero point 3: MBQM(acc) + 3");
  add_saturation_and_clamp_cases(
      b, kind,
      {"fused clamp [act_min, act_max] = [-10, 1] after the zero point",
       "act_min = act_max = 5 is allowed (TFLITE_DCHECK_LE): every output is 5", "y_min 6 > y_max 5"});
  Problem tiny = unit_problem(kind, DType::I8, {127, -128, 5, 0}, 0);
  tiny.p.x_scale = ties::f32_dyadic(1, -20), tiny.p.w_scales = {ties::f32_dyadic(1, -20)};
  tiny.p.y_scale = ties::f32_dyadic(1, -4);
  b.add(tiny, "real multiplier 2^-36 < 2^-32: QuantizeMultiplier flushes it to (0, 0), every output is the zero point");
  Problem keep = unit_problem(kind, DType::I8, {127, -128, 64, -64}, 0);
  keep.p.x_scale = ties::f32_dyadic(1, -16), keep.p.w_scales = {ties::f32_dyadic(1, -16)};
  keep.p.y_scale = ties::f32_dyadic(1, 0);
  b.add(keep, "real multiplier 2^-32 is kept as (2^30, -31): 127 2^-32 rounds to 0");
  // acc = 42991617: TFLite has no float accumulator, so the exact 20.50000048 rounds to 21.
  Problem big = unit_problem(kind, DType::I8, {0}, 0);
  if (kind == OpKind::Matmul) {
    big.x = array_of({1, 2}, [](std::int64_t) { return 127; });
    big.w = array_of({2, 1}, [](std::int64_t) { return 127; });
    big.p.x_zero_point = -128, big.p.w_zero_point = -128;  // acc = 2 * 255 * 255 = 130050
    big.p.y_scale = ties::f32_dyadic(1, 12);
    b.add(big, "matmul with both zero points -128: acc 130050 at 2^-12 is 31.75 -> 32");
  } else {
    big.b = array_of({1}, [](std::int64_t) { return 42991617; });
    big.p.y_scale = ties::f32_dyadic(1, 21);  // S = 2^-21
    b.add(big, "acc 42991617 at S = 2^-21 is 20.50000048: no float rounding of the accumulator, 21");
  }
  Problem perch = unit_problem(kind, DType::U8, {1}, 128);
  if (kind != OpKind::Matmul) {
    perch.w = array_of({2, 1}, [](std::int64_t) { return 129; });
    if (kind == OpKind::Conv) perch.w.shape = {2, 1, 1, 1};
    perch.p.w_scales = {perch.p.w_scales[0], ties::f32_dyadic(1, 1)};
    b.add_invalid(perch, "per-channel weight scales with uint8 tensors (per-channel quantization is int8 only)");
  } else {
    Problem u8 = unit_problem(kind, DType::I8, {1}, 0);
    u8.p.x_type = u8.p.w_type = DType::U8, u8.p.x_zero_point = u8.p.y_zero_point = 128, u8.p.w_zero_point = 128;
    u8.x.data[0] = 129, u8.w.data[0] = 129;
    b.add_invalid(u8, "uint8 operands: BATCH_MATMUL has no uint8 kernel");
    Problem cols = unit_problem(kind, DType::I8, {1, 2}, 0);
    cols.w = array_of({1, 2}, [](std::int64_t) { return 1; });
    cols.p.w_scales = {ties::f32_dyadic(1, 0), ties::f32_dyadic(1, 1)};
    b.add_invalid(cols, "per-column b_scales: BATCH_MATMUL is per tensor");
    Problem rank6;
    rank6.kind = OpKind::Matmul;
    rank6.x = array_of({1, 1, 1, 1, 1, 1}, [](std::int64_t) { return 1; });
    rank6.w = array_of({1, 1}, [](std::int64_t) { return 1; });
    b.add_invalid(rank6, "a of rank 6: BATCH_MATMUL supports ranks 2 to 5");
  }
  Problem wzp = unit_problem(kind, DType::I8, {1, 3, -1, -3}, 0);
  wzp.p.w_zero_point = 3, wzp.w.data[0] = 4;
  if (kind == OpKind::Conv) {
    b.add_invalid(wzp, "int8 convolution with w_zero_point 3: ConvPerChannel has no filter offset (must be 0)");
  } else {
    b.add(wzp, "int8 weights with w_zero_point 3: the per-tensor kernel applies weights_offset = -3");
  }
  if (kind == OpKind::Fc) {
    Problem pcz = unit_problem(kind, DType::I8, {1}, 0);
    pcz.w = array_of({2, 1}, [](std::int64_t) { return 4; });
    pcz.p.w_zero_point = 3;
    pcz.p.w_scales = {ties::f32_dyadic(1, 0), ties::f32_dyadic(1, 1)};
    b.add_invalid(pcz, "per-channel int8 fully connected with w_zero_point 3: FullyConnectedPerChannel has none");
  }
}

// TOSA's own hand cases: DOUBLE_ROUND below and above a right shift of 31, CLAMP, the int8-only
// operators, zero points, per-channel RESCALE.
void add_tosa_hand_cases(Builder& b, OpKind kind) {
  Problem quarter = unit_problem(kind, DType::I8, {2, 6, -2, -6, 10}, 0);
  quarter.p.y_scale = ties::f32_dyadic(1, 2);  // 1/4: M = 2^30, s = 32 > 31: DOUBLE_ROUND's +-2^30
  b.add(quarter, "ties 0.5 1.5 -0.5 -1.5 2.5 at scale 1/4 (s = 32): DOUBLE_ROUND, half away from zero: 1 2 -1 -2 3");
  b.add(unit_problem(kind, DType::I8, {1, 3, -1, -3, 5}, 0),
        "ties at scale 1/2 (M = 2^30, s = 31): DOUBLE_ROUND adds nothing, half up: 1 2 0 -1 3");
  add_saturation_and_clamp_cases(
      b, kind,
      {"CLAMP [-10, 1] after RESCALE", "CLAMP min_val = max_val = 5 is allowed: every output is 5",
       "CLAMP max_val 5 < min_val 6"});
  Problem wzp = unit_problem(kind, DType::I8, {1, 3, -1, -3}, 0);
  wzp.p.w_zero_point = 3, wzp.w.data[0] = 4;
  b.add(wzp, "int8 weights with weight_zp 3: allowed for int8 (ERROR_IF only for other weight types)");
  Problem tiny = unit_problem(kind, DType::I8, {127, -128, 5, 0}, 0);
  tiny.p.x_scale = ties::f32_dyadic(1, -20), tiny.p.w_scales = {ties::f32_dyadic(1, -20)};
  tiny.p.y_scale = ties::f32_dyadic(3, -4);
  b.add(tiny, "scale 2^-36 / 3: s = 68 is capped at 62 with M shifted right by 6 (no flush): outputs 0");
  Problem u8 = unit_problem(kind, DType::U8, {1}, 128);
  b.add_invalid(u8, "uint8 tensors: TOSA's operators take int8 (uint8 exists only at RESCALE)");
  Problem big = unit_problem(kind, DType::I8, {0}, 0);
  if (kind == OpKind::Matmul) {
    big.x = array_of({1, 2}, [](std::int64_t) { return 127; });
    big.w = array_of({2, 1}, [](std::int64_t) { return 127; });
    big.p.x_zero_point = -128, big.p.w_zero_point = -128;
    big.p.y_scale = ties::f32_dyadic(1, 12);
    b.add(big, "A_zp = B_zp = -128: acc 130050 at 2^-12 is 31.75 -> 32");
    Problem pc = unit_problem(kind, DType::I8, {0}, 0);
    pc.x = array_of({2, 2}, [](std::int64_t i) { return i + 1; });
    pc.w = array_of({2, 2}, [](std::int64_t i) { return 2 * i - 1; });
    pc.p.w_scales = {ties::f32_dyadic(1, -1), ties::f32_dyadic(1, -3)};
    b.add(pc, "per-column b_scales (2^-1, 2^-3): RESCALE per_channel over the last axis");
  } else {
    big.b = array_of({1}, [](std::int64_t) { return 42991617; });
    big.p.y_scale = ties::f32_dyadic(1, 21);
    b.add(big, "acc 42991617 at 2^-21 is 20.50000048: 21 (no float rounding)");
  }
}

// oneDNN's own hand cases: the zero point added before rounding, the clip post-op before it, u8
// sources with s8 weights, s32 zero points, the bias added in float, the s8-weights-only rule.
void add_onednn_hand_cases(Builder& b, OpKind kind) {
  b.add(unit_problem(kind, DType::I8, {1, 3, -1, -3, 5}, 0),
        "ties 0.5 1.5 -0.5 -1.5 2.5 at S = 1/2, zero point 0: round half to even: 0 2 0 -2 2");
  Problem odd = unit_problem(kind, DType::I8, {1, 3, -1, -3}, 0);
  odd.p.y_zero_point = 3;
  b.add(odd, "odd output zero point 3 added before rounding: rne(k + 1/2 + 3): 4 4 2 2 (XNNPACK: 3 5 3 1)");
  Problem u8 = unit_problem(kind, DType::I8, {1, 3, -1, -3, 5}, 0);
  u8.p.x_type = DType::U8, u8.p.x_zero_point = 128, u8.p.y_zero_point = 127;
  for (auto& v : u8.x.data) v += 128;
  b.add(u8, "u8 source, s8 weights, x_zero_point 128, y_zero_point 127: rne(k + 1/2 + 127): 128 128 126 126 130");
  Problem sat = unit_problem(kind, DType::I8, {127, -128, 100, -100}, 0);
  sat.p.y_scale = ties::f32_dyadic(1, -2);  // S = 4
  b.add(sat, "S = 4 saturates at both ends: 127 -128 127 -128");
  Problem narrow = unit_problem(kind, DType::I8, {1, 3, 40, -40}, 0);
  narrow.p.y_min = Int(-10), narrow.p.y_max = Int(1);
  b.add(narrow, "eltwise_clip(-10, 1) with zero point 0: 0 1 1 -10");
  Problem clip_zp = unit_problem(kind, DType::I8, {1, 3, 40, -40, -21}, 0);
  clip_zp.p.y_zero_point = 5, clip_zp.p.y_min = Int(-10), clip_zp.p.y_max = Int(9);
  b.add(clip_zp, "clip(-15, 4) before the zero point 5: 6 6 9 -10 -6");
  Problem point = unit_problem(kind, DType::I8, {1, 3, 40, -40}, 0);
  point.p.y_min = Int(5), point.p.y_max = Int(5);
  b.add(point, "clip with y_min = y_max = 5: every output is 5");
  Problem inverted = unit_problem(kind, DType::I8, {1}, 0);
  inverted.p.y_min = Int(6), inverted.p.y_max = Int(5);
  b.add_invalid(inverted, "y_min 6 > y_max 5: eltwise_clip's beta < alpha (append_eltwise: invalid_arguments)");
  Problem zx = unit_problem(kind, DType::I8, {1, -3}, 0);
  zx.p.x_zero_point = 128;
  zx.x.data = {127, 125};
  b.add(zx, "x_zero_point 128 with an s8 source: oneDNN's zero points are s32: acc -1 -3: -0.5 -1.5 -> 0 -2");
  Problem zy = unit_problem(kind, DType::I8, {1, 3, -1}, 0);
  zy.p.x_type = DType::U8, zy.p.x_zero_point = 0, zy.p.y_zero_point = 256;
  zy.x.data = {1, 3, 0};
  b.add(zy, "y_zero_point 256 with a u8 destination: 256.5 257.5 256 saturate to 255");
  Problem nzy = unit_problem(kind, DType::I8, {1, 3, 200}, 0);
  nzy.p.y_zero_point = -200;
  nzy.x.data = {1, 3, 127};
  b.add(nzy, "y_zero_point -200 with an s8 destination: -199.5 -198.5 -136.5 saturate to -128");
  if (kind != OpKind::Matmul) {
    // acc 1 and bias 2^25 + 2: fl32(1) + fl32(2^25 + 2) = 1 + 2^25 -> 2^25, times S = 101 2^-26 is the
    // tie 50.5 -> 50; fl32(acc + b) = fl32(2^25 + 3) = 2^25 + 4 gives 50.500006 -> 51.
    Problem fb = unit_problem(kind, DType::I8, {1}, 0);
    fb.b = array_of({1}, [](std::int64_t) { return 33554434; });
    fb.p.y_scale = ties::f32_dyadic(1, 0);
    fb.p.w_scales = {ties::f32_dyadic(101, -26)};
    b.add(fb, "acc 1 with bias 2^25 + 2 added in float: 2^25 * 101 2^-26 = 50.5 -> 50 (exact sum: 51)");
  }
  Problem wzp = unit_problem(kind, DType::I8, {1, 3, -1, -3}, 0);
  wzp.p.w_zero_point = 3, wzp.w.data[0] = 4;
  if (kind == OpKind::Conv)
    b.add_invalid(wzp, "convolution with a weights zero point 3: zero_points_ok rejects it (unimplemented)");
  else
    b.add(wzp, "matmul with a weights zero point 3 (common): ties 0 2 0 -2");
  Problem u8w = unit_problem(kind, DType::U8, {1}, 128);
  b.add_invalid(u8w, "u8 weights: the int8 primitives take s8 weights only");
  Problem per = unit_problem(kind, DType::I8, {0}, 0);
  if (kind == OpKind::Matmul) {
    per.x = array_of({2, 2}, [](std::int64_t i) { return i + 1; });
    per.w = array_of({2, 2}, [](std::int64_t i) { return 2 * i - 1; });
  } else {
    per.x = array_of(kind == OpKind::Conv ? Dims{1, 1, 1, 2} : Dims{1, 2}, [](std::int64_t i) { return i + 1; });
    per.w = array_of(kind == OpKind::Conv ? Dims{2, 1, 1, 2} : Dims{2, 2}, [](std::int64_t i) { return 2 * i - 1; });
  }
  per.p.w_scales = {ties::f32_dyadic(1, -1), ties::f32_dyadic(3, -4)};
  b.add(per, "per-channel output scales 2^-1 and 3 2^-4 (set_output_scales mask 1 << channel axis)");
}

// Arm NN's own hand cases: ties rounded half away, the float bias, its rejections (it has its
// own list: it takes any zero point and, for convolutions, mixed dtypes).
void add_armnn_hand_cases(Builder& b, OpKind kind) {
  b.add(unit_problem(kind, DType::I8, {1, 3, -1, -3, 5}, 0),
        "ties 0.5 1.5 -0.5 -1.5 2.5 (sum / s_y exact) round half away from zero: 1 2 -1 -2 3");
  b.add(unit_problem(kind, DType::U8, {1, 3, -1, -3, 5}, 128),
        "uint8, zero points 128: ties round half away before the zero point is added: 129 130 127 126 131");
  Problem odd = unit_problem(kind, DType::I8, {1, 3, -1, -3}, 0);
  odd.p.y_zero_point = 3;
  b.add(odd, "odd output zero point 3: round(k + 1/2) + 3: 4 5 2 1");
  Problem sat = unit_problem(kind, DType::I8, {127, -128, 100, -100}, 0);
  sat.p.y_scale = ties::f32_dyadic(1, -2);  // / 0.25
  b.add(sat, "s_y = 1/4 saturates at both ends: 127 -128 127 -128");
  Problem usat = unit_problem(kind, DType::U8, {127, -128, 100, -100}, 128);
  usat.p.y_scale = ties::f32_dyadic(1, -2);
  b.add(usat, "uint8, s_y = 1/4 saturates at both ends: 255 0 255 0");
  // float(42991615) = 42991616 = 20.5 2^21: the bias rounds in binary32 before anything else.
  Problem big = unit_problem(kind, DType::I8, {0}, 0);
  big.b = array_of({1}, [](std::int64_t) { return 42991615; });
  big.p.y_scale = ties::f32_dyadic(1, 21);
  b.add(big, "bias 42991615 becomes 42991616.0f: 20.5 rounds away to 21 where the exact 20.4999995 gives 20");
  // x~ = fl32(5 * fl32(0.7)) = fl32(3.49999994) = 3.5: the dequantization rounds onto a tie.
  Problem deq = unit_problem(kind, DType::I8, {5}, 0);
  deq.p.x_scale = 0x3f333333u;  // fl32(0.7) = 0.699999988
  deq.p.y_scale = ties::f32_dyadic(1, 0);
  b.add(deq, "x_scale fl32(0.7), x - z_x = 5: x~ = 3.5 (rounded), away to 4; the exact 3.49999994 gives 3");
  Problem two = unit_problem(kind, DType::I8, {1}, 0);
  two.w = array_of(kind == OpKind::Conv ? Dims{2, 1, 1, 1} : Dims{2, 1}, [](std::int64_t) { return 1; });
  two.p.w_scales = {ties::f32_dyadic(1, 0), ties::f32_dyadic(1, 1)};
  b.add_invalid(two,
                "per-channel weight scales: per-axis QSymmS8 weights, which 20.08's FullyConnected rejects and "
                "Convolution2d crashes on (E-ARMNN-1)");
  Problem nsc = unit_problem(kind, DType::I8, {1}, 0);
  nsc.p.w_scales = {nsc.p.w_scales[0], nsc.p.w_scales[0]};
  b.add_invalid(nsc, "two weight scales for one output channel");
  if (kind == OpKind::Fc) {
    Problem su = unit_problem(kind, DType::I8, {1}, 0);
    su.p.w_type = DType::U8, su.p.w_zero_point = 128, su.w.data[0] = 129;
    b.add_invalid(su, "int8 activations with uint8 weights: FullyConnected's input and weight types mismatched");
  } else {
    Problem g2;
    g2.kind = OpKind::Conv;
    g2.x = array_of({1, 1, 1, 4}, [](std::int64_t i) { return i; });
    g2.w = array_of({2, 1, 1, 2}, [](std::int64_t) { return 1; });
    g2.g.groups = 2;
    b.add_invalid(g2, "groups 2 with C = 4: Arm NN has no grouped convolution");
  }
}

// PyTorch's hand cases (qint8 weights; quint8 activations through QNNPACK, qint8 through XNNPACK).
void add_pytorch_hand_cases(Builder& b, OpKind kind) {
  b.add(unit_problem(kind, DType::I8, {1, 3, -1, -3, 5}, 0),
        "qint8 (XNNPACK): ties 0.5 1.5 -0.5 -1.5 2.5 at S = 1/2 round to even: 0 2 0 -2 2");
  Problem u8 = unit_problem(kind, DType::U8, {1, 3, -1, -3, 5}, 128);
  u8.p.w_type = DType::I8, u8.p.w_zero_point = 0;
  for (auto& v : u8.w.data) v = 1;
  b.add(u8, "quint8 (QNNPACK), zero points 128: ties round to even before the zero point: 128 130 128 126 130");
  Problem wzp = u8;
  wzp.p.w_zero_point = -3;
  for (auto& v : wzp.w.data) v = -2;
  b.add(wzp, "quint8 with int8 weights -2 at w_zero_point -3 (w - z_w = 1): the same ties, 128 130 128 126 130");
  Problem odd = unit_problem(kind, DType::I8, {1, 3, -1, -3}, 0);
  odd.p.y_zero_point = 3;
  b.add(odd, "odd output zero point 3: rne(k + 1/2) + 3, not rne(k + 1/2 + 3): 3 5 3 1");
  Problem sat = unit_problem(kind, DType::I8, {127, -128, 100, -100}, 0);
  sat.p.y_scale = ties::f32_dyadic(1, -2);  // S = 4
  b.add(sat, "S = 4 saturates at both ends: 127 -128 127 -128");
  Problem usat = u8;
  usat.x = u8.x;
  usat.p.y_scale = ties::f32_dyadic(1, -2);
  b.add(usat, "quint8, S = 4: 132 140 124 116 148");
  Problem big = u8;
  big.p.x_scale = ties::f32_dyadic(1, 4), big.p.w_scales = {ties::f32_dyadic(1, 4)},
  big.p.y_scale = ties::f32_dyadic(1, 0);
  b.add(big, "quint8, S = 256: QNNPACK has no scale limit (XNNPACK's qs8 would reject it): 255 255 0 0 255");
  Problem s256 = unit_problem(kind, DType::I8, {1}, 0);
  s256.p.x_scale = ties::f32_dyadic(1, 4), s256.p.w_scales = {ties::f32_dyadic(1, 4)};
  s256.p.y_scale = ties::f32_dyadic(1, 0);
  b.add_invalid(s256, "qint8 (XNNPACK): requantization scale 16 * 16 / 1 = 256", {"scale_limit"});
  Problem uw = unit_problem(kind, DType::U8, {1}, 128);
  b.add_invalid(uw, "uint8 weights: PyTorch's quantized weights are qint8");
  Problem qwzp = unit_problem(kind, DType::I8, {1}, 0);
  qwzp.p.w_zero_point = 1, qwzp.w.data[0] = 2;
  b.add_invalid(qwzp, "qint8 activations with w_zero_point 1: XNNPACK's qs8 takes no kernel zero point");
  Problem tiny = u8;
  tiny.p.x_scale = ties::f32_dyadic(1, -70), tiny.p.w_scales = {ties::f32_dyadic(1, -70)};
  tiny.p.y_scale = ties::f32_dyadic(1, 10);
  b.add_invalid(
      tiny, "quint8: S = fl32(2^-140 2^-10) = fl32(2^-150) = 0: \"requantization scale must be finite and positive\"");
}

// q made a quint8 problem: activation codes and both zero points moved up by 128 (the same
// accumulators, outputs 128 higher), the weights kept int8.
Problem as_quint8(Problem q) {
  q.p.x_type = DType::U8;
  q.p.x_zero_point = q.p.x_zero_point + 128, q.p.y_zero_point = q.p.y_zero_point + 128;
  for (auto& v : q.x.data) v += 128;
  return q;
}

// PyTorch's onednn engine: quint8 activations, oneDNN's float epilogue (the zero point before
// rounding, the bias added in float) with ideep's reciprocal scales; its rejections.
void add_pytorch_onednn_hand_cases(Builder& b, OpKind kind) {
  const Problem ties = as_quint8(unit_problem(kind, DType::I8, {1, 3, -1, -3, 5}, 0));
  b.add(ties,
        "zero points 128: ties 0.5 1.5 -0.5 -1.5 2.5 rounded after the zero point, half to even: "
        "128 130 128 126 130");
  Problem odd = ties;
  odd.p.y_zero_point = 3;
  odd.x.data.pop_back();
  if (kind == OpKind::Conv) odd.x.shape[1] = 4;
  if (kind == OpKind::Fc) odd.x.shape[0] = 4;
  b.add(odd, "odd output zero point 3 added before rounding: rne(k + 1/2 + 3): 4 4 2 2 (qnnpack: 3 5 3 1)");
  Problem sat = as_quint8(unit_problem(kind, DType::I8, {127, -128, 100, -100}, 0));
  sat.p.y_scale = ties::f32_dyadic(1, -2);  // M = 4
  b.add(sat, "M = 4 saturates at both ends: 255 0 255 0");
  // acc 1, bias 2^25 + 2: fl32(1) + fl32(2^25 + 2) = 1 + 2^25 -> 2^25, times M = 2^-26 is the tie 0.5
  // -> 0; the exact sum 2^25 + 3 (fl32: 2^25 + 4) gives 0.50000006 -> 1.
  Problem fb = as_quint8(unit_problem(kind, DType::I8, {1}, 0));
  fb.p.x_zero_point = 0, fb.p.y_zero_point = 0, fb.x.data = {1};
  fb.b = array_of({1}, [](std::int64_t) { return 33554434; });
  fb.p.y_scale = ties::f32_dyadic(1, 26);
  b.add(fb, "acc 1 with bias 2^25 + 2 added in float: 2^25 2^-26 = 0.5 -> 0 (the exact sum gives 1)");
  // acc 42991617 (a bias): fl32 42991616 = 20.5 2^21, times 2^-21: the tie 20.5 -> 20, exact 20.50000048 -> 21.
  Problem big = as_quint8(unit_problem(kind, DType::I8, {0}, 0));
  big.p.x_zero_point = 0, big.p.y_zero_point = 0, big.x.data = {0};
  big.b = array_of({1}, [](std::int64_t) { return 42991617; });
  big.p.y_scale = ties::f32_dyadic(1, 21);
  b.add(big, "acc 42991617 rounds to 42991616 in float32: 20.5 -> 20 where the real value 20.50000048 gives 21");
  // The reciprocal derivation: x_s = fl32(0.1), w_s = 1, y_s = 7: M = fl32(r(7) / fl32(r(0.1f) r(1))) is one
  // ulp above fl32(fl32(0.1f * 1) / 7): acc 35 gives 0.50000006 -> 1 where the quotient gives the tie 0.5 -> 0.
  Problem recip = as_quint8(unit_problem(kind, DType::I8, {35, 5, 105}, 0));
  recip.p.x_zero_point = 0, recip.p.y_zero_point = 0;
  for (auto& v : recip.x.data) v -= 128;
  recip.p.x_scale = 0x3dcccccdu;  // fl32(0.1)
  recip.p.y_scale = ties::f32_dyadic(7, 0);
  b.add(recip,
        "x_scale fl32(0.1), y_scale 7: ideep's reciprocal scales give M one ulp above x_s w_s / y_s: acc 35 "
        "-> 0.50000006 -> 1 (xnnpack.fp32's derivation: the tie 0.5 -> 0)");
  Problem per = as_quint8(unit_problem(kind, DType::I8, {0}, 0));
  per.x = array_of(kind == OpKind::Conv ? Dims{1, 1, 1, 2} : Dims{1, 2}, [](std::int64_t i) { return 129 + i; });
  per.w = array_of(kind == OpKind::Conv ? Dims{2, 1, 1, 2} : Dims{2, 2}, [](std::int64_t i) { return 2 * i - 1; });
  per.p.w_scales = {ties::f32_dyadic(1, -1), ties::f32_dyadic(1, -4)};
  per.p.y_scale = ties::f32_dyadic(1, 0);
  b.add(per, "per-channel weight scales 2^-1 and 2^-4 (exponents differ): acc 1 and 13: 128.5 -> 128, 128.8125 -> 129");
  b.add_invalid(unit_problem(kind, DType::I8, {1}, 0),
                "qint8 activations: \"data type of input should be QUint8\" (the onednn engine's check)");
  Problem wzp = ties;
  wzp.p.w_zero_point = 3;
  for (auto& v : wzp.w.data) v = 4;
  b.add_invalid(wzp,
                "w_zero_point 3: \"ONEDNN only supports symmetric quantization of weight, whose zero point "
                "must be 0\" (linear_prepack / conv_prepack)");
  Problem uw = unit_problem(kind, DType::U8, {1}, 128);
  b.add_invalid(uw, "uint8 weights: PyTorch's quantized weights are qint8");
  Problem zx = ties;
  zx.p.x_zero_point = 256;
  b.add_invalid(zx, "x_zero_point 256 does not fit quint8 (checkZeroPoint)");
  Problem nsc = ties;
  nsc.p.w_scales = {nsc.p.w_scales[0], nsc.p.w_scales[0]};
  b.add_invalid(nsc, "two weight scales for one output channel");
}

void add_common_hand_cases(Builder& b, OpKind kind) {
  const auto c = b.c;
  if (is_armnn(c)) return add_armnn_hand_cases(b, kind);
  if (is_pytorch_onednn(c)) return add_pytorch_onednn_hand_cases(b, kind);
  if (is_pytorch(c)) {
    add_pytorch_hand_cases(b, kind);
  } else if (is_onednn(c)) {
    add_onednn_hand_cases(b, kind);
  } else if (is_tosa(c)) {
    add_tosa_hand_cases(b, kind);
  } else if (is_tflite(c)) {
    add_tflite_hand_cases(b, kind);
  } else {
    // acc = 1, 3, -1, -3, 5 at S = 1/2: 0.5 1.5 -0.5 -1.5 2.5 round half to even: 0 2 -0 -2 2.
    b.add(unit_problem(kind, DType::I8, {1, 3, -1, -3, 5}, 0),
          "ties 0.5 1.5 -0.5 -1.5 2.5 at S = 1/2 round to even: 0 2 0 -2 2");
    b.add(unit_problem(kind, DType::U8, {1, 3, -1, -3, 5}, 128),
          "uint8, zero points 128: ties round to even before the zero point is added: 128 130 128 126 130");
    Problem odd = unit_problem(kind, DType::I8, {1, 3, -1, -3}, 0);
    odd.p.y_zero_point = 3;
    b.add(odd, "odd output zero point 3: rne(k + 1/2) + 3, not rne(k + 1/2 + 3): 3 5 3 1");
    Problem sat = unit_problem(kind, DType::I8, {127, -128, 100, -100}, 0);
    sat.p.y_scale = ties::f32_dyadic(1, -2);  // S = 4
    b.add(sat, "S = 4 saturates at both ends: 127 -128 127 -128");
  }
  // Invalid at every convention but oneDNN's (its zero points are s32: add_onednn_hand_cases).
  if (!is_onednn(c)) {
    Problem zx = unit_problem(kind, DType::I8, {1}, 0);
    zx.p.x_zero_point = 128;
    zx.x.data[0] = 127;
    b.add_invalid(zx, "x_zero_point 128 does not fit int8");
    Problem zy = unit_problem(kind, DType::U8, {1}, 128);
    zy.p.y_zero_point = 256;
    b.add_invalid(zy, "y_zero_point 256 does not fit uint8");
  }
  Problem su = unit_problem(kind, DType::I8, {1}, 0);
  su.p.x_type = DType::I8, su.p.w_type = DType::U8, su.p.w_zero_point = 128, su.w.data[0] = 129;
  b.add_invalid(su, "int8 activations with uint8 weights: no such operator or kernel");
  Problem nsc = unit_problem(kind, DType::I8, {1}, 0);
  nsc.p.w_scales = {nsc.p.w_scales[0], nsc.p.w_scales[0]};  // 2 scales, 1 output channel
  b.add_invalid(nsc, "two weight scales for one output channel");
  if (c == QLinearConvention::XnnpackFp32) {
    Problem s256 = unit_problem(kind, DType::I8, {1}, 0);
    s256.p.x_scale = ties::f32_dyadic(1, 4), s256.p.w_scales = {ties::f32_dyadic(1, 4)},
    s256.p.y_scale = ties::f32_dyadic(1, 0);
    b.add_invalid(s256, "requantization scale 16 * 16 / 1 = 256", {"scale_limit"});
    Problem below = s256;
    below.p.x_scale = 0x417fffffu;  // 15.999999
    b.add(below, "requantization scale 15.999999 * 16 = 255.99998 < 256 is accepted");
    Problem pcs = unit_problem(kind, DType::I8, {1}, 0);
    pcs.p.w_scales = {0x43800000u};  // 256
    pcs.p.x_scale = 0x40000000u;     // 2 (y_scale is 2)
    b.add_invalid(pcs, "requantization scale 2 * 256 / 2 = 256", {"scale_limit"});
    for (auto [bits, what] :
         std::vector<std::pair<std::uint32_t, const char*>>{{0x00000001u, "x_scale subnormal 2^-149"},
                                                            {0x00000000u, "x_scale 0"},
                                                            {0xbf800000u, "x_scale -1"},
                                                            {0x7f800000u, "x_scale +inf"},
                                                            {0x7fc00000u, "x_scale NaN"}}) {
      Problem bad = unit_problem(kind, DType::I8, {1}, 0);
      bad.p.x_scale = bits;
      b.add_invalid(bad, what, {"invalid_scale"});
    }
    Problem wsub = unit_problem(kind, DType::U8, {1}, 128);
    wsub.p.w_scales = {0x00400000u};
    b.add_invalid(wsub, "weight scale subnormal 2^-127", {"invalid_scale"});
    Problem ysub = unit_problem(kind, DType::I8, {1}, 0);
    ysub.p.y_scale = 0x807fffffu;
    b.add_invalid(ysub, "y_scale negative subnormal", {"invalid_scale"});
    Problem u8s8 = unit_problem(kind, DType::U8, {1}, 128);
    u8s8.p.w_type = DType::I8, u8s8.p.w_zero_point = 0, u8s8.w.data[0] = 1;
    b.add_invalid(u8s8, "uint8 activations with int8 weights: XNNPACK has no such operator");
    Problem wzp = unit_problem(kind, DType::I8, {1}, 0);
    wzp.p.w_zero_point = 1, wzp.w.data[0] = 2;
    b.add_invalid(wzp, "int8 weights with w_zero_point 1: qs8 takes no kernel zero point");
    Problem mm = unit_problem(kind, DType::I8, {1}, 0);
    mm.p.y_min = Int(5), mm.p.y_max = Int(5);
    b.add_invalid(mm, "y_min = y_max = 5: range min must be below range max");
    Problem mr = unit_problem(kind, DType::I8, {1}, 0);
    mr.p.y_min = Int(-129);
    b.add_invalid(mr, "y_min -129 does not fit int8");
    Problem narrow = unit_problem(kind, DType::I8, {1, 3, 40, -40}, 0);
    narrow.p.y_min = Int(-10), narrow.p.y_max = Int(1);
    b.add(narrow, "fused clamp [-10, 1]: 0 1 1 -10 (ties first, then the clamp)");
  } else if (c == QLinearConvention::OnnxRuntime) {
    Problem big = unit_problem(kind, DType::U8, {0, 1, -1, 3}, 100);
    big.p.x_scale = ties::f32_dyadic(1, 4), big.p.w_scales = {ties::f32_dyadic(3, 3)},
    big.p.y_scale = ties::f32_dyadic(1, 0);
    b.add(big, "requantization scale 16 * 24 = 384 >= 256: no limit in ONNX Runtime");
    Problem small = unit_problem(kind, DType::I8, {127, -128, 5, 0}, 0);
    small.p.x_scale = ties::f32_dyadic(1, -20), small.p.w_scales = {ties::f32_dyadic(1, -20)};
    small.p.y_scale = ties::f32_dyadic(1, -4);
    b.add(small, "requantization scale 2^-36 < 2^-32: every output is the zero point");
    Problem sub = unit_problem(kind, DType::U8, {100, -100, 3}, 128);
    sub.p.x_scale = ties::f32_dyadic(1, -70), sub.p.w_scales = {ties::f32_dyadic(1, -70)};
    sub.p.y_scale = 0x00000100u;  // 2^-141, subnormal
    b.add(sub, "x_scale * w_scale = 2^-140 is subnormal, / 2^-141 = 2 exactly: 328 -> 255, -72 -> 0, 134");
    Problem u8s8 = unit_problem(kind, DType::U8, {1, 3, -1, -3}, 128);
    u8s8.p.w_type = DType::I8, u8s8.p.w_zero_point = -7, u8s8.w.data[0] = -6;
    b.add(u8s8, "uint8 activations with int8 weights and w_zero_point -7: ties 128 130 128 126");
  }
}

// acc = 42991617 (odd) as a bias: fl32(acc) = 42991616 = 41 * 2^20, times S = 2^-21 is the tie
// 20.5 -> 20, while the exact value 20.50000048 rounds to 21.
void add_large_acc_case(Builder& b, OpKind kind) {
  Problem pr = unit_problem(kind, DType::I8, {0}, 0);
  pr.b = array_of({1}, [](std::int64_t) { return 42991617; });
  pr.p.y_scale = ties::f32_dyadic(1, 21);  // S = 2^-21
  b.add(pr, "acc 42991617 rounds to 42991616 in float32: 20.5 -> 20 where the real value 20.50000048 gives 21");
}

// ---- the families ----

Builder make_builder(std::string_view op, std::string_view conv) {
  return Builder{std::string(op), std::string(conv), refops::qlinear_convention_of(conv), {}};
}

// One family: the common hand cases, the op's own, then tie-rich, realistic, saturating and wide draws.
template <class Op>
Family qlinear_family(std::string_view conv, std::uint64_t seed, OpKind kind, int tie_rich, int realistic,
                      int saturating, void (*extra)(Rng&, Builder&)) {
  const std::string op(Op::op), cv(conv);
  return family<Op>(conv, notes_of(conv), seed, [op, cv, kind, tie_rich, realistic, saturating, extra](Rng& r) {
    Builder b = make_builder(op, cv);
    add_common_hand_cases(b, kind);
    if (kind != OpKind::Matmul && !is_tflite(b.c) && !is_armnn(b.c) && !is_pytorch_onednn(b.c))
      add_large_acc_case(b, kind);
    extra(r, b);
    b.add_random(
        tie_rich, [&] { return draw_tie_rich(r, kind, b.c); }, "tie-rich draw");
    b.add_random(
        realistic, [&] { return draw_realistic(r, kind, b.c, 0); }, "random");
    b.add_random(
        saturating, [&] { return draw_realistic(r, kind, b.c, 3); }, "random, saturating");
    // After the draws above, so that adding them left every earlier test as it was.
    int variant = 1;  // the tie-rich draw: a 3x3 convolution of groups 1 / several rows
    b.add_random(
        1, [&] { return draw_tie_rich(r, kind, b.c, variant); }, "tie-rich draw, wide");
    for (variant = 0; variant < 4; ++variant)  // each kind of draw_wide_*_shapes once
      b.add_random(
          1, [&] { return draw_realistic(r, kind, b.c, 0, variant); }, "random, wide");
    if (kind == OpKind::Conv) {  // after the draws above, for the same reason
      variant = kWideDirectDepthwise;
      b.add_random(
          1, [&] { return draw_realistic(r, kind, b.c, 0, variant); }, "random, wide, depthwise stride 1");
    }
    return std::vector<Group>{Group{OJ::object(), std::move(b.tests)}};
  });
}

// PyTorch's onednn engine's convolution cases (quint8): padding with the input zero point, a
// depthwise multiplier with per-channel scales, one padding per axis, geometry rejections.
void pytorch_onednn_conv_cases(Builder& b) {
  Problem pad = as_quint8(unit_problem(OpKind::Conv, DType::I8, {0}, 5));
  pad.x = array_of({1, 2, 2, 1}, [](std::int64_t i) { return 134 + i; });
  pad.w = array_of({1, 3, 3, 1}, [](std::int64_t i) { return i - 4; });
  pad.g.pads = {1, 1, 1, 1};
  pad.p.y_scale = ties::f32_dyadic(1, 0);
  b.add(pad, "pads 1 around a 2x2 input with x_zero_point 133: padded taps hold 133 and contribute 0");
  Problem dw;
  dw.kind = OpKind::Conv;
  dw.p.x_type = DType::U8, dw.p.w_type = DType::I8;
  dw.p.x_zero_point = 100, dw.p.y_zero_point = 90;
  dw.x = array_of({1, 3, 3, 2}, [](std::int64_t i) { return 100 + (i % 5) - 2; });
  dw.w = array_of({6, 2, 2, 1}, [](std::int64_t i) { return ((i % 3) - 1) << (i / 4 % 3); });
  dw.g.groups = 2;
  dw.g.pads = {1, 0, 1, 0};
  dw.g.dilations = {2, 1};
  dw.p.w_scales.clear();
  for (int o = 0; o < 6; ++o) dw.p.w_scales.push_back(ties::channel_w_scale(ties::tie_scale(1, o % 3), 0, 0));
  b.add(dw,
        "depthwise, multiplier 3, dilation (2, 1), pads (1, 0, 1, 0), x_zero_point 100 in the padding, "
        "per-channel scales 2^-1, 2^-2, 2^-3");
  Problem asym = dw;
  asym.g.pads = {0, 1, 1, 0};
  b.add_invalid(asym, "pads (0, 1, 1, 0): quantized::conv2d takes one padding per axis");
  Problem over = as_quint8(unit_problem(OpKind::Conv, DType::I8, {0}, 10));
  over.x = array_of({1, 1, 2, 1}, [](std::int64_t i) { return 139 + i; });
  over.w = array_of({1, 3, 3, 1}, [](std::int64_t i) { return i - 4; });
  b.add_invalid(over, "3x3 kernel over a 1x2 input, no padding: no output position", {"no_output_position"});
  Problem grp = as_quint8(unit_problem(OpKind::Conv, DType::I8, {0}, 0));
  grp.x = array_of({1, 1, 1, 3}, [](std::int64_t i) { return 128 + i; });
  grp.w = array_of({2, 1, 1, 1}, [](std::int64_t) { return 1; });
  grp.g.groups = 2;
  b.add_invalid(grp, "groups 2 do not divide C = 3");
  Problem bias = as_quint8(unit_problem(OpKind::Conv, DType::I8, {0}, 0));
  bias.b = array_of({2}, [](std::int64_t) { return 1; });
  b.add_invalid(bias, "bias of 2 entries for 1 output channel");
  Problem st = as_quint8(unit_problem(OpKind::Conv, DType::I8, {0}, 0));
  st.g.strides = {0, 1};
  b.add_invalid(st, "stride 0");
  Problem dl = as_quint8(unit_problem(OpKind::Conv, DType::I8, {0}, 0));
  dl.g.dilations = {1, 0};
  b.add_invalid(dl, "dilation 0");
}

// A convolution's hand cases: padding with a non-zero zero point, geometry rejections.
void conv_cases(Rng&, Builder& b) {
  if (is_pytorch_onednn(b.c)) return pytorch_onednn_conv_cases(b);
  const bool xnn = b.c == QLinearConvention::XnnpackFp32, tfl = is_tflite(b.c), tosa = is_tosa(b.c),
             pt = is_pytorch(b.c);
  const bool arm = is_armnn(b.c);
  // 3x3 kernel over a 2x2 input with pads 1: every window overhangs the input; x_zp = 5 fills the padding.
  Problem pad = unit_problem(OpKind::Conv, DType::I8, {0}, 5);
  pad.x = array_of({1, 2, 2, 1}, [](std::int64_t i) { return 6 + i; });
  pad.w = array_of({1, 3, 3, 1}, [](std::int64_t i) { return i - 4; });
  pad.g.pads = {1, 1, 1, 1};
  pad.p.y_scale = ties::f32_dyadic(1, 0);
  b.add(pad, "pads 1 around a 2x2 input with x_zero_point 5: padded taps hold 5 and contribute 0");
  // A 3x3 kernel over a 1x2 input with no padding: ONNX Runtime rejects it; XNNPACK's run crashes
  // (outside qlinear.xnnpack_fp32's REQUIREs: no vector).
  Problem over = unit_problem(OpKind::Conv, DType::U8, {0}, 10);
  over.x = array_of({1, 1, 2, 1}, [](std::int64_t i) { return 11 + i; });
  over.w = array_of({1, 3, 3, 1}, [](std::int64_t i) { return 120 + i; });
  over.p.y_scale = ties::f32_dyadic(1, 0);
  over.p.y_zero_point = 100;
  if (tosa) {
    Problem over8 = unit_problem(OpKind::Conv, DType::I8, {0}, 10);
    over8.x = array_of({1, 1, 2, 1}, [](std::int64_t i) { return 11 + i; });
    over8.w = array_of({1, 3, 3, 1}, [](std::int64_t i) { return i - 4; });
    b.add_invalid(over8, "3x3 kernel over a 1x2 input, no padding: no output position", {"no_output_position"});
  }
  if (!xnn && !tfl && !tosa && !arm && !is_onednn(b.c))  // oneDNN: a REQUIRE (no output position to compute)
    b.add_invalid(over, "3x3 kernel over a 1x2 input, no padding: no output position (Invalid input shape)",
                  {"no_output_position"});
  Problem grp = unit_problem(OpKind::Conv, DType::I8, {0}, 0);
  grp.x = array_of({1, 1, 1, 3}, [](std::int64_t i) { return i; });
  grp.w = array_of({2, 1, 1, 1}, [](std::int64_t) { return 1; });
  grp.g.groups = 2;
  b.add_invalid(grp, "groups 2 do not divide C = 3");
  Problem bias = unit_problem(OpKind::Conv, DType::I8, {0}, 0);
  bias.b = array_of({2}, [](std::int64_t) { return 1; });
  b.add_invalid(bias, "bias of 2 entries for 1 output channel");
  Problem st = unit_problem(OpKind::Conv, DType::I8, {0}, 0);
  st.g.strides = {0, 1};
  b.add_invalid(st, "stride 0");
  Problem dl = unit_problem(OpKind::Conv, DType::I8, {0}, 0);
  dl.g.dilations = {1, 0};
  b.add_invalid(dl, "dilation 0");
  Problem np = unit_problem(OpKind::Conv, DType::I8, {0}, 0);
  np.g.pads = {0, -1, 0, 0};
  b.add_invalid(np, "a negative pad");
  // Depthwise with multiplier 3 and per-channel scales of three exponents, all ties.
  Problem dw;
  dw.kind = OpKind::Conv;
  dw.p.x_type = dw.p.w_type = DType::I8;
  dw.x = array_of({1, 3, 3, 2}, [](std::int64_t i) { return (i % 5) - 2; });
  dw.w = array_of({6, 2, 2, 1}, [](std::int64_t i) { return ((i % 3) - 1) << (i / 4 % 3); });
  dw.g.groups = 2;
  dw.g.pads = tfl  ? std::array<std::int64_t, 4>{0, 0, 1, 1}
              : pt ? std::array<std::int64_t, 4>{1, 0, 1, 0}
                   : std::array<std::int64_t, 4>{0, 1, 1, 0};
  dw.p.w_scales.clear();
  for (int o = 0; o < 6; ++o) dw.p.w_scales.push_back(ties::channel_w_scale(ties::tie_scale(1, o % 3), 0, 0));
  if (arm) {  // one weight scale (E-ARMNN-1)
    dw.p.w_scales.resize(1);
    b.add(dw, "depthwise, multiplier 3, pads (0, 1, 1, 0), one weight scale 2^-1");
    return;
  }
  b.add(dw, tfl  ? "depthwise, multiplier 3, SAME pads (0, 0, 1, 1), per-channel scales 2^-1, 2^-2, 2^-3"
            : pt ? "depthwise, multiplier 3, pads (1, 0, 1, 0), per-channel scales 2^-1, 2^-2, 2^-3"
                 : "depthwise, multiplier 3, pads (0, 1, 1, 0), per-channel scales 2^-1, 2^-2, 2^-3");
  if (pt) {
    Problem asym = dw;
    asym.g.pads = {0, 1, 1, 0};
    b.add_invalid(asym, "pads (0, 1, 1, 0): quantized::conv2d takes one padding per axis");
    Problem udw = dw;
    udw.p.x_type = DType::U8, udw.p.x_zero_point = 100, udw.p.y_zero_point = 90;
    for (auto& v : udw.x.data) v += 100;
    b.add(udw, "quint8 depthwise, multiplier 3, x_zero_point 100 in the padding, per-channel scales 2^-1, 2^-2, 2^-3");
  }
  if (tfl) {
    Problem asym = dw;
    asym.g.pads = {0, 1, 1, 0};
    b.add_invalid(asym, "pads (0, 1, 1, 0): the width's (1, 0) is neither VALID's (0, 0) nor SAME's (0, 1)");
    Problem g2;
    g2.kind = OpKind::Conv;
    g2.x = array_of({1, 1, 1, 4}, [](std::int64_t i) { return i; });
    g2.w = array_of({2, 1, 1, 2}, [](std::int64_t) { return 1; });
    g2.g.groups = 2;
    b.add_invalid(g2, "groups 2 with C = 4: CONV_2D has no groups, DEPTHWISE_CONV_2D needs groups = C");
  }
}

void fc_cases(Rng&, Builder& b) {
  if (is_pytorch_onednn(b.c)) {
    Problem k = as_quint8(unit_problem(OpKind::Fc, DType::I8, {0}, 0));
    k.w = array_of({1, 2}, [](std::int64_t) { return 1; });
    b.add_invalid(k, "x (1, 1) with w (1, 2): K differs");
    Problem bias = as_quint8(unit_problem(OpKind::Fc, DType::I8, {0}, 0));
    bias.b = array_of({3}, [](std::int64_t) { return 0; });
    b.add_invalid(bias, "bias of 3 entries for 1 output channel");
    return;
  }
  if (is_armnn(b.c)) {
    // Products 161.29, 0.01, -161.29 (scales fl32(0.1)) in this order: the 0.01 is absorbed into
    // 161.29's precision, the sum is 0.0099945 and / s_y 3.498: 3, where the exact 3.5000001 gives 4.
    Problem order = unit_problem(OpKind::Fc, DType::I8, {0}, 0);
    order.x = array_of({1, 3}, [](std::int64_t i) { return i == 1 ? 1 : 127; });
    order.w = array_of({1, 3}, [](std::int64_t i) { return i == 0 ? 127 : i == 1 ? 1 : -127; });
    order.p.x_scale = order.p.w_scales[0] = 0x3dcccccdu;  // fl32(0.1)
    order.p.y_scale = 0x3b3b3ee7u;                        // ~0.0028571
    b.add(order, "the summation order: 161.29 + 0.01 - 161.29 in float is 0.0099945: 3 (the exact sum gives 4)");
  }
  if (is_pytorch(b.c)) {
    Problem pc = unit_problem(OpKind::Fc, DType::I8, {1, 3}, 0);
    pc.w = array_of({2, 1}, [](std::int64_t) { return 1; });
    pc.p.w_scales = {ties::f32_dyadic(1, 0), ties::f32_dyadic(1, 1)};
    b.add_invalid(pc, "qint8 linear with per-channel weights: \"Unsupported config for dtype KQInt8\"");
    Problem upc = pc;
    upc.p.x_type = DType::U8, upc.p.x_zero_point = 128, upc.p.y_zero_point = 128;
    for (auto& v : upc.x.data) v += 128;
    b.add(upc,
          "quint8 linear with per-channel scales 1, 2: S = 1/2 (channel 0: ties 1/2, 3/2) and 1 (channel 1): 128 129 "
          "130 131");
  }
  Problem k = unit_problem(OpKind::Fc, DType::I8, {0}, 0);
  k.w = array_of({1, 2}, [](std::int64_t) { return 1; });
  b.add_invalid(k, "x (1, 1) with w (1, 2): K differs");
  Problem bias = unit_problem(OpKind::Fc, DType::I8, {0}, 0);
  bias.b = array_of({3}, [](std::int64_t) { return 0; });
  b.add_invalid(bias, "bias of 3 entries for 1 output channel");
}

void matmul_cases(Rng&, Builder& b) {
  Problem k = unit_problem(OpKind::Matmul, DType::I8, {0}, 0);
  k.w = array_of({2, 1}, [](std::int64_t) { return 1; });
  b.add_invalid(k, "a (1, 1) with b (2, 1): K differs");
  Problem bb;
  bb.kind = OpKind::Matmul;
  bb.x = array_of({2, 1, 1}, [](std::int64_t) { return 1; });
  bb.w = array_of({3, 1, 1}, [](std::int64_t) { return 1; });
  b.add_invalid(bb, "batch dimensions 2 and 3 do not broadcast");
  // K = 600 at the extremes: acc = 600 * 255 * 128 = 19584000 > 2^24 (uint8: 600 * 255 * 255 with
  // zero points 0; int8: (-128 - 127) * -128 with b_zero_point 0).
  Problem big;
  big.kind = OpKind::Matmul;
  big.p.x_type = big.p.w_type = DType::I8;
  big.p.x_zero_point = 127;
  big.x = array_of({1, 600}, [](std::int64_t i) { return i == 0 ? -127 : -128; });
  big.w = array_of({600, 2}, [](std::int64_t i) { return i == 1 ? 127 : -128; });
  big.p.y_scale = ties::f32_dyadic(1, 18);  // S = 2^-18
  b.add(big, "K = 600 at the ends of int8: accumulators near 1.96e7 > 2^24 round in float32");
  if (b.c == QLinearConvention::OnnxRuntime) {
    Problem u = big;
    u.p.x_type = DType::U8, u.p.w_type = DType::I8;
    u.p.x_zero_point = 0;
    u.x = array_of({1, 600}, [](std::int64_t i) { return i == 0 ? 254 : 255; });
    u.p.y_zero_point = 200;
    b.add(u, "uint8 x int8, K = 600: accumulators near -1.96e7");
  }
}

using Conv = cat::qlinear_conv2d;
using Fc = cat::qlinear_fully_connected;
using Mm = cat::qlinear_matmul;
QSPEC_REGISTER_VECTOR_FAMILY(qlinear_family<Conv>(Conv::conv::xnnpack_fp32, 1401, OpKind::Conv, 260, 200, 60,
                                                  conv_cases));
QSPEC_REGISTER_VECTOR_FAMILY(qlinear_family<Conv>(Conv::conv::onnxruntime, 1402, OpKind::Conv, 260, 200, 60,
                                                  conv_cases));
QSPEC_REGISTER_VECTOR_FAMILY(qlinear_family<Fc>(Fc::conv::xnnpack_fp32, 1411, OpKind::Fc, 220, 160, 50, fc_cases));
QSPEC_REGISTER_VECTOR_FAMILY(qlinear_family<Fc>(Fc::conv::onnxruntime, 1412, OpKind::Fc, 220, 160, 50, fc_cases));
QSPEC_REGISTER_VECTOR_FAMILY(qlinear_family<Mm>(Mm::conv::xnnpack_fp32, 1421, OpKind::Matmul, 220, 160, 50,
                                                matmul_cases));
QSPEC_REGISTER_VECTOR_FAMILY(qlinear_family<Mm>(Mm::conv::onnxruntime, 1422, OpKind::Matmul, 220, 160, 50,
                                                matmul_cases));
QSPEC_REGISTER_VECTOR_FAMILY(qlinear_family<Conv>(Conv::conv::tflite_double_round, 1403, OpKind::Conv, 260, 200, 60,
                                                  conv_cases));
QSPEC_REGISTER_VECTOR_FAMILY(qlinear_family<Conv>(Conv::conv::tflite_single_round, 1404, OpKind::Conv, 260, 200, 60,
                                                  conv_cases));
QSPEC_REGISTER_VECTOR_FAMILY(qlinear_family<Fc>(Fc::conv::tflite_double_round, 1413, OpKind::Fc, 220, 160, 50,
                                                fc_cases));
QSPEC_REGISTER_VECTOR_FAMILY(qlinear_family<Fc>(Fc::conv::tflite_single_round, 1414, OpKind::Fc, 220, 160, 50,
                                                fc_cases));
QSPEC_REGISTER_VECTOR_FAMILY(qlinear_family<Mm>(Mm::conv::tflite_double_round, 1423, OpKind::Matmul, 220, 160, 50,
                                                matmul_cases));
QSPEC_REGISTER_VECTOR_FAMILY(qlinear_family<Mm>(Mm::conv::tflite_single_round, 1424, OpKind::Matmul, 220, 160, 50,
                                                matmul_cases));
QSPEC_REGISTER_VECTOR_FAMILY(qlinear_family<Conv>(Conv::conv::tosa, 1405, OpKind::Conv, 260, 200, 60, conv_cases));
QSPEC_REGISTER_VECTOR_FAMILY(qlinear_family<Fc>(Fc::conv::tosa, 1415, OpKind::Fc, 220, 160, 50, fc_cases));
QSPEC_REGISTER_VECTOR_FAMILY(qlinear_family<Mm>(Mm::conv::tosa, 1425, OpKind::Matmul, 220, 160, 50, matmul_cases));
QSPEC_REGISTER_VECTOR_FAMILY(qlinear_family<Conv>(Conv::conv::onednn, 1406, OpKind::Conv, 150, 110, 30, conv_cases));
QSPEC_REGISTER_VECTOR_FAMILY(qlinear_family<Fc>(Fc::conv::onednn, 1416, OpKind::Fc, 120, 90, 25, fc_cases));
QSPEC_REGISTER_VECTOR_FAMILY(qlinear_family<Mm>(Mm::conv::onednn, 1426, OpKind::Matmul, 120, 90, 25, matmul_cases));
QSPEC_REGISTER_VECTOR_FAMILY(qlinear_family<Conv>(Conv::conv::armnn_cpuref, 1406, OpKind::Conv, 260, 200, 60,
                                                  conv_cases));
QSPEC_REGISTER_VECTOR_FAMILY(qlinear_family<Fc>(Fc::conv::armnn_cpuref, 1416, OpKind::Fc, 220, 160, 50, fc_cases));
QSPEC_REGISTER_VECTOR_FAMILY(qlinear_family<Conv>(Conv::conv::pytorch_qnnpack, 1406, OpKind::Conv, 260, 200, 60,
                                                  conv_cases));
QSPEC_REGISTER_VECTOR_FAMILY(qlinear_family<Fc>(Fc::conv::pytorch_qnnpack, 1416, OpKind::Fc, 220, 160, 50, fc_cases));
QSPEC_REGISTER_VECTOR_FAMILY(qlinear_family<Conv>(Conv::conv::pytorch_onednn, 1407, OpKind::Conv, 150, 110, 30,
                                                  conv_cases));
QSPEC_REGISTER_VECTOR_FAMILY(qlinear_family<Fc>(Fc::conv::pytorch_onednn, 1417, OpKind::Fc, 120, 90, 25, fc_cases));

}  // namespace
}  // namespace qspec::vecgen
