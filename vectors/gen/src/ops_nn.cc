// Vector families of the operator clauses: MRT operators, expansions, granularity, gemmlowp
// matmul and TVM QNN operators. Inputs only; expected outputs come from the reference ops.
//
// Ops, conventions, tensors and attributes are named through the catalogue's typed keys
// (qspec::cat, spec/catalogue/<op>.json). Where a test draws both its tensors and its attributes
// from the Rng, the attributes are drawn first: the order the committed vectors were made in.
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "qspec/catalogue/keys.h"
#include "qspec/ref/ieee.h"
#include "qspec/vecgen.h"
#include "qspec/vecgen/attrs_of.h"
#include "qspec/vecgen/wide_shapes.h"

namespace qspec::vecgen {
namespace {

using OJ = nlohmann::ordered_json;
using Dims = std::vector<std::int64_t>;
using Ints = std::vector<std::int64_t>;
using OptInts = std::vector<std::optional<std::int64_t>>;

std::int64_t numel(const Dims& s) {
  std::int64_t n = 1;
  for (auto d : s) n *= d;
  return n;
}
Tensor rand_tensor(Rng& r, std::string_view name, const Dims& shape, std::int64_t lo, std::int64_t hi,
                   DType t = DType::I32) {
  std::vector<std::int64_t> d;
  for (std::int64_t i = 0; i < numel(shape); ++i) d.push_back(r.uniform(lo, hi));
  return tensor(std::string(name), t, shape, d);
}
Tensor fixed(std::string_view name, DType t, Dims shape, std::vector<std::int64_t> data) {
  return tensor(std::string(name), t, std::move(shape), std::move(data));
}
Test make(std::string comment, std::vector<Tensor> in, OJ attrs, bool invalid = false) {
  Test t;
  t.comment = std::move(comment);
  t.inputs = std::move(in);
  t.attributes = std::move(attrs);
  t.invalid = invalid;
  return t;
}
std::vector<Group> one_group(std::vector<Test> tests) { return {Group{OJ::object(), std::move(tests)}}; }

// The convolution attributes of Op (conv2d, the expansions, channel-wise, tvm.qnn.conv2d).
template <class Op>
OJ conv_attrs(std::int64_t sh, std::int64_t sw, std::int64_t ph, std::int64_t pw, std::int64_t dh, std::int64_t dw,
              std::int64_t g) {
  using A = typename Op::attr;
  return attrs_of(A::strides, Ints{sh, sw}, A::padding, Ints{ph, pw}, A::dilation, Ints{dh, dw}, A::groups, g);
}

// A random valid convolution problem (small), as attributes + shapes.
struct ConvProblem {
  Dims x, w;
  OJ attrs;
};
template <class Op>
ConvProblem conv_problem(Rng& r, std::int64_t max_groups = 3) {
  const std::int64_t g = r.uniform(1, max_groups), ic = r.uniform(1, 3), opg = r.uniform(1, 2);
  const std::int64_t kh = r.uniform(1, 3), kw = r.uniform(1, 3), dh = r.uniform(1, 2), dw = r.uniform(1, 2);
  const std::int64_t ph = r.uniform(0, 3), pw = r.uniform(0, 3), sh = r.uniform(1, 3), sw = r.uniform(1, 3);
  const std::int64_t h = std::max<std::int64_t>(1, dh * (kh - 1) + 1 - 2 * ph) + r.uniform(0, 3);
  const std::int64_t w = std::max<std::int64_t>(1, dw * (kw - 1) + 1 - 2 * pw) + r.uniform(0, 3);
  return {{r.uniform(1, 2), g * ic, h, w}, {g * opg, ic, kh, kw}, conv_attrs<Op>(sh, sw, ph, pw, dh, dw, g)};
}

constexpr int kWideDraws = wide::kDraws;
// A wide convolution (vecgen/wide_shapes.h) as NCHW / OIHW shapes and Op's attributes; variant
// wide::kDirectDepthwise: the direct depthwise layer (symmetric pads: these ops have one per axis).
template <class Op>
ConvProblem wide_conv_problem(Rng& r, int variant) {
  const wide::Conv c = variant == wide::kDirectDepthwise ? wide::draw_direct_depthwise(r, true) : wide::draw_conv(r, variant);
  return {{1, c.C, c.H, c.W},
          {c.O, c.C / c.groups, c.kh, c.kw},
          conv_attrs<Op>(c.sh, c.sw, c.ph, c.pw, c.dh, c.dw, c.groups)};
}
// (rows, K, outputs) of a wide fully connected draw.
Dims wide_fc_shape(Rng& r, int variant) {
  const wide::Fc f = wide::draw_fc(r, variant);
  return {f.rows, f.k, f.outputs};
}
Test wide_test(Test t) {
  t.comment = "wide: " + t.comment;
  t.flags.push_back("wide");
  return t;
}
const std::vector<std::pair<std::string, std::string>> kWideNotes = {wide::note()};

std::vector<Test> conv_edge_cases(Rng& r) {
  using K = cat::conv2d;
  std::vector<Test> t;
  auto add = [&](const char* c, Dims x, Dims w, OJ a, bool invalid = false) {
    t.push_back(make(c, {rand_tensor(r, K::in::x, x, -127, 127), rand_tensor(r, K::in::w, w, -127, 127)}, std::move(a),
                     invalid));
  };
  const auto conv = conv_attrs<K>;
  add("1x1 input, 1x1 kernel", {1, 1, 1, 1}, {1, 1, 1, 1}, conv(1, 1, 0, 0, 1, 1, 1));
  add("odd sizes 5x7, 3x3 kernel", {1, 2, 5, 7}, {3, 2, 3, 3}, conv(1, 1, 0, 0, 1, 1, 1));
  add("padding larger than the kernel", {1, 1, 2, 2}, {1, 1, 2, 2}, conv(1, 1, 3, 3, 1, 1, 1));
  add("stride larger than the kernel", {1, 1, 7, 7}, {1, 1, 2, 2}, conv(3, 4, 0, 0, 1, 1, 1));
  add("dilation 2", {1, 1, 6, 6}, {1, 1, 3, 3}, conv(1, 1, 0, 0, 2, 2, 1));
  add("dilation with padding", {1, 1, 3, 3}, {1, 1, 2, 2}, conv(1, 1, 2, 1, 3, 2, 1));
  add("groups 2", {1, 4, 3, 3}, {4, 2, 2, 2}, conv(1, 1, 1, 1, 1, 1, 2));
  add("depthwise (groups = C)", {1, 3, 3, 3}, {3, 1, 2, 2}, conv(1, 1, 0, 0, 1, 1, 3));
  add("extreme values", {1, 1, 2, 2}, {1, 1, 2, 2}, conv(1, 1, 0, 0, 1, 1, 1));
  add("invalid: C not a multiple of groups", {1, 3, 3, 3}, {2, 1, 1, 1}, conv(1, 1, 0, 0, 1, 1, 2), true);
  add("invalid: kernel larger than the padded input", {1, 1, 2, 2}, {1, 1, 3, 3}, conv(1, 1, 0, 0, 1, 1, 1), true);
  add("invalid: stride 0", {1, 1, 2, 2}, {1, 1, 1, 1}, conv(0, 1, 0, 0, 1, 1, 1), true);
  add("invalid: dilation 0", {1, 1, 2, 2}, {1, 1, 1, 1}, conv(1, 1, 0, 0, 1, 0, 1), true);
  add("invalid: negative padding", {1, 1, 2, 2}, {1, 1, 1, 1}, conv(1, 1, -1, 0, 1, 1, 1), true);
  add("invalid: weight channels != C / groups", {1, 2, 2, 2}, {1, 1, 1, 1}, conv(1, 1, 0, 0, 1, 1, 1), true);
  t[8].inputs[0].data = {127, -127, 127, -127};
  t[8].inputs[1].data = {127, -127, 127, -127};
  return t;
}

std::vector<Test> random_conv(Rng& r, int n, std::int64_t lo, std::int64_t hi) {
  using K = cat::conv2d;
  std::vector<Test> t;
  for (int i = 0; i < n; ++i) {
    const auto p = conv_problem<K>(r);
    t.push_back(
        make("random", {rand_tensor(r, K::in::x, p.x, lo, hi), rand_tensor(r, K::in::w, p.w, lo, hi)}, p.attrs));
  }
  return t;
}

// ---- MRT operators ----

QSPEC_REGISTER_VECTOR_FAMILY(family<cat::conv2d>(cat::conv2d::conv::mrt, kWideNotes, 401, [](Rng& r) {
  using K = cat::conv2d;
  auto t = conv_edge_cases(r);
  for (auto& x : random_conv(r, 100, -127, 127)) t.push_back(std::move(x));
  for (int v = 0; v <= wide::kDirectDepthwise; ++v) {  // weights in [-127, 127]: w - 0 fits int8
    const auto p = wide_conv_problem<K>(r, v);
    t.push_back(wide_test(
        make("random", {rand_tensor(r, K::in::x, p.x, -127, 127), rand_tensor(r, K::in::w, p.w, -127, 127)}, p.attrs)));
  }
  return one_group(std::move(t));
}));

QSPEC_REGISTER_VECTOR_FAMILY(family<cat::pad>(cat::pad::conv::mrt, {}, 402, [](Rng& r) {
  using K = cat::pad;
  using A = K::attr;
  std::vector<Test> t;
  for (int i = 0; i < 100; ++i) {
    const Dims s{r.uniform(1, 2), r.uniform(1, 3), r.uniform(1, 4), r.uniform(1, 4)};
    OJ a = attrs_of(A::pad_width, Ints{0, 0, 0, 0, r.uniform(0, 3), r.uniform(0, 3), r.uniform(0, 3), r.uniform(0, 3)});
    if (i % 4 == 0) attr::set(a, A::constant_value, -2147483647LL - 1);
    t.push_back(make(i % 4 == 0 ? "INT_MIN padding (before max pooling)" : "random",
                     {rand_tensor(r, K::in::x, s, -127, 127)}, a));
  }
  t.push_back(make("invalid: pads C", {rand_tensor(r, K::in::x, {1, 1, 1, 1}, -1, 1)},
                   attrs_of(A::pad_width, Ints{0, 0, 1, 0, 0, 0, 0, 0}), true));
  t.push_back(make("invalid: negative", {rand_tensor(r, K::in::x, {1, 1, 1, 1}, -1, 1)},
                   attrs_of(A::pad_width, Ints{0, 0, 0, 0, -1, 0, 0, 0}), true));
  t.push_back(make("invalid: 6 entries", {rand_tensor(r, K::in::x, {1, 1, 1, 1}, -1, 1)},
                   attrs_of(A::pad_width, Ints{0, 0, 1, 1, 1, 1}), true));
  return one_group(std::move(t));
}));

QSPEC_REGISTER_VECTOR_FAMILY(family<cat::relu>(cat::relu::conv::mrt, {}, 403, [](Rng& r) {
  std::vector<Test> t;
  for (int i = 0; i < 100; ++i) {
    Dims s;
    for (std::int64_t k = 0, rank = r.uniform(0, 4); k < rank; ++k) s.push_back(r.uniform(1, 3));
    t.push_back(make("random rank " + std::to_string(s.size()),
                     {rand_tensor(r, cat::relu::in::x, s, -2147483647, 2147483647)}, OJ::object()));
  }
  return one_group(std::move(t));
}));

// The max-pooling attributes of Op (max_pool2d, tvm.qnn.max_pool2d).
template <class Op>
OJ pool_attrs(const Dims& kernel, const Dims& strides, const Dims& padding) {
  using A = typename Op::attr;
  return attrs_of(A::kernel, kernel, A::strides, strides, A::padding, padding);
}

QSPEC_REGISTER_VECTOR_FAMILY(family<cat::max_pool2d>(cat::max_pool2d::conv::mrt, {}, 404, [](Rng& r) {
  using K = cat::max_pool2d;
  std::vector<Test> t;
  for (int i = 0; i < 120; ++i) {
    const std::int64_t kh = r.uniform(1, 3), kw = r.uniform(1, 3);
    const Dims s{r.uniform(1, 2), r.uniform(1, 2), kh + r.uniform(0, 4), kw + r.uniform(0, 4)};
    const Dims strides{r.uniform(1, 4), r.uniform(1, 4)};
    const Dims padding{r.uniform(0, kh - 1), r.uniform(0, kw - 1)};
    const OJ a = pool_attrs<K>({kh, kw}, strides, padding);
    t.push_back(make(i % 3 ? "random" : "all negative",
                     {rand_tensor(r, K::in::x, s, -2147483647, i % 3 ? 2147483647 : -1)}, a));
  }
  t.push_back(make("invalid: padding >= kernel (window entirely in padding)",
                   {rand_tensor(r, K::in::x, {1, 1, 3, 3}, -5, 5)}, pool_attrs<K>({2, 2}, {1, 1}, {2, 0}), true));
  t.push_back(make("invalid: stride 0", {rand_tensor(r, K::in::x, {1, 1, 3, 3}, -5, 5)},
                   pool_attrs<K>({2, 2}, {0, 1}, {0, 0}), true));
  t.push_back(make("invalid: kernel larger than input", {rand_tensor(r, K::in::x, {1, 1, 2, 2}, -5, 5)},
                   pool_attrs<K>({3, 1}, {1, 1}, {0, 0}), true));
  return one_group(std::move(t));
}));

QSPEC_REGISTER_VECTOR_FAMILY(family<cat::fully_connected>(cat::fully_connected::conv::mrt, kWideNotes, 405, [](Rng& r) {
  using In = cat::fully_connected::in;
  std::vector<Test> t;
  for (int i = 0; i < 100; ++i) {
    const std::int64_t k = r.uniform(1, 16);
    t.push_back(make("random",
                     {rand_tensor(r, In::x, {r.uniform(1, 3), k}, -127, 127),
                      rand_tensor(r, In::w, {r.uniform(1, 3), k}, -127, 127)},
                     OJ::object()));
  }
  t.push_back(make("invalid: K differs", {rand_tensor(r, In::x, {1, 2}, -1, 1), rand_tensor(r, In::w, {1, 3}, -1, 1)},
                   OJ::object(), true));
  for (int v = 0; v < kWideDraws; ++v) {
    const Dims s = wide_fc_shape(r, v);
    t.push_back(wide_test(
        make("random", {rand_tensor(r, In::x, {s[0], s[1]}, -127, 127), rand_tensor(r, In::w, {s[2], s[1]}, -127, 127)},
             OJ::object())));
  }
  return one_group(std::move(t));
}));

QSPEC_REGISTER_VECTOR_FAMILY(family<cat::broadcast_add>(cat::broadcast_add::conv::mrt, {}, 406, [](Rng& r) {
  using In = cat::broadcast_add::in;
  std::vector<Test> t;
  // Every rank combination 0..3 x 0..3, each with random broadcast (extent-1) dimensions.
  for (int ra = 0; ra <= 3; ++ra)
    for (int rb = 0; rb <= 3; ++rb)
      for (int rep = 0; rep < 7; ++rep) {
        const int rmax = std::max(ra, rb);
        Dims full;
        for (int k = 0; k < rmax; ++k) full.push_back(r.uniform(1, 3));
        Dims a(full.end() - ra, full.end()), b(full.end() - rb, full.end());
        for (auto& d : a)
          if (r.coin()) d = 1;
        for (auto& d : b)
          if (r.coin()) d = 1;
        t.push_back(make("ranks " + std::to_string(ra) + " and " + std::to_string(rb),
                         {rand_tensor(r, In::a, a, -1000000, 1000000), rand_tensor(r, In::b, b, -1000000, 1000000)},
                         OJ::object()));
      }
  t.push_back(make("invalid: (2,3) + (4)", {rand_tensor(r, In::a, {2, 3}, -1, 1), rand_tensor(r, In::b, {4}, -1, 1)},
                   OJ::object(), true));
  return one_group(std::move(t));
}));

QSPEC_REGISTER_VECTOR_FAMILY(family<cat::elemwise_add>(cat::elemwise_add::conv::mrt, {}, 407, [](Rng& r) {
  using In = cat::elemwise_add::in;
  std::vector<Test> t;
  for (int i = 0; i < 100; ++i) {
    const Dims s{r.uniform(1, 3), r.uniform(1, 3)};
    t.push_back(make("random", {rand_tensor(r, In::a, s, -32767, 32767), rand_tensor(r, In::b, s, -32767, 32767)},
                     OJ::object()));
  }
  t.push_back(make("invalid: shapes differ", {rand_tensor(r, In::a, {2}, -1, 1), rand_tensor(r, In::b, {2, 1}, -1, 1)},
                   OJ::object(), true));
  return one_group(std::move(t));
}));

QSPEC_REGISTER_VECTOR_FAMILY(family<cat::add_n>(cat::add_n::conv::mrt, {}, 408, [](Rng& r) {
  const auto x = cat::add_n::in::x;
  std::vector<Test> t;
  for (int i = 0; i < 100; ++i) {
    const Dims s{r.uniform(1, 3), r.uniform(1, 3)};
    std::vector<Tensor> in;
    for (std::int64_t k = 0, n = r.uniform(1, 5); k < n; ++k)
      in.push_back(rand_tensor(r, cat::indexed(x, static_cast<std::size_t>(k)), s, -32767, 32767));
    t.push_back(make("random, " + std::to_string(in.size()) + " inputs", in, OJ::object()));
  }
  t.push_back(
      make("three inputs of 127 (needs 10 bits: E-BITS-1)",
           {fixed(cat::indexed(x, 0), DType::I32, {1}, {127}), fixed(cat::indexed(x, 1), DType::I32, {1}, {127}),
            fixed(cat::indexed(x, 2), DType::I32, {1}, {127})},
           OJ::object()));
  t.push_back(make("invalid: shapes differ",
                   {rand_tensor(r, cat::indexed(x, 0), {2}, -1, 1), rand_tensor(r, cat::indexed(x, 1), {3}, -1, 1)},
                   OJ::object(), true));
  return one_group(std::move(t));
}));

QSPEC_REGISTER_VECTOR_FAMILY(family<cat::concat>(cat::concat::conv::mrt, {}, 409, [](Rng& r) {
  using K = cat::concat;
  const auto x = K::in::x;
  auto axis_attr = [](std::int64_t axis) { return attrs_of(K::attr::axis, axis); };
  std::vector<Test> t;
  for (int i = 0; i < 100; ++i) {
    const std::int64_t rank = r.uniform(1, 4), axis = r.uniform(-rank, rank - 1);
    Dims base;
    for (std::int64_t k = 0; k < rank; ++k) base.push_back(r.uniform(1, 3));
    std::vector<Tensor> in;
    for (std::int64_t k = 0, n = r.uniform(1, 3); k < n; ++k) {
      Dims s = base;
      s[static_cast<std::size_t>(axis < 0 ? axis + rank : axis)] = r.uniform(1, 3);
      in.push_back(rand_tensor(r, cat::indexed(x, static_cast<std::size_t>(k)), s, -127, 127));
    }
    t.push_back(make("random", in, axis_attr(axis)));
  }
  // Concatenation moves values: exact for every int32, also those a float32 cannot hold (2^24 + 1,
  // the extremes), which an implementation that goes through float rounds (spec/errata.md E-LIBTORCH-1).
  t.push_back(make("int32 values beyond float32's 24-bit significand",
                   {fixed(cat::indexed(x, 0), DType::I32, {2}, {16777217, -16777219}),
                    fixed(cat::indexed(x, 1), DType::I32, {2}, {2147483647, -2147483647})},
                   axis_attr(0)));
  t.push_back(make("invalid: axis out of range", {rand_tensor(r, cat::indexed(x, 0), {2}, -1, 1)}, axis_attr(1), true));
  t.push_back(
      make("invalid: non-axis dims differ",
           {rand_tensor(r, cat::indexed(x, 0), {1, 2}, -1, 1), rand_tensor(r, cat::indexed(x, 1), {2, 1}, -1, 1)},
           axis_attr(1), true));
  return one_group(std::move(t));
}));

QSPEC_REGISTER_VECTOR_FAMILY(family<cat::flatten>(cat::flatten::conv::mrt, {}, 410, [](Rng& r) {
  const auto x = cat::flatten::in::x;
  std::vector<Test> t;
  for (int i = 0; i < 100; ++i) {
    Dims s;
    for (std::int64_t k = 0, rank = r.uniform(1, 4); k < rank; ++k) s.push_back(r.uniform(1, 3));
    t.push_back(make("rank " + std::to_string(s.size()), {rand_tensor(r, x, s, -127, 127)}, OJ::object()));
  }
  t.push_back(make("invalid: rank 0", {rand_tensor(r, x, {}, -1, 1)}, OJ::object(), true));
  return one_group(std::move(t));
}));

QSPEC_REGISTER_VECTOR_FAMILY(family<cat::slice>(cat::slice::conv::mrt, {}, 411, [](Rng& r) {
  using K = cat::slice;
  using A = K::attr;
  auto slice_attrs = [](const OptInts& b, const OptInts& e, const Ints& st) {
    return attrs_of(A::begin, b, A::end, e, A::step, st);
  };
  std::vector<Test> t;
  for (int i = 0; i < 150; ++i) {
    Dims s;
    for (std::int64_t k = 0, rank = r.uniform(1, 3); k < rank; ++k) s.push_back(r.uniform(1, 6));
    OptInts b, e;
    Ints st;
    for (std::size_t k = 0; k < s.size(); ++k) {
      b.push_back(r.coin() ? std::nullopt : std::optional<std::int64_t>(r.uniform(-8, 8)));
      e.push_back(r.coin() ? std::nullopt : std::optional<std::int64_t>(r.uniform(-8, 8)));
      std::int64_t step = r.uniform(-3, 3);
      if (step == 0) step = 1;
      st.push_back(step);
    }
    t.push_back(make("random (None, negative and out-of-range indices, negative steps)",
                     {rand_tensor(r, K::in::x, s, -127, 127)}, slice_attrs(b, e, st)));
  }
  t.push_back(make("invalid: step 0", {rand_tensor(r, K::in::x, {3}, -1, 1)}, slice_attrs({0}, {2}, {0}), true));
  t.push_back(make("invalid: more axes than the rank", {rand_tensor(r, K::in::x, {3}, -1, 1)},
                   slice_attrs({0, 0}, {1, 1}, {1, 1}), true));
  return one_group(std::move(t));
}));

QSPEC_REGISTER_VECTOR_FAMILY(family<cat::quantize_scale>(cat::quantize_scale::conv::mrt, {}, 412, [](Rng& r) {
  using K = cat::quantize_scale;
  using A = K::attr;
  using Is = A::op__is;
  const auto x = K::in::x;
  std::vector<Test> t;
  const std::vector<std::string_view> ops{Is::add_n, Is::concat, Is::elemwise_add, Is::broadcast_add};
  for (int i = 0; i < 120; ++i) {
    const std::string_view op = ops[static_cast<std::size_t>(i % 4)];
    const std::int64_t n = op == Is::add_n || op == Is::concat ? r.uniform(1, 4) : 2;
    const Dims s{r.uniform(1, 3), r.uniform(1, 3)};
    std::vector<Tensor> in;
    Ints fr, ex;
    for (std::int64_t k = 0; k < n; ++k) {
      in.push_back(rand_tensor(r, cat::indexed(x, static_cast<std::size_t>(k)), s, -100000, 100000));
      fr.push_back(r.uniform(1, 255));
      ex.push_back(r.uniform(-12, 1));
    }
    OJ a = attrs_of(A::op_, op, A::fracs, fr, A::exps, ex);
    attr::set(a, A::oprec, r.uniform(8, 16));
    attr::set(a, A::axis, 1);
    t.push_back(make(std::string(op) + " of " + std::to_string(n), in, a));
  }
  t.push_back(
      make("ties: 3/2 -> 2, -3/2 -> -1 (half up)",
           {fixed(cat::indexed(x, 0), DType::I32, {2}, {3, -3}), fixed(cat::indexed(x, 1), DType::I32, {2}, {0, 0})},
           attrs_of(A::op_, Is::elemwise_add, A::fracs, Ints{1, 1}, A::exps, Ints{-1, -1}, A::oprec, 8)));
  t.push_back(make("invalid: frac 0", {fixed(cat::indexed(x, 0), DType::I32, {1}, {3})},
                   attrs_of(A::op_, Is::add_n, A::fracs, Ints{0}, A::exps, Ints{0}, A::oprec, 8), true));
  t.push_back(make("invalid: oprec 33", {fixed(cat::indexed(x, 0), DType::I32, {1}, {3})},
                   attrs_of(A::op_, Is::add_n, A::fracs, Ints{1}, A::exps, Ints{0}, A::oprec, 33), true));
  return one_group(std::move(t));
}));

// ---- expansions: affine operands in [0, 255], symmetric in [-127, 127]; zero points at random ----

std::vector<Group> conv_expansion_vectors(Rng& r, bool zx, bool zw) {
  using K = cat::mrt_conv2d_expansion;
  std::vector<Test> t;
  for (int i = 0; i < 100; ++i) {
    const auto p = conv_problem<K>(r);
    OJ a = p.attrs;
    const std::int64_t zxv = zx ? r.uniform(-300, 300) : 0, zwv = zw ? r.uniform(-300, 300) : 0;
    attr::set(a, K::attr::zx, zxv);
    attr::set(a, K::attr::zw, zwv);
    attr::set(a, K::attr::x_pad, -zxv);
    t.push_back(make("random",
                     {rand_tensor(r, K::in::x, p.x, zx ? 0 : -127, zx ? 255 : 127),
                      rand_tensor(r, K::in::w, p.w, zw ? 0 : -127, zw ? 255 : 127)},
                     a));
  }
  // Zero points near the affine codes' mean. The direct depthwise layer only where x is symmetric:
  // with zx, x_pad = -zx is no byte and the backends' exact loops run, not the depthwise kernel
  // (which takes mrt.sym's products and mrt.zpw's window sums; mrt.zpw's products, of weights in
  // [0, 255] against a zero point of 0, run its VPMADDWD form).
  for (int v = 0; v <= (zx ? kWideDraws - 1 : wide::kDirectDepthwise); ++v) {
    const auto p = wide_conv_problem<K>(r, v);
    OJ a = p.attrs;
    const std::int64_t zxv = zx ? r.uniform(104, 152) : 0, zwv = zw ? r.uniform(104, 152) : 0;
    attr::set(a, K::attr::zx, zxv);
    attr::set(a, K::attr::zw, zwv);
    attr::set(a, K::attr::x_pad, -zxv);
    t.push_back(wide_test(make("random",
                               {rand_tensor(r, K::in::x, p.x, zx ? 0 : -127, zx ? 255 : 127),
                                rand_tensor(r, K::in::w, p.w, zw ? 0 : -127, zw ? 255 : 127)},
                               a)));
  }
  return one_group(std::move(t));
}
std::vector<Group> fc_expansion_vectors(Rng& r, bool zx, bool zw) {
  using K = cat::mrt_fc_expansion;
  std::vector<Test> t;
  for (int i = 0; i < 100; ++i) {
    const std::int64_t k = r.uniform(1, 16);
    OJ a = OJ::object();
    attr::set(a, K::attr::zx, zx ? r.uniform(-300, 300) : 0);
    attr::set(a, K::attr::zw, zw ? r.uniform(-300, 300) : 0);
    t.push_back(make("random",
                     {rand_tensor(r, K::in::x, {r.uniform(1, 3), k}, zx ? 0 : -127, zx ? 255 : 127),
                      rand_tensor(r, K::in::w, {r.uniform(1, 3), k}, zw ? 0 : -127, zw ? 255 : 127)},
                     a));
  }
  for (int v = 0; v < kWideDraws; ++v) {
    const Dims s = wide_fc_shape(r, v);
    OJ a = OJ::object();
    attr::set(a, K::attr::zx, zx ? r.uniform(104, 152) : 0);
    attr::set(a, K::attr::zw, zw ? r.uniform(104, 152) : 0);
    t.push_back(wide_test(make("random",
                               {rand_tensor(r, K::in::x, {s[0], s[1]}, zx ? 0 : -127, zx ? 255 : 127),
                                rand_tensor(r, K::in::w, {s[2], s[1]}, zw ? 0 : -127, zw ? 255 : 127)},
                               a)));
  }
  return one_group(std::move(t));
}
using ConvExp = cat::mrt_conv2d_expansion;
using FcExp = cat::mrt_fc_expansion;
QSPEC_REGISTER_VECTOR_FAMILY(family<ConvExp>(ConvExp::conv::mrt_sym, kWideNotes, 421,
                                             [](Rng& r) { return conv_expansion_vectors(r, false, false); }));
QSPEC_REGISTER_VECTOR_FAMILY(family<ConvExp>(ConvExp::conv::mrt_zpx, kWideNotes, 422,
                                             [](Rng& r) { return conv_expansion_vectors(r, true, false); }));
QSPEC_REGISTER_VECTOR_FAMILY(family<ConvExp>(ConvExp::conv::mrt_zpw, kWideNotes, 423,
                                             [](Rng& r) { return conv_expansion_vectors(r, false, true); }));
QSPEC_REGISTER_VECTOR_FAMILY(family<ConvExp>(ConvExp::conv::mrt_zpxw, kWideNotes, 424,
                                             [](Rng& r) { return conv_expansion_vectors(r, true, true); }));
QSPEC_REGISTER_VECTOR_FAMILY(family<FcExp>(FcExp::conv::mrt_sym, kWideNotes, 425,
                                           [](Rng& r) { return fc_expansion_vectors(r, false, false); }));
QSPEC_REGISTER_VECTOR_FAMILY(family<FcExp>(FcExp::conv::mrt_zpx, kWideNotes, 426,
                                           [](Rng& r) { return fc_expansion_vectors(r, true, false); }));
QSPEC_REGISTER_VECTOR_FAMILY(family<FcExp>(FcExp::conv::mrt_zpw, kWideNotes, 427,
                                           [](Rng& r) { return fc_expansion_vectors(r, false, true); }));
QSPEC_REGISTER_VECTOR_FAMILY(family<FcExp>(FcExp::conv::mrt_zpxw, kWideNotes, 428,
                                           [](Rng& r) { return fc_expansion_vectors(r, true, true); }));

QSPEC_REGISTER_VECTOR_FAMILY(
    family<cat::mrt_conv2d_recombine>(cat::mrt_conv2d_recombine::conv::mrt, {}, 429, [](Rng& r) {
      using K = cat::mrt_conv2d_recombine;
      using A = K::attr;
      std::vector<Test> t;
      for (int i = 0; i < 100; ++i) {
        const Dims s{1, r.uniform(1, 3), r.uniform(1, 3), r.uniform(1, 3)};
        OJ a = OJ::object();
        attr::set(a, A::frac1, r.uniform(1, 255));
        attr::set(a, A::exp1, r.uniform(-20, 0));
        attr::set(a, A::frac2, r.uniform(1, 255));
        attr::set(a, A::exp2, r.uniform(-20, 0));
        attr::set(a, A::oprec, 16);
        std::vector<Tensor> in;
        in.push_back(rand_tensor(r, K::in::ye1, s, -1000000, 1000000));
        in.push_back(rand_tensor(r, K::in::ye2, s, -1000000, 1000000));
        t.push_back(make("random", std::move(in), std::move(a)));
      }
      return one_group(std::move(t));
    }));

// ---- granularity ----

QSPEC_REGISTER_VECTOR_FAMILY(family<cat::mrt_channel_split>(cat::mrt_channel_split::conv::mrt, {}, 431, [](Rng& r) {
  using K = cat::mrt_channel_split;
  using A = K::attr;
  std::vector<Test> t;
  for (int i = 0; i < 100; ++i) {
    Dims s;
    const std::int64_t rank = r.uniform(1, 4);
    for (std::int64_t k = 0; k < rank; ++k) s.push_back(r.uniform(1, 5));
    OJ a = OJ::object();
    attr::set(a, A::axis, r.uniform(0, rank - 1));
    attr::set(a, A::step, r.uniform(1, 6));
    Tensor x = rand_tensor(r, K::in::x, s, -127, 127);
    t.push_back(make("random", {std::move(x)}, std::move(a)));
  }
  t.push_back(
      make("invalid: step 0", {rand_tensor(r, K::in::x, {2, 2}, -1, 1)}, attrs_of(A::axis, 1, A::step, 0), true));
  return one_group(std::move(t));
}));

QSPEC_REGISTER_VECTOR_FAMILY(
    family<cat::mrt_conv2d_channelwise>(cat::mrt_conv2d_channelwise::conv::mrt, kWideNotes, 432, [](Rng& r) {
      using K = cat::mrt_conv2d_channelwise;
      std::vector<Test> t;
      for (int i = 0; i < 100; ++i) {
        const auto p = conv_problem<K>(r);
        OJ a = p.attrs;
        attr::set(a, K::attr::step, r.uniform(1, 4));
        t.push_back(
            make("random", {rand_tensor(r, K::in::x, p.x, -127, 127), rand_tensor(r, K::in::w, p.w, -127, 127)}, a));
      }
      for (int v = 0; v <= wide::kDirectDepthwise; ++v) {
        const auto p = wide_conv_problem<K>(r, v);
        OJ a = p.attrs;
        attr::set(a, K::attr::step, r.uniform(1, 8));
        t.push_back(wide_test(
            make("random", {rand_tensor(r, K::in::x, p.x, -127, 127), rand_tensor(r, K::in::w, p.w, -127, 127)}, a)));
      }
      return one_group(std::move(t));
    }));

// ---- gemmlowp matmul ----

QSPEC_REGISTER_VECTOR_FAMILY(family<cat::gemmlowp_matmul>(cat::gemmlowp_matmul::conv::gemmlowp, {}, 441, [](Rng& r) {
  using K = cat::gemmlowp_matmul;
  using A = K::attr;
  std::vector<Test> t;
  for (int i = 0; i < 120; ++i) {
    const std::int64_t k = r.uniform(1, 16);
    OJ a = OJ::object();
    attr::set(a, A::lhs_zero_point, r.uniform(0, 255));
    attr::set(a, A::rhs_zero_point, r.uniform(0, 255));
    attr::set(a, A::result_zero_point, r.uniform(0, 255));
    attr::set(a, A::multiplier, r.uniform(1LL << 30, (1LL << 31) - 1));
    attr::set(a, A::shift, r.uniform(0, 20));
    t.push_back(make("random",
                     {rand_tensor(r, K::in::lhs, {r.uniform(1, 3), k}, 0, 255, DType::U8),
                      rand_tensor(r, K::in::rhs, {k, r.uniform(1, 3)}, 0, 255, DType::U8)},
                     a));
  }
  t.push_back(make(
      "invalid: K differs",
      {rand_tensor(r, K::in::lhs, {1, 2}, 0, 255, DType::U8), rand_tensor(r, K::in::rhs, {3, 1}, 0, 255, DType::U8)},
      attrs_of(A::multiplier, 1LL << 30, A::shift, 0), true));
  return one_group(std::move(t));
}));

// ---- TVM QNN: scales as float32 bit patterns from a small set (0.5, 0.25, 0.1, 0.75, 1, 2) ----

std::uint32_t f32_scale(Rng& r) {
  static const std::vector<std::uint32_t> s{0x3f000000, 0x3e800000, 0x3dcccccd, 0x3f400000, 0x3f800000, 0x40000000};
  return r.pick(s);
}
constexpr std::uint32_t kOne = 0x3f800000;  // 1.0f

// A wide draw's output scale: in_s k_s 2^e (1 + m / 16) (wide::output_exponent), so that most int8
// outputs do not saturate.
std::uint32_t wide_output_scale(Rng& r, std::uint32_t in_s, std::uint32_t k_s, std::int64_t k) {
  const int e = wide::output_exponent(k);
  const ref::Rat m(ref::Int(16 + r.uniform(0, 15)), ref::Int(16));
  return ref::f32_round(ref::f32_value(in_s) * ref::f32_value(k_s) * ref::pow2r(e) * m);
}
// A wide draw's zero points, near the codes' mean.
void wide_zero_points(Rng& r, OJ& a, const attr::Int& in_zp, const attr::Int& k_zp, bool u8) {
  attr::set(a, in_zp, u8 ? r.uniform(120, 136) : r.uniform(-8, 8));
  attr::set(a, k_zp, r.uniform(-4, 4));
}

QSPEC_REGISTER_VECTOR_FAMILY(family<cat::tvm_qnn_conv2d>(cat::tvm_qnn_conv2d::conv::tvm, kWideNotes, 451, [](Rng& r) {
  using K = cat::tvm_qnn_conv2d;
  using A = K::attr;
  std::vector<Test> t;
  for (int i = 0; i < 120; ++i) {
    auto p = conv_problem<K>(r);
    OJ a = p.attrs;
    const bool u8 = r.coin();
    attr::set(a, A::input_zero_point, u8 ? r.uniform(0, 255) : r.uniform(-128, 127));
    attr::set(a, A::kernel_zero_point, r.uniform(-10, 10));
    attr::set(a, A::input_scale, f32_scale(r));
    attr::set(a, A::kernel_scale, f32_scale(r));
    attr::set(a, A::output_scale, f32_scale(r));
    attr::set(a, A::output_zero_point, r.uniform(-20, 20));
    attr::set(a, A::out_dtype, i % 3 == 0 ? DType::I32 : DType::I8);
    attr::set(a, A::rounding, r.coin() ? A::rounding_is::UPWARD : A::rounding_is::TONEAREST);
    Dims x = p.x, w = p.w;
    if (i % 2) {  // NHWC / HWIO
      attr::set(a, A::data_layout, A::data_layout_is::NHWC);
      x = {p.x[0], p.x[2], p.x[3], p.x[1]};
      w = {p.w[2], p.w[3], p.w[1], p.w[0]};
    }
    t.push_back(make(i % 2 ? "NHWC/HWIO" : "NCHW/OIHW",
                     {rand_tensor(r, K::in::data, x, u8 ? 0 : -128, u8 ? 255 : 127, u8 ? DType::U8 : DType::I8),
                      rand_tensor(r, K::in::kernel, w, -128, 127, DType::I8)},
                     a));
  }
  t.push_back(make("invalid: out_dtype int16",
                   {rand_tensor(r, K::in::data, {1, 1, 1, 1}, 0, 5, DType::I8),
                    rand_tensor(r, K::in::kernel, {1, 1, 1, 1}, 0, 5, DType::I8)},
                   attrs_of(A::out_dtype, DType::I16), true));
  // NCHW and NHWC in turn; the last two int32 out (the direct depthwise layer's accumulators as
  // they are; every draw's convolution runs the backends' int32 kernels).
  for (int v = 0; v <= wide::kDirectDepthwise; ++v) {
    const auto p = wide_conv_problem<K>(r, v);
    OJ a = p.attrs;
    const bool u8 = r.coin();
    const std::uint32_t in_s = f32_scale(r), k_s = f32_scale(r);
    wide_zero_points(r, a, A::input_zero_point, A::kernel_zero_point, u8);
    attr::set(a, A::input_scale, in_s);
    attr::set(a, A::kernel_scale, k_s);
    attr::set(a, A::output_scale, wide_output_scale(r, in_s, k_s, p.w[1] * p.w[2] * p.w[3]));
    attr::set(a, A::output_zero_point, r.uniform(-8, 8));
    attr::set(a, A::out_dtype, v >= kWideDraws - 1 ? DType::I32 : DType::I8);
    attr::set(a, A::rounding, r.coin() ? A::rounding_is::UPWARD : A::rounding_is::TONEAREST);
    const auto [w_lo, w_hi] =
        wide::weight_range(v == wide::kDirectDepthwise, -128, 127, attr::get(a, A::kernel_zero_point));
    Dims x = p.x, w = p.w;
    if (v % 2) {
      attr::set(a, A::data_layout, A::data_layout_is::NHWC);
      x = {p.x[0], p.x[2], p.x[3], p.x[1]};
      w = {p.w[2], p.w[3], p.w[1], p.w[0]};
    }
    t.push_back(
        wide_test(make(v % 2 ? "NHWC/HWIO" : "NCHW/OIHW",
                       {rand_tensor(r, K::in::data, x, u8 ? 0 : -128, u8 ? 255 : 127, u8 ? DType::U8 : DType::I8),
                        rand_tensor(r, K::in::kernel, w, w_lo, w_hi, DType::I8)},
                       a)));
  }
  return one_group(std::move(t));
}));
QSPEC_REGISTER_VECTOR_FAMILY(family<cat::tvm_qnn_dense>(cat::tvm_qnn_dense::conv::tvm, kWideNotes, 452, [](Rng& r) {
  using K = cat::tvm_qnn_dense;
  using A = K::attr;
  std::vector<Test> t;
  for (int i = 0; i < 100; ++i) {
    const std::int64_t k = r.uniform(1, 16);
    OJ a = OJ::object();
    attr::set(a, A::input_zero_point, r.uniform(-128, 127));
    attr::set(a, A::kernel_zero_point, r.uniform(-10, 10));
    attr::set(a, A::input_scale, f32_scale(r));
    attr::set(a, A::kernel_scale, f32_scale(r));
    attr::set(a, A::output_scale, f32_scale(r));
    attr::set(a, A::output_zero_point, r.uniform(-20, 20));
    attr::set(a, A::out_dtype, i % 3 == 0 ? DType::I32 : DType::I8);
    t.push_back(make("random",
                     {rand_tensor(r, K::in::data, {r.uniform(1, 3), k}, -128, 127, DType::I8),
                      rand_tensor(r, K::in::weight, {r.uniform(1, 3), k}, -128, 127, DType::I8)},
                     a));
  }
  for (int v = 0; v < kWideDraws; ++v) {  // the last one int32 out
    const Dims s = wide_fc_shape(r, v);
    OJ a = OJ::object();
    const std::uint32_t in_s = f32_scale(r), k_s = f32_scale(r);
    wide_zero_points(r, a, A::input_zero_point, A::kernel_zero_point, false);
    attr::set(a, A::input_scale, in_s);
    attr::set(a, A::kernel_scale, k_s);
    attr::set(a, A::output_scale, wide_output_scale(r, in_s, k_s, s[1]));
    attr::set(a, A::output_zero_point, r.uniform(-8, 8));
    attr::set(a, A::out_dtype, v == kWideDraws - 1 ? DType::I32 : DType::I8);
    t.push_back(wide_test(make("random",
                               {rand_tensor(r, K::in::data, {s[0], s[1]}, -128, 127, DType::I8),
                                rand_tensor(r, K::in::weight, {s[2], s[1]}, -128, 127, DType::I8)},
                               a)));
  }
  return one_group(std::move(t));
}));
QSPEC_REGISTER_VECTOR_FAMILY(family<cat::tvm_qnn_relu>(cat::tvm_qnn_relu::conv::tvm, {}, 453, [](Rng& r) {
  using K = cat::tvm_qnn_relu;
  std::vector<Test> t;
  for (int i = 0; i < 100; ++i) {
    OJ a = OJ::object();
    attr::set(a, K::attr::zero_point, r.uniform(-128, 127));
    Tensor data = rand_tensor(r, K::in::data, {r.uniform(1, 3), r.uniform(1, 4)}, -128, 127, DType::I8);
    t.push_back(make("random", {std::move(data)}, std::move(a)));
  }
  return one_group(std::move(t));
}));
QSPEC_REGISTER_VECTOR_FAMILY(family<cat::tvm_qnn_max_pool2d>(cat::tvm_qnn_max_pool2d::conv::tvm, {}, 454, [](Rng& r) {
  using K = cat::tvm_qnn_max_pool2d;
  std::vector<Test> t;
  for (int i = 0; i < 100; ++i) {
    const std::int64_t kh = r.uniform(1, 3), kw = r.uniform(1, 3);
    const Dims strides{r.uniform(1, 3), r.uniform(1, 3)};
    const Dims padding{r.uniform(0, kh - 1), r.uniform(0, kw - 1)};
    OJ a = pool_attrs<K>({kh, kw}, strides, padding);
    Tensor data = rand_tensor(r, K::in::data, {1, r.uniform(1, 2), kh + r.uniform(0, 3), kw + r.uniform(0, 3)}, -128,
                              127, DType::I8);
    t.push_back(make("random", {std::move(data)}, std::move(a)));
  }
  return one_group(std::move(t));
}));
QSPEC_REGISTER_VECTOR_FAMILY(family<cat::tvm_qnn_concatenate>(cat::tvm_qnn_concatenate::conv::tvm, {}, 455, [](Rng& r) {
  using K = cat::tvm_qnn_concatenate;
  using A = K::attr;
  std::vector<Test> t;
  for (int i = 0; i < 100; ++i) {
    const std::int64_t n = r.uniform(1, 3);
    std::vector<Tensor> in;
    std::vector<std::uint32_t> sc;
    Ints zp;
    for (std::int64_t k = 0; k < n; ++k) {
      in.push_back(rand_tensor(r, cat::indexed(K::in::x, static_cast<std::size_t>(k)), {2, r.uniform(1, 3)}, -128, 127,
                               DType::I8));
      sc.push_back(f32_scale(r));
      zp.push_back(r.uniform(-5, 5));
    }
    OJ a = attrs_of(A::input_scales, sc, A::input_zero_points, zp);
    attr::set(a, A::output_scale, f32_scale(r));
    attr::set(a, A::output_zero_point, r.uniform(-5, 5));
    attr::set(a, A::axis, 1);
    attr::set(a, A::out_dtype, DType::I8);
    t.push_back(make("random", in, a));
  }
  return one_group(std::move(t));
}));
QSPEC_REGISTER_VECTOR_FAMILY(family<cat::tvm_qnn_add>(cat::tvm_qnn_add::conv::tvm, {}, 456, [](Rng& r) {
  using K = cat::tvm_qnn_add;
  using A = K::attr;
  std::vector<Test> t;
  for (int i = 0; i < 100; ++i) {
    const Dims s{r.uniform(1, 3), r.uniform(1, 3)};
    OJ a = OJ::object();
    attr::set(a, A::lhs_scale, f32_scale(r));
    attr::set(a, A::lhs_zero_point, r.uniform(-5, 5));
    attr::set(a, A::rhs_scale, f32_scale(r));
    attr::set(a, A::rhs_zero_point, r.uniform(-5, 5));
    attr::set(a, A::output_scale, f32_scale(r));
    attr::set(a, A::output_zero_point, r.uniform(-5, 5));
    attr::set(a, A::out_dtype, DType::I8);
    std::vector<Tensor> in;
    in.push_back(rand_tensor(r, K::in::lhs, s, -128, 127, DType::I8));
    in.push_back(rand_tensor(r, K::in::rhs, s, -128, 127, DType::I8));
    t.push_back(make("random", std::move(in), std::move(a)));
  }
  t.push_back(
      make("invalid: shapes do not broadcast",
           {rand_tensor(r, K::in::lhs, {2}, -1, 1, DType::I8), rand_tensor(r, K::in::rhs, {3}, -1, 1, DType::I8)},
           attrs_of(A::lhs_scale, kOne, A::rhs_scale, kOne, A::output_scale, kOne), true));
  return one_group(std::move(t));
}));

}  // namespace
}  // namespace qspec::vecgen
