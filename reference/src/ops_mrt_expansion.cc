// MRT expansion helpers that are not templates: dequantization, term scales, realize, quantize_scale.
#include <string>

#include "qspec/ref/ops/mrt_expansion.h"
#include "qspec/ref/rounding.h"
#include "qspec/ref/types.h"

namespace qspec::ref::ops {

// spec: mrt.dequantize
Rat dequantize(const Int& q, const OperandQ& p) {
  QSPEC_REQUIRE(p.scale > 0 && p.zp_scale > 0, "operand scales are positive");
  return Rat(q) / p.scale + Rat(p.zp) / p.zp_scale;
}

RatArray dequantize(const IntArray& q, const OperandQ& p) {
  return map_array<Rat>(q, [&](const Int& v) { return dequantize(v, p); });
}

// spec: mrt.expand.conv2d_sym
std::vector<Rat> conv2d_term_scales(ExpKind kind, const OperandQ& x, const OperandQ& w) {
  const Rat sxw = x.scale * w.scale;
  switch (kind) {
    case ExpKind::Sym:
      return {sxw};
    case ExpKind::ZpX:  // Ye2 = zx * sum Wq: real zx/zsc_x * sum Wq / sc_w
      return {sxw, x.zp_scale * w.scale};
    case ExpKind::ZpW:  // Ye2 = zw * sum Xq: real zw/zsc_w * sum Xq / sc_x
      return {sxw, x.scale * w.zp_scale};
    case ExpKind::ZpXW:
      QSPEC_REQUIRE(x.zp_scale == x.scale && w.zp_scale == w.scale,
              "Convolution 4 sums its terms in one integer: zero points at the operands' scales");
      return {sxw, sxw, sxw, sxw};
  }
  return {};
}

// spec: mrt.expand.fc_sym
Rat fc_scale(ExpKind kind, const OperandQ& x, const OperandQ& w) {
  if (kind == ExpKind::ZpX || kind == ExpKind::ZpXW)
    QSPEC_REQUIRE(x.zp_scale == x.scale, "FullyConnected sums zp_x * sum(Wq) into Ye: zp_x at scale sc_x");
  if (kind == ExpKind::ZpW || kind == ExpKind::ZpXW)
    QSPEC_REQUIRE(w.zp_scale == w.scale, "FullyConnected sums zp_w * sum(Xq) into Ye: zp_w at scale sc_w");
  return x.scale * w.scale;
}

// spec: mrt.realize
Int realize(const Int& ye, const Int& frac, int exp, int prec) {
  QSPEC_ERROR_IF(frac < 1, "realize: frac must be >= 1 (cvm_float returns a positive mantissa)");
  const Range r = mrt_sym_range(prec);  // ERROR_IF prec outside [1, 32]
  // Ye * frac * 2^exp, rounded half up: cvm_right_shift's floor((v + 2^(s-1)) / 2^s) for exp < 0,
  // exact for exp >= 0 (cvm_left_shift); round_half_up of an integer is that integer.
  const Int v = round_half_up(Rat(ye * frac) * pow2r(exp));
  return saturate(v, r);
}

IntArray realize(const IntArray& ye, const Int& frac, int exp, int prec) {
  return map_array<Int>(ye, [&](const Int& v) { return realize(v, frac, exp, prec); });
}

// spec: mrt.expand.conv2d_zpx
IntArray recombine_two(const IntArray& ye1, const IntArray& ye2, const Int& frac1, int exp1, const Int& frac2, int exp2,
                       int prec) {
  check_same_shape(ye1.shape, ye2.shape, "quantize_scale");
  IntArray a = realize(ye1, frac1, exp1, prec), b = realize(ye2, frac2, exp2, prec);
  for (std::size_t i = 0; i < a.data.size(); ++i) a.data[i] += b.data[i];
  return a;
}

// spec: mrt.op.quantize_scale
IntArray quantize_scale(const std::vector<IntArray>& xs, const std::vector<Int>& fracs, const std::vector<int>& exps,
                        int oprec, CombineOp op, std::int64_t axis) {
  QSPEC_ERROR_IF(xs.empty(), "quantize_scale: needs at least one input");
  QSPEC_ERROR_IF(fracs.size() != xs.size() || exps.size() != xs.size(),
           "quantize_scale: one (frac, exp) multiplier per input");
  std::vector<IntArray> q;
  for (std::size_t i = 0; i < xs.size(); ++i) q.push_back(realize(xs[i], fracs[i], exps[i], oprec));
  switch (op) {
    case CombineOp::BroadcastAdd:
      QSPEC_ERROR_IF(q.size() != 2, "broadcast_add: exactly 2 inputs");
      return broadcast_add(q[0], q[1]);
    case CombineOp::ElemwiseAdd:
      QSPEC_ERROR_IF(q.size() != 2, "elemwise_add: exactly 2 inputs");
      return elemwise_add(q[0], q[1]);
    case CombineOp::AddN:
      return add_n(q);
    case CombineOp::Concat:
      return concat(q, axis);
  }
  return {};
}

// spec: mrt.expand.error_bound
Rat product_error_bound(const Rat& xr, const Rat& wr, const Rat& sc_x, const Rat& sc_w) {
  // xq/sc_x = xr + ex, wq/sc_w = wr + ew: the product differs by xr ew + wr ex + ex ew.
  return abs(xr) / (2 * sc_w) + abs(wr) / (2 * sc_x) + 1 / (4 * sc_x * sc_w);
}

// spec: mrt.expand.error_bound
Rat quantize_scale_error_bound(const Rat& xr, const Rat& m, const Rat& sc_i, const Rat& sc_y) {
  // Yq = half_up(X m) = X m + e, |e| <= 1/2; Yq / sc_y - X / sc_i = e / sc_y + xr (m sc_i / sc_y - 1).
  return 1 / (2 * sc_y) + abs(xr) * abs(m * sc_i / sc_y - 1);
}

}  // namespace qspec::ref::ops
