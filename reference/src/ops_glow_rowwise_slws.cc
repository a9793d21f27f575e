// Glow's non-fused RowwiseQuantizedSparseLengthsWeightedSum: per-row float32 scale and offset in
// their own tensors. Its arithmetic is the fused operator's, so it is computed as that operator on
// the rows with their scale and offset packed into 8 trailing bytes.
#include <string>

#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/glow_ops.h"

namespace qspec::ref::ops {

// spec: glow.op.rowwise_sparse_lengths_weighted_sum
NdArray<std::uint32_t> glow_rowwise_sparse_lengths_weighted_sum(
    const IntArray& data, const std::vector<std::uint32_t>& scales, const std::vector<std::uint32_t>& offsets,
    const std::vector<std::uint32_t>& weights, const std::vector<Int>& indices, const std::vector<Int>& lengths) {
  const std::string op = "glow.rowwise_sparse_lengths_weighted_sum: ";
  QSPEC_ERROR_IF(data.shape.size() != 2 || data.shape[0] < 1 || data.shape[1] < 1,
                 op + "data must be a (rows, cols) uint8 matrix, got " + shape_str(data.shape));
  const std::int64_t R = data.shape[0], C = data.shape[1];
  QSPEC_ERROR_IF(static_cast<std::int64_t>(scales.size()) != R || static_cast<std::int64_t>(offsets.size()) != R,
                 op + "one scale and one offset per data row");
  QSPEC_ERROR_IF(weights.size() != indices.size(), op + "weights and indices must have the same length");
  Int total(0);
  for (const auto& l : lengths) {
    QSPEC_ERROR_IF(l < 0, op + "lengths must be >= 0");
    total += l;
  }
  QSPEC_ERROR_IF(total > Int(static_cast<long long>(indices.size())),
                 op + "sum(lengths) exceeds the number of indices");
  for (const auto& v : data.data) QSPEC_ERROR_IF(v < 0 || v > 255, op + "data holds uint8 codes");
  // The positions the segments read: their row in range and its scale, offset and weight finite
  // (checked here so that a violation names this operator).
  for (std::size_t cur = 0; Int(static_cast<long long>(cur)) < total; ++cur) {
    QSPEC_REQUIRE(indices[cur] >= 0 && indices[cur] < R, op + "indices lie in [0, rows)");
    const auto r = static_cast<std::size_t>(static_cast<std::int64_t>(indices[cur]));
    QSPEC_REQUIRE(float_is_finite(scales[r], kBinary32) && float_is_finite(offsets[r], kBinary32) &&
                      float_is_finite(weights[cur], kBinary32),
                  op + "the rows' scales and offsets and the weights are finite in float32");
  }
  // dequantizeWithFloatOffset is the fused operator's q * scale + offset: pack each row as
  // (codes, scale, offset), little-endian, and run it.
  IntArray fused({R, C + 8});
  for (std::int64_t r = 0; r < R; ++r) {
    for (std::int64_t k = 0; k < C; ++k) fused.at2(r, k) = data.at2(r, k);
    const auto ur = static_cast<std::size_t>(r);
    for (int i = 0; i < 4; ++i) {
      fused.at2(r, C + i) = Int((scales[ur] >> (8 * i)) & 0xffu);
      fused.at2(r, C + 4 + i) = Int((offsets[ur] >> (8 * i)) & 0xffu);
    }
  }
  return glow_fused_rowwise_sparse_lengths_weighted_sum(fused, weights, indices, lengths);
}

}  // namespace qspec::ref::ops
