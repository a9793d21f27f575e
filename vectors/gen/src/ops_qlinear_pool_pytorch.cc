// Vector families of qlinear.avg_pool2d under pytorch.onednn and pytorch.qnnpack
// (spec/operators_qlinear_pool.md, PyTorch 1.13): ops/qlinear/avg_pool2d/pytorch.*.json.
//
// Inputs only; expected outputs come from the reference (reference/ops/ops_qlinear_pool_pytorch.cc).
// Hand cases (named by their comments), tie-rich draws (power-of-two kernels: the value before
// the rounding is an exact k + 1/2 for many windows), realistic draws (kernels up to 3x4, where an
// even non-power-of-two count puts values next to a half and separates ATen's fl32(1/d) from
// QNNPACK's fl32(x_s / fl32(x_s K))), draws at the ends of the dtype, wide draws (17-70 channels:
// the optimized kernels' blocks; qspec/vecgen/wide_shapes.h) and what PyTorch rejects.
// A valid test's flags are computed from the problem and the reference's output.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "qspec/catalogue/keys.h"
#include "qspec/core/attr.h"
#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear_pool_pytorch.h"
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
using ro::IntArray;
using Dims = std::vector<std::int64_t>;
using Avg = cat::qlinear_avg_pool2d;

struct Problem {
  DType type = DType::U8;
  std::uint32_t x_scale = 0x3f800000;
  std::int64_t x_zero_point = 0;
  IntArray x;
  ro::QPoolGeometry g;
  bool count_include_pad = false;
  bool drawn = false;
  bool wide = false;  // a shape of wide::draw_pool (flag "wide")
};

Test to_test(const Problem& pr, std::string comment, bool invalid = false) {
  Test t;
  t.comment = std::move(comment);
  t.invalid = invalid;
  OJ a = OJ::object();
  attr::set_unchecked(a, Avg::attr::kernel, Dims{pr.g.kernel[0], pr.g.kernel[1]});
  attr::set_unchecked(a, Avg::attr::strides, Dims{pr.g.strides[0], pr.g.strides[1]});
  attr::set_unchecked(a, Avg::attr::pads, Dims(pr.g.pads.begin(), pr.g.pads.end()));
  attr::set(a, Avg::attr::count_include_pad, pr.count_include_pad);
  attr::set(a, Avg::attr::x_scale, pr.x_scale);
  attr::set_unchecked(a, Avg::attr::x_zero_point, pr.x_zero_point);
  t.attributes = std::move(a);
  std::vector<std::int64_t> d;
  for (const auto& v : pr.x.data) d.push_back(static_cast<std::int64_t>(v));
  t.inputs = {tensor(std::string(Avg::in::x), pr.type, pr.x.shape, d)};
  return t;
}

bool any_pad(const ro::QPoolGeometry& g) {
  return std::any_of(g.pads.begin(), g.pads.end(), [](std::int64_t v) { return v > 0; });
}

// How many outputs round an exact k + 1/2 (the value fl32(fl32(acc) m) the kernel rounds).
int tie_count(const Problem& pr, ro::QPoolTorchEngine e) {
  const auto [oh, ow] = ro::qlinear_pool_out_size(pr.x.shape, pr.g);
  const std::int64_t K = pr.g.kernel[0] * pr.g.kernel[1];
  const bool qnnpack = e == ro::QPoolTorchEngine::Qnnpack && pr.type == DType::U8;
  int ties = 0;
  for (const auto& w : ro::qlinear_pool_window_codes(pr.x, pr.g, oh, ow)) {
    Int acc(0);
    for (const auto& v : w) acc += v - pr.x_zero_point;
    const std::int64_t d = pr.count_include_pad ? K : static_cast<std::int64_t>(w.size());
    const std::uint32_t m = qnnpack ? ro::qlinear_pytorch_qnnpack_avgpool_scale(pr.x_scale, K)
                                    : ro::qlinear_pytorch_aten_avgpool_multiplier(pr.x_scale, d);
    const ref::Rat v = ref::f32_value(ref::f32_mul(ref::f32_from_int(acc), m)) * 2;
    if (ref::denominator(v) == 1 && ref::numerator(v) % 2 != 0) ++ties;
  }
  return ties;
}

