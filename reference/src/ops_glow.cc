// Exact reference of Glow's quantized operators (spec/operators_glow.md): Interpreter float32 steps via ieee.h.
#include <string>

#include "qspec/ref/ieee.h"
#include "qspec/ref/ops/glow_ops.h"
#include "qspec/ref/rounding.h"

namespace qspec::ref::ops {
namespace {

std::string s(std::int64_t v) { return std::to_string(v); }

void check_rank(const Shape& x, std::size_t r, const std::string& what) {
  QSPEC_ERROR_IF(x.size() != r, what + " must have rank " + s(static_cast<std::int64_t>(r)) + ", got " + shape_str(x));
}
void check_positive_dims(const Shape& x, const std::string& what) {
  for (auto d : x) QSPEC_ERROR_IF(d < 1, what + " has an empty dimension " + shape_str(x));
}

// Glow's AccumulatorTy: int32 for int8 tensors, int64 for int16 tensors.
Range acc_range(DType elem) { return elem == DType::I16 ? int_range(DType::I64) : int_range(DType::I32); }
bool in(const Int& v, const Range& r) { return v >= r.lo && v <= r.hi; }

std::uint32_t finite32(std::uint32_t bits, const std::string& what) {
  QSPEC_REQUIRE(float_is_finite(bits, kBinary32), what + " is finite (float32)");
  return bits;
}

// A positive finite float32 scale (Glow's TensorQuantizationParams.scale).
void require_scale(std::uint32_t scale, const std::string& what) {
  QSPEC_REQUIRE(float_is_finite(scale, kBinary32) && f32_value(scale) > 0, what + " is finite and positive");
}

// Runs the sum of products in the kernel's order, REQUIRING every partial sum to fit Acc
// (Glow's `sum += ...` in AccumulatorTy has no overflow check).
struct Accumulator {
  Range range;
  Int value{0};
  void add(const Int& term) {
    value += term;
    QSPEC_REQUIRE(in(value, range), "glow: the accumulator stays in its type (no int32/int64 overflow)");
  }
};

// Steps 2-3 of glow.op.fully_connected: the bias rescaled to the matmul scale p,
// B = round(float(bias - biasOffset) * (biasScale / matMulScale)).
Int bias_term(const Int& b, const GlowQParams& bias, std::uint32_t p, DType elem) {
  const Int diff = b - bias.offset;
  QSPEC_REQUIRE(in(diff, int_range(DType::I32)), "glow: bias - bias offset fits int32");
  const std::uint32_t ratio = finite32(f32_div(bias.scale, p), "glow: biasScale / matMulScale");
  const std::uint32_t scaled = finite32(f32_mul(f32_from_int(diff), ratio), "glow: the rescaled bias");
  const Int B = round_half_away(f32_value(scaled));  // std::round(float)
  QSPEC_REQUIRE(in(B, acc_range(elem)), "glow: the rescaled bias fits the accumulator");
  return B;
}

// Step 5: float(sum) * (matMulScale / outScale), rounded half away, with the output offset added
// after the rounding (FullyConnected) or before it (Convolution, RowwiseQuantizedFullyConnected).
Int output_code(const Int& t, std::uint32_t p, const GlowQParams& out, DType elem, bool offset_after_rounding) {
  const std::uint32_t r = finite32(f32_div(p, out.scale), "glow: matMulScale / outScale");
  const std::uint32_t scaled = finite32(f32_mul(f32_from_int(t), r), "glow: float(sum) * scale");
  Int v;
  if (offset_after_rounding) {
    // std::round(...) is an integer-valued float, exactly representable; + outOffset is a float add.
    const Int rounded = round_half_away(f32_value(scaled));
    const std::uint32_t sum = finite32(f32_add(f32_from_int(rounded), f32_from_int(out.offset)), "glow: rounded + outOffset");
    v = round_trunc(f32_value(sum));  // an integer already (|sum| >= 2^24 is integral; below it the add is exact)
  } else {
    const std::uint32_t sum = finite32(f32_add(scaled, f32_from_int(out.offset)), "glow: scaled + outOffset");
    v = round_half_away(f32_value(sum));
  }
  QSPEC_REQUIRE(in(v, acc_range(elem)), "glow: the rounded output fits the accumulator type before clip");
  return saturate(v, elem);
}

void check_params(const GlowLinearParams& p, bool with_weights) {
  require_scale(p.input.scale, "glow: input scale");
  if (with_weights) require_scale(p.weights.scale, "glow: weights scale");
  require_scale(p.bias.scale, "glow: bias scale");
  require_scale(p.output.scale, "glow: output scale");
  for (const auto* q : {&p.input, &p.weights, &p.bias, &p.output})
    QSPEC_REQUIRE(in(q->offset, int_range(DType::I32)), "glow: offsets are int32");
}

std::uint32_t matmul_scale(std::uint32_t weights_scale, std::uint32_t input_scale) {
  const std::uint32_t prod = finite32(f32_mul(weights_scale, input_scale), "glow: matMulScale");
  QSPEC_REQUIRE(f32_value(prod) > 0, "glow: matMulScale is nonzero (it divides)");
  return prod;
}

// Codes of a tensor REQUIRED to lie in the element type (the vectors' dtype guarantees it).
void require_codes(const IntArray& a, DType t, const std::string& what) {
  for (const auto& v : a.data) QSPEC_REQUIRE(in(v, int_range(t)), what + " codes lie in " + std::string(dtype_name(t)));
}

// Little-endian float32 stored in 4 uint8 codes (setFusedScaleOffsetInRow writes the raw float).
std::uint32_t read_le_f32(const IntArray& data, std::int64_t row, std::int64_t col) {
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= static_cast<std::uint32_t>(static_cast<long long>(data.at2(row, col + i))) << (8 * i);
  return v;
}

}  // namespace

// spec: glow.op.fully_connected
void glow_check_linear_types(DType elem, DType bias_type) {
  const bool ok = (elem == DType::I8 && (bias_type == DType::I8 || bias_type == DType::I32)) ||
                  (elem == DType::I16 && (bias_type == DType::I16 || bias_type == DType::I32));
  QSPEC_ERROR_IF(!ok, std::string("glow: element/bias types must be int8/int8, int8/int32, int16/int16 or int16/int32, not ") +
                    std::string(dtype_name(elem)) + "/" + std::string(dtype_name(bias_type)));
}

// spec: glow.op.fully_connected
IntArray glow_fully_connected(const IntArray& x, const IntArray& w, const IntArray& bias, const GlowLinearParams& p) {
  check_rank(x.shape, 2, "glow.fully_connected: input (N,K)");
  check_rank(w.shape, 2, "glow.fully_connected: weights (K,M)");
  QSPEC_ERROR_IF(w.shape[0] != x.shape[1], "glow.fully_connected: weights rows " + s(w.shape[0]) + " != K = " + s(x.shape[1]));
  QSPEC_ERROR_IF(bias.shape != Shape{w.shape[1]}, "glow.fully_connected: bias must be (M) = (" + s(w.shape[1]) + ")");
  glow_check_linear_types(p.elem, p.bias_type);
  check_params(p, true);
  require_codes(x, p.elem, "glow.fully_connected: input");
  require_codes(w, p.elem, "glow.fully_connected: weights");
  require_codes(bias, p.bias_type, "glow.fully_connected: bias");
  const std::uint32_t mm = matmul_scale(p.weights.scale, p.input.scale);
  const std::int64_t N = x.shape[0], K = x.shape[1], M = w.shape[1];
  IntArray y({N, M});
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t m = 0; m < M; ++m) {
      Accumulator acc{acc_range(p.elem)};
      for (std::int64_t k = 0; k < K; ++k) acc.add((w.at2(k, m) - p.weights.offset) * (x.at2(n, k) - p.input.offset));
      acc.add(bias_term(bias.data[static_cast<std::size_t>(m)], p.bias, mm, p.elem));
      y.at2(n, m) = output_code(acc.value, mm, p.output, p.elem, /*offset_after_rounding=*/true);
    }
  return y;
}

