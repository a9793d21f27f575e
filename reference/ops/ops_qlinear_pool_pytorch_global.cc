// Reference-backend registrations of qlinear.global_avg_pool under pytorch.onednn and pytorch.qnnpack
// (spec/operators_qlinear_pytorch_pool.md, PyTorch 1.13): no output parameters (y keeps x's).
#include <vector>

#include "qspec/catalogue/keys.h"
#include "qspec/ref/ops/qlinear_pool_pytorch_global.h"
#include "qspec/refops.h"
#include "qspec/refops/int_arrays.h"
#include "qspec/refops/tensor_args.h"

namespace qspec::refops {
namespace {

namespace ro = qspec::ref::ops;
using ref::Int;
using Inputs = std::vector<Tensor>;
using Gap = cat::qlinear_global_avg_pool;

OpFn global_avg_pool_fn(ro::QPoolTorchEngine e) {
  return [e](const Attrs& a, const Inputs& in) {
    const Tensor& x = input(in, Gap::in::x);
    ro::QPoolParams p;
    p.type = x.dtype;
    p.x_scale = attr::get(a, Gap::attr::x_scale);
    p.x_zero_point = Int(attr::get(a, Gap::attr::x_zero_point));
    return Inputs{to_tensor(Gap::out::y, ro::qlinear_global_avg_pool_pytorch(to_array(x), p, e), x.dtype)};
  };
}

QSPEC_REGISTER_REF_OP(registration<Gap>(Gap::conv::pytorch_onednn, global_avg_pool_fn(ro::QPoolTorchEngine::Onednn)));
QSPEC_REGISTER_REF_OP(registration<Gap>(Gap::conv::pytorch_qnnpack, global_avg_pool_fn(ro::QPoolTorchEngine::Qnnpack)));

}  // namespace
}  // namespace qspec::refops
