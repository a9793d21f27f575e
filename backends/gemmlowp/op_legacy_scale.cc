// requantize / requantize_per_channel, convention gemmlowp.legacy_uint8_scale, through gemmlowp's
// OutputStageQuantizeDownInt32ToUint8Scale[PC] followed by the cast stage out_dtype names.
//
// Cast stages: uint8 -> OutputStageSaturatingCastToUint8 (the standard pipeline), int16 ->
// OutputStageSaturatingCastToInt16, int32 -> none. int8 -> OutputStageSaturatingCastToInt8 has
// no SSE implementation in this gemmlowp (a static_assert fires), so the adapter expresses it
// as the equivalent OutputStageClamp{-128, 127} into an int32 result.
#include <cstdint>
#include <string>
#include <vector>

#include "gemm_pipeline.h"
#include "ops.h"
#include "qspec/catalogue/keys.h"
#include "qspec/core/abi_tensor.h"
#include "qspec/thirdparty/channel_view.h"
#include "qspec/thirdparty/requant_params.h"
#include "qspec/thirdparty/tensor_io.h"

namespace qspec::gemmlowp_adapter {
namespace {
using namespace thirdparty;

// A stage operand: gemmlowp takes int32.
std::int32_t int32_operand(std::int64_t v, std::string_view what) {
  if (v < INT32_MIN || v > INT32_MAX) throw Unsupported(std::string(what) + " is not an int32");
  return static_cast<std::int32_t>(v);
}

// Runs `scale_stage` then the cast stage of `out` over one line of accumulators.
template <typename ScaleStage>
std::vector<std::int64_t> scale_and_cast(const std::vector<std::int32_t>& x, const ScaleStage& s, qspec_dtype out) {
  constexpr auto kRow = gemmlowp::VectorShape::Row;
  auto widen = [](const auto& v) { return std::vector<std::int64_t>(v.begin(), v.end()); };
  switch (out) {
    case QSPEC_DTYPE_UINT8:
      return widen(
          run_pipeline<kRow, std::uint8_t>(x, std::make_tuple(s, gemmlowp::OutputStageSaturatingCastToUint8())));
    case QSPEC_DTYPE_INT16:
      return widen(
          run_pipeline<kRow, std::int16_t>(x, std::make_tuple(s, gemmlowp::OutputStageSaturatingCastToInt16())));
    case QSPEC_DTYPE_INT8: return widen(run_pipeline<kRow>(x, std::make_tuple(s, clamp_stage(-128, 127))));
    case QSPEC_DTYPE_INT32: return widen(run_pipeline<kRow>(x, std::make_tuple(s)));
    default: throw Unsupported(std::string("gemmlowp has no cast stage to ") + dtype_name(out));
  }
}

void check_shift(std::int64_t r) {
  if (r < 0 || r > 31) throw Unsupported("gemmlowp's result_shift must lie in [0, 31], not " + std::to_string(r));
}

}  // namespace

void run_legacy_scale(const Call& call) {
  using A = cat::requantize::attr;
  const qspec_tensor& xt = call.input(cat::requantize::in::x);
  expect_dtype(xt, QSPEC_DTYPE_INT32);
  qspec_tensor& yt = call.output(cat::requantize::out::y);
  const qspec_dtype out = to_abi_dtype(attr::get(call.attrs, A::out_dtype));
  if (yt.dtype != out) throw std::invalid_argument("output 'y' dtype differs from out_dtype");
  gemmlowp::OutputStageQuantizeDownInt32ToUint8Scale s;
  s.result_offset = int32_operand(attr::get(call.attrs, A::result_offset), A::result_offset.name);
  s.result_mult_int = int32_operand(attr::get(call.attrs, A::result_mult_int), A::result_mult_int.name);
  const std::int64_t r = parameter(call.attrs, A::result_shift);
  check_shift(r);
  s.result_shift = static_cast<std::int32_t>(r);
  write_ints(yt, scale_and_cast(read_as<std::int32_t>(xt), s, out));
}

void run_legacy_scale_per_channel(const Call& call) {
  using A = cat::requantize_per_channel::attr;
  const auto& a = call.attrs;
  const qspec_tensor& xt = call.input(cat::requantize_per_channel::in::x);
  expect_dtype(xt, QSPEC_DTYPE_INT32);
  qspec_tensor& yt = call.output(cat::requantize_per_channel::out::y);
  const qspec_dtype out = to_abi_dtype(attr::get(a, A::out_dtype));
  if (yt.dtype != out) throw std::invalid_argument("output 'y' dtype differs from out_dtype");
  const std::int64_t axis = channel_axis(call, xt);
  const std::int64_t channels = xt.shape[axis];
  const std::vector<std::int64_t> offsets = attr::get(a, A::result_offset), mults = attr::get(a, A::result_mult_int);
  if (static_cast<std::int64_t>(offsets.size()) != channels || static_cast<std::int64_t>(mults.size()) != channels)
    throw std::invalid_argument("result_offset/result_mult_int must be arrays of shape[axis] entries");
  std::vector<std::int32_t> offset, mult;
  for (std::int64_t c = 0; c < channels; ++c) {
    offset.push_back(int32_operand(offsets[static_cast<std::size_t>(c)], A::result_offset.name));
    mult.push_back(int32_operand(mults[static_cast<std::size_t>(c)], A::result_mult_int.name));
  }
  const std::int64_t r = parameter(a, A::result_shift);
  check_shift(r);
  gemmlowp::OutputStageQuantizeDownInt32ToUint8ScalePC<gemmlowp::VectorShape::Row> s;
  s.result_offset =
      gemmlowp::VectorMap<const std::int32_t, gemmlowp::VectorShape::Row>(offset.data(), static_cast<int>(channels));
  s.result_mult_int =
      gemmlowp::VectorMap<const std::int32_t, gemmlowp::VectorShape::Row>(mult.data(), static_cast<int>(channels));
  s.result_shift = static_cast<std::int32_t>(r);
  std::int64_t outer = 1, inner = 1;
  for (std::int32_t d = 0; d < xt.rank; ++d) {
    if (d < axis) outer *= xt.shape[d];
    if (d > axis) inner *= xt.shape[d];
  }
  const std::vector<std::int32_t> x = read_as<std::int32_t>(xt);
  std::vector<std::int64_t> y(x.size());
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t i = 0; i < inner; ++i) {
      std::vector<std::int32_t> line(static_cast<std::size_t>(channels));
      for (std::int64_t c = 0; c < channels; ++c) line[c] = x[static_cast<std::size_t>((o * channels + c) * inner + i)];
      const auto r = scale_and_cast(line, s, out);
      for (std::int64_t c = 0; c < channels; ++c) y[static_cast<std::size_t>((o * channels + c) * inner + i)] = r[c];
    }
  write_ints(yt, y);
}

}  // namespace qspec::gemmlowp_adapter
