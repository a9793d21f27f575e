// Reference-backend registrations of the operator clauses (MRT ops, expansions, granularity,
// gemmlowp matmul, TVM QNN ops): JSON attributes + tensors -> the exact reference ops.
#include <optional>
#include <string>

#include "qspec/core/json_values.h"
#include "qspec/ref/ops/granularity.h"
#include "qspec/ref/ops/mrt_expansion.h"
#include "qspec/ref/ops/quantized.h"
#include "qspec/refops.h"

namespace qspec::refops {
namespace {

namespace ro = qspec::ref::ops;
using ro::IntArray;
using ref::Int;

IntArray to_array(const Tensor& t) {
  IntArray a(t.shape);
  for (std::size_t i = 0; i < t.data.size(); ++i) a.data[i] = Int(t.data[i]);
  return a;
}

// Outputs are int32 when every element fits, else int64 (the reference never truncates).
Tensor to_tensor(const std::string& name, const IntArray& a, std::optional<DType> dtype = std::nullopt) {
  Tensor t;
  t.name = name;
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

std::vector<std::int64_t> ints(const Attrs& a, const char* key, std::vector<std::int64_t> dflt) {
  if (!a.contains(key)) return dflt;
  std::vector<std::int64_t> v;
  for (const auto& e : a.at(key)) v.push_back(json_to_int(e));
  return v;
}
std::int64_t int_or(const Attrs& a, const char* key, std::int64_t d) { return a.contains(key) ? attr_int(a, key) : d; }
ro::Pair pair(const Attrs& a, const char* key, ro::Pair d) {
  const auto v = ints(a, key, {d[0], d[1]});
  if (v.size() != 2) throw ref::ErrorIf(std::string("ERROR_IF: attribute ") + key + " needs two entries");
  return {v[0], v[1]};
}
ro::Conv2dAttrs conv_attrs(const Attrs& a) {
  ro::Conv2dAttrs c;
  c.stride = pair(a, "strides", {1, 1});
  c.padding = pair(a, "padding", {0, 0});
  c.dilation = pair(a, "dilation", {1, 1});
  c.groups = int_or(a, "groups", 1);
  return c;
}
ro::Pool2dAttrs pool_attrs(const Attrs& a) {
  ro::Pool2dAttrs p;
  p.kernel = pair(a, "kernel", {1, 1});
  p.stride = pair(a, "strides", {1, 1});
  p.padding = pair(a, "padding", {0, 0});
  return p;
}
std::vector<IntArray> all_inputs(const std::vector<Tensor>& in) {
  std::vector<IntArray> v;
  for (const auto& t : in) v.push_back(to_array(t));
  return v;
}
void need_inputs(const std::vector<Tensor>& in, std::size_t n, const char* op) {
  if (in.size() != n) throw ref::ErrorIf(std::string("ERROR_IF: ") + op + " takes " + std::to_string(n) + " inputs");
}
DType dtype_attr(const Attrs& a, const char* key, DType d) {
  if (!a.contains(key)) return d;
  const auto t = dtype_from_name(attr_str(a, key));
  if (!t) throw ref::ErrorIf(std::string("ERROR_IF: unknown dtype in ") + key);
  return *t;
}
ref::DType ref_dtype(DType t) { return static_cast<ref::DType>(static_cast<int>(t)); }
ro::ExpKind kind_of(const std::string& conv) {
  if (conv == "mrt.sym") return ro::ExpKind::Sym;
  if (conv == "mrt.zpx") return ro::ExpKind::ZpX;
  if (conv == "mrt.zpw") return ro::ExpKind::ZpW;
  return ro::ExpKind::ZpXW;
}
std::vector<Tensor> expansion_outputs(const ro::Expansion<Int>& e) {
  std::vector<Tensor> out;
  for (std::size_t i = 0; i < e.terms.size(); ++i) out.push_back(to_tensor("term" + std::to_string(i), e.terms[i].value));
  if (!e.partial_sums.empty()) out.push_back(to_tensor("ye", e.partial_sums.back()));
  return out;
}
ref::TvmRounding rounding_attr(const Attrs& a) {
  if (!a.contains("rounding")) return ref::TvmRounding::Upward;
  const auto r = attr_str(a, "rounding");
  if (r == "UPWARD") return ref::TvmRounding::Upward;
  if (r == "TONEAREST") return ref::TvmRounding::ToNearest;
  throw ref::ErrorIf("ERROR_IF: rounding must be UPWARD or TONEAREST");
}
ro::TvmQnnParams tvm_params(const Attrs& a) {
  ro::TvmQnnParams p;
  p.input_zero_point = int_or(a, "input_zero_point", 0);
  p.kernel_zero_point = int_or(a, "kernel_zero_point", 0);
  p.output_zero_point = int_or(a, "output_zero_point", 0);
  if (a.contains("input_scale")) p.input_scale = attr_f32(a, "input_scale");
  if (a.contains("kernel_scale")) p.kernel_scale = attr_f32(a, "kernel_scale");
  if (a.contains("output_scale")) p.output_scale = attr_f32(a, "output_scale");
  p.out_dtype = ref_dtype(dtype_attr(a, "out_dtype", DType::I32));
  p.rounding = rounding_attr(a);
  return p;
}
DType out_tensor_dtype(ref::DType t) { return static_cast<DType>(static_cast<int>(t)); }

#define QSPEC_MRT_OP(NAME, CLAUSE, DESC, BODY) \
  QSPEC_REGISTER_REF_OP({.op = NAME, .convention = "mrt", \
                         .fn = [](const Attrs& a, const std::vector<Tensor>& in) -> std::vector<Tensor> BODY})

QSPEC_MRT_OP("conv2d", "mrt.op.conv2d", "2-D convolution (padding, stride, dilation, groups)", {
  need_inputs(in, 2, "conv2d");
  (void)a;
  return {to_tensor("y", ro::conv2d(to_array(in[0]), to_array(in[1]), conv_attrs(a), Int(int_or(a, "pad_value", 0))))};
});
QSPEC_MRT_OP("pad", "mrt.op.pad", "constant padding of H and W", {
  need_inputs(in, 1, "pad");
  return {to_tensor("y", ro::pad2d(to_array(in[0]), ro::pad_width_from(ints(a, "pad_width", {})), Int(int_or(a, "constant_value", 0))))};
});
QSPEC_MRT_OP("relu", "mrt.op.relu", "max(0, x)", {
  need_inputs(in, 1, "relu");
  (void)a;
  return {to_tensor("y", ro::relu(to_array(in[0])))};
});
QSPEC_MRT_OP("max_pool2d", "mrt.op.max_pool2d", "max pooling, padding never wins", {
  need_inputs(in, 1, "max_pool2d");
  return {to_tensor("y", ro::max_pool2d(to_array(in[0]), pool_attrs(a)))};
});
QSPEC_MRT_OP("fully_connected", "mrt.op.fully_connected", "Y = X W^T", {
  need_inputs(in, 2, "fully_connected");
  (void)a;
  return {to_tensor("y", ro::fully_connected(to_array(in[0]), to_array(in[1])))};
});
QSPEC_MRT_OP("broadcast_add", "mrt.op.broadcast_add", "NumPy-broadcast addition", {
  need_inputs(in, 2, "broadcast_add");
  (void)a;
  return {to_tensor("y", ro::broadcast_add(to_array(in[0]), to_array(in[1])))};
});
QSPEC_MRT_OP("elemwise_add", "mrt.op.elemwise_add", "same-shape addition", {
  need_inputs(in, 2, "elemwise_add");
  (void)a;
  return {to_tensor("y", ro::elemwise_add(to_array(in[0]), to_array(in[1])))};
});
QSPEC_MRT_OP("add_n", "mrt.op.add_n", "sum of N same-shape inputs", {
  (void)a;
  return {to_tensor("y", ro::add_n(all_inputs(in)))};
});
QSPEC_MRT_OP("concat", "mrt.op.concat", "concatenation along an axis", {
  return {to_tensor("y", ro::concat(all_inputs(in), int_or(a, "axis", 1)))};
});
QSPEC_MRT_OP("flatten", "mrt.op.flatten", "(M0, rest), row-major data unchanged", {
  need_inputs(in, 1, "flatten");
  (void)a;
  return {to_tensor("y", ro::flatten(to_array(in[0])))};
});
QSPEC_MRT_OP("slice", "mrt.op.slice", "begin/end/step slice (NumPy rules)", {
  need_inputs(in, 1, "slice");
  std::vector<ro::SliceAxis> axes;
  const auto& b = a.at("begin");
  const auto& e = a.at("end");
  const auto steps = ints(a, "step", std::vector<std::int64_t>(b.size(), 1));
  if (e.size() != b.size() || steps.size() != b.size()) throw ref::ErrorIf("ERROR_IF: slice begin/end/step lengths differ");
  for (std::size_t i = 0; i < b.size(); ++i)
    axes.push_back({b[i].is_null() ? std::nullopt : std::optional<std::int64_t>(json_to_int(b[i])),
                    e[i].is_null() ? std::nullopt : std::optional<std::int64_t>(json_to_int(e[i])), steps[i]});
  return {to_tensor("y", ro::slice(to_array(in[0]), axes))};
});
QSPEC_MRT_OP("quantize_scale", "mrt.op.quantize_scale", "realize each input to a common scale, then combine", {
  const std::string op = attr_str(a, "op");
  ro::CombineOp c = op == "broadcast_add" ? ro::CombineOp::BroadcastAdd
                    : op == "elemwise_add" ? ro::CombineOp::ElemwiseAdd
                    : op == "add_n"        ? ro::CombineOp::AddN
                                           : ro::CombineOp::Concat;
  if (op != "broadcast_add" && op != "elemwise_add" && op != "add_n" && op != "concat") throw ref::ErrorIf("ERROR_IF: unknown op");
  std::vector<Int> fr;
  for (auto f : ints(a, "fracs", {})) fr.emplace_back(f);
  std::vector<int> ex;
  for (auto e : ints(a, "exps", {})) ex.push_back(static_cast<int>(e));
  return {to_tensor("y", ro::quantize_scale(all_inputs(in), fr, ex, static_cast<int>(attr_int(a, "oprec")), c, int_or(a, "axis", 0)))};
});

// The expansions: every term (term0, term1, ...) and, for one-scale formalizations, the sum "ye".
#define QSPEC_EXPANSION_OPS(ID, CONV, CLAUSE_CONV, CLAUSE_FC)                                                                 \
  [[maybe_unused]] const bool reg_conv_##ID = register_op({.op = "mrt.conv2d_expansion", .convention = CONV, \
                         .fn = [](const Attrs& a, const std::vector<Tensor>& in) { \
                           need_inputs(in, 2, "mrt.conv2d_expansion");                                                 \
                           return expansion_outputs(ro::conv2d_expand<Int>(kind_of(CONV), to_array(in[0]), to_array(in[1]), \
                                                                           conv_attrs(a), Int(int_or(a, "zx", 0)),      \
                                                                           Int(int_or(a, "zw", 0)), Int(int_or(a, "x_pad", 0)))); \
                         }});                                                                                          \
  [[maybe_unused]] const bool reg_fc_##ID = register_op({.op = "mrt.fc_expansion", .convention = CONV, \
                         .fn = [](const Attrs& a, const std::vector<Tensor>& in) { \
                           need_inputs(in, 2, "mrt.fc_expansion");                                                     \
                           return expansion_outputs(ro::fc_expand<Int>(kind_of(CONV), to_array(in[0]), to_array(in[1]), \
                                                                       Int(int_or(a, "zx", 0)), Int(int_or(a, "zw", 0)))); \
                         }})