std::vector<std::string> flags_of(const Problem& pr, int ties, const Tensor& y) {
  std::set<std::string> f;
  if (ties > 0) f.insert("tie");
  for (auto v : y.data) {
    if (v == lo_of(pr.type)) f.insert("saturate_low");
    if (v == hi_of(pr.type)) f.insert("saturate_high");
  }
  f.insert(pr.type == DType::U8 ? "uint8" : "int8");
  if (any_pad(pr.g)) {
    f.insert(pr.count_include_pad ? "count_include_pad" : "count_exclude_pad");
    if (pr.x_zero_point != 0) f.insert("pad_zero_point");
  }
  if (pr.g.strides[0] > 1 || pr.g.strides[1] > 1) f.insert("strides");
  if (pr.drawn) f.insert("random");
  if (pr.wide) f.insert("wide");
  return {f.begin(), f.end()};
}

const std::vector<std::pair<std::string, std::string>> kNotes = {
    {"tie", "at least one output's value before the rounding is an exact k + 1/2"},
    {"saturate_low", "an output is the dtype's minimum"},
    {"saturate_high", "an output is the dtype's maximum"},
    {"count_include_pad", "padding, count_include_pad true (qnnpack uint8 divides by KH KW either way)"},
    {"count_exclude_pad", "padding, count_include_pad false (qnnpack uint8 still divides by KH KW)"},
    {"pad_zero_point", "padding with a non-zero input zero point"},
    {"strides", "a stride > 1"},
    {"uint8", "uint8 (quint8) tensors: QNNPACK's average pooling under pytorch.qnnpack"},
    {"int8", "int8 (qint8) tensors: ATen's kernel under both engines"},
    {"random", "random draw"},
    wide::pool_note(),
};

struct Builder {
  std::string conv;
  ro::QPoolTorchEngine engine;
  std::vector<Test> tests;

  std::string op() const { return std::string(Avg::op); }
  bool valid(const Problem& pr, std::vector<Tensor>* out) const {
    const Test t = to_test(pr, "");
    return classify(op(), conv, t.attributes, t.inputs, out) == Verdict::Valid;
  }
  void add(const Problem& pr, std::string comment) {
    std::vector<Tensor> out;
    if (!valid(pr, &out)) throw std::logic_error("vecgen " + op() + " / " + conv + ": '" + comment + "' is not valid");
    Test t = to_test(pr, std::move(comment));
    const int ties = tie_count(pr, engine);
    t.flags = flags_of(pr, ties, out.at(0));
    if (ties > 0)
      t.comment +=
          " (" + std::to_string(ties) + " of " + std::to_string(out.at(0).data.size()) + " outputs are exact ties)";
    tests.push_back(std::move(t));
  }
  void add_invalid(const Problem& pr, const std::string& comment) {
    Test t = to_test(pr, "invalid: " + comment, true);
    if (classify(op(), conv, t.attributes, t.inputs) != Verdict::Invalid)
      throw std::logic_error("vecgen " + op() + " / " + conv + ": '" + comment + "' is not rejected");
    tests.push_back(std::move(t));
  }
};

IntArray codes(const Dims& shape, const std::vector<std::int64_t>& v) {
  IntArray a(shape);
  for (std::size_t i = 0; i < a.data.size(); ++i) a.data[i] = Int(v[i % v.size()]);
  return a;
}

// mode 0: realistic; 1: tie-rich (power-of-two kernels); 2: codes at the ends of the dtype.
// wide: the variant of a wide::draw_pool shape (mode 0, both count_include_pad values, codes around
// the zero point), none for the small shapes.
Problem draw(Rng& r, int mode, std::optional<int> wide = std::nullopt) {
  Problem pr;
  pr.drawn = true;
  pr.wide = wide.has_value();
  pr.type = r.coin() ? DType::U8 : DType::I8;
  auto& g = pr.g;
  std::int64_t n = 1, h = 1, w = 1, c = 1;
  if (wide) {
    const wide::Pool s = wide::draw_pool(r, *wide, true);
    g.kernel = {s.kh, s.kw}, g.strides = {s.sh, s.sw}, g.pads = s.pads;
    pr.count_include_pad = *wide % 2 == 1;
    n = s.N, h = s.H, w = s.W, c = s.C;
  } else if (mode == 1) {
    const std::int64_t pow2[] = {1, 2, 4};
    g.kernel = {pow2[r.uniform(0, 2)], pow2[r.uniform(0, 2)]};
  } else {
    g.kernel = {r.uniform(1, 3), r.uniform(1, 4)};
  }
  if (!wide) {
    if (g.kernel[0] * g.kernel[1] == 1) g.kernel[1] = 2;
    g.strides = {r.uniform(1, 2), r.uniform(1, 2)};
    const std::int64_t ph = r.coin() ? 0 : r.uniform(0, g.kernel[0] / 2);
    const std::int64_t pw = r.coin() ? 0 : r.uniform(0, g.kernel[1] / 2);
    g.pads = {ph, pw, ph, pw};
    pr.count_include_pad = r.coin();
    h = std::max<std::int64_t>(1, g.kernel[0] - 2 * ph) + r.uniform(0, 3);
    w = std::max<std::int64_t>(1, g.kernel[1] - 2 * pw) + r.uniform(0, 3);
    n = r.uniform(0, 4) == 0 ? 2 : 1;
    c = r.uniform(1, 3);
  }
  const std::int64_t lo = lo_of(pr.type), hi = hi_of(pr.type);
  pr.x_zero_point = mode == 2 ? (r.coin() ? lo + r.uniform(0, 10) : hi - r.uniform(0, 10)) : r.uniform(lo, hi);
  const int e = static_cast<int>(r.uniform(-12, 3));
  const std::uint32_t mant = r.coin() ? static_cast<std::uint32_t>(r.uniform(0, (1 << 23) - 1))
                                      : static_cast<std::uint32_t>(r.uniform(0, 15)) << 19;
  pr.x_scale = (static_cast<std::uint32_t>(e + 127) << 23) | mant;
  pr.x = IntArray(Dims{n, h, w, c});
  const std::int64_t center = wide        ? std::clamp(pr.x_zero_point + r.uniform(-20, 20), lo, hi)
                              : mode == 2 ? (r.coin() ? lo : hi)
                                          : r.uniform(lo, hi);
  const std::int64_t spread = mode == 2 ? 6 : r.uniform(1, 90);
  for (auto& v : pr.x.data) {
    const std::int64_t d = r.uniform(-spread, spread);
    v = Int(std::clamp(center + d, lo, hi));
  }
  return pr;
}

