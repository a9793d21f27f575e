// Vector families of qlinear.max_pool2d under pytorch.onednn and pytorch.qnnpack
// (spec/operators_qlinear_pytorch_pool.md, PyTorch 1.13): ops/qlinear/max_pool2d/pytorch.*.json.
//
// Inputs only; expected outputs come from the reference (reference/ops/ops_qlinear_pool_pytorch_max.cc).
// Hand cases (the measured errata counterexamples, pads at half the kernel, windows without a tap
// inside, all-lowest inputs), draws with dilations (where QNNPACK's border-clamped taps leave the
// window) and without, wide draws (17-70 channels, for the optimized kernels' blocks;
// qspec/vecgen/wide_shapes.h) and what PyTorch rejects. No rounding: there are no ties to flag.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "qspec/catalogue/keys.h"
#include "qspec/core/attr.h"
#include "qspec/ref/ops/qlinear_pool_pytorch_max.h"
#include "qspec/vecgen.h"
#include "qspec/vecgen/classify.h"
#include "qspec/vecgen/qlinear_tensors.h"
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
using Max = cat::qlinear_max_pool2d;

struct Problem {
  DType type = DType::U8;
  IntArray x;
  ro::QPoolGeometry g;
  bool drawn = false;
  bool wide = false;  // a shape of wide::draw_pool (flag "wide")
};

Test to_test(const Problem& pr, std::string comment, bool invalid = false) {
  Test t;
  t.comment = std::move(comment);
  t.invalid = invalid;
  OJ a = OJ::object();
  attr::set_unchecked(a, Max::attr::kernel, Dims{pr.g.kernel[0], pr.g.kernel[1]});
  attr::set_unchecked(a, Max::attr::strides, Dims{pr.g.strides[0], pr.g.strides[1]});
  attr::set_unchecked(a, Max::attr::dilations, Dims{pr.g.dilations[0], pr.g.dilations[1]});
  attr::set_unchecked(a, Max::attr::pads, Dims(pr.g.pads.begin(), pr.g.pads.end()));
  t.attributes = std::move(a);
  std::vector<std::int64_t> d;
  for (const auto& v : pr.x.data) d.push_back(static_cast<std::int64_t>(v));
  t.inputs = {tensor(std::string(Max::in::x), pr.type, pr.x.shape, d)};
  return t;
}

// Outputs whose window has no tap inside; outputs where QNNPACK's clamped taps give another value
// than ATen's window maximum (uint8 under qnnpack only).
struct Counts {
  int empty = 0, outside = 0;
};
Counts counts_of(const Problem& pr, ro::QPoolTorchEngine e) {
  Counts n;
  const auto [oh, ow] = ro::qlinear_pool_out_size(pr.x.shape, pr.g);
  for (const auto& w : ro::qlinear_pool_window_codes(pr.x, pr.g, oh, ow))
    if (w.empty()) ++n.empty;
  if (e == ro::QPoolTorchEngine::Qnnpack && pr.type == DType::U8) {
    const IntArray a = ro::qlinear_max_pool2d_pytorch(pr.x, pr.g, pr.type, ro::QPoolTorchEngine::Onednn);
    const IntArray q = ro::qlinear_max_pool2d_pytorch(pr.x, pr.g, pr.type, ro::QPoolTorchEngine::Qnnpack);
    for (std::size_t i = 0; i < a.data.size(); ++i)
      if (a.data[i] != q.data[i]) ++n.outside;
  }
  return n;
}

std::vector<std::string> flags_of(const Problem& pr, const Counts& n) {
  std::set<std::string> f;
  f.insert(pr.type == DType::U8 ? "uint8" : "int8");
  if (pr.g.dilations[0] > 1 || pr.g.dilations[1] > 1) f.insert("dilation");
  if (std::any_of(pr.g.pads.begin(), pr.g.pads.end(), [](std::int64_t v) { return v > 0; })) f.insert("pads");
  if (pr.g.strides[0] > 1 || pr.g.strides[1] > 1) f.insert("strides");
  if (n.empty > 0) f.insert("empty_window");
  if (n.outside > 0) f.insert("outside_window");
  if (pr.drawn) f.insert("random");
  if (pr.wide) f.insert("wide");
  return {f.begin(), f.end()};
}

