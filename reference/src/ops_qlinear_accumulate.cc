// The exact accumulators of the engines' quantized operators (spec/operators_qlinear.md, qlinear.acc.*).
#include <algorithm>
#include <string>

#include "qspec/ref/ops/qlinear.h"

namespace qspec::ref::ops {
namespace {

std::string s(std::int64_t v) { return std::to_string(v); }

void check_rank(const Shape& t, std::size_t r, const std::string& what) {
  QSPEC_ERROR_IF(t.size() != r, what + " must have rank " + s(static_cast<std::int64_t>(r)) + ", got " + shape_str(t));
}
void check_positive(const Shape& t, const std::string& what) {
  for (auto d : t) QSPEC_ERROR_IF(d < 1, what + " has an empty dimension " + shape_str(t));
}
void check_bias(const Shape* bias, std::int64_t o, const std::string& op) {
  if (bias) QSPEC_ERROR_IF(*bias != Shape{o}, op + ": bias b must be (O) = (" + s(o) + "), got " + shape_str(*bias));
}

}  // namespace

// spec: qlinear.acc.conv2d
void qlinear_conv2d_check(const Shape& x, const Shape& w, const Shape* bias, const QConvGeometry& g) {
  const std::string op = "qlinear.conv2d";
  check_rank(x, 4, op + ": x (N,H,W,C)");
  check_rank(w, 4, op + ": w (O,KH,KW,C/groups)");
  // N may be 0 (an empty batch: XNNPACK skips it, ONNX Runtime returns an empty output).
  check_positive(Shape(x.begin() + 1, x.end()), op + ": x (H,W,C)");
  check_positive(w, op + ": w");
  for (int i = 0; i < 2; ++i) {
    QSPEC_ERROR_IF(g.strides[static_cast<std::size_t>(i)] < 1, op + ": strides must be >= 1");
    QSPEC_ERROR_IF(g.dilations[static_cast<std::size_t>(i)] < 1, op + ": dilations must be >= 1");
  }
  for (auto p : g.pads) QSPEC_ERROR_IF(p < 0, op + ": pads must be >= 0");
  QSPEC_ERROR_IF(g.groups < 1, op + ": groups must be >= 1");
  QSPEC_ERROR_IF(x[3] != g.groups * w[3], op + ": C = " + s(x[3]) + " is not groups (" + s(g.groups) +
                                              ") * the weights' channels (" + s(w[3]) + ")");
  QSPEC_ERROR_IF(w[0] % g.groups != 0, op + ": O = " + s(w[0]) + " is not divisible by groups " + s(g.groups));
  check_bias(bias, w[0], op);
}

// spec: qlinear.acc.conv2d
IntArray qlinear_acc_conv2d(const IntArray& x, const IntArray& w, const IntArray* bias, const QConvGeometry& g,
                            const Int& zx, const Int& zw, std::int64_t oh, std::int64_t ow) {
  const std::int64_t N = x.dim(0), H = x.dim(1), W = x.dim(2);
  const std::int64_t O = w.dim(0), KH = w.dim(1), KW = w.dim(2), Cg = w.dim(3);
  const std::int64_t opg = O / g.groups;
  IntArray y({N, oh, ow, O});
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t p = 0; p < oh; ++p)
      for (std::int64_t q = 0; q < ow; ++q)
        for (std::int64_t o = 0; o < O; ++o) {
          const std::int64_t grp = o / opg;
          Int acc = bias ? bias->data[static_cast<std::size_t>(o)] : Int(0);
          for (std::int64_t i = 0; i < KH; ++i)
            for (std::int64_t j = 0; j < KW; ++j) {
              const std::int64_t h = p * g.strides[0] - g.pads[0] + i * g.dilations[0];
              const std::int64_t v = q * g.strides[1] - g.pads[1] + j * g.dilations[1];
              if (h < 0 || h >= H || v < 0 || v >= W) continue;  // X^ = zx: the term is 0
              for (std::int64_t c = 0; c < Cg; ++c)
                acc += (x.at4(n, h, v, grp * Cg + c) - zx) * (w.at4(o, i, j, c) - zw);
            }
          y.at4(n, p, q, o) = acc;
        }
  return y;
}

