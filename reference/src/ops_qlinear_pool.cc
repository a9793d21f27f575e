// The engines' quantized pooling operators end to end (spec/operators_qlinear_pool.md): the window
// clause, then the convention's parameter checks (ERROR_IF first), then its per-window arithmetic.
#include <string>

#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/qlinear.h"
#include "qspec/ref/ops/qlinear_armnn.h"
#include "qspec/ref/ops/qlinear_pool.h"
#include "qspec/ref/rounding.h"

namespace qspec::ref::ops {
namespace {

void require_codes(const IntArray& x, DType t, const std::string& op) {
  QSPEC_ERROR_IF(t != DType::I8 && t != DType::U8, op + ": x must be int8 or uint8");
  const Range r = int_range(t);
  for (const auto& v : x.data)
    QSPEC_REQUIRE(v >= r.lo && v <= r.hi, op + ": x codes lie in " + std::string(dtype_name(t)));
}

bool any_pad(const QPoolGeometry& g) { return g.pads[0] != 0 || g.pads[1] != 0 || g.pads[2] != 0 || g.pads[3] != 0; }

// The QLinearParams of the shared fp32 epilogues (qlinear.xnnpack_fp32 / qlinear.onnxruntime).
QLinearParams epilogue_params(const QPoolParams& p) {
  QLinearParams q;
  q.x_type = p.type;
  q.y_zero_point = p.y_zero_point;
  q.y_min = p.y_min;
  q.y_max = p.y_max;
  return q;
}

Int window_acc(const std::vector<Int>& codes, const Int& zp) {
  Int acc(0);
  for (const auto& v : codes) acc += v - zp;
  QSPEC_REQUIRE(acc >= int_range(DType::I32).lo && acc <= int_range(DType::I32).hi,
                "qlinear pool: the window sum fits int32");
  return acc;
}

// ONNX Runtime's pool attribute check (pool_attributes.h): "Pad should be smaller than kernel."
void onnxruntime_pads(const QPoolGeometry& g) {
  for (std::size_t a = 0; a < 2; ++a)
    QSPEC_ERROR_IF(g.pads[a] >= g.kernel[a] || g.pads[a + 2] >= g.kernel[a],
                   "onnxruntime: Pad should be smaller than kernel");
}

// TFLite's REQUIREs of pooling (TFLITE_DCHECKs, compiled out of release builds): equal input and
// output parameters (|x_s - y_s| <= 1e-6 in float, equal zero points) and y_min <= y_max.
void tflite_pool_params(const QPoolParams& p, bool with_scales) {
  const Range r = int_range(p.type);
  const Int lo = p.y_min.value_or(r.lo), hi = p.y_max.value_or(r.hi);
  QSPEC_ERROR_IF(lo < r.lo || hi > r.hi || lo > r.hi || hi < r.lo, "tflite: y_min and y_max must fit the dtype");
  QSPEC_REQUIRE(lo <= hi, "tflite: y_min <= y_max (TFLITE_DCHECK_LE)");
  if (!with_scales) return;
  const std::uint32_t diff = f32_add(p.x_scale, p.y_scale ^ 0x80000000u);  // input scale - output scale
  QSPEC_REQUIRE(float_is_finite(diff, kBinary32) && abs(f32_value(diff)) <= f64_value(0x3eb0c6f7a0b5ed8dULL),
                "tflite: |x_scale - y_scale| <= 1e-6 (TFLITE_DCHECK_LE in pooling.cc)");
  QSPEC_REQUIRE(p.x_zero_point == p.y_zero_point, "tflite: x_zero_point == y_zero_point (TFLITE_DCHECK_EQ)");
}

}  // namespace

// spec: qlinear.pool.window
// spec: qlinear.avg_pool2d.xnnpack_fp32
// spec: qlinear.avg_pool2d.onnxruntime
// spec: qlinear.avg_pool2d.tflite
// spec: qlinear.avg_pool2d.tosa
IntArray qlinear_avg_pool2d(const IntArray& x, const QPoolGeometry& g, bool count_include_pad, const QPoolParams& p,
                            QPoolConvention c) {
  const std::string op = "qlinear.avg_pool2d";
  QSPEC_ERROR_IF(g.dilations[0] != 1 || g.dilations[1] != 1, op + ": average pooling has no dilation");
  if (c == QPoolConvention::OneDnn) return qlinear_onednn_avg_pool2d(x, g, count_include_pad, p);
  const auto [oh, ow] = qlinear_pool_out_size(x.shape, g);
  const std::int64_t H = x.dim(1), W = x.dim(2), K = g.kernel[0] * g.kernel[1];
  IntArray y(Shape{x.dim(0), oh, ow, x.dim(3)});
  std::uint32_t scale = 0;
  bool global = false;
  if (c == QPoolConvention::XnnpackFp32) {
    scale = qlinear_avg_pool2d_xnnpack_scale(p, g, count_include_pad);
    // setup_average_pooling2d: a kernel equal to the padded input runs the (fp32) global kernel.
    global = H + g.pads[0] + g.pads[2] == g.kernel[0] && W + g.pads[1] + g.pads[3] == g.kernel[1];
  } else if (c == QPoolConvention::OnnxRuntime) {
    onnxruntime_pads(g);
    // QLinearAveragePool::ComputeImpl: a kernel equal to the input with no padding falls back to
    // QLinearGlobalAveragePool (integer sum, one float scale).
    global = H == g.kernel[0] && W == g.kernel[1] && !any_pad(g);
    if (global) {
      scale = qlinear_global_avg_pool_onnxruntime_scale(p, K);
    } else {
      const Range r = int_range(p.type);
      QSPEC_ERROR_IF(p.x_zero_point < r.lo || p.x_zero_point > r.hi || p.y_zero_point < r.lo || p.y_zero_point > r.hi,
                     "onnxruntime: the zero points must have x's type");
      QSPEC_REQUIRE(float_is_finite(p.x_scale, kBinary32) && f32_value(p.x_scale) > 0 &&
                        float_is_finite(p.y_scale, kBinary32) && f32_value(p.y_scale) > 0,
                    "onnxruntime: x_scale and y_scale finite and positive");
    }
  } else if (c == QPoolConvention::ArmnnCpuref) {
    qlinear_armnn_pool_check(x.shape, g, p, true);
  } else if (c == QPoolConvention::Tflite) {
    QSPEC_ERROR_IF(count_include_pad && any_pad(g),
                   "tflite: AveragePool never counts the padding (no count_include_pad)");
    tflite_pool_params(p, true);
  } else {
    qlinear_tosa_avgpool_check(p, g, count_include_pad);
  }
  require_codes(x, p.type, op);
  const auto windows = qlinear_pool_window_codes(x, g, oh, ow);
  for (std::size_t i = 0; i < windows.size(); ++i) {
    const auto& codes = windows[i];
    Int out;
    if (c == QPoolConvention::XnnpackFp32) {
      const Int acc = window_acc(codes, p.x_zero_point);  // padded taps hold x_zp: they add 0
      out = global ? qlinear_xnnpack_fp32_output(acc, scale, epilogue_params(p))
                   : qlinear_xnnpack_avgpool_output(acc, scale, p);
    } else if (c == QPoolConvention::OnnxRuntime) {
      out = global ? qlinear_onnxruntime_output(window_acc(codes, p.x_zero_point), scale, epilogue_params(p))
                   : qlinear_onnxruntime_avgpool_output(
                         codes, count_include_pad ? K : static_cast<std::int64_t>(codes.size()), p);
    } else if (c == QPoolConvention::ArmnnCpuref) {
      // A window without a tap lies in the padding (OnPaddingOnly, the shape rule excludes the
      // rest): Arm NN encodes 0.0f. IgnoreValue divides by KH KW, Exclude by the taps.
      const std::uint32_t v =
          codes.empty()
              ? 0u
              : qlinear_armnn_avgpool_value(codes, count_include_pad ? K : static_cast<std::int64_t>(codes.size()), p);
      out = armnn_quantize(v, p.y_scale, p.y_zero_point, p.type);
    } else if (c == QPoolConvention::Tflite) {
      out = qlinear_tflite_avgpool_output(codes, p);
    } else {
      out = qlinear_tosa_avgpool_output(codes);
    }
    y.data[i] = out;
  }
  return y;
}

// spec: qlinear.pool.window
// spec: qlinear.global_avg_pool.xnnpack_fp32
// spec: qlinear.global_avg_pool.onnxruntime
// spec: qlinear.global_avg_pool.tflite
// spec: qlinear.global_avg_pool.tosa
IntArray qlinear_global_avg_pool(const IntArray& x, const QPoolParams& p, QPoolConvention c) {
  const std::string op = "qlinear.global_avg_pool";
  QPoolGeometry g;
  const auto shape_ok = qlinear_pool_out_size(x.shape, g);  // the shape checks (ERROR_IF)
  (void)shape_ok;
  g.kernel = {x.dim(1), x.dim(2)};
  if (c == QPoolConvention::OneDnn) return qlinear_onednn_avg_pool2d(x, g, false, p);  // kernel = the image
  const std::int64_t n = x.dim(1) * x.dim(2);
  if (c == QPoolConvention::ArmnnCpuref) qlinear_armnn_pool_check(x.shape, g, p, true);
  std::uint32_t scale = 0;
  if (c == QPoolConvention::XnnpackFp32) scale = qlinear_global_avg_pool_xnnpack_scale(p, n);
  if (c == QPoolConvention::OnnxRuntime) scale = qlinear_global_avg_pool_onnxruntime_scale(p, n);
  const QuantizedMultiplier tosa = c == QPoolConvention::Tosa ? qlinear_tosa_mean_scale(p, n) : QuantizedMultiplier{};
  require_codes(x, p.type, op);
  const auto windows = qlinear_pool_window_codes(x, g, 1, 1);
  IntArray y(Shape{x.dim(0), 1, 1, x.dim(3)});
  for (std::size_t i = 0; i < windows.size(); ++i) {
    if (c == QPoolConvention::Tosa) {
      y.data[i] = qlinear_tosa_mean_output(qlinear_tosa_mean_sum(windows[i], x.dim(2), p.x_zero_point), tosa, p);
      continue;
    }
    if (c == QPoolConvention::ArmnnCpuref) {
      y.data[i] = armnn_quantize(qlinear_armnn_avgpool_value(windows[i], n, p), p.y_scale, p.y_zero_point, p.type);
      continue;
    }
    const Int acc = window_acc(windows[i], p.x_zero_point);
    y.data[i] = c == QPoolConvention::XnnpackFp32   ? qlinear_xnnpack_fp32_output(acc, scale, epilogue_params(p))
                : c == QPoolConvention::OnnxRuntime ? qlinear_onnxruntime_output(acc, scale, epilogue_params(p))
                                                    : qlinear_tflite_mean_output(acc, n, p);
  }
  return y;
}

// spec: qlinear.pool.window
// spec: qlinear.max_pool2d.xnnpack
// spec: qlinear.max_pool2d.onnxruntime
// spec: qlinear.max_pool2d.tflite
// spec: qlinear.max_pool2d.onednn
// spec: qlinear.max_pool2d.tosa
IntArray qlinear_max_pool2d(const IntArray& x, const QPoolGeometry& g, const QPoolParams& p, QPoolConvention c) {
  const std::string op = "qlinear.max_pool2d";
  const auto [oh, ow] = qlinear_pool_out_size(x.shape, g);
  const Range r = int_range(p.type);
  const Int lo = p.y_min.value_or(r.lo), hi = p.y_max.value_or(r.hi);
  if (c == QPoolConvention::XnnpackFp32) {
    QSPEC_ERROR_IF(g.kernel[0] * g.kernel[1] == 1, "xnnpack.fp32 max pooling: 1x1 pooling is meaningless");
    QSPEC_ERROR_IF(lo < r.lo || lo > r.hi || hi < r.lo || hi > r.hi,
                   "xnnpack.fp32: y_min and y_max must fit the dtype");
    QSPEC_ERROR_IF(lo >= hi, "xnnpack.fp32 max pooling: range min must be below range max");
  } else if (c == QPoolConvention::OnnxRuntime) {
    onnxruntime_pads(g);
  } else if (c == QPoolConvention::OneDnn) {
    QSPEC_ERROR_IF(lo < r.lo || lo > r.hi || hi < r.lo || hi > r.hi, "onednn: y_min and y_max must fit the dtype");
    QSPEC_ERROR_IF(hi < lo, "onednn max pooling: y_max < y_min (eltwise_clip needs beta >= alpha)");
  } else if (c == QPoolConvention::ArmnnCpuref) {
    qlinear_armnn_pool_check(x.shape, g, p, false);
  } else if (c == QPoolConvention::Tosa) {
    qlinear_tosa_maxpool_check(x.shape, g, p);
  } else {
    QSPEC_ERROR_IF(g.dilations[0] != 1 || g.dilations[1] != 1, "tflite: MaxPool has no dilation");
    tflite_pool_params(p, false);
  }
  require_codes(x, p.type, op);
  const auto windows = qlinear_pool_window_codes(x, g, oh, ow);
  IntArray y(Shape{x.dim(0), oh, ow, x.dim(3)});
  for (std::size_t i = 0; i < windows.size(); ++i) {
    // XNNPACK's indirection buffer replaces a padded tap by a border element of the input, which
    // is in the window only when the window holds an input element.
    if (c == QPoolConvention::XnnpackFp32)
      QSPEC_REQUIRE(!windows[i].empty(), "xnnpack.fp32 max pooling: every window holds an input element");
    // Arm NN encodes 0.0f for a window in the padding: the code of the tensors' offset, which
    // qlinear.max_pool2d does not name.
    if (c == QPoolConvention::ArmnnCpuref)
      QSPEC_REQUIRE(!windows[i].empty(), "armnn.cpuref max pooling: every window holds an input element");
    Int m = r.lo;  // std::numeric_limits<T>::lowest(): the value of a window without an input element
    for (const auto& v : windows[i])
      if (v > m) m = v;
    y.data[i] = saturate(m, Range{lo, hi});
  }
  return y;
}

}  // namespace qspec::ref::ops
