// qlinear.add and qlinear.mul through Arm NN's Addition and Multiplication layers on CpuRef
// (QAsymmS8 / QAsymmU8 tensors, each with its own scale and offset; spec/operators_qlinear_armnn.md).
// Arm NN needs both operands at the output's rank: the adapter prepends unit axes, as Arm NN's
// parsers do with a Reshape (the right alignment of NumPy broadcasting).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "network.h"
#include "ops.h"
#include "qspec/catalogue/keys.h"
#include "qspec/core/attr.h"
#include "qspec/thirdparty/tensor_io.h"

namespace qspec::armnn_adapter {
namespace {

using thirdparty::Call;
using thirdparty::Unsupported;

// `s` with unit axes prepended up to `rank` (a rank-0 tensor as one element).
armnn::TensorShape shape_at_rank(const std::vector<std::int64_t>& s, std::size_t rank) {
  std::vector<unsigned> d(rank - s.size(), 1u);
  for (auto v : s) d.push_back(static_cast<unsigned>(v));
  return armnn::TensorShape(static_cast<unsigned>(d.size()), d.data());
}

template <class Op>
void run_elementwise(const Call& call, bool is_add) {
  using A = typename Op::attr;
  const qspec_tensor &a = call.input(Op::in::a), &b = call.input(Op::in::b);
  const auto as = thirdparty::shape_of(a), bs = thirdparty::shape_of(b);
  const std::size_t rank = std::max<std::size_t>({as.size(), bs.size(), 1});
  if (rank > armnn::MaxNumOfTensorDimensions) throw Unsupported("Arm NN tensors have at most 5 dimensions");
  const auto& at = call.attrs;
  // Arm NN's layers have no fused clamp (a separate Activation layer would requantize).
  const std::int64_t lo = thirdparty::dtype_min(a.dtype), hi = thirdparty::dtype_max(a.dtype);
  if (attr::get_or(at, A::y_min, lo) != lo || attr::get_or(at, A::y_max, hi) != hi)
    throw Unsupported("Arm NN's layers have no fused output clamp (y_min / y_max)");
  const armnn::TensorShape sa = shape_at_rank(as, rank), sb = shape_at_rank(bs, rank);
  std::vector<unsigned> yd(rank);
  std::vector<std::int64_t> y_shape;
  for (unsigned i = 0; i < rank; ++i) {
    // Arm NN 20.08 does not refuse these shapes: an ARMNN_ASSERT in ElementwiseBaseLayer::
    // InferOutputShapes aborts the process (Debian's build keeps assertions; errata E-ARMNN-4).
    if (sa[i] != sb[i] && sa[i] != 1 && sb[i] != 1)
      call.refuse(
          "the shapes do not broadcast (Arm NN 20.08 aborts on them in ElementwiseBaseLayer::"
          "InferOutputShapes: errata E-ARMNN-4)");
    yd[i] = sa[i] == 1 ? sb[i] : sa[i];
    y_shape.push_back(yd[i]);
  }
  y_shape.erase(y_shape.begin(), y_shape.begin() + static_cast<std::ptrdiff_t>(rank - std::max(as.size(), bs.size())));
  for (auto key : {A::a_scale, A::b_scale, A::y_scale})
    if (!(f32(attr::get(at, key)) > 0.0f) || !std::isfinite(f32(attr::get(at, key))))
      throw Unsupported("Arm NN asserts on a zero scale (armnn::Quantize: scale != 0.f); scales finite and positive");
  const armnn::TensorInfo ia(sa, data_type(a.dtype), f32(attr::get(at, A::a_scale)),
                             static_cast<std::int32_t>(attr::get(at, A::a_zero_point)));
  const armnn::TensorInfo ib(sb, data_type(b.dtype), f32(attr::get(at, A::b_scale)),
                             static_cast<std::int32_t>(attr::get(at, A::b_zero_point)));
  const armnn::TensorInfo iy(armnn::TensorShape(static_cast<unsigned>(rank), yd.data()), data_type(a.dtype),
                             f32(attr::get(at, A::y_scale)), static_cast<std::int32_t>(attr::get(at, A::y_zero_point)));
  std::string key = call.op + "|" + at.dump() + "|" + std::to_string(a.dtype) + "," + std::to_string(b.dtype) + "|";
  for (auto v : as) key += std::to_string(v) + ",";
  key += "|";
  for (auto v : bs) key += std::to_string(v) + ",";
  const LoadedNetwork* n = nullptr;
  try {
    n = &network(key, {ia, ib}, iy, [is_add](armnn::INetwork& net) {
      return is_add ? net.AddAdditionLayer("add") : net.AddMultiplicationLayer("mul");
    });
  } catch (const std::exception& e) {
    call.refuse(e.what());
  }
  std::vector<std::uint8_t> ab, bb;
  for (auto v : thirdparty::read_ints(a)) ab.push_back(static_cast<std::uint8_t>(v));
  for (auto v : thirdparty::read_ints(b)) bb.push_back(static_cast<std::uint8_t>(v));
  std::vector<std::uint8_t> yb(n->output_bytes);
  run(*n, {ab.data(), bb.data()}, yb.data());
  std::vector<std::int64_t> y;
  for (auto v : yb) y.push_back(a.dtype == QSPEC_DTYPE_INT8 ? static_cast<std::int8_t>(v) : v);
  thirdparty::write_ints(call.output(Op::out::y), y);
}

}  // namespace

void run_add(const Call& call) { run_elementwise<cat::qlinear_add>(call, true); }
void run_mul(const Call& call) { run_elementwise<cat::qlinear_mul>(call, false); }

}  // namespace qspec::armnn_adapter
