// Handlers of Glow's own quantization ops (spec/glow.md): parameter choice, bias parameters, the
// Caffe2 uint8 -> int8 shift, row-wise and fused row-wise (de)quantization, rescale parameters.
// Glow computes in float32 and float64; each step is the same IEEE operation on the hardware.
// Ops, tensors and attributes are named through the catalogue's typed keys (qspec::cat::glow_*).
#include <cmath>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "glow_params.h"
#include "qspec/catalogue/keys.h"
#include "qspec/core/abi_tensor.h"
#include "qspec/core/attr.h"
#include "qspec/simd/backend_core.h"

namespace qspec::simd {

namespace glow {

Rescale rescale_params(float scale) {
  int e = 0;
  const float f = std::frexp(scale, &e);  // scale = f * 2^e, f in [1/2, 1)
  if (f == 0.5f) {                        // a power of two, 2^(e-1)
    const int k = e - 1;
    if (k > 0) return {0, 0, std::int64_t{1} << k};
    return {0, -k, 1};
  }
  double v = scale;  // doubling is exact; double avoids overflow for large scales
  Rescale r;
  while (v < 0.5 || (v < 256 && r.post < 15)) {
    v *= 2;
    ++r.post;
  }
  while (v < 255 && r.pre < r.post / 2) {
    v *= 2;
    ++r.pre;
  }
  r.s = static_cast<std::int64_t>(std::round(v));  // roundf of scale * 2^(pre+post), exact: ties away
  return r;
}

}  // namespace glow

namespace {

using Json = nlohmann::ordered_json;

float f32_of(std::uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

enum class Schema { kAsymmetric, kSymmetric, kSymmetricWithUint8 };
// Op's schema attribute; the key throws std::invalid_argument (JsonValueError) for another value.
template <class Op>
Schema schema_attr(const Json& a) {
  using is = typename Op::attr::schema_is;
  const std::string_view s = attr::get(a, Op::attr::schema);
  if (s == is::asymmetric) return Schema::kAsymmetric;
  if (s == is::symmetric) return Schema::kSymmetric;
  return Schema::kSymmetricWithUint8;
}

struct QRange {
  double lo, hi;
};
QRange glow_range(qspec_dtype t) {
  switch (t) {
    case QSPEC_DTYPE_INT8: return {-128, 127};
    case QSPEC_DTYPE_UINT8: return {0, 255};
    case QSPEC_DTYPE_INT16: return {-32768, 32767};
    case QSPEC_DTYPE_INT32: return {-536870912.0, 536870911.0};  // Glow narrows int32 to int30
    default: throw std::invalid_argument("glow: precision must be int8, uint8, int16 or int32");
  }
}

struct QParams {
  float scale;
  std::int32_t offset;
};

// chooseQuantizationParams({min, max}, schema, precision), Calibration::None.
QParams choose_params(float min, float max, Schema schema, qspec_dtype precision) {
  if (!std::isfinite(min) || !std::isfinite(max) || !(min <= max))
    throw Unsupported("glow: finite min <= max (REQUIRE)");
  const QRange qr = glow_range(precision);
  const double qmin = qr.lo, qmax = qr.hi;
  if (min > 0) min = 0;
  if (max < 0) max = 0;
  if (schema == Schema::kSymmetricWithUint8 && !(min >= 0)) schema = Schema::kSymmetric;
  if (schema == Schema::kSymmetric) {
    if (!(qmin < 0)) throw Unsupported("glow: symmetric schemas need a signed precision (REQUIRE)");
    const double rmin = min / qmin, rmax = max / qmax;
    if (rmin > rmax) {
      max = static_cast<float>(rmin * qmax);  // double product, narrowed on assignment
    } else {
      const float m = static_cast<float>(rmax * qmin);
      min = std::isinf(m) ? -3.40282347e38f : m;  // clamped to lowest()
    }
  }
  double scale = (static_cast<double>(max) - min) / (qmax - qmin);
  if (scale == 0) scale = 0.1;
  const double min_over = min / scale, max_over = max / scale;
  const double zp_from_min = qmin - min_over, zp_from_max = qmax - max_over;
  const double err_min = std::fabs(qmin) + std::fabs(min_over), err_max = std::fabs(qmax) + std::fabs(max_over);
  double initial = err_min < err_max ? zp_from_min : zp_from_max;
  const float difference = std::fabs(max + min);           // a float32 sum
  if (difference <= 1.1920928955078125e-07f) initial = 0;  // FLT_EPSILON
  double nudged;
  if (initial < qmin)
    nudged = qmin;
  else if (initial > qmax)
    nudged = qmax;
  else
    nudged = std::round(initial);  // ties away from zero
  return {static_cast<float>(scale), static_cast<std::int32_t>(nudged)};
}

// quantization::quantize<int8>: clip(nearbyint(fl32(fl32(x / scale) + fl32(offset)))).
std::int8_t glow_quantize_i8(float x, const QParams& p) {
  const float r = x / p.scale + static_cast<float>(p.offset);
  const double n = std::nearbyint(static_cast<double>(r));
  return static_cast<std::int8_t>(n < -128 ? -128 : n > 127 ? 127 : n);
}

template <class T>
void write_one(const OpCall& c, std::string_view name, std::size_t pos, qspec_dtype d, T v) {
  qspec_tensor& t = c.output(name, pos);
  expect_dtype(t, d, ("output '" + std::string(name) + "'").c_str());
  if (numel(t) != 1) throw std::invalid_argument("output '" + std::string(name) + "' must hold one value");
  std::memcpy(t.data, &v, sizeof(T));
}

void check_matrix(const qspec_tensor& x, std::int64_t min_cols) {
  if (x.rank != 2 || x.shape[0] < 1 || x.shape[1] < min_cols)
    throw Rejected("glow: row-wise input must be a [rows, cols] matrix (ERROR_IF)");
}

void glow_choose_params(OpCall& c) {
  using Op = cat::glow_choose_params;
  const qspec_tensor& r = c.input(Op::in::range, 0);
  if (r.dtype != QSPEC_DTYPE_FLOAT32 || numel(r) != 2)
    throw std::invalid_argument("input 'range' must be float32 (min, max)");
  const qspec_dtype precision = to_abi_dtype(attr::get(c.attrs, Op::attr::precision));
  const auto* v = static_cast<const float*>(r.data);
  const QParams p = choose_params(v[0], v[1], schema_attr<Op>(c.attrs), precision);
  write_one(c, Op::out::scale, 0, QSPEC_DTYPE_FLOAT32, p.scale);
  write_one(c, Op::out::offset, 1, QSPEC_DTYPE_INT32, p.offset);
}

void glow_bias_params(OpCall& c) {
  using Op = cat::glow_bias_params;
  const qspec_tensor& s = c.input(Op::in::scales, 0);
  if (s.dtype != QSPEC_DTYPE_FLOAT32 || numel(s) != 3)
    throw std::invalid_argument("input 'scales' must be float32 (input, weights, bias)");
  const DType precision = attr::get(c.attrs, Op::attr::precision);  // int8, int16 or int32
  const auto* v = static_cast<const float*>(s.data);
  const float product = v[0] * v[1];  // float * float -> float
  const std::int64_t offset = precision == DType::I32 ? 0 : attr::get(c.attrs, Op::attr::bias_offset);
  if (offset < INT32_MIN || offset > INT32_MAX) throw Unsupported("bias offset beyond int32");
  write_one(c, Op::out::scale, 0, QSPEC_DTYPE_FLOAT32, product > v[2] ? product : v[2]);
  write_one(c, Op::out::offset, 1, QSPEC_DTYPE_INT32, static_cast<std::int32_t>(offset));
}

void glow_uint8_to_int8(OpCall& c) {
  using Op = cat::glow_uint8_to_int8;
  const qspec_tensor& x = c.input(Op::in::x, 0);
  expect_dtype(x, QSPEC_DTYPE_UINT8, "input 'x'");
  const std::int64_t zp = attr::get(c.attrs, Op::attr::zero_point);
  if (zp < 0 || zp > 255) throw Rejected("glow.uint8_to_int8: a Caffe2 uint8 zero point is in [0, 255] (ERROR_IF)");
  qspec_tensor& y = c.output(Op::out::y, 0);
  expect_dtype(y, QSPEC_DTYPE_INT8, "output 'y'");
  expect_same_shape(x, y, "output 'y'");
  const auto* xs = static_cast<const std::uint8_t*>(x.data);
  auto* ys = static_cast<std::int8_t*>(y.data);
  for (std::int64_t i = 0, n = numel(x); i < n; ++i) ys[i] = static_cast<std::int8_t>(xs[i] ^ 0x80);  // x - 128
  write_one(c, Op::out::zero_point, 1, QSPEC_DTYPE_INT32, static_cast<std::int32_t>(zp - 128));
}

// Tensor::minMaxArg: the first index of the minimum and of the maximum.
void min_max(const float* row, std::int64_t cols, float& mn, float& mx) {
  std::int64_t imin = 0, imax = 0;
  for (std::int64_t i = 1; i < cols; ++i) {
    if (row[i] > row[imax]) imax = i;
    if (row[i] < row[imin]) imin = i;
  }
  mn = row[imin];
  mx = row[imax];
}

void glow_rowwise_quantize(OpCall& c) {
  using Op = cat::glow_rowwise_quantize;
  const qspec_tensor& x = c.input(Op::in::x, 0);
  expect_dtype(x, QSPEC_DTYPE_FLOAT32, "input 'x'");
  const Schema schema = schema_attr<Op>(c.attrs);
  check_matrix(x, 1);
  const std::int64_t rows = x.shape[0], cols = x.shape[1];
  const auto* xs = static_cast<const float*>(x.data);
  std::vector<QParams> ps;
  for (std::int64_t r = 0; r < rows; ++r) {
    float mn, mx;
    min_max(xs + r * cols, cols, mn, mx);
    ps.push_back(choose_params(mn, mx, schema, QSPEC_DTYPE_INT8));
  }
  qspec_tensor& y = c.output(Op::out::y, 0);
  qspec_tensor& sc = c.output(Op::out::scales, 1);
  qspec_tensor& of = c.output(Op::out::offsets, 2);
  expect_dtype(y, QSPEC_DTYPE_INT8, "output 'y'");
  expect_same_shape(x, y, "output 'y'");
  expect_dtype(sc, QSPEC_DTYPE_FLOAT32, "output 'scales'");
  expect_dtype(of, QSPEC_DTYPE_INT32, "output 'offsets'");
  if (numel(sc) != rows || numel(of) != rows) throw std::invalid_argument("one scale and offset per row");
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t i = 0; i < cols; ++i)
      static_cast<std::int8_t*>(y.data)[r * cols + i] =
          glow_quantize_i8(xs[r * cols + i], ps[static_cast<std::size_t>(r)]);
    static_cast<float*>(sc.data)[r] = ps[static_cast<std::size_t>(r)].scale;
    static_cast<std::int32_t*>(of.data)[r] = ps[static_cast<std::size_t>(r)].offset;
  }
}

void glow_rowwise_dequantize(OpCall& c) {
  using Op = cat::glow_rowwise_dequantize;
  const qspec_tensor& x = c.input(Op::in::x, 0);
  if (x.dtype != QSPEC_DTYPE_INT8) throw std::invalid_argument("glow.rowwise_dequantize: int8 input");
  check_matrix(x, 1);
  const std::int64_t rows = x.shape[0], cols = x.shape[1];
  std::vector<float> scales;
  for (const std::uint32_t bits : attr::get(c.attrs, Op::attr::scales)) scales.push_back(f32_of(bits));
  const std::vector<std::int64_t> offsets = attr::get(c.attrs, Op::attr::offsets);
  if (static_cast<std::int64_t>(scales.size()) != rows || offsets.size() != scales.size())
    throw Rejected("glow: one scale and one offset per row (ERROR_IF)");
  qspec_tensor& y = c.output(Op::out::y, 0);
  expect_dtype(y, QSPEC_DTYPE_FLOAT32, "output 'y'");
  expect_same_shape(x, y, "output 'y'");
  const auto* xs = static_cast<const std::int8_t*>(x.data);
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t i = 0; i < cols; ++i)  // fl32(scale * fl32((int64)q - offset))
      static_cast<float*>(y.data)[r * cols + i] =
          scales[static_cast<std::size_t>(r)] *
          static_cast<float>(std::int64_t{xs[r * cols + i]} - offsets[static_cast<std::size_t>(r)]);
}

