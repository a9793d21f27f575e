// Shape and attribute checks (the ERROR_IF preconditions) of the MRT operators in spec/operators_mrt.md.
#include <string>

#include "qspec/ref/ops/granularity.h"
#include "qspec/ref/ops/nn.h"

namespace qspec::ref::ops {
namespace {
std::string s(std::int64_t v) { return std::to_string(v); }
void check_rank(const Shape& x, std::size_t r, const char* op, const char* what) {
  QSPEC_ERROR_IF(x.size() != r, std::string(op) + ": " + what + " must have rank " + s(static_cast<std::int64_t>(r)) +
                              ", got " + shape_str(x));
}
void check_positive_dims(const Shape& x, const char* op, const char* what) {
  for (auto d : x) QSPEC_ERROR_IF(d < 1, std::string(op) + ": " + what + " has an empty dimension " + shape_str(x));
}
}  // namespace

// spec: mrt.op.conv2d
Shape conv2d_output_shape(const Shape& x, const Shape& w, const Conv2dAttrs& a) {
  check_rank(x, 4, "conv2d", "input (N,C,H,W)");
  check_rank(w, 4, "conv2d", "weight (O,C/groups,KH,KW)");
  check_positive_dims(x, "conv2d", "input");
  check_positive_dims(w, "conv2d", "weight");
  for (int i = 0; i < 2; ++i) {
    QSPEC_ERROR_IF(a.stride[i] < 1, "conv2d: stride must be >= 1");
    QSPEC_ERROR_IF(a.dilation[i] < 1, "conv2d: dilation must be >= 1");
    QSPEC_ERROR_IF(a.padding[i] < 0, "conv2d: padding must be >= 0");
  }
  QSPEC_ERROR_IF(a.groups < 1, "conv2d: groups must be >= 1");
  QSPEC_ERROR_IF(x[1] % a.groups != 0, "conv2d: C = " + s(x[1]) + " is not a multiple of groups = " + s(a.groups));
  QSPEC_ERROR_IF(w[0] % a.groups != 0, "conv2d: O = " + s(w[0]) + " is not a multiple of groups = " + s(a.groups));
  QSPEC_ERROR_IF(w[1] * a.groups != x[1], "conv2d: weight input channels " + s(w[1]) + " * groups != C = " + s(x[1]));
  const std::int64_t eh = a.dilation[0] * (w[2] - 1) + 1, ew = a.dilation[1] * (w[3] - 1) + 1;
  QSPEC_ERROR_IF(x[2] + 2 * a.padding[0] < eh || x[3] + 2 * a.padding[1] < ew,
           "conv2d: dilated kernel larger than the padded input (no output position)");
  return {x[0], w[0], (x[2] + 2 * a.padding[0] - eh) / a.stride[0] + 1, (x[3] + 2 * a.padding[1] - ew) / a.stride[1] + 1};
}

// spec: mrt.op.pad
PadWidth pad_width_from(const std::vector<std::int64_t>& pw) {
  QSPEC_ERROR_IF(pw.size() != 8, "pad: pad_width must have 8 entries (rank-4 input), got " + s(static_cast<std::int64_t>(pw.size())));
  QSPEC_ERROR_IF(pw[0] || pw[1] || pw[2] || pw[3], "pad: only the H and W dimensions may be padded");
  for (auto v : pw) QSPEC_ERROR_IF(v < 0, "pad: pad_width entries must be >= 0");
  return {pw[4], pw[5], pw[6], pw[7]};
}

// spec: mrt.op.pad
Shape pad2d_output_shape(const Shape& x, const PadWidth& p) {
  check_rank(x, 4, "pad", "input (N,C,H,W)");
  QSPEC_ERROR_IF(p.h1 < 0 || p.h2 < 0 || p.w1 < 0 || p.w2 < 0, "pad: pad_width entries must be >= 0");
  return {x[0], x[1], x[2] + p.h1 + p.h2, x[3] + p.w1 + p.w2};
}

// spec: mrt.op.max_pool2d
Shape max_pool2d_output_shape(const Shape& x, const Pool2dAttrs& a) {
  check_rank(x, 4, "max_pool2d", "input (N,C,H,W)");
  check_positive_dims(x, "max_pool2d", "input");
  for (int i = 0; i < 2; ++i) {
    QSPEC_ERROR_IF(a.kernel[i] < 1, "max_pool2d: kernel must be >= 1");
    QSPEC_ERROR_IF(a.stride[i] < 1, "max_pool2d: stride must be >= 1");
    QSPEC_ERROR_IF(a.padding[i] < 0, "max_pool2d: padding must be >= 0");
    QSPEC_ERROR_IF(a.padding[i] >= a.kernel[i], "max_pool2d: padding must be smaller than the kernel");
  }
  QSPEC_ERROR_IF(x[2] + 2 * a.padding[0] < a.kernel[0] || x[3] + 2 * a.padding[1] < a.kernel[1],
           "max_pool2d: kernel larger than the padded input");
  return {x[0], x[1], (x[2] + 2 * a.padding[0] - a.kernel[0]) / a.stride[0] + 1,
          (x[3] + 2 * a.padding[1] - a.kernel[1]) / a.stride[1] + 1};
}

// spec: mrt.op.fully_connected
Shape fully_connected_output_shape(const Shape& x, const Shape& w) {
  check_rank(x, 2, "fully_connected", "input (N,K)");
  check_rank(w, 2, "fully_connected", "weight (M,K)");
  QSPEC_ERROR_IF(x[1] != w[1], "fully_connected: K of the input " + s(x[1]) + " != K of the weight " + s(w[1]));
  return {x[0], w[0]};
}

// spec: mrt.op.broadcast_add
Shape broadcast_shape(const Shape& a, const Shape& b) {
  const std::size_t r = std::max(a.size(), b.size());
  Shape out(r);
  for (std::size_t j = 0; j < r; ++j) {
    const std::int64_t da = j + a.size() >= r ? a[j + a.size() - r] : 1;
    const std::int64_t db = j + b.size() >= r ? b[j + b.size() - r] : 1;
    QSPEC_ERROR_IF(da != db && da != 1 && db != 1, "broadcast_add: shapes " + shape_str(a) + " and " + shape_str(b) +
                                                 " do not broadcast");
    out[j] = da == 1 ? db : da;
  }
  return out;
}

// spec: mrt.op.elemwise_add
void check_same_shape(const Shape& a, const Shape& b, const char* op) {
  QSPEC_ERROR_IF(a != b, std::string(op) + ": shapes differ: " + shape_str(a) + " vs " + shape_str(b));
}

// spec: mrt.op.add_n
void check_add_n(const std::vector<Shape>& shapes) {
  QSPEC_ERROR_IF(shapes.empty(), "add_n: needs at least one input");
  for (const auto& sh : shapes) check_same_shape(shapes[0], sh, "add_n");
}

// spec: mrt.op.concat
Shape concat_output_shape(const std::vector<Shape>& shapes, std::int64_t axis, int* axis_out) {
  QSPEC_ERROR_IF(shapes.empty(), "concat: needs at least one input");
  const auto r = static_cast<std::int64_t>(shapes[0].size());
  QSPEC_ERROR_IF(r == 0, "concat: inputs must have rank >= 1");
  QSPEC_ERROR_IF(axis < -r || axis >= r, "concat: axis " + s(axis) + " outside [-rank, rank)");
  const std::int64_t ax = axis < 0 ? axis + r : axis;
  Shape out = shapes[0];
  out[static_cast<std::size_t>(ax)] = 0;
  for (const auto& sh : shapes) {
    QSPEC_ERROR_IF(static_cast<std::int64_t>(sh.size()) != r, "concat: ranks differ");
    for (std::int64_t j = 0; j < r; ++j)
      if (j != ax) QSPEC_ERROR_IF(sh[static_cast<std::size_t>(j)] != shapes[0][static_cast<std::size_t>(j)], "concat: non-axis dimensions differ");
    out[static_cast<std::size_t>(ax)] += sh[static_cast<std::size_t>(ax)];
  }
  *axis_out = static_cast<int>(ax);
  return out;
}

// spec: mrt.op.flatten
Shape flatten_output_shape(const Shape& x) {
  QSPEC_ERROR_IF(x.empty(), "flatten: input must have rank >= 1");
  std::int64_t rest = 1;
  for (std::size_t j = 1; j < x.size(); ++j) rest *= x[j];
  return {x[0], rest};
}

// spec: mrt.op.slice
std::vector<SliceRange> slice_ranges(const Shape& x, const std::vector<SliceAxis>& axes) {
  QSPEC_ERROR_IF(axes.size() > x.size(), "slice: more begin/end/step entries than the input's rank");
  std::vector<SliceRange> out;
  for (std::size_t j = 0; j < x.size(); ++j) {
    const std::int64_t d = x[j];
    const SliceAxis ax = j < axes.size() ? axes[j] : SliceAxis{};
    QSPEC_ERROR_IF(ax.step == 0, "slice: step must not be 0");
    SliceRange r;
    r.step = ax.step;
    if (ax.step > 0) {
      std::int64_t b = ax.begin.value_or(0), e = ax.end.value_or(d);
      if (b < 0) b += d;
      if (e < 0) e += d;
      b = std::clamp<std::int64_t>(b, 0, d);
      e = std::clamp<std::int64_t>(e, 0, d);
      r.start = b;
      r.count = e > b ? (e - b + ax.step - 1) / ax.step : 0;
    } else {
      std::int64_t b = ax.begin.value_or(d - 1), e = ax.end ? *ax.end : -1;
      if (b < 0) b += d;
      if (ax.end && e < 0) e += d;
      b = std::clamp<std::int64_t>(b, -1, d - 1);
      e = std::clamp<std::int64_t>(e, -1, d - 1);
      r.start = b;
      r.count = b > e ? (b - e + (-ax.step) - 1) / (-ax.step) : 0;
    }
    out.push_back(r);
  }
  return out;
}

}  // namespace qspec::ref::ops
namespace qspec::ref::ops {
// spec: mrt.granularity.channel_split
void check_channel_split(const Shape& x, std::int64_t axis, std::int64_t step) {
  QSPEC_ERROR_IF(step < 1, "channel split: step must be >= 1");
  QSPEC_ERROR_IF(axis < 0 || axis >= static_cast<std::int64_t>(x.size()), "channel split: axis outside [0, rank)");
}
}  // namespace qspec::ref::ops
