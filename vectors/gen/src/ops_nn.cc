// Vector families of the operator clauses: MRT operators, expansions, granularity, gemmlowp
// matmul and TVM QNN operators. Inputs only; expected outputs come from the reference ops.
#include <functional>
#include <string>

#include "qspec/vecgen.h"

namespace qspec::vecgen {
namespace {

using OJ = nlohmann::ordered_json;
using Dims = std::vector<std::int64_t>;

std::int64_t numel(const Dims& s) {
  std::int64_t n = 1;
  for (auto d : s) n *= d;
  return n;
}
Tensor rand_tensor(Rng& r, const std::string& name, const Dims& shape, std::int64_t lo, std::int64_t hi, DType t = DType::I32) {
  std::vector<std::int64_t> d;
  for (std::int64_t i = 0; i < numel(shape); ++i) d.push_back(r.uniform(lo, hi));
  return tensor(name, t, shape, d);
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

// A random valid convolution problem (small), as attributes + shapes.
struct ConvProblem {
  Dims x, w;
  OJ attrs;
};
ConvProblem conv_problem(Rng& r, std::int64_t max_groups = 3) {
  const std::int64_t g = r.uniform(1, max_groups), ic = r.uniform(1, 3), opg = r.uniform(1, 2);
  const std::int64_t kh = r.uniform(1, 3), kw = r.uniform(1, 3), dh = r.uniform(1, 2), dw = r.uniform(1, 2);
  const std::int64_t ph = r.uniform(0, 3), pw = r.uniform(0, 3), sh = r.uniform(1, 3), sw = r.uniform(1, 3);
  const std::int64_t h = std::max<std::int64_t>(1, dh * (kh - 1) + 1 - 2 * ph) + r.uniform(0, 3);
  const std::int64_t w = std::max<std::int64_t>(1, dw * (kw - 1) + 1 - 2 * pw) + r.uniform(0, 3);
  return {{r.uniform(1, 2), g * ic, h, w}, {g * opg, ic, kh, kw},
          OJ{{"strides", {sh, sw}}, {"padding", {ph, pw}}, {"dilation", {dh, dw}}, {"groups", g}}};
}
OJ conv_attrs(std::int64_t sh, std::int64_t sw, std::int64_t ph, std::int64_t pw, std::int64_t dh, std::int64_t dw, std::int64_t g) {
  return OJ{{"strides", {sh, sw}}, {"padding", {ph, pw}}, {"dilation", {dh, dw}}, {"groups", g}};
}

std::vector<Test> conv_edge_cases(Rng& r) {
  std::vector<Test> t;
  auto add = [&](const char* c, Dims x, Dims w, OJ a, bool invalid = false) {
    t.push_back(make(c, {rand_tensor(r, "x", x, -127, 127), rand_tensor(r, "w", w, -127, 127)}, std::move(a), invalid));
  };
  add("1x1 input, 1x1 kernel", {1, 1, 1, 1}, {1, 1, 1, 1}, conv_attrs(1, 1, 0, 0, 1, 1, 1));
  add("odd sizes 5x7, 3x3 kernel", {1, 2, 5, 7}, {3, 2, 3, 3}, conv_attrs(1, 1, 0, 0, 1, 1, 1));
  add("padding larger than the kernel", {1, 1, 2, 2}, {1, 1, 2, 2}, conv_attrs(1, 1, 3, 3, 1, 1, 1));
  add("stride larger than the kernel", {1, 1, 7, 7}, {1, 1, 2, 2}, conv_attrs(3, 4, 0, 0, 1, 1, 1));
  add("dilation 2", {1, 1, 6, 6}, {1, 1, 3, 3}, conv_attrs(1, 1, 0, 0, 2, 2, 1));
  add("dilation with padding", {1, 1, 3, 3}, {1, 1, 2, 2}, conv_attrs(1, 1, 2, 1, 3, 2, 1));
  add("groups 2", {1, 4, 3, 3}, {4, 2, 2, 2}, conv_attrs(1, 1, 1, 1, 1, 1, 2));
  add("depthwise (groups = C)", {1, 3, 3, 3}, {3, 1, 2, 2}, conv_attrs(1, 1, 0, 0, 1, 1, 3));
  add("extreme values", {1, 1, 2, 2}, {1, 1, 2, 2}, conv_attrs(1, 1, 0, 0, 1, 1, 1));
  add("invalid: C not a multiple of groups", {1, 3, 3, 3}, {2, 1, 1, 1}, conv_attrs(1, 1, 0, 0, 1, 1, 2), true);
  add("invalid: kernel larger than the padded input", {1, 1, 2, 2}, {1, 1, 3, 3}, conv_attrs(1, 1, 0, 0, 1, 1, 1), true);
  add("invalid: stride 0", {1, 1, 2, 2}, {1, 1, 1, 1}, conv_attrs(0, 1, 0, 0, 1, 1, 1), true);
  add("invalid: dilation 0", {1, 1, 2, 2}, {1, 1, 1, 1}, conv_attrs(1, 1, 0, 0, 1, 0, 1), true);
  add("invalid: negative padding", {1, 1, 2, 2}, {1, 1, 1, 1}, conv_attrs(1, 1, -1, 0, 1, 1, 1), true);
  add("invalid: weight channels != C / groups", {1, 2, 2, 2}, {1, 1, 1, 1}, conv_attrs(1, 1, 0, 0, 1, 1, 1), true);
  t[8].inputs[0].data = {127, -127, 127, -127};
  t[8].inputs[1].data = {127, -127, 127, -127};
  return t;
}

std::vector<Test> random_conv(Rng& r, int n, std::int64_t lo, std::int64_t hi) {
  std::vector<Test> t;
  for (int i = 0; i < n; ++i) {
    const auto p = conv_problem(r);
    t.push_back(make("random", {rand_tensor(r, "x", p.x, lo, hi), rand_tensor(r, "w", p.w, lo, hi)}, p.attrs));
  }
  return t;
}

Family fam(std::string op, std::string conv, std::uint64_t seed,
           std::function<std::vector<Group>(Rng&)> gen) {
  Family f;
  f.op = std::move(op);
  f.convention = std::move(conv);
  f.seed = seed;
  f.generate = std::move(gen);
  return f;
}

QSPEC_REGISTER_VECTOR_FAMILY(fam("conv2d", "mrt", 401, [](Rng& r) {
  auto t = conv_edge_cases(r);
  for (auto& x : random_conv(r, 100, -127, 127)) t.push_back(std::move(x));
  return one_group(std::move(t));
}));

QSPEC_REGISTER_VECTOR_FAMILY(fam("pad", "mrt", 402, [](Rng& r) {
  std::vector<Test> t;
  for (int i = 0; i < 100; ++i) {
    const Dims s{r.uniform(1, 2), r.uniform(1, 3), r.uniform(1, 4), r.uniform(1, 4)};
    OJ a{{"pad_width", {0, 0, 0, 0, r.uniform(0, 3), r.uniform(0, 3), r.uniform(0, 3), r.uniform(0, 3)}}};
    if (i % 4 == 0) a["constant_value"] = -2147483647LL - 1;
    t.push_back(make(i % 4 == 0 ? "INT_MIN padding (before max pooling)" : "random", {rand_tensor(r, "x", s, -127, 127)}, a));
  }
  t.push_back(make("invalid: pads C", {rand_tensor(r, "x", {1, 1, 1, 1}, -1, 1)}, OJ{{"pad_width", {0, 0, 1, 0, 0, 0, 0, 0}}}, true));
  t.push_back(make("invalid: negative", {rand_tensor(r, "x", {1, 1, 1, 1}, -1, 1)}, OJ{{"pad_width", {0, 0, 0, 0, -1, 0, 0, 0}}}, true));
  t.push_back(make("invalid: 6 entries", {rand_tensor(r, "x", {1, 1, 1, 1}, -1, 1)}, OJ{{"pad_width", {0, 0, 1, 1, 1, 1}}}, true));
  return one_group(std::move(t));
}));

QSPEC_REGISTER_VECTOR_FAMILY(fam("relu", "mrt", 403, [](Rng& r) {
  std::vector<Test> t;
  for (int i = 0; i < 100; ++i) {
    Dims s;
    for (std::int64_t k = 0, rank = r.uniform(0, 4); k < rank; ++k) s.push_back(r.uniform(1, 3));
    t.push_back(make("random rank " + std::to_string(s.size()), {rand_tensor(r, "x", s, -2147483647, 2147483647)}, OJ::object()));
  }
  return one_group(std::move(t));
}));

QSPEC_REGISTER_VECTOR_FAMILY(fam("max_pool2d", "mrt", 404, [](Rng& r) {
  std::vector<Test> t;
  for (int i = 0; i < 120; ++i) {
    const std::int64_t kh = r.uniform(1, 3), kw = r.uniform(1, 3);
    const Dims s{r.uniform(1, 2), r.uniform(1, 2), kh + r.uniform(0, 4), kw + r.uniform(0, 4)};
    OJ a{{"kernel", {kh, kw}}, {"strides", {r.uniform(1, 4), r.uniform(1, 4)}}, {"padding", {r.uniform(0, kh - 1), r.uniform(0, kw - 1)}}};
    t.push_back(make(i % 3 ? "random" : "all negative", {rand_tensor(r, "x", s, -2147483647, i % 3 ? 2147483647 : -1)}, a));
  }
  t.push_back(make("invalid: padding >= kernel (window entirely in padding)", {rand_tensor(r, "x", {1, 1, 3, 3}, -5, 5)},
                   OJ{{"kernel", {2, 2}}, {"strides", {1, 1}}, {"padding", {2, 0}}}, true));
  t.push_back(make("invalid: stride 0", {rand_tensor(r, "x", {1, 1, 3, 3}, -5, 5)}, OJ{{"kernel", {2, 2}}, {"strides", {0, 1}}, {"padding", {0, 0}}}, true));
  t.push_back(make("invalid: kernel larger than input", {rand_tensor(r, "x", {1, 1, 2, 2}, -5, 5)}, OJ{{"kernel", {3, 1}}, {"strides", {1, 1}}, {"padding", {0, 0}}}, true));
  return one_group(std::move(t));
}));

QSPEC_REGISTER_VECTOR_FAMILY(fam("fully_connected", "mrt", 405, [](Rng& r) {
  std::vector<Test> t;
  for (int i = 0; i < 100; ++i) {
    const std::int64_t k = r.uniform(1, 16);
    t.push_back(make("random", {rand_tensor(r, "x", {r.uniform(1, 3), k}, -127, 127), rand_tensor(r, "w", {r.uniform(1, 3), k}, -127, 127)}, OJ::object()));
  }
  t.push_back(make("invalid: K differs", {rand_tensor(r, "x", {1, 2}, -1, 1), rand_tensor(r, "w", {1, 3}, -1, 1)}, OJ::object(), true));
  return one_group(std::move(t));
}));

QSPEC_REGISTER_VECTOR_FAMILY(fam("broadcast_add", "mrt", 406, [](Rng& r) {
  std::vector<Test> t;
  // Every rank combination 0..3 x 0..3, each with random broadcast (extent-1) dimensions.
  for (int ra = 0; ra <= 3; ++ra)
    for (int rb = 0; rb <= 3; ++rb)
      for (int rep = 0; rep < 7; ++rep) {
        const int rmax = std::max(ra, rb);
        Dims full;
        for (int k = 0; k < rmax; ++k) full.push_back(r.uniform(1, 3));
        Dims a(full.end() - ra, full.end()), b(full.end() - rb, full.end());
        for (auto& d : a) if (r.coin()) d = 1;
        for (auto& d : b) if (r.coin()) d = 1;
        t.push_back(make("ranks " + std::to_string(ra) + " and " + std::to_string(rb),
                         {rand_tensor(r, "a", a, -1000000, 1000000), rand_tensor(r, "b", b, -1000000, 1000000)}, OJ::object()));
      }
  t.push_back(make("invalid: (2,3) + (4)", {rand_tensor(r, "a", {2, 3}, -1, 1), rand_tensor(r, "b", {4}, -1, 1)}, OJ::object(), true));
  return one_group(std::move(t));
}));

QSPEC_REGISTER_VECTOR_FAMILY(fam("elemwise_add", "mrt", 407, [](Rng& r) {
  std::vector<Test> t;
  for (int i = 0; i < 100; ++i) {
    const Dims s{r.uniform(1, 3), r.uniform(1, 3)};
    t.push_back(make("random", {rand_tensor(r, "a", s, -32767, 32767), rand_tensor(r, "b", s, -32767, 32767)}, OJ::object()));
  }
  t.push_back(make("invalid: shapes differ", {rand_tensor(r, "a", {2}, -1, 1), rand_tensor(r, "b", {2, 1}, -1, 1)}, OJ::object(), true));
  return one_group(std::move(t));
}));

QSPEC_REGISTER_VECTOR_FAMILY(fam("add_n", "mrt", 408, [](Rng& r) {
  std::vector<Test> t;
  for (int i = 0; i < 100; ++i) {
    const Dims s{r.uniform(1, 3), r.uniform(1, 3)};
    std::vector<Tensor> in;
    for (std::int64_t k = 0, n = r.uniform(1, 5); k < n; ++k) in.push_back(rand_tensor(r, "x" + std::to_string(k), s, -32767, 32767));
    t.push_back(make("random, " + std::to_string(in.size()) + " inputs", in, OJ::object()));
  }
  t.push_back(make("three inputs of 127 (needs 10 bits: E-BITS-1)", {tensor("x0", DType::I32, {1}, {127}), tensor("x1", DType::I32, {1}, {127}),
                                                                     tensor("x2", DType::I32, {1}, {127})}, OJ::object()));
  t.push_back(make("invalid: shapes differ", {rand_tensor(r, "x0", {2}, -1, 1), rand_tensor(r, "x1", {3}, -1, 1)}, OJ::object(), true));
  return one_group(std::move(t));
}));

QSPEC_REGISTER_VECTOR_FAMILY(fam("concat", "mrt", 409, [](Rng& r) {
  std::vector<Test> t;
  for (int i = 0; i < 100; ++i) {
    const std::int64_t rank = r.uniform(1, 4), axis = r.uniform(-rank, rank - 1);
    Dims base;
    for (std::int64_t k = 0; k < rank; ++k) base.push_back(r.uniform(1, 3));
    std::vector<Tensor> in;
    for (std::int64_t k = 0, n = r.uniform(1, 3); k < n; ++k) {
      Dims s = base;
      s[static_cast<std::size_t>(axis < 0 ? axis + rank : axis)] = r.uniform(1, 3);
      in.push_back(rand_tensor(r, "x" + std::to_string(k), s, -127, 127));
    }
    t.push_back(make("random", in, OJ{{"axis", axis}}));
  }
  // Concatenation moves values: exact for every int32, also those a float32 cannot hold (2^24 + 1,
  // the extremes), which an implementation that goes through float rounds (spec/errata.md E-LIBTORCH-1).
  t.push_back(make("int32 values beyond float32's 24-bit significand",
                   {tensor("x0", DType::I32, {2}, {16777217, -16777219}), tensor("x1", DType::I32, {2}, {2147483647, -2147483647})},
                   OJ{{"axis", 0}}));
  t.push_back(make("invalid: axis out of range", {rand_tensor(r, "x0", {2}, -1, 1)}, OJ{{"axis", 1}}, true));
  t.push_back(make("invalid: non-axis dims differ", {rand_tensor(r, "x0", {1, 2}, -1, 1), rand_tensor(r, "x1", {2, 1}, -1, 1)}, OJ{{"axis", 1}}, true));
  return one_group(std::move(t));
}));

QSPEC_REGISTER_VECTOR_FAMILY(fam("flatten", "mrt", 410, [](Rng& r) {
  std::vector<Test> t;
  for (int i = 0; i < 100; ++i) {
    Dims s;
    for (std::int64_t k = 0, rank = r.uniform(1, 4); k < rank; ++k) s.push_back(r.uniform(1, 3));
    t.push_back(make("rank " + std::to_string(s.size()), {rand_tensor(r, "x", s, -127, 127)}, OJ::object()));
  }
  t.push_back(make("invalid: rank 0", {rand_tensor(r, "x", {}, -1, 1)}, OJ::object(), true));
  return one_group(std::move(t));
}));

QSPEC_REGISTER_VECTOR_FAMILY(fam("slice", "mrt", 411, [](Rng& r) {
  std::vector<Test> t;
  for (int i = 0; i < 150; ++i) {
    Dims s;
    for (std::int64_t k = 0, rank = r.uniform(1, 3); k < rank; ++k) s.push_back(r.uniform(1, 6));
    OJ b = OJ::array(), e = OJ::array(), st = OJ::array();
    for (std::size_t k = 0; k < s.size(); ++k) {
      b.push_back(r.coin() ? OJ(nullptr) : OJ(r.uniform(-8, 8)));
      e.push_back(r.coin() ? OJ(nullptr) : OJ(r.uniform(-8, 8)));
      std::int64_t step = r.uniform(-3, 3);
      if (step == 0) step = 1;
      st.push_back(step);
    }
    t.push_back(make("random (None, negative and out-of-range indices, negative steps)", {rand_tensor(r, "x", s, -127, 127)},
                     OJ{{"begin", b}, {"end", e}, {"step", st}}));
  }
  t.push_back(make("invalid: step 0", {rand_tensor(r, "x", {3}, -1, 1)}, OJ{{"begin", {0}}, {"end", {2}}, {"step", {0}}}, true));
  t.push_back(make("invalid: more axes than the rank", {rand_tensor(r, "x", {3}, -1, 1)}, OJ{{"begin", {0, 0}}, {"end", {1, 1}}, {"step", {1, 1}}}, true));
  return one_group(std::move(t));
}));

QSPEC_REGISTER_VECTOR_FAMILY(fam("quantize_scale", "mrt", 412, [](Rng& r) {
  std::vector<Test> t;
  const std::vector<std::string> ops{"add_n", "concat", "elemwise_add", "broadcast_add"};
  for (int i = 0; i < 120; ++i) {
    const std::string op = ops[static_cast<std::size_t>(i % 4)];
    const std::int64_t n = op == "add_n" || op == "concat" ? r.uniform(1, 4) : 2;
    const Dims s{r.uniform(1, 3), r.uniform(1, 3)};
    std::vector<Tensor> in;
    OJ fr = OJ::array(), ex = OJ::array();
    for (std::int64_t k = 0; k < n; ++k) {
      in.push_back(rand_tensor(r, "x" + std::to_string(k), s, -100000, 100000));
      fr.push_back(r.uniform(1, 255));
      ex.push_back(r.uniform(-12, 1));
    }
    t.push_back(make(op + " of " + std::to_string(n), in, OJ{{"op", op}, {"fracs", fr}, {"exps", ex}, {"oprec", r.uniform(8, 16)}, {"axis", 1}}));
  }
  t.push_back(make("ties: 3/2 -> 2, -3/2 -> -1 (half up)", {tensor("x0", DType::I32, {2}, {3, -3}), tensor("x1", DType::I32, {2}, {0, 0})},
                   OJ{{"op", "elemwise_add"}, {"fracs", {1, 1}}, {"exps", {-1, -1}}, {"oprec", 8}}));
  t.push_back(make("invalid: frac 0", {tensor("x0", DType::I32, {1}, {3})}, OJ{{"op", "add_n"}, {"fracs", {0}}, {"exps", {0}}, {"oprec", 8}}, true));
  t.push_back(make("invalid: oprec 33", {tensor("x0", DType::I32, {1}, {3})}, OJ{{"op", "add_n"}, {"fracs", {1}}, {"exps", {0}}, {"oprec", 33}}, true));
  return one_group(std::move(t));
}));

// Expansions: affine operands in [0, 255], symmetric in [-127, 127]; zero points at random.
std::vector<Group> conv_expansion_vectors(Rng& r, bool zx, bool zw) {
  std::vector<Test> t;
  for (int i = 0; i < 100; ++i) {
    const auto p = conv_problem(r);
    OJ a = p.attrs;
    const std::int64_t zxv = zx ? r.uniform(-300, 300) : 0, zwv = zw ? r.uniform(-300, 300) : 0;
    a["zx"] = zxv;
    a["zw"] = zwv;
    a["x_pad"] = -zxv;
    t.push_back(make("random", {rand_tensor(r, "x", p.x, zx ? 0 : -127, zx ? 255 : 127), rand_tensor(r, "w", p.w, zw ? 0 : -127, zw ? 255 : 127)}, a));
  }
  return one_group(std::move(t));
}
std::vector<Group> fc_expansion_vectors(Rng& r, bool zx, bool zw) {
  std::vector<Test> t;
  for (int i = 0; i < 100; ++i) {
    const std::int64_t k = r.uniform(1, 16);
    OJ a{{"zx", zx ? r.uniform(-300, 300) : 0}, {"zw", zw ? r.uniform(-300, 300) : 0}};
    t.push_back(make("random", {rand_tensor(r, "x", {r.uniform(1, 3), k}, zx ? 0 : -127, zx ? 255 : 127),
                                rand_tensor(r, "w", {r.uniform(1, 3), k}, zw ? 0 : -127, zw ? 255 : 127)}, a));
  }
  return one_group(std::move(t));
}
QSPEC_REGISTER_VECTOR_FAMILY(fam("mrt.conv2d_expansion", "mrt.sym", 421,
                                 [](Rng& r) { return conv_expansion_vectors(r, false, false); }));
QSPEC_REGISTER_VECTOR_FAMILY(fam("mrt.conv2d_expansion", "mrt.zpx", 422,
                                 [](Rng& r) { return conv_expansion_vectors(r, true, false); }));
QSPEC_REGISTER_VECTOR_FAMILY(fam("mrt.conv2d_expansion", "mrt.zpw", 423,
                                 [](Rng& r) { return conv_expansion_vectors(r, false, true); }));
QSPEC_REGISTER_VECTOR_FAMILY(fam("mrt.conv2d_expansion", "mrt.zpxw", 424,
                                 [](Rng& r) { return conv_expansion_vectors(r, true, true); }));
QSPEC_REGISTER_VECTOR_FAMILY(fam("mrt.fc_expansion", "mrt.sym", 425,
                                 [](Rng& r) { return fc_expansion_vectors(r, false, false); }));
QSPEC_REGISTER_VECTOR_FAMILY(fam("mrt.fc_expansion", "mrt.zpx", 426,
                                 [](Rng& r) { return fc_expansion_vectors(r, true, false); }));
QSPEC_REGISTER_VECTOR_FAMILY(fam("mrt.fc_expansion", "mrt.zpw", 427,
                                 [](Rng& r) { return fc_expansion_vectors(r, false, true); }));
QSPEC_REGISTER_VECTOR_FAMILY(fam("mrt.fc_expansion", "mrt.zpxw", 428,
                                 [](Rng& r) { return fc_expansion_vectors(r, true, true); }));

QSPEC_REGISTER_VECTOR_FAMILY(fam("mrt.conv2d_recombine", "mrt", 429, [](Rng& r) {
  std::vector<Test> t;
  for (int i = 0; i < 100; ++i) {
    const Dims s{1, r.uniform(1, 3), r.uniform(1, 3), r.uniform(1, 3)};
    t.push_back(make("random", {rand_tensor(r, "ye1", s, -1000000, 1000000), rand_tensor(r, "ye2", s, -1000000, 1000000)},
                     OJ{{"frac1", r.uniform(1, 255)}, {"exp1", r.uniform(-20, 0)}, {"frac2", r.uniform(1, 255)}, {"exp2", r.uniform(-20, 0)}, {"oprec", 16}}));
  }
  return one_group(std::move(t));
}));

QSPEC_REGISTER_VECTOR_FAMILY(fam("mrt.channel_split", "mrt", 431, [](Rng& r) {
  std::vector<Test> t;
  for (int i = 0; i < 100; ++i) {
    Dims s;
    const std::int64_t rank = r.uniform(1, 4);
    for (std::int64_t k = 0; k < rank; ++k) s.push_back(r.uniform(1, 5));
    t.push_back(make("random", {rand_tensor(r, "x", s, -127, 127)}, OJ{{"axis", r.uniform(0, rank - 1)}, {"step", r.uniform(1, 6)}}));
  }
  t.push_back(make("invalid: step 0", {rand_tensor(r, "x", {2, 2}, -1, 1)}, OJ{{"axis", 1}, {"step", 0}}, true));
  return one_group(std::move(t));
}));

QSPEC_REGISTER_VECTOR_FAMILY(fam("mrt.conv2d_channelwise", "mrt", 432, [](Rng& r) {
  std::vector<Test> t;
  for (int i = 0; i < 100; ++i) {
    const auto p = conv_problem(r);
    OJ a = p.attrs;
    a["step"] = r.uniform(1, 4);
    t.push_back(make("random", {rand_tensor(r, "x", p.x, -127, 127), rand_tensor(r, "w", p.w, -127, 127)}, a));
  }
  return one_group(std::move(t));
}));

QSPEC_REGISTER_VECTOR_FAMILY(fam("gemmlowp.matmul", "gemmlowp", 441, [](Rng& r) {
  std::vector<Test> t;
  for (int i = 0; i < 120; ++i) {
    const std::int64_t k = r.uniform(1, 16);
    OJ a{{"lhs_zero_point", r.uniform(0, 255)}, {"rhs_zero_point", r.uniform(0, 255)}, {"result_zero_point", r.uniform(0, 255)},
         {"multiplier", r.uniform(1LL << 30, (1LL << 31) - 1)}, {"shift", r.uniform(0, 20)}};
    t.push_back(make("random", {rand_tensor(r, "lhs", {r.uniform(1, 3), k}, 0, 255, DType::U8), rand_tensor(r, "rhs", {k, r.uniform(1, 3)}, 0, 255, DType::U8)}, a));
  }
  t.push_back(make("invalid: K differs", {rand_tensor(r, "lhs", {1, 2}, 0, 255, DType::U8), rand_tensor(r, "rhs", {3, 1}, 0, 255, DType::U8)},
                   OJ{{"multiplier", 1LL << 30}, {"shift", 0}}, true));
  return one_group(std::move(t));
}));

// TVM QNN: scales as float32 bit patterns from a small set (0.5, 0.25, 0.1, 0.75, 1, 2).
std::string f32_scale(Rng& r) {
  static const std::vector<std::string> s{"0x3f000000", "0x3e800000", "0x3dcccccd", "0x3f400000", "0x3f800000", "0x40000000"};
  return r.pick(s);
}
QSPEC_REGISTER_VECTOR_FAMILY(fam("tvm.qnn.conv2d", "tvm", 451, [](Rng& r) {
  std::vector<Test> t;
  for (int i = 0; i < 120; ++i) {
    auto p = conv_problem(r);
    OJ a = p.attrs;
    const bool u8 = r.coin();
    a["input_zero_point"] = u8 ? r.uniform(0, 255) : r.uniform(-128, 127);
    a["kernel_zero_point"] = r.uniform(-10, 10);
    a["input_scale"] = f32_scale(r);
    a["kernel_scale"] = f32_scale(r);
    a["output_scale"] = f32_scale(r);
    a["output_zero_point"] = r.uniform(-20, 20);
    a["out_dtype"] = i % 3 == 0 ? "int32" : "int8";
    a["rounding"] = r.coin() ? "UPWARD" : "TONEAREST";
    Dims x = p.x, w = p.w;
    if (i % 2) {  // NHWC / HWIO
      a["data_layout"] = "NHWC";
      x = {p.x[0], p.x[2], p.x[3], p.x[1]};
      w = {p.w[2], p.w[3], p.w[1], p.w[0]};
    }
    t.push_back(make(i % 2 ? "NHWC/HWIO" : "NCHW/OIHW", {rand_tensor(r, "data", x, u8 ? 0 : -128, u8 ? 255 : 127, u8 ? DType::U8 : DType::I8),
                                                        rand_tensor(r, "kernel", w, -128, 127, DType::I8)}, a));
  }
  t.push_back(make("invalid: out_dtype int16", {rand_tensor(r, "data", {1, 1, 1, 1}, 0, 5, DType::I8), rand_tensor(r, "kernel", {1, 1, 1, 1}, 0, 5, DType::I8)},
                   OJ{{"out_dtype", "int16"}}, true));
  return one_group(std::move(t));
}));
QSPEC_REGISTER_VECTOR_FAMILY(fam("tvm.qnn.dense", "tvm", 452, [](Rng& r) {
  std::vector<Test> t;
  for (int i = 0; i < 100; ++i) {
    const std::int64_t k = r.uniform(1, 16);
    OJ a{{"input_zero_point", r.uniform(-128, 127)}, {"kernel_zero_point", r.uniform(-10, 10)}, {"input_scale", f32_scale(r)},
         {"kernel_scale", f32_scale(r)}, {"output_scale", f32_scale(r)}, {"output_zero_point", r.uniform(-20, 20)},
         {"out_dtype", i % 3 == 0 ? "int32" : "int8"}};
    t.push_back(make("random", {rand_tensor(r, "data", {r.uniform(1, 3), k}, -128, 127, DType::I8), rand_tensor(r, "weight", {r.uniform(1, 3), k}, -128, 127, DType::I8)}, a));
  }
  return one_group(std::move(t));
}));
QSPEC_REGISTER_VECTOR_FAMILY(fam("tvm.qnn.relu", "tvm", 453, [](Rng& r) {
  std::vector<Test> t;
  for (int i = 0; i < 100; ++i)
    t.push_back(make("random", {rand_tensor(r, "data", {r.uniform(1, 3), r.uniform(1, 4)}, -128, 127, DType::I8)}, OJ{{"zero_point", r.uniform(-128, 127)}}));
  return one_group(std::move(t));
}));
QSPEC_REGISTER_VECTOR_FAMILY(fam("tvm.qnn.max_pool2d", "tvm", 454, [](Rng& r) {
  std::vector<Test> t;
  for (int i = 0; i < 100; ++i) {
    const std::int64_t kh = r.uniform(1, 3), kw = r.uniform(1, 3);
    t.push_back(make("random", {rand_tensor(r, "data", {1, r.uniform(1, 2), kh + r.uniform(0, 3), kw + r.uniform(0, 3)}, -128, 127, DType::I8)},
                     OJ{{"kernel", {kh, kw}}, {"strides", {r.uniform(1, 3), r.uniform(1, 3)}}, {"padding", {r.uniform(0, kh - 1), r.uniform(0, kw - 1)}}}));
  }
  return one_group(std::move(t));
}));
QSPEC_REGISTER_VECTOR_FAMILY(fam("tvm.qnn.concatenate", "tvm", 455, [](Rng& r) {
  std::vector<Test> t;
  for (int i = 0; i < 100; ++i) {
    const std::int64_t n = r.uniform(1, 3);
    std::vector<Tensor> in;
    OJ sc = OJ::array(), zp = OJ::array();
    for (std::int64_t k = 0; k < n; ++k) {
      in.push_back(rand_tensor(r, "x" + std::to_string(k), {2, r.uniform(1, 3)}, -128, 127, DType::I8));
      sc.push_back(f32_scale(r));
      zp.push_back(r.uniform(-5, 5));
    }
    t.push_back(make("random", in, OJ{{"input_scales", sc}, {"input_zero_points", zp}, {"output_scale", f32_scale(r)},
                                      {"output_zero_point", r.uniform(-5, 5)}, {"axis", 1}, {"out_dtype", "int8"}}));
  }
  return one_group(std::move(t));
}));
QSPEC_REGISTER_VECTOR_FAMILY(fam("tvm.qnn.add", "tvm", 456, [](Rng& r) {
  std::vector<Test> t;
  for (int i = 0; i < 100; ++i) {
    const Dims s{r.uniform(1, 3), r.uniform(1, 3)};
    t.push_back(make("random", {rand_tensor(r, "lhs", s, -128, 127, DType::I8), rand_tensor(r, "rhs", s, -128, 127, DType::I8)},
                     OJ{{"lhs_scale", f32_scale(r)}, {"lhs_zero_point", r.uniform(-5, 5)}, {"rhs_scale", f32_scale(r)}, {"rhs_zero_point", r.uniform(-5, 5)},
                        {"output_scale", f32_scale(r)}, {"output_zero_point", r.uniform(-5, 5)}, {"out_dtype", "int8"}}));
  }
  t.push_back(make("invalid: shapes do not broadcast", {rand_tensor(r, "lhs", {2}, -1, 1, DType::I8), rand_tensor(r, "rhs", {3}, -1, 1, DType::I8)},
                   OJ{{"lhs_scale", "0x3f800000"}, {"rhs_scale", "0x3f800000"}, {"output_scale", "0x3f800000"}}, true));
  return one_group(std::move(t));
}));

}  // namespace
}  // namespace qspec::vecgen
