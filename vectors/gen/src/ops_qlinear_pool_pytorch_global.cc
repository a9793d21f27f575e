// Vector families of qlinear.global_avg_pool under pytorch.onednn and pytorch.qnnpack
// (spec/operators_qlinear_pytorch_pool.md, PyTorch 1.13): ops/qlinear/global_avg_pool/pytorch.*.json.
//
// Inputs only; expected outputs come from the reference (reference/ops/ops_qlinear_pool_pytorch_global.cc).
// Hand cases (half-integer averages, 1x1 images, the image sizes where QNNPACK's
// fl32(x_s / fl32(x_s K)) and ATen's fl32(1 / K) round a sum apart, what PyTorch rejects),
// tie-rich draws (power-of-two image sizes), realistic ones and wide ones (17-70 channels: the optimized
// kernels' blocks; qspec/vecgen/wide_shapes.h). A valid test's flags are computed.
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
#include "qspec/ref/ops/qlinear_pool_pytorch_global.h"
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
using Gap = cat::qlinear_global_avg_pool;

struct Problem {
  DType type = DType::U8;
  std::uint32_t x_scale = 0x3f800000;
  std::int64_t x_zero_point = 0;
  IntArray x;
  bool drawn = false;
  bool wide = false;  // a shape of wide::draw_pool (flag "wide")
};

Test to_test(const Problem& pr, std::string comment, bool invalid = false) {
  Test t;
  t.comment = std::move(comment);
  t.invalid = invalid;
  OJ a = OJ::object();
  attr::set(a, Gap::attr::x_scale, pr.x_scale);
  attr::set_unchecked(a, Gap::attr::x_zero_point, pr.x_zero_point);
  t.attributes = std::move(a);
  std::vector<std::int64_t> d;
  for (const auto& v : pr.x.data) d.push_back(static_cast<std::int64_t>(v));
  t.inputs = {tensor(std::string(Gap::in::x), pr.type, pr.x.shape, d)};
  return t;
}

// Outputs whose value before the rounding, fl32(fl32(acc) m), is an exact k + 1/2.
int tie_count(const Problem& pr, ro::QPoolTorchEngine e) {
  const std::int64_t N = pr.x.dim(0), C = pr.x.dim(3), K = pr.x.dim(1) * pr.x.dim(2);
  const bool qnnpack = e == ro::QPoolTorchEngine::Qnnpack && pr.type == DType::U8 && K > 1;
  const std::uint32_t m = qnnpack ? ro::qlinear_pytorch_qnnpack_avgpool_scale(pr.x_scale, K)
                                  : ro::qlinear_pytorch_aten_avgpool_multiplier(pr.x_scale, K);
  int ties = 0;
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t c = 0; c < C; ++c) {
      Int acc(0);
      for (std::int64_t i = 0; i < K; ++i)
        acc += pr.x.data[static_cast<std::size_t>((n * K + i) * C + c)] - pr.x_zero_point;
      const ref::Rat v = ref::f32_value(ref::f32_mul(ref::f32_from_int(acc), m)) * 2;
      if (ref::denominator(v) == 1 && ref::numerator(v) % 2 != 0) ++ties;
    }
  return ties;
}

const std::vector<std::pair<std::string, std::string>> kNotes = {
    {"tie", "at least one output's value before the rounding is an exact k + 1/2"},
    {"uint8", "uint8 (quint8) tensors: QNNPACK's average pooling under pytorch.qnnpack (H W > 1)"},
    {"int8", "int8 (qint8) tensors: ATen's kernel under both engines"},
    {"random", "random draw"},
    wide::pool_note(),
};

struct Builder {
  std::string conv;
  ro::QPoolTorchEngine engine;
  std::vector<Test> tests;

