// Reference-backend registrations of Glow's quantized operators (spec/operators_glow.md), convention glow.
//
// Each tensor's quantization parameters are the attributes <tensor>_scale (float32) and
// <tensor>_offset (Glow's offset = zero point) for the tensors input, weights, bias and output,
// read through the catalogue's typed keys (qspec::cat::glow_*; spec/catalogue/glow.*.json). The
// element type of x (int8 or int16) and of bias (the same, or int32) select Glow's kernel
// instantiation. The operators that keep their input's parameters return, besides the data, the
// parameters Glow gives the result (outputs scale f32 [1] and offset i32 [1]).
#include <array>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "qspec/catalogue/keys.h"
#include "qspec/core/json_values.h"
#include "qspec/ref/ops/glow_elementwise.h"
#include "qspec/ref/ops/glow_ops.h"
#include "qspec/refops.h"
#include "qspec/refops/int_arrays.h"
#include "qspec/refops/tensor_args.h"

namespace qspec::refops {
namespace {

namespace ro = qspec::ref::ops;
using ref::GlowQParams;
using ref::Int;
using ro::IntArray;

ro::NdArray<std::int64_t> to_i64(const Tensor& t) { return ro::NdArray<std::int64_t>(t.shape, t.data); }

ref::DType ref_dtype(DType t) { return static_cast<ref::DType>(static_cast<int>(t)); }

// One tensor's (scale, offset) attributes.
GlowQParams qparams(const Attrs& a, const attr::F32& scale, const attr::Int& offset) {
  return {attr::get(a, scale), Int(attr::get(a, offset))};
}
// An attribute of two entries, `d` when it is absent (ERROR_IF another count).
ro::Pair pair(const Attrs& a, const attr::IntArray& key, ro::Pair d) {
  const auto v = attr::get_or(a, key, std::vector<std::int64_t>{d[0], d[1]});
  if (v.size() != 2) throw ref::ErrorIf("ERROR_IF: attribute " + std::string(key.name) + " needs two entries");
  return {v[0], v[1]};
}
// The pads (top, left, bottom, right), 0 when absent (ERROR_IF another count).
std::array<std::int64_t, 4> pads(const Attrs& a, const attr::IntArray& key) {
  const auto v = attr::get_or(a, key, std::vector<std::int64_t>{0, 0, 0, 0});
  if (v.size() != 4) throw ref::ErrorIf("ERROR_IF: attribute pads needs four entries (top, left, bottom, right)");
  return {v[0], v[1], v[2], v[3]};
}

// The parameters and element types of FullyConnected / Convolution / RowwiseQuantizedFullyConnected
// (the last has per-row weight parameters as inputs, not attributes).
template <class Op>
ro::GlowLinearParams linear_params(const Attrs& a, const Tensor& x, const Tensor& w, const Tensor& bias) {
  using A = typename Op::attr;
  ro::GlowLinearParams p;
  p.input = qparams(a, A::input_scale, A::input_offset);
  if constexpr (requires { A::weights_scale; }) p.weights = qparams(a, A::weights_scale, A::weights_offset);
  p.bias = qparams(a, A::bias_scale, A::bias_offset);
  p.output = qparams(a, A::output_scale, A::output_offset);
  if (w.dtype != x.dtype) throw ref::ErrorIf("ERROR_IF: input and weights must have one element type");
  p.elem = ref_dtype(x.dtype);
  p.bias_type = ref_dtype(bias.dtype);
  ro::glow_check_linear_types(p.elem, p.bias_type);
  return p;
}

std::vector<Int> int_vector(const Tensor& t) {
  std::vector<Int> v;
  for (auto e : t.data) v.emplace_back(e);
  return v;
}
std::vector<std::uint32_t> f32_vector(const Tensor& t, std::string_view what) {
  if (t.dtype != DType::F32) throw ref::ErrorIf("ERROR_IF: " + std::string(what) + " must be float32");
  std::vector<std::uint32_t> v;
  for (auto e : t.data) v.push_back(static_cast<std::uint32_t>(e));
  return v;
}
void require_rank1(const Tensor& t, std::string_view what) {
  if (t.shape.size() != 1) throw ref::ErrorIf("ERROR_IF: " + std::string(what) + " must be rank 1");
}

// The parameters Glow gives the result of a selection: the input's (glow.op.keeps_input_qparams).
template <class Op>
GlowQParams kept_qparams(const Attrs& a) {
  using A = typename Op::attr;
  return ro::glow_keeps_input_qparams(qparams(a, A::input_scale, A::input_offset),
                                      qparams(a, A::output_scale, A::output_offset));
}
template <class Op>
std::vector<Tensor> with_qparams(std::vector<Tensor> outs, const Attrs& a) {
  const GlowQParams p = kept_qparams<Op>(a);
  outs.push_back(Tensor{std::string(Op::out::scale), DType::F32, {1}, {static_cast<std::int64_t>(p.scale)}});
  outs.push_back(Tensor{std::string(Op::out::offset), DType::I32, {1}, {static_cast<std::int64_t>(p.offset)}});
  return outs;
}
template <class Op>
const Tensor& int8_input(const std::vector<Tensor>& in) {
  const Tensor& x = input(in, Op::in::x);
  if (x.dtype != DType::I8) throw ref::ErrorIf("ERROR_IF: " + std::string(Op::op) + " input must be int8");
  return x;
}

// A registration of Op's convention (glow, the Interpreter, unless stated).
template <class Op>
Registration glow_op(OpFn fn, std::string_view convention = Op::conv::glow) {
  return {.op = std::string(Op::op), .convention = std::string(convention), .fn = std::move(fn)};
}
using Inputs = std::vector<Tensor>;

QSPEC_REGISTER_REF_OP(glow_op<cat::glow_fully_connected>([](const Attrs& a, const Inputs& in) {
  using Op = cat::glow_fully_connected;
  const Tensor &x = input(in, Op::in::x), &w = input(in, Op::in::w), &b = input(in, Op::in::bias);
  const auto p = linear_params<Op>(a, x, w, b);
  return Inputs{to_tensor(Op::out::y, ro::glow_fully_connected(to_array(x), to_array(w), to_array(b), p), x.dtype)};
}));

QSPEC_REGISTER_REF_OP(glow_op<cat::glow_convolution>([](const Attrs& a, const Inputs& in) {
  using Op = cat::glow_convolution;
  const Tensor &x = input(in, Op::in::x), &w = input(in, Op::in::w), &b = input(in, Op::in::bias);
  const auto p = linear_params<Op>(a, x, w, b);
  ro::GlowConvAttrs c;
  c.stride = pair(a, Op::attr::strides, {1, 1});
  c.pads = pads(a, Op::attr::pads);
  c.dilation = pair(a, Op::attr::dilation, {1, 1});
  c.group = attr::get_or(a, Op::attr::group, std::int64_t{1});
  return Inputs{to_tensor(Op::out::y, ro::glow_convolution(to_array(x), to_array(w), to_array(b), c, p), x.dtype)};
}));

QSPEC_REGISTER_REF_OP(glow_op<cat::glow_rowwise_fully_connected>([](const Attrs& a, const Inputs& in) {
  using Op = cat::glow_rowwise_fully_connected;
  const Tensor &x = input(in, Op::in::x), &w = input(in, Op::in::w), &b = input(in, Op::in::bias);
  const Tensor &scales = input(in, Op::in::scales), &offsets = input(in, Op::in::offsets);
  const auto p = linear_params<Op>(a, x, w, b);
  require_rank1(scales, Op::in::scales);
  require_rank1(offsets, Op::in::offsets);
  return Inputs{to_tensor(Op::out::y,
                          ro::glow_rowwise_fully_connected(to_array(x), to_array(w), f32_vector(scales, Op::in::scales),
                                                           int_vector(offsets), to_array(b), p),
                          x.dtype)};
}));

QSPEC_REGISTER_REF_OP(glow_op<cat::glow_fused_rowwise_sparse_lengths_weighted_sum>([](const Attrs&, const Inputs& in) {
  using Op = cat::glow_fused_rowwise_sparse_lengths_weighted_sum;
  const Tensor &data = input(in, Op::in::data), &weights = input(in, Op::in::weights);
  const Tensor &indices = input(in, Op::in::indices), &lengths = input(in, Op::in::lengths);
  if (data.dtype != DType::U8) throw ref::ErrorIf("ERROR_IF: data must be uint8 (UInt8FusedQTy)");
  if (indices.dtype != DType::I32 && indices.dtype != DType::I64)
    throw ref::ErrorIf("ERROR_IF: indices must be int32 or int64");
  if (lengths.dtype != DType::I32) throw ref::ErrorIf("ERROR_IF: lengths must be int32");
  require_rank1(weights, Op::in::weights);
  require_rank1(indices, Op::in::indices);
  require_rank1(lengths, Op::in::lengths);
  const auto y = ro::glow_fused_rowwise_sparse_lengths_weighted_sum(
      to_array(data), f32_vector(weights, Op::in::weights), int_vector(indices), int_vector(lengths));
  Tensor t{std::string(Op::out::y), DType::F32, y.shape, {}};
  for (auto v : y.data) t.data.push_back(static_cast<std::int64_t>(v));
  return Inputs{t};
}));

// RescaleQuantized: Glow's Interpreter (convention glow) or CPU backend (glow.cpu).
OpFn rescale(ro::GlowBackend backend) {
  return [backend](const Attrs& a, const Inputs& in) {
    using Op = cat::glow_rescale;
    using A = Op::attr;
    const IntArray y = ro::glow_rescale(to_array(int8_input<Op>(in)), qparams(a, A::input_scale, A::input_offset),
                                        qparams(a, A::output_scale, A::output_offset), backend);
    return Inputs{to_tensor(Op::out::y, y, DType::I8)};
  };
}
QSPEC_REGISTER_REF_OP(glow_op<cat::glow_rescale>(rescale(ro::GlowBackend::Interpreter)));
QSPEC_REGISTER_REF_OP(glow_op<cat::glow_rescale>(rescale(ro::GlowBackend::Cpu), cat::glow_rescale::conv::glow_cpu));

QSPEC_REGISTER_REF_OP(glow_op<cat::glow_reshape>([](const Attrs& a, const Inputs& in) {
  using Op = cat::glow_reshape;
  const Tensor& x = int8_input<Op>(in);
  return with_qparams<Op>(
      {to_tensor(Op::out::y, ro::glow_reshape(to_array(x), attr::get(a, Op::attr::shape)), DType::I8)}, a);
}));

QSPEC_REGISTER_REF_OP(glow_op<cat::glow_slice>([](const Attrs& a, const Inputs& in) {
  using Op = cat::glow_slice;
  const Tensor& x = int8_input<Op>(in);
  const auto start = attr::get(a, Op::attr::start), size = attr::get(a, Op::attr::size);
  return with_qparams<Op>({to_tensor(Op::out::y, ro::glow_slice(to_array(x), start, size), DType::I8)}, a);
}));

QSPEC_REGISTER_REF_OP(glow_op<cat::glow_gather>([](const Attrs& a, const Inputs& in) {
  using Op = cat::glow_gather;
  const Tensor& x = int8_input<Op>(in);
  const Tensor& idx = input(in, Op::in::indices);
  if (idx.dtype != DType::I32 && idx.dtype != DType::I64)
    throw ref::ErrorIf("ERROR_IF: indices must be int32 or int64");
  const std::int64_t b = attr::get_or(a, Op::attr::batch_dims, std::int64_t{0});
  return with_qparams<Op>({to_tensor(Op::out::y, ro::glow_gather(to_array(x), to_i64(idx), b), DType::I8)}, a);
}));

QSPEC_REGISTER_REF_OP(glow_op<cat::glow_topk>([](const Attrs& a, const Inputs& in) {
  using Op = cat::glow_topk;
  const Tensor& x = int8_input<Op>(in);
  const auto [values, indices] = ro::glow_topk(to_array(x), attr::get(a, Op::attr::k));
  Tensor it{std::string(Op::out::indices), DType::I64, indices.shape, indices.data};
  return with_qparams<Op>({to_tensor(Op::out::values, values, DType::I8), it}, a);
}));

QSPEC_REGISTER_REF_OP(glow_op<cat::glow_max_pool>([](const Attrs& a, const Inputs& in) {
  using Op = cat::glow_max_pool;
  const Tensor& x = int8_input<Op>(in);
  ro::GlowPoolAttrs p;
  p.kernel = pair(a, Op::attr::kernels, {1, 1});
  p.stride = pair(a, Op::attr::strides, {1, 1});
  p.pads = pads(a, Op::attr::pads);
  const GlowQParams q = kept_qparams<Op>(a);
  return with_qparams<Op>({to_tensor(Op::out::y, ro::glow_max_pool(to_array(x), p, q.offset), DType::I8)}, a);
}));

// The element-wise int8 operators, average pooling and the non-fused row-wise SLWS.
template <class Op>
IntArray int8_array(const std::vector<Tensor>& in, std::string_view name) {
  const Tensor& t = input(in, name);
  if (t.dtype != DType::I8)
    throw ref::ErrorIf("ERROR_IF: " + std::string(Op::op) + " input " + std::string(name) + " must be int8");
  return to_array(t);
}
template <class Op>
OpFn binary(IntArray (*f)(const IntArray&, const GlowQParams&, const IntArray&, const GlowQParams&,
                          const GlowQParams&)) {
  return [f](const Attrs& a, const Inputs& in) {
    using A = typename Op::attr;
    return Inputs{to_tensor(
        Op::out::y,
        f(int8_array<Op>(in, Op::in::lhs), qparams(a, A::lhs_scale, A::lhs_offset), int8_array<Op>(in, Op::in::rhs),
          qparams(a, A::rhs_scale, A::rhs_offset), qparams(a, A::output_scale, A::output_offset)),
        DType::I8)};
  };
}
QSPEC_REGISTER_REF_OP(glow_op<cat::glow_add>(binary<cat::glow_add>(ro::glow_add)));
QSPEC_REGISTER_REF_OP(glow_op<cat::glow_max>(binary<cat::glow_max>(ro::glow_max)));

QSPEC_REGISTER_REF_OP(glow_op<cat::glow_relu>([](const Attrs& a, const Inputs& in) {
  using Op = cat::glow_relu;
  using A = Op::attr;
  return Inputs{to_tensor(Op::out::y,
                          ro::glow_relu(to_array(int8_input<Op>(in)), qparams(a, A::input_scale, A::input_offset),
                                        qparams(a, A::output_scale, A::output_offset)),
                          DType::I8)};
}));

QSPEC_REGISTER_REF_OP(glow_op<cat::glow_avg_pool>([](const Attrs& a, const Inputs& in) {
  using Op = cat::glow_avg_pool;
  using A = Op::attr;
  ro::GlowPoolAttrs p;
  p.kernel = pair(a, A::kernels, {1, 1});
  p.stride = pair(a, A::strides, {1, 1});
  p.pads = pads(a, A::pads);
  return Inputs{to_tensor(
      Op::out::y,
      ro::glow_avg_pool(to_array(int8_input<Op>(in)), qparams(a, A::input_scale, A::input_offset),
                        qparams(a, A::output_scale, A::output_offset), p, attr::get_or(a, A::count_include_pads, true)),
      DType::I8)};
}));

QSPEC_REGISTER_REF_OP(glow_op<cat::glow_rowwise_sparse_lengths_weighted_sum>([](const Attrs&, const Inputs& in) {
  using Op = cat::glow_rowwise_sparse_lengths_weighted_sum;
  const Tensor &data = input(in, Op::in::data), &scales = input(in, Op::in::scales);
  const Tensor &offsets = input(in, Op::in::offsets), &weights = input(in, Op::in::weights);
  const Tensor &indices = input(in, Op::in::indices), &lengths = input(in, Op::in::lengths);
  if (data.dtype != DType::U8) throw ref::ErrorIf("ERROR_IF: data must be uint8");
  if (indices.dtype != DType::I32 && indices.dtype != DType::I64)
    throw ref::ErrorIf("ERROR_IF: indices must be int32 or int64");
  if (lengths.dtype != DType::I32) throw ref::ErrorIf("ERROR_IF: lengths must be int32");
  for (const Tensor* t : {&scales, &offsets, &weights, &indices, &lengths}) require_rank1(*t, t->name);
  const auto y = ro::glow_rowwise_sparse_lengths_weighted_sum(
      to_array(data), f32_vector(scales, Op::in::scales), f32_vector(offsets, Op::in::offsets),
      f32_vector(weights, Op::in::weights), int_vector(indices), int_vector(lengths));
  Tensor t{std::string(Op::out::y), DType::F32, y.shape, {}};
  for (auto v : y.data) t.data.push_back(static_cast<std::int64_t>(v));
  return Inputs{t};
}));

}  // namespace
}  // namespace qspec::refops
