// Handlers of the Q31 fixed-point requantization ops (gemmlowp, TFLite, TOSA; per tensor and per channel).
//
// Each convention is mapped onto one kernel kind of requant.h (spec/tflite_tosa.md, "Vector
// attributes": the real multiplier is M * 2^(shift - 31) in every convention):
//   gemmlowp.double_round  kQ31Double   L = max(shift, 0), R = max(-shift, 0)
//   tflite.single_round    kShiftRound  S = 31 - shift, c = 2^(S-1)          (half up)
//   tosa.single_round      kShiftRound  as tflite.single_round, plus TOSA's ERROR_IFs
//   tosa.double_round      kShiftRound  c = 2^(S-1) +- 2^30 when S > 31 (sign of x)
//   tosa.scale16           kShiftRound  (M / 2^16) / 2^(15 - shift) is the same real multiplier
//   gemmlowp.legacy_uint8_scale  kShiftRound on x + result_offset, M = result_mult_int,
//                          S = result_shift, c = 2^(S-1) (x' >= 0) or 2^(S-1) - 1 (x' < 0):
//                          RoundingDivideByPOT's ties away from zero as one floor.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "q31_params.h"
#include "qspec/catalogue/keys.h"
#include "qspec/core/attr.h"
#include "qspec/simd/backend_core.h"