QSPEC_EXPANSION_OPS(sym, "mrt.sym", "mrt.expand.conv2d_sym", "mrt.expand.fc_sym");
QSPEC_EXPANSION_OPS(zpx, "mrt.zpx", "mrt.expand.conv2d_zpx", "mrt.expand.fc_zpx");
QSPEC_EXPANSION_OPS(zpw, "mrt.zpw", "mrt.expand.conv2d_zpw", "mrt.expand.fc_zpw");
QSPEC_EXPANSION_OPS(zpxw, "mrt.zpxw", "mrt.expand.conv2d_zpxw", "mrt.expand.fc_zpxw");

QSPEC_MRT_OP("mrt.conv2d_recombine", "mrt.expand.conv2d_zpx", "Convolution 2/3: realize both partial results, add", {
  need_inputs(in, 2, "mrt.conv2d_recombine");
  return {to_tensor("ye", ro::recombine_two(to_array(in[0]), to_array(in[1]), Int(attr_int(a, "frac1")), static_cast<int>(attr_int(a, "exp1")),
                                            Int(attr_int(a, "frac2")), static_cast<int>(attr_int(a, "exp2")), static_cast<int>(attr_int(a, "oprec"))))};
});
QSPEC_MRT_OP("mrt.channel_split", "mrt.granularity.channel_split", "contiguous channel groups of `step`", {
  need_inputs(in, 1, "mrt.channel_split");
  std::vector<Tensor> out;
  const auto parts = ro::channel_split(to_array(in[0]), int_or(a, "axis", 1), int_or(a, "step", 1));
  for (std::size_t i = 0; i < parts.size(); ++i) out.push_back(to_tensor("y" + std::to_string(i), parts[i]));
  return out;
});
QSPEC_MRT_OP("mrt.conv2d_channelwise", "mrt.granularity.conv2d_channelwise", "split, per-slice conv, add_n / concat", {
  need_inputs(in, 2, "mrt.conv2d_channelwise");
  return {to_tensor("y", ro::conv2d_channelwise(to_array(in[0]), to_array(in[1]), conv_attrs(a), int_or(a, "step", 1)))};
});

