// Vector families of the engines' quantized pooling operators (spec/operators_qlinear_pool.md):
// ops/qlinear/{avg_pool2d,global_avg_pool,max_pool2d}/<convention>.json.
//
// Inputs only; expected outputs come from the reference ops (reference/ops/ops_qlinear_pool.cc).
// Each family mixes hand cases (named by their comments), tie-rich draws (power-of-two counts and
// dyadic scales, so the value before the rounding is an exact k + 1/2 for about a quarter of the
// windows), realistic draws, saturating draws, wide draws (17-70 channels: the optimized kernels'
// blocks; qspec/vecgen/wide_shapes.h) and the parameters each engine rejects (invalid tests). A valid test's flags are
// computed from the problem and the reference's output, never claimed by hand.
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
#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear_pool.h"
#include "qspec/ref/rounding.h"
#include "qspec/ref/tflite_tosa.h"
#include "qspec/refops.h"
#include "qspec/vecgen.h"
#include "qspec/vecgen/classify.h"
#include "qspec/vecgen/qlinear_tensors.h"
#include "qspec/vecgen/ties.h"
#include "qspec/vecgen/wide_shapes.h"

namespace qspec::vecgen {
namespace {

using qlinear::hi_of;
using qlinear::lo_of;

namespace ro = qspec::ref::ops;
using OJ = nlohmann::ordered_json;
using ref::Int;
using ref::Rat;
using ro::IntArray;
using ro::QPoolConvention;
using Dims = std::vector<std::int64_t>;
using Avg = cat::qlinear_avg_pool2d;
using Gap = cat::qlinear_global_avg_pool;
using Max = cat::qlinear_max_pool2d;

enum class Kind { Avg, Gap, Max };

struct Problem {
  Kind kind = Kind::Avg;
  ro::QPoolParams p;
  IntArray x;
  ro::QPoolGeometry g;
  bool count_include_pad = false;
  bool drawn = false;
  bool wide = false;  // a shape of wide::draw_pool (flag "wide")
};

template <class Key>
void put(OJ& a, const Key& key, const Int& v) {
  attr::set_unchecked(a, key, static_cast<std::int64_t>(v));
}

Test to_test(const Problem& pr, std::string comment, bool invalid = false) {
  Test t;
  t.comment = std::move(comment);
  t.invalid = invalid;
  const auto& p = pr.p;
  const auto& g = pr.g;
  OJ a = OJ::object();
  auto scales = [&](const auto& A) {
    attr::set(a, A.x_scale, p.x_scale);
    put(a, A.x_zero_point, p.x_zero_point);
    attr::set(a, A.y_scale, p.y_scale);
    put(a, A.y_zero_point, p.y_zero_point);
  };
  auto clamp = [&](const auto& A) {
    if (p.y_min) put(a, A.y_min, *p.y_min);
    if (p.y_max) put(a, A.y_max, *p.y_max);
  };
  if (pr.kind == Kind::Avg) {
    using A = Avg::attr;
    attr::set_unchecked(a, A::kernel, Dims{g.kernel[0], g.kernel[1]});
    attr::set_unchecked(a, A::strides, Dims{g.strides[0], g.strides[1]});
    attr::set_unchecked(a, A::pads, Dims(g.pads.begin(), g.pads.end()));
    attr::set(a, A::count_include_pad, pr.count_include_pad);
    scales(A{});
    clamp(A{});
  } else if (pr.kind == Kind::Gap) {
    scales(Gap::attr{});
    clamp(Gap::attr{});
  } else {
    using A = Max::attr;
    attr::set_unchecked(a, A::kernel, Dims{g.kernel[0], g.kernel[1]});
    attr::set_unchecked(a, A::strides, Dims{g.strides[0], g.strides[1]});
    attr::set_unchecked(a, A::pads, Dims(g.pads.begin(), g.pads.end()));
    if (g.dilations[0] != 1 || g.dilations[1] != 1)
      attr::set_unchecked(a, A::dilations, Dims{g.dilations[0], g.dilations[1]});
    clamp(A{});
  }
  t.attributes = std::move(a);
  std::vector<std::int64_t> d;
  for (const auto& v : pr.x.data) d.push_back(static_cast<std::int64_t>(v));
  t.inputs = {tensor(std::string(Avg::in::x), p.type, pr.x.shape, d)};
  return t;
}

// ---- what the reference's arithmetic says about a valid problem (for its flags) ----

bool any_pad(const ro::QPoolGeometry& g) {
  return std::any_of(g.pads.begin(), g.pads.end(), [](std::int64_t v) { return v > 0; });
}
bool half_integer(const Rat& v) { return ref::denominator(v * 2) == 1 && ref::numerator(v * 2) % 2 != 0; }

// The exact value each output rounds, where the convention rounds one (for the "tie" flag).
std::vector<Rat> rounded_values(const Problem& pr, QPoolConvention c) {
  std::vector<Rat> out;
  if (pr.kind == Kind::Max) return out;
  const auto& p = pr.p;
  ro::QPoolGeometry g = pr.g;
  std::int64_t oh = 1, ow = 1;
  if (pr.kind == Kind::Gap) {
    g = ro::QPoolGeometry{};
    g.kernel = {pr.x.dim(1), pr.x.dim(2)};
  } else {
    const auto size = ro::qlinear_pool_out_size(pr.x.shape, g);
    oh = size[0];
    ow = size[1];
  }
  const std::int64_t K = g.kernel[0] * g.kernel[1], H = pr.x.dim(1), W = pr.x.dim(2);
  const bool xnn_global = H + g.pads[0] + g.pads[2] == g.kernel[0] && W + g.pads[1] + g.pads[3] == g.kernel[1];
  const bool ort_global = H == g.kernel[0] && W == g.kernel[1] && !any_pad(g);
  for (const auto& codes : ro::qlinear_pool_window_codes(pr.x, g, oh, ow)) {
    Int acc(0);
    for (const auto& v : codes) acc += v - p.x_zero_point;
    const auto fp32_product = [&](std::int64_t n) {
      const std::uint32_t s = ref::f32_div(p.x_scale, ref::f32_mul(p.y_scale, ref::f32_from_int(Int(n))));
      return ref::f32_value(ref::f32_mul(ref::f32_from_int(acc), s));
    };
    if (c == QPoolConvention::ArmnnCpuref) {
      if (codes.empty()) continue;  // a window in the padding: 0.0f, no rounding
      const std::int64_t n = pr.kind == Kind::Gap || pr.count_include_pad ? K : static_cast<std::int64_t>(codes.size());
      out.push_back(ref::f32_value(ref::f32_div(ro::qlinear_armnn_avgpool_value(codes, n, p), p.y_scale)));
    } else if (c == QPoolConvention::XnnpackFp32) {
      const std::uint32_t s = ref::f32_div(p.x_scale, ref::f32_mul(p.y_scale, ref::f32_from_int(Int(K))));
      out.push_back(pr.kind == Kind::Avg && !xnn_global ? Rat(acc) * ref::f32_value(s) : fp32_product(K));
    } else if (c == QPoolConvention::OnnxRuntime) {
      if (pr.kind == Kind::Gap || ort_global) {
        out.push_back(fp32_product(K));
        continue;
      }
      std::uint32_t sum = 0;
      for (const auto& v : codes)
        sum = ref::f32_add(sum, ref::f32_mul(p.x_scale, ref::f32_from_int(v - p.x_zero_point)));
      const std::int64_t n = pr.count_include_pad ? K : static_cast<std::int64_t>(codes.size());
      const std::uint32_t m = ref::f32_div(sum, ref::f32_from_int(Int(n)));
      out.push_back(ref::f32_value(ref::f32_add(ref::f32_div(m, p.y_scale), ref::f32_from_int(p.y_zero_point))));
    } else if (c == QPoolConvention::OneDnn) {
      // oneDNN averages the codes: q = fl32(fl32(s) * fl32(1 / c)) (jit) or fl32(fl32(s) / fl32(c)) (ref).
      Int s(0);
      for (const auto& v : codes) s += v;
      const std::int64_t n =
          pr.kind == Kind::Avg && !pr.count_include_pad ? static_cast<std::int64_t>(codes.size()) : K;
      const std::uint32_t fs = ref::f32_from_int(s), fc = ref::f32_from_int(Int(n));
      const bool jit = ro::qlinear_onednn_pool_path(pr.x.shape, g, nullptr) == ro::OneDnnPoolPath::Jit;
      out.push_back(ref::f32_value(jit ? ref::f32_mul(fs, ref::f32_div(0x3f800000u, fc)) : ref::f32_div(fs, fc)));
    } else if (c == QPoolConvention::Tosa && pr.kind == Kind::Gap) {  // the output RESCALE's acc M / 2^s
      const auto m = ro::qlinear_tosa_mean_scale(p, K);
      out.push_back(Rat(acc * m.multiplier, ref::pow2(static_cast<unsigned>(m.shift))));
    } else if (pr.kind == Kind::Avg) {  // TFLite, and TOSA (the exact average; see kTosaNotes)
      if (codes.empty()) continue;
      Int s(0);
      for (const auto& v : codes) s += v;
      out.push_back(Rat(s, Int(static_cast<std::int64_t>(codes.size()))));
    } else {
      const std::uint64_t real = ref::f64_div(ref::f64_from_f32(p.x_scale), ref::f64_from_f32(p.y_scale));
      const auto m = ref::tflite_quantize_multiplier(real);
      out.push_back(Rat(ref::tflite_multiply_by_quantized_multiplier_double_round(acc, m.multiplier, m.shift), Int(K)));
    }
  }
  return out;
}

// oneDNN's two implementations: "ref_path" where a pad is not below its kernel dimension (ref_pooling
// divides), "reciprocal_differs" where a window's output differs between the jit kernels' reciprocal
// and ref's division (the output the clause's path gives is the vector's).
void onednn_flags(const Problem& pr, std::set<std::string>& f) {
  ro::QPoolGeometry g = pr.g;
  std::int64_t oh = 1, ow = 1;
  if (pr.kind == Kind::Gap) {
    g = ro::QPoolGeometry{};
    g.kernel = {pr.x.dim(1), pr.x.dim(2)};
  } else {
    const auto size = ro::qlinear_pool_out_size(pr.x.shape, g);
    oh = size[0];
    ow = size[1];
  }
  if (ro::qlinear_onednn_pool_path(pr.x.shape, g, nullptr) == ro::OneDnnPoolPath::Ref) f.insert("ref_path");
  const std::int64_t K = g.kernel[0] * g.kernel[1];
  for (const auto& codes : ro::qlinear_pool_window_codes(pr.x, g, oh, ow)) {
    Int s(0);
    for (const auto& v : codes) s += v;
    const std::int64_t n = pr.kind == Kind::Avg && !pr.count_include_pad ? static_cast<std::int64_t>(codes.size()) : K;
    if (ro::qlinear_onednn_avgpool_output(s, n, ro::OneDnnPoolPath::Jit, pr.p) !=
        ro::qlinear_onednn_avgpool_output(s, n, ro::OneDnnPoolPath::Ref, pr.p))
      f.insert("reciprocal_differs");
  }
}

std::vector<std::string> auto_flags(const Problem& pr, QPoolConvention c, const Tensor& y) {
  std::set<std::string> f;
  const auto& p = pr.p;
  const auto& g = pr.g;
  int ties = 0;
  for (const auto& v : rounded_values(pr, c)) {
    ties += half_integer(v) ? 1 : 0;
    // Arm NN's std::round: a tie whose half-away rounding differs from half to even.
    if (c == QPoolConvention::ArmnnCpuref && half_integer(v) && ref::round_half_away(v) != ref::round_half_even(v))
      f.insert("away_tie");
  }
  if (ties > 0) f.insert("tie");
  const std::int64_t tmin = lo_of(p.type), tmax = hi_of(p.type);
  const bool narrowed = (p.y_min && *p.y_min > tmin) || (p.y_max && *p.y_max < tmax);
  for (auto v : y.data) {
    if (narrowed && ((p.y_min && v == *p.y_min) || (p.y_max && v == *p.y_max))) f.insert("narrow_clamp");
    if (!narrowed && v == tmin && pr.kind != Kind::Max) f.insert("saturate_low");
    if (!narrowed && v == tmax && pr.kind != Kind::Max) f.insert("saturate_high");
  }
  if (p.type == DType::U8) f.insert("uint8");
  if (pr.kind != Kind::Gap) {
    const auto [oh, ow] = ro::qlinear_pool_out_size(pr.x.shape, g);
    if (any_pad(g)) {
      f.insert(pr.kind == Kind::Avg ? (pr.count_include_pad ? "count_include_pad" : "count_exclude_pad") : "padded");
      if (p.x_zero_point != 0 && pr.kind == Kind::Avg) f.insert("pad_zero_point");
    }
    if (g.pads[0] != g.pads[2] || g.pads[1] != g.pads[3]) f.insert("asymmetric_pads");
    if (g.strides[0] > 1 || g.strides[1] > 1) f.insert("strides");
    if (g.dilations[0] > 1 || g.dilations[1] > 1) f.insert("dilation");
    for (const auto& w : ro::qlinear_pool_window_codes(pr.x, g, oh, ow))
      if (w.empty()) f.insert(pr.kind == Kind::Avg ? "window_in_padding" : "empty_window");
    const std::int64_t H = pr.x.dim(1), W = pr.x.dim(2);
    if (pr.kind == Kind::Avg) {
      if (c == QPoolConvention::XnnpackFp32 && H + g.pads[0] + g.pads[2] == g.kernel[0] &&
          W + g.pads[1] + g.pads[3] == g.kernel[1])
        f.insert("global_path");
      if (c == QPoolConvention::OnnxRuntime && H == g.kernel[0] && W == g.kernel[1] && !any_pad(g))
        f.insert("global_path");
    }
  }
  if (pr.kind == Kind::Gap && p.x_scale != p.y_scale) f.insert("rescaled");
  if (c == QPoolConvention::Tosa && pr.kind == Kind::Gap) {
    if (ro::qlinear_tosa_mean_scale(p, pr.x.dim(1) * pr.x.dim(2)).shift > 31) f.insert("double_round");
    // The same input under tflite.double_round (TFLite's int8 Mean: same ERROR_IFs, no clamp).
    try {
      if (!(ro::qlinear_global_avg_pool(pr.x, p, QPoolConvention::Tflite) ==
            ro::qlinear_global_avg_pool(pr.x, p, QPoolConvention::Tosa)))
        f.insert("tflite_differs");
    } catch (const std::exception&) {  // TFLite REQUIREs what TOSA accepts (e.g. a shift above 30)
    }
  }
  if (c == QPoolConvention::OneDnn && pr.kind != Kind::Max) onednn_flags(pr, f);
  if (pr.drawn) f.insert("random");
  if (pr.wide) f.insert("wide");
  return {f.begin(), f.end()};
}

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
  QPoolConvention c;
  Kind kind;
  std::vector<Test> tests;