namespace qspec::simd {
namespace {

using Requantize = cat::requantize;
using PerChannel = cat::requantize_per_channel;

// The output zero point as the kernels' int32 (wider ones are valid attributes, not implemented).
template <class Op>
std::int32_t output_zero_point(const OpCall& c) {
  const std::int64_t v = attr::get(c.attrs, Op::attr::output_zero_point);
  if (v < INT32_MIN || v > INT32_MAX)
    throw Unsupported("attribute '" + std::string(Op::attr::output_zero_point.name) + "' does not fit int32");
  return static_cast<std::int32_t>(v);
}

// The out_dtype attribute (read first: an invalid test has no output tensors).
template <class Op>
OutType out_attr(const OpCall& c) {
  switch (attr::get(c.attrs, Op::attr::out_dtype)) {
    case DType::I8: return OutType::I8;
    case DType::U8: return OutType::U8;
    case DType::I16: return OutType::I16;
    case DType::I32: return OutType::I32;
    default:
      throw std::invalid_argument("attribute '" + std::string(Op::attr::out_dtype.name) +
                                  "': expected int8, uint8, int16 or int32");
  }
}

// Output "y", fetched after every check: x's shape, dtype `out`.
template <class Op>
qspec_tensor& output_y(const OpCall& c, const qspec_tensor& x, OutType out) {
  qspec_tensor& y = c.output(Op::out::y, 0);
  expect_same_shape(x, y, "output 'y' and input 'x'");
  if (out_type_of(y) != out) throw std::invalid_argument("output 'y' dtype differs from attribute 'out_dtype'");
  return y;
}

void finalize_or_throw(RequantParams& p) {
  if (!finalize(p)) throw Unsupported("requantization parameters outside the kernels' domain (a REQUIRE of the spec)");
}

// One rounding of x*M / 2^S, ties up.
RequantParams half_up(std::int32_t m, int s) {
  RequantParams p;
  p.kind = RequantKind::kShiftRound;
  p.multiplier = m;
  p.shift = s;
  p.round_pos = p.round_neg = s > 0 ? std::int64_t{1} << (s - 1) : 0;
  return p;
}

enum class Conv { GemmlowpDouble, TfliteSingle, TosaSingle, TosaDouble, TosaScale16 };

// Parameters for one (multiplier, shift) of a Q31 convention, read through the catalogue's keys
// (multiplier in [0, 2^31), shift in [-1024, 1024]). zp and out are set by the caller.
RequantParams q31_params(Conv conv, std::int64_t multiplier, std::int64_t shift) {
  const auto m = static_cast<std::int32_t>(multiplier);
  const int sh = static_cast<int>(shift);
  switch (conv) {
    case Conv::GemmlowpDouble: {
      if (sh < -31 || sh > 30) throw Unsupported("shift outside [-31, 30] (REQUIRE of requant.tflite.double_round)");
      RequantParams p;
      p.kind = RequantKind::kQ31Double;
      p.multiplier = m;
      p.left_shift = std::max(sh, 0);
      p.right_shift = std::max(-sh, 0);
      return p;
    }
    case Conv::TfliteSingle:
    case Conv::TosaSingle:
      if (sh < -31 || sh > 30) throw Unsupported("shift outside [-31, 30] (REQUIRE)");
      return half_up(m, 31 - sh);
    case Conv::TosaDouble: {
      if (sh < -31 || sh > 29) throw Unsupported("shift outside [-31, 29] (REQUIRE of requant.tosa.apply_scale_32)");
      RequantParams p = half_up(m, 31 - sh);
      if (p.shift > 31) {  // DOUBLE_ROUND: gemmlowp's two roundings folded into the constant
        p.round_pos += std::int64_t{1} << 30;
        p.round_neg -= std::int64_t{1} << 30;
      }
      return p;
    }
    case Conv::TosaScale16: {
      if (m % 65536 != 0) throw std::invalid_argument("attribute 'multiplier': tosa.scale16 needs a multiple of 2^16");
      if (15 - sh < 2 || 15 - sh > 62) throw Unsupported("TOSA shift outside [2, 62] (REQUIRE)");
      // floor((x * (M/2^16) + 2^(s-1)) / 2^s) with s = 15 - shift equals the 31 - shift form.
      return half_up(m, 31 - sh);
    }
  }
  throw std::logic_error("unreachable");
}

// TOSA RESCALE's ERROR_IFs for an int32 input (requant.tosa.rescale).
void tosa_checks(OutType out, std::int64_t zp) {
  if (out == OutType::U8) throw Rejected("TOSA RESCALE: unsigned output from an int32 input (ERROR_IF)");
  if (zp != 0 && out != OutType::I8)
    throw Rejected("TOSA RESCALE: output_zp must be 0 unless the output is int8 (ERROR_IF)");
  if (zp < out_min(out) || zp > out_max(out))
    throw Rejected("TOSA RESCALE: output_zp not representable in out_t (ERROR_IF)");
}

template <Conv kConv>
void requantize(OpCall& c) {
  const qspec_tensor& x = c.input(Requantize::in::x, 0);
  expect_dtype(x, QSPEC_DTYPE_INT32, "input 'x'");
  const OutType out = out_attr<Requantize>(c);
  const std::int64_t zp = attr::get(c.attrs, Requantize::attr::output_zero_point);
  if constexpr (kConv == Conv::TosaSingle || kConv == Conv::TosaDouble || kConv == Conv::TosaScale16)
    tosa_checks(out, zp);
  RequantParams p =
      q31_params(kConv, attr::get(c.attrs, Requantize::attr::multiplier), attr::get(c.attrs, Requantize::attr::shift));
  p.out = out;
  p.qmin = out_min(out);
  p.qmax = out_max(out);
  p.zp = output_zero_point<Requantize>(c);
  finalize_or_throw(p);
  qspec_tensor& y = output_y<Requantize>(c, x, out);
  c.k.requant(p, static_cast<std::size_t>(numel(x)), static_cast<const std::int32_t*>(x.data), y.data);
}

// Per-channel: the elements of channel ch along `axis` form runs of `inner` contiguous elements.
struct ChannelRuns {
  std::int64_t outer = 1, channels = 1, inner = 1;
};
ChannelRuns channel_runs(const qspec_tensor& x, const nlohmann::ordered_json& attrs, std::size_t n_params) {
  const std::int64_t axis = attr::get(attrs, PerChannel::attr::axis);
  if (axis < 0 || axis >= x.rank)
    throw std::invalid_argument("attribute '" + std::string(PerChannel::attr::axis.name) +
                                "': must index a dimension of x");
  ChannelRuns r;
  for (std::int32_t d = 0; d < x.rank; ++d) {
    if (d < axis) r.outer *= x.shape[d];
    if (d > axis) r.inner *= x.shape[d];
  }
  r.channels = x.shape[axis];
  if (static_cast<std::size_t>(r.channels) != n_params)
    throw std::invalid_argument("per-channel attribute arrays must have shape[axis] entries");
  return r;
}

void run_per_channel(OpCall& c, const qspec_tensor& x, qspec_tensor& y, const ChannelRuns& r,
                     const std::vector<RequantParams>& params) {
  const auto* xs = static_cast<const std::int32_t*>(x.data);
  auto* ys = static_cast<unsigned char*>(y.data);
  const std::size_t esize = static_cast<std::size_t>(out_size(params.empty() ? OutType::I32 : params[0].out));
  for (std::int64_t o = 0; o < r.outer; ++o)
    for (std::int64_t ch = 0; ch < r.channels; ++ch) {
      const std::int64_t off = (o * r.channels + ch) * r.inner;
      c.k.requant(params[static_cast<std::size_t>(ch)], static_cast<std::size_t>(r.inner), xs + off,
                  ys + static_cast<std::size_t>(off) * esize);
    }
}

// Two per-channel integer arrays of equal length (multiplier / shift, result_offset / result_mult_int).
std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>> paired_arrays(const OpCall& c, const attr::IntArray& a,
                                                                              const attr::IntArray& b) {
  auto va = attr::get(c.attrs, a);
  auto vb = attr::get(c.attrs, b);
  if (va.size() != vb.size())
    throw std::invalid_argument("attributes '" + std::string(a.name) + "' and '" + std::string(b.name) +
                                "' must have equal length");
  return {std::move(va), std::move(vb)};
}

template <Conv kConv>
void requantize_per_channel(OpCall& c) {
  const qspec_tensor& x = c.input(PerChannel::in::x, 0);
  expect_dtype(x, QSPEC_DTYPE_INT32, "input 'x'");
  const OutType out = out_attr<PerChannel>(c);
  const auto [ms, ss] = paired_arrays(c, PerChannel::attr::multiplier, PerChannel::attr::shift);
  const ChannelRuns runs = channel_runs(x, c.attrs, ms.size());
  const std::int64_t zp = attr::get(c.attrs, PerChannel::attr::output_zero_point);
  if constexpr (kConv == Conv::TosaSingle || kConv == Conv::TosaDouble) tosa_checks(out, zp);
  std::vector<RequantParams> params;
  for (std::size_t i = 0; i < ms.size(); ++i) {
    RequantParams p = q31_params(kConv, ms[i], ss[i]);
    p.out = out;
    p.qmin = out_min(out);
    p.qmax = out_max(out);
    p.zp = output_zero_point<PerChannel>(c);
    finalize_or_throw(p);
    params.push_back(p);
  }
  qspec_tensor& y = output_y<PerChannel>(c, x, out);
  run_per_channel(c, x, y, runs, params);
}

// gemmlowp legacy stage: RDBPOT((x + a) * b, r) = floor(((x + a) * b + c) / 2^r).
RequantParams legacy_params(std::int64_t a, std::int64_t b, std::int64_t r, OutType out) {
  if (a < INT32_MIN || a > INT32_MAX || b < INT32_MIN || b > INT32_MAX)
    throw Unsupported("legacy stage operands must be int32");
  if (r < 0 || r > 31) throw Unsupported("result_shift outside [0, 31] (REQUIRE)");
  if (b < 0) throw Unsupported("negative result_mult_int is not implemented");
  RequantParams p;
  p.kind = RequantKind::kShiftRound;
  p.input_offset = static_cast<std::int32_t>(a);
  p.multiplier = static_cast<std::int32_t>(b);
  p.shift = static_cast<int>(r);
  p.round_pos = r > 0 ? std::int64_t{1} << (r - 1) : 0;
  p.round_neg = r > 0 ? p.round_pos - 1 : 0;
  p.out = out;
  p.qmin = out_min(out);
  p.qmax = out_max(out);
  p.zp = 0;
  finalize_or_throw(p);
  return p;
}

void legacy(OpCall& c) {
  const qspec_tensor& x = c.input(Requantize::in::x, 0);
  expect_dtype(x, QSPEC_DTYPE_INT32, "input 'x'");
  const OutType out = out_attr<Requantize>(c);
  const RequantParams p = legacy_params(attr::get(c.attrs, Requantize::attr::result_offset),
                                        attr::get(c.attrs, Requantize::attr::result_mult_int),
                                        attr::get(c.attrs, Requantize::attr::result_shift), out);
  qspec_tensor& y = output_y<Requantize>(c, x, out);
  c.k.requant(p, static_cast<std::size_t>(numel(x)), static_cast<const std::int32_t*>(x.data), y.data);
}

void legacy_per_channel(OpCall& c) {
  const qspec_tensor& x = c.input(PerChannel::in::x, 0);
  expect_dtype(x, QSPEC_DTYPE_INT32, "input 'x'");
  const OutType out = out_attr<PerChannel>(c);
  const auto [as, bs] = paired_arrays(c, PerChannel::attr::result_offset, PerChannel::attr::result_mult_int);
  const ChannelRuns runs = channel_runs(x, c.attrs, as.size());
  const std::int64_t r = attr::get(c.attrs, PerChannel::attr::result_shift);
  std::vector<RequantParams> params;
  for (std::size_t i = 0; i < as.size(); ++i) params.push_back(legacy_params(as[i], bs[i], r, out));
  qspec_tensor& y = output_y<PerChannel>(c, x, out);
  run_per_channel(c, x, y, runs, params);
}

// ---- the primitives as ops ----

void srdhm_op(OpCall& c) {
  const qspec_tensor& a = c.input(cat::srdhm::in::a, 0);
  const qspec_tensor& b = c.input(cat::srdhm::in::b, 1);
  expect_dtype(a, QSPEC_DTYPE_INT32, "input 'a'");
  expect_dtype(b, QSPEC_DTYPE_INT32, "input 'b'");
  expect_same_shape(a, b, "inputs 'a' and 'b'");
  qspec_tensor& y = c.output(cat::srdhm::out::y, 0);
  expect_dtype(y, QSPEC_DTYPE_INT32, "output 'y'");
  expect_same_shape(a, y, "output 'y'");
  const auto* av = static_cast<const std::int32_t*>(a.data);
  const auto* bv = static_cast<const std::int32_t*>(b.data);
  auto* yv = static_cast<std::int32_t*>(y.data);
  for (std::int64_t i = 0, n = numel(a); i < n; ++i) yv[i] = srdhm(av[i], bv[i]);
}

void rdbpot_op(OpCall& c) {
  const qspec_tensor& x = c.input(cat::rdbpot::in::x, 0);
  expect_dtype(x, QSPEC_DTYPE_INT32, "input 'x'");
  qspec_tensor& y = c.output(cat::rdbpot::out::y, 0);
  expect_dtype(y, QSPEC_DTYPE_INT32, "output 'y'");
  expect_same_shape(x, y, "output 'y'");
  const std::int64_t e = attr::get(c.attrs, cat::rdbpot::attr::exponent);
  if (e < 0 || e > 31) throw Unsupported("exponent outside [0, 31] (REQUIRE)");
  // RDBPOT(x, e) is the kShiftRound kind with M = 1 and the ties-away constants.
  RequantParams p;
  p.kind = RequantKind::kShiftRound;
  p.multiplier = 1;
  p.shift = static_cast<int>(e);
  p.round_pos = e > 0 ? std::int64_t{1} << (e - 1) : 0;
  p.round_neg = e > 0 ? p.round_pos - 1 : 0;
  p.out = OutType::I32;
  p.qmin = INT32_MIN;
  p.qmax = INT32_MAX;
  finalize_or_throw(p);
  c.k.requant(p, static_cast<std::size_t>(numel(x)), static_cast<const std::int32_t*>(x.data), y.data);
}

}  // namespace

RequantParams q31_requant_params(Q31Rounding rounding, std::int64_t multiplier, std::int64_t shift) {
  const Conv conv = rounding == Q31Rounding::kTfliteDouble   ? Conv::GemmlowpDouble
                    : rounding == Q31Rounding::kTfliteSingle ? Conv::TfliteSingle
                                                             : Conv::TosaDouble;
  return q31_params(conv, multiplier, shift);
}

void add_requant_ops(std::vector<OpEntry>& t) {
  const char* vec = "vectorized (8 lanes AVX2 / 4 lanes NEON), exact 64-bit products";
  t.push_back(entry<Requantize>(Requantize::conv::gemmlowp_double_round, vec, requantize<Conv::GemmlowpDouble>));
  t.push_back(entry<Requantize>(Requantize::conv::tflite_single_round, vec, requantize<Conv::TfliteSingle>));
  t.push_back(entry<Requantize>(Requantize::conv::tosa_single_round, vec, requantize<Conv::TosaSingle>));
  t.push_back(entry<Requantize>(Requantize::conv::tosa_double_round, vec, requantize<Conv::TosaDouble>));
  t.push_back(entry<Requantize>(Requantize::conv::tosa_scale16, vec, requantize<Conv::TosaScale16>));
  t.push_back(entry<Requantize>(Requantize::conv::gemmlowp_legacy_uint8_scale, vec, legacy));
  t.push_back(
      entry<PerChannel>(PerChannel::conv::gemmlowp_double_round, vec, requantize_per_channel<Conv::GemmlowpDouble>));
  t.push_back(
      entry<PerChannel>(PerChannel::conv::tflite_single_round, vec, requantize_per_channel<Conv::TfliteSingle>));
  t.push_back(entry<PerChannel>(PerChannel::conv::tosa_single_round, vec, requantize_per_channel<Conv::TosaSingle>));
  t.push_back(entry<PerChannel>(PerChannel::conv::tosa_double_round, vec, requantize_per_channel<Conv::TosaDouble>));
  t.push_back(entry<PerChannel>(PerChannel::conv::gemmlowp_legacy_uint8_scale, vec, legacy_per_channel));
  t.push_back(entry<cat::srdhm>(cat::srdhm::conv::gemmlowp, "scalar", srdhm_op));
  t.push_back(entry<cat::rdbpot>(cat::rdbpot::conv::gemmlowp, vec, rdbpot_op));
}

}  // namespace qspec::simd
