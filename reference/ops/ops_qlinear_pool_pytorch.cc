// Reference-backend registrations of qlinear.avg_pool2d under pytorch.onednn and pytorch.qnnpack
// (spec/operators_qlinear_pool.md, PyTorch 1.13): no output parameters (y keeps x's).
#include <array>
#include <string>
#include <vector>

#include "qspec/catalogue/keys.h"
#include "qspec/core/json_values.h"
#include "qspec/ref/ops/qlinear_pool_pytorch.h"
#include "qspec/refops.h"
#include "qspec/refops/int_arrays.h"
#include "qspec/refops/tensor_args.h"

namespace qspec::refops {
namespace {

namespace ro = qspec::ref::ops;
using ref::Int;
using Inputs = std::vector<Tensor>;
using Avg = cat::qlinear_avg_pool2d;

template <std::size_t n>
std::array<std::int64_t, n> fixed(const Attrs& a, const attr::IntArray& key, std::array<std::int64_t, n> d) {
  const auto v = attr::get_or(a, key, std::vector<std::int64_t>(d.begin(), d.end()));
  if (v.size() != n)
    throw ref::ErrorIf("ERROR_IF: attribute " + std::string(key.name) + " needs " + std::to_string(n) + " entries");
  std::array<std::int64_t, n> out{};
  for (std::size_t i = 0; i < n; ++i) out[i] = v[i];
  return out;
}

OpFn avg_pool2d_fn(ro::QPoolTorchEngine e) {
  return [e](const Attrs& a, const Inputs& in) {
    const Tensor& x = input(in, Avg::in::x);
    if (!attr::has(a, Avg::attr::kernel)) throw ref::ErrorIf("ERROR_IF: attribute kernel is required");
    ro::QPoolGeometry g;
    g.kernel = fixed<2>(a, Avg::attr::kernel, {1, 1});
    g.strides = fixed<2>(a, Avg::attr::strides, {1, 1});
    g.pads = fixed<4>(a, Avg::attr::pads, {0, 0, 0, 0});
    ro::QPoolParams p;
    p.type = x.dtype;
    p.x_scale = attr::get(a, Avg::attr::x_scale);
    p.x_zero_point = Int(attr::get(a, Avg::attr::x_zero_point));
    const bool include = attr::get_or(a, Avg::attr::count_include_pad, false);
    return Inputs{to_tensor(Avg::out::y, ro::qlinear_avg_pool2d_pytorch(to_array(x), g, include, p, e), x.dtype)};
  };
}

QSPEC_REGISTER_REF_OP(registration<Avg>(Avg::conv::pytorch_onednn, avg_pool2d_fn(ro::QPoolTorchEngine::Onednn)));
QSPEC_REGISTER_REF_OP(registration<Avg>(Avg::conv::pytorch_qnnpack, avg_pool2d_fn(ro::QPoolTorchEngine::Qnnpack)));

}  // namespace
}  // namespace qspec::refops
