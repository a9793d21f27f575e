// XNNPACK's quantized convolution and fully connected operators on the engine operators
// qlinear.conv2d / qlinear.fully_connected / qlinear.matmul under xnnpack.fp32
// (spec/operators_qlinear.md `qlinear.xnnpack_fp32`), driven as an XNNPACK user drives them:
// the vector's three float32 scales, int8_t / uint8_t zero points, the int32 bias and the fused
// clamp go to xnn_create_* unchanged, XNNPACK derives its own requantization scale.
//
// Operators: int8 with one weight scale: qs8; int8 with O weight scales: qc8 (convolution only in
// this snapshot, so a per-channel fully connected layer is a 1x1 qc8 convolution over (N, 1, 1, K));
// uint8: qu8 (per tensor, with a kernel zero point). qlinear.matmul is, per broadcast batch, the
// fully connected layer of `a` with weights `b^T` (per-column scales are per output channel), as
// the clause states. Tensors are already NHWC / OHWI: no layout change.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "ops.h"
#include "qspec/catalogue/keys.h"
#include "qspec/core/attr.h"
#include "qspec/thirdparty/requant_params.h"
#include "qspec/thirdparty/tensor_io.h"
#include "qspec/thirdparty/window_attrs.h"
#include "xnn_util.h"