void hand_cases(Builder& b) {
  const bool qnn = b.engine == ro::QPoolTorchEngine::Qnnpack;
  for (DType t : {DType::U8, DType::I8}) {
    const std::string tn = t == DType::U8 ? "uint8" : "int8";
    const std::int64_t off = t == DType::U8 ? 0 : -128;
    // Kernel 1x2, stride 1x2 over reals -3 -2 | -2 -1 | ... | 2 3: averages -2.5 .. 2.5; zero point
    // 3 + off is odd for uint8: rounding after the zero point would move every tie.
    Problem tie;
    tie.type = t;
    tie.x_zero_point = 3 + off;
    tie.g.kernel = {1, 2};
    tie.g.strides = {1, 2};
    std::vector<std::int64_t> v;
    for (std::int64_t real : {-3, -2, -2, -1, -1, 0, 0, 1, 1, 2, 2, 3}) v.push_back(real + 3 + off);
    tie.x = codes({1, 1, 12, 1}, v);
    b.add(tie, tn + ": six half-integer averages -2.5 .. 2.5, ties to even before the zero point (E-LIBTORCH-POOL-1)");
    // spec/errata.md E-LIBTORCH-POOL-2: 4x4 reals 0..15, kernel 2, stride 2, padding 1.
    Problem pad;
    pad.type = t;
    pad.x_zero_point = 5 + off;
    pad.g.kernel = {2, 2};
    pad.g.strides = {2, 2};
    pad.g.pads = {1, 1, 1, 1};
    std::vector<std::int64_t> iota;
    for (std::int64_t i = 0; i < 16; ++i) iota.push_back(5 + off + i);
    pad.x = codes({1, 4, 4, 1}, iota);
    pad.count_include_pad = false;
    b.add(pad, tn + ": padding 1, count_include_pad false" +
                   (qnn && t == DType::U8 ? std::string(": QNNPACK divides by 4 anyway") : std::string()));
    pad.count_include_pad = true;
    b.add(pad, tn + ": padding 1, count_include_pad true");
    // K = 1: ATen accepts it; QNNPACK (uint8 under qnnpack) rejects it.
    Problem one = tie;
    one.g.kernel = {1, 1};
    one.g.strides = {1, 1};
    if (qnn && t == DType::U8)
      b.add_invalid(
          one, "1x1 kernel: QNNPACK's 1x1 pooling is meaningless (failed to create QNNPACK Average Pooling operator)");
    else
      b.add(one, tn + ": 1x1 kernel: the identity");
    Problem asym = pad;
    asym.g.pads = {1, 0, 0, 0};
    b.add_invalid(asym, tn + ": pads (1, 0, 0, 0): avg_pool2d takes one padding per dimension");
    Problem wide = pad;
    wide.g.pads = {2, 2, 2, 2};
    wide.g.kernel = {3, 3};
    wide.g.strides = {1, 1};
    b.add_invalid(wide, tn + ": padding 2 with a 3x3 kernel: pad should be at most half of kernel size");
    Problem zp = tie;
    zp.x_zero_point = t == DType::U8 ? 256 : -129;
    b.add_invalid(zp, tn + ": x_zero_point outside the dtype");
  }
  // The scale derivations apart: kernel 2x3 (K = 6, not a power of two) and scales where QNNPACK's
  // fl32(x_s / fl32(x_s 6)) is not fl32(1/6); the first window sum whose rounding differs.
  for (std::uint32_t s : {0x3dcccccdu /* 0.1 */, 0x3f8ccccdu /* 1.1 */, 0x3e99999au /* 0.3 */}) {
    const std::uint32_t S = ro::qlinear_pytorch_qnnpack_avgpool_scale(s, 6);
    const std::uint32_t m = ro::qlinear_pytorch_aten_avgpool_multiplier(s, 6);
    if (S == m) continue;
    for (std::int64_t acc = 1; acc <= 6 * 120; ++acc) {
      const Int zp(0);
      if (ro::qlinear_pytorch_avgpool_output(Int(acc), S, zp, DType::U8) ==
          ro::qlinear_pytorch_avgpool_output(Int(acc), m, zp, DType::U8))
        continue;
      Problem d;
      d.type = DType::U8;
      d.x_scale = s;
      d.x_zero_point = 0;
      d.g.kernel = {2, 3};
      d.g.strides = {2, 3};
      std::vector<std::int64_t> v(6, acc / 6);
      for (std::int64_t i = 0; i < acc % 6; ++i) v[static_cast<std::size_t>(i)] += 1;
      d.x = codes({1, 2, 3, 1}, v);
      b.add(d, "uint8, 2x3 window summing to " + std::to_string(acc) +
                   ": QNNPACK's S = fl32(x_s / fl32(x_s 6)) and ATen's fl32(1/6) round it apart");
      break;
    }
  }
  // 16 channels, every channel its own values: fewer channels than one AVX-512 register of codes
  // (spec/errata.md E-LIBTORCH-POOL-3: ATen's AVX-512 kernel repeats channels 0..3 in 8..15).
  for (DType t : {DType::I8, DType::U8}) {
    Problem wide;
    wide.type = t;
    wide.x_zero_point = t == DType::U8 ? 128 : 0;
    wide.g.kernel = {2, 7};
    wide.g.strides = {1, 1};
    std::vector<std::int64_t> v;
    for (std::int64_t i = 0; i < 14; ++i)
      for (std::int64_t c = 0; c < 16; ++c) v.push_back(wide.x_zero_point - 100 + 12 * c + i % 5);
    wide.x = codes({1, 2, 7, 16}, v);
    b.add(wide, std::string(t == DType::U8 ? "uint8" : "int8") +
                    ": 16 channels, each its own values, one 2x7 window (E-LIBTORCH-POOL-3 under ATen's AVX-512)");
  }
}

