// Vector families of the engines' quantized add and mul (spec/operators_qlinear_elementwise.md):
// ops/qlinear/{add,mul}/<convention>.json.
//
// Inputs only; expected outputs come from the reference ops (reference/ops/ops_qlinear_elementwise.cc).
// Each family mixes hand cases (each named by its comment), tie-rich draws (scales whose ratios
// are short dyadic fractions, so the convention's last rounding often sees an exact half),
// realistic and saturating draws and the parameters each engine rejects (invalid tests). The
// flags of a valid test are computed from what the reference says about it, never claimed by hand.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "qspec/catalogue/keys.h"
#include "qspec/core/attr.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear_armnn.h"
#include "qspec/ref/ops/qlinear_elementwise.h"
#include "qspec/ref/rounding.h"
#include "qspec/ref/tflite_tosa.h"
#include "qspec/refops.h"
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
using ro::QEwConvention;
using ro::QEwOp;
using Dims = std::vector<std::int64_t>;

struct Problem {
  ro::QEwParams p;
  IntArray a, b;
  bool drawn = false;
  bool long_draw = false;  // shapes of long_shapes (flag "long")
};

template <class Key>
void put(OJ& a, const Key& key, const Int& v) {
  attr::set_unchecked(a, key, static_cast<std::int64_t>(v));
}

// qlinear.add and qlinear.mul have the same tensors and attributes.
template <class Op>
Test to_test(const Problem& pr, std::string comment, bool invalid = false) {
  using A = typename Op::attr;
  Test t;
  t.comment = std::move(comment);
  t.invalid = invalid;
  const auto& p = pr.p;
  OJ a = OJ::object();
  attr::set(a, A::a_scale, p.a_scale);
  put(a, A::a_zero_point, p.a_zero_point);
  attr::set(a, A::b_scale, p.b_scale);
  put(a, A::b_zero_point, p.b_zero_point);
  attr::set(a, A::y_scale, p.y_scale);
  put(a, A::y_zero_point, p.y_zero_point);
  if (p.y_min) put(a, A::y_min, *p.y_min);
  if (p.y_max) put(a, A::y_max, *p.y_max);
  t.attributes = std::move(a);
  t.inputs = {tensor_of(Op::in::a, p.type, pr.a), tensor_of(Op::in::b, p.b_type, pr.b)};
  return t;
}

// ---- exact ties of each convention's last rounding ----

Int floor_mod(const Int& a, const Int& m) { return a - ref::floor_div(a, m) * m; }

// Whether TFLite's MBQM(x, M, shift) meets an exact half in one of its roundings (the single
// rounding, or the double-rounding build's SRDHM or RoundingDivideByPOT).
bool mbqm_is_tie(const Int& x, const ref::QuantizedMultiplier& m, bool single) {
  const int left = std::max(m.shift, 0), right = std::max(-m.shift, 0);
  const Int xs = x * ref::pow2(static_cast<unsigned>(left));
  if (single) {
    const unsigned t = static_cast<unsigned>(31 - m.shift);
    return floor_mod(x * m.multiplier, ref::pow2(t)) == ref::pow2(t - 1);
  }
  if (floor_mod(xs * m.multiplier, ref::pow2(31)) == ref::pow2(30)) return true;
  if (right == 0) return false;
  const Int h = ref::tflite_multiply_by_quantized_multiplier_double_round(xs, m.multiplier, 0);
  return floor_mod(h, ref::pow2(static_cast<unsigned>(right))) == ref::pow2(static_cast<unsigned>(right - 1));
}

bool is_pytorch(QEwConvention c) { return c == QEwConvention::PytorchOnednn || c == QEwConvention::PytorchQnnpack; }

// The kernel a PyTorch add runs (qlinear.add.pytorch_qnnpack picks one by dtype and shapes);
// other conventions are returned unchanged.
QEwConvention pytorch_add_kernel(QEwConvention c, const Problem& pr) {
  if (c != QEwConvention::PytorchQnnpack) return c;
  switch (ro::qlinear_add_pytorch_qnnpack_path(pr.p.type, pr.a.shape, pr.b.shape)) {
    case ro::QEwPytorchQnnpackAddPath::Xnnpack: return QEwConvention::XnnpackFp32;
    case ro::QEwPytorchQnnpackAddPath::Aten: return QEwConvention::PytorchOnednn;
    default: return QEwConvention::PytorchQnnpack;
  }
}

// Whether a TOSA RESCALE (scale32, DOUBLE_ROUND) of v by (M, s) meets an exact half: with s > 31
// it is MBQM_dr with shift 31 - s (requant.tosa.apply_scale_32), with s <= 31 one half-up rounding.
bool tosa_rescale_is_tie(const Int& v, const ref::QuantizedMultiplier& m) {
  return mbqm_is_tie(v, ref::QuantizedMultiplier{m.multiplier, 31 - m.shift}, m.shift <= 31);
}

// TOSA's ADD / MUL graphs: a tie in any of their RESCALEs (add: the inputs' second RESCALEs and the
// output's; mul: the output's; the RESCALEs by 2^20, 2^19 and 1 are exact).
std::function<bool(const Int&, const Int&)> tosa_tie(QEwOp op, const ro::QEwParams& p) {
  if (op == QEwOp::Add) {
    const auto k = ro::qlinear_add_tosa_params(p);
    return [k, p](const Int& a, const Int& b) {
      const Int a20 = (a - p.a_zero_point) * ref::pow2(20), b20 = (b - p.b_zero_point) * ref::pow2(20);
      return (!k.a_single && tosa_rescale_is_tie(a20, k.a)) || (!k.b_single && tosa_rescale_is_tie(b20, k.b)) ||
             tosa_rescale_is_tie(ro::qlinear_add_tosa_sum(a, b, k, p), k.out);
    };
  }
  const auto m = ro::qlinear_mul_tosa_params(p);
  return [m, p](const Int& a, const Int& b) {
    return tosa_rescale_is_tie((a - p.a_zero_point) * (b - p.b_zero_point), m);
  };
}

// The number of output elements whose convention's last rounding is an exact tie.
int count_ties(QEwOp op, QEwConvention c, const Problem& pr) {
  const auto& p = pr.p;
  const auto bc = ro::qlinear_ew_broadcast(pr.a.shape, pr.b.shape);
  const bool single = c == QEwConvention::TfliteSingleRound;
  std::function<bool(const Int&, const Int&)> tie;
  if (c == QEwConvention::Onednn) {
    const auto k = ro::qlinear_ew_onednn_scales(op, p);
    tie = [op, k, p](const Int& a, const Int& b) {
      return ties::is_half_integer(ro::qlinear_ew_onednn_value(op, a, b, k, p));
    };
  } else if (c == QEwConvention::Tosa) {
    tie = tosa_tie(op, p);
  } else if (c == QEwConvention::ArmnnCpuref) {
    tie = [op, p](const Int& a, const Int& b) {
      return ties::is_half_integer(ref::f32_div(ro::qlinear_ew_armnn_value(op, a, b, p), p.y_scale));
    };
  } else if (op == QEwOp::Add && c == QEwConvention::XnnpackFp32) {
    const auto k = ro::qlinear_add_xnnpack_params(p);
    tie = [k, p](const Int& a, const Int& b) {
      const Int v = k.a_multiplier * (a - p.a_zero_point) + k.b_multiplier * (b - p.b_zero_point);
      return floor_mod(v, ref::pow2(static_cast<unsigned>(k.shift))) == ref::pow2(static_cast<unsigned>(k.shift - 1));
    };
  } else if (op == QEwOp::Add && c == QEwConvention::OnnxRuntime) {
    const auto k = ro::qlinear_add_onnxruntime_params(p, ro::qlinear_add_onnxruntime_path(pr.a.shape, pr.b.shape));
    tie = [k](const Int& a, const Int& b) { return ties::is_half_integer(ro::qlinear_add_onnxruntime_value(a, b, k)); };
  } else if (op == QEwOp::Add && pytorch_add_kernel(c, pr) == QEwConvention::PytorchOnednn) {
    const auto inv = ro::qlinear_add_pytorch_onednn_inverse(p);
    tie = [inv, p](const Int& a, const Int& b) {
      return ties::is_half_integer(ro::qlinear_add_pytorch_onednn_value(a, b, inv, p));
    };
  } else if (op == QEwOp::Add && pytorch_add_kernel(c, pr) == QEwConvention::PytorchQnnpack) {
    const auto k = ro::qlinear_add_pytorch_qnnpack_params(p);
    tie = [k, p](const Int& a, const Int& b) {
      const Int v = k.a_multiplier * (a - p.a_zero_point) + k.b_multiplier * (b - p.b_zero_point);
      return floor_mod(v, ref::pow2(static_cast<unsigned>(k.shift))) == ref::pow2(static_cast<unsigned>(k.shift - 1));
    };
  } else if (op == QEwOp::Add && pytorch_add_kernel(c, pr) == QEwConvention::XnnpackFp32) {
    return count_ties(op, QEwConvention::XnnpackFp32, pr);
  } else if (op == QEwOp::Add) {
    const auto k = ro::qlinear_add_tflite_params(p, single);
    tie = [k, p, single](const Int& a, const Int& b) {
      return mbqm_is_tie(ro::qlinear_add_tflite_raw_sum(a, b, k, p, single), k.out, single);
    };
  } else if (c == QEwConvention::PytorchOnednn && ro::qlinear_mul_pytorch_runs_xnnpack(p)) {
    return count_ties(op, QEwConvention::XnnpackFp32, pr);
  } else if (c == QEwConvention::PytorchOnednn) {
    const auto m = ro::qlinear_mul_pytorch_onednn_multiplier(p);
    tie = [m, p](const Int& a, const Int& b) {
      return ties::fp32_product_is_tie((a - p.a_zero_point) * (b - p.b_zero_point), m);
    };
  } else if (c == QEwConvention::XnnpackFp32) {
    const auto s = ro::qlinear_mul_xnnpack_scale(p);
    tie = [s, p](const Int& a, const Int& b) {
      return ties::fp32_product_is_tie((a - p.a_zero_point) * (b - p.b_zero_point), s);
    };
  } else if (c == QEwConvention::OnnxRuntime) {
    const auto s = ro::qlinear_mul_onnxruntime_scale(p);
    tie = [s, p](const Int& a, const Int& b) {
      return ties::is_half_integer(ro::qlinear_mul_onnxruntime_value(a, b, s, p));
    };
  } else {
    const auto m = ro::qlinear_mul_tflite_params(p, single);
    tie = [m, p, single](const Int& a, const Int& b) {
      return mbqm_is_tie((a - p.a_zero_point) * (b - p.b_zero_point), m, single);
    };
  }
  int n = 0;
  for (std::size_t i = 0; i < bc.a_offset.size(); ++i)
    n += tie(pr.a.data[static_cast<std::size_t>(bc.a_offset[i])], pr.b.data[static_cast<std::size_t>(bc.b_offset[i])])
             ? 1
             : 0;
  return n;
}

