// requantize / requantize_per_channel, convention gemmlowp.double_round, through gemmlowp's output stages.
//
// Pipeline (gemm_pipeline.h injects x as the accumulators):
//   shift <= 0: QuantizeDownInt32ByFixedPoint{M, -shift, zp} = RDBPOT(SRDHM(x, M), -shift) + zp
//   shift >  0: ScaleInt32ByFixedPointAndExponent{M, shift, zp} = RDBPOT(SRDHM(x << shift, M), 0) + zp
//   per channel: the per-tensor stage with (M[c], shift[c]) channel by channel (see below)
//   then Clamp{lo, hi} of out_dtype into an int32 result (OutputStageSaturatingCastToInt8 has no
//   SSE implementation, so the saturating cast is expressed as the equivalent clamp).
// The vector's (multiplier, shift) are TFLite's sign convention, which is gemmlowp's exponent.
#include <cstdint>
#include <string>
#include <vector>

#include "gemm_pipeline.h"
#include "ops.h"
#include "qspec/catalogue/keys.h"
#include "qspec/thirdparty/channel_view.h"
#include "qspec/thirdparty/requant_params.h"
#include "qspec/thirdparty/tensor_io.h"

namespace qspec::gemmlowp_adapter {
namespace {
using namespace thirdparty;

void check_out(const RequantParams& p, const qspec_tensor& yt) {
  if (yt.dtype != p.out_dtype) throw std::invalid_argument("output 'y' dtype differs from out_dtype");
  if (p.out_dtype == QSPEC_DTYPE_INT64 || p.out_dtype == QSPEC_DTYPE_FLOAT32 || p.out_dtype == QSPEC_DTYPE_FLOAT64)
    throw Unsupported(std::string("gemmlowp output pipelines produce int32 at most, not ") + dtype_name(p.out_dtype));
  if (p.output_zero_point < INT32_MIN || p.output_zero_point > INT32_MAX)
    throw Unsupported("gemmlowp takes result_offset_after_shift as an int32");
}

void check_shift(int shift) {
  // RoundingDivideByPOT asserts 0 <= exponent <= 31; a left shift beyond 31 is undefined.
  if (shift < -31 || shift > 31)
    throw Unsupported("gemmlowp's exponent must lie in [-31, 31] (RoundingDivideByPOT takes 0..31), not " +
                      std::to_string(shift));
}

// The per-tensor pipeline for one (M, shift): the stage that gemmlowp's own code picks for the sign
// of the exponent, then the clamp.
std::vector<std::int32_t> requantize_line(const std::vector<std::int32_t>& x, FixedPointMultiplier fp, std::int32_t zp,
                                          qspec_dtype out) {
  check_shift(fp.shift);
  const auto clamp = clamp_stage(static_cast<std::int32_t>(dtype_min(out)), static_cast<std::int32_t>(dtype_max(out)));
  if (fp.shift <= 0) {
    gemmlowp::OutputStageQuantizeDownInt32ByFixedPoint s;
    s.result_fixedpoint_multiplier = fp.multiplier;
    s.result_shift = -fp.shift;
    s.result_offset_after_shift = zp;
    return run_pipeline<gemmlowp::VectorShape::Row>(x, std::make_tuple(s, clamp));
  }
  gemmlowp::OutputStageScaleInt32ByFixedPointAndExponent s;
  s.result_fixedpoint_multiplier = fp.multiplier;
  s.result_exponent = fp.shift;
  s.result_offset_after_shift = zp;
  return run_pipeline<gemmlowp::VectorShape::Row>(x, std::make_tuple(s, clamp));
}

}  // namespace

void run_requantize(const Call& call) {
  const RequantParams p = read_requant_params(call.attrs);
  const qspec_tensor& xt = call.input(cat::requantize::in::x);
  qspec_tensor& yt = call.output(cat::requantize::out::y);
  check_out(p, yt);
  write_from(yt, requantize_line(p.accumulators(read_accumulator_input(xt)), p.as_fixed_point(),
                                 static_cast<std::int32_t>(p.output_zero_point), p.out_dtype));
}

// gemmlowp's per-channel stage OutputStageScaleInt32ByFixedPointAndExponentPC does not compile
// with SSE4 in this snapshot (internal/output.h calls Max(__m128i, int), which has no overload),
// so on x86 a user applies the per-tensor stage channel by channel -- as the adapter does: the
// accumulators of channel c go through requantize_line with (M[c], shift[c]).
void run_requantize_per_channel(const Call& call) {
  const qspec_tensor& xt = call.input(cat::requantize_per_channel::in::x);
  qspec_tensor& yt = call.output(cat::requantize_per_channel::out::y);
  const ChannelView view(xt, channel_axis(call, xt));
  // (M[c], shift[c]) as given; other conventions' per-channel parameters translated per channel.
  const std::vector<RequantParams> ps = read_per_channel_params(call, view.channels());
  const std::vector<std::int32_t> x = read_accumulator_input(xt);
  std::vector<std::int32_t> y(x.size());
  for (std::int64_t c = 0; c < view.channels(); ++c) {
    const RequantParams& p = ps[static_cast<std::size_t>(c)];
    check_out(p, yt);
    view.scatter(c,
                 requantize_line(p.accumulators(view.gather(x, c)), p.as_fixed_point(),
                                 static_cast<std::int32_t>(p.output_zero_point), p.out_dtype),
                 y);
  }
  write_from(yt, y);
}

}  // namespace qspec::gemmlowp_adapter