  void add(const Problem& pr, const std::string& comment) {
    Test t = to_test(pr, comment);
    std::vector<Tensor> out;
    if (classify(op, conv, t.attributes, t.inputs, &out) != Verdict::Valid)
      throw std::logic_error("vecgen " + op + " / " + conv + ": hand case '" + comment +
                             "' is not valid: " + reference_message(t, op, conv));
    finish(pr, t, out);
  }
  void add_invalid(const Problem& pr, const std::string& comment, std::vector<std::string> flags = {}) {
    Test t = to_test(pr, "invalid: " + comment, true);
    if (classify(op, conv, t.attributes, t.inputs) != Verdict::Invalid)
      throw std::logic_error("vecgen " + op + " / " + conv + ": '" + comment +
                             "' is not rejected: " + reference_message(t, op, conv));
    t.flags = std::move(flags);
    tests.push_back(std::move(t));
  }
  void add_random(int n, const std::function<Problem()>& draw, const std::string& what) {
    for (int i = 0; i < n; ++i)
      for (int attempt = 0;; ++attempt) {
        Problem pr = draw();
        pr.drawn = true;
        Test t = to_test(pr, what);
        std::vector<Tensor> out;
        if (classify(op, conv, t.attributes, t.inputs, &out) == Verdict::Valid) {
          finish(pr, t, out);
          break;
        }
        if (attempt > 200) throw std::logic_error("vecgen " + op + " / " + conv + ": cannot draw a valid " + what);
      }
  }
  void finish(const Problem& pr, Test& t, const std::vector<Tensor>& out) {
    t.flags = auto_flags(pr, c, out.at(0));
    int ties = 0;
    const auto vals = rounded_values(pr, c);
    for (const auto& v : vals) ties += half_integer(v) ? 1 : 0;
    if (ties > 0)
      t.comment += " (" + std::to_string(ties) + " of " + std::to_string(vals.size()) + " outputs are exact ties)";
    tests.push_back(std::move(t));
  }
  bool xnn() const { return c == QPoolConvention::XnnpackFp32; }
  bool ort() const { return c == QPoolConvention::OnnxRuntime; }
  bool tfl() const { return c == QPoolConvention::Tflite; }
  bool dnn() const { return c == QPoolConvention::OneDnn; }
  bool armnn() const { return c == QPoolConvention::ArmnnCpuref; }
  bool tosa() const { return c == QPoolConvention::Tosa; }
};

const std::vector<std::pair<std::string, std::string>> kNotes = {
    {"tie", "at least one output's value before the rounding is an exact k + 1/2"},
    {"saturate_low", "an output is the dtype's minimum"},
    {"saturate_high", "an output is the dtype's maximum"},
    {"narrow_clamp", "an output is at a fused clamp bound y_min / y_max narrower than the dtype"},
    {"count_include_pad", "padding, divided by KH KW (the padding counts as real 0)"},
    {"count_exclude_pad", "padding, divided by the taps inside the input"},
    {"padded", "a non-zero pad"},
    {"pad_zero_point", "padding with a non-zero input zero point"},
    {"asymmetric_pads", "top != bottom or left != right padding"},
    {"strides", "a stride > 1"},
    {"dilation", "a dilation > 1"},
    {"uint8", "uint8 tensors"},
    {"global_path", "the kernel covers the (padded) input: the engine runs its global-pooling kernel"},
    {"window_in_padding", "a window entirely in the padding (its sum is 0)"},
    {"empty_window", "a window without a tap inside the input: the dtype's minimum (then the clamp)"},
    {"rescaled", "x_scale != y_scale"},
    {"scale_limit", "a requantization scale or scale ratio the engine rejects"},
    {"random", "random draw"},
    wide::pool_note(),
};

// oneDNN's families add the two implementations' flags; Arm NN's also name the ties where its
// half-away rounding differs from half to even (the other families' notes stay as they are).
template <class Op>
std::vector<std::pair<std::string, std::string>> notes_of(std::string_view conv) {
  auto n = kNotes;
  if (conv == Op::conv::onednn) {
    n.emplace_back("ref_path", "a pad not below its kernel dimension: oneDNN runs ref_pooling (fl32(s) / fl32(c))");
    n.emplace_back("reciprocal_differs",
                   "a window whose output differs between the jit kernels' fl32(s) * fl32(1 / c) and ref's division");
  }
  if (conv == Op::conv::armnn_cpuref)
    n.insert(n.end() - 1,
             {"away_tie", "an exact tie whose half-away rounding differs from half to even (Arm NN's std::round)"});
  return n;
}

// TOSA never rounds an exact half: reciprocal_scale's multiplier exceeds 2^s / count, so its "tie"
// is an exact average k + 1/2, which apply_scale_32 sees at most 2^-30 relative beyond (away from 0).
std::vector<std::pair<std::string, std::string>> tosa_notes() {
  auto n = kNotes;
  for (auto& [flag, text] : n)
    if (flag == "tie")
      text =
          "at least one window's exact average (sum of codes / taps inside) is k + 1/2: TOSA's value before "
          "the rounding is then just beyond it, away from zero";
  return n;
}

// ---- drawing ----

std::uint32_t f32_bits(std::int64_t m, int e) { return ties::f32_dyadic(m, e); }

// A random positive normal float32 2^e (1 + m / 2^23), often with a short mantissa.
std::uint32_t random_scale(Rng& r, int e) {
  const std::uint32_t m = r.coin() ? static_cast<std::uint32_t>(r.uniform(0, (1 << 23) - 1))
                                   : static_cast<std::uint32_t>(r.uniform(0, 15)) << 19;
  return (static_cast<std::uint32_t>(e + 127) << 23) | m;
}

DType draw_type(Rng& r, const Builder& b) {
  if (b.xnn() && b.kind == Kind::Avg) return DType::U8;  // qu8 only
  if (b.tfl() && b.kind == Kind::Gap) return DType::I8;  // the int8 Mean kernel
  if (b.tosa()) return DType::I8;                        // AVG_POOL2D has no uint8 form
  return r.coin() ? DType::U8 : DType::I8;
}

IntArray random_codes(Rng& r, const Dims& shape, DType t, std::int64_t center, std::int64_t spread) {
  IntArray a(shape);
  for (auto& v : a.data) {
    const std::int64_t d = r.uniform(-spread, spread);
    v = Int(std::clamp(center + d, lo_of(t), hi_of(t)));
  }
  return a;
}

// Geometry of a windowed pool under the convention's rules (pads < kernel for ONNX Runtime).
ro::QPoolGeometry draw_geometry(Rng& r, const Builder& b, bool pow2_kernel) {
  ro::QPoolGeometry g;
  if (pow2_kernel) {
    const std::int64_t choices[] = {1, 2, 4};
    g.kernel = {choices[r.uniform(0, 2)], choices[r.uniform(0, 2)]};
    if (g.kernel[0] * g.kernel[1] == 1) g.kernel[1] = 2;
  } else {
    g.kernel = {r.uniform(1, 3), r.uniform(1, 3)};
    if (g.kernel[0] * g.kernel[1] == 1) g.kernel[0] = 2;
  }
  g.strides = {r.uniform(0, 2) == 0 ? 2 : 1, r.uniform(0, 2) == 0 ? 2 : 1};
  if (b.kind == Kind::Max && !b.tfl() && !b.armnn() && !b.tosa() && r.uniform(0, 3) == 0)
    g.dilations = {r.uniform(1, 2), r.uniform(1, 2)};
  for (std::size_t i = 0; i < 4; ++i) {
    const std::int64_t k = g.kernel[i % 2];
    const std::int64_t pmax = b.ort() || b.tosa() ? k - 1 : std::min<std::int64_t>(k, 2);
    g.pads[i] = r.uniform(0, 2) == 0 ? 0 : r.uniform(0, pmax);
  }
  return g;
}

Dims draw_shape(Rng& r, const ro::QPoolGeometry& g) {
  const std::int64_t eh = g.dilations[0] * (g.kernel[0] - 1) + 1, ew = g.dilations[1] * (g.kernel[1] - 1) + 1;
  const std::int64_t h = std::max<std::int64_t>(1, eh - g.pads[0] - g.pads[2]) + r.uniform(0, 3);
  const std::int64_t w = std::max<std::int64_t>(1, ew - g.pads[1] - g.pads[3]) + r.uniform(0, 3);
  return {r.uniform(0, 4) == 0 ? 2 : 1, h, w, r.uniform(1, 3)};
}

// mode 0: realistic scales and codes; 1: tie-rich (dyadic scales, power-of-two counts); 2: saturating.
// wide: the variant of a wide::draw_pool shape (mode 0; codes around x's zero point, no fused clamp,
// so that most outputs of the kernels' blocks are not at a bound), none for the small shapes.
Problem draw(Rng& r, const Builder& b, int mode, std::optional<int> wide = std::nullopt) {
  Problem pr;
  pr.kind = b.kind;
  pr.wide = wide.has_value();
  auto& p = pr.p;
  p.type = draw_type(r, b);
  const bool pooled = b.kind != Kind::Gap;
  Dims shape;
  if (wide) {
    const wide::Pool w = wide::draw_pool(r, *wide, false);
    if (pooled) pr.g.kernel = {w.kh, w.kw}, pr.g.strides = {w.sh, w.sw}, pr.g.pads = w.pads;
    shape = {w.N, w.H, w.W, w.C};  // a global pooling's window: the whole image
  } else if (pooled) {
    pr.g = draw_geometry(r, b, mode == 1);
    shape = draw_shape(r, pr.g);
  } else {
    const std::int64_t pow2[] = {1, 2, 4};
    shape = {r.uniform(1, 2), mode == 1 ? pow2[r.uniform(0, 2)] : r.uniform(1, 5),
             mode == 1 ? pow2[r.uniform(1, 2)] : r.uniform(1, 5), r.uniform(1, 4)};
  }
  if (b.kind == Kind::Avg && wide)  // both divisors where the convention has the choice
    pr.count_include_pad = b.xnn() || (!b.tfl() && !b.tosa() && *wide % 2 == 1);
  else if (b.kind == Kind::Avg)
    pr.count_include_pad = b.xnn() ? true : (b.tfl() || b.tosa() ? false : r.coin());
  if (b.dnn() && b.kind == Kind::Avg && !pr.count_include_pad)
    for (std::size_t i = 0; i < 4; ++i) pr.g.pads[i] = std::min(pr.g.pads[i], pr.g.kernel[i % 2] - 1);
  const std::int64_t lo = lo_of(p.type), hi = hi_of(p.type);
  // The zero points: anywhere in the dtype (saturating draws: near the ends; wide ones 40 inside, with
  // the codes around them).
  const std::int64_t zx = mode == 2 ? (r.coin() ? lo + r.uniform(0, 20) : hi - r.uniform(0, 20))
                          : wide    ? r.uniform(lo + 40, hi - 40)
                                    : r.uniform(lo, hi);
  p.x_zero_point = Int(zx);
  const std::int64_t center = wide ? std::clamp(zx + r.uniform(-20, 20), lo, hi) : r.uniform(lo, hi);
  const std::int64_t spread = mode == 2 ? 255 : r.uniform(1, 80);
  pr.x = random_codes(r, shape, p.type, center, spread);
  if (b.kind == Kind::Max) {
    if (!wide && !b.ort() && !b.armnn() && !b.tosa() && r.uniform(0, 2) == 0) {
      const std::int64_t a = r.uniform(lo, hi - 1);
      const std::int64_t c = r.uniform(a + 1, hi);
      p.y_min = Int(a), p.y_max = Int(c);
    }
    return pr;
  }
  if ((b.tfl() || b.tosa()) && b.kind == Kind::Avg) {
    // Equal input and output parameters (REQUIRE).
    p.x_scale = p.y_scale = random_scale(r, static_cast<int>(r.uniform(-10, 2)));
    p.y_zero_point = p.x_zero_point;
  } else if (mode == 1) {
    // Dyadic scales: S = m 2^-(u+1) exactly, m odd (u in {0, 1}), so acc S is a tie for a
    // quarter to a half of the windows.
    const std::int64_t K = pooled ? pr.g.kernel[0] * pr.g.kernel[1] : shape[1] * shape[2];
    const int ey = static_cast<int>(r.uniform(-9, -2));
    const std::int64_t m = 2 * r.uniform(0, 3) + 1;
    const int u = static_cast<int>(r.uniform(0, 1));
    p.y_scale = f32_bits(1, ey);
    // x_s = S K y_s = m K 2^(ey - u - 1); ONNX Runtime's windowed path divides codes by c, then
    // by y_s: x_s = m 2^(ey - u - 1) keeps fl32(x_s d / c / y_s) dyadic for power-of-two c.
    // Arm NN divides the float sum by the count, then by y_s, like ONNX Runtime's windowed path.
    const bool ort_windowed = (b.ort() && pooled) || b.armnn();
    p.x_scale = f32_bits(ort_windowed ? m : m * K, ey - u - 1 + (ort_windowed ? 1 : 0));
    if (b.tfl()) p.x_scale = f32_bits(1, ey + static_cast<int>(r.uniform(-1, 1)));
    p.y_zero_point = Int(r.uniform(lo, hi));
  } else {
    const int ey = static_cast<int>(r.uniform(-9, -2));
    p.y_scale = random_scale(r, ey);
    const int ex = mode == 2 ? ey + static_cast<int>(r.uniform(3, 7)) : ey + static_cast<int>(r.uniform(-2, 2));
    p.x_scale = random_scale(r, ex);
    p.y_zero_point = Int(mode == 2 ? r.uniform(lo, hi) : r.uniform(lo + 30, hi - 30));
  }
  if (b.dnn()) {
    // No quantization parameters: x and y share them; padding counted as code 0 needs z = 0.
    p.y_scale = p.x_scale;
    p.y_zero_point = p.x_zero_point;
    if (pr.count_include_pad && any_pad(pr.g)) p.x_zero_point = p.y_zero_point = Int(0);
  }
  const bool has_clamp = b.xnn() || b.dnn() || (b.tfl() && b.kind == Kind::Avg);
  if (!wide && has_clamp && r.uniform(0, 3) == 0) {
    const std::int64_t a = r.uniform(lo, hi - 1);
    const std::int64_t c = r.uniform(a + 1, hi);
    p.y_min = Int(a), p.y_max = Int(c);
  }
  return pr;
}

// ---- hand cases ----

IntArray iota(const Dims& shape, std::int64_t start, std::int64_t step, DType t) {
  IntArray a(shape);
  for (std::size_t i = 0; i < a.data.size(); ++i)
    a.data[i] = Int(std::clamp<std::int64_t>(start + step * static_cast<std::int64_t>(i), lo_of(t), hi_of(t)));
  return a;
}

Problem base(Kind k, DType t) {
  Problem pr;
  pr.kind = k;
  pr.p.type = t;
  pr.x = iota({1, 3, 3, 1}, t == DType::I8 ? -4 : 10, 1, t);
  pr.g.kernel = {2, 2};
  if (k == Kind::Avg) pr.count_include_pad = true;
  return pr;
}

void onednn_avg_cases(Builder& b);  // below, with the other oneDNN helpers
// TOSA AVG_POOL2D (qlinear.avg_pool2d.tosa): negative ties, saturation, padding with a non-zero
// zero point, and the ERROR_IFs of AVG_POOL2D.tosac (lines 10-20) as invalid tests.
void tosa_avg_cases(const Problem& ok, Builder& b) {
  Problem neg = ok;
  neg.x = IntArray({1, 1, 4, 1});
  for (std::int64_t i = 0; i < 4; ++i) neg.x.data[static_cast<std::size_t>(i)] = Int(-1 - 2 * i);
  neg.g.kernel = {1, 2};
  neg.g.pads = {0, 1, 0, 1};
  b.add(neg,
        "1x2 windows of -1, -3, -5, -7 with side padding: -1 (one tap), -2, -4, -6, -7 (one tap); "
        "no tie here, next case has them");
  Problem negtie = neg;
  for (std::int64_t i = 0; i < 4; ++i) negtie.x.data[static_cast<std::size_t>(i)] = Int(-1 - i);
  b.add(negtie, "1x2 windows of -1, -2, -3, -4: averages -1.5, -2.5, -3.5 round away from zero (not up)");
  Problem three = ok;
  three.x = IntArray({1, 3, 3, 1});
  for (std::size_t i = 0; i < 9; ++i) three.x.data[i] = Int(static_cast<std::int64_t>(i % 2 == 0 ? 1 : 2));
  three.g.kernel = {3, 3};
  three.g.pads = {1, 1, 1, 1};
  three.p.x_zero_point = three.p.y_zero_point = Int(-5);
  b.add(three, "3x3 kernel, pads 1, x_zero_point -5: counts 4, 6 and 9 (the padding, holding no value, not counted)");
  Problem lo = ok;
  for (auto& v : lo.x.data) v = Int(-128);
  lo.g.pads = {1, 1, 0, 0};
  b.add(lo, "every code -128 with padding: -128 (saturate_low)");
  Problem hi = lo;
  for (auto& v : hi.x.data) v = Int(127);
  b.add(hi, "every code 127 with padding: 127 (saturate_high)");
  Problem u8 = ok;
  u8.p.type = DType::U8;
  u8.x = iota({1, 3, 3, 1}, 10, 1, DType::U8);
  b.add_invalid(u8, "uint8: AVG_POOL2D's integer in_out_t is i8_t or i16_t");
  const char* side[] = {"top", "left", "bottom", "right"};
  for (std::size_t i = 0; i < 4; ++i) {
    Problem big = ok;
    big.g.pads[i] = 2;
    b.add_invalid(big, std::string("pad_") + side[i] + " 2 >= kernel 2: ERROR_IF(pad >= kernel), AVG_POOL2D.tosac");
  }
  Problem stride = ok;
  stride.g.strides = {1, 0};
  b.add_invalid(stride, "stride_x 0: ERROR_IF(stride_y < 1 || stride_x < 1)");
  Problem kernel = ok;
  kernel.g.kernel = {0, 2};
  b.add_invalid(kernel, "kernel_y 0: ERROR_IF(kernel_y < 1 || kernel_x < 1)");
  Problem negpad = ok;
  negpad.g.pads = {0, -1, 0, 0};
  b.add_invalid(negpad, "pad_left -1: ERROR_IF(pad_top < 0 || ...)");
  Problem zp = ok;
  zp.p.x_zero_point = zp.p.y_zero_point = Int(128);
  b.add_invalid(zp, "zero point 128 does not fit the int8 quantized type");
}

void avg_cases(Rng&, Builder& b) {
  const DType t = b.xnn() ? DType::U8 : DType::I8;
  Problem ok = base(Kind::Avg, t);
  ok.count_include_pad = !b.tfl() && !b.tosa();
  // Asymmetric pads with a non-zero input zero point: padded taps hold x_zp (real 0).
  Problem asym = ok;
  asym.g.pads = {1, 0, 0, 1};
  asym.p.x_zero_point = Int(t == DType::I8 ? 3 : 12);
  if (b.tfl() || b.dnn() || b.tosa()) asym.p.y_zero_point = asym.p.x_zero_point;
  if (!b.tfl() && !b.dnn() && !b.tosa())
    b.add(asym, "pads (1, 0, 0, 1) with x_zero_point != 0: padded taps count as real 0");
  if (b.dnn())
    b.add_invalid(asym,
                  "include-padding, pads (1, 0, 0, 1), zero point 3: oneDNN counts a padded tap as the code 0 "
                  "(real -3 s), not the real 0",
                  {"pad_zero_point"});
  Problem excl = asym;
  excl.count_include_pad = false;
  if (!b.xnn()) b.add(excl, "pads (1, 0, 0, 1), count_include_pad = 0: divided by the taps inside");
  if (b.xnn()) b.add_invalid(excl, "count_include_pad = 0 with padding: XNNPACK always divides by KH KW");
  Problem incl = asym;
  incl.count_include_pad = true;
  if (b.tfl()) b.add_invalid(incl, "count_include_pad = 1 with padding: TFLite never counts the padding");
  if (b.tosa()) b.add_invalid(incl, "count_include_pad = 1 with padding: AVG_POOL2D never counts the padding");
  // Two equal codes around a half: (x0 + x1) / 2 is a tie; a 2x1 window, stride 1.
  Problem tie = ok;
  tie.x = IntArray({1, 4, 1, 1});
  const std::int64_t b0 = t == DType::I8 ? -3 : 20;
  for (std::int64_t i = 0; i < 4; ++i) tie.x.data[static_cast<std::size_t>(i)] = Int(b0 + i);
  tie.g.kernel = {2, 1};
  tie.p.x_scale = tie.p.y_scale = f32_bits(1, -3);
  tie.p.x_zero_point = tie.p.y_zero_point = Int(t == DType::I8 ? 0 : 20);
  b.add(tie,
        "2x1 windows of consecutive codes: every average is k + 1/2 (XNNPACK and TFLite: away from zero; "
        "ONNX Runtime: to even)");
  // Global path: the kernel equals the (padded) input.
  Problem glob = ok;
  glob.g.kernel = {3, 3};
  glob.p.x_scale = glob.p.y_scale = f32_bits(1, -4);
  if (!b.tfl() && !b.armnn() && !b.tosa())
    b.add(glob, "kernel = input, no padding: the engine's global-pooling kernel (rounds half to even)");
  if (b.armnn()) {
    b.add(glob, "kernel = input, no padding: one window, the float sum / 9, then / y_s");
    Problem inpad = ok;
    inpad.g.pads = {2, 2, 0, 0};
    inpad.g.strides = {1, 1};
    inpad.p.y_zero_point = Int(77);
    b.add(inpad,
          "pads 2 on top and left with a 2x2 kernel: the first window is in the padding (OnPaddingOnly: y = y_zp)");
    Problem excl_in = inpad;
    excl_in.count_include_pad = false;
    b.add(excl_in, "the same with count_include_pad = 0 (Exclude): the padding window still encodes 0.0f, y = y_zp");
    Problem last = ok;
    last.g.pads = {0, 0, 2, 0};
    b.add_invalid(last,
                  "pads bottom 2 with a 2x2 kernel over 3 rows: the 4th output row starts in the padding; "
                  "Pooling2dLayer::InferOutputShapes infers 3 rows and the output shape is refused");
    Problem lastw = ok;
    lastw.g.pads = {0, 0, 0, 3};
    lastw.g.strides = {1, 2};
    b.add_invalid(lastw, "pad right 3, stride 2 over 3 columns: the last output column starts in the padding");
    Problem three = ok;
    three.x = iota({1, 3, 3, 2}, t == DType::I8 ? -60 : 40, 7, t);
    three.g.kernel = {3, 3};
    three.g.pads = {1, 1, 1, 1};
    three.count_include_pad = false;
    three.p.x_scale = f32_bits(3, -6);
    three.p.y_scale = f32_bits(5, -7);
    three.p.x_zero_point = Int(t == DType::I8 ? 9 : 60);
    b.add(three, "3x3 kernel, pads 1, Exclude: divisors 4, 6 and 9 (inexact float quotients)");
  }
  if (b.xnn()) {
    Problem gp = ok;
    gp.g.kernel = {4, 3};
    gp.g.pads = {1, 0, 0, 0};
    gp.p.x_scale = gp.p.y_scale = f32_bits(1, -4);
    b.add(gp, "4x3 kernel = the padded 4x3 input: XNNPACK's global kernel, padding counted");
    Problem inpad = ok;
    inpad.g.pads = {2, 2, 0, 0};
    inpad.g.strides = {1, 1};
    inpad.p.y_zero_point = Int(77);
    b.add(inpad, "pads 2 on top and left with a 2x2 kernel: the first window is entirely padding (y = y_zp)");
    Problem one = ok;
    one.g.kernel = {1, 1};
    b.add_invalid(one, "1x1 pooling is meaningless (xnn_status_invalid_parameter)");
    Problem s8 = ok;
    s8.p.type = DType::I8;
    s8.x = iota({1, 3, 3, 1}, -4, 1, DType::I8);
    b.add_invalid(s8, "int8: the snapshot has no qs8 average pooling operator");
    Problem ratio = ok;
    ratio.p.x_scale = f32_bits(1, 8);
    b.add_invalid(ratio, "x_scale / y_scale = 256: outside [2^-8, 2^8) (xnn_status_unsupported_parameter)",
                  {"scale_limit"});
    Problem ratio2 = ok;
    ratio2.p.y_scale = f32_bits(1, 9);
    b.add_invalid(ratio2, "x_scale / y_scale = 2^-9: outside [2^-8, 2^8)", {"scale_limit"});
    Problem denorm = ok;
    denorm.p.x_scale = 0x00000001u;
    b.add_invalid(denorm, "a subnormal x_scale: scale must be finite, normalized, and positive");
    Problem range = ok;
    range.p.y_min = Int(100), range.p.y_max = Int(100);
    b.add_invalid(range, "y_min = y_max: range min must be below range max");
    Problem zp = ok;
    zp.p.y_zero_point = Int(256);
    b.add_invalid(zp, "y_zero_point 256 does not fit uint8");
  }
  if (b.ort()) {
    Problem bigpad = ok;
    bigpad.g.pads = {2, 0, 0, 0};
    b.add_invalid(bigpad, "a pad of 2 with a 2x2 kernel: Pad should be smaller than kernel");
    Problem zp = ok;
    zp.p.x_zero_point = Int(128);
    b.add_invalid(zp, "x_zero_point 128 does not fit int8");
    Problem big = ok;
    big.g.kernel = {3, 3};
    big.p.x_scale = f32_bits(1, 12);
    big.p.y_scale = f32_bits(1, 0);
    b.add_invalid(big, "global fallback with S = 2^12 / 9 >= 256: parameter out of computation range", {"scale_limit"});
  }
  if (b.dnn()) onednn_avg_cases(b);
  if (b.tosa()) tosa_avg_cases(ok, b);
  if (b.tfl()) {
    Problem empty = ok;
    empty.count_include_pad = false;
    empty.g.pads = {2, 0, 0, 0};
    b.add_invalid(empty, "a window entirely in the padding: filter_count == 0, AveragePool returns false");
    Problem clamp = ok;
    clamp.count_include_pad = false;
    clamp.p.y_min = Int(-1);
    clamp.p.y_max = Int(1);
    b.add(clamp, "a fused clamp [-1, 1] narrower than int8");
  }
}

// A (1, H, W, C) input whose channel ch holds the sum sums[ch] spread over its H W codes (each code
// floor or ceil of the mean), so a window over the whole image sums to it.
IntArray spread_sums(std::int64_t h, std::int64_t w, const std::vector<std::int64_t>& sums) {
  const auto C = static_cast<std::int64_t>(sums.size());
  IntArray a({1, h, w, C});
  const std::int64_t n = h * w;
  for (std::int64_t ch = 0; ch < C; ++ch) {
    const std::int64_t sum = sums[static_cast<std::size_t>(ch)];
    const std::int64_t q = sum >= 0 ? sum / n : -((-sum + n - 1) / n);  // floor(sum / n)
    const std::int64_t extra = sum - q * n;                             // taps holding q + 1
    for (std::int64_t i = 0; i < n; ++i) a.data[static_cast<std::size_t>(i * C + ch)] = Int(q + (i < extra ? 1 : 0));
  }
  return a;
}

// The first `count` sums s of T's codes over n taps where the jit's fl32(s) * fl32(1 / n) and ref's
// fl32(s) / fl32(n) round to different codes (both ends of the range, alternately).
std::vector<std::int64_t> reciprocal_sums(std::int64_t n, DType t, std::size_t count) {
  ro::QPoolParams p;
  p.type = t;
  std::vector<std::int64_t> lo_side, hi_side;
  for (std::int64_t s = lo_of(t) * n; s <= hi_of(t) * n; ++s)
    if (ro::qlinear_onednn_avgpool_output(Int(s), n, ro::OneDnnPoolPath::Jit, p) !=
        ro::qlinear_onednn_avgpool_output(Int(s), n, ro::OneDnnPoolPath::Ref, p))
      (s < (lo_of(t) + hi_of(t)) * n / 2 ? lo_side : hi_side).push_back(s);
  std::vector<std::int64_t> out;
  for (std::size_t i = 0; out.size() < count && (i < lo_side.size() || i < hi_side.size()); ++i) {
    if (i < lo_side.size()) out.push_back(lo_side[i]);
    if (i < hi_side.size() && out.size() < count) out.push_back(hi_side[hi_side.size() - 1 - i]);
  }
  return out;
}

// oneDNN's own cases: the jit reciprocal against ref's division, the padding rules, the clip.
void onednn_avg_cases(Builder& b) {
  Problem ok = base(Kind::Avg, DType::I8);
  // c = 14 (a 2x7 window over a 2x7 image), 16 channels: P = N C min(H, OH) min(W, OW) = 16, jit.
  Problem rec = ok;
  rec.g.kernel = {2, 7};
  rec.x = spread_sums(2, 7, reciprocal_sums(14, DType::I8, 16));
  b.add(rec,
        "c = 14 (2x7 over 2x7, 16 channels: jit at every ISA): sums where fl32(s) * fl32(1/14) and "
        "fl32(s) / 14 round differently (s = -1771: s / 14 = -126.5, the reciprocal gives -127)");
  Problem recu = rec;
  recu.p.type = DType::U8;
  recu.g.kernel = {4, 7};
  recu.x = spread_sums(4, 7, reciprocal_sums(28, DType::U8, 16));
  b.add(recu, "uint8, c = 28 (4x7 over 4x7, 16 channels, jit): sums where the reciprocal and the division differ");
  Problem refp = rec;
  refp.g.pads = {2, 0, 0, 0};
  b.add(refp,
        "the same input with pads (2, 0, 0, 0) >= KH = 2: ref_pooling runs (a division by KH KW = 14), "
        "the first window is all padding (0)");
  Problem excl = rec;
  excl.count_include_pad = false;
  excl.g.pads = {1, 0, 1, 0};
  excl.x = spread_sums(2, 7, reciprocal_sums(14, DType::I8, 16));
  excl.p.x_zero_point = excl.p.y_zero_point = Int(-5);
  b.add(excl,
        "exclude-padding, pads (1, 0, 1, 0), zero point -5: the top and bottom windows divide by the 7 taps "
        "inside, the middle one by 14 (jit)");
  Problem big = ok;
  big.count_include_pad = false;
  big.g.pads = {0, 0, 2, 0};
  b.add_invalid(big,
                "exclude-padding with a bottom pad of 2 >= KH = 2: invalid_arguments (a window outside the source)");
  Problem resc = ok;
  resc.p.y_scale = f32_bits(1, 1);
  b.add_invalid(resc, "y_scale != x_scale: oneDNN 2.6 pooling takes no output scale");
  Problem zp = ok;
  zp.p.y_zero_point = Int(1);
  b.add_invalid(zp, "y_zero_point != x_zero_point: oneDNN 2.6 pooling takes no zero point");
  Problem inv = ok;
  inv.p.y_min = Int(3), inv.p.y_max = Int(2);
  b.add_invalid(inv, "y_max < y_min: eltwise_clip needs beta >= alpha");
  Problem eq = ok;
  eq.p.y_min = Int(-1), eq.p.y_max = Int(-1);
  b.add(eq, "y_min = y_max = -1: eltwise_clip(-1, -1) is accepted, every output is -1");
  Problem u8z = ok;
  u8z.p.type = DType::U8;
  u8z.x = iota({1, 3, 3, 1}, 250, 1, DType::U8);
  u8z.p.x_zero_point = u8z.p.y_zero_point = Int(128);
  u8z.count_include_pad = false;
  u8z.g.pads = {1, 1, 1, 1};
  b.add(u8z, "uint8 near 255, exclude-padding, zero point 128: the padding is never counted");
}

// TOSA's lowered MEAN (qlinear.global_avg_pool.tosa): half-up ties where TFLite rounds away, the
// truncated multiplier of a non-power-of-two count, DOUBLE_ROUND, saturation and the ERROR_IFs.
void tosa_gap_cases(const Problem& ok, Builder& b) {
  Problem pair = ok;
  pair.x = IntArray({1, 1, 2, 4});
  const std::int64_t codes[] = {-1, 0, -3, 5, 0, 0, -6, 6};
  for (std::size_t i = 0; i < 8; ++i) pair.x.data[i] = Int(codes[i]);
  b.add(pair, "1x2 image, equal parameters: means -1/2, -3/2, 5/2, 0 round half up (TFLite: half away)");
  Problem three = ok;
  three.x = iota({1, 3, 3, 2}, -9, 1, DType::I8);
  b.add(three, "3x3 image: k = 3, M = floor(2^30 8 / 9) truncated, s = 33 (DOUBLE_ROUND)");
  Problem five = ok;
  five.x = iota({2, 5, 1, 3}, -120, 13, DType::I8);
  five.p.x_scale = f32_bits(0x2468ab, -27);
  five.p.y_scale = f32_bits(0x13579b, -29);
  five.p.x_zero_point = Int(-7);
  five.p.y_zero_point = Int(11);
  b.add(five, "5x1 image, long-mantissa scales, ratio about 7.6: both ends saturate");
  Problem small = ok;
  small.p.x_scale = f32_bits(1, -40);
  small.p.y_scale = f32_bits(1, 0);
  b.add(small, "s_x / s_y = 2^-40: computeMultiplierAndShift caps the shift at 62, then k = 0 (62 - s_o)");
  Problem u8 = ok;
  u8.p.type = DType::U8;
  u8.x = iota({1, 2, 2, 1}, 0, 1, DType::U8);
  b.add_invalid(u8, "uint8: the lowering takes a TFLite int8 model (uint8 is converted first)");
  Problem zx = ok;
  zx.p.x_zero_point = Int(128);
  b.add_invalid(zx, "x_zero_point 128 does not fit int8 (RESCALE input_zp)");
  Problem zy = ok;
  zy.p.y_zero_point = Int(-129);
  b.add_invalid(zy, "y_zero_point -129 does not fit int8 (RESCALE: output_zp not representable in out_t)");
  Problem r3 = ok;
  r3.x = IntArray({2, 2, 2});
  b.add_invalid(r3, "a rank-3 x (qlinear.pool.window: rank 4)");
}

void gap_cases(Rng&, Builder& b) {
  const DType t = DType::I8;
  Problem ok = base(Kind::Gap, t);
  ok.x = IntArray({1, 2, 2, 2});
  for (std::size_t i = 0; i < 8; ++i) ok.x.data[i] = Int(static_cast<std::int64_t>(i) - 3);
  ok.p.x_scale = f32_bits(1, -2);
  ok.p.y_scale = f32_bits(1, -2);
  b.add(ok, "2x2 image, equal parameters: the mean of 4 codes (ties at 2 mod 4)");
  if (b.xnn()) {
    Problem ratio = ok;
    ratio.p.x_scale = f32_bits(1, 8);
    b.add_invalid(ratio, "x_scale / y_scale = 256: outside [2^-8, 2^8)", {"scale_limit"});
    Problem range = ok;
    range.p.y_min = Int(5), range.p.y_max = Int(-5);
    b.add_invalid(range, "y_min > y_max: range min must be below range max");
    Problem inf = ok;
    inf.p.y_scale = 0x7f800000u;
    b.add_invalid(inf, "an infinite y_scale: scale must be finite, normalized, and positive");
  }
  if (b.ort()) {
    Problem big = ok;
    big.p.x_scale = f32_bits(1, 10);
    big.p.y_scale = f32_bits(1, 0);
    b.add_invalid(big, "S = 2^10 / 4 = 256: parameter out of computation range", {"scale_limit"});
    Problem small = ok;
    small.p.x_scale = f32_bits(1, -40);
    small.p.y_scale = f32_bits(1, 0);
    b.add_invalid(small, "S = 2^-42 < 2^-32: parameter out of computation range", {"scale_limit"});
    Problem zp = ok;
    zp.p.type = DType::U8;
    zp.x = iota({1, 2, 2, 1}, 0, 1, DType::U8);
    zp.p.y_zero_point = Int(-1);
    b.add_invalid(zp, "y_zero_point -1 does not fit uint8");
  }
  if (b.dnn()) {
    Problem rec = ok;
    rec.x = spread_sums(2, 7, reciprocal_sums(14, DType::I8, 16));
    b.add(rec,
          "2x7 image, 16 channels (N C = 16: jit at every ISA): sums where fl32(s) * fl32(1/14) and "
          "fl32(s) / 14 round differently");
    Problem recu = rec;
    recu.p.type = DType::U8;
    recu.x = spread_sums(5, 6, reciprocal_sums(30, DType::U8, 16));
    recu.p.x_zero_point = recu.p.y_zero_point = Int(100);
    b.add(recu, "uint8 5x6 image, 16 channels, zero point 100: c = 30, the reciprocal against the division");
    Problem resc = ok;
    resc.p.y_scale = f32_bits(1, -1);
    b.add_invalid(resc, "y_scale != x_scale: oneDNN 2.6 pooling takes no output scale", {"rescaled"});
    Problem cl = ok;
    cl.p.y_min = Int(0), cl.p.y_max = Int(1);
    b.add(cl, "a clip [0, 1] (eltwise_clip post-op)");
  }
  if (b.armnn()) {
    Problem resc = ok;
    resc.p.y_scale = f32_bits(3, -4);
    b.add(resc, "y_scale = 3/4 x_scale: the mean / y_s rounds in float before std::round");
    Problem big = ok;
    big.p.type = DType::U8;
    big.x = iota({1, 5, 3, 3}, 0, 6, DType::U8);
    big.p.x_zero_point = Int(128);
    big.p.y_zero_point = Int(100);
    big.p.x_scale = f32_bits(0x2468ab, -27);
    big.p.y_scale = f32_bits(0x13579b, -27);
    b.add(big, "uint8 5x3 image, long-mantissa scales: divisor 15");
  }
  if (b.tfl()) {
    Problem resc = ok;
    resc.p.y_scale = f32_bits(3, -4);
    b.add(resc, "y_scale = 3/4 x_scale: QuantizeMultiplier(4/3) rounds, then the division by 4 rounds again");
  }
  if (b.tosa()) tosa_gap_cases(ok, b);
}

// TOSA MAX_POOL2D (qlinear.max_pool2d.tosa): padding never selected, exact stride divisions, and the
// ERROR_IFs of MAX_POOL2D.tosac (lines 10-16) as invalid tests.
void tosa_max_cases(const Problem& ok, Builder& b) {
  const DType t = DType::I8;
  Problem neg = ok;
  neg.x = iota({1, 3, 3, 2}, -120, 5, t);
  neg.g.pads = {1, 1, 1, 1};
  b.add(neg, "every code negative with pads 1 around: the maximum of the taps inside (a zero pad would give 0)");
  Problem low = ok;
  for (auto& v : low.x.data) v = Int(-128);
  low.g.pads = {0, 1, 1, 0};
  b.add(low, "every code -128 with padding: -128, the taps' maximum (equal to MAX_POOL2D's start value)");
  Problem stride = ok;
  stride.x = iota({1, 5, 5, 1}, -60, 7, t);
  stride.g.kernel = {3, 3};
  stride.g.strides = {2, 2};
  stride.g.pads = {1, 1, 1, 1};
  b.add(stride, "3x3 kernel, stride 2, pads 1 over 5x5: (5 + 2 - 3) / 2 exact (idiv_check)");
  Problem u8 = ok;
  u8.p.type = DType::U8;
  u8.x = iota({1, 3, 3, 1}, 10, 1, DType::U8);
  b.add_invalid(u8, "uint8: MAX_POOL2D's integer in_out_t is i8_t or i16_t");
  const char* side[] = {"top", "left", "bottom", "right"};
  for (std::size_t i = 0; i < 4; ++i) {
    Problem big = ok;
    big.g.pads[i] = 2;
    b.add_invalid(big, std::string("pad_") + side[i] + " 2 >= kernel 2: ERROR_IF(pad >= kernel), MAX_POOL2D.tosac");
  }
  Problem stride0 = ok;
  stride0.g.strides = {0, 1};
  b.add_invalid(stride0, "stride_y 0: ERROR_IF(stride_y < 1 || stride_x < 1)");
  Problem kernel0 = ok;
  kernel0.g.kernel = {2, 0};
  b.add_invalid(kernel0, "kernel_x 0: ERROR_IF(kernel_y < 1 || kernel_x < 1)");
  Problem negpad = ok;
  negpad.g.pads = {-1, 0, 0, 0};
  b.add_invalid(negpad, "pad_top -1: ERROR_IF(pad_top < 0 || ...)");
}

void max_cases(Rng&, Builder& b) {
  const DType t = DType::I8;
  Problem ok = base(Kind::Max, t);
  Problem asym = ok;
  asym.g.pads = {1, 0, 0, 1};
  b.add(asym, "pads (1, 0, 0, 1): padding never wins");
  if (!b.tfl() && !b.armnn() && !b.tosa()) {
    // Dilation 3 with a 2x1 kernel, pad 1 on top, over a 2-row input: taps at rows -1 and 2 both
    // miss the input.
    Problem dil = ok;
    dil.x = iota({1, 2, 1, 1}, -7, 3, t);
    dil.g.kernel = {2, 1};
    dil.g.dilations = {3, 1};
    dil.g.pads = {1, 0, 1, 0};
    if (b.ort() || b.dnn()) b.add(dil, "dilation 3, pad 1: a window whose taps all miss the input gives -128");
    Problem dil2 = ok;
    dil2.g.dilations = {2, 2};
    dil2.x = iota({1, 4, 4, 1}, -8, 3, t);
    b.add(dil2, "2x2 kernel with dilation 2 over 4x4");
  }
  if (b.tfl()) {
    Problem empty = ok;
    empty.g.pads = {2, 2, 0, 0};
    b.add(empty, "pads 2 on top and left with a 2x2 kernel: the first window is empty, lowest(int8) = -128");
    Problem cl = empty;
    cl.p.y_min = Int(-3), cl.p.y_max = Int(2);
    b.add(cl, "an empty window clamped: max(-128, y_min) = y_min");
  }
  if (b.tosa()) tosa_max_cases(ok, b);
  if (b.xnn()) {
    Problem one = ok;
    one.g.kernel = {1, 1};
    b.add_invalid(one, "1x1 pooling is meaningless");
    Problem range = ok;
    range.p.y_min = Int(3), range.p.y_max = Int(3);
    b.add_invalid(range, "y_min = y_max: range min must be below range max");
  }
  if (b.dnn()) {
    Problem empty = ok;
    empty.g.pads = {2, 2, 0, 0};
    b.add(empty, "pads 2 on top and left with a 2x2 kernel (ref_pooling): the first window is empty, -128");
    Problem inv = ok;
    inv.p.y_min = Int(3), inv.p.y_max = Int(2);
    b.add_invalid(inv, "y_max < y_min: eltwise_clip needs beta >= alpha");
    Problem cl = ok;
    cl.p.y_min = Int(-2), cl.p.y_max = Int(1);
    b.add(cl, "a clip [-2, 1] (the jit kernel refuses post-ops with pooling_max: ref runs)");
  }
  if (b.ort()) {
    Problem bigpad = ok;
    bigpad.g.pads = {0, 0, 0, 2};
    b.add_invalid(bigpad, "a right pad of 2 with a 2x2 kernel: Pad should be smaller than kernel");
  }
  if (b.armnn()) {
    Problem u8 = ok;
    u8.p.type = DType::U8;
    u8.x = iota({1, 4, 4, 2}, 3, 7, DType::U8);
    u8.g.strides = {2, 2};
    u8.g.pads = {1, 1, 1, 1};
    b.add(u8, "uint8, stride 2, pads 1: padding never wins");
    Problem last = ok;
    last.g.pads = {0, 0, 2, 0};
    b.add_invalid(last, "pads bottom 2 with a 2x2 kernel over 3 rows: Arm NN infers one output row fewer");
  }
  Problem neg = ok;
  neg.g.strides = {0, 1};
  b.add_invalid(neg, "stride 0");
}

template <class Op>
QPoolConvention convention_of(std::string_view conv) {
  if (conv == Op::conv::xnnpack_fp32) return QPoolConvention::XnnpackFp32;
  if (conv == Op::conv::onnxruntime) return QPoolConvention::OnnxRuntime;
  if (conv == Op::conv::onednn) return QPoolConvention::OneDnn;
  if (conv == Op::conv::armnn_cpuref) return QPoolConvention::ArmnnCpuref;
  if constexpr (requires { Op::conv::tosa; }) {
    if (conv == Op::conv::tosa) return QPoolConvention::Tosa;
  }
  return QPoolConvention::Tflite;
}

template <class Op>
Family pool_family(std::string_view conv, std::uint64_t seed, Kind kind, int tie_rich, int realistic, int saturating,
                   void (*extra)(Rng&, Builder&)) {
  const std::string op(Op::op), cv(conv);
  const QPoolConvention c = convention_of<Op>(conv);
  auto notes = c == QPoolConvention::Tosa && kind != Kind::Gap ? tosa_notes() : notes_of<Op>(conv);
  if (c == QPoolConvention::Tosa && kind == Kind::Gap) {
    notes.insert(notes.end() - 1, {"double_round", "the output RESCALE's shift exceeds 31: DOUBLE_ROUND rounds twice"});
    notes.insert(notes.end() - 1,
                 {"tflite_differs", "an output differs from qlinear.global_avg_pool.tflite on the same input"});
  }
  return family<Op>(conv, notes, seed, [op, cv, c, kind, tie_rich, realistic, saturating, extra](Rng& r) {
    Builder b{op, cv, c, kind, {}};
    extra(r, b);
    b.add_random(
        tie_rich, [&] { return draw(r, b, 1); }, "tie-rich draw");
    b.add_random(
        realistic, [&] { return draw(r, b, 0); }, "random");
    b.add_random(
        saturating, [&] { return draw(r, b, 2); }, "random, saturating");
    for (int variant = 0; variant < wide::kPoolDraws; ++variant)  // each channel class of wide::draw_pool once
      b.add_random(
          1, [&] { return draw(r, b, 0, variant); }, "random, wide");
    return std::vector<Group>{Group{OJ::object(), std::move(b.tests)}};
  });
}

QSPEC_REGISTER_VECTOR_FAMILY(pool_family<Avg>(Avg::conv::xnnpack_fp32, 1501, Kind::Avg, 300, 200, 80, avg_cases));
QSPEC_REGISTER_VECTOR_FAMILY(pool_family<Avg>(Avg::conv::onnxruntime, 1502, Kind::Avg, 300, 200, 80, avg_cases));
QSPEC_REGISTER_VECTOR_FAMILY(pool_family<Avg>(Avg::conv::tflite_double_round, 1503, Kind::Avg, 300, 200, 80,
                                              avg_cases));
QSPEC_REGISTER_VECTOR_FAMILY(pool_family<Gap>(Gap::conv::xnnpack_fp32, 1511, Kind::Gap, 250, 150, 60, gap_cases));
QSPEC_REGISTER_VECTOR_FAMILY(pool_family<Gap>(Gap::conv::onnxruntime, 1512, Kind::Gap, 250, 150, 60, gap_cases));
QSPEC_REGISTER_VECTOR_FAMILY(pool_family<Gap>(Gap::conv::tflite_double_round, 1513, Kind::Gap, 250, 150, 60,
                                              gap_cases));
QSPEC_REGISTER_VECTOR_FAMILY(pool_family<Max>(Max::conv::xnnpack_fp32, 1521, Kind::Max, 0, 200, 60, max_cases));
QSPEC_REGISTER_VECTOR_FAMILY(pool_family<Max>(Max::conv::onnxruntime, 1522, Kind::Max, 0, 200, 60, max_cases));
QSPEC_REGISTER_VECTOR_FAMILY(pool_family<Max>(Max::conv::tflite_double_round, 1523, Kind::Max, 0, 200, 60, max_cases));
QSPEC_REGISTER_VECTOR_FAMILY(pool_family<Avg>(Avg::conv::onednn, 1504, Kind::Avg, 160, 100, 40, avg_cases));
QSPEC_REGISTER_VECTOR_FAMILY(pool_family<Gap>(Gap::conv::onednn, 1514, Kind::Gap, 120, 60, 30, gap_cases));
QSPEC_REGISTER_VECTOR_FAMILY(pool_family<Max>(Max::conv::onednn, 1524, Kind::Max, 0, 100, 40, max_cases));
// Arm NN: fewer draws (the vectors/ size budget); the cross-check draws many more.
QSPEC_REGISTER_VECTOR_FAMILY(pool_family<Avg>(Avg::conv::armnn_cpuref, 1531, Kind::Avg, 100, 60, 25, avg_cases));
QSPEC_REGISTER_VECTOR_FAMILY(pool_family<Gap>(Gap::conv::armnn_cpuref, 1532, Kind::Gap, 80, 50, 20, gap_cases));
QSPEC_REGISTER_VECTOR_FAMILY(pool_family<Max>(Max::conv::armnn_cpuref, 1533, Kind::Max, 0, 76, 20, max_cases));
QSPEC_REGISTER_VECTOR_FAMILY(pool_family<Avg>(Avg::conv::tosa, 1504, Kind::Avg, 300, 200, 80, avg_cases));
QSPEC_REGISTER_VECTOR_FAMILY(pool_family<Max>(Max::conv::tosa, 1525, Kind::Max, 0, 110, 30, max_cases));
QSPEC_REGISTER_VECTOR_FAMILY(pool_family<Gap>(Gap::conv::tosa, 1526, Kind::Gap, 80, 50, 20, gap_cases));

}  // namespace
}  // namespace qspec::vecgen