namespace qspec::xnnpack_adapter {
namespace {
using namespace thirdparty;

// The quantization of one operator call, as XNNPACK's create functions take it.
struct Quant {
  bool s8 = true;
  std::int64_t zx = 0, zw = 0, zy = 0, y_min = 0, y_max = 0;
  float xs = 1, ys = 1;
  std::vector<float> ws;  // 1 (per tensor) or O (per output channel) entries
};

// Reads the activations' (ax, azp), weights' (aw, awzp) and output's parameters of Op and checks
// what XNNPACK's API cannot express (the clause's ERROR_IFs on dtypes, zero points, scale counts):
// those are refused before any XNNPACK call; the scales and the clamp order are XNNPACK's to check.
template <class Op, class XS, class XZ, class WS, class WZ>
Quant read_quant(const Call& call, const qspec_tensor& xt, const qspec_tensor& wt, const qspec_tensor& yt,
                 std::size_t out_channels, const XS& x_scale, const XZ& x_zp, const WS& w_scales, const WZ& w_zp) {
  using A = typename Op::attr;
  const auto& a = call.attrs;
  Quant q;
  if (xt.dtype == QSPEC_DTYPE_INT8 && wt.dtype == QSPEC_DTYPE_INT8)
    q.s8 = true;
  else if (xt.dtype == QSPEC_DTYPE_UINT8 && wt.dtype == QSPEC_DTYPE_UINT8)
    q.s8 = false;
  else
    call.refuse(std::string("XNNPACK's quantized convolution / fully connected operators are qs8/qc8 (int8) or qu8 "
                            "(uint8), no ") +
                dtype_name(xt.dtype) + " x " + dtype_name(wt.dtype) + " operator");
  if (yt.rank >= 0 && yt.dtype != xt.dtype) call.refuse("XNNPACK's output has the input's dtype");
  const std::int64_t lo = q.s8 ? INT8_MIN : 0, hi = q.s8 ? INT8_MAX : UINT8_MAX;
  const auto fits = [&](std::int64_t v, const char* what) {
    if (v < lo || v > hi)
      call.refuse(std::string("XNNPACK's API takes the ") + what + " as " + (q.s8 ? "int8_t" : "uint8_t") + ", not " +
                  std::to_string(v));
  };
  q.zx = attr::get(a, x_zp);
  q.zw = attr::get_or(a, w_zp, 0);
  q.zy = attr::get(a, A::y_zero_point);
  q.y_min = attr::get_or(a, A::y_min, lo);
  q.y_max = attr::get_or(a, A::y_max, hi);
  fits(q.zx, "input zero point");
  fits(q.zw, "kernel zero point");
  fits(q.zy, "output zero point");
  fits(q.y_min, "output_min");
  fits(q.y_max, "output_max");
  if (q.s8 && q.zw != 0) call.refuse("XNNPACK's qs8 / qc8 operators take no kernel zero point (symmetric weights)");
  q.xs = f32_from_bits(attr::get(a, x_scale));
  q.ys = f32_from_bits(attr::get(a, A::y_scale));
  for (std::uint32_t s : attr::get(a, w_scales)) q.ws.push_back(f32_from_bits(s));
  if (q.ws.size() != 1 && q.ws.size() != out_channels)
    call.refuse(std::to_string(q.ws.size()) + " weight scales for " + std::to_string(out_channels) +
                " output channels (XNNPACK: one, or one per output channel)");
  if (q.ws.size() > 1 && !q.s8) call.refuse("XNNPACK has no per-channel qu8 operator (qc8 is int8 only)");
  // XNNPACK's params init functions assert S = input_scale * kernel_scale / output_scale >= 2^-32
  // (the clause's REQUIRE; the Debian build keeps asserts): not run, rather than abort the process.
  const auto normal = [](float v) { return v > 0 && std::isnormal(v); };
  for (float w : q.ws)
    if (normal(q.xs) && normal(w) && normal(q.ys) && q.xs * w / q.ys < 0x1p-32f)
      throw Unsupported("requantization scale below 2^-32: XNNPACK asserts (params-init.c), outside the REQUIREs");
  return q;
}

// The geometry of an NHWC convolution with OHWI weights (a fully connected layer: H = W = KH = KW = 1).
struct ConvShape {
  std::size_t n = 1, h = 1, w = 1, c = 1, o = 1, kh = 1, kw = 1, cg = 1, groups = 1;
  std::uint32_t sh = 1, sw = 1, dh = 1, dw = 1, pt = 0, pl = 0, pb = 0, pr = 0;
  std::size_t oh() const { return (h + pt + pb - (dh * (kh - 1) + 1)) / sh + 1; }
  std::size_t ow() const { return (w + pl + pr - (dw * (kw - 1) + 1)) / sw + 1; }
};

template <typename T>
std::vector<T> padded_bytes(const std::vector<std::int64_t>& v) {
  std::vector<T> out(v.size() + XNN_EXTRA_BYTES);  // XNNPACK's kernels may read past the input (xnnpack.h)
  std::transform(v.begin(), v.end(), out.begin(), [](std::int64_t x) { return static_cast<T>(x); });
  return out;
}
template <typename T>
std::vector<T> bytes(const std::vector<std::int64_t>& v) {
  return std::vector<T>(v.begin(), v.end());
}

// xnn_create_convolution2d_nhwc_{qs8,qc8,qu8}, setup, run: the (N, OH, OW, O) output codes.
// `out` false: create only (an invalid test carries no output, but XNNPACK must still see the
// parameters and may refuse them).
template <typename T>
std::vector<std::int64_t> conv_typed(const Call& call, const Quant& q, const ConvShape& s,
                                     const std::vector<std::int64_t>& x, const std::vector<std::int64_t>& w,
                                     const std::int32_t* bias) {
  constexpr bool s8 = std::is_same_v<T, std::int8_t>;
  const auto wb = bytes<T>(w);
  const T zx = static_cast<T>(q.zx), zy = static_cast<T>(q.zy), y_min = static_cast<T>(q.y_min),
          y_max = static_cast<T>(q.y_max);
  Operator op;
  // XNNPACK's padding order is top, right, bottom, left.
  if constexpr (s8) {
    if (q.ws.size() > 1)
      check_create(call,
                   xnn_create_convolution2d_nhwc_qc8(
                       s.pt, s.pr, s.pb, s.pl, static_cast<std::uint32_t>(s.kh), static_cast<std::uint32_t>(s.kw), s.sh,
                       s.sw, s.dh, s.dw, static_cast<std::uint32_t>(s.groups), s.cg, s.o / s.groups, s.c, s.o, zx, q.xs,
                       q.ws.data(), wb.data(), bias, zy, q.ys, y_min, y_max, 0, op.out()),
                   "xnn_create_convolution2d_nhwc_qc8");
    else
      check_create(call,
                   xnn_create_convolution2d_nhwc_qs8(
                       s.pt, s.pr, s.pb, s.pl, static_cast<std::uint32_t>(s.kh), static_cast<std::uint32_t>(s.kw), s.sh,
                       s.sw, s.dh, s.dw, static_cast<std::uint32_t>(s.groups), s.cg, s.o / s.groups, s.c, s.o, zx, q.xs,
                       q.ws[0], wb.data(), bias, zy, q.ys, y_min, y_max, 0, op.out()),
                   "xnn_create_convolution2d_nhwc_qs8");
  } else {
    check_create(call,
                 xnn_create_convolution2d_nhwc_qu8(
                     s.pt, s.pr, s.pb, s.pl, static_cast<std::uint32_t>(s.kh), static_cast<std::uint32_t>(s.kw), s.sh,
                     s.sw, s.dh, s.dw, static_cast<std::uint32_t>(s.groups), s.cg, s.o / s.groups, s.c, s.o, zx, q.xs,
                     static_cast<T>(q.zw), q.ws[0], wb.data(), bias, zy, q.ys, y_min, y_max, 0, op.out()),
                 "xnn_create_convolution2d_nhwc_qu8");
  }
  if (!call.has_outputs()) return {};
  // The clause REQUIREs the dilated kernel to fit the padded input: XNNPACK's output size wraps
  // and its run reads out of bounds otherwise (spec/errata.md E-XNNPACK-QLINEAR-1).
  if (s.h + s.pt + s.pb < s.dh * (s.kh - 1) + 1 || s.w + s.pl + s.pr < s.dw * (s.kw - 1) + 1)
    throw Unsupported("the dilated kernel is larger than the padded input: XNNPACK reads out of bounds (a REQUIRE)");
  const auto xb = padded_bytes<T>(x);
  std::vector<T> out(s.n * s.oh() * s.ow() * s.o);
  if (out.empty()) return {};
  if constexpr (s8) {
    if (q.ws.size() > 1)
      check(xnn_setup_convolution2d_nhwc_qc8(op.get(), s.n, s.h, s.w, xb.data(), out.data(), nullptr),
            "xnn_setup_convolution2d_nhwc_qc8");
    else
      check(xnn_setup_convolution2d_nhwc_qs8(op.get(), s.n, s.h, s.w, xb.data(), out.data(), nullptr),
            "xnn_setup_convolution2d_nhwc_qs8");
  } else {
    check(xnn_setup_convolution2d_nhwc_qu8(op.get(), s.n, s.h, s.w, xb.data(), out.data(), nullptr),
          "xnn_setup_convolution2d_nhwc_qu8");
  }
  check(xnn_run_operator(op.get(), nullptr), "xnn_run_operator");
  return std::vector<std::int64_t>(out.begin(), out.end());
}

std::vector<std::int64_t> run_conv(const Call& call, const Quant& q, const ConvShape& s,
                                   const std::vector<std::int64_t>& x, const std::vector<std::int64_t>& w,
                                   const std::int32_t* bias) {
  return q.s8 ? conv_typed<std::int8_t>(call, q, s, x, w, bias) : conv_typed<std::uint8_t>(call, q, s, x, w, bias);
}

// A fully connected layer x (n, k) w^T (o, k) + bias: xnn_create_fully_connected_nc_{qs8,qu8};
// with per-channel scales the 1x1 qc8 convolution over (n, 1, 1, k) (no qc8 fully connected
// operator in this snapshot).
template <typename T>
std::vector<std::int64_t> fc_typed(const Call& call, const Quant& q, std::size_t n, std::size_t k, std::size_t o,
                                   const std::vector<std::int64_t>& x, const std::vector<std::int64_t>& w,
                                   const std::int32_t* bias) {
  constexpr bool s8 = std::is_same_v<T, std::int8_t>;
  const auto wb = bytes<T>(w);
  const T zx = static_cast<T>(q.zx), zy = static_cast<T>(q.zy), y_min = static_cast<T>(q.y_min),
          y_max = static_cast<T>(q.y_max);
  Operator op;
  if constexpr (s8)
    check_create(call,
                 xnn_create_fully_connected_nc_qs8(k, o, k, o, zx, q.xs, q.ws[0], wb.data(), bias, zy, q.ys, y_min,
                                                   y_max, 0, op.out()),
                 "xnn_create_fully_connected_nc_qs8");
  else
    check_create(call,
                 xnn_create_fully_connected_nc_qu8(k, o, k, o, zx, q.xs, static_cast<T>(q.zw), q.ws[0], wb.data(), bias,
                                                   zy, q.ys, y_min, y_max, 0, op.out()),
                 "xnn_create_fully_connected_nc_qu8");
  if (!call.has_outputs() || n * o == 0) return {};
  const auto xb = padded_bytes<T>(x);
  std::vector<T> out(n * o);
  if constexpr (s8)
    check(xnn_setup_fully_connected_nc_qs8(op.get(), n, xb.data(), out.data(), nullptr),
          "xnn_setup_fully_connected_nc_qs8");
  else
    check(xnn_setup_fully_connected_nc_qu8(op.get(), n, xb.data(), out.data(), nullptr),
          "xnn_setup_fully_connected_nc_qu8");
  check(xnn_run_operator(op.get(), nullptr), "xnn_run_operator");
  return std::vector<std::int64_t>(out.begin(), out.end());
}

std::vector<std::int64_t> run_fc(const Call& call, const Quant& q, std::size_t n, std::size_t k, std::size_t o,
                                 const std::vector<std::int64_t>& x, const std::vector<std::int64_t>& w,
                                 const std::int32_t* bias) {
  if (q.ws.size() > 1) {
    ConvShape s;
    s.n = n, s.c = s.cg = k, s.o = o;
    return run_conv(call, q, s, x, w, bias);
  }
  return q.s8 ? fc_typed<std::int8_t>(call, q, n, k, o, x, w, bias)
              : fc_typed<std::uint8_t>(call, q, n, k, o, x, w, bias);
}

// The optional int32 bias (O) of Op.
template <class Op>
std::vector<std::int32_t> read_bias(const Call& call, std::size_t o) {
  if (!call.has_input(Op::in::b)) return {};
  const qspec_tensor& bt = call.input(Op::in::b);
  if (bt.dtype != QSPEC_DTYPE_INT32) call.refuse("XNNPACK's bias is int32");
  if (bt.rank != 1 || static_cast<std::size_t>(bt.shape[0]) != o)
    call.refuse("the bias needs one entry per output channel (" + std::to_string(o) + ")");
  return bytes<std::int32_t>(read_ints(bt));
}

std::uint32_t u32(std::int64_t v) { return static_cast<std::uint32_t>(v); }

}  // namespace

void run_qlinear_conv2d(const Call& call) {
  using K = cat::qlinear_conv2d;
  using A = K::attr;
  const qspec_tensor &xt = call.input(K::in::x), &wt = call.input(K::in::w);
  qspec_tensor& yt = call.output(K::out::y);
  if (xt.rank != 4 || wt.rank != 4) call.refuse("conv2d needs x (N, H, W, C) and w (O, KH, KW, C / groups)");
  const Quant q = read_quant<K>(call, xt, wt, yt, static_cast<std::size_t>(wt.shape[0]), A::x_scale, A::x_zero_point,
                                A::w_scales, A::w_zero_point);
  const auto st = window_pair(call, A::strides, 1, 1), dil = window_pair(call, A::dilations, 1, 1);
  const auto pads = attr::get_or(call.attrs, A::pads, std::vector<std::int64_t>{0, 0, 0, 0});
  if (pads.size() != 4) call.refuse("pads needs four entries [top, left, bottom, right]");
  for (auto p : pads)
    if (p < 0) call.refuse("XNNPACK's padding is unsigned: a negative pad");
  const std::int64_t groups = attr::get_or(call.attrs, A::groups, 1);
  const std::int64_t c = xt.shape[3], o = wt.shape[0], cg = wt.shape[3];
  if (groups < 1 || c != cg * groups || o % groups != 0)
    call.refuse("groups " + std::to_string(groups) + " do not divide C = " + std::to_string(c) + " into groups of " +
                std::to_string(cg) + " and O = " + std::to_string(o));
  ConvShape s;
  s.n = static_cast<std::size_t>(xt.shape[0]), s.h = static_cast<std::size_t>(xt.shape[1]);
  s.w = static_cast<std::size_t>(xt.shape[2]), s.c = static_cast<std::size_t>(c);
  s.o = static_cast<std::size_t>(o), s.kh = static_cast<std::size_t>(wt.shape[1]);
  s.kw = static_cast<std::size_t>(wt.shape[2]), s.cg = static_cast<std::size_t>(cg);
  s.groups = static_cast<std::size_t>(groups);
  s.sh = u32(st[0]), s.sw = u32(st[1]), s.dh = u32(dil[0]), s.dw = u32(dil[1]);
  s.pt = u32(pads[0]), s.pl = u32(pads[1]), s.pb = u32(pads[2]), s.pr = u32(pads[3]);
  const auto bias = read_bias<K>(call, s.o);
  write_ints(yt, run_conv(call, q, s, read_ints(xt), read_ints(wt), bias.empty() ? nullptr : bias.data()));
}

void run_qlinear_fully_connected(const Call& call) {
  using K = cat::qlinear_fully_connected;
  using A = K::attr;
  const qspec_tensor &xt = call.input(K::in::x), &wt = call.input(K::in::w);
  qspec_tensor& yt = call.output(K::out::y);
  if (xt.rank != 2 || wt.rank != 2) call.refuse("fully_connected needs x (N, K) and w (O, K)");
  if (xt.shape[1] != wt.shape[1]) call.refuse("x and w differ in K");
  const std::size_t n = static_cast<std::size_t>(xt.shape[0]), k = static_cast<std::size_t>(xt.shape[1]),
                    o = static_cast<std::size_t>(wt.shape[0]);
  const Quant q = read_quant<K>(call, xt, wt, yt, o, A::x_scale, A::x_zero_point, A::w_scales, A::w_zero_point);
  const auto bias = read_bias<K>(call, o);
  write_ints(yt, run_fc(call, q, n, k, o, read_ints(xt), read_ints(wt), bias.empty() ? nullptr : bias.data()));
}

// a (B..., M, K) times b (B..., K, N) or (K, N), batch dimensions broadcast (NumPy): per output
// batch, the fully connected layer of a's (M, K) slice with weights b^T (N, K) of b's slice.
void run_qlinear_matmul(const Call& call) {
  using K = cat::qlinear_matmul;
  using A = K::attr;
  const qspec_tensor &at = call.input(K::in::a), &bt = call.input(K::in::b);
  qspec_tensor& yt = call.output(K::out::y);
  if (at.rank < 2 || bt.rank < 2) call.refuse("matmul needs a (..., M, K) and b (..., K, N)");
  const std::size_t m = static_cast<std::size_t>(at.shape[at.rank - 2]),
                    k = static_cast<std::size_t>(at.shape[at.rank - 1]);
  const std::size_t n = static_cast<std::size_t>(bt.shape[bt.rank - 1]);
  if (static_cast<std::size_t>(bt.shape[bt.rank - 2]) != k) call.refuse("a and b differ in K");
  const Quant q = read_quant<K>(call, at, bt, yt, n, A::a_scale, A::a_zero_point, A::b_scales, A::b_zero_point);
  // The broadcast batch shape and each output batch's a and b batch indices.
  const std::int32_t ra = at.rank - 2, rb = bt.rank - 2, r = std::max(ra, rb);
  std::vector<std::size_t> ya(1, 0), yb(1, 0);  // per output batch (row-major over the broadcast shape)
  std::size_t stride_a = 1, stride_b = 1;
  for (std::int32_t i = 0; i < r; ++i) {  // from the last batch dimension
    const std::int64_t da = i < ra ? at.shape[ra - 1 - i] : 1, db = i < rb ? bt.shape[rb - 1 - i] : 1;
    if (da != db && da != 1 && db != 1)
      call.refuse("batch dimensions " + std::to_string(da) + " and " + std::to_string(db) + " do not broadcast");
    const std::size_t d = static_cast<std::size_t>(std::max(da, db));
    std::vector<std::size_t> na, nb;
    for (std::size_t j = 0; j < d; ++j)
      for (std::size_t t = 0; t < ya.size(); ++t) {
        na.push_back(ya[t] + (da == 1 ? 0 : j * stride_a));
        nb.push_back(yb[t] + (db == 1 ? 0 : j * stride_b));
      }
    ya = std::move(na), yb = std::move(nb);
    stride_a *= static_cast<std::size_t>(da), stride_b *= static_cast<std::size_t>(db);
  }
  const auto av = read_ints(at), bv = read_ints(bt);
  std::vector<std::int64_t> y;
  if (!call.has_outputs()) {  // an invalid test: XNNPACK still sees the parameters
    run_fc(call, q, 0, k, n, {}, std::vector<std::int64_t>(k * n, q.zw), nullptr);
    return;
  }
  for (std::size_t t = 0; t < ya.size(); ++t) {
    std::vector<std::int64_t> a_slice(av.begin() + static_cast<std::ptrdiff_t>(ya[t] * m * k),
                                      av.begin() + static_cast<std::ptrdiff_t>((ya[t] + 1) * m * k));
    std::vector<std::int64_t> w(n * k);  // b^T: (N, K)
    for (std::size_t i = 0; i < k; ++i)
      for (std::size_t j = 0; j < n; ++j) w[j * k + i] = bv[yb[t] * k * n + i * n + j];
    const auto part = run_fc(call, q, m, k, n, a_slice, w, nullptr);
    y.insert(y.end(), part.begin(), part.end());
  }
  write_ints(yt, y);
}

}  // namespace qspec::xnnpack_adapter
