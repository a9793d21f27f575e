// Reference-backend registrations of qlinear.max_pool2d under pytorch.onednn and pytorch.qnnpack
// (spec/operators_qlinear_pytorch_pool.md, PyTorch 1.13): no parameters, no clamp (y keeps x's).
#include <array>
#include <string>
#include <vector>

#include "qspec/catalogue/keys.h"
#include "qspec/ref/ops/qlinear_pool_pytorch_max.h"
#include "qspec/refops.h"
#include "qspec/refops/int_arrays.h"
#include "qspec/refops/tensor_args.h"

namespace qspec::refops {
namespace {

namespace ro = qspec::ref::ops;
using Inputs = std::vector<Tensor>;
using Max = cat::qlinear_max_pool2d;

template <std::size_t n>
std::array<std::int64_t, n> fixed(const Attrs& a, const attr::IntArray& key, std::array<std::int64_t, n> d) {
  const auto v = attr::get_or(a, key, std::vector<std::int64_t>(d.begin(), d.end()));
  if (v.size() != n)
    throw ref::ErrorIf("ERROR_IF: attribute " + std::string(key.name) + " needs " + std::to_string(n) + " entries");
  std::array<std::int64_t, n> out{};
  for (std::size_t i = 0; i < n; ++i) out[i] = v[i];
  return out;
}

OpFn max_pool2d_fn(ro::QPoolTorchEngine e) {
  return [e](const Attrs& a, const Inputs& in) {
    const Tensor& x = input(in, Max::in::x);
    if (!attr::has(a, Max::attr::kernel)) throw ref::ErrorIf("ERROR_IF: attribute kernel is required");
    ro::QPoolGeometry g;
    g.kernel = fixed<2>(a, Max::attr::kernel, {1, 1});
    g.strides = fixed<2>(a, Max::attr::strides, {1, 1});
    g.dilations = fixed<2>(a, Max::attr::dilations, {1, 1});
    g.pads = fixed<4>(a, Max::attr::pads, {0, 0, 0, 0});
    return Inputs{to_tensor(Max::out::y, ro::qlinear_max_pool2d_pytorch(to_array(x), g, x.dtype, e), x.dtype)};
  };
}

QSPEC_REGISTER_REF_OP(registration<Max>(Max::conv::pytorch_onednn, max_pool2d_fn(ro::QPoolTorchEngine::Onednn)));
QSPEC_REGISTER_REF_OP(registration<Max>(Max::conv::pytorch_qnnpack, max_pool2d_fn(ro::QPoolTorchEngine::Qnnpack)));

}  // namespace
}  // namespace qspec::refops
