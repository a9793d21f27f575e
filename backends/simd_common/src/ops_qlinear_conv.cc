// Handler of qlinear.conv2d (spec/operators_qlinear.md) under xnnpack.fp32, onnxruntime, TFLite, TOSA and oneDNN: the
// exact NHWC convolution of the 8-bit engines (im2col through the GEMM engine, the direct depthwise
// kernel), padded with the input zero point, plus the int32 bias, then the convention's epilogue
// (fused into the kernels' stores where the plan and the accumulator bound allow).
#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "qlinear_common.h"
#include "qspec/catalogue/keys.h"
#include "qspec/simd/conv.h"
#include "qspec/simd/int_tensor.h"

namespace qspec::simd {
namespace {

using nn::reject_if;
using qlinear::Convention;
using qlinear::named;
using qlinear::optional_input;
using Op = cat::qlinear_conv2d;

constexpr const qlinear::Keys& kKeys = qlinear_keys<Op::attr>;

template <std::size_t n>
std::array<std::int64_t, n> fixed(const OpCall& c, const attr::IntArray& key, std::array<std::int64_t, n> d) {
  const auto v = attr::get_or(c.attrs, key, std::vector<std::int64_t>(d.begin(), d.end()));
  reject_if(v.size() != n, "attribute " + std::string(key.name) + " needs " + std::to_string(n) + " entries");
  std::array<std::int64_t, n> out{};
  std::copy(v.begin(), v.end(), out.begin());
  return out;
}

// The output size of one spatial axis. No position: ONNX Runtime rejects it; XNNPACK's run crashes
// (a REQUIRE of qlinear.xnnpack_fp32: Unsupported).
// TFLite: the pads must be VALID's (0, 0) or SAME's (floor(t / 2), t - floor(t / 2)) (padding.h).
std::int64_t out_dim(std::int64_t in, std::int64_t pb, std::int64_t pe, std::int64_t k, std::int64_t d, std::int64_t s,
                     Convention conv) {
  const std::int64_t span = in + pb + pe - (d * (k - 1) + 1);
  if (conv == Convention::kTosa) {
    reject_if(span < 0, "tosa: no output position");
    if (span % s != 0) throw Unsupported("tosa: idiv_check: the stride must divide the span (a REQUIRE)");
  }
  if (qlinear::is_tflite(conv) && (pb != 0 || pe != 0)) {
    const std::int64_t out = (in + s - 1) / s, t = std::max<std::int64_t>((out - 1) * s + d * (k - 1) + 1 - in, 0);
    reject_if(pb != t / 2 || pe != t - t / 2, "tflite: pads are neither VALID's nor SAME's");
  }
  if (conv == Convention::kOnnxRuntime) reject_if(span < 0, "onnxruntime: no output position (Invalid input shape)");
  if (conv == Convention::kPytorchQnnpack || conv == Convention::kPytorchOnednn) {
    reject_if(pb != pe, "pytorch: quantized::conv2d takes one padding per axis");
    reject_if(span < 0, "pytorch: no output position");
  }
  if (span < 0) throw Unsupported("the dilated kernel must fit the padded input (a REQUIRE)");
  return span / s + 1;
}

template <Convention conv>
void qlinear_conv2d(OpCall& c) {
  const qspec_tensor &xt = named(c, Op::in::x), &wt = named(c, Op::in::w);
  const qspec_tensor* bt = optional_input(c, Op::in::b);
  const IntArray x = read_int(xt), w = read_int(wt);
  const auto st = fixed<2>(c, Op::attr::strides, {1, 1}), dl = fixed<2>(c, Op::attr::dilations, {1, 1});
  const auto pd = fixed<4>(c, Op::attr::pads, {0, 0, 0, 0});
  const std::int64_t groups = attr::get_or(c.attrs, Op::attr::groups, std::int64_t{1});
  // qlinear.acc.conv2d's ERROR_IFs.
  reject_if(x.shape.size() != 4 || w.shape.size() != 4, "qlinear.conv2d: x and w must have rank 4");
  reject_if(x.dim(0) < 0 || x.dim(1) < 1 || x.dim(2) < 1 || x.dim(3) < 1, "qlinear.conv2d: x has an empty dimension");
  for (auto d : w.shape) reject_if(d < 1, "qlinear.conv2d: w has an empty dimension");
  for (int i = 0; i < 2; ++i) reject_if(st[i] < 1 || dl[i] < 1, "qlinear.conv2d: strides and dilations must be >= 1");
  for (auto p : pd) reject_if(p < 0, "qlinear.conv2d: pads must be >= 0");
  reject_if(groups < 1, "qlinear.conv2d: groups must be >= 1");
  const std::int64_t C = x.dim(3), O = w.dim(0);
  reject_if(C != groups * w.dim(3) || O % groups != 0, "qlinear.conv2d: channels and groups disagree");
  IntArray b;
  if (bt) {
    b = read_int(*bt);
    reject_if(b.shape != std::vector<std::int64_t>{O}, "qlinear.conv2d: bias b must be (O)");
  }
  const qlinear::Params p = qlinear::read_params(c, kKeys, xt, wt, conv);
  const auto plan = qlinear::plan(p, O, conv, qlinear::OpKind::kConv);
  if constexpr (qlinear::groups_one_or_depthwise(conv))
    reject_if(groups != 1 && groups != C, "tflite / tosa: CONV_2D has groups 1, DEPTHWISE_CONV_2D groups = C");

  ConvGeom g;
  g.n = x.dim(0), g.h = x.dim(1), g.w = x.dim(2), g.c = C, g.o = O, g.kh = w.dim(1), g.kw = w.dim(2);
  g.sh = st[0], g.sw = st[1], g.dh = dl[0], g.dw = dl[1], g.groups = groups;
  g.ph = pd[0], g.pw = pd[1];
  const std::int64_t oh = out_dim(g.h, pd[0], pd[2], g.kh, g.dh, g.sh, conv);
  const std::int64_t ow = out_dim(g.w, pd[1], pd[3], g.kw, g.dw, g.sw, conv);
  g.ph2 = pd[2], g.pw2 = pd[3];

  // OHWI -> OIHW bytes for the packer (the GEMM path reorders to (kh, kw, cg) rows again).
  const std::int64_t taps = g.kh * g.kw, cg = w.dim(3);
  std::vector<std::uint8_t> w_oihw(w.data.size());
  for (std::int64_t o = 0; o < O; ++o)
    for (std::int64_t t = 0; t < taps; ++t)
      for (std::int64_t ci = 0; ci < cg; ++ci)
        w_oihw[static_cast<std::size_t>((o * cg + ci) * taps + t)] =
            static_cast<std::uint8_t>(w.data[static_cast<std::size_t>((o * taps + t) * cg + ci)]);
  std::vector<std::uint8_t> xb(x.data.size());
  for (std::size_t i = 0; i < xb.size(); ++i) xb[i] = static_cast<std::uint8_t>(x.data[i]);

  std::vector<std::int64_t> acc(static_cast<std::size_t>(g.n * oh * ow * O));
  if (!acc.empty()) {
    const bool x_signed = p.x_type == QSPEC_DTYPE_INT8;
    const QConvWeights packed = pack_conv_weights(c.k, g, w_oihw.data(), p.w_type == QSPEC_DTYPE_UINT8, p.w_zero_point,
                                                  p.x_zero_point, p.x_zero_point);
    // The fused route (the requantization in the stores of the depthwise kernel, of the ISA's direct
    // convolution or of the im2col path's GEMM engine) where it applies.
    const auto ep = !conv_fuses_requant(c.k, packed)
                        ? nullptr
                        : qlinear::fused_epilogue(*c.k.gemm, conv, p, plan, taps * cg, O, bt ? &b : nullptr);
    if (std::uint8_t* y = ep ? qlinear::byte_output(c.output(Op::out::y, 0), {g.n, oh, ow, O}) : nullptr) {
      qconv2d_nhwc_requant(c.k, packed, xb.data(), x_signed, p.x_zero_point, p.x_zero_point, *ep, y);
      return;
    }
    qconv2d_nhwc(c.k, packed, xb.data(), x_signed, p.x_zero_point, p.x_zero_point, acc.data());
    if (bt)
      for (std::size_t i = 0; i < acc.size(); ++i)
        acc[i] = qlinear::add_bias(conv, acc[i], b.data[i % static_cast<std::size_t>(O)]);
  }
  qlinear::requantize(c.k, acc, plan, c.output(Op::out::y, 0), {g.n, oh, ow, O});
}

}  // namespace

void add_qlinear_conv_ops(std::vector<OpEntry>& t) {
  const std::string conv = "exact NHWC convolution (GEMM / depthwise engines), ";
  t.push_back(
      entry<Op>(Op::conv::xnnpack_fp32, conv + "XNNPACK fp32 epilogue", qlinear_conv2d<Convention::kXnnpackFp32>));
  t.push_back(
      entry<Op>(Op::conv::onnxruntime, conv + "ONNX Runtime MLAS epilogue", qlinear_conv2d<Convention::kOnnxRuntime>));
  t.push_back(entry<Op>(Op::conv::tflite_double_round, conv + "TFLite Q31 epilogue, double rounding",
                        qlinear_conv2d<Convention::kTfliteDouble>));
  t.push_back(entry<Op>(Op::conv::tflite_single_round, conv + "TFLite Q31 epilogue, single rounding",
                        qlinear_conv2d<Convention::kTfliteSingle>));
  t.push_back(
      entry<Op>(Op::conv::tosa, conv + "TOSA RESCALE (double_round) and CLAMP", qlinear_conv2d<Convention::kTosa>));
  t.push_back(entry<Op>(Op::conv::pytorch_qnnpack, conv + "PyTorch qnnpack: QNNPACK (quint8) / XNNPACK (qint8) fp32",
                        qlinear_conv2d<Convention::kPytorchQnnpack>));
  t.push_back(entry<Op>(Op::conv::onednn, conv + "oneDNN float bias, output scale, zero point before rounding",
                        qlinear_conv2d<Convention::kOnednn>));
  t.push_back(entry<Op>(Op::conv::pytorch_onednn, conv + "PyTorch onednn: reciprocal scales, oneDNN's float epilogue",
                        qlinear_conv2d<Convention::kPytorchOnednn>));
}

}  // namespace qspec::simd