// spec: glow.op.convolution
Shape glow_convolution_output_shape(const Shape& x, const Shape& w, const Shape& bias, const GlowConvAttrs& a) {
  check_rank(x, 4, "glow.convolution: input (N,H,W,C)");
  check_rank(w, 4, "glow.convolution: filter (O,KH,KW,C/group)");
  check_positive_dims(x, "glow.convolution: input");
  check_positive_dims(w, "glow.convolution: filter");
  for (int i = 0; i < 2; ++i) {
    QSPEC_ERROR_IF(a.stride[i] < 1, "glow.convolution: strides must be >= 1");
    QSPEC_ERROR_IF(a.dilation[i] < 1, "glow.convolution: dilation must be >= 1");
  }
  for (auto pad : a.pads) QSPEC_ERROR_IF(pad < 0, "glow.convolution: pads must be >= 0");
  QSPEC_ERROR_IF(a.group < 1, "glow.convolution: group must be >= 1");
  QSPEC_ERROR_IF(x[3] % a.group != 0, "glow.convolution: C = " + s(x[3]) + " is not a multiple of group " + s(a.group));
  QSPEC_ERROR_IF(w[0] % a.group != 0, "glow.convolution: O = " + s(w[0]) + " is not a multiple of group " + s(a.group));
  QSPEC_ERROR_IF(w[3] * a.group != x[3], "glow.convolution: filter depth " + s(w[3]) + " * group != C = " + s(x[3]));
  QSPEC_ERROR_IF(bias != Shape{w[0]}, "glow.convolution: bias must be (O) = (" + s(w[0]) + ")");
  const std::int64_t eh = a.dilation[0] * (w[1] - 1) + 1, ew = a.dilation[1] * (w[2] - 1) + 1;
  const std::int64_t ph = x[1] + a.pads[0] + a.pads[2], pw = x[2] + a.pads[1] + a.pads[3];
  QSPEC_ERROR_IF(ph < eh || pw < ew, "glow.convolution: dilated kernel larger than the padded input (no output position)");
  return {x[0], (ph - eh) / a.stride[0] + 1, (pw - ew) / a.stride[1] + 1, w[0]};
}