// Arm NN: the exact ties k + 1/2 with k even in magnitude, where std::round (half away from zero)
// and a round-to-even conversion give different codes.
int count_away_ties(QEwOp op, const Problem& pr) {
  const auto& p = pr.p;
  const auto bc = ro::qlinear_ew_broadcast(pr.a.shape, pr.b.shape);
  int n = 0;
  for (std::size_t i = 0; i < bc.a_offset.size(); ++i) {
    const Int& a = pr.a.data[static_cast<std::size_t>(bc.a_offset[i])];
    const Int& b = pr.b.data[static_cast<std::size_t>(bc.b_offset[i])];
    const std::uint32_t q = ref::f32_div(ro::qlinear_ew_armnn_value(op, a, b, p), p.y_scale);
    if (ties::is_half_integer(q) && ref::round_half_away(ref::f32_value(q)) != ref::round_half_even(ref::f32_value(q)))
      ++n;
  }
  return n;
}

// oneDNN: the outputs where adding z_y in float before the rounding (the eltwise_linear post-op)
// gives another code than rounding first and adding z_y after.
int count_zp_in_float(QEwOp op, const Problem& pr) {
  const auto& p = pr.p;
  auto p0 = p;
  p0.y_zero_point = 0;
  const auto k = ro::qlinear_ew_onednn_scales(op, p);
  const auto bc = ro::qlinear_ew_broadcast(pr.a.shape, pr.b.shape);
  int n = 0;
  for (std::size_t i = 0; i < bc.a_offset.size(); ++i) {
    const Int& a = pr.a.data[static_cast<std::size_t>(bc.a_offset[i])];
    const Int& b = pr.b.data[static_cast<std::size_t>(bc.b_offset[i])];
    const Int w = ref::round_half_even(ref::f32_value(ro::qlinear_ew_onednn_value(op, a, b, k, p)));
    const Int v = ref::round_half_even(ref::f32_value(ro::qlinear_ew_onednn_value(op, a, b, k, p0)));
    if (w != v + p.y_zero_point) ++n;
  }
  return n;
}

std::vector<std::string> auto_flags(const Problem& pr, int ties_n, const Tensor& y) {
  std::set<std::string> f;
  const auto& p = pr.p;
  if (ties_n > 0) f.insert("tie");
  const std::int64_t tmin = lo_of(p.type), tmax = hi_of(p.type);
  const bool narrowed = (p.y_min && *p.y_min > tmin) || (p.y_max && *p.y_max < tmax);
  for (auto v : y.data) {
    if (narrowed && ((p.y_min && v == *p.y_min) || (p.y_max && v == *p.y_max))) f.insert("narrow_clamp");
    if (!narrowed && v == tmin) f.insert("saturate_low");
    if (!narrowed && v == tmax) f.insert("saturate_high");
  }
  if (p.type == DType::U8) f.insert("uint8");
  if (pr.a.shape != pr.b.shape) f.insert("broadcast");
  if (pr.a.shape.size() != pr.b.shape.size()) f.insert("rank_mismatch");
  if ((pr.a.numel() == 1 || pr.b.numel() == 1) && static_cast<std::int64_t>(y.data.size()) > 1)
    f.insert("broadcast_scalar");
  if (pr.drawn) f.insert("random");
  if (pr.long_draw) f.insert("long");
  return {f.begin(), f.end()};
}

const std::vector<std::pair<std::string, std::string>> kNotes = {
    {"tie", "at least one output's last rounding (the convention's) meets an exact half"},
    {"saturate_low", "an output is the dtype's minimum"},
    {"saturate_high", "an output is the dtype's maximum"},
    {"narrow_clamp", "an output is at a fused clamp bound y_min / y_max narrower than the dtype"},
    {"uint8", "uint8 tensors"},
    {"broadcast", "a and b have different shapes (NumPy broadcasting)"},
    {"rank_mismatch", "a and b have different ranks (right-aligned broadcasting)"},
    {"broadcast_scalar", "one operand has a single element, broadcast to every output element"},
    {"scale_limit", "a scale ratio outside XNNPACK's range: xnn_status_unsupported_parameter"},
    {"multiplier_limit", "TFLite's real output multiplier is >= 1: QuantizeMultiplierSmallerThanOneExp aborts"},
    {"random", "random draw"},
    {"long",
     "65-200 output elements: the optimized kernels' 8-lane (ymm) and 16-lane (zmm, 64 elements per step) loops and "
     "their tails, with equal shapes, a one-element operand or a per-channel operand over the innermost axis"},
};

// Arm NN's families also name the ties where its half-away rounding differs from half to even; TOSA's
// the RESCALE shift limit.
template <class Op>
std::vector<std::pair<std::string, std::string>> notes_of(std::string_view conv) {
  auto n = kNotes;
  const auto before_random = [&n] {
    return std::find_if(n.begin(), n.end(), [](const auto& e) { return e.first == "random"; });
  };
  if (conv == Op::conv::armnn_cpuref)
    n.insert(before_random(),
             {"away_tie", "an exact tie whose half-away rounding differs from half to even (Arm NN's std::round)"});
  if (conv == Op::conv::onednn)
    n.insert(before_random(), {"zp_in_float",
                               "an output where adding z_y in float before the rounding (oneDNN's eltwise_linear "
                               "post-op) differs from rne(v) + z_y"});
  if constexpr (requires { Op::conv::tosa; })
    if (conv == Op::conv::tosa)
      n.insert(before_random(),
               {"shift_limit",
                "a RESCALE's computeMultiplierAndShift shift is outside [2, 62]: the TOSA legalization fails"});
  return n;
}

