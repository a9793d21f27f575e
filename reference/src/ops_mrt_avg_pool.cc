// MRT avg Pooling as a depthwise Convolution with a constant weight (tfm_ops Pooling rewrite).
#include <string>

#include "qspec/ref/ops/mrt_avg_pool.h"

namespace qspec::ref::ops {
namespace {
void check_pool(const Shape& x, const Pool2dAttrs& a) {
  QSPEC_ERROR_IF(x.size() != 4, "avg_pool2d: input (N,C,H,W)");
  for (auto d : x) QSPEC_ERROR_IF(d < 1, "avg_pool2d: empty dimension");
  for (int i = 0; i < 2; ++i) {
    QSPEC_ERROR_IF(a.kernel[i] < 1, "avg_pool2d: kernel must be >= 1");
    QSPEC_ERROR_IF(a.stride[i] < 1, "avg_pool2d: stride must be >= 1");
    QSPEC_ERROR_IF(a.padding[i] < 0, "avg_pool2d: padding must be >= 0");
  }
  QSPEC_ERROR_IF(x[2] + 2 * a.padding[0] < a.kernel[0] || x[3] + 2 * a.padding[1] < a.kernel[1],
                 "avg_pool2d: kernel larger than the padded input");
}
}  // namespace

// spec: mrt.op.avg_pool2d
Conv2dAttrs avg_pool2d_as_conv_attrs(const Shape& x, const Pool2dAttrs& a) {
  check_pool(x, a);
  Conv2dAttrs c;
  c.stride = a.stride;
  c.padding = a.padding;
  c.groups = x[1];  // depthwise: one (1, KH, KW) filter per channel
  return c;
}

// spec: mrt.op.avg_pool2d
RatArray avg_pool2d_real(const RatArray& x, const Pool2dAttrs& a) {
  const Conv2dAttrs c = avg_pool2d_as_conv_attrs(x.shape, a);
  const Rat k = Rat(a.kernel[0] * a.kernel[1]);
  const RatArray w({x.dim(1), 1, a.kernel[0], a.kernel[1]}, Rat(1) / k);
  return conv2d(x, w, c);
}

// spec: mrt.op.avg_pool2d
IntArray avg_pool2d_expand(const IntArray& xq, const Pool2dAttrs& a, int weight_prec) {
  QSPEC_ERROR_IF(weight_prec < 2 || weight_prec > 32, "avg_pool2d: weight precision in [2, 32]");
  const Conv2dAttrs c = avg_pool2d_as_conv_attrs(xq.shape, a);
  const Int top = pow2(static_cast<unsigned>(weight_prec - 1)) - 1;
  const IntArray w({xq.dim(1), 1, a.kernel[0], a.kernel[1]}, top);
  return conv2d(xq, w, c);
}

}  // namespace qspec::ref::ops
