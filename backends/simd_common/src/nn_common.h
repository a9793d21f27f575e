// Internal to simd_common: the exact integer operator cores shared by the MRT and TVM QNN handlers.
#pragma once

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "qspec/simd/backend_core.h"
#include "qspec/simd/conv.h"
#include "qspec/simd/int_tensor.h"

namespace qspec::simd::nn {

using Json = nlohmann::ordered_json;

// ERROR_IF helpers (throw Rejected).
void need_inputs(const OpCall& c, std::size_t n, const char* op);
void reject_if(bool cond, const std::string& why);
void positive_dims(const IntArray& a, const char* what);

std::vector<std::int64_t> ints(const Json& a, const char* key, std::vector<std::int64_t> dflt);
std::int64_t int_or(const Json& a, const char* key, std::int64_t d);
std::array<std::int64_t, 2> pair(const Json& a, const char* key, std::array<std::int64_t, 2> d);

// Convolution geometry from attributes strides/padding/dilation/groups, with mrt.op.conv2d's
// ERROR_IFs; x is (N,C,H,W), w (O,C/groups,KH,KW).
ConvGeom conv_geom(const OpCall& c, const IntArray& x, const IntArray& w);
// y (N,O,OH,OW) = sum (x - za)(w - zw) over the window, x padded with `pad`: the 8-bit engines
// when every operand (and pad) fits a byte, exact 128-bit loops otherwise.
std::vector<std::int64_t> conv2d_exact(const KernelSet& k, const IntArray& x, const IntArray& w, const ConvGeom& g,
                                       std::int64_t za, std::int64_t zw, std::int64_t pad);
// y (N,M) = sum_k (x[n,k] - za)(w[m,k] - zw), with mrt.op.fully_connected's ERROR_IFs.
std::vector<std::int64_t> fc_exact(const KernelSet& k, const IntArray& x, const IntArray& w, std::int64_t za,
                                   std::int64_t zw);
// mrt.op.concat with its ERROR_IFs.
IntArray concat_exact(const std::vector<IntArray>& xs, std::int64_t axis);
// mrt.op.broadcast_add's output shape (ERROR_IF the shapes do not broadcast).
std::vector<std::int64_t> broadcast_shape(const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b);

// Handlers shared by name (same semantics in both vocabularies).
void mrt_max_pool2d(OpCall& c);

}  // namespace qspec::simd::nn