// spec: glow.op.convolution
IntArray glow_convolution(const IntArray& x, const IntArray& w, const IntArray& bias, const GlowConvAttrs& a,
                          const GlowLinearParams& p) {
  IntArray y(glow_convolution_output_shape(x.shape, w.shape, bias.shape, a));
  glow_check_linear_types(p.elem, p.bias_type);
  check_params(p, true);
  require_codes(x, p.elem, "glow.convolution: input");
  require_codes(w, p.elem, "glow.convolution: filter");
  require_codes(bias, p.bias_type, "glow.convolution: bias");
  const std::uint32_t mm = matmul_scale(p.input.scale, p.weights.scale);  // inScale * filterScale
  const std::int64_t H = x.dim(1), W = x.dim(2), O = w.dim(0), KH = w.dim(1), KW = w.dim(2), Cg = w.dim(3);
  const std::int64_t OPG = O / a.group;
  for (std::int64_t n = 0; n < y.dim(0); ++n)
    for (std::int64_t p_ = 0; p_ < y.dim(1); ++p_)
      for (std::int64_t q = 0; q < y.dim(2); ++q)
        for (std::int64_t d = 0; d < O; ++d) {
          const std::int64_t g = d / OPG;
          Accumulator acc{acc_range(p.elem)};
          for (std::int64_t fx = 0; fx < KH; ++fx)
            for (std::int64_t fy = 0; fy < KW; ++fy) {
              const std::int64_t h = p_ * a.stride[0] - a.pads[0] + fx * a.dilation[0];
              const std::int64_t v = q * a.stride[1] - a.pads[1] + fy * a.dilation[1];
              if (h < 0 || h >= H || v < 0 || v >= W) continue;  // padding: skipped (real 0)
              for (std::int64_t fd = 0; fd < Cg; ++fd)
                acc.add((w.at4(d, fx, fy, fd) - p.weights.offset) * (x.at4(n, h, v, g * Cg + fd) - p.input.offset));
            }
          acc.add(bias_term(bias.data[static_cast<std::size_t>(d)], p.bias, mm, p.elem));
          y.at4(n, p_, q, d) = output_code(acc.value, mm, p.output, p.elem, /*offset_after_rounding=*/false);
        }
  return y;
}

