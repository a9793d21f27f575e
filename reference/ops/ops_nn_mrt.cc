// Reference-backend registrations of the operator clauses (MRT ops, expansions, granularity,
// gemmlowp matmul, TVM QNN ops): JSON attributes + tensors -> the exact reference ops.
//
// Tensors and attributes are the catalogue's (spec/catalogue/<op>.json, read through the typed
// keys of qspec/catalogue/keys.h). Inputs are taken in the order the vector lists them.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "qspec/catalogue/keys.h"
#include "qspec/ref/ops/granularity.h"
#include "qspec/ref/ops/mrt_avg_pool.h"
#include "qspec/ref/ops/mrt_expansion.h"
#include "qspec/ref/ops/quantized.h"
#include "qspec/refops.h"
#include "qspec/refops/int_arrays.h"
#include "qspec/refops/tensor_args.h"

namespace qspec::refops {
namespace {

namespace ro = qspec::ref::ops;
using ref::Int;
using ro::IntArray;
using Ints = std::vector<std::int64_t>;
using Inputs = std::vector<Tensor>;

// Outputs are int32 when every element fits, else int64 (the reference never truncates).
Tensor to_exact_tensor(std::string_view name, const IntArray& a, std::optional<DType> dtype = std::nullopt) {
  Tensor t;
  t.name = std::string(name);
  t.shape = a.shape;
  bool fits32 = true;
  for (const auto& v : a.data) {
    QSPEC_REQUIRE(v >= INT64_MIN && v <= INT64_MAX, "reference op output fits int64");
    fits32 = fits32 && v >= INT32_MIN && v <= INT32_MAX;
    t.data.push_back(static_cast<std::int64_t>(v));
  }
  t.dtype = dtype ? *dtype : (fits32 ? DType::I32 : DType::I64);
  return t;
}

// An attribute of two entries, `d` when it is absent (ERROR_IF another count).
ro::Pair pair(const Attrs& a, const attr::IntArray& key, ro::Pair d) {
  const auto v = attr::get_or(a, key, Ints{d[0], d[1]});
  if (v.size() != 2) throw ref::ErrorIf("ERROR_IF: attribute " + std::string(key.name) + " needs two entries");
  return {v[0], v[1]};
}
template <class Op>
ro::Conv2dAttrs conv_attrs(const Attrs& a) {
  using A = typename Op::attr;
  ro::Conv2dAttrs c;
  c.stride = pair(a, A::strides, {1, 1});
  c.padding = pair(a, A::padding, {0, 0});
  c.dilation = pair(a, A::dilation, {1, 1});
  c.groups = attr::get_or(a, A::groups, 1);
  return c;
}
template <class Op>
ro::Pool2dAttrs pool_attrs(const Attrs& a) {
  using A = typename Op::attr;
  ro::Pool2dAttrs p;
  p.kernel = pair(a, A::kernel, {1, 1});
  p.stride = pair(a, A::strides, {1, 1});
  p.padding = pair(a, A::padding, {0, 0});
  return p;
}
std::vector<IntArray> all_inputs(const Inputs& in) {
  std::vector<IntArray> v;
  for (const auto& t : in) v.push_back(to_array(t));
  return v;
}
template <class Op>
void need_inputs(const Inputs& in, std::size_t n) {
  if (in.size() != n)
    throw ref::ErrorIf("ERROR_IF: " + std::string(Op::op) + " takes " + std::to_string(n) + " inputs");
}
ref::DType ref_dtype(DType t) { return static_cast<ref::DType>(static_cast<int>(t)); }
DType out_tensor_dtype(ref::DType t) { return static_cast<DType>(static_cast<int>(t)); }

// ---- MRT operators (spec/operators_mrt.md) ----

std::vector<Tensor> conv2d(const Attrs& a, const Inputs& in) {
  using K = cat::conv2d;
  need_inputs<K>(in, 2);
  return {to_exact_tensor(K::out::y, ro::conv2d(to_array(in[0]), to_array(in[1]), conv_attrs<K>(a),
                                                Int(attr::get_or(a, K::attr::pad_value, 0))))};
}
QSPEC_REGISTER_REF_OP(registration<cat::conv2d>(cat::conv2d::conv::mrt, conv2d));

std::vector<Tensor> pad(const Attrs& a, const Inputs& in) {
  using K = cat::pad;
  need_inputs<K>(in, 1);
  return {to_exact_tensor(K::out::y,
                          ro::pad2d(to_array(in[0]), ro::pad_width_from(attr::get_or(a, K::attr::pad_width, Ints{})),
                                    Int(attr::get_or(a, K::attr::constant_value, 0))))};
}
QSPEC_REGISTER_REF_OP(registration<cat::pad>(cat::pad::conv::mrt, pad));

std::vector<Tensor> relu(const Attrs&, const Inputs& in) {
  using K = cat::relu;
  need_inputs<K>(in, 1);
  return {to_exact_tensor(K::out::y, ro::relu(to_array(in[0])))};
}
QSPEC_REGISTER_REF_OP(registration<cat::relu>(cat::relu::conv::mrt, relu));

std::vector<Tensor> max_pool2d(const Attrs& a, const Inputs& in) {
  using K = cat::max_pool2d;
  need_inputs<K>(in, 1);
  return {to_exact_tensor(K::out::y, ro::max_pool2d(to_array(in[0]), pool_attrs<K>(a)))};
}
QSPEC_REGISTER_REF_OP(registration<cat::max_pool2d>(cat::max_pool2d::conv::mrt, max_pool2d));

// MRT's avg Pooling rewrite: a depthwise Convolution whose every weight is 2^(p-1) - 1.
std::vector<Tensor> avg_pool2d(const Attrs& a, const Inputs& in) {
  using K = cat::avg_pool2d;
  need_inputs<K>(in, 1);
  const auto prec = static_cast<int>(attr::get_or(a, K::attr::weight_prec, 8));
  return {to_exact_tensor(K::out::y, ro::avg_pool2d_expand(to_array(input(in, K::in::x)), pool_attrs<K>(a), prec))};
}
QSPEC_REGISTER_REF_OP(registration<cat::avg_pool2d>(cat::avg_pool2d::conv::mrt, avg_pool2d));

std::vector<Tensor> fully_connected(const Attrs&, const Inputs& in) {
  using K = cat::fully_connected;
  need_inputs<K>(in, 2);
  return {to_exact_tensor(K::out::y, ro::fully_connected(to_array(in[0]), to_array(in[1])))};
}
QSPEC_REGISTER_REF_OP(registration<cat::fully_connected>(cat::fully_connected::conv::mrt, fully_connected));

std::vector<Tensor> broadcast_add(const Attrs&, const Inputs& in) {
  using K = cat::broadcast_add;
  need_inputs<K>(in, 2);
  return {to_exact_tensor(K::out::y, ro::broadcast_add(to_array(in[0]), to_array(in[1])))};
}
QSPEC_REGISTER_REF_OP(registration<cat::broadcast_add>(cat::broadcast_add::conv::mrt, broadcast_add));

std::vector<Tensor> elemwise_add(const Attrs&, const Inputs& in) {
  using K = cat::elemwise_add;
  need_inputs<K>(in, 2);
  return {to_exact_tensor(K::out::y, ro::elemwise_add(to_array(in[0]), to_array(in[1])))};
}
QSPEC_REGISTER_REF_OP(registration<cat::elemwise_add>(cat::elemwise_add::conv::mrt, elemwise_add));

std::vector<Tensor> add_n(const Attrs&, const Inputs& in) {
  return {to_exact_tensor(cat::add_n::out::y, ro::add_n(all_inputs(in)))};
}
QSPEC_REGISTER_REF_OP(registration<cat::add_n>(cat::add_n::conv::mrt, add_n));

std::vector<Tensor> concat(const Attrs& a, const Inputs& in) {
  using K = cat::concat;
  return {to_exact_tensor(K::out::y, ro::concat(all_inputs(in), attr::get_or(a, K::attr::axis, 1)))};
}
QSPEC_REGISTER_REF_OP(registration<cat::concat>(cat::concat::conv::mrt, concat));

std::vector<Tensor> flatten(const Attrs&, const Inputs& in) {
  using K = cat::flatten;
  need_inputs<K>(in, 1);
  return {to_exact_tensor(K::out::y, ro::flatten(to_array(in[0])))};
}
QSPEC_REGISTER_REF_OP(registration<cat::flatten>(cat::flatten::conv::mrt, flatten));

std::vector<Tensor> slice(const Attrs& a, const Inputs& in) {
  using K = cat::slice;
  need_inputs<K>(in, 1);
  const auto b = attr::get(a, K::attr::begin);
  const auto e = attr::get(a, K::attr::end);
  const auto steps = attr::get_or(a, K::attr::step, Ints(b.size(), 1));
  if (e.size() != b.size() || steps.size() != b.size())
    throw ref::ErrorIf("ERROR_IF: slice begin/end/step lengths differ");
  std::vector<ro::SliceAxis> axes;
  for (std::size_t i = 0; i < b.size(); ++i) axes.push_back({b[i], e[i], steps[i]});
  return {to_exact_tensor(K::out::y, ro::slice(to_array(in[0]), axes))};
}
QSPEC_REGISTER_REF_OP(registration<cat::slice>(cat::slice::conv::mrt, slice));

std::vector<Tensor> quantize_scale(const Attrs& a, const Inputs& in) {
  using K = cat::quantize_scale;
  using Is = K::attr::op__is;
  const std::string_view op = attr::get(a, K::attr::op_);
  const ro::CombineOp c = op == Is::broadcast_add  ? ro::CombineOp::BroadcastAdd
                          : op == Is::elemwise_add ? ro::CombineOp::ElemwiseAdd
                          : op == Is::add_n        ? ro::CombineOp::AddN
                                                   : ro::CombineOp::Concat;
  std::vector<Int> fr;
  for (auto f : attr::get_or(a, K::attr::fracs, Ints{})) fr.emplace_back(f);
  std::vector<int> ex;
  for (auto e : attr::get_or(a, K::attr::exps, Ints{})) ex.push_back(static_cast<int>(e));
  return {to_exact_tensor(K::out::y,
                          ro::quantize_scale(all_inputs(in), fr, ex, static_cast<int>(attr::get(a, K::attr::oprec)), c,
                                             attr::get_or(a, K::attr::axis, 0)))};
}
QSPEC_REGISTER_REF_OP(registration<cat::quantize_scale>(cat::quantize_scale::conv::mrt, quantize_scale));

// ---- expansions (spec/mrt_expansions.md): every term (term0, term1, ...) and, for one-scale
// formalizations, their sum ye ----

template <class Op>
std::vector<Tensor> expansion_outputs(const ro::Expansion<Int>& e) {
  using O = typename Op::out;
  const std::string_view terms[] = {O::term0, O::term1, O::term2, O::term3};
  std::vector<Tensor> out;
  for (std::size_t i = 0; i < e.terms.size(); ++i) out.push_back(to_exact_tensor(terms[i], e.terms[i].value));
  if (!e.partial_sums.empty()) out.push_back(to_exact_tensor(O::ye, e.partial_sums.back()));
  return out;
}

template <ro::ExpKind kKind>
std::vector<Tensor> conv2d_expansion(const Attrs& a, const Inputs& in) {
  using K = cat::mrt_conv2d_expansion;
  need_inputs<K>(in, 2);
  return expansion_outputs<K>(ro::conv2d_expand<Int>(
      kKind, to_array(in[0]), to_array(in[1]), conv_attrs<K>(a), Int(attr::get_or(a, K::attr::zx, 0)),
      Int(attr::get_or(a, K::attr::zw, 0)), Int(attr::get_or(a, K::attr::x_pad, 0))));
}
template <ro::ExpKind kKind>
std::vector<Tensor> fc_expansion(const Attrs& a, const Inputs& in) {
  using K = cat::mrt_fc_expansion;
  need_inputs<K>(in, 2);
  return expansion_outputs<K>(ro::fc_expand<Int>(kKind, to_array(in[0]), to_array(in[1]),
                                                 Int(attr::get_or(a, K::attr::zx, 0)),
                                                 Int(attr::get_or(a, K::attr::zw, 0))));
}
using ConvExp = cat::mrt_conv2d_expansion;
using FcExp = cat::mrt_fc_expansion;
QSPEC_REGISTER_REF_OP(registration<ConvExp>(ConvExp::conv::mrt_sym, conv2d_expansion<ro::ExpKind::Sym>));
QSPEC_REGISTER_REF_OP(registration<ConvExp>(ConvExp::conv::mrt_zpx, conv2d_expansion<ro::ExpKind::ZpX>));
QSPEC_REGISTER_REF_OP(registration<ConvExp>(ConvExp::conv::mrt_zpw, conv2d_expansion<ro::ExpKind::ZpW>));
QSPEC_REGISTER_REF_OP(registration<ConvExp>(ConvExp::conv::mrt_zpxw, conv2d_expansion<ro::ExpKind::ZpXW>));
QSPEC_REGISTER_REF_OP(registration<FcExp>(FcExp::conv::mrt_sym, fc_expansion<ro::ExpKind::Sym>));
QSPEC_REGISTER_REF_OP(registration<FcExp>(FcExp::conv::mrt_zpx, fc_expansion<ro::ExpKind::ZpX>));
QSPEC_REGISTER_REF_OP(registration<FcExp>(FcExp::conv::mrt_zpw, fc_expansion<ro::ExpKind::ZpW>));
QSPEC_REGISTER_REF_OP(registration<FcExp>(FcExp::conv::mrt_zpxw, fc_expansion<ro::ExpKind::ZpXW>));

std::vector<Tensor> conv2d_recombine(const Attrs& a, const Inputs& in) {
  using K = cat::mrt_conv2d_recombine;
  using A = K::attr;
  need_inputs<K>(in, 2);
  return {to_exact_tensor(
      K::out::ye,
      ro::recombine_two(to_array(in[0]), to_array(in[1]), Int(attr::get(a, A::frac1)),
                        static_cast<int>(attr::get(a, A::exp1)), Int(attr::get(a, A::frac2)),
                        static_cast<int>(attr::get(a, A::exp2)), static_cast<int>(attr::get(a, A::oprec))))};
}
QSPEC_REGISTER_REF_OP(registration<cat::mrt_conv2d_recombine>(cat::mrt_conv2d_recombine::conv::mrt, conv2d_recombine));

// ---- granularity (spec/granularity.md) ----

std::vector<Tensor> channel_split(const Attrs& a, const Inputs& in) {
  using K = cat::mrt_channel_split;
  need_inputs<K>(in, 1);
  std::vector<Tensor> out;
  const auto parts =
      ro::channel_split(to_array(in[0]), attr::get_or(a, K::attr::axis, 1), attr::get_or(a, K::attr::step, 1));
  for (std::size_t i = 0; i < parts.size(); ++i) out.push_back(to_exact_tensor(cat::indexed(K::out::y, i), parts[i]));
  return out;
}
QSPEC_REGISTER_REF_OP(registration<cat::mrt_channel_split>(cat::mrt_channel_split::conv::mrt, channel_split));

std::vector<Tensor> conv2d_channelwise(const Attrs& a, const Inputs& in) {
  using K = cat::mrt_conv2d_channelwise;
  need_inputs<K>(in, 2);
  return {to_exact_tensor(K::out::y, ro::conv2d_channelwise(to_array(in[0]), to_array(in[1]), conv_attrs<K>(a),
                                                            attr::get_or(a, K::attr::step, 1)))};
}
QSPEC_REGISTER_REF_OP(registration<cat::mrt_conv2d_channelwise>(cat::mrt_conv2d_channelwise::conv::mrt,
                                                                conv2d_channelwise));

// ---- gemmlowp matmul (spec/gemmlowp_matmul.md) ----

std::vector<Tensor> gemmlowp_matmul(const Attrs& a, const Inputs& in) {
  using K = cat::gemmlowp_matmul;
  need_inputs<K>(in, 2);
  ro::GemmlowpMatmulParams p;
  p.lhs_zero_point = attr::get_or(a, K::attr::lhs_zero_point, 0);
  p.rhs_zero_point = attr::get_or(a, K::attr::rhs_zero_point, 0);
  p.result_zero_point = attr::get_or(a, K::attr::result_zero_point, 0);
  p.multiplier = attr::get(a, K::attr::multiplier);
  p.shift = static_cast<int>(attr::get(a, K::attr::shift));
  return {to_exact_tensor(K::out::y, ro::gemmlowp_matmul(to_array(in[0]), to_array(in[1]), p), DType::U8)};
}
QSPEC_REGISTER_REF_OP(registration<cat::gemmlowp_matmul>(cat::gemmlowp_matmul::conv::gemmlowp, gemmlowp_matmul));

// ---- TVM QNN operators (spec/operators_tvm.md) ----

// tvm.requantize's rounding (UPWARD when absent).
template <class Op>
ref::TvmRounding rounding_attr(const Attrs& a) {
  using Is = typename Op::attr::rounding_is;
  return attr::get_or(a, Op::attr::rounding, Is::UPWARD) == Is::TONEAREST ? ref::TvmRounding::ToNearest
                                                                          : ref::TvmRounding::Upward;
}
template <class Op>
ro::TvmQnnParams tvm_params(const Attrs& a) {
  using A = typename Op::attr;
  ro::TvmQnnParams p;
  p.input_zero_point = attr::get_or(a, A::input_zero_point, 0);
  p.kernel_zero_point = attr::get_or(a, A::kernel_zero_point, 0);
  p.output_zero_point = attr::get_or(a, A::output_zero_point, 0);
  if (attr::has(a, A::input_scale)) p.input_scale = attr::get(a, A::input_scale);
  if (attr::has(a, A::kernel_scale)) p.kernel_scale = attr::get(a, A::kernel_scale);
  if (attr::has(a, A::output_scale)) p.output_scale = attr::get(a, A::output_scale);
  p.out_dtype = ref_dtype(attr::get_or(a, A::out_dtype, DType::I32));
  p.rounding = rounding_attr<Op>(a);
  return p;
}

std::vector<Tensor> tvm_conv2d(const Attrs& a, const Inputs& in) {
  using K = cat::tvm_qnn_conv2d;
  using Layout = K::attr::data_layout_is;
  need_inputs<K>(in, 2);
  const auto p = tvm_params<K>(a);
  const bool nhwc = attr::get_or(a, K::attr::data_layout, Layout::NCHW) == Layout::NHWC;
  const auto y = ro::tvm_qnn_conv2d(to_array(in[0]), to_array(in[1]), conv_attrs<K>(a),
                                    nhwc ? ro::TvmLayout::NHWC_HWIO : ro::TvmLayout::NCHW_OIHW, p);
  return {to_exact_tensor(K::out::y, y, out_tensor_dtype(p.out_dtype))};
}
QSPEC_REGISTER_REF_OP(registration<cat::tvm_qnn_conv2d>(cat::tvm_qnn_conv2d::conv::tvm, tvm_conv2d));

std::vector<Tensor> tvm_dense(const Attrs& a, const Inputs& in) {
  using K = cat::tvm_qnn_dense;
  need_inputs<K>(in, 2);
  const auto p = tvm_params<K>(a);
  return {to_exact_tensor(K::out::y, ro::tvm_qnn_dense(to_array(in[0]), to_array(in[1]), p),
                          out_tensor_dtype(p.out_dtype))};
}
QSPEC_REGISTER_REF_OP(registration<cat::tvm_qnn_dense>(cat::tvm_qnn_dense::conv::tvm, tvm_dense));

std::vector<Tensor> tvm_relu(const Attrs& a, const Inputs& in) {
  using K = cat::tvm_qnn_relu;
  need_inputs<K>(in, 1);
  return {to_exact_tensor(K::out::y, ro::tvm_qnn_relu(to_array(in[0]), Int(attr::get_or(a, K::attr::zero_point, 0))),
                          in[0].dtype)};
}
QSPEC_REGISTER_REF_OP(registration<cat::tvm_qnn_relu>(cat::tvm_qnn_relu::conv::tvm, tvm_relu));

std::vector<Tensor> tvm_max_pool2d(const Attrs& a, const Inputs& in) {
  using K = cat::tvm_qnn_max_pool2d;
  need_inputs<K>(in, 1);
  return {to_exact_tensor(K::out::y, ro::tvm_qnn_max_pool2d(to_array(in[0]), pool_attrs<K>(a)), in[0].dtype)};
}
QSPEC_REGISTER_REF_OP(registration<cat::tvm_qnn_max_pool2d>(cat::tvm_qnn_max_pool2d::conv::tvm, tvm_max_pool2d));

std::vector<Tensor> tvm_concatenate(const Attrs& a, const Inputs& in) {
  using K = cat::tvm_qnn_concatenate;
  const std::vector<std::uint32_t> sc = attr::get(a, K::attr::input_scales);
  std::vector<Int> zp;
  for (auto z : attr::get_or(a, K::attr::input_zero_points, Ints{})) zp.emplace_back(z);
  const DType od = attr::get_or(a, K::attr::out_dtype, DType::I8);
  return {
      to_exact_tensor(K::out::y,
                      ro::tvm_qnn_concatenate(all_inputs(in), sc, zp, attr::get(a, K::attr::output_scale),
                                              Int(attr::get_or(a, K::attr::output_zero_point, 0)),
                                              attr::get_or(a, K::attr::axis, 0), ref_dtype(od), rounding_attr<K>(a)),
                      od)};
}
QSPEC_REGISTER_REF_OP(registration<cat::tvm_qnn_concatenate>(cat::tvm_qnn_concatenate::conv::tvm, tvm_concatenate));

std::vector<Tensor> tvm_add(const Attrs& a, const Inputs& in) {
  using K = cat::tvm_qnn_add;
  using A = K::attr;
  need_inputs<K>(in, 2);
  const DType od = attr::get_or(a, A::out_dtype, DType::I8);
  return {to_exact_tensor(
      K::out::y,
      ro::tvm_qnn_add(to_array(in[0]), to_array(in[1]), attr::get(a, A::lhs_scale),
                      Int(attr::get_or(a, A::lhs_zero_point, 0)), attr::get(a, A::rhs_scale),
                      Int(attr::get_or(a, A::rhs_zero_point, 0)), attr::get(a, A::output_scale),
                      Int(attr::get_or(a, A::output_zero_point, 0)), ref_dtype(od), rounding_attr<K>(a)),
      od)};
}
QSPEC_REGISTER_REF_OP(registration<cat::tvm_qnn_add>(cat::tvm_qnn_add::conv::tvm, tvm_add));

}  // namespace
}  // namespace qspec::refops
