// The engines' quantized elementwise operators end to end (spec/operators_qlinear_elementwise.md):
// the NumPy broadcast shared by every convention, the dtype and shape checks, then the element
// function of (op, convention) at every output position.
#include <string>

#include "qspec/ref/ops/nn.h"
#include "qspec/ref/ops/qlinear_elementwise.h"

namespace qspec::ref::ops {

// spec: qlinear.ew.broadcast
QEwBroadcast qlinear_ew_broadcast(const Shape& a, const Shape& b) {
  QEwBroadcast r;
  r.out = broadcast_shape(a, b);  // ERROR_IF an aligned pair differs and neither is 1
  const std::size_t rank = r.out.size();
  const auto n = static_cast<std::size_t>(shape_numel(r.out));
  r.a_offset.resize(n);
  r.b_offset.resize(n);
  for (std::size_t off = 0; off < n; ++off) {
    const Shape idx = unravel(static_cast<std::int64_t>(off), r.out);
    // Right-aligned: axis j of an operand of rank k is output axis rank - k + j; a unit axis reads index 0.
    auto offset_in = [&](const Shape& s) {
      std::int64_t o = 0;
      for (std::size_t j = 0; j < s.size(); ++j) o = o * s[j] + (s[j] == 1 ? 0 : idx[rank - s.size() + j]);
      return o;
    };
    r.a_offset[off] = offset_in(a);
    r.b_offset[off] = offset_in(b);
  }
  return r;
}

namespace {

void require_codes(const IntArray& a, DType t, const std::string& what) {
  const Range r = int_range(t);
  for (const auto& v : a.data)
    QSPEC_REQUIRE(v >= r.lo && v <= r.hi, what + " codes lie in " + std::string(dtype_name(t)));
}

std::int64_t last_dim(const Shape& s) { return s.empty() ? 1 : s.back(); }

}  // namespace

// spec: qlinear.add.onnxruntime
QEwOrtAddPath qlinear_add_onnxruntime_path(const Shape& a, const Shape& b) {
  const std::int64_t na = shape_numel(a), nb = shape_numel(b), ny = shape_numel(broadcast_shape(a, b));
  // A one-element a (also when the output has one element): BroadcastLooper's input0-scalar case.
  if (na == 1 || ny == 1) return QEwOrtAddPath::ScalarA;
  if (nb == 1) return QEwOrtAddPath::General;  // input1 scalar: IsScalarB, the same arithmetic
  const std::int64_t la = last_dim(a), lb = last_dim(b);
  if (la == lb && la > 1) return QEwOrtAddPath::General;  // both span the last axis
  if (la == 1 && lb > 1) return QEwOrtAddPath::ScalarA;   // a one scalar per span of b
  if (lb == 1 && la > 1) return QEwOrtAddPath::General;   // b one scalar per span: IsScalarB
  // Unit last axes on both sides: how ONNX Runtime's broadcaster cuts spans there is not pinned.
  QSPEC_REQUIRE(a == b,
                "qlinear.add onnxruntime: unit last axes on both operands with different shapes "
                "(ONNX Runtime's span of length 1 is not pinned)");
  return QEwOrtAddPath::General;  // equal shapes: one span, both operands vectors
}

IntArray qlinear_elementwise(QEwOp op, const IntArray& a, const IntArray& b, const QEwParams& p, QEwConvention c) {
  const std::string name = op == QEwOp::Add ? "qlinear.add" : "qlinear.mul";
  const QEwBroadcast bc = qlinear_ew_broadcast(a.shape, b.shape);
  const std::size_t rank = bc.out.size();
  QSPEC_REQUIRE(!(c == QEwConvention::TfliteDoubleRound || c == QEwConvention::TfliteSingleRound) || rank <= 4,
                name + ": TFLite's reference broadcast (BroadcastAdd4DSlow / BroadcastMul4DSlow) is 4-D at most");
  QSPEC_REQUIRE(c != QEwConvention::ArmnnCpuref || rank <= 5,
                name + ": armnn::TensorShape holds at most 5 dimensions (MaxNumOfTensorDimensions)");
  // PyTorch's quantized::add under the qnnpack engine: int8 is XNNPACK's add, broadcast uint8 ATen's.
  if (op == QEwOp::Add && c == QEwConvention::PytorchQnnpack) {
    const auto kernel = qlinear_add_pytorch_qnnpack_path(p.type, a.shape, b.shape);
    if (kernel == QEwPytorchQnnpackAddPath::Xnnpack) c = QEwConvention::XnnpackFp32;
    if (kernel == QEwPytorchQnnpackAddPath::Aten) c = QEwConvention::PytorchOnednn;
  }
  // XNN_MAX_TENSOR_DIMS: xnn_setup_*_nd fails beyond 6 dimensions.
  QSPEC_ERROR_IF(c == QEwConvention::XnnpackFp32 && rank > 6, name + ": XNNPACK supports at most 6 dimensions");
  QSPEC_ERROR_IF(c == QEwConvention::Onednn && rank > 12,
                 name + ": oneDNN supports at most 12 dimensions (DNNL_MAX_NDIMS)");
  // TOSA 1.0 level 8K: LEVEL_CHECK(rank(shape) <= MAX_RANK), MAX_RANK = 6.
  QSPEC_ERROR_IF(c == QEwConvention::Tosa && rank > 6, name + ": TOSA's level 8K allows rank <= MAX_RANK = 6");
  const QEwOrtAddPath path = op == QEwOp::Add && c == QEwConvention::OnnxRuntime
                                 ? qlinear_add_onnxruntime_path(a.shape, b.shape)
                                 : QEwOrtAddPath::General;
  const QEwElement f = qlinear_ew_element(op, p, c, path);
  require_codes(a, p.type, name + ": a");
  require_codes(b, p.b_type, name + ": b");
  IntArray y(bc.out);
  for (std::size_t i = 0; i < y.data.size(); ++i)
    y.data[i] = f(a.data[static_cast<std::size_t>(bc.a_offset[i])], b.data[static_cast<std::size_t>(bc.b_offset[i])]);
  return y;
}

}  // namespace qspec::ref::ops