// spec: glow.op.rowwise_fully_connected
IntArray glow_rowwise_fully_connected(const IntArray& x, const IntArray& w, const std::vector<std::uint32_t>& scales,
                                      const std::vector<Int>& offsets, const IntArray& bias, const GlowLinearParams& p) {
  check_rank(x.shape, 2, "glow.rowwise_fully_connected: input (N,K)");
  check_rank(w.shape, 2, "glow.rowwise_fully_connected: weights (M,K)");
  QSPEC_ERROR_IF(w.shape[1] != x.shape[1], "glow.rowwise_fully_connected: weights columns " + s(w.shape[1]) + " != K = " + s(x.shape[1]));
  const std::int64_t N = x.shape[0], K = x.shape[1], M = w.shape[0];
  QSPEC_ERROR_IF(static_cast<std::int64_t>(scales.size()) != M || static_cast<std::int64_t>(offsets.size()) != M,
           "glow.rowwise_fully_connected: scales and offsets must have one entry per weight row (M = " + s(M) + ")");
  QSPEC_ERROR_IF(bias.shape != Shape{M}, "glow.rowwise_fully_connected: bias must be (M) = (" + s(M) + ")");
  glow_check_linear_types(p.elem, p.bias_type);
  check_params(p, false);
  require_codes(x, p.elem, "glow.rowwise_fully_connected: input");
  require_codes(w, p.elem, "glow.rowwise_fully_connected: weights");
  require_codes(bias, p.bias_type, "glow.rowwise_fully_connected: bias");
  IntArray y({N, M});
  for (std::int64_t m = 0; m < M; ++m) {
    const auto um = static_cast<std::size_t>(m);
    require_scale(scales[um], "glow.rowwise_fully_connected: row scale");
    QSPEC_REQUIRE(in(offsets[um], int_range(DType::I32)), "glow.rowwise_fully_connected: row offsets are int32");
    const std::uint32_t mm = matmul_scale(scales[um], p.input.scale);  // scalesW.raw(j) * inScale
    for (std::int64_t n = 0; n < N; ++n) {
      Accumulator acc{acc_range(p.elem)};
      for (std::int64_t k = 0; k < K; ++k) acc.add((w.at2(m, k) - offsets[um]) * (x.at2(n, k) - p.input.offset));
      acc.add(bias_term(bias.data[um], p.bias, mm, p.elem));
      y.at2(n, m) = output_code(acc.value, mm, p.output, p.elem, /*offset_after_rounding=*/false);
    }
  }
  return y;
}

// spec: glow.op.fused_rowwise_sparse_lengths_weighted_sum
NdArray<std::uint32_t> glow_fused_rowwise_sparse_lengths_weighted_sum(const IntArray& data,
                                                                      const std::vector<std::uint32_t>& weights,
                                                                      const std::vector<Int>& indices,
                                                                      const std::vector<Int>& lengths) {
  const std::string op = "glow.fused_rowwise_sparse_lengths_weighted_sum: ";
  QSPEC_ERROR_IF(data.shape.size() != 2 || data.shape[1] <= 8 || data.shape[0] < 1,
           op + "data must be a (rows, cols + 8) uint8 matrix with cols >= 1, got " + shape_str(data.shape));
  QSPEC_ERROR_IF(weights.size() != indices.size(), op + "weights and indices must have the same length");
  Int total(0);
  for (const auto& l : lengths) {
    QSPEC_ERROR_IF(l < 0, op + "lengths must be >= 0");
    total += l;
  }
  QSPEC_ERROR_IF(total > Int(static_cast<long long>(indices.size())), op + "sum(lengths) exceeds the number of indices");
  require_codes(data, DType::U8, op + "data");
  const std::int64_t R = data.shape[0], C = data.shape[1] - 8;
  NdArray<std::uint32_t> y({static_cast<std::int64_t>(lengths.size()), C}, 0u);
  std::size_t cur = 0;
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    std::vector<std::uint32_t> acc(static_cast<std::size_t>(C), 0u);  // +0.0f
    for (Int j(0); j < lengths[i]; ++j, ++cur) {
      const Int& row = indices[cur];
      QSPEC_REQUIRE(row >= 0 && row < R, op + "indices lie in [0, rows)");
      const auto r = static_cast<std::int64_t>(row);
      const std::uint32_t w = finite32(weights[cur], op + "weight");
      const std::uint32_t scale = read_le_f32(data, r, C), offset = read_le_f32(data, r, C + 4);
      for (std::int64_t k = 0; k < C; ++k) {
        const std::uint32_t d = glow_fused_rowwise_dequantize(data.at2(r, k), scale, offset);
        const std::uint32_t prod = finite32(f32_mul(d, w), op + "d * weight");
        auto& a = acc[static_cast<std::size_t>(k)];
        a = finite32(f32_add(a, prod), op + "the float32 accumulator");
      }
    }
    for (std::int64_t k = 0; k < C; ++k) y.at2(static_cast<std::int64_t>(i), k) = acc[static_cast<std::size_t>(k)];
  }
  return y;
}

