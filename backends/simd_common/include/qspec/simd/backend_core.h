// The op table and C ABI glue shared by the optimized backends (avx2, neon): each backend supplies
// a KernelSet (its ISA's kernels, chosen at run time) and gets a complete qspec_backend.
//
// An op handler reads its attributes and tensors through OpCall, validates everything the spec
// makes an ERROR_IF (throwing Rejected before any output is written), and runs the kernels.
// Backends never call the reference: they are judged by the golden vectors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "qspec/backend.h"
#include "qspec/simd/conv.h"
#include "qspec/simd/gemm.h"
#include "qspec/simd/qlinear_add.h"
#include "qspec/simd/qlinear_mul.h"
#include "qspec/simd/qlinear_pool.h"
#include "qspec/simd/quantize.h"
#include "qspec/simd/requant.h"

namespace qspec::simd {

// The ISA-specific kernels a backend plugs into the shared op handlers. Every pointer is set
// (the scalar kernels fill whatever an ISA does not specialise).
struct KernelSet {
  // "avx2+avx512vnni+zmm", "avx2+avx512vnni", "avx2+avxvnni", "avx2", "neon+dotprod", "neon", "scalar"
  std::string isa;
  RequantFn requant = nullptr;
  const GemmEngine* gemm = nullptr;
  DepthwiseFn depthwise = nullptr;
  bool depthwise_fuses_requant = false;     // depthwise takes DepthwiseArgs::y8 (its stores requantize)
  const DirectConv* direct_conv = nullptr;  // optional (null: every conv through im2col tiles)
  QuantizeFn quantize = nullptr;
  DequantizeFn dequantize = nullptr;
  AddFn add = nullptr;  // qlinear.add of 8-bit tensors (one shape, or a repeating operand)
  MulFn mul = nullptr;  // qlinear.mul likewise
  PoolFn avg_pool = nullptr;  // qlinear.avg_pool2d / global_avg_pool of 8-bit NHWC tensors
};

// The portable kernels (every field set).
KernelSet scalar_kernel_set();

// Thrown by handlers: the input is invalid by an ERROR_IF of the spec (-> QSPEC_STATUS_REJECTED).
struct Rejected : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// Thrown by handlers: this parameter set is outside what the backend implements (-> UNSUPPORTED).
struct Unsupported : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// One run() call as the handlers see it.
struct OpCall {
  const KernelSet& k;
  const nlohmann::ordered_json& attrs;
  const qspec_tensor* inputs;
  std::size_t n_inputs;
  qspec_tensor* outputs;
  std::size_t n_outputs;

  // The input called `name`, else the one at `position`; throws std::invalid_argument.
  const qspec_tensor& input(std::string_view name, std::size_t position) const;
  // The output called `name`, else the one at `position`; throws std::invalid_argument.
  qspec_tensor& output(std::string_view name, std::size_t position) const;
};

using OpHandler = void (*)(OpCall& call);

struct OpEntry {
  std::string op;
  std::string convention;
  std::string note;  // shown by `qspec backends`
  OpHandler fn;
};

// The entry of (Op, convention) named through the catalogue's typed names (qspec/catalogue/keys.h):
// entry<cat::requantize>(cat::requantize::conv::tosa_single_round, note, handler).
template <class Op>
OpEntry entry(std::string_view convention, std::string note, OpHandler fn) {
  return {std::string(Op::op), std::string(convention), std::move(note), fn};
}

// Every op family adds its handlers here (one function per source file).
void add_requant_ops(std::vector<OpEntry>& table);
void add_float_ops(std::vector<OpEntry>& table);
void add_mrt_ops(std::vector<OpEntry>& table);
void add_nn_ops(std::vector<OpEntry>& table);
void add_qnn_ops(std::vector<OpEntry>& table);
void add_param_ops(std::vector<OpEntry>& table);
void add_glow_ops(std::vector<OpEntry>& table);
void add_expansion_ops(std::vector<OpEntry>& table);
void add_glow_nn_ops(std::vector<OpEntry>& table);
void add_qlinear_conv_ops(std::vector<OpEntry>& table);
void add_qlinear_linear_ops(std::vector<OpEntry>& table);
void add_qlinear_pool_ops(std::vector<OpEntry>& table);
void add_qlinear_lut_ops(std::vector<OpEntry>& table);
void add_qlinear_elementwise_ops(std::vector<OpEntry>& table);
void add_qlinear_concat_ops(std::vector<OpEntry>& table);
void add_qlinear_armnn_ops(std::vector<OpEntry>& table);
void add_qlinear_onednn_pool_ops(std::vector<OpEntry>& table);
void add_qlinear_pytorch_pool_ops(std::vector<OpEntry>& table);
void add_qlinear_pytorch_maxpool_ops(std::vector<OpEntry>& table);
void add_qlinear_pytorch_global_pool_ops(std::vector<OpEntry>& table);
void add_qlinear_leaky_relu_tflite_ops(std::vector<OpEntry>& table);
void add_qlinear_leaky_relu_armnn_ops(std::vector<OpEntry>& table);

// qlinear.add's kernel parameters under `convention` for two same-shape tensors of dtype t (int8 /
// uint8) with these attributes, derived (and rejected) as the handler does, or nullopt where the
// convention has no kernel: an add prepared once, as the libraries create their operators (the
// benchmark; a caller runs k.add only where the result is `fast`).
std::optional<AddParams> prepared_add(std::string_view convention, const nlohmann::ordered_json& attrs, qspec_dtype t);
// The same for qlinear.mul (k.mul).
std::optional<MulParams> prepared_mul(std::string_view convention, const nlohmann::ordered_json& attrs, qspec_dtype t);

// The pooling kernel's parameters of `op` (qlinear.avg_pool2d or qlinear.global_avg_pool) under
// `convention` for these tensors (x named "x", y "y") and attributes, as the handler derives them
// (it runs, with a kernel set whose pooling kernel only records its parameters; its Rejected and
// Unsupported propagate), or nullopt where the handler runs no kernel (no kernel for the convention,
// or not `fast`; then y holds the scalar path's result): an average pooling prepared once, as the
// libraries create their operators (the benchmark).
std::optional<PoolParams> prepared_avg_pool(std::string_view op, std::string_view convention,
                                            const nlohmann::ordered_json& attrs, const qspec_tensor& x,
                                            qspec_tensor& y);

// The full table, built once.
const std::vector<OpEntry>& op_table();

// Fills *out with a backend named `name` over `kernels`; returns 0, or nonzero on an ABI
// version mismatch. `version` is free text ("0.1.0 (avx2+avx512vnni)").
int create_backend(std::uint32_t host_abi_version, qspec_backend* out, const char* name, const KernelSet& kernels);

// ---- tensor helpers for handlers ----

std::int64_t numel(const qspec_tensor& t);
// Throws std::invalid_argument unless t has dtype d.
void expect_dtype(const qspec_tensor& t, qspec_dtype d, const char* what);
// Throws std::invalid_argument unless the two tensors have the same shape.
void expect_same_shape(const qspec_tensor& a, const qspec_tensor& b, const char* what);
// The OutType of an integer output tensor; throws Unsupported for other dtypes.
OutType out_type_of(const qspec_tensor& t);
// The qspec_dtype named by an attribute string ("int8"...); throws std::invalid_argument.
qspec_dtype dtype_attr(const nlohmann::ordered_json& attrs, const char* key);

}  // namespace qspec::simd