  std::string op() const { return std::string(Gap::op); }
  bool valid(const Problem& pr) const {
    const Test t = to_test(pr, "");
    return classify(op(), conv, t.attributes, t.inputs) == Verdict::Valid;
  }
  void add(const Problem& pr, std::string comment) {
    if (!valid(pr)) throw std::logic_error("vecgen " + op() + " / " + conv + ": '" + comment + "' is not valid");
    Test t = to_test(pr, std::move(comment));
    const int ties = tie_count(pr, engine);
    std::set<std::string> f{pr.type == DType::U8 ? "uint8" : "int8"};
    if (ties > 0) f.insert("tie");
    if (pr.drawn) f.insert("random");
    if (pr.wide) f.insert("wide");
    t.flags = {f.begin(), f.end()};
    if (ties > 0) t.comment += " (" + std::to_string(ties) + " exact ties)";
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

// tie_rich: image sizes 2, 4, 8, 16 (acc / K is a half for many sums); otherwise 1..7 x 1..7.
// wide: the variant of a wide::draw_pool shape (its image; codes around the zero point), none for the
// small shapes.
Problem draw(Rng& r, bool tie_rich, std::optional<int> wide = std::nullopt) {
  Problem pr;
  pr.drawn = true;
  pr.wide = wide.has_value();
  pr.type = r.coin() ? DType::U8 : DType::I8;
  const std::int64_t pow2[] = {1, 2, 4};
  std::int64_t h = 0, w = 0, n = 1, c = 1;
  if (wide) {
    const wide::Pool s = wide::draw_pool(r, *wide, false);
    h = s.H, w = s.W, n = s.N, c = s.C;
  } else if (tie_rich) {
    h = pow2[r.uniform(0, 2)];
    w = pow2[r.uniform(0, 2)];
  } else {
    h = r.uniform(1, 7);
    w = r.uniform(1, 7);
  }
  if (!wide) {
    n = r.uniform(0, 4) == 0 ? 2 : 1;
    c = r.uniform(1, 4);
  }
  const std::int64_t lo = lo_of(pr.type), hi = hi_of(pr.type);
  pr.x_zero_point = r.uniform(lo, hi);
  const int e = static_cast<int>(r.uniform(-12, 3));
  const std::uint32_t mant = r.coin() ? static_cast<std::uint32_t>(r.uniform(0, (1 << 23) - 1))
                                      : static_cast<std::uint32_t>(r.uniform(0, 15)) << 19;
  pr.x_scale = (static_cast<std::uint32_t>(e + 127) << 23) | mant;
  pr.x = IntArray(Dims{n, h, w, c});
  const std::int64_t center = wide ? std::clamp(pr.x_zero_point + r.uniform(-20, 20), lo, hi) : r.uniform(lo, hi);
  const std::int64_t spread = r.uniform(1, 120);
  for (auto& v : pr.x.data) {
    const std::int64_t d = r.uniform(-spread, spread);
    v = Int(std::clamp(center + d, lo, hi));
  }
  return pr;
}

void hand_cases(Builder& b) {
  for (DType t : {DType::U8, DType::I8}) {
    const std::string tn = t == DType::U8 ? "uint8" : "int8";
    const std::int64_t off = t == DType::U8 ? 0 : -128;
    // 1x2 images of reals (r, r + 1), r = -3 .. 2: averages -2.5 .. 2.5, ties to even before the zero point.
    Problem tie;
    tie.type = t;
    tie.x_zero_point = 3 + off;
    std::vector<std::int64_t> v;
    for (std::int64_t real = -3; real <= 2; ++real)
      for (std::int64_t k = 0; k < 2; ++k) v.push_back(real + k + 3 + off);
    // NHWC (6, 1, 2, 1): image n holds reals n - 3 and n - 2.
    tie.x = codes({6, 1, 2, 1}, v);
    b.add(tie, tn + ": six 1x2 images, half-integer averages -2.5 .. 2.5, ties to even before the zero point");
    Problem one = tie;
    one.x = codes({1, 1, 1, 3}, {off, 77 + off, 255 + off});
    b.add(one, tn + ": a 1x1 image: the identity (ATen's kernel under both engines)");
    Problem zp = tie;
    zp.x_zero_point = t == DType::U8 ? 256 : -129;
    b.add_invalid(zp, tn + ": x_zero_point outside the dtype");
    Problem ends = tie;
    ends.x_zero_point = t == DType::U8 ? 255 : -128;
    ends.x = codes({1, 3, 3, 2}, {off, 255 + off, off, off, 255 + off, 255 + off, off, off, 255 + off});
    b.add(ends, tn + ": codes at both ends of the dtype, zero point at an end, 3x3 image");
  }
  // Image sizes K where QNNPACK's S = fl32(x_s / fl32(x_s K)) is not ATen's fl32(1 / K) and the
  // first uint8 sum they round apart (the two engines' results differ there).
  for (std::uint32_t s : {0x3dcccccdu /* 0.1 */, 0x3f8ccccdu /* 1.1 */, 0x3e99999au /* 0.3 */})
    for (std::int64_t hw : {6, 12}) {
      const std::uint32_t S = ro::qlinear_pytorch_qnnpack_avgpool_scale(s, hw);
      const std::uint32_t m = ro::qlinear_pytorch_aten_avgpool_multiplier(s, hw);
      if (S == m) continue;
      for (std::int64_t acc = 1; acc <= hw * 120; ++acc) {
        if (ro::qlinear_pytorch_avgpool_output(Int(acc), S, Int(0), DType::U8) ==
            ro::qlinear_pytorch_avgpool_output(Int(acc), m, Int(0), DType::U8))
          continue;
        Problem d;
        d.type = DType::U8;
        d.x_scale = s;
        std::vector<std::int64_t> v(static_cast<std::size_t>(hw), acc / hw);
        for (std::int64_t i = 0; i < acc % hw; ++i) v[static_cast<std::size_t>(i)] += 1;
        d.x = codes({1, 2, hw / 2, 1}, v);
        b.add(d, "uint8, a 2x" + std::to_string(hw / 2) + " image summing to " + std::to_string(acc) +
                     ": QNNPACK's S and ATen's fl32(1/" + std::to_string(hw) + ") round it apart");
        break;
      }
    }
}

Family pytorch_global_family(std::string_view conv, ro::QPoolTorchEngine e, std::uint64_t seed) {
  const std::string cv(conv);
  return family<Gap>(conv, kNotes, seed, [cv, e](Rng& r) {
    Builder b{cv, e, {}};
    hand_cases(b);
    for (bool tie_rich : {true, false})
      for (int i = 0; i < (tie_rich ? 80 : 60); ++i)
        for (int attempt = 0;; ++attempt) {
          Problem pr = draw(r, tie_rich);
          if (b.valid(pr)) {
            b.add(pr, tie_rich ? "tie-rich draw" : "random");
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

QSPEC_REGISTER_VECTOR_FAMILY(pytorch_global_family(Gap::conv::pytorch_onednn, ro::QPoolTorchEngine::Onednn, 1773));
QSPEC_REGISTER_VECTOR_FAMILY(pytorch_global_family(Gap::conv::pytorch_qnnpack, ro::QPoolTorchEngine::Qnnpack, 1774));

}  // namespace
}  // namespace qspec::vecgen
