// op gemmlowp.matmul (convention gemmlowp): gemmlowp's own public GEMM, end to end.
//
// GemmWithOutputPipeline<uint8_t, uint8_t, DefaultL8R8BitDepthParams> on lhs (M,K) and rhs (K,N)
// row-major, with lhs_offset = -lhs_zero_point and rhs_offset = -rhs_zero_point (gemmlowp ADDS
// its offsets), then the standard fixed-point pipeline QuantizeDownInt32ByFixedPoint{multiplier,
// shift, result_zero_point} -> SaturatingCastToUint8 (seed 001's "Implementation of quantized
// matrix multiplication"). gemmlowp operands are uint8 only.
#include <gemmlowp/public/gemmlowp.h>

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "ops.h"
#include "qspec/catalogue/keys.h"
#include "qspec/core/attr.h"
#include "qspec/thirdparty/tensor_io.h"

namespace qspec::gemmlowp_adapter {

void run_matmul(const thirdparty::Call& call) {
  using namespace thirdparty;
  using K = cat::gemmlowp_matmul;
  using A = K::attr;
  const qspec_tensor& lt = call.input(K::in::lhs);
  const qspec_tensor& rt = call.input(K::in::rhs);
  qspec_tensor& yt = call.output(K::out::y);
  if (lt.dtype != QSPEC_DTYPE_UINT8 || rt.dtype != QSPEC_DTYPE_UINT8)
    throw Unsupported("gemmlowp GEMM operands are uint8 only (L8R8)");
  if (lt.rank != 2 || rt.rank != 2 || lt.shape[1] != rt.shape[0]) call.refuse("lhs must be (M,K) and rhs (K,N)");
  expect_dtype(yt, QSPEC_DTYPE_UINT8);
  auto zp_attr = [&](const attr::Int& key) {
    const std::int64_t v = attr::get_or(call.attrs, key, 0);
    if (v < 0 || v > 255) call.refuse(std::string(key.name) + " must be a uint8 value");
    return static_cast<int>(v);
  };
  const int lhs_zp = zp_attr(A::lhs_zero_point), rhs_zp = zp_attr(A::rhs_zero_point),
            res_zp = zp_attr(A::result_zero_point);
  const std::int64_t mult = attr::get(call.attrs, A::multiplier), shift = attr::get(call.attrs, A::shift);
  if (mult < INT32_MIN || mult > INT32_MAX) throw Unsupported("multiplier is not an int32");
  if (shift < 0 || shift > 31) throw Unsupported("gemmlowp's result_shift must lie in [0, 31]");
  const int m = static_cast<int>(lt.shape[0]), k = static_cast<int>(lt.shape[1]), n = static_cast<int>(rt.shape[1]);
  const std::vector<std::uint8_t> lhs = read_as<std::uint8_t>(lt), rhs = read_as<std::uint8_t>(rt);
  std::vector<std::uint8_t> y(static_cast<std::size_t>(m) * static_cast<std::size_t>(n), 0);
  if (m > 0 && n > 0) {
    gemmlowp::MatrixMap<const std::uint8_t, gemmlowp::MapOrder::RowMajor> lhs_map(lhs.data(), m, k);
    gemmlowp::MatrixMap<const std::uint8_t, gemmlowp::MapOrder::RowMajor> rhs_map(rhs.data(), k, n);
    gemmlowp::MatrixMap<std::uint8_t, gemmlowp::MapOrder::RowMajor> y_map(y.data(), m, n);
    gemmlowp::OutputStageQuantizeDownInt32ByFixedPoint q;
    q.result_fixedpoint_multiplier = static_cast<std::int32_t>(mult);
    q.result_shift = static_cast<std::int32_t>(shift);
    q.result_offset_after_shift = res_zp;
    gemmlowp::GemmContext context;
    context.set_max_num_threads(1);
    gemmlowp::GemmWithOutputPipeline<std::uint8_t, std::uint8_t, gemmlowp::DefaultL8R8BitDepthParams>(
        &context, lhs_map, rhs_map, &y_map, -lhs_zp, -rhs_zp,
        std::make_tuple(q, gemmlowp::OutputStageSaturatingCastToUint8()));
  }
  write_from(yt, y);
}

}  // namespace qspec::gemmlowp_adapter
