// Reference-backend registration of MRT's bit-width inference: (op infer_prec, convention mrt).
#include <algorithm>
#include <string>
#include <vector>

#include "qspec/catalogue/keys.h"
#include "qspec/core/json_values.h"
#include "qspec/ref/ops/bitwidth.h"
#include "qspec/refops.h"

namespace qspec::refops {
namespace {

namespace ro = qspec::ref::ops;
using K = cat::infer_prec;
using F = K::attr::formula_is;

ro::PrecFormula formula_named(std::string_view f) {
  if (f == F::conv2d_sym) return ro::PrecFormula::ConvSym;
  if (f == F::conv2d_zpx) return ro::PrecFormula::ConvZpX;
  if (f == F::conv2d_zpw) return ro::PrecFormula::ConvZpW;
  if (f == F::conv2d_zpxw) return ro::PrecFormula::ConvZpXW;
  if (f == F::fc_sym) return ro::PrecFormula::FcSym;
  if (f == F::fc_zpx) return ro::PrecFormula::FcZpX;
  if (f == F::fc_zpw) return ro::PrecFormula::FcZpW;
  if (f == F::fc_zpxw) return ro::PrecFormula::FcZpXW;
  if (f == F::quantize_scale) return ro::PrecFormula::QuantizeScale;
  return ro::PrecFormula::SamePrec;  // the Enum key admits no other value
}

// A value no int holds is outside every precision range: the formula rejects it.
int precision(std::int64_t v) { return static_cast<int>(std::clamp<std::int64_t>(v, -1, 1000)); }

// Attributes -> PrecParams; the weight sums come from the input tensor `wsums`.
ro::PrecParams params(const Attrs& a, const std::vector<Tensor>& in) {
  using A = K::attr;
  ro::PrecParams p;
  p.k = ref::Int(attr::get_or(a, A::k, 1));
  p.xprec = precision(attr::get_or(a, A::xprec, 8));
  p.wprec = precision(attr::get_or(a, A::wprec, 8));
  p.zx = ref::Int(attr::get_or(a, A::zx, 0));
  p.zw = ref::Int(attr::get_or(a, A::zw, 0));
  p.x_pad = ref::Int(attr::get_or(a, A::x_pad, 0));
  p.oprec = precision(attr::get_or(a, A::oprec, 8));
  for (auto v : attr::get_or(a, A::in_precs, std::vector<std::int64_t>{})) p.in_precs.push_back(precision(v));
  p.concat = attr::get_or(a, A::concat, false);
  if (in.size() > 1) throw ref::ErrorIf("ERROR_IF: infer_prec takes one input (wsums)");
  if (!in.empty())
    for (auto v : in[0].data) p.wsums.emplace_back(v);
  return p;
}

std::vector<Tensor> infer_prec(const Attrs& a, const std::vector<Tensor>& in) {
  const int p = ro::infer_prec(formula_named(attr::get(a, K::attr::formula)), params(a, in));
  return {Tensor{std::string(K::out::prec), DType::I32, {1}, {p}}};
}
QSPEC_REGISTER_REF_OP(registration<K>(K::conv::mrt, infer_prec));

}  // namespace
}  // namespace qspec::refops
