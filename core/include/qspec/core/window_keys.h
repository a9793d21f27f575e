// The window attributes of the ops that share a convolution or max-pooling core, as one bundle of
// typed keys per op: conv_keys<cat::conv2d>, pool_keys<cat::tvm_qnn_max_pool2d>. A core that serves
// several ops (the optimized backends' conv2d_exact, an adapter's convolution) takes the bundle
// of the op it runs for, so it reads that op's catalogue entry and no string names.
#pragma once

#include "qspec/core/attr.h"

namespace qspec {

// strides [SH, SW], padding [PH, PW], dilation [DH, DW], groups (conv2d, the MRT expansions and
// channel-wise convolution, tvm.qnn.conv2d).
struct ConvKeys {
  attr::IntArray strides, padding, dilation;
  attr::Int groups;
};
template <class Op>
inline constexpr ConvKeys conv_keys{Op::attr::strides, Op::attr::padding, Op::attr::dilation, Op::attr::groups};

// kernel [KH, KW], strides [SH, SW], padding [PH, PW] (max_pool2d, tvm.qnn.max_pool2d).
struct PoolKeys {
  attr::IntArray kernel, strides, padding;
};
template <class Op>
inline constexpr PoolKeys pool_keys{Op::attr::kernel, Op::attr::strides, Op::attr::padding};

}  // namespace qspec