// spec: glow.op.rescale
IntArray glow_rescale(const IntArray& x, const GlowQParams& in_p, const GlowQParams& out_p, GlowBackend backend) {
  require_codes(x, DType::I8, "glow.rescale: input");
  IntArray y(x.shape);
  for (std::size_t i = 0; i < x.data.size(); ++i)
    y.data[i] = backend == GlowBackend::Cpu ? glow_rescale_integer(x.data[i], in_p, out_p) : glow_rescale_float(x.data[i], in_p, out_p);
  return y;
}

// spec: glow.op.keeps_input_qparams
GlowQParams glow_keeps_input_qparams(const GlowQParams& input, const GlowQParams& /*requested_output*/) {
  require_scale(input.scale, "glow: input scale");
  QSPEC_REQUIRE(in(input.offset, int_range(DType::I32)), "glow: input offset is int32");
  return input;
}

// spec: glow.op.keeps_input_qparams
void glow_check_reshape(const Shape& x, const Shape& shape) {
  for (auto d : shape) QSPEC_ERROR_IF(d < 1, "glow.reshape: shape entries must be >= 1, got " + shape_str(shape));
  QSPEC_ERROR_IF(shape_numel(shape) != shape_numel(x), "glow.reshape: " + shape_str(x) + " and " + shape_str(shape) + " differ in size");
}

// spec: glow.op.keeps_input_qparams
void glow_check_slice(const Shape& x, const Shape& start, const Shape& size) {
  QSPEC_ERROR_IF(start.size() != x.size() || size.size() != x.size(), "glow.slice: start and size need one entry per axis");
  for (std::size_t i = 0; i < x.size(); ++i) {
    QSPEC_ERROR_IF(start[i] < 0, "glow.slice: start must be >= 0");
    QSPEC_ERROR_IF(size[i] < 1, "glow.slice: size must be >= 1");
    QSPEC_ERROR_IF(start[i] + size[i] > x[i], "glow.slice: start + size exceeds the input on axis " + s(static_cast<std::int64_t>(i)));
  }
}

// spec: glow.op.keeps_input_qparams
Shape glow_gather_output_shape(const Shape& x, const Shape& indices, std::int64_t batch_dims) {
  QSPEC_ERROR_IF(batch_dims < 0 || batch_dims >= static_cast<std::int64_t>(x.size()),
           "glow.gather: batch_dims must lie in [0, rank(data)), got " + s(batch_dims));
  check_positive_dims(x, "glow.gather: data");
  const auto b = static_cast<std::ptrdiff_t>(batch_dims);
  Shape out(x.begin(), x.begin() + b);
  out.insert(out.end(), indices.begin(), indices.end());
  out.insert(out.end(), x.begin() + b + 1, x.end());
  return out;
}

// spec: glow.op.keeps_input_qparams
void glow_check_topk(const Shape& x, std::int64_t k) {
  QSPEC_ERROR_IF(x.empty(), "glow.topk: the input needs at least one axis");
  QSPEC_ERROR_IF(k < 1 || k > x.back(), "glow.topk: k must lie in [1, " + s(x.back()) + "], got " + s(k));
}

// spec: glow.op.keeps_input_qparams
Shape glow_max_pool_output_shape(const Shape& x, const GlowPoolAttrs& a) {
  check_rank(x, 4, "glow.max_pool: input (N,H,W,C)");
  check_positive_dims(x, "glow.max_pool: input");
  for (int i = 0; i < 2; ++i) {
    QSPEC_ERROR_IF(a.kernel[i] < 1, "glow.max_pool: kernels must be >= 1");
    QSPEC_ERROR_IF(a.stride[i] < 1, "glow.max_pool: strides must be >= 1");
  }
  for (auto pad : a.pads) QSPEC_ERROR_IF(pad < 0, "glow.max_pool: pads must be >= 0");
  const std::int64_t ph = x[1] + a.pads[0] + a.pads[2], pw = x[2] + a.pads[1] + a.pads[3];
  QSPEC_ERROR_IF(ph < a.kernel[0] || pw < a.kernel[1], "glow.max_pool: kernel larger than the padded input");
  return {x[0], (ph - a.kernel[0]) / a.stride[0] + 1, (pw - a.kernel[1]) / a.stride[1] + 1, x[3]};
}

}  // namespace qspec::ref::ops
