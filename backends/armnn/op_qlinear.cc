// qlinear.conv2d and qlinear.fully_connected through Arm NN's Convolution2d, DepthwiseConvolution2d
// and FullyConnected layers on CpuRef (NHWC, QAsymmS8 / QAsymmU8 tensors, a Signed32 bias of scale
// x_scale * w_scale). What Arm NN cannot run is refused with the reason (spec/operators_qlinear_armnn.md).
#include <array>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "network.h"
#include "ops.h"
#include "qspec/catalogue/keys.h"
#include "qspec/core/attr.h"
#include "qspec/thirdparty/tensor_io.h"

namespace qspec::armnn_adapter {
namespace {

using thirdparty::Call;
using thirdparty::Unsupported;

std::vector<std::uint8_t> bytes_of(const qspec_tensor& t) {
  std::vector<std::uint8_t> b;
  for (auto v : thirdparty::read_ints(t)) b.push_back(static_cast<std::uint8_t>(v));
  return b;
}

armnn::TensorShape shape_of(const std::vector<std::int64_t>& s) {
  std::vector<unsigned> d;
  for (auto v : s) d.push_back(static_cast<unsigned>(v));
  return armnn::TensorShape(static_cast<unsigned>(d.size()), d.data());
}

// The parameters every layer shares, with what Arm NN cannot express refused.
struct Params {
  float x_scale, w_scale, y_scale;
  std::int32_t x_zp, w_zp, y_zp;
};
template <class Attr>
Params read_params(const Call& call, qspec_dtype xt) {
  const auto& a = call.attrs;
  const auto ws = attr::get(a, Attr::w_scales);
  if (ws.size() != 1)
    call.refuse(
        "per-axis weight scales need QSymmS8 weights: Arm NN 20.08's CpuRef FullyConnected rejects them, its "
        "Convolution2d dies with SIGFPE (errata E-ARMNN-1)");
  // Arm NN's layers have no fused clamp (a separate Activation layer would requantize).
  const std::int64_t lo = thirdparty::dtype_min(xt), hi = thirdparty::dtype_max(xt);
  if (attr::get_or(a, Attr::y_min, lo) != lo || attr::get_or(a, Attr::y_max, hi) != hi)
    throw Unsupported("Arm NN's layers have no fused output clamp (y_min / y_max)");
  Params p{};
  p.x_scale = f32(attr::get(a, Attr::x_scale));
  p.w_scale = f32(ws[0]);
  p.y_scale = f32(attr::get(a, Attr::y_scale));
  p.x_zp = static_cast<std::int32_t>(attr::get(a, Attr::x_zero_point));
  p.w_zp = static_cast<std::int32_t>(attr::get_or(a, Attr::w_zero_point, std::int64_t{0}));
  p.y_zp = static_cast<std::int32_t>(attr::get(a, Attr::y_zero_point));
  return p;
}

// The key of a network: op, attributes, and every constant and input shape.
std::string key_of(const Call& call, const std::vector<std::int64_t>& xs, qspec_dtype xt, const qspec_tensor& w,
                   const qspec_tensor* b) {
  std::string k = call.op + "|" + call.attrs.dump() + "|" + std::to_string(xt);
  for (auto v : xs) k += "," + std::to_string(v);
  for (auto v : thirdparty::shape_of(w)) k += "w" + std::to_string(v);
  k += "|" + std::to_string(w.dtype) + ":";
  for (auto v : thirdparty::read_ints(w)) k += std::to_string(v) + ",";
  if (b)
    for (auto v : thirdparty::read_ints(*b)) k += "b" + std::to_string(v);
  return k;
}

// Builds (or finds) the network, runs it on x and writes y.
void execute(const Call& call, const qspec_tensor& x, const std::vector<std::int64_t>& y_shape, const Params& p,
             const std::string& key, const std::function<armnn::IConnectableLayer*(armnn::INetwork&)>& build) {
  const armnn::TensorInfo in(shape_of(thirdparty::shape_of(x)), data_type(x.dtype), p.x_scale, p.x_zp);
  const armnn::TensorInfo out(shape_of(y_shape), data_type(x.dtype), p.y_scale, p.y_zp);
  const LoadedNetwork* n = nullptr;
  try {
    n = &network(key, in, out, build);
  } catch (const std::exception& e) {
    call.refuse(e.what());
  }
  const std::vector<std::uint8_t> xb = bytes_of(x);
  std::vector<std::uint8_t> yb(n->output_bytes);
  run(*n, xb.data(), yb.data());
  std::vector<std::int64_t> y;
  for (auto v : yb) y.push_back(x.dtype == QSPEC_DTYPE_INT8 ? static_cast<std::int8_t>(v) : v);
  thirdparty::write_ints(call.output(cat::qlinear_conv2d::out::y), y);
}

// A bias tensor of scale fl32(x_scale * w_scale), offset 0 (what Arm NN's validation expects).
std::optional<armnn::ConstTensor> bias_tensor(const qspec_tensor* b, const Params& p, std::vector<std::int32_t>& data) {
  if (!b) return std::nullopt;
  for (auto v : thirdparty::read_ints(*b)) data.push_back(static_cast<std::int32_t>(v));
  const armnn::TensorInfo info(shape_of(thirdparty::shape_of(*b)), armnn::DataType::Signed32, p.x_scale * p.w_scale, 0);
  return armnn::ConstTensor(info, data.data());
}

}  // namespace

void run_fully_connected(const Call& call) {
  using Op = cat::qlinear_fully_connected;
  const qspec_tensor &x = call.input(Op::in::x), &w = call.input(Op::in::w);
  const qspec_tensor* b = call.has_input(Op::in::b) ? &call.input(Op::in::b) : nullptr;
  const Params p = read_params<Op::attr>(call, x.dtype);
  const auto xs = thirdparty::shape_of(x), ws = thirdparty::shape_of(w);
  if (xs.size() != 2 || ws.size() != 2 || xs[1] != ws[1])
    call.refuse("FullyConnected: x (N, K) and w (O, K) with one K");
  const std::vector<std::uint8_t> wb = bytes_of(w);
  std::vector<std::int32_t> bd;
  const auto bias = bias_tensor(b, p, bd);
  execute(call, x, {xs[0], ws[0]}, p, key_of(call, xs, x.dtype, w, b), [&](armnn::INetwork& net) {
    armnn::FullyConnectedDescriptor d;
    d.m_BiasEnabled = bias.has_value();
    d.m_TransposeWeightMatrix = true;  // weights (O, K)
    const armnn::ConstTensor wt(armnn::TensorInfo(shape_of(ws), data_type(w.dtype), p.w_scale, p.w_zp), wb.data());
    armnn::Optional<armnn::ConstTensor> bo;
    if (bias) bo = *bias;
    return net.AddFullyConnectedLayer(d, wt, bo, "fc");
  });
}

void run_conv2d(const Call& call) {
  using Op = cat::qlinear_conv2d;
  const qspec_tensor &x = call.input(Op::in::x), &w = call.input(Op::in::w);
  const qspec_tensor* b = call.has_input(Op::in::b) ? &call.input(Op::in::b) : nullptr;
  const Params p = read_params<Op::attr>(call, x.dtype);
  const auto& a = call.attrs;
  const auto st = attr::get_or(a, Op::attr::strides, std::vector<std::int64_t>{1, 1});
  const auto dl = attr::get_or(a, Op::attr::dilations, std::vector<std::int64_t>{1, 1});
  const auto pd = attr::get_or(a, Op::attr::pads, std::vector<std::int64_t>{0, 0, 0, 0});
  const std::int64_t groups = attr::get_or(a, Op::attr::groups, std::int64_t{1});
  const auto xs = thirdparty::shape_of(x), ws = thirdparty::shape_of(w);
  // Arm NN's descriptors are unsigned and its shape inference divides by the stride.
  if (st.size() != 2 || dl.size() != 2 || pd.size() != 4 || st[0] < 1 || st[1] < 1 || dl[0] < 1 || dl[1] < 1)
    call.refuse("strides and dilations must be 2 entries >= 1, pads 4 entries");
  for (auto v : pd)
    if (v < 0) call.refuse("a negative pad (Arm NN's pads are unsigned)");
  if (xs.size() != 4 || ws.size() != 4) call.refuse("x (N, H, W, C) and w (O, KH, KW, C / groups)");
  const std::int64_t C = xs[3], O = ws[0], KH = ws[1], KW = ws[2];
  if (groups != 1 && groups != C) call.refuse("Arm NN has Convolution2d (groups 1) and DepthwiseConvolution2d only");
  if (groups == C && C > 1 && (ws[3] != 1 || O % C != 0)) call.refuse("depthwise weights must be (C M, KH, KW, 1)");
  std::array<std::int64_t, 2> out{};
  for (std::size_t i = 0; i < 2; ++i) {
    const std::int64_t span = xs[i + 1] + pd[i] + pd[i + 2] - (dl[i] * ((i == 0 ? KH : KW) - 1) + 1);
    if (span < 0) throw Unsupported("the dilated kernel is larger than the padded input (Arm NN's shapes wrap)");
    out[i] = span / st[i] + 1;
  }
  std::vector<std::uint8_t> wb = bytes_of(w);
  std::vector<std::int64_t> wshape = ws;
  const bool depthwise = groups == C && groups > 1;
  if (depthwise) {  // OHWI (C M, KH, KW, 1) -> Arm NN 20.08's [M, C, KH, KW]
    const std::int64_t M = O / C;
    std::vector<std::uint8_t> t(wb.size());
    for (std::int64_t o = 0; o < O; ++o)
      for (std::int64_t i = 0; i < KH * KW; ++i)
        t[static_cast<std::size_t>((((o % M) * C + o / M) * KH * KW) + i)] =
            wb[static_cast<std::size_t>(o * KH * KW + i)];
    wb = t;
    wshape = {M, C, KH, KW};
  }
  std::vector<std::int32_t> bd;
  const auto bias = bias_tensor(b, p, bd);
  execute(call, x, {xs[0], out[0], out[1], O}, p, key_of(call, xs, x.dtype, w, b), [&](armnn::INetwork& net) {
    const armnn::ConstTensor wt(armnn::TensorInfo(shape_of(wshape), data_type(w.dtype), p.w_scale, p.w_zp), wb.data());
    armnn::Optional<armnn::ConstTensor> bo;
    if (bias) bo = *bias;
    auto fill = [&](auto& d) {
      d.m_PadTop = static_cast<unsigned>(pd[0]), d.m_PadLeft = static_cast<unsigned>(pd[1]);
      d.m_PadBottom = static_cast<unsigned>(pd[2]), d.m_PadRight = static_cast<unsigned>(pd[3]);
      d.m_StrideY = static_cast<unsigned>(st[0]), d.m_StrideX = static_cast<unsigned>(st[1]);
      d.m_DilationY = static_cast<unsigned>(dl[0]), d.m_DilationX = static_cast<unsigned>(dl[1]);
      d.m_BiasEnabled = bias.has_value();
      d.m_DataLayout = armnn::DataLayout::NHWC;
    };
    if (depthwise) {
      armnn::DepthwiseConvolution2dDescriptor d;
      fill(d);
      return net.AddDepthwiseConvolution2dLayer(d, wt, bo, "depthwise");
    }
    armnn::Convolution2dDescriptor d;
    fill(d);
    return net.AddConvolution2dLayer(d, wt, bo, "conv");
  });
}

}  // namespace qspec::armnn_adapter
