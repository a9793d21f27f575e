// The ERROR_IF checks of Glow's quantized Transpose and Concat (glow.op.transpose_concat).

#include "qspec/ref/ops/glow_data_movement.h"

namespace qspec::ref::ops {

// spec: glow.op.transpose_concat
void glow_check_same_params(const std::vector<GlowQParams>& inputs, const GlowQParams& output) {
  for (const auto& p : inputs)
    QSPEC_ERROR_IF(p.scale != output.scale || p.offset != output.offset,
                   "glow.op.transpose_concat: an input's (scale, offset) differs from the output's");
}

// spec: glow.op.transpose_concat
Shape glow_transpose_output_shape(const Shape& x, const std::vector<std::int64_t>& shuffle) {
  QSPEC_ERROR_IF(shuffle.size() != x.size(), "glow.op.transpose_concat: shuffle has one entry per axis");
  std::vector<bool> seen(x.size(), false);
  Shape y;
  for (const auto k : shuffle) {
    QSPEC_ERROR_IF(k < 0 || k >= static_cast<std::int64_t>(x.size()) || seen[static_cast<std::size_t>(k)],
                   "glow.op.transpose_concat: shuffle is a permutation of [0, rank)");
    seen[static_cast<std::size_t>(k)] = true;
    y.push_back(x[static_cast<std::size_t>(k)]);
  }
  return y;
}

// spec: glow.op.transpose_concat
void glow_check_concat_dim(std::int64_t dim) {
  QSPEC_ERROR_IF(dim < 0, "glow.op.transpose_concat: Concat's dim >= 0 (Glow's dim is unsigned)");
}

}  // namespace qspec::ref::ops