std::string reference_message(const Test& t, std::string_view op, std::string_view conv) {
  try {
    refops::find_op(op, conv)->fn(t.attributes, t.inputs);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "accepted";
}

template <class Op>
struct Builder {
  QEwOp op;
  std::string conv;
  QEwConvention c;
  std::vector<Test> tests;
  int ties_total = 0;

  // oneDNN's binary has no source zero points: the shared hand cases run with z_a = z_b = 0 there.
  static Problem symmetric(Problem pr) {
    pr.p.a_zero_point = pr.p.b_zero_point = 0;
    return pr;
  }
  void add(const Problem& given, const std::string& comment) {
    const Problem pr = c == QEwConvention::Onednn ? symmetric(given) : given;
    Test t = to_test<Op>(pr, comment);
    std::vector<Tensor> out;
    if (classify(Op::op, conv, t.attributes, t.inputs, &out) != Verdict::Valid)
      throw std::logic_error("vecgen " + std::string(Op::op) + " / " + conv + ": hand case '" + comment +
                             "' is not valid: " + reference_message(t, Op::op, conv));
    finish(pr, t, out);
  }
  void add_invalid(const Problem& pr, const std::string& comment, std::vector<std::string> flags = {}) {
    Test t = to_test<Op>(pr, "invalid: " + comment, true);
    if (classify(Op::op, conv, t.attributes, t.inputs) != Verdict::Invalid)
      throw std::logic_error("vecgen " + std::string(Op::op) + " / " + conv + ": '" + comment +
                             "' is not rejected: " + reference_message(t, Op::op, conv));
    t.flags = std::move(flags);
    tests.push_back(std::move(t));
  }
  void add_random(int n, const std::function<Problem()>& draw, const std::string& what) {
    for (int i = 0; i < n; ++i)
      for (int attempt = 0;; ++attempt) {
        Problem pr = draw();
        pr.drawn = true;
        Test t = to_test<Op>(pr, what);
        std::vector<Tensor> out;
        if (classify(Op::op, conv, t.attributes, t.inputs, &out) == Verdict::Valid) {
          finish(pr, t, out);
          break;
        }
        if (attempt > 200)
          throw std::logic_error("vecgen " + std::string(Op::op) + " / " + conv + ": cannot draw a valid " + what);
      }
  }
  void finish(const Problem& pr, Test& t, const std::vector<Tensor>& out) {
    const int n = count_ties(op, c, pr);
    t.flags = auto_flags(pr, n, out.at(0));
    if (c == QEwConvention::ArmnnCpuref && count_away_ties(op, pr) > 0) {
      t.flags.push_back("away_tie");
      std::sort(t.flags.begin(), t.flags.end());
    }
    if (c == QEwConvention::Onednn && count_zp_in_float(op, pr) > 0) {
      t.flags.push_back("zp_in_float");
      std::sort(t.flags.begin(), t.flags.end());
    }
    if (n > 0)
      t.comment +=
          " (" + std::to_string(n) + " of " + std::to_string(out.at(0).data.size()) + " outputs are exact ties)";
    tests.push_back(std::move(t));
  }
};

// ---- drawing ----

bool is_tflite(QEwConvention c) {
  return c == QEwConvention::TfliteDoubleRound || c == QEwConvention::TfliteSingleRound;
}

// Two broadcast-compatible shapes, at most 4-D and a few dozen elements. The ONNX Runtime add
// clause leaves unit last axes on both operands with different shapes to a REQUIRE: such draws
// are redrawn.
std::pair<Dims, Dims> draw_shapes(Rng& r) {
  const auto rank = r.uniform(1, 4);
  Dims out;
  for (std::int64_t i = 0; i < rank; ++i) {
    const auto d = r.uniform(1, rank >= 3 ? 3 : 5);
    out.push_back(d);
  }
  Dims a = out, b = out;
  const auto kind = r.uniform(0, 5);
  if (kind == 1) {
    b = Dims{1};  // one element
  } else if (kind == 2 && rank > 1) {
    const auto drop = r.uniform(1, rank - 1);  // b: the trailing dims only
    b = Dims(out.begin() + drop, out.end());
  } else if (kind == 3 || kind == 4) {
    for (auto& d : b)
      if (r.coin()) d = 1;  // unit axes in b
    if (kind == 4)
      for (std::size_t i = 0; i < a.size(); ++i)
        if (b[i] != 1 && r.coin()) a[i] = 1;  // and in a
  }
  if (r.coin()) std::swap(a, b);
  return {a, b};
}

IntArray draw_codes(Rng& r, const Dims& shape, DType t, std::int64_t spread_lo, std::int64_t spread_hi) {
  const std::int64_t lo = std::max(lo_of(t), spread_lo), hi = std::min(hi_of(t), spread_hi);
  return array_of(shape, [&](std::int64_t) { return r.uniform(lo, hi); });
}

// The binary32 pattern of a random positive normal 2^e (1 + m / 2^23), mostly with few mantissa bits.
std::uint32_t random_scale(Rng& r, int e) {
  const std::uint32_t m = r.coin() ? static_cast<std::uint32_t>(r.uniform(0, (1 << 23) - 1))
                                   : static_cast<std::uint32_t>(r.uniform(0, 15)) << 19;
  return (static_cast<std::uint32_t>(e + 127) << 23) | m;
}

std::int64_t draw_zero_point(Rng& r, DType t) { return t == DType::U8 ? r.uniform(0, 255) : r.uniform(-128, 127); }

// Scales whose derived constants are short dyadic fractions: the last rounding sees exact halves.
void tie_rich_scales(Rng& r, QEwOp op, QEwConvention c, ro::QEwParams& p) {
  const std::int64_t cy = r.pick(std::vector<std::int64_t>{1, 3, 5, 7});
  const int ey = static_cast<int>(r.uniform(-12, -2));
  p.y_scale = ties::f32_dyadic(cy, ey);
  if (op == QEwOp::Add) {
    // Ratios k / 2^j (TFLite: powers of two, which keep its three multipliers exact).
    const std::vector<std::int64_t> odd =
        is_tflite(c) ? std::vector<std::int64_t>{1} : std::vector<std::int64_t>{1, 3, 5, 7, 9, 15};
    const std::int64_t ka = r.pick(odd);
    const int ja = static_cast<int>(r.uniform(0, 4));
    const std::int64_t kb = r.pick(odd);
    const int jb = static_cast<int>(r.uniform(0, 4));
    p.a_scale = ties::f32_dyadic(cy * ka, ey - ja);
    p.b_scale = ties::f32_dyadic(cy * kb, ey - jb);
  } else {
    // S = ka kb 2^-j exactly: s_a = ka 2^ea, s_b = kb cy 2^eb, s_y = cy 2^ey.
    const std::int64_t ka = r.pick(std::vector<std::int64_t>{1, 3, 5});
    const std::int64_t kb = r.pick(std::vector<std::int64_t>{1, 3, 5});
    const int j = static_cast<int>(r.uniform(1, 6));
    const int ea = static_cast<int>(r.uniform(-8, -2));
    p.a_scale = ties::f32_dyadic(ka, ea);
    p.b_scale = ties::f32_dyadic(kb * cy, ey - j - ea);
  }
}

// Scales of a realistic layer: inputs of similar magnitude, the output scale near their sum (add)
// or product (mul); `saturating` shrinks the output scale so outputs reach both ends.
void realistic_scales(Rng& r, QEwOp op, ro::QEwParams& p, bool saturating) {
  const int ea = static_cast<int>(r.uniform(-9, -3));
  const int eb = ea + static_cast<int>(r.uniform(-2, 2));
  p.a_scale = random_scale(r, ea);
  p.b_scale = random_scale(r, eb);
  const int shrink = saturating ? static_cast<int>(r.uniform(2, 4)) : 0;
  if (op == QEwOp::Add) {
    p.y_scale = random_scale(r, std::max(ea, eb) + static_cast<int>(r.uniform(0, 1)) - shrink);
  } else {
    p.y_scale = random_scale(r, ea + eb + static_cast<int>(r.uniform(4, 7)) - shrink);
  }
}

// `shapes`: the long draws' (a, b); otherwise drawn here.
template <class Op>
Problem draw(Rng& r, QEwOp op, QEwConvention c, int mode /* 0 tie-rich, 1 realistic, 2 saturating */,
             const std::pair<Dims, Dims>* shapes = nullptr) {
  Problem pr;
  auto& p = pr.p;
  const bool int8 = r.coin();  // drawn for every convention: TOSA's int8 only keeps the others' draws
  p.type = p.b_type = int8 || c == QEwConvention::Tosa ? DType::I8 : DType::U8;
  auto [sa, sb] = shapes ? *shapes : draw_shapes(r);
  // PyTorch: fewer than 64 outputs keep ATen's loop on its scalar path at every CPU capability (its
  // vector path dequantizes with an FMA: E-LIBTORCH-EW-1), except in the long draws; qnnpack: equal
  // shapes reach q8add.
  while (!shapes && is_pytorch(c) && ro::shape_numel(ro::qlinear_ew_broadcast(sa, sb).out) > 63)
    std::tie(sa, sb) = draw_shapes(r);
  if (!shapes && c == QEwConvention::PytorchQnnpack && r.coin()) sb = sa;
  if (mode == 0)
    tie_rich_scales(r, op, c, p);
  else
    realistic_scales(r, op, p, mode == 2);
  p.a_zero_point = draw_zero_point(r, p.type);
  p.b_zero_point = draw_zero_point(r, p.type);
  p.y_zero_point = draw_zero_point(r, p.type);
  if (c == QEwConvention::Onednn) p.a_zero_point = p.b_zero_point = 0;  // no source zero points
  if (is_pytorch(c) && r.uniform(0, 4) == 0) {
    p.y_min = p.y_zero_point;  // quantized::add_relu / mul_relu: the only fused clamp PyTorch has
  } else if (c != QEwConvention::OnnxRuntime && c != QEwConvention::ArmnnCpuref && !is_pytorch(c) &&
             r.uniform(0, 5) == 0) {
    // A fused clamp narrower than the dtype (TFLite's activation ranges may be a single code).
    const std::int64_t lo = r.uniform(lo_of(p.type), hi_of(p.type) - 1);
    const std::int64_t hi = r.uniform(lo + 1, hi_of(p.type));
    p.y_min = lo;
    p.y_max = hi;
  }
  if (mode == 0) {
    // Codes near the zero points keep the outputs inside the dtype, where the ties show.
    const std::int64_t spread = r.pick(std::vector<std::int64_t>{6, 20, 60});
    const std::int64_t za = static_cast<std::int64_t>(p.a_zero_point), zb = static_cast<std::int64_t>(p.b_zero_point);
    pr.a = draw_codes(r, sa, p.type, za - spread, za + spread);
    pr.b = draw_codes(r, sb, p.type, zb - spread, zb + spread);
  } else {
    pr.a = draw_codes(r, sa, p.type, lo_of(p.type), hi_of(p.type));
    pr.b = draw_codes(r, sb, p.type, lo_of(p.type), hi_of(p.type));
  }
  return pr;
}

// The long draws' shapes: equal shapes of 65-200 elements (1-D, or 2-D where the length factors),
// a one-element operand, and a per-channel operand of C elements against (rows, C), either operand.
std::vector<std::pair<Dims, Dims>> long_shapes() {
  std::vector<std::pair<Dims, Dims>> s;
  for (std::int64_t n : {65, 72, 100, 127, 129, 150, 177, 200})
    s.push_back(n % 2 == 0 ? std::pair<Dims, Dims>{{2, n / 2}, {2, n / 2}} : std::pair<Dims, Dims>{{n}, {n}});
  s.push_back({{66}, {1}});
  s.push_back({{1}, {2, 65}});
  s.push_back({{199}, {1}});
  s.push_back({{5, 17}, {17}});
  s.push_back({{33}, {4, 33}});
  s.push_back({{2, 70}, {70}});
  s.push_back({{15, 9}, {9}});
  return s;
}

// ---- hand cases ----

Problem unit_problem(DType t, const Dims& sa, const Dims& sb) {
  Problem pr;
  pr.p.type = pr.p.b_type = t;
  pr.a = array_of(sa, [t](std::int64_t i) { return lo_of(t) + (i * 37) % 256; });
  pr.b = array_of(sb, [t](std::int64_t i) { return lo_of(t) + (i * 101 + 13) % 256; });
  return pr;
}

// Every (A, B) of a small grid with a ratio of 1/2 (add: y = (da + db) / 2) or a scale of 1/2
// (mul: y = da db / 2): about half of the outputs are exact ties.
template <class Op>
void half_tie_cases(Builder<Op>& b) {
  for (DType t : {DType::I8, DType::U8}) {
    Problem pr;
    pr.p.type = pr.p.b_type = t;
    // Full 16 x 16 operands (both span the last axis: every convention's general path).
    pr.a = array_of({16, 16}, [t](std::int64_t i) { return lo_of(t) + 17 * (i / 16); });
    pr.b = array_of({16, 16}, [t](std::int64_t i) { return lo_of(t) + 3 + 16 * (i % 16); });
    pr.p.a_zero_point = pr.p.b_zero_point = t == DType::I8 ? -3 : 125;
    pr.p.y_zero_point = t == DType::I8 ? 1 : 130;
    if (b.op == QEwOp::Add) {
      pr.p.a_scale = pr.p.b_scale = ties::f32_dyadic(1, -8);
      pr.p.y_scale = ties::f32_dyadic(1, -7);
      b.add(pr, std::string(dtype_name(t)) + " 16 x 16 grid, s_a / s_y = s_b / s_y = 1/2: y = z_y + (da + db) / 2");
    } else {
      pr.p.a_scale = ties::f32_dyadic(1, -4);
      pr.p.b_scale = ties::f32_dyadic(1, -4);
      pr.p.y_scale = ties::f32_dyadic(1, -7);  // S = 2^-8 / 2^-7 = 1/2
      b.add(pr, std::string(dtype_name(t)) + " 16 x 16 grid, S = 1/2: y = z_y + da db / 2");
    }
  }
}

// PyTorch's multiplier is a product with the reciprocal of s_y, not a quotient: with
// s_a s_b = 21/8 and s_y = 7, M = fl32(2.625 fl32(1/7)) = 3/8 + 2^-25 where s_a s_b / s_y = 3/8, so
// p = 12 gives fl32(12 M) = 4.5 + 2^-21, rounded up to 5 (the quotient gives the tie 4.5 -> 4);
// and mul_relu's clamp at the zero point.
template <class Op>
void pytorch_hand_cases(Builder<Op>& b) {
  for (DType t : {DType::U8, DType::I8}) {
    Problem rc = unit_problem(t, {4}, {4});
    const std::int64_t z = t == DType::U8 ? 128 : 0;
    rc.a = array_of({4}, [z](std::int64_t i) { return z + 3 - 6 * (i % 2); });
    rc.b = array_of({4}, [z](std::int64_t i) { return z + (i < 2 ? 4 : -4); });
    rc.p.a_zero_point = rc.p.b_zero_point = Int(z);
    // int8 reaches ATen's kernel only with z_y = 127 (QMul::run hands z_y < 127 to XNNPACK).
    rc.p.y_zero_point = Int(t == DType::U8 ? z + 1 : 127);
    rc.p.a_scale = ties::f32_dyadic(21, -3), rc.p.b_scale = ties::f32_dyadic(1, 0);
    rc.p.y_scale = ties::f32_dyadic(7, 0);
    b.add(rc, std::string(dtype_name(t)) +
                  " s_a s_b = 21/8, s_y = 7, p = +-12: M = fl32(2.625 fl32(1/7)) = 3/8 + 2^-25 rounds 12 M = 4.5 + "
                  "2^-21 to 5 (the quotient 3/8 would give the tie 4.5 -> 4)" +
                  (t == DType::I8 ? "; z_y = 127: ATen's kernel" : ""));
  }
  Problem xq = unit_problem(DType::I8, {4}, {4});
  xq.a = array_of({4}, [](std::int64_t i) { return 3 - 6 * (i % 2); });
  xq.b = array_of({4}, [](std::int64_t i) { return i < 2 ? 4 : -4; });
  xq.p.y_zero_point = Int(1);
  xq.p.a_scale = ties::f32_dyadic(21, -3), xq.p.b_scale = ties::f32_dyadic(1, 0);
  xq.p.y_scale = ties::f32_dyadic(7, 0);
  b.add(xq,
        "int8 with z_y = 1 < 127: XNNPACK's multiply, S = fl32(2.625 / 7) = 3/8: p = +-12 gives the ties "
        "+-4.5 -> +-4 (ATen's reciprocal would give +-5)");
  Problem relu = unit_problem(DType::U8, {16}, {16});
  relu.p.a_zero_point = relu.p.b_zero_point = Int(128);
  relu.p.y_zero_point = Int(100);
  relu.p.a_scale = relu.p.b_scale = ties::f32_dyadic(1, -4);
  relu.p.y_scale = ties::f32_dyadic(1, -3);
  relu.p.y_min = Int(100);
  b.add(relu, "uint8 y_min = z_y = 100 (quantized::mul_relu): negative products clamp to the zero point");
}

// PyTorch's add: which kernel runs (qlinear.add.pytorch_qnnpack: q8add for uint8 of one shape, ATen
// for broadcast uint8, XNNPACK for int8) decides what is rejected; ATen rejects no scale ratio.
template <class Op>
void pytorch_add_hand_cases(Builder<Op>& b) {
  const bool qnn = b.c == QEwConvention::PytorchQnnpack;
  auto ratio_problem = [](DType t, const Dims& sa, const Dims& sb, std::uint32_t a_scale) {
    Problem pr = unit_problem(t, sa, sb);
    pr.p.a_zero_point = pr.p.b_zero_point = pr.p.y_zero_point = t == DType::U8 ? 128 : 0;
    pr.p.a_scale = a_scale, pr.p.b_scale = ties::f32_dyadic(1, -6), pr.p.y_scale = ties::f32_dyadic(1, -6);
    return pr;
  };
  const Problem big = ratio_problem(DType::U8, {6}, {6}, ties::f32_dyadic(1, 2));  // s_a / s_y = 2^8
  if (qnn)
    b.add_invalid(big, "uint8 of one shape, s_a / s_y = 2^8: q8add's ratio must be in [2**-14, 2**8)", {"scale_limit"});
  else
    b.add(big, "uint8, s_a / s_y = 2^8 (ATen's kernel has no ratio limit): every output saturates or is z_y");
  b.add(ratio_problem(DType::U8, {2, 3}, {3}, ties::f32_dyadic(1, 2)),
        "uint8 b (3) broadcast to (2, 3), s_a / s_y = 2^8: ATen's kernel under either engine");
  const Problem small = ratio_problem(DType::U8, {6}, {6}, ties::f32_dyadic(1, -21));  // 2^-15
  if (qnn) b.add_invalid(small, "uint8 of one shape, s_a / s_y = 2^-15: below q8add's 2**-14", {"scale_limit"});
  b.add(ratio_problem(DType::U8, {6}, {6}, ties::f32_dyadic(1, -20)),
        "uint8, s_a / s_y = 2^-14 (q8add's lower limit, inside): m_a = 2^7, shift 21");
  const Problem i8small = ratio_problem(DType::I8, {6}, {6}, ties::f32_dyadic(1, -17));  // 2^-11
  if (qnn)
    b.add_invalid(i8small, "int8, s_a / s_y = 2^-11: XNNPACK's ratio must be at least 2**-10", {"scale_limit"});
  else
    b.add(i8small, "int8, s_a / s_y = 2^-11 (XNNPACK would reject it; ATen's kernel has no limit)");
  for (DType t : {DType::U8, DType::I8}) {
    Problem top = unit_problem(t, {8}, {8});
    top.p.a_scale = top.p.b_scale = ties::f32_dyadic(1, -6), top.p.y_scale = ties::f32_dyadic(1, -6);
    top.p.y_zero_point = Int(hi_of(t));
    top.p.y_min = Int(hi_of(t));
    const std::string what = std::string(dtype_name(t)) + " add_relu with z_y = " + std::to_string(hi_of(t));
    if (qnn)
      b.add_invalid(top, what + ": the output range [z_y, max] is empty (QNNPACK / XNNPACK: min below max)");
    else
      b.add(top, what + ": every output is the maximum");
  }
  if (!qnn) {
    // E-LIBTORCH-EW-1: 64 contiguous outputs fill one AVX2 block of ATen's vector loop, which
    // dequantizes with fma(s, q, fl32(-z s)): d_a = -0.100000009 there, v = -0.50000006 -> 127, where
    // the clause (the scalar path) has d_a = fl32(-1 * 0.1f), v = -0.5 exactly -> 128.
    Problem fma = unit_problem(DType::U8, {64}, {64});
    fma.a = array_of({64}, [](std::int64_t) { return 2; });
    fma.b = array_of({64}, [](std::int64_t) { return 0; });
    fma.p.a_scale = 0x3dcccccdu;  // 0.1f
    fma.p.a_zero_point = 3;
    fma.p.b_scale = ties::f32_dyadic(1, 0);
    fma.p.y_scale = 0x3e4ccccdu;  // 0.2f
    fma.p.y_zero_point = 128;
    b.add(fma,
          "uint8, 64 outputs, a = 2 (s_a = 0.1f, z_a = 3), b = 0, s_y = 0.2f: d_a / s_y = -0.5 exactly -> 128 "
          "(ATen's AVX2 vector path dequantizes with an FMA and returns 127: E-LIBTORCH-EW-1)");
  }
  // 3 / 8 + 5 / 8 ... halves: (a - z_a) / 2 + (b - z_b) / 2 with s_a = s_b = s_y / 2, the codes
  // chosen so every sum is an odd number of halves: rne and half away from zero differ on each.
  for (DType t : {DType::U8, DType::I8}) {
    Problem h = unit_problem(t, {8}, {8});
    const std::int64_t z = t == DType::U8 ? 128 : 0;
    h.a = array_of({8}, [z](std::int64_t i) {
      return z + std::vector<std::int64_t>{1, 3, 5, 7, -1, -3, -5, -7}[static_cast<std::size_t>(i)];
    });
    h.b = array_of({8}, [z](std::int64_t) { return z; });
    h.p.a_zero_point = h.p.b_zero_point = h.p.y_zero_point = Int(z);
    h.p.a_scale = h.p.b_scale = ties::f32_dyadic(1, -7), h.p.y_scale = ties::f32_dyadic(1, -6);
    b.add(h, std::string(dtype_name(t)) +
                 " d_a / s_y = +-1/2, +-3/2, +-5/2, +-7/2: half to even gives 0, 2, 2, 4 (ATen); half away 1, 2, 3, 4 "
                 "(q8add)");
  }
}

// oneDNN adds z_y in float before the rounding (the eltwise_linear post-op): s0 = 1/2 + 2^-24
// (add: s_a / s_y; mul: s_a s_b / s_y) with A = 1 gives v = 1/2 + 2^-24, rne(v) + z_y = 1 + z_y, but
// fl32(v + 100) = 100.5 rounds to 100; the source zero points it cannot take.
template <class Op>
void onednn_hand_cases(Builder<Op>& b) {
  const bool add = b.op == QEwOp::Add;
  for (DType t : {DType::I8, DType::U8}) {
    Problem zf = unit_problem(t, {4}, {4});
    zf.a = array_of({4}, [](std::int64_t i) {
      return std::vector<std::int64_t>{1, 1, 3, 2}[static_cast<std::size_t>(i)];
    });
    zf.b = array_of({4}, [add](std::int64_t) { return add ? 0 : 1; });
    zf.p.a_scale = 0x3f000001u;  // 1/2 + 2^-24
    zf.p.b_scale = ties::f32_dyadic(1, 0);
    zf.p.y_scale = ties::f32_dyadic(1, 0);
    zf.p.y_zero_point = Int(100);
    b.add(zf, std::string(dtype_name(t)) +
                  " s0 = 1/2 + 2^-24, z_y = 100: fl32(v + z_y) lands on 100.5 and rounds to 100 where rne(v) + z_y = "
                  "101 (oneDNN adds the zero point in float before rounding)");
  }
  if (!add) {
    // The scale sits on src0 (a): fl32(fl32(A S) B) with S = 0.01 gives 107.5 for (A, B) = (-125, -86)
    // (rne: 108) but 107.49999 for (-86, -125); the scale on b would swap the two.
    Problem ord = unit_problem(DType::I8, {2}, {2});
    ord.a = array_of({2}, [](std::int64_t i) { return i == 0 ? -125 : -86; });
    ord.b = array_of({2}, [](std::int64_t i) { return i == 0 ? -86 : -125; });
    ord.p.a_scale = 0x3c23d70au;  // fl32(0.01)
    ord.p.b_scale = ties::f32_dyadic(1, 0);
    ord.p.y_scale = ties::f32_dyadic(1, 0);
    b.add(ord,
          "S = fl32(0.01) on src0: fl32(fl32(-125 S) (-86)) = 107.5 -> 108, fl32(fl32(-86 S) (-125)) = "
          "107.49999 -> 107 (the operands' order is part of the convention)");
  }
  Problem za = unit_problem(DType::I8, {2}, {2});
  za.p.a_zero_point = Int(1);
  b.add_invalid(za, "a_zero_point 1: oneDNN's binary primitive takes no source zero points");
  Problem zb = unit_problem(DType::U8, {2}, {2});
  zb.p.b_zero_point = Int(128);
  b.add_invalid(zb, "b_zero_point 128: oneDNN's binary primitive takes no source zero points");
  // DNNL_MAX_NDIMS = 12 lies beyond the vector format's 8 axes: the property tests check it.
  Problem deep = unit_problem(DType::I8, Dims(8, 1), {2});
  deep.p.a_scale = ties::f32_dyadic(1, -7), deep.p.b_scale = ties::f32_dyadic(1, -7);
  deep.p.y_scale = add ? ties::f32_dyadic(1, -6) : ties::f32_dyadic(1, -8);
  b.add(deep, "a of rank 8 (unit axes) with b (2)");
}

template <class Op>
void common_hand_cases(Builder<Op>& b) {
  const bool ort = b.c == QEwConvention::OnnxRuntime, xnn = b.c == QEwConvention::XnnpackFp32;
  const bool armnn = b.c == QEwConvention::ArmnnCpuref;
  const bool add = b.op == QEwOp::Add;
  half_tie_cases(b);
  // Saturation at both ends: the extreme codes with a small output scale.
  for (DType t : {DType::I8, DType::U8}) {
    Problem sat = unit_problem(t, {2, 3}, {2, 3});
    sat.a = array_of({2, 3}, [t](std::int64_t i) { return i < 3 ? lo_of(t) : hi_of(t); });
    sat.b = array_of({2, 3}, [t](std::int64_t i) { return i % 2 == 0 ? lo_of(t) : hi_of(t); });
    sat.p.a_zero_point = sat.p.b_zero_point = sat.p.y_zero_point = t == DType::I8 ? 0 : 128;
    sat.p.a_scale = sat.p.b_scale = ties::f32_dyadic(1, -4);
    sat.p.y_scale = add ? ties::f32_dyadic(1, -5) : ties::f32_dyadic(1, -6);
    b.add(sat, std::string(dtype_name(t)) + " extreme codes, y_scale small: both ends saturate");
  }
  // Broadcasting shapes.
  {
    Problem rk = unit_problem(DType::I8, {2, 3, 4}, {4});
    rk.p.a_scale = ties::f32_dyadic(3, -8), rk.p.b_scale = ties::f32_dyadic(5, -9);
    rk.p.y_scale = add ? ties::f32_dyadic(1, -6) : ties::f32_dyadic(1, -9);
    rk.p.a_zero_point = 10, rk.p.b_zero_point = -20, rk.p.y_zero_point = 5;
    b.add(rk, "a (2, 3, 4) with b (4): rank mismatch, b repeated over the leading axes");
    Problem both = unit_problem(DType::U8, {2, 1, 3}, {4, 3});
    both.p.a_scale = ties::f32_dyadic(7, -9), both.p.b_scale = ties::f32_dyadic(1, -6);
    both.p.y_scale = add ? ties::f32_dyadic(1, -5) : ties::f32_dyadic(1, -7);
    both.p.a_zero_point = 128, both.p.b_zero_point = 100, both.p.y_zero_point = 140;
    b.add(both, "a (2, 1, 3) with b (4, 3): both broadcast, output (2, 4, 3)");
    Problem four = unit_problem(DType::I8, {2, 1, 2, 3}, {1, 2, 1, 3});
    four.p.a_scale = ties::f32_dyadic(1, -7), four.p.b_scale = ties::f32_dyadic(3, -8);
    four.p.y_scale = add ? ties::f32_dyadic(1, -6) : ties::f32_dyadic(1, -8);
    b.add(four, "a (2, 1, 2, 3) with b (1, 2, 1, 3): 4-D broadcast on alternating axes");
    {
      Problem sc = unit_problem(DType::I8, {3, 4}, {1});
      sc.b = array_of({1}, [](std::int64_t) { return -77; });
      sc.p.a_scale = ties::f32_dyadic(1, -7), sc.p.b_scale = ties::f32_dyadic(1, -7);
      sc.p.y_scale = add ? ties::f32_dyadic(1, -6) : ties::f32_dyadic(1, -8);
      sc.p.b_zero_point = 3;
      b.add(sc, "b of one element broadcast to (3, 4)");
      Problem col = unit_problem(DType::U8, {3, 1}, {3, 4});
      col.p.a_scale = ties::f32_dyadic(5, -10), col.p.b_scale = ties::f32_dyadic(1, -7);
      col.p.y_scale = add ? ties::f32_dyadic(1, -7) : ties::f32_dyadic(1, -9);
      col.p.a_zero_point = 120, col.p.b_zero_point = 131, col.p.y_zero_point = 128;
      b.add(col, "a (3, 1) with b (3, 4): a unit last axis");
    }
    if (ort && add) {
      // ONNX Runtime reads a one-element a as a scalar: MLAS gets the roles swapped and folds a
      // into its constant first (qlinear.add.onnxruntime, the ScalarA path).
      Problem sa = unit_problem(DType::U8, {1}, {4, 5});
      sa.a = array_of({1}, [](std::int64_t) { return 201; });
      sa.p.a_scale = ties::f32_dyadic(3, -8), sa.p.b_scale = ties::f32_dyadic(1, -7);
      sa.p.y_scale = ties::f32_dyadic(1, -6);
      sa.p.a_zero_point = 190, sa.p.b_zero_point = 77, sa.p.y_zero_point = 101;
      b.add(sa, "a of one element broadcast to (4, 5): ONNX Runtime's scalar-a path (roles swapped)");
      Problem one = unit_problem(DType::I8, {1}, {1});
      one.p.a_scale = ties::f32_dyadic(5, -9), one.p.b_scale = ties::f32_dyadic(1, -7);
      one.p.y_scale = ties::f32_dyadic(1, -6);
      one.p.a_zero_point = 3, one.p.b_zero_point = -9, one.p.y_zero_point = 1;
      b.add(one, "a and b of one element: a one-element output takes the scalar-a path");
    }
  }
  // The fused clamp (PyTorch has one: add_relu / mul_relu, y_min = z_y).
  if (is_pytorch(b.c)) {
    Problem nc = unit_problem(DType::I8, {4, 4}, {4, 4});
    nc.p.a_scale = nc.p.b_scale = ties::f32_dyadic(1, -7);
    nc.p.y_scale = add ? ties::f32_dyadic(1, -6) : ties::f32_dyadic(1, -8);
    nc.p.y_zero_point = Int(-20), nc.p.y_min = Int(-20);
    b.add(nc, "int8 y_min = z_y = -20 (the _relu operator)");
  } else if (!ort && !armnn) {
    Problem nc = unit_problem(DType::I8, {4, 4}, {4, 4});
    nc.p.a_scale = nc.p.b_scale = ties::f32_dyadic(1, -7);
    nc.p.y_scale = add ? ties::f32_dyadic(1, -6) : ties::f32_dyadic(1, -8);
    nc.p.y_min = Int(-20), nc.p.y_max = Int(30);
    b.add(nc, "fused clamp [-20, 30]");
  }
  if (!ort && !armnn) {
    Problem nu = unit_problem(DType::U8, {8}, {8});
    nu.p.a_zero_point = nu.p.b_zero_point = nu.p.y_zero_point = 128;
    nu.p.a_scale = nu.p.b_scale = ties::f32_dyadic(1, -7);
    nu.p.y_scale = add ? ties::f32_dyadic(1, -6) : ties::f32_dyadic(1, -8);
    nu.p.y_min = Int(128);
    if (!is_pytorch(b.c)) nu.p.y_max = Int(200);
    b.add(nu, is_pytorch(b.c) ? "uint8 y_min = z_y = 128 (the _relu operator)"
                              : "uint8 fused clamp [128, 200] (a ReLU at the zero point)");
  }
  // Rejections shared by every convention.
  Problem dt = unit_problem(DType::I8, {2}, {2});
  dt.p.b_type = DType::U8;
  dt.b = array_of({2}, [](std::int64_t i) { return 10 + i; });
  b.add_invalid(dt, "a int8 with b uint8");
  Problem sh = unit_problem(DType::I8, {2, 3}, {2});
  b.add_invalid(sh, "a (2, 3) with b (2): the last axes 3 and 2 do not broadcast");
  if (!armnn) {  // Arm NN's zero points are int32 offsets it does not check: a REQUIRE there
    Problem zp = unit_problem(DType::I8, {2}, {2});
    zp.p.y_zero_point = Int(128);
    b.add_invalid(zp, "y_zero_point 128 does not fit int8");
    Problem zpu = unit_problem(DType::U8, {2}, {2});
    zpu.p.a_zero_point = Int(-1);
    b.add_invalid(zpu, "a_zero_point -1 does not fit uint8");
  }
  if (armnn) {
    // round(2.5) = 3 and round(-2.5) = -3 (std::round), where a round-to-even conversion gives 2, -2.
    Problem aw = unit_problem(DType::I8, {4}, {4});
    aw.a = array_of({4}, [](std::int64_t i) {
      return std::vector<std::int64_t>{5, 7, -5, -7}[static_cast<std::size_t>(i)];
    });
    aw.b = array_of({4}, [add](std::int64_t) { return add ? 0 : 1; });
    aw.p.a_scale = ties::f32_dyadic(1, -8);
    aw.p.b_scale = add ? ties::f32_dyadic(1, -8) : ties::f32_dyadic(1, 0);
    aw.p.y_scale = ties::f32_dyadic(1, -7);
    aw.p.y_zero_point = 10;
    b.add(aw, "v / s_y = 2.5, 3.5, -2.5, -3.5: half away from zero gives y = 13, 14, 7, 6 (to even: 12, 14, 8, 6)");
  }
  if (!ort && !armnn) {
    Problem inv = unit_problem(DType::I8, {2}, {2});
    inv.p.y_min = Int(10), inv.p.y_max = Int(xnn ? 10 : 9);
    b.add_invalid(inv,
                  xnn ? "y_min = y_max = 10 (XNNPACK: lower bound must be below upper bound)" : "y_min 10 > y_max 9");
    Problem big = unit_problem(DType::U8, {2}, {2});
    big.p.y_max = Int(256);
    b.add_invalid(big, "y_max 256 does not fit uint8");
  }
  if (xnn) {
    Problem sub = unit_problem(DType::I8, {2}, {2});
    sub.p.a_scale = 0x00400000u;  // 2^-127, subnormal
    b.add_invalid(sub, "a_scale 2^-127 is subnormal: scale must be finite and positive (normal)");
    Problem zero = unit_problem(DType::I8, {2}, {2});
    zero.p.y_scale = 0;
    b.add_invalid(zero, "y_scale 0");
    if (add) {
      Problem hi = unit_problem(DType::I8, {2}, {2});
      hi.p.a_scale = ties::f32_dyadic(1, 0), hi.p.y_scale = ties::f32_dyadic(1, -8);
      b.add_invalid(hi, "s_a / s_y = 2^8: the ratio must be below 2^8", {"scale_limit"});
      Problem lo = unit_problem(DType::U8, {2}, {2});
      lo.p.b_scale = ties::f32_dyadic(1, -11);
      b.add_invalid(lo, "s_b / s_y = 2^-11: the ratio must be at least 2^-10", {"scale_limit"});
      Problem edge = unit_problem(DType::I8, {3}, {3});
      edge.p.a_scale = ties::f32_dyadic(1, -10), edge.p.b_scale = ties::f32_dyadic((1 << 24) - 1, -16);
      b.add(edge, "ratios 2^-10 and 255.99998 (the limits, inside): shift 13");
    } else {
      Problem hi = unit_problem(DType::I8, {2}, {2});
      hi.p.a_scale = ties::f32_dyadic(1, 4), hi.p.b_scale = ties::f32_dyadic(1, 4);
      b.add_invalid(hi, "S = 2^8: the product-to-output ratio must be below 2^8", {"scale_limit"});
      Problem lo = unit_problem(DType::U8, {2}, {2});
      lo.p.a_scale = ties::f32_dyadic(1, -9), lo.p.b_scale = ties::f32_dyadic(1, -8);
      b.add_invalid(lo, "S = 2^-17: the product-to-output ratio must be at least 2^-16", {"scale_limit"});
      Problem edge = unit_problem(DType::I8, {3}, {3});
      edge.p.a_scale = ties::f32_dyadic(1, -8), edge.p.b_scale = ties::f32_dyadic(1, -8);
      b.add(edge, "S = 2^-16 (the lower limit, inside)");
    }
  }
  if (is_tflite(b.c) && add) {
    Problem m1 = unit_problem(DType::I8, {2}, {2});
    m1.p.a_scale = ties::f32_dyadic(1, 0), m1.p.y_scale = ties::f32_dyadic(1, -19);
    b.add_invalid(m1, "2 max(s_a, s_b) = 2^20 s_y: the real output multiplier is 1 (TFLITE_CHECK_LT)",
                  {"multiplier_limit"});
    Problem m2 = unit_problem(DType::I8, {2}, {2});
    m2.p.a_scale = ties::f32_dyadic(1, 0), m2.p.y_scale = ties::f32_dyadic((1 << 23) + 1, -42);
    b.add(m2, "real output multiplier 1 - 2^-23 (just below the limit)");
  }
  if (b.c == QEwConvention::PytorchOnednn && !add) pytorch_hand_cases(b);
  if (is_pytorch(b.c) && add) pytorch_add_hand_cases(b);
  if (b.c == QEwConvention::Onednn) onednn_hand_cases(b);
  if (ort && !add) {
    Problem z = unit_problem(DType::I8, {4}, {4});
    z.a = array_of({4}, [](std::int64_t i) { return i == 0 ? 1 : -i; });
    z.b = array_of({4}, [](std::int64_t) { return 1; });
    z.p.y_scale = ties::f32_dyadic(1, 1);  // R = 1/2: v = p / 2 + z_y
    z.p.y_zero_point = 3;
    b.add(z, "R = 1/2 with z_y = 3: 0.5 + 3 = 3.5 rounds to 4 (XNNPACK would give rne(0.5) + 3 = 3)");
  }
}

// TOSA's ADD / MUL graphs (qlinear.add.tosa, qlinear.mul.tosa): int8 only; ties constructed in
// each RESCALE, saturation, TOSA's broadcast up to rank 6, what TOSA accepts and TFLite does not,
// and the ERROR_IFs as invalid tests.
template <class Op>
void tosa_hand_cases(Builder<Op>& b) {
  const bool add = b.op == QEwOp::Add;
  const DType t = DType::I8;
  {
    // y = z_y + (da + db) / 2 (add: both inputs' one RESCALE by 2^19, the output's by 2^-20) or
    // z_y + da db / 2 (mul: S = 1/2): about half the outputs are ties, negative ones too (the
    // output RESCALE's RDBPOT rounds them away from zero).
    Problem pr;
    pr.p.type = pr.p.b_type = t;
    pr.a = array_of({16, 16}, [](std::int64_t i) { return -128 + 17 * (i / 16); });
    pr.b = array_of({16, 16}, [](std::int64_t i) { return -125 + 16 * (i % 16); });
    pr.p.a_zero_point = pr.p.b_zero_point = -3;
    pr.p.y_zero_point = 1;
    pr.p.a_scale = pr.p.b_scale = ties::f32_dyadic(1, add ? -8 : -4);
    pr.p.y_scale = ties::f32_dyadic(1, -7);
    b.add(pr, add ? "16 x 16 grid, s_a = s_b = s_y / 2: y = z_y + (da + db) / 2 (ties of the output RESCALE)"
                  : "16 x 16 grid, S = 1/2: y = z_y + da db / 2 (ties of the output RESCALE)");
  }
  if (add) {
    // r_a = s_a / (2 s_b) = 1/4 + 2^-21: CMS = (2^30 + 2^11, 32); a's second RESCALE of 2^20 da is
    // (2^19 + 1) da / 2 after SRDHM: an exact half for every odd da (RDBPOT: away from zero).
    Problem in = unit_problem(t, {4, 8}, {4, 8});
    in.a = array_of({4, 8}, [](std::int64_t i) { return -16 + i; });
    in.b = array_of({4, 8}, [](std::int64_t i) { return 9 - (i * 5) % 19; });
    in.p.a_scale = ties::f32_dyadic((1 << 19) + 1, -21);
    in.p.b_scale = ties::f32_dyadic(1, -1);
    in.p.y_scale = ties::f32_dyadic(1, -2);
    in.p.a_zero_point = 0, in.p.b_zero_point = 0, in.p.y_zero_point = -4;
    b.add(in, "s_a / (2 s_b) = 1/4 + 2^-21: a's RESCALE by r_a meets exact halves for odd da (two-RESCALE path)");
    // TFLite aborts when real_out >= 1 (TFLITE_CHECK_LT); TOSA's RESCALE takes (2^30, 30).
    Problem one = unit_problem(t, {2, 3}, {2, 3});
    one.a = array_of({2, 3}, [](std::int64_t i) { return i - 3; });
    one.b = array_of({2, 3}, [](std::int64_t i) { return 2 - i; });
    one.p.a_scale = ties::f32_dyadic(1, -19), one.p.b_scale = ties::f32_dyadic(1, -20);
    one.p.y_scale = ties::f32_dyadic(1, -38);
    b.add(one, "real_out = 2 max(s_a, s_b) / (2^20 s_y) = 1: TOSA's RESCALE by 1.0 (TFLite aborts)");
    Problem lim = unit_problem(t, {2}, {2});
    lim.p.a_scale = ties::f32_dyadic(1, 0), lim.p.y_scale = ties::f32_dyadic(1, -50);
    b.add_invalid(lim, "real_out = 2^31: computeMultiplierAndShift's shift -1 < 2 (buildRescale fails)",
                  {"shift_limit"});
  } else {
    Problem lim = unit_problem(t, {2}, {2});
    lim.p.a_scale = ties::f32_dyadic(1, 0), lim.p.b_scale = ties::f32_dyadic(1, 0);
    lim.p.y_scale = ties::f32_dyadic(1, -31);
    b.add_invalid(lim, "S = 2^31: computeMultiplierAndShift's shift -1 < 2 (buildRescale fails)", {"shift_limit"});
    // The float scale: the first draw of scales where fl32(fl32(s_a s_b) / s_y) gives another code
    // than TFLite's binary64 ratio for one of the codes below (found, not claimed).
    Rng r(1533);
    for (int attempt = 0; attempt < 4000; ++attempt) {
      Problem d = unit_problem(t, {16, 16}, {16, 16});
      d.a = array_of({16, 16}, [](std::int64_t i) { return -128 + i / 2; });
      d.b = array_of({16, 16}, [](std::int64_t i) { return 127 - i % 128; });
      const int ea = static_cast<int>(r.uniform(-9, -5));
      d.p.a_scale = random_scale(r, ea);
      const int eb = static_cast<int>(r.uniform(-9, -5));
      d.p.b_scale = random_scale(r, eb);
      const int ey = static_cast<int>(r.uniform(-8, -6));
      d.p.y_scale = random_scale(r, ey);
      const IntArray tosa = ro::qlinear_elementwise(QEwOp::Mul, d.a, d.b, d.p, QEwConvention::Tosa);
      const IntArray tfl = ro::qlinear_elementwise(QEwOp::Mul, d.a, d.b, d.p, QEwConvention::TfliteDoubleRound);
      if (tosa.data != tfl.data) {
        b.add(d,
              "scales where TOSA's float S = fl32(fl32(s_a s_b) / s_y) and TFLite's binary64 ratio give different "
              "codes (attempt " +
                  std::to_string(attempt) + " of a seeded search)");
        break;
      }
    }
  }
  {
    Problem sat = unit_problem(t, {2, 3}, {2, 3});
    sat.a = array_of({2, 3}, [](std::int64_t i) { return i < 3 ? -128 : 127; });
    sat.b = array_of({2, 3}, [](std::int64_t i) { return i % 2 == 0 ? -128 : 127; });
    sat.p.a_scale = sat.p.b_scale = ties::f32_dyadic(1, -4);
    sat.p.y_scale = add ? ties::f32_dyadic(1, -5) : ties::f32_dyadic(1, -6);
    b.add(sat, "extreme codes, y_scale small: both ends saturate (RESCALE's int8 clip)");
  }
  // Broadcasting: the legalization reshapes the lower rank operand (leading 1s); TOSA to rank 6.
  const auto bshape = [&](const Dims& sa, const Dims& sb, const std::string& what) {
    Problem bc = unit_problem(t, sa, sb);
    bc.p.a_scale = ties::f32_dyadic(3, -8), bc.p.b_scale = ties::f32_dyadic(5, -9);
    bc.p.y_scale = add ? ties::f32_dyadic(1, -6) : ties::f32_dyadic(1, -9);
    bc.p.a_zero_point = 10, bc.p.b_zero_point = -20, bc.p.y_zero_point = 5;
    b.add(bc, what);
  };
  bshape({2, 3, 4}, {4}, "a (2, 3, 4) with b (4): rank mismatch, b reshaped to (1, 1, 4)");
  bshape({2, 1, 3}, {4, 3}, "a (2, 1, 3) with b (4, 3): both broadcast, output (2, 4, 3)");
  bshape({3, 4}, {1}, "b of one element broadcast to (3, 4)");
  bshape({3, 1}, {3, 4}, "a (3, 1) with b (3, 4): a unit last axis");
  bshape({1, 2, 1, 2, 1, 2}, {2, 1, 2, 1, 2, 1}, "rank 6 (TOSA's MAX_RANK at level 8K; TFLite stops at 4)");
  {
    Problem nc = unit_problem(t, {4, 4}, {4, 4});
    nc.p.a_scale = nc.p.b_scale = ties::f32_dyadic(1, -7);
    nc.p.y_scale = add ? ties::f32_dyadic(1, -6) : ties::f32_dyadic(1, -8);
    nc.p.y_min = Int(-20), nc.p.y_max = Int(30);
    b.add(nc, "CLAMP [-20, 30] (a fused activation)");
    Problem one = nc;
    one.p.y_min = one.p.y_max = Int(7);
    b.add(one, "CLAMP [7, 7]: min_val = max_val is allowed");
  }
  Problem u8 = unit_problem(DType::U8, {2}, {2});
  b.add_invalid(u8, "uint8: a TFLite int8 model only (uint8 passes convert_tfl_uint8 first, not modelled)");
  Problem dt = unit_problem(t, {2}, {2});
  dt.p.b_type = DType::U8;
  dt.b = array_of({2}, [](std::int64_t i) { return 10 + i; });
  b.add_invalid(dt, "a int8 with b uint8");
  Problem sh = unit_problem(t, {2, 3}, {2});
  b.add_invalid(sh, "a (2, 3) with b (2): ERROR_IF(shape != broadcast_shape(shape1, shape2))");
  Problem r7 = unit_problem(t, {1, 1, 1, 1, 1, 1, 2}, {2});
  b.add_invalid(r7, "rank 7: above MAX_RANK = 6 (level 8K)");
  Problem zp = unit_problem(t, {2}, {2});
  zp.p.y_zero_point = Int(128);
  b.add_invalid(zp, "y_zero_point 128: output_zp not representable in int8 (RESCALE)");
  Problem za = unit_problem(t, {2}, {2});
  za.p.a_zero_point = Int(-129);
  b.add_invalid(za, "a_zero_point -129: input_zp not in int8");
  Problem inv = unit_problem(t, {2}, {2});
  inv.p.y_min = Int(10), inv.p.y_max = Int(9);
  b.add_invalid(inv, "y_min 10 > y_max 9: CLAMP's ERROR_IF(max_val < min_val)");
  Problem big = unit_problem(t, {2}, {2});
  big.p.y_max = Int(128);
  b.add_invalid(big, "y_max 128 does not fit int8 (CLAMP's max_val is in_out_t)");
}

template <class Op>
Family ew_family(QEwOp op, std::string_view conv, std::uint64_t seed, int tie_rich, int realistic, int saturating) {
  const std::string cv(conv);
  return family<Op>(conv, notes_of<Op>(conv), seed, [op, cv, tie_rich, realistic, saturating](Rng& r) {
    QEwConvention c = cv == Op::conv::xnnpack_fp32          ? QEwConvention::XnnpackFp32
                      : cv == Op::conv::onnxruntime         ? QEwConvention::OnnxRuntime
                      : cv == Op::conv::tflite_double_round ? QEwConvention::TfliteDoubleRound
                      : cv == Op::conv::armnn_cpuref        ? QEwConvention::ArmnnCpuref
                                                            : QEwConvention::TfliteSingleRound;
    if constexpr (requires { Op::conv::pytorch_onednn; })
      if (cv == Op::conv::pytorch_onednn) c = QEwConvention::PytorchOnednn;
    if constexpr (requires { Op::conv::pytorch_qnnpack; })
      if (cv == Op::conv::pytorch_qnnpack) c = QEwConvention::PytorchQnnpack;
    if (cv == Op::conv::onednn) c = QEwConvention::Onednn;
    if constexpr (requires { Op::conv::tosa; })
      if (cv == Op::conv::tosa) c = QEwConvention::Tosa;
    Builder<Op> b{op, cv, c, {}};
    if (c == QEwConvention::Tosa)
      tosa_hand_cases(b);
    else
      common_hand_cases(b);
    b.add_random(
        tie_rich, [&] { return draw<Op>(r, op, c, 0); }, "tie-rich draw");
    b.add_random(
        realistic, [&] { return draw<Op>(r, op, c, 1); }, "random");
    b.add_random(
        saturating, [&] { return draw<Op>(r, op, c, 2); }, "random, saturating");
    // Appended after the draws above (whose tests stay as they were): tie-rich and realistic in turn.
    int mode = 0;
    for (const auto& shapes : long_shapes()) {
      b.add_random(
          1,
          [&] {
            Problem pr = draw<Op>(r, op, c, mode, &shapes);
            pr.long_draw = true;
            return pr;
          },
          mode == 0 ? "tie-rich draw, long" : "random, long");
      mode = 1 - mode;
    }
    return std::vector<Group>{Group{OJ::object(), std::move(b.tests)}};
  });
}

using Add = cat::qlinear_add;
using Mul = cat::qlinear_mul;
QSPEC_REGISTER_VECTOR_FAMILY(ew_family<Add>(QEwOp::Add, Add::conv::xnnpack_fp32, 1501, 350, 160, 60));
QSPEC_REGISTER_VECTOR_FAMILY(ew_family<Add>(QEwOp::Add, Add::conv::onnxruntime, 1502, 350, 160, 60));
QSPEC_REGISTER_VECTOR_FAMILY(ew_family<Add>(QEwOp::Add, Add::conv::tflite_double_round, 1503, 350, 160, 60));
QSPEC_REGISTER_VECTOR_FAMILY(ew_family<Add>(QEwOp::Add, Add::conv::tflite_single_round, 1504, 350, 160, 60));
QSPEC_REGISTER_VECTOR_FAMILY(ew_family<Mul>(QEwOp::Mul, Mul::conv::xnnpack_fp32, 1511, 350, 160, 60));
QSPEC_REGISTER_VECTOR_FAMILY(ew_family<Mul>(QEwOp::Mul, Mul::conv::onnxruntime, 1512, 350, 160, 60));
QSPEC_REGISTER_VECTOR_FAMILY(ew_family<Mul>(QEwOp::Mul, Mul::conv::pytorch_onednn, 1515, 250, 120, 40));
// PyTorch's add: lean families (the vectors/ budget); the cross-check draws thousands more.
QSPEC_REGISTER_VECTOR_FAMILY(ew_family<Add>(QEwOp::Add, Add::conv::pytorch_onednn, 1516, 110, 50, 20));
QSPEC_REGISTER_VECTOR_FAMILY(ew_family<Add>(QEwOp::Add, Add::conv::pytorch_qnnpack, 1517, 110, 50, 20));
QSPEC_REGISTER_VECTOR_FAMILY(ew_family<Mul>(QEwOp::Mul, Mul::conv::tflite_double_round, 1513, 350, 160, 60));
QSPEC_REGISTER_VECTOR_FAMILY(ew_family<Mul>(QEwOp::Mul, Mul::conv::tflite_single_round, 1514, 350, 160, 60));
// Arm NN: fewer draws (the vectors/ size budget); the cross-check draws thousands more.
QSPEC_REGISTER_VECTOR_FAMILY(ew_family<Add>(QEwOp::Add, Add::conv::armnn_cpuref, 1521, 160, 60, 30));
QSPEC_REGISTER_VECTOR_FAMILY(ew_family<Mul>(QEwOp::Mul, Mul::conv::armnn_cpuref, 1522, 160, 60, 30));
// oneDNN: lean families (the vectors/ size budget); the cross-check draws thousands more.
QSPEC_REGISTER_VECTOR_FAMILY(ew_family<Add>(QEwOp::Add, Add::conv::onednn, 1531, 120, 50, 25));
QSPEC_REGISTER_VECTOR_FAMILY(ew_family<Mul>(QEwOp::Mul, Mul::conv::onednn, 1532, 120, 50, 25));
// TOSA (int8 only): about 200 tests each.
QSPEC_REGISTER_VECTOR_FAMILY(ew_family<Add>(QEwOp::Add, Add::conv::tosa, 1541, 110, 45, 20));
QSPEC_REGISTER_VECTOR_FAMILY(ew_family<Mul>(QEwOp::Mul, Mul::conv::tosa, 1542, 110, 45, 20));

}  // namespace
}  // namespace qspec::vecgen
