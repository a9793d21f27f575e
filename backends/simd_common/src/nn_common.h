// Internal to simd_common: the exact integer operator cores shared by the MRT and TVM QNN handlers.
#pragma once

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "qspec/core/attr.h"
#include "qspec/core/window_keys.h"
#include "qspec/simd/backend_core.h"
#include "qspec/simd/conv.h"
#include "qspec/simd/int_tensor.h"

namespace qspec::simd::nn {

using Json = nlohmann::ordered_json;

using Ints = std::vector<std::int64_t>;

// ERROR_IF helpers (throw Rejected).
void need_inputs(const OpCall& c, std::size_t n, std::string_view op);
void reject_if(bool cond, const std::string& why);
void positive_dims(const IntArray& a, const char* what);

// An attribute of two entries, `d` when it is absent (Rejected: another count).
std::array<std::int64_t, 2> pair(const Json& a, const attr::IntArray& key, std::array<std::int64_t, 2> d);

// Convolution geometry from the attributes `keys` (default strides 1, padding 0, dilation 1,
// groups 1), with mrt.op.conv2d's ERROR_IFs; x is (N,C,H,W), w (O,C/groups,KH,KW).
ConvGeom conv_geom(const OpCall& c, const ConvKeys& keys, const IntArray& x, const IntArray& w);
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

// mrt.op.max_pool2d (also TVM's max pooling, which keeps the parameters) of op `op`: input 0, output `y`.
void max_pool2d(OpCall& c, std::string_view op, const PoolKeys& keys, std::string_view y);
template <class Op>
void max_pool2d(OpCall& c) {
  max_pool2d(c, Op::op, pool_keys<Op>, Op::out::y);
}

}  // namespace qspec::simd::nn
