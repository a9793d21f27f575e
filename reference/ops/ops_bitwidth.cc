// Reference-backend registration of MRT's bit-width inference: (op infer_prec, convention mrt).
#include <algorithm>
#include <stdexcept>
#include <string>

#include "qspec/core/json_values.h"
#include "qspec/ref/ops/bitwidth.h"
#include "qspec/refops.h"

namespace qspec::refops {
namespace {

namespace ro = qspec::ref::ops;

ro::PrecFormula formula_named(const std::string& f) {
  if (f == "conv2d_sym") return ro::PrecFormula::ConvSym;
  if (f == "conv2d_zpx") return ro::PrecFormula::ConvZpX;
  if (f == "conv2d_zpw") return ro::PrecFormula::ConvZpW;
  if (f == "conv2d_zpxw") return ro::PrecFormula::ConvZpXW;
  if (f == "fc_sym") return ro::PrecFormula::FcSym;
  if (f == "fc_zpx") return ro::PrecFormula::FcZpX;
  if (f == "fc_zpw") return ro::PrecFormula::FcZpW;
  if (f == "fc_zpxw") return ro::PrecFormula::FcZpXW;
  if (f == "quantize_scale") return ro::PrecFormula::QuantizeScale;
  if (f == "same_prec") return ro::PrecFormula::SamePrec;
  throw std::invalid_argument("infer_prec: unknown formula " + f);
}

std::int64_t int_or(const Attrs& a, const char* key, std::int64_t d) { return a.contains(key) ? attr_int(a, key) : d; }

// Attributes -> PrecParams; the weight sums come from the input tensor `wsums`.
ro::PrecParams params(const Attrs& a, const std::vector<Tensor>& in) {
  ro::PrecParams p;
  p.k = ref::Int(int_or(a, "k", 1));
  const auto prec = [&](const char* key) {
    const std::int64_t v = int_or(a, key, 8);
    // A value no int holds is outside every precision range: the formula rejects it.
    return static_cast<int>(std::clamp<std::int64_t>(v, -1, 1000));
  };
  p.xprec = prec("xprec");
  p.wprec = prec("wprec");
  p.zx = ref::Int(int_or(a, "zx", 0));
  p.zw = ref::Int(int_or(a, "zw", 0));
  p.x_pad = ref::Int(int_or(a, "x_pad", 0));
  p.oprec = prec("oprec");
  if (a.contains("in_precs"))
    for (const auto& v : a.at("in_precs"))
      p.in_precs.push_back(static_cast<int>(std::clamp<std::int64_t>(json_to_int(v), -1, 1000)));
  p.concat = a.contains("concat") && a.at("concat").get<bool>();
  if (in.size() > 1) throw ref::ErrorIf("ERROR_IF: infer_prec takes one input (wsums)");
  if (!in.empty())
    for (auto v : in[0].data) p.wsums.emplace_back(v);
  return p;
}

QSPEC_REGISTER_REF_OP(
    {.op = "infer_prec",
     .convention = "mrt",
     .fn = [](const Attrs& a, const std::vector<Tensor>& in) -> std::vector<Tensor> {
       const int p = ro::infer_prec(formula_named(attr_str(a, "formula")), params(a, in));
       Tensor t;
       t.name = "prec";
       t.dtype = DType::I32;
       t.shape = {1};
       t.data = {p};
       return {t};
     }});

}  // namespace
}  // namespace qspec::refops
