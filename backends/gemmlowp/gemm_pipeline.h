// Runs a gemmlowp output pipeline over arbitrary int32 accumulators: a GEMM whose product is 0
// and whose bias stage injects the accumulators.
//
// gemmlowp exposes its requantization only as output stages of GemmWithOutputPipeline. To feed
// a stage given accumulators, the adapter multiplies zero matrices (uint8, offsets 0), so every
// product is 0, and puts the accumulators in an OutputStageBiasAddition vector: the pipeline
// then sees exactly acc = x. The result is a single row (1 x n, Shape = Row: per-column
// parameters) or a single column (n x 1, Shape = Col: per-row parameters), int32, so any
// clamp or cast stage after the scaling stage decides the final range.
#pragma once

#include <gemmlowp/public/gemmlowp.h>

#include <cstdint>
#include <tuple>
#include <vector>

namespace qspec::gemmlowp_adapter {

template <gemmlowp::VectorShape Shape>
using BiasStage = gemmlowp::OutputStageBiasAddition<gemmlowp::VectorMap<const std::int32_t, Shape>>;

// Evaluates `stages` (a tuple of output stages whose last one yields DstT: int32 after a clamp,
// uint8/int16 after a saturating cast) on x, as a 1 x n (Shape == Row) or n x 1 (Shape == Col)
// GEMM result.
template <gemmlowp::VectorShape Shape, typename DstT = std::int32_t, typename... Stages>
std::vector<DstT> run_pipeline(const std::vector<std::int32_t>& x, const std::tuple<Stages...>& stages) {
  const int n = static_cast<int>(x.size());
  if (n == 0) return {};
  const int rows = Shape == gemmlowp::VectorShape::Row ? 1 : n;
  const int cols = Shape == gemmlowp::VectorShape::Row ? n : 1;
  const std::vector<std::uint8_t> lhs(static_cast<std::size_t>(rows), 0), rhs(static_cast<std::size_t>(cols), 0);
  std::vector<DstT> result(static_cast<std::size_t>(n), 0);
  gemmlowp::MatrixMap<const std::uint8_t, gemmlowp::MapOrder::RowMajor> lhs_map(lhs.data(), rows, 1);
  gemmlowp::MatrixMap<const std::uint8_t, gemmlowp::MapOrder::ColMajor> rhs_map(rhs.data(), 1, cols);
  gemmlowp::MatrixMap<DstT, gemmlowp::MapOrder::ColMajor> result_map(result.data(), rows, cols);
  BiasStage<Shape> bias;
  bias.bias_vector = gemmlowp::VectorMap<const std::int32_t, Shape>(x.data(), n);
  gemmlowp::GemmContext context;
  context.set_max_num_threads(1);
  gemmlowp::GemmWithOutputPipeline<std::uint8_t, DstT, gemmlowp::DefaultL8R8BitDepthParams>(
      &context, lhs_map, rhs_map, &result_map, /*lhs_offset=*/0, /*rhs_offset=*/0,
      std::tuple_cat(std::make_tuple(bias), stages));
  return result;
}

inline gemmlowp::OutputStageClamp clamp_stage(std::int32_t lo, std::int32_t hi) {
  gemmlowp::OutputStageClamp c;
  c.min = lo;
  c.max = hi;
  return c;
}

}  // namespace qspec::gemmlowp_adapter