// spec: qlinear.acc.fully_connected
void qlinear_fully_connected_check(const Shape& x, const Shape& w, const Shape* bias) {
  const std::string op = "qlinear.fully_connected";
  check_rank(x, 2, op + ": x (N,K)");
  check_rank(w, 2, op + ": w (O,K)");
  QSPEC_ERROR_IF(x[1] != w[1], op + ": K differs: x " + shape_str(x) + ", w " + shape_str(w));
  QSPEC_ERROR_IF(x[1] < 1 || w[0] < 1, op + ": K and O must be >= 1");
  QSPEC_ERROR_IF(x[0] < 0, op + ": N must be >= 0");
  check_bias(bias, w[0], op);
}

// spec: qlinear.acc.fully_connected
IntArray qlinear_acc_fully_connected(const IntArray& x, const IntArray& w, const IntArray* bias, const Int& zx,
                                     const Int& zw) {
  const std::int64_t N = x.dim(0), K = x.dim(1), O = w.dim(0);
  IntArray y({N, O});
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t o = 0; o < O; ++o) {
      Int acc = bias ? bias->data[static_cast<std::size_t>(o)] : Int(0);
      for (std::int64_t k = 0; k < K; ++k) acc += (x.at2(n, k) - zx) * (w.at2(o, k) - zw);
      y.at2(n, o) = acc;
    }
  return y;
}

// spec: qlinear.acc.matmul
Shape qlinear_matmul_output_shape(const Shape& a, const Shape& b) {
  const std::string op = "qlinear.matmul";
  QSPEC_ERROR_IF(a.size() < 2, op + ": a must have rank >= 2, got " + shape_str(a));
  QSPEC_ERROR_IF(b.size() < 2, op + ": b must have rank >= 2, got " + shape_str(b));
  check_positive(a, op + ": a");
  check_positive(b, op + ": b");
  QSPEC_ERROR_IF(a[a.size() - 1] != b[b.size() - 2], op + ": K differs: a " + shape_str(a) + ", b " + shape_str(b));
  const std::size_t ra = a.size() - 2, rb = b.size() - 2, r = std::max(ra, rb);
  Shape out(r);
  for (std::size_t k = 0; k < r; ++k) {  // right-aligned batch dimensions; a missing one is 1
    const std::int64_t da = k + ra >= r ? a[k + ra - r] : 1, db = k + rb >= r ? b[k + rb - r] : 1;
    QSPEC_ERROR_IF(da != db && da != 1 && db != 1,
                   op + ": batch dimensions do not broadcast: a " + shape_str(a) + ", b " + shape_str(b));
    out[k] = da == 1 ? db : da;
  }
  out.push_back(a[a.size() - 2]);
  out.push_back(b[b.size() - 1]);
  return out;
}

// spec: qlinear.acc.matmul
IntArray qlinear_acc_matmul(const IntArray& a, const IntArray& b, const Int& za, const Int& zb) {
  IntArray y(qlinear_matmul_output_shape(a.shape, b.shape));
  const std::size_t r = y.shape.size() - 2, ra = a.shape.size() - 2, rb = b.shape.size() - 2;
  const std::int64_t M = a.shape[ra], K = a.shape[ra + 1], N = b.shape[rb + 1];
  Shape batch(y.shape.begin(), y.shape.begin() + static_cast<std::ptrdiff_t>(r));
  const std::int64_t batches = shape_numel(batch);
  for (std::int64_t bi = 0; bi < batches; ++bi) {
    const Shape idx = unravel(bi, batch);
    Shape ia(a.shape.size()), ib(b.shape.size());
    for (std::size_t k = 0; k < ra; ++k) ia[k] = a.shape[k] == 1 ? 0 : idx[k + r - ra];
    for (std::size_t k = 0; k < rb; ++k) ib[k] = b.shape[k] == 1 ? 0 : idx[k + r - rb];
    Shape iy = idx;
    iy.resize(r + 2);
    for (std::int64_t m = 0; m < M; ++m)
      for (std::int64_t n = 0; n < N; ++n) {
        Int acc = 0;
        for (std::int64_t k = 0; k < K; ++k) {
          ia[ra] = m, ia[ra + 1] = k;
          ib[rb] = k, ib[rb + 1] = n;
          acc += (a.at(ia) - za) * (b.at(ib) - zb);
        }
        iy[r] = m, iy[r + 1] = n;
        y.at(iy) = acc;
      }
  }
  return y;
}

}  // namespace qspec::ref::ops