const std::vector<std::pair<std::string, std::string>> kNotes = {
    {"uint8", "uint8 (quint8) tensors: QNNPACK's max pooling under pytorch.qnnpack"},
    {"int8", "int8 (qint8) tensors: ATen's kernel under both engines"},
    {"dilation", "a dilation > 1"},
    {"pads", "padding (symmetric, at most half the kernel)"},
    {"strides", "a stride > 1"},
    {"empty_window", "a dilated window without a tap inside the input"},
    {"outside_window",
     "an output where QNNPACK's border-clamped taps give another value than the window maximum "
     "(E-LIBTORCH-POOL-4)"},
    {"random", "random draw"},
    wide::pool_note(),
};

struct Builder {
  std::string conv;
  ro::QPoolTorchEngine engine;
  std::vector<Test> tests;

  std::string op() const { return std::string(Max::op); }
  bool valid(const Problem& pr) const {
    const Test t = to_test(pr, "");
    return classify(op(), conv, t.attributes, t.inputs) == Verdict::Valid;
  }
  void add(const Problem& pr, std::string comment) {
    if (!valid(pr)) throw std::logic_error("vecgen " + op() + " / " + conv + ": '" + comment + "' is not valid");
    Test t = to_test(pr, std::move(comment));
    const Counts n = counts_of(pr, engine);
    t.flags = flags_of(pr, n);
    if (n.outside > 0) t.comment += " (" + std::to_string(n.outside) + " outputs read outside their window)";
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

// dilated: dilations up to 3 (empty windows and QNNPACK's outside reads); otherwise none.
// wide: the variant of a wide::draw_pool shape (no dilation, codes around the dtype's middle), none
// for the small shapes.
Problem draw(Rng& r, bool dilated, std::optional<int> wide = std::nullopt) {
  Problem pr;
  pr.drawn = true;
  pr.wide = wide.has_value();
  pr.type = r.coin() ? DType::U8 : DType::I8;
  auto& g = pr.g;
  std::int64_t n = 1, h = 1, w = 1, c = 1;
  if (wide) {
    const wide::Pool s = wide::draw_pool(r, *wide, true);
    g.kernel = {s.kh, s.kw}, g.strides = {s.sh, s.sw}, g.pads = s.pads;
    n = s.N, h = s.H, w = s.W, c = s.C;
  } else {
    g.kernel = {r.uniform(1, 3), r.uniform(1, 4)};
    if (g.kernel[0] * g.kernel[1] == 1) g.kernel[1] = 2;  // QNNPACK refuses 1x1 (a hand case has it)
    g.strides = {r.uniform(1, 2), r.uniform(1, 3)};
    if (dilated) g.dilations = {r.uniform(1, 3), r.uniform(1, 3)};
    const std::int64_t ph = r.coin() ? 0 : r.uniform(0, g.kernel[0] / 2);
    const std::int64_t pw = r.coin() ? 0 : r.uniform(0, g.kernel[1] / 2);
    g.pads = {ph, pw, ph, pw};
    const std::int64_t eh = g.dilations[0] * (g.kernel[0] - 1) + 1, ew = g.dilations[1] * (g.kernel[1] - 1) + 1;
    h = std::max<std::int64_t>(1, eh - 2 * ph) + r.uniform(0, 3);
    w = std::max<std::int64_t>(1, ew - 2 * pw) + r.uniform(0, 3);
    n = r.uniform(0, 4) == 0 ? 2 : 1;
    c = r.uniform(1, 3);
  }
  const std::int64_t lo = lo_of(pr.type), hi = hi_of(pr.type);
  pr.x = IntArray(Dims{n, h, w, c});
  const std::int64_t center = wide ? r.uniform(lo + 40, hi - 100) : r.uniform(lo, hi);
  const std::int64_t spread = r.uniform(1, 120);
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
    // spec/errata.md E-LIBTORCH-POOL-4: 9 1 2 3 4, kernel 1x3, dilation 1x2, padding 1.
    Problem dil;
    dil.type = t;
    dil.g.kernel = {1, 3};
    dil.g.dilations = {1, 2};
    dil.g.pads = {0, 1, 0, 1};
    dil.x = codes({1, 1, 5, 1}, {9 + off, 1 + off, 2 + off, 3 + off, 4 + off});
    b.add(dil, tn + ": 9 1 2 3 4, kernel 1x3, dilation 1x2, padding 1 (E-LIBTORCH-POOL-4: ATen 3 9 3, QNNPACK 9 9 4)");
    // A window without a tap inside: kernel 1x2, dilation 1x3, padding 1 over 7 1.
    Problem empty;
    empty.type = t;
    empty.g.kernel = {1, 2};
    empty.g.dilations = {1, 3};
    empty.g.pads = {0, 1, 0, 1};
    empty.x = codes({1, 1, 2, 1}, {7 + off, 1 + off});
    b.add(empty, tn + ": 7 1, kernel 1x2, dilation 1x3, padding 1: no tap inside (ATen: the lowest code)");
    // Every code the dtype's lowest, with padding: the padding (also the lowest) is never selected.
    Problem low;
    low.type = t;
    low.g.kernel = {3, 3};
    low.g.pads = {1, 1, 1, 1};
    low.x = codes({1, 3, 4, 2}, {off});
    b.add(low, tn + ": every code the dtype's minimum, 3x3 kernel, padding 1");
    // Pad equal to half the kernel (E-LIBTORCH-POOL-5: allowed), kernel 2 and 4, the dtype's ends.
    Problem half;
    half.type = t;
    half.g.kernel = {2, 4};
    half.g.strides = {1, 2};
    half.g.pads = {1, 2, 1, 2};
    half.x = codes({1, 3, 5, 3}, {off, 255 + off, 17 + off, 128 + off, off + 1, 254 + off, 64 + off});
    b.add(half, tn + ": pads at half the kernel (2x4 kernel, pads 1 and 2), codes at the dtype's ends");
    Problem one = half;
    one.g.kernel = {1, 1};
    one.g.strides = {1, 1};
    one.g.pads = {0, 0, 0, 0};
    if (qnn && t == DType::U8)
      b.add_invalid(one, tn + ": 1x1 kernel: QNNPACK's 1x1 pooling is meaningless (failed to create QNNPACK MaxPool "
                              "operator, Pooling.cpp:315)");
    else
      b.add(one, tn + ": 1x1 kernel: the identity");
    Problem asym = half;
    asym.g.pads = {1, 0, 0, 0};
    b.add_invalid(asym, tn + ": pads (1, 0, 0, 0): max_pool2d takes one padding per dimension");
    Problem wide = half;
    wide.g.kernel = {3, 3};
    wide.g.pads = {2, 2, 2, 2};
    b.add_invalid(wide, tn + ": padding 2 with a 3x3 kernel: padding should be at most half of kernel_size");
    Problem wide2 = half;
    wide2.g.kernel = {2, 2};
    wide2.g.pads = {0, 2, 0, 2};
    b.add_invalid(wide2, tn + ": padding 2 with a kernel of 2: padding should be at most half of kernel_size");
    Problem dz = half;
    dz.g.dilations = {0, 1};
    b.add_invalid(dz, tn + ": dilation 0: dilation should be greater than zero");
    Problem sz = half;
    sz.g.strides = {1, 0};
    b.add_invalid(sz, tn + ": stride 0: strides should be greater than zero");
  }
}

Family pytorch_max_family(std::string_view conv, ro::QPoolTorchEngine e, std::uint64_t seed) {
  const std::string cv(conv);
  return family<Max>(conv, kNotes, seed, [cv, e](Rng& r) {
    Builder b{cv, e, {}};
    hand_cases(b);
    for (bool dilated : {true, false})
      for (int i = 0; i < (dilated ? 70 : 40); ++i)
        for (int attempt = 0;; ++attempt) {
          Problem pr = draw(r, dilated);
          if (b.valid(pr)) {
            b.add(pr, dilated ? "random, dilations up to 3" : "random");
            break;
          }
          if (attempt > 200) throw std::logic_error("vecgen " + cv + ": cannot draw a valid problem");
        }
    wide::add_pool_draws(  // each channel class of wide::draw_pool once
        "vecgen " + cv, [&](int variant) { return draw(r, false, variant); },
        [&](const Problem& pr) { return b.valid(pr); }, [&](const Problem& pr) { b.add(pr, "random, wide"); });
    return std::vector<Group>{Group{OJ::object(), std::move(b.tests)}};
  });
}

QSPEC_REGISTER_VECTOR_FAMILY(pytorch_max_family(Max::conv::pytorch_onednn, ro::QPoolTorchEngine::Onednn, 1771));
QSPEC_REGISTER_VECTOR_FAMILY(pytorch_max_family(Max::conv::pytorch_qnnpack, ro::QPoolTorchEngine::Qnnpack, 1772));

}  // namespace
}  // namespace qspec::vecgen
