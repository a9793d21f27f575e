// libtorch's quantized::linear and quantized::conv2d on the engine operators
// qlinear.fully_connected / qlinear.conv2d, driven as a PyTorch user drives them: conventions
// pytorch.qnnpack under the qnnpack engine (spec/operators_qlinear.md `qlinear.pytorch_qnnpack`) and
// pytorch.onednn under the onednn engine (spec/operators_qlinear_pytorch_onednn.md).
//
// - Activations keep their type (uint8 -> quint8: PyTorch's QNNPACK; int8 -> qint8: XNNPACK
//   inside libtorch), weights are qint8 per tensor or per output channel (axis 0), all from the
//   vector's codes with the vector's scales and zero points (an exact construction).
// - Conv: the vector's NHWC data / OHWI weights become NCHW / OIHW (libtorch's logical layouts)
//   and the NCHW result goes back to NHWC; symmetric pads only (one padding per axis).
// - The vector's int32 bias b is what the engine adds; PyTorch takes a float bias b_f and
//   quantizes it inside (QuantizeBias, errata E-LIBTORCH-QLINEAR-3), so each b[o] is handed over as
//   a float that this quantization turns back into b[o] exactly, and the call is UNSUPPORTED
//   where no float does (a scale product above 1 leaves gaps between the reachable integers).
//   Under the onednn engine the bias stays float and is scaled by c_o = fl32(r(x_s) r(w_s[o]))
//   (r(s) = fl32(1.0 / double(s))): b[o] is handed over as a float b_f with fl32(b_f c_o) =
//   fl32(b[o]), the clause's bias term, UNSUPPORTED where none exists.
// - The onednn engine reuses cached primitives keyed without the zero points (errata
//   E-LIBTORCH-QLINEAR-1): each new zero-point set of a (shapes, scales) key gets its own batch
//   size, the input padded with extra rows (or images) of x_zero_point whose outputs are dropped.
#include <ATen/ops/_make_per_channel_quantized_tensor.h>
#include <ATen/ops/_make_per_tensor_quantized_tensor.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/full.h>
#include <ATen/ops/quantize_per_tensor.h>
#include <ATen/ops/tensor.h>
#include <ATen/ops/zeros.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "ops.h"
#include "qspec/catalogue/keys.h"
#include "qspec/core/attr.h"
#include "qspec/thirdparty/requant_params.h"
#include "qspec/thirdparty/tensor_io.h"
#include "qspec/thirdparty/window_attrs.h"
#include "torch_util.h"

