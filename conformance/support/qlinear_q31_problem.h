// Test helpers for the Q31 conventions of the quantized operators (qlinear.tflite, qlinear.tosa):
// RapidCheck draws of valid problems of either engine, the shared accumulation and the operator run.
#pragma once

#include <rapidcheck.h>

#include <algorithm>
#include <array>
#include <optional>

#include "ops_arrays.h"
#include "qspec/ref/ops/qlinear.h"

namespace qspec::opstest::q31 {

enum class Kind { Conv, Fc, Matmul };
enum class Engine { Tflite, Tosa };

struct Problem {
  Kind kind = Kind::Conv;
  IntArray x, w;
  std::optional<IntArray> b;
  QConvGeometry g;
  QLinearParams p;
};

inline std::uint32_t draw_scale(int emin, int emax) {
  const int e = *rc::gen::inRange(emin, emax + 1);
  const int kind = *rc::gen::inRange(0, 3);
  const auto m = kind == 0   ? 0u
                 : kind == 1 ? *rc::gen::inRange<std::uint32_t>(0, 16) << 19
                             : *rc::gen::inRange<std::uint32_t>(0, 1u << 23);
  return (static_cast<std::uint32_t>(e + 127) << 23) | m;
}
inline int exponent_of(std::uint32_t bits) { return static_cast<int>((bits >> 23) & 0xffu) - 127; }
inline long long lo_of(DType t) { return t == DType::I8 ? -128 : 0; }
inline long long hi_of(DType t) { return t == DType::I8 ? 127 : 255; }

// The pads of one axis: TFLite's SAME (floor(t / 2), t - floor(t / 2)) or VALID (0, 0) (padding.h);
// TOSA's any pads with the end padded so that the stride divides the span (idiv_check).
inline std::array<long long, 2> draw_pads(Engine e, long long in, long long k, long long d, long long s) {
  const long long ek = d * (k - 1) + 1;
  if (e == Engine::Tosa) {
    std::array<long long, 2> p{*rc::gen::inRange(0, 3), *rc::gen::inRange(0, 3)};
    const long long num = in - 1 + p[0] + p[1] - (k - 1) * d;
    if (num < 0) p[1] += -num;
    p[1] += (s - (in - 1 + p[0] + p[1] - (k - 1) * d) % s) % s;
    return p;
  }
  if (in >= ek && *rc::gen::arbitrary<bool>()) return {0, 0};
  const long long out = (in + s - 1) / s, t = std::max<long long>((out - 1) * s + ek - in, 0);
  return {t / 2, t - t / 2};
}

// A valid problem of engine e (of op `kind` if given): int8 (TFLite also uint8 outside matmul),
// per-channel scales where the engine has them, zero points where its kernels take them, an
// optional clamp.
inline Problem draw_problem(Engine e, std::optional<Kind> kind = std::nullopt) {
  Problem pr;
  pr.kind = kind ? *kind : static_cast<Kind>(*rc::gen::inRange(0, 3));
  auto& p = pr.p;
  const bool u8 = e == Engine::Tflite && pr.kind != Kind::Matmul && *rc::gen::inRange(0, 3) == 0;
  p.x_type = p.w_type = u8 ? DType::U8 : DType::I8;
  Shape xs, ws;
  long long channels = 1;
  if (pr.kind == Kind::Conv) {
    const long long C = *rc::gen::inRange(1, 5);
    const bool depthwise = *rc::gen::arbitrary<bool>();
    const long long O = depthwise ? C * *rc::gen::inRange(1, 4) : *rc::gen::inRange(1, 5);
    pr.g.groups = depthwise ? C : 1;
    const long long kh = *rc::gen::inRange(1, 4), kw = *rc::gen::inRange(1, 4);
    pr.g.strides = {*rc::gen::inRange(1, 4), *rc::gen::inRange(1, 4)};
    pr.g.dilations = {*rc::gen::inRange(1, 3), *rc::gen::inRange(1, 3)};
    const long long h = *rc::gen::inRange(1, 7), w = *rc::gen::inRange(1, 7);
    const auto ph = draw_pads(e, h, kh, pr.g.dilations[0], pr.g.strides[0]);
    const auto pw = draw_pads(e, w, kw, pr.g.dilations[1], pr.g.strides[1]);
    pr.g.pads = {ph[0], pw[0], ph[1], pw[1]};
    xs = {*rc::gen::inRange(1, 3), h, w, C};
    ws = {O, kh, kw, C / pr.g.groups};
    channels = O;
  } else if (pr.kind == Kind::Fc) {
    const long long k = *rc::gen::inRange(1, 20), o = *rc::gen::inRange(1, 6);
    xs = {*rc::gen::inRange(1, 4), k}, ws = {o, k}, channels = o;
  } else {
    const long long m = *rc::gen::inRange(1, 4), k = *rc::gen::inRange(1, 12), n = *rc::gen::inRange(1, 5);
    const long long b1 = *rc::gen::inRange(1, 3), b2 = *rc::gen::inRange(1, 3);
    switch (*rc::gen::inRange(0, 3)) {
      case 0: xs = {m, k}, ws = {k, n}; break;
      case 1: xs = {b1, m, k}, ws = e == Engine::Tosa ? Shape{b1, k, n} : Shape{k, n}; break;
      default: xs = {b1, 1, m, k}, ws = e == Engine::Tosa ? Shape{b1, 1, k, n} : Shape{b2, k, n}; break;
    }
    channels = n;
  }
  pr.x = draw_array(xs, lo_of(p.x_type), hi_of(p.x_type));
  pr.w = draw_array(ws, lo_of(p.w_type), hi_of(p.w_type));
  const bool pc_allowed = e == Engine::Tosa || (pr.kind != Kind::Matmul && !u8);
  const bool per_channel = pc_allowed && channels > 1 && *rc::gen::arbitrary<bool>();
  p.x_zero_point = *rc::gen::inRange(lo_of(p.x_type), hi_of(p.x_type) + 1);
  // TFLite's per-channel kernels (every int8 convolution, a per-channel fully connected) have none.
  const bool symmetric = e == Engine::Tflite && !u8 && (pr.kind == Kind::Conv || per_channel);
  p.w_zero_point = symmetric ? 0 : *rc::gen::inRange(lo_of(p.w_type), hi_of(p.w_type) + 1);
  p.y_zero_point = *rc::gen::inRange(lo_of(p.x_type), hi_of(p.x_type) + 1);
  if (pr.kind != Kind::Matmul && *rc::gen::arbitrary<bool>()) pr.b = draw_array({channels}, -(1 << 16), 1 << 16);
  p.x_scale = draw_scale(-10, 0);
  p.w_scales.clear();
  const int ew = *rc::gen::inRange(-10, 1);
  for (long long o = 0; o < (per_channel ? channels : 1); ++o) p.w_scales.push_back(draw_scale(ew - 2, ew + 2));
  const int es = *rc::gen::inRange(-20, 1);  // log2 of the target multiplier
  p.y_scale = draw_scale(exponent_of(p.x_scale) + ew - es, exponent_of(p.x_scale) + ew - es);
  if (*rc::gen::inRange(0, 3) == 0) {
    const long long lo = *rc::gen::inRange(lo_of(p.x_type), hi_of(p.x_type) + 1);
    p.y_min = Int(lo);
    p.y_max = Int(*rc::gen::inRange(lo, hi_of(p.x_type) + 1));
  }
  return pr;
}

inline std::uint32_t w_scale_of(const QLinearParams& p, std::size_t o) {
  return p.w_scales[p.w_scales.size() == 1 ? 0 : o];
}

// The accumulation with the output size floor((in + pb + pe - e) / S) + 1 (the drawn pads make it
// the engine's: SAME / VALID, or TOSA's exact division).
inline IntArray accumulate(const Problem& pr) {
  const IntArray* b = pr.b ? &*pr.b : nullptr;
  if (pr.kind == Kind::Conv) {
    std::array<long long, 2> out{};
    for (std::size_t a = 0; a < 2; ++a)
      out[a] =
          (pr.x.shape[a + 1] + pr.g.pads[a] + pr.g.pads[a + 2] - (pr.g.dilations[a] * (pr.w.shape[a + 1] - 1) + 1)) /
              pr.g.strides[a] +
          1;
    return qlinear_acc_conv2d(pr.x, pr.w, b, pr.g, pr.p.x_zero_point, pr.p.w_zero_point, out[0], out[1]);
  }
  if (pr.kind == Kind::Fc) return qlinear_acc_fully_connected(pr.x, pr.w, b, pr.p.x_zero_point, pr.p.w_zero_point);
  return qlinear_acc_matmul(pr.x, pr.w, pr.p.x_zero_point, pr.p.w_zero_point);
}

// The operator through the reference; a case outside its REQUIREs is discarded.
inline IntArray run(const Problem& pr, QLinearConvention c) {
  const IntArray* b = pr.b ? &*pr.b : nullptr;
  try {
    if (pr.kind == Kind::Conv) return qlinear_conv2d(pr.x, pr.w, b, pr.g, pr.p, c);
    if (pr.kind == Kind::Fc) return qlinear_fully_connected(pr.x, pr.w, b, pr.p, c);
    return qlinear_matmul(pr.x, pr.w, pr.p, c);
  } catch (const RequireViolated&) {
    RC_DISCARD("outside a REQUIRE");
  }
}

}  // namespace qspec::opstest::q31
