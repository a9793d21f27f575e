// Reference-backend registrations of Glow's quantized operators (spec/operators_glow.md), convention "glow".
//
// Attributes name each tensor's parameters <tensor>_scale (float32 bits) and <tensor>_offset
// (Glow's offset = zero point): input_, weights_, bias_, output_. The element type of x (int8 or
// int16) and of bias (the same, or int32) select Glow's kernel instantiation. The operators that
// keep their input's parameters return, besides the data, the parameters Glow gives the result
// (outputs "scale" f32 [1] and "offset" i32 [1]).
#include <string>

#include "qspec/core/json_values.h"
#include "qspec/ref/ops/glow_ops.h"
#include "qspec/refops.h"

namespace qspec::refops {
namespace {

namespace ro = qspec::ref::ops;
using ref::GlowQParams;
using ref::Int;
using ro::IntArray;

IntArray to_array(const Tensor& t) {
  IntArray a(t.shape);
  for (std::size_t i = 0; i < t.data.size(); ++i) a.data[i] = Int(t.data[i]);
  return a;
}
Tensor to_tensor(const std::string& name, const IntArray& a, DType dtype) {
  Tensor t{name, dtype, a.shape, {}};
  for (const auto& v : a.data) t.data.push_back(static_cast<std::int64_t>(v));
  return t;
}
ro::NdArray<std::int64_t> to_i64(const Tensor& t) { return ro::NdArray<std::int64_t>(t.shape, t.data); }

const Tensor& input_named(const std::vector<Tensor>& inputs, const char* name) {
  for (const auto& in : inputs)
    if (in.name == name) return in;
  throw JsonValueError(std::string("missing input tensor '") + name + "'");
}
ref::DType ref_dtype(DType t) { return static_cast<ref::DType>(static_cast<int>(t)); }

GlowQParams qparams(const Attrs& a, const std::string& tensor) {
  return {attr_f32(a, (tensor + "_scale").c_str()), Int(attr_int(a, (tensor + "_offset").c_str()))};
}
std::vector<std::int64_t> ints(const Attrs& a, const char* key, std::vector<std::int64_t> dflt) {
  if (!a.contains(key)) return dflt;
  std::vector<std::int64_t> v;
  for (const auto& e : a.at(key)) v.push_back(json_to_int(e));
  return v;
}
ro::Pair pair(const Attrs& a, const char* key, ro::Pair d) {
  const auto v = ints(a, key, {d[0], d[1]});
  if (v.size() != 2) throw ref::ErrorIf(std::string("ERROR_IF: attribute ") + key + " needs two entries");
  return {v[0], v[1]};
}
std::array<std::int64_t, 4> pads(const Attrs& a) {
  const auto v = ints(a, "pads", {0, 0, 0, 0});
  if (v.size() != 4) throw ref::ErrorIf("ERROR_IF: attribute pads needs four entries (top, left, bottom, right)");
  return {v[0], v[1], v[2], v[3]};
}

// The parameters and element types of FullyConnected / Convolution / RowwiseQuantizedFullyConnected.
ro::GlowLinearParams linear_params(const Attrs& a, const Tensor& x, const Tensor* w, const Tensor& bias, bool with_weights) {
  ro::GlowLinearParams p;
  p.input = qparams(a, "input");
  if (with_weights) p.weights = qparams(a, "weights");
  p.bias = qparams(a, "bias");
  p.output = qparams(a, "output");
  if (w && w->dtype != x.dtype) throw ref::ErrorIf("ERROR_IF: input and weights must have one element type");
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
std::vector<std::uint32_t> f32_vector(const Tensor& t, const char* what) {
  if (t.dtype != DType::F32) throw ref::ErrorIf(std::string("ERROR_IF: ") + what + " must be float32");
  std::vector<std::uint32_t> v;
  for (auto e : t.data) v.push_back(static_cast<std::uint32_t>(e));
  return v;
}
void require_rank1(const Tensor& t, const char* what) {
  if (t.shape.size() != 1) throw ref::ErrorIf(std::string("ERROR_IF: ") + what + " must be rank 1");
}

// The parameters Glow gives the result of a selection: the input's (glow.op.keeps_input_qparams).
std::vector<Tensor> with_qparams(std::vector<Tensor> outs, const Attrs& a) {
  const GlowQParams p = ro::glow_keeps_input_qparams(qparams(a, "input"), qparams(a, "output"));
  outs.push_back(Tensor{"scale", DType::F32, {1}, {static_cast<std::int64_t>(p.scale)}});
  outs.push_back(Tensor{"offset", DType::I32, {1}, {static_cast<std::int64_t>(p.offset)}});
  return outs;
}
const Tensor& int8_input(const std::vector<Tensor>& in, const char* op) {
  const Tensor& x = input_named(in, "x");
  if (x.dtype != DType::I8) throw ref::ErrorIf(std::string("ERROR_IF: ") + op + " input must be int8");
  return x;
}

// The body is variadic: it may contain unparenthesized commas.
#define QSPEC_GLOW_OP(NAME, CONV, CLAUSES, DESC, ...)                                               \
  QSPEC_REGISTER_REF_OP({.op = NAME, .convention = CONV, \
                         .fn = [](const Attrs& a, const std::vector<Tensor>& in) -> std::vector<Tensor> __VA_ARGS__})
#define QSPEC_CLAUSES(...) std::vector<std::string>{__VA_ARGS__}

QSPEC_GLOW_OP("glow.fully_connected", "glow", QSPEC_CLAUSES("glow.op.fully_connected"),
              "Glow Interpreter quantized FullyConnected: int32 bias rescaled with a float32 ratio, output offset "
              "added after std::round",
              {
                const Tensor &x = input_named(in, "x"), &w = input_named(in, "w"), &b = input_named(in, "bias");
                const auto p = linear_params(a, x, &w, b, true);
                return {to_tensor("y", ro::glow_fully_connected(to_array(x), to_array(w), to_array(b), p), x.dtype)};
              });

QSPEC_GLOW_OP("glow.convolution", "glow", QSPEC_CLAUSES("glow.op.convolution"),
              "Glow Interpreter quantized Convolution (NHWC, OHWI filter): padding skipped, output offset added "
              "before std::round",
              {
                const Tensor &x = input_named(in, "x"), &w = input_named(in, "w"), &b = input_named(in, "bias");
                const auto p = linear_params(a, x, &w, b, true);
                ro::GlowConvAttrs c;
                c.stride = pair(a, "strides", {1, 1});
                c.pads = pads(a);
                c.dilation = pair(a, "dilation", {1, 1});
                c.group = a.contains("group") ? attr_int(a, "group") : 1;
                return {to_tensor("y", ro::glow_convolution(to_array(x), to_array(w), to_array(b), c, p), x.dtype)};
              });

QSPEC_GLOW_OP("glow.rowwise_fully_connected", "glow", QSPEC_CLAUSES("glow.op.rowwise_fully_connected"),
              "Glow Interpreter RowwiseQuantizedFullyConnected: per-row weight scale/offset, output offset added "
              "before std::round",
              {
                const Tensor &x = input_named(in, "x"), &w = input_named(in, "w"), &b = input_named(in, "bias");
                const Tensor &scales = input_named(in, "scales"), &offsets = input_named(in, "offsets");
                const auto p = linear_params(a, x, &w, b, false);
                require_rank1(scales, "scales");
                require_rank1(offsets, "offsets");
                return {to_tensor("y",
                                  ro::glow_rowwise_fully_connected(to_array(x), to_array(w), f32_vector(scales, "scales"),
                                                                   int_vector(offsets), to_array(b), p),
                                  x.dtype)};
              });

QSPEC_GLOW_OP("glow.fused_rowwise_sparse_lengths_weighted_sum", "glow",
              QSPEC_CLAUSES("glow.op.fused_rowwise_sparse_lengths_weighted_sum", "glow.fused_rowwise"),
              "Glow Interpreter FusedRowwiseQuantizedSparseLengthsWeightedSum: float32 accumulation in index order",
              {
                (void)a;
                const Tensor &data = input_named(in, "data"), &weights = input_named(in, "weights");
                const Tensor &indices = input_named(in, "indices"), &lengths = input_named(in, "lengths");
                if (data.dtype != DType::U8) throw ref::ErrorIf("ERROR_IF: data must be uint8 (UInt8FusedQTy)");
                if (indices.dtype != DType::I32 && indices.dtype != DType::I64)
                  throw ref::ErrorIf("ERROR_IF: indices must be int32 or int64");
                if (lengths.dtype != DType::I32) throw ref::ErrorIf("ERROR_IF: lengths must be int32");
                require_rank1(weights, "weights");
                require_rank1(indices, "indices");
                require_rank1(lengths, "lengths");
                const auto y = ro::glow_fused_rowwise_sparse_lengths_weighted_sum(
                    to_array(data), f32_vector(weights, "weights"), int_vector(indices), int_vector(lengths));
                Tensor t{"y", DType::F32, y.shape, {}};
                for (auto v : y.data) t.data.push_back(static_cast<std::int64_t>(v));
                return {t};
              });

ro::IntArray rescale(const Attrs& a, const std::vector<Tensor>& in, ro::GlowBackend b) {
  return ro::glow_rescale(to_array(int8_input(in, "glow.rescale")), qparams(a, "input"), qparams(a, "output"), b);
}
QSPEC_GLOW_OP("glow.rescale", "glow", QSPEC_CLAUSES("glow.op.rescale", "glow.rescale_float"),
              "Glow Interpreter RescaleQuantized: quantize(dequantize(x)) in float32 per element",
              { return {to_tensor("y", rescale(a, in, ro::GlowBackend::Interpreter), DType::I8)}; });
QSPEC_GLOW_OP("glow.rescale", "glow.cpu", QSPEC_CLAUSES("glow.op.rescale", "glow.rescale_integer", "glow.rescale_params"),
              "Glow CPU RescaleQuantized: integer pre-shift, ~9-bit multiplier, rounding post-shift",
              { return {to_tensor("y", rescale(a, in, ro::GlowBackend::Cpu), DType::I8)}; });

QSPEC_GLOW_OP("glow.reshape", "glow", QSPEC_CLAUSES("glow.op.keeps_input_qparams"),
              "Glow Reshape on int8: same codes, the input's scale and offset", {
                const Tensor& x = int8_input(in, "glow.reshape");
                return with_qparams({to_tensor("y", ro::glow_reshape(to_array(x), ints(a, "shape", {})), DType::I8)}, a);
              });

QSPEC_GLOW_OP("glow.slice", "glow", QSPEC_CLAUSES("glow.op.keeps_input_qparams"),
              "Glow Slice on int8: Y[i] = X[start + i], the input's scale and offset", {
                const Tensor& x = int8_input(in, "glow.slice");
                return with_qparams(
                    {to_tensor("y", ro::glow_slice(to_array(x), ints(a, "start", {}), ints(a, "size", {})), DType::I8)}, a);
              });

QSPEC_GLOW_OP("glow.gather", "glow", QSPEC_CLAUSES("glow.op.keeps_input_qparams"),
              "Glow Gather on int8: rows selected by indices, the input's scale and offset", {
                const Tensor& x = int8_input(in, "glow.gather");
                const Tensor& idx = input_named(in, "indices");
                if (idx.dtype != DType::I32 && idx.dtype != DType::I64) throw ref::ErrorIf("ERROR_IF: indices must be int32 or int64");
                const std::int64_t b = a.contains("batch_dims") ? attr_int(a, "batch_dims") : 0;
                return with_qparams({to_tensor("y", ro::glow_gather(to_array(x), to_i64(idx), b), DType::I8)}, a);
              });

QSPEC_GLOW_OP("glow.topk", "glow", QSPEC_CLAUSES("glow.op.keeps_input_qparams"),
              "Glow TopK on int8: k largest codes descending (ties by position), the input's scale and offset", {
                const Tensor& x = int8_input(in, "glow.topk");
                const auto [values, indices] = ro::glow_topk(to_array(x), attr_int(a, "k"));
                Tensor it{"indices", DType::I64, indices.shape, indices.data};
                return with_qparams({to_tensor("values", values, DType::I8), it}, a);
              });

QSPEC_GLOW_OP("glow.max_pool", "glow", QSPEC_CLAUSES("glow.op.keeps_input_qparams"),
              "Glow MaxPool on int8 (NHWC): window max; a window of padding only gives the offset", {
                const Tensor& x = int8_input(in, "glow.max_pool");
                ro::GlowPoolAttrs p;
                p.kernel = pair(a, "kernels", {1, 1});
                p.stride = pair(a, "strides", {1, 1});
                p.pads = pads(a);
                const GlowQParams q = ro::glow_keeps_input_qparams(qparams(a, "input"), qparams(a, "output"));
                return with_qparams({to_tensor("y", ro::glow_max_pool(to_array(x), p, q.offset), DType::I8)}, a);
              });

}  // namespace
}  // namespace qspec::refops
