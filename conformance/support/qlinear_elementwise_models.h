// The bridge between the exact reference of quantized add / mul (qlinear_elementwise.h) and its
// hardware transliteration (qlinear_elementwise_hw.h), shared by the property and exhaustive tests:
// one parameter set in both forms, and the transliteration's element function of (op, convention).
#pragma once

#include <bit>
#include <cstdint>
#include <functional>
#include <optional>

#include "qlinear_elementwise_hw.h"
#include "qspec/ref/ops/qlinear_elementwise.h"

namespace qspec::qlinear_ew_models {

using ref::DType;
using ref::Int;
using ref::ops::QEwConvention;
using ref::ops::QEwOp;
using ref::ops::QEwParams;

inline qlinear_ew_hw::Params hw_params(const QEwParams& p) {
  qlinear_ew_hw::Params h;
  h.u8 = p.type == DType::U8;
  h.sa = std::bit_cast<float>(p.a_scale), h.sb = std::bit_cast<float>(p.b_scale),
  h.sy = std::bit_cast<float>(p.y_scale);
  h.za = static_cast<std::int64_t>(p.a_zero_point), h.zb = static_cast<std::int64_t>(p.b_zero_point);
  h.zy = static_cast<std::int64_t>(p.y_zero_point);
  h.lo = p.y_min ? static_cast<std::int64_t>(*p.y_min) : qlinear_ew_hw::type_lo(h);
  h.hi = p.y_max ? static_cast<std::int64_t>(*p.y_max) : qlinear_ew_hw::type_hi(h);
  return h;
}

using HwElement = std::function<std::int64_t(std::int64_t, std::int64_t)>;

// The transliteration's element function; empty where the engine rejects the parameters
// (XNNPACK's ratio limits, TFLite's multiplier checks), which the reference must reject too.
inline HwElement hw_element(QEwOp op, QEwConvention c, const QEwParams& rp) {
  namespace hw = qlinear_ew_hw;
  const hw::Params p = hw_params(rp);
  const bool single = c == QEwConvention::TfliteSingleRound;
  if (op == QEwOp::Add) {
    if (c == QEwConvention::XnnpackFp32) {
      hw::XnnAdd k;
      if (!hw::xnn_add_params(p, k)) return {};
      return [p, k](std::int64_t a, std::int64_t b) { return hw::xnn_add(p, k, a, b); };
    }
    if (c == QEwConvention::OnnxRuntime) {
      const hw::OrtAdd k = hw::ort_add_params(p);
      return [p, k](std::int64_t a, std::int64_t b) { return hw::ort_add(p, k, a, b); };
    }
    hw::TflAdd k;
    if (!hw::tfl_add_params(p, single, k)) return {};
    return [p, k, single](std::int64_t a, std::int64_t b) { return hw::tfl_add(p, k, single, a, b); };
  }
  if (c == QEwConvention::XnnpackFp32) {
    const float s = hw::xnn_mul_scale(p);
    if (!(s >= 0x1.0p-16f && s < 0x1.0p+8f)) return {};
    return [p, s](std::int64_t a, std::int64_t b) { return hw::xnn_mul(p, s, a, b); };
  }
  if (c == QEwConvention::OnnxRuntime) {
    const float r = hw::xnn_mul_scale(p);  // the same ScaleA * ScaleB / ScaleC in float
    return [p, r](std::int64_t a, std::int64_t b) { return hw::ort_mul(p, r, a, b); };
  }
  const hw::Q31 q = hw::tfl_mul_params(p, single);
  return [p, q, single](std::int64_t a, std::int64_t b) { return hw::tfl_mul(p, q, single, a, b); };
}

}  // namespace qspec::qlinear_ew_models