void glow_fused_rowwise_quantize(OpCall& c) {
  using Op = cat::glow_fused_rowwise_quantize;
  const qspec_tensor& x = c.input(Op::in::x, 0);
  expect_dtype(x, QSPEC_DTYPE_FLOAT32, "input 'x'");
  check_matrix(x, 1);
  const std::int64_t rows = x.shape[0], cols = x.shape[1];
  qspec_tensor& y = c.output(Op::out::y, 0);
  expect_dtype(y, QSPEC_DTYPE_UINT8, "output 'y'");
  if (y.rank != 2 || y.shape[0] != rows || y.shape[1] != cols + 8)
    throw std::invalid_argument("output 'y' is [rows, cols + 8]");
  const auto* xs = static_cast<const float*>(x.data);
  auto* ys = static_cast<std::uint8_t*>(y.data);
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* row = xs + r * cols;
    float mn, mx;
    min_max(row, cols, mn, mx);
    const float diff = mx - mn;
    // (max - min) < kEqualityThreshold (1e-10f) ? 1.0 : ((double)max - (double)min) / 255.0f
    const float scale =
        diff < 1e-10f ? 1.0f : static_cast<float>((static_cast<double>(mx) - static_cast<double>(mn)) / 255.0);
    std::uint8_t* out = ys + r * (cols + 8);
    for (std::int64_t i = 0; i < cols; ++i) {
      const float q = (row[i] - mn) / scale;
      out[i] = static_cast<std::uint8_t>(static_cast<std::uint16_t>(std::round(q)));
    }
    std::memcpy(out + cols, &scale, 4);  // little-endian float32 bytes (x86 and AArch64)
    std::memcpy(out + cols + 4, &mn, 4);
  }
}

