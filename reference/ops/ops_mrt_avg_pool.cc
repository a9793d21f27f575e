// Reference-backend registration of MRT's avg Pooling rewrite (op avg_pool2d, convention mrt).
#include "qspec/core/json_values.h"
#include "qspec/ref/ops/mrt_avg_pool.h"
#include "qspec/refops.h"

namespace qspec::refops {
namespace {

namespace ro = qspec::ref::ops;

ro::Pair pair_attr(const Attrs& a, const char* key, ro::Pair d) {
  if (!a.contains(key)) return d;
  const auto& v = a.at(key);
  if (!v.is_array() || v.size() != 2)
    throw ref::ErrorIf(std::string("ERROR_IF: attribute ") + key + " needs two entries");
  return {json_to_int(v[0]), json_to_int(v[1])};
}

QSPEC_REGISTER_REF_OP(
    {.op = "avg_pool2d",
     .convention = "mrt",
     .fn = [](const Attrs& a, const std::vector<Tensor>& in) -> std::vector<Tensor> {
       if (in.size() != 1) throw ref::ErrorIf("ERROR_IF: avg_pool2d takes one input");
       ro::Pool2dAttrs p;
       p.kernel = pair_attr(a, "kernel", {1, 1});
       p.stride = pair_attr(a, "strides", {1, 1});
       p.padding = pair_attr(a, "padding", {0, 0});
       const int prec = a.contains("weight_prec") ? static_cast<int>(attr_int(a, "weight_prec")) : 8;
       ro::IntArray x(in[0].shape);
       for (std::size_t i = 0; i < in[0].data.size(); ++i) x.data[i] = ref::Int(in[0].data[i]);
       const ro::IntArray y = ro::avg_pool2d_expand(x, p, prec);
       Tensor t;
       t.name = "y";
       t.shape = y.shape;
       bool fits32 = true;
       for (const auto& v : y.data) {
         fits32 = fits32 && v >= INT32_MIN && v <= INT32_MAX;
         t.data.push_back(static_cast<std::int64_t>(v));
       }
       t.dtype = fits32 ? DType::I32 : DType::I64;
       return {t};
     }});

}  // namespace
}  // namespace qspec::refops