Family pytorch_family(std::string_view conv, ro::QPoolTorchEngine e, std::uint64_t seed) {
  const std::string cv(conv);
  return family<Avg>(conv, kNotes, seed, [cv, e](Rng& r) {
    Builder b{cv, e, {}};
    hand_cases(b);
    const int counts[] = {160, 110, 40};  // tie-rich, realistic, ends of the dtype
    for (int mode : {1, 0, 2})
      for (int i = 0; i < counts[mode == 1 ? 0 : mode == 0 ? 1 : 2]; ++i)
        for (int attempt = 0;; ++attempt) {
          Problem pr = draw(r, mode);
          std::vector<Tensor> out;
          if (b.valid(pr, &out)) {
            b.add(pr, mode == 1 ? "tie-rich draw" : mode == 0 ? "random" : "random, codes at the ends of the dtype");
            break;
          }
          if (attempt > 200) throw std::logic_error("vecgen " + cv + ": cannot draw a valid problem");
        }
    wide::add_pool_draws(  // each channel class of wide::draw_pool once
        "vecgen " + cv, [&](int variant) { return draw(r, 0, variant); },
        [&](const Problem& pr) { return b.valid(pr, nullptr); }, [&](const Problem& pr) { b.add(pr, "random, wide"); });
    return std::vector<Group>{Group{OJ::object(), std::move(b.tests)}};
  });
}

QSPEC_REGISTER_VECTOR_FAMILY(pytorch_family(Avg::conv::pytorch_onednn, ro::QPoolTorchEngine::Onednn, 1531));
QSPEC_REGISTER_VECTOR_FAMILY(pytorch_family(Avg::conv::pytorch_qnnpack, ro::QPoolTorchEngine::Qnnpack, 1532));

}  // namespace
}  // namespace qspec::vecgen