void glow_fused_rowwise_dequantize(OpCall& c) {
  using Op = cat::glow_fused_rowwise_dequantize;
  const qspec_tensor& x = c.input(Op::in::x, 0);
  if (x.dtype != QSPEC_DTYPE_UINT8) throw std::invalid_argument("glow.fused_rowwise_dequantize: uint8 input");
  if (x.rank != 2 || x.shape[0] < 1 || x.shape[1] <= 8)
    throw Rejected("glow: a fused row-wise tensor is [rows, cols + 8] with cols >= 1 (ERROR_IF)");
  const std::int64_t rows = x.shape[0], width = x.shape[1], cols = width - 8;
  qspec_tensor& y = c.output(Op::out::y, 0);
  expect_dtype(y, QSPEC_DTYPE_FLOAT32, "output 'y'");
  const auto* xs = static_cast<const std::uint8_t*>(x.data);
  for (std::int64_t r = 0; r < rows; ++r) {
    float scale, offset;
    std::memcpy(&scale, xs + r * width + cols, 4);
    std::memcpy(&offset, xs + r * width + cols + 4, 4);
    for (std::int64_t i = 0; i < cols; ++i)
      static_cast<float*>(y.data)[r * cols + i] = static_cast<float>(xs[r * width + i]) * scale + offset;
  }
}