QSPEC_REGISTER_REF_OP({.op = "gemmlowp.matmul", .convention = "gemmlowp", .fn = [](const Attrs& a, const std::vector<Tensor>& in) -> std::vector<Tensor> {
                         need_inputs(in, 2, "gemmlowp.matmul");
                         ro::GemmlowpMatmulParams p;
                         p.lhs_zero_point = int_or(a, "lhs_zero_point", 0);
                         p.rhs_zero_point = int_or(a, "rhs_zero_point", 0);
                         p.result_zero_point = int_or(a, "result_zero_point", 0);
                         p.multiplier = attr_int(a, "multiplier");
                         p.shift = static_cast<int>(attr_int(a, "shift"));
                         return {to_tensor("y", ro::gemmlowp_matmul(to_array(in[0]), to_array(in[1]), p), DType::U8)};
                       }});

#define QSPEC_TVM_OP(NAME, CLAUSE, DESC, BODY) \
  QSPEC_REGISTER_REF_OP({.op = NAME, .convention = "tvm", \
                         .fn = [](const Attrs& a, const std::vector<Tensor>& in) -> std::vector<Tensor> BODY})

QSPEC_TVM_OP("tvm.qnn.conv2d", "tvm.qnn.conv2d", "int32 accumulator with zero points, optional requantize", {
  need_inputs(in, 2, "tvm.qnn.conv2d");
  const auto p = tvm_params(a);
  const bool nhwc = a.contains("data_layout") && attr_str(a, "data_layout") == "NHWC";
  const auto y = ro::tvm_qnn_conv2d(to_array(in[0]), to_array(in[1]), conv_attrs(a), nhwc ? ro::TvmLayout::NHWC_HWIO : ro::TvmLayout::NCHW_OIHW, p);
  return {to_tensor("y", y, out_tensor_dtype(p.out_dtype))};
});
QSPEC_TVM_OP("tvm.qnn.dense", "tvm.qnn.dense", "dense with zero points, optional requantize", {
  need_inputs(in, 2, "tvm.qnn.dense");
  const auto p = tvm_params(a);
  return {to_tensor("y", ro::tvm_qnn_dense(to_array(in[0]), to_array(in[1]), p), out_tensor_dtype(p.out_dtype))};
});
QSPEC_TVM_OP("tvm.qnn.relu", "tvm.qnn.relu", "max(x, zero_point)", {
  need_inputs(in, 1, "tvm.qnn.relu");
  return {to_tensor("y", ro::tvm_qnn_relu(to_array(in[0]), Int(int_or(a, "zero_point", 0))), in[0].dtype)};
});
QSPEC_TVM_OP("tvm.qnn.max_pool2d", "tvm.qnn.max_pool2d", "max pool, parameters kept", {
  need_inputs(in, 1, "tvm.qnn.max_pool2d");
  return {to_tensor("y", ro::tvm_qnn_max_pool2d(to_array(in[0]), pool_attrs(a)), in[0].dtype)};
});
QSPEC_TVM_OP("tvm.qnn.concatenate", "tvm.qnn.concatenate", "requantize each input to the output, concat", {
  std::vector<std::uint32_t> sc;
  for (const auto& s : a.at("input_scales")) sc.push_back(json_to_f32(s));
  std::vector<Int> zp;
  for (auto z : ints(a, "input_zero_points", {})) zp.emplace_back(z);
  const DType od = dtype_attr(a, "out_dtype", DType::I8);
  return {to_tensor("y", ro::tvm_qnn_concatenate(all_inputs(in), sc, zp, attr_f32(a, "output_scale"), Int(int_or(a, "output_zero_point", 0)),
                                                 int_or(a, "axis", 0), ref_dtype(od), rounding_attr(a)), od)};
});
QSPEC_TVM_OP("tvm.qnn.add", "tvm.qnn.add", "requantize both to the output (int32), add, subtract zp, clip", {
  need_inputs(in, 2, "tvm.qnn.add");
  const DType od = dtype_attr(a, "out_dtype", DType::I8);
  return {to_tensor("y", ro::tvm_qnn_add(to_array(in[0]), to_array(in[1]), attr_f32(a, "lhs_scale"), Int(int_or(a, "lhs_zero_point", 0)),
                                         attr_f32(a, "rhs_scale"), Int(int_or(a, "rhs_zero_point", 0)), attr_f32(a, "output_scale"),
                                         Int(int_or(a, "output_zero_point", 0)), ref_dtype(od), rounding_attr(a)), od)};
});

}  // namespace
}  // namespace qspec::refops