namespace qspec::libtorch_adapter {
namespace {
using namespace thirdparty;

// The quantization of one call as libtorch takes it (scales as the doubles a user passes).
struct Quant {
  double xs = 1, ys = 1;
  std::int64_t zx = 0, zw = 0, zy = 0;
  std::vector<float> ws;  // 1 (per tensor) or O (per output channel)
};

template <class Op>
Quant read_quant(const Call& call, const qspec_tensor& xt, const qspec_tensor& wt, const qspec_tensor& yt,
                 std::int64_t out_channels) {
  using A = typename Op::attr;
  if (xt.dtype != QSPEC_DTYPE_INT8 && xt.dtype != QSPEC_DTYPE_UINT8)
    call.refuse(std::string("libtorch's quantized linear / conv2d take quint8 or qint8 activations, not ") +
                dtype_name(xt.dtype));
  if (wt.dtype != QSPEC_DTYPE_INT8)
    call.refuse(std::string("libtorch's quantized weights are qint8, not ") + dtype_name(wt.dtype));
  if (yt.rank >= 0 && yt.dtype != xt.dtype) call.refuse("libtorch's output has the activations' type");
  Quant q;
  q.xs = static_cast<double>(f32_from_bits(attr::get(call.attrs, A::x_scale)));
  q.ys = static_cast<double>(f32_from_bits(attr::get(call.attrs, A::y_scale)));
  q.zx = attr::get(call.attrs, A::x_zero_point);
  q.zw = attr::get_or(call.attrs, A::w_zero_point, 0);
  q.zy = attr::get(call.attrs, A::y_zero_point);
  for (std::uint32_t s : attr::get(call.attrs, A::w_scales)) q.ws.push_back(f32_from_bits(s));
  if (q.ws.size() != 1 && static_cast<std::int64_t>(q.ws.size()) != out_channels)
    call.refuse(std::to_string(q.ws.size()) + " weight scales for " + std::to_string(out_channels) +
                " output channels (one, or one per output channel)");
  // qint8 activations run XNNPACK inside libtorch, whose params init functions assert
  // S = x_scale * w_scale / y_scale >= 2^-32 (the clause's REQUIRE; Debian's build keeps asserts
  // and the process aborts): not run, rather than crash.
  const auto normal = [](float v) { return v > 0 && std::isnormal(v); };
  const auto xs = static_cast<float>(q.xs), ys = static_cast<float>(q.ys);
  if (xt.dtype == QSPEC_DTYPE_INT8)
    for (float w : q.ws)
      if (normal(xs) && normal(w) && normal(ys) && xs * w / ys < 0x1p-32f)
        throw Unsupported(
            "requantization scale below 2^-32: XNNPACK (libtorch's qint8 path) asserts, outside the "
            "REQUIREs");
  return q;
}

// What at::quantize_per_tensor(b_f, scale, 0, kQInt32) stores (quantize_val: inv_scale =
// 1.0f / float(scale), nearbyint of the float product, clamped to int32).
std::int64_t quantize_bias_value(float b_f, float inv_scale) {
  const float v = std::nearbyint(b_f * inv_scale);
  const double lo = std::numeric_limits<std::int32_t>::min(), hi = std::numeric_limits<std::int32_t>::max();
  if (std::isnan(v)) return 0;
  return static_cast<std::int64_t>(std::clamp(static_cast<double>(v), lo, hi));
}

// A float b_f that QuantizeBias (scale fl32(fl64(x_s) fl64(w_s))) turns into b exactly, if any:
// the float nearest b * scale and its neighbours (the product's rounding moves the image by at
// most a few ulps).
std::optional<float> float_bias(std::int64_t b, double xs, float ws) {
  const float scale = static_cast<float>(xs * static_cast<double>(ws));
  const float inv = 1.0f / scale;
  if (b == 0) return 0.0f;
  if (!(inv > 0) || std::isinf(inv)) return std::nullopt;
  const float f0 = static_cast<float>(static_cast<double>(b) / static_cast<double>(inv));
  float up = f0, down = f0;
  for (int step = 0; step < 8; ++step) {
    if (quantize_bias_value(up, inv) == b) return up;
    if (quantize_bias_value(down, inv) == b) return down;
    up = std::nextafter(up, std::numeric_limits<float>::infinity());
    down = std::nextafter(down, -std::numeric_limits<float>::infinity());
  }
  return std::nullopt;
}

// ideep's reciprocal scale (1.0 / q_scale() in double, stored as float) and the factor c_o by which
// the onednn engine scales a float bias into accumulator units.
float reciprocal(double s) { return static_cast<float>(1.0 / static_cast<double>(static_cast<float>(s))); }
float onednn_bias_scale(double xs, float ws) { return reciprocal(xs) * reciprocal(ws); }

// A float b_f whose bias term under the onednn engine, fl32(b_f c), is fl32(b), if any: the float
// nearest fl32(b) / c and its neighbours.
std::optional<float> onednn_float_bias(std::int64_t b, double xs, float ws) {
  const float c = onednn_bias_scale(xs, ws), target = static_cast<float>(b);
  if (b == 0) return 0.0f;
  if (!(c > 0) || std::isinf(c)) return std::nullopt;
  const float f0 = static_cast<float>(static_cast<double>(target) / static_cast<double>(c));
  float up = f0, down = f0;
  for (int step = 0; step < 8; ++step) {
    volatile float pu = up * c, pd = down * c;  // one binary32 product each, as the engine computes it
    if (pu == target) return up;
    if (pd == target) return down;
    up = std::nextafter(up, std::numeric_limits<float>::infinity());
    down = std::nextafter(down, -std::numeric_limits<float>::infinity());
  }
  return std::nullopt;
}

// The float bias tensor (O) for the vector's int32 b, or None without one.
template <class Op>
c10::IValue bias(const Call& call, const Quant& q, std::int64_t out_channels, Engine engine) {
  if (!call.has_input(Op::in::b)) return c10::IValue();
  const qspec_tensor& bt = call.input(Op::in::b);
  if (bt.dtype != QSPEC_DTYPE_INT32) call.refuse("the bias is int32");
  if (bt.rank != 1 || bt.shape[0] != out_channels)
    call.refuse("the bias needs one entry per output channel (" + std::to_string(out_channels) + ")");
  const std::vector<std::int64_t> b = read_ints(bt);
  std::vector<float> bf(b.size());
  for (std::size_t o = 0; o < b.size(); ++o) {
    const float ws = q.ws[q.ws.size() == 1 ? 0 : o];
    if (engine == Engine::Onednn) {
      const std::optional<float> f = onednn_float_bias(b[o], q.xs, ws);
      if (!f)
        throw Unsupported("no float32 bias b_f has fl32(b_f * c) = fl32(b[" + std::to_string(o) + "]) = fl32(" +
                          std::to_string(b[o]) +
                          ") with c = fl32(fl32(1 / x_scale) fl32(1 / w_scale)) (the onednn engine scales a float "
                          "bias; qlinear.pytorch_onednn item 3)");
      bf[o] = *f;
      continue;
    }
    const std::optional<float> f = float_bias(b[o], q.xs, ws);
    if (!f)
      throw Unsupported("no float32 bias quantizes to b[" + std::to_string(o) + "] = " + std::to_string(b[o]) +
                        " at scale fl32(x_scale * w_scale) (PyTorch takes a float bias and quantizes it: errata "
                        "E-LIBTORCH-QLINEAR-3)");
    bf[o] = *f;
  }
  return at::tensor(bf, at::kFloat);
}

// PyTorch's quantizers refuse a zero point outside the quantized type (checkZeroPoint in
// quantize_per_tensor / quantize_per_channel, the way a user makes quantized tensors); the
// tensors here are built from the codes directly (exact), which skips that check, so it is made
// by quantizing one zero with the same parameters.
void check_zero_point(const Call& call, const char* what, double scale, std::int64_t zp, c10::ScalarType qtype) {
  guarded(call, what, [&] { return at::quantize_per_tensor(at::zeros({1}, at::kFloat), scale, zp, qtype); });
}

// x with `extra` more entries along axis 0, filled with the code x_zero_point (their outputs are dropped).
at::Tensor pad_batch(const at::Tensor& x, std::int64_t extra, std::int64_t zx) {
  if (extra == 0) return x;
  std::vector<std::int64_t> shape = x.sizes().vec();
  shape[0] = extra;
  return at::cat({x, at::full(shape, zx, x.options())}, 0);
}

// The quantized activation of the int tensor x (N first), with `extra` more batch entries of the
// code x_zero_point (their outputs are dropped; see fresh_primitive_batch).
at::Tensor activation(const Call& call, const at::Tensor& x, const Quant& q, std::int64_t extra = 0) {
  const c10::ScalarType qtype = x.scalar_type() == at::kChar ? c10::kQInt8 : c10::kQUInt8;
  check_zero_point(call, "activation zero point", q.xs, q.zx, qtype);
  const at::Tensor padded = pad_batch(x, extra, q.zx);
  return guarded(call, "activation", [&] { return at::_make_per_tensor_quantized_tensor(padded, q.xs, q.zx); });
}

// The qint8 weights from an int8 tensor already in libtorch's layout (O first).
at::Tensor weight(const Call& call, const at::Tensor& w, const Quant& q) {
  check_zero_point(call, "weight zero point", q.ws[0], q.zw, c10::kQInt8);
  return guarded(call, "qint8 weight", [&] {
    if (q.ws.size() == 1) return at::_make_per_tensor_quantized_tensor(w, q.ws[0], q.zw);
    std::vector<double> sc(q.ws.begin(), q.ws.end());
    const auto o = static_cast<std::int64_t>(sc.size());
    return at::_make_per_channel_quantized_tensor(w, at::tensor(sc, at::kDouble), at::full({o}, q.zw, at::kLong), 0);
  });
}

// The batch size that gives this call's zero points a primitive of their own under the onednn
// engine (E-LIBTORCH-QLINEAR-1), whose cached state is keyed by the shapes and the output scales,
// not the zero points: the smallest size >= n that no other zero-point set of this key (the
// shapes but the batch, the output scales) has used. One process runs many vectors; the map stays small.
std::int64_t fresh_primitive_batch(Engine engine, const std::string& key, std::int64_t n, const Quant& q) {
  if (engine != Engine::Onednn) return n;
  static std::map<std::string, std::map<std::int64_t, std::tuple<std::int64_t, std::int64_t>>> used;
  auto& sizes = used[key];
  const std::tuple<std::int64_t, std::int64_t> zps{q.zx, q.zy};
  std::int64_t size = n;
  while (sizes.count(size) != 0 && sizes[size] != zps) ++size;
  sizes[size] = zps;
  return size;
}

// The dimensions of t but the first (the batch).
std::string shape_key(const qspec_tensor& t) {
  std::string k;
  for (int i = 1; i < t.rank; ++i) k += std::to_string(t.shape[i]) + "x";
  return k;
}
// The output scales oneDNN is given, M_o = fl32(r(y_s) / fl32(r(x_s) r(w_s[o]))): what the
// engine's stale cache is keyed on (with the shapes), not PyTorch's scales.
std::string scale_key(const Quant& q) {
  std::string k;
  for (float w : q.ws) {
    volatile float m = reciprocal(q.ys) / onednn_bias_scale(q.xs, w);
    k += "/" + std::to_string(std::bit_cast<std::uint32_t>(static_cast<float>(m)));
  }
  return k;
}

}  // namespace

void run_qlinear_fully_connected(const Call& call, Engine engine) {
  using K = cat::qlinear_fully_connected;
  const qspec_tensor &xt = call.input(K::in::x), &wt = call.input(K::in::w);
  qspec_tensor& yt = call.output(K::out::y);
  if (xt.rank != 2 || wt.rank != 2) call.refuse("fully_connected needs x (N, K) and w (O, K)");
  if (xt.shape[1] != wt.shape[1]) call.refuse("x and w differ in K");
  const std::int64_t o = wt.shape[0];
  const Quant q = read_quant<K>(call, xt, wt, yt, o);
  const std::int64_t n = xt.shape[0];
  const std::int64_t extra =
      fresh_primitive_batch(engine, "fc" + shape_key(xt) + shape_key(wt) + scale_key(q), n, q) - n;
  const at::Tensor x = activation(call, int_tensor(xt), q, extra);
  const at::Tensor w = weight(call, int_tensor(wt), q);
  const c10::IValue packed = call_op(call, "quantized::linear_prepack", "", {w, bias<K>(call, q, o, engine)});
  const at::Tensor y = call_op(call, "quantized::linear", "", {x, packed, q.ys, q.zy}).toTensor();
  write_int_repr(yt, y.narrow(0, 0, n));
}

void run_qlinear_conv2d(const Call& call, Engine engine) {
  using K = cat::qlinear_conv2d;
  using A = K::attr;
  const qspec_tensor &xt = call.input(K::in::x), &wt = call.input(K::in::w);
  qspec_tensor& yt = call.output(K::out::y);
  if (xt.rank != 4 || wt.rank != 4) call.refuse("conv2d needs x (N, H, W, C) and w (O, KH, KW, C / groups)");
  const std::int64_t o = wt.shape[0];
  const Quant q = read_quant<K>(call, xt, wt, yt, o);
  const auto st = window_pair(call, A::strides, 1, 1), dil = window_pair(call, A::dilations, 1, 1);
  const auto pads = attr::get_or(call.attrs, A::pads, std::vector<std::int64_t>{0, 0, 0, 0});
  if (pads.size() != 4) call.refuse("pads needs four entries [top, left, bottom, right]");
  if (pads[0] != pads[2] || pads[1] != pads[3])
    call.refuse("libtorch's conv2d pads both sides of an axis alike (one padding per axis), not [" +
                std::to_string(pads[0]) + ", " + std::to_string(pads[1]) + ", " + std::to_string(pads[2]) + ", " +
                std::to_string(pads[3]) + "]");
  const std::int64_t groups = attr::get_or(call.attrs, A::groups, 1);
  if (engine == Engine::Onednn && groups >= 1 && (xt.shape[3] % groups != 0 || xt.shape[3] / groups != wt.shape[3]))
    call.refuse(
        "the input channels are not groups * the weights' channels (oneDNN: could not create a descriptor "
        "for a convolution forward propagation primitive)");
  const std::int64_t n = xt.shape[0];
  const std::int64_t extra =
      fresh_primitive_batch(engine, "conv" + shape_key(xt) + shape_key(wt) + scale_key(q), n, q) - n;
  // NHWC -> NCHW and OHWI -> OIHW as logical views; libtorch packs them its own way.
  const at::Tensor x = activation(call, int_tensor(xt).permute({0, 3, 1, 2}).contiguous(), q, extra);
  const at::Tensor w = weight(call, int_tensor(wt).permute({0, 3, 1, 2}).contiguous(), q);
  const c10::IValue packed =
      call_op(call, "quantized::conv2d_prepack", "",
              {w, bias<K>(call, q, o, engine), c10::List<std::int64_t>({st[0], st[1]}),
               c10::List<std::int64_t>({pads[0], pads[1]}), c10::List<std::int64_t>({dil[0], dil[1]}), groups});
  const at::Tensor y = call_op(call, "quantized::conv2d", "new", {x, packed, q.ys, q.zy}).toTensor();
  write_int_repr(yt, y.narrow(0, 0, n).permute({0, 2, 3, 1}));
}

}  // namespace qspec::libtorch_adapter