void glow_rescale_params_op(OpCall& c) {
  using Op = cat::glow_rescale_params;
  const qspec_tensor& s = c.input(Op::in::scale, 0);
  expect_dtype(s, QSPEC_DTYPE_FLOAT32, "input 'scale'");
  const auto n = numel(s);
  std::vector<glow::Rescale> r;
  for (std::int64_t i = 0; i < n; ++i) {
    const float v = static_cast<const float*>(s.data)[i];
    if (!std::isfinite(v) || !(v > 0)) throw Unsupported("glow.rescale_params: positive finite scale (REQUIRE)");
    r.push_back(glow::rescale_params(v));
  }
  qspec_tensor& pre = c.output(Op::out::pre, 0);
  qspec_tensor& post = c.output(Op::out::post, 1);
  qspec_tensor& mul = c.output(Op::out::multiplier, 2);
  for (std::int64_t i = 0; i < n; ++i) {
    static_cast<std::int32_t*>(pre.data)[i] = r[static_cast<std::size_t>(i)].pre;
    static_cast<std::int32_t*>(post.data)[i] = r[static_cast<std::size_t>(i)].post;
    static_cast<std::int32_t*>(mul.data)[i] = static_cast<std::int32_t>(r[static_cast<std::size_t>(i)].s);
  }
}

// The table entry of Op's convention glow.
template <class Op>
OpEntry glow_entry(const char* note, OpHandler fn) {
  return {std::string(Op::op), std::string(Op::conv::glow), note, fn};
}

}  // namespace

void add_glow_ops(std::vector<OpEntry>& t) {
  const char* sc = "scalar IEEE";
  t.push_back(glow_entry<cat::glow_choose_params>(sc, glow_choose_params));
  t.push_back(glow_entry<cat::glow_bias_params>(sc, glow_bias_params));
  t.push_back(glow_entry<cat::glow_uint8_to_int8>(sc, glow_uint8_to_int8));
  t.push_back(glow_entry<cat::glow_rowwise_quantize>(sc, glow_rowwise_quantize));
  t.push_back(glow_entry<cat::glow_rowwise_dequantize>(sc, glow_rowwise_dequantize));
  t.push_back(glow_entry<cat::glow_fused_rowwise_quantize>(sc, glow_fused_rowwise_quantize));
  t.push_back(glow_entry<cat::glow_fused_rowwise_dequantize>(sc, glow_fused_rowwise_dequantize));
  t.push_back(glow_entry<cat::glow_rescale_params>(sc, glow_rescale_params_op));
}

}  // namespace qspec::simd
