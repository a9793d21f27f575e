// Vector family of MRT's bit-width inference (op infer_prec, convention mrt): every formula at its
// corners, the document's counterexamples, the 32-bit boundary and the ERROR_IFs (precision above
// 8, result above 32 bits). Expected outputs come from the reference.
#include <string>

#include "qspec/catalogue/keys.h"
#include "qspec/vecgen.h"

namespace qspec::vecgen {
namespace {

using OJ = nlohmann::ordered_json;
using K = cat::infer_prec;
using A = K::attr;

Test make(std::string comment, std::vector<std::int64_t> wsums, OJ attrs, bool invalid = false) {
  Test t;
  t.comment = std::move(comment);
  t.inputs = {scalar_vector(std::string(K::in::wsums), DType::I64, std::move(wsums))};
  t.attributes = std::move(attrs);
  t.invalid = invalid;
  return t;
}

// A Convolution / FullyConnected problem.
OJ conv_fc(std::string_view f, std::int64_t k, std::int64_t x, std::int64_t w, std::int64_t zx = 0,
           std::int64_t zw = 0) {
  OJ a = OJ::object();
  attr::set(a, A::formula, f);
  attr::set(a, A::k, k);
  attr::set(a, A::xprec, x);
  attr::set(a, A::wprec, w);
  attr::set(a, A::zx, zx);
  attr::set(a, A::zw, zw);
  return a;
}

// A quantize_scale (add / add_n / concat) or same_prec problem on the given input precisions.
OJ on_inputs(std::string_view f, const std::vector<std::int64_t>& precs) {
  OJ a = OJ::object();
  attr::set(a, A::formula, f);
  attr::set(a, A::in_precs, precs);
  return a;
}
OJ concat_of(const std::vector<std::int64_t>& precs, bool concat) {
  OJ a = on_inputs(A::formula_is::quantize_scale, precs);
  attr::set(a, A::concat, concat);
  return a;
}

std::vector<Group> generate(Rng& r) {
  std::vector<Test> t;
  using F = A::formula_is;
  const std::string_view formulas[] = {F::conv2d_sym, F::conv2d_zpx, F::conv2d_zpw, F::conv2d_zpxw,
                                       F::fc_sym,     F::fc_zpx,     F::fc_zpw,     F::fc_zpxw};
  // Corners of every formula: int8 and the smallest precisions, K = 1 and a 3x3x64 window.
  for (std::string_view f : formulas)
    for (std::int64_t k : {1, 576})
      for (auto [x, w] : {std::pair<std::int64_t, std::int64_t>{1, 1}, {8, 8}, {4, 3}}) {
        OJ a = conv_fc(f, k, x, w, 128, -3);
        attr::set(a, A::oprec, 16);
        attr::set(a, A::x_pad, -128);
        t.push_back(make(std::string(f) + " corner", {k * ((std::int64_t{1} << (w - 1)) - 1), -k}, a));
      }
  // The document's counterexamples (spec/errata.md E-BITS-1..4): the adopted value.
  t.push_back(
      make("E-BITS-4: Convolution 4, K=7, 3/4 bits, zx=16, zw=36", {105}, conv_fc(F::conv2d_zpxw, 7, 3, 4, 16, 36)));
  t.push_back(make("E-BITS-2: FullyConnected 2, K=1, zx=31, sum W = 1", {1}, conv_fc(F::fc_zpx, 1, 1, 2, 31)));
  t.push_back(
      make("E-BITS-3: FullyConnected 4, signed max(C2) hides a row", {1, 3}, conv_fc(F::fc_zpxw, 3, 1, 1, -20, 1)));
  t.push_back(make("E-BITS-1: add_n of three int8", {}, on_inputs(F::quantize_scale, {8, 8, 8})));
  t.push_back(make("two-input add", {}, on_inputs(F::quantize_scale, {8, 16})));
  t.push_back(make("concat", {}, concat_of({8, 16, 3}, true)));
  t.push_back(make("pass-through op", {}, on_inputs(F::same_prec, {8})));
  // The 32-bit register: the largest accepted and the smallest rejected problem.
  t.push_back(make("int8, K = 65535: P = 32", {}, conv_fc(F::fc_sym, 65535, 8, 8)));
  t.push_back(make("int8, K = 65536: P = 33", {}, conv_fc(F::fc_sym, 65536, 8, 8), true));
  t.push_back(make("Convolution 4, zw = 2^20: P = 32", {}, conv_fc(F::conv2d_zpxw, 1, 8, 8, 1, 1 << 20)));
  t.push_back(make("Convolution 4, zw = 2^21: P = 33", {}, conv_fc(F::conv2d_zpxw, 1, 8, 8, 1, 1 << 21), true));
  t.push_back(make("add_n of 3 inputs of precision 31: P = 33", {}, on_inputs(F::quantize_scale, {31, 31, 31}), true));
  OJ big_c = conv_fc(F::fc_zpx, 1, 8, 8, 1 << 20);
  t.push_back(make("FullyConnected 2, |C| = 2^40: P = 43", {std::int64_t{1} << 20}, big_c, true));
  // Other ERROR_IFs: CVM's operand precision <= 8, K >= 1, oprec range.
  t.push_back(make("xprec 9 (MRT V2's p + 1, E-MRT-12)", {}, conv_fc(F::conv2d_sym, 9, 9, 8), true));
  t.push_back(make("wprec 0", {}, conv_fc(F::fc_sym, 1, 8, 0), true));
  t.push_back(make("K = 0", {}, conv_fc(F::fc_sym, 0, 8, 8), true));
  OJ op0 = conv_fc(F::conv2d_zpw, 1, 8, 8, 0, 3);
  attr::set(op0, A::oprec, 0);
  t.push_back(make("oprec 0", {}, op0, true));
  t.push_back(make("quantize_scale without inputs", {}, on_inputs(F::quantize_scale, {}), true));
  // Random problems in the domain.
  for (int i = 0; i < 80; ++i) {
    const std::string_view f = formulas[r.uniform(0, 7)];
    const std::int64_t x = r.uniform(1, 8), w = r.uniform(1, 8), k = r.uniform(1, 5000);
    // One draw per statement, in the order GCC evaluated conv_fc's arguments (right to left).
    const std::int64_t zw = r.uniform(-300, 300);
    const std::int64_t zx = r.uniform(-300, 300);
    OJ a = conv_fc(f, k, x, w, zx, zw);
    attr::set(a, A::oprec, r.uniform(1, 24));
    attr::set(a, A::x_pad, r.uniform(-300, 300));
    const std::int64_t m = (std::int64_t{1} << (w - 1)) - 1;
    t.push_back(make("random", {r.uniform(-k * m, k * m), r.uniform(-k * m, k * m)}, a));
  }
  for (int i = 0; i < 20; ++i) {
    std::vector<std::int64_t> p;
    const std::int64_t n = r.uniform(1, 9);
    for (std::int64_t j = 0; j < n; ++j) p.push_back(r.uniform(1, 24));
    t.push_back(make("random quantize_scale", {}, concat_of(p, r.coin())));
  }
  return {Group{OJ::object(), std::move(t)}};
}

QSPEC_REGISTER_VECTOR_FAMILY(family<cat::infer_prec>(cat::infer_prec::conv::mrt, {}, 901, generate));

}  // namespace
}  // namespace qspec::vecgen
