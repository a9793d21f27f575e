// Handlers of the quantized operators of TVM QNN (conv2d, dense, relu, max_pool2d, concatenate,
// add) and gemmlowp's matmul (spec/operators_tvm.md, gemmlowp_matmul.md): an exact accumulator
// from the 8-bit GEMM engines with zero points, then the library's own requantization kernel.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "nn_common.h"
#include "qspec/catalogue/keys.h"
#include "qspec/core/abi_tensor.h"
#include "qspec/simd/backend_core.h"
#include "tvm_requant.h"

namespace qspec::simd {
namespace {

using namespace nn;

float f32_of(std::uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
float f32_or(const Json& a, const attr::F32& key, float d) { return attr::has(a, key) ? f32_of(attr::get(a, key)) : d; }

qspec_dtype dtype_or(const Json& a, const attr::DTypeKey& key, qspec_dtype d) {
  return attr::has(a, key) ? to_abi_dtype(attr::get(a, key)) : d;
}

// tvm.requantize's rounding of Op: TONEAREST, or UPWARD (the default; the key's domain holds only these two).
template <class Op>
bool to_nearest(const Json& a) {
  using Is = typename Op::attr::rounding_is;
  return attr::get_or(a, Op::attr::rounding, Is::UPWARD) == Is::TONEAREST;
}

OutType out_type(qspec_dtype d) {
  switch (d) {
    case QSPEC_DTYPE_INT8: return OutType::I8;
    case QSPEC_DTYPE_UINT8: return OutType::U8;
    case QSPEC_DTYPE_INT16: return OutType::I16;
    case QSPEC_DTYPE_UINT16: return OutType::U16;
    case QSPEC_DTYPE_INT32: return OutType::I32;
    default: throw Unsupported("output dtype is not an 8/16/32-bit integer");
  }
}

// tvm.requantize's ERROR_IFs (checked only when an element is requantized, as the reference does).
void tvm_requant_checks(float out_s, qspec_dtype od) {
  reject_if(std::isnan(out_s) || out_s == 0.0f, "tvm.requantize: output scale can not be 0");
  reject_if(od != QSPEC_DTYPE_INT8 && od != QSPEC_DTYPE_UINT8 && od != QSPEC_DTYPE_INT16 && od != QSPEC_DTYPE_INT32,
            "tvm.requantize: out_dtype must be int8, uint8, int16 or int32");
}

// Requantizes exact accumulators (REQUIRE'd to fit int32) with a TVM per-tensor requantize.
std::vector<std::int64_t> tvm_requant_values(const KernelSet& k, const std::vector<std::int64_t>& acc,
                                             const RequantParams& p) {
  std::vector<std::int32_t> x(acc.size()), y(acc.size());
  for (std::size_t i = 0; i < acc.size(); ++i) {
    if (acc[i] < INT32_MIN || acc[i] > INT32_MAX)
      throw Unsupported("accumulator beyond int32 (a REQUIRE of tvm.requantize)");
    x[i] = static_cast<std::int32_t>(acc[i]);
  }
  RequantParams q = p;  // compute in int32 lanes, then widen
  q.out = OutType::I32;
  k.requant(q, x.size(), x.data(), y.data());
  return {y.begin(), y.end()};
}

struct QnnParams {
  std::int64_t zin = 0, zk = 0, zout = 0;
  float s_in = 1.0f, s_k = 1.0f, s_out = 1.0f;
  qspec_dtype od = QSPEC_DTYPE_INT32;
  bool nearest = false;
};
// The parameters of Op (tvm.qnn.conv2d, tvm.qnn.dense).
template <class Op>
QnnParams qnn_params(const Json& a) {
  using A = typename Op::attr;
  QnnParams p;
  p.zin = attr::get_or(a, A::input_zero_point, 0);
  p.zk = attr::get_or(a, A::kernel_zero_point, 0);
  p.zout = attr::get_or(a, A::output_zero_point, 0);
  p.s_in = f32_or(a, A::input_scale, 1.0f);
  p.s_k = f32_or(a, A::kernel_scale, 1.0f);
  p.s_out = f32_or(a, A::output_scale, 1.0f);
  p.od = dtype_or(a, A::out_dtype, QSPEC_DTYPE_INT32);
  p.nearest = to_nearest<Op>(a);
  reject_if(p.od != QSPEC_DTYPE_INT8 && p.od != QSPEC_DTYPE_UINT8 && p.od != QSPEC_DTYPE_INT32,
            "tvm.qnn: out_dtype must be int8, uint8 or int32");
  return p;
}

// The accumulators, requantized unless out_dtype is int32 (requantize(acc, fl32(s_in * s_k), 0, s_out, zp_out)).
std::vector<std::int64_t> qnn_output(const KernelSet& k, const std::vector<std::int64_t>& acc, const QnnParams& p) {
  if (p.od == QSPEC_DTYPE_INT32 || acc.empty()) return acc;
  tvm_requant_checks(p.s_out, p.od);
  const float s_acc = p.s_in * p.s_k;  // a float32 product in Relay
  const RequantParams rp = tvm::per_tensor(s_acc, p.s_out, p.nearest, 0, p.zout, out_type(p.od));
  return tvm_requant_values(k, acc, rp);
}

IntArray transpose4(const IntArray& a, const std::array<int, 4>& perm) {
  IntArray y;
  y.shape.resize(4);
  for (int i = 0; i < 4; ++i)
    y.shape[static_cast<std::size_t>(i)] = a.shape[static_cast<std::size_t>(perm[static_cast<std::size_t>(i)])];
  y.data.resize(a.data.size());
  std::array<std::int64_t, 4> stride{};
  stride[3] = 1;
  for (int i = 2; i >= 0; --i)
    stride[static_cast<std::size_t>(i)] =
        stride[static_cast<std::size_t>(i) + 1] * a.shape[static_cast<std::size_t>(i) + 1];
  std::size_t off = 0;
  for (std::int64_t i0 = 0; i0 < y.shape[0]; ++i0)
    for (std::int64_t i1 = 0; i1 < y.shape[1]; ++i1)
      for (std::int64_t i2 = 0; i2 < y.shape[2]; ++i2)
        for (std::int64_t i3 = 0; i3 < y.shape[3]; ++i3) {
          const std::int64_t idx[4] = {i0, i1, i2, i3};
          std::int64_t src = 0;
          for (int d = 0; d < 4; ++d)
            src += idx[d] * stride[static_cast<std::size_t>(perm[static_cast<std::size_t>(d)])];
          y.data[off++] = a.data[static_cast<std::size_t>(src)];
        }
  return y;
}

void qnn_conv2d(OpCall& c) {
  using K = cat::tvm_qnn_conv2d;
  using Layout = K::attr::data_layout_is;
  need_inputs(c, 2, K::op);
  const QnnParams p = qnn_params<K>(c.attrs);
  IntArray x = read_int(c.inputs[0]), w = read_int(c.inputs[1]);
  reject_if(x.shape.size() != 4 || w.shape.size() != 4, "tvm.qnn.conv2d: rank-4 data and kernel");
  const bool nhwc = attr::get_or(c.attrs, K::attr::data_layout, Layout::NCHW) == Layout::NHWC;
  if (nhwc) {
    x = transpose4(x, {0, 3, 1, 2});  // NHWC -> NCHW
    w = transpose4(w, {3, 2, 0, 1});  // HWIO -> OIHW
  }
  const ConvGeom g = conv_geom(c, conv_keys<K>, x, w);
  // The pad holds the input zero point (real 0).
  const std::vector<std::int64_t> acc = conv2d_exact(c.k, x, w, g, p.zin, p.zk, p.zin);
  IntArray y{{g.n, g.o, g.oh(), g.ow()}, qnn_output(c.k, acc, p)};
  if (nhwc) y = transpose4(y, {0, 2, 3, 1});
  write_int(c.output(K::out::y, 0), y.shape, y.data);
}

void qnn_dense(OpCall& c) {
  using K = cat::tvm_qnn_dense;
  need_inputs(c, 2, K::op);
  const QnnParams p = qnn_params<K>(c.attrs);
  const IntArray x = read_int(c.inputs[0]), w = read_int(c.inputs[1]);
  const std::vector<std::int64_t> acc = fc_exact(c.k, x, w, p.zin, p.zk);
  write_int(c.output(K::out::y, 0), {x.dim(0), w.dim(0)}, qnn_output(c.k, acc, p));
}

void qnn_relu(OpCall& c) {
  using K = cat::tvm_qnn_relu;
  need_inputs(c, 1, K::op);
  IntArray x = read_int(c.inputs[0]);
  const std::int64_t zp = attr::get_or(c.attrs, K::attr::zero_point, 0);
  for (auto& v : x.data) v = std::max(v, zp);
  write_int(c.output(K::out::y, 0), x.shape, x.data);
}

// Per-tensor TVM requantize of every element of x (int32 inputs; checks only if x has elements).
std::vector<std::int64_t> requant_tensor(const KernelSet& k, const IntArray& x, float s, std::int64_t z, float s_out,
                                         std::int64_t z_out, bool nearest, qspec_dtype od) {
  if (x.data.empty()) return {};
  tvm_requant_checks(s_out, od);
  return tvm_requant_values(k, x.data, tvm::per_tensor(s, s_out, nearest, z, z_out, out_type(od)));
}

void qnn_concatenate(OpCall& c) {
  using K = cat::tvm_qnn_concatenate;
  using A = K::attr;
  const auto sc = attr::get_or(c.attrs, A::input_scales, std::vector<std::uint32_t>{});
  const auto zp = attr::get_or(c.attrs, A::input_zero_points, Ints{});
  const qspec_dtype od = dtype_or(c.attrs, A::out_dtype, QSPEC_DTYPE_INT8);
  const bool nearest = to_nearest<K>(c.attrs);
  const std::uint32_t s_out = attr::get(c.attrs, A::output_scale);
  const std::int64_t z_out = attr::get_or(c.attrs, A::output_zero_point, 0);
  reject_if(sc.size() != c.n_inputs || zp.size() != c.n_inputs,
            "tvm.qnn.concatenate: one scale and zero point per input");
  std::vector<IntArray> xs;
  for (std::size_t i = 0; i < c.n_inputs; ++i) {
    IntArray x = read_int(c.inputs[i]);
    if (!(sc[i] == s_out && zp[i] == z_out))  // inputs already at the output parameters pass unchanged
      x.data = requant_tensor(c.k, x, f32_of(sc[i]), zp[i], f32_of(s_out), z_out, nearest, od);
    xs.push_back(std::move(x));
  }
  const IntArray y = concat_exact(xs, attr::get_or(c.attrs, A::axis, 0));
  write_int(c.output(K::out::y, 0), y.shape, y.data);
}

void qnn_add(OpCall& c) {
  using K = cat::tvm_qnn_add;
  using A = K::attr;
  need_inputs(c, 2, K::op);
  const qspec_dtype od = dtype_or(c.attrs, A::out_dtype, QSPEC_DTYPE_INT8);
  const bool nearest = to_nearest<K>(c.attrs);
  const float s_out = f32_of(attr::get(c.attrs, A::output_scale));
  const std::int64_t z_out = attr::get_or(c.attrs, A::output_zero_point, 0);
  IntArray a = read_int(c.inputs[0]), b = read_int(c.inputs[1]);
  // requant32(x) = requantize(x, s_x, zp_x, s_out, zp_out, int32): no clip.
  a.data = requant_tensor(c.k, a, f32_or(c.attrs, A::lhs_scale, 1.0f), attr::get_or(c.attrs, A::lhs_zero_point, 0),
                          s_out, z_out, nearest, QSPEC_DTYPE_INT32);
  b.data = requant_tensor(c.k, b, f32_or(c.attrs, A::rhs_scale, 1.0f), attr::get_or(c.attrs, A::rhs_zero_point, 0),
                          s_out, z_out, nearest, QSPEC_DTYPE_INT32);
  const auto shape = broadcast_shape(a.shape, b.shape);
  const std::size_t r = shape.size();
  std::int64_t total = 1;
  for (auto d : shape) total *= d;
  std::int64_t lo = 0, hi = 0;
  switch (od) {
    case QSPEC_DTYPE_INT8: lo = -128, hi = 127; break;
    case QSPEC_DTYPE_UINT8: lo = 0, hi = 255; break;
    case QSPEC_DTYPE_INT16: lo = -32768, hi = 32767; break;
    case QSPEC_DTYPE_UINT16: lo = 0, hi = 65535; break;
    case QSPEC_DTYPE_INT32: lo = INT32_MIN, hi = INT32_MAX; break;
    case QSPEC_DTYPE_INT64: lo = INT64_MIN, hi = INT64_MAX; break;
    default: throw std::invalid_argument("tvm.qnn.add: integer out_dtype");
  }
  std::vector<std::int64_t> y(static_cast<std::size_t>(total)), idx(r);
  for (std::int64_t off = 0; off < total; ++off) {
    std::int64_t rem = off;
    for (std::size_t j = r; j-- > 0;) {
      idx[j] = rem % shape[j];
      rem /= shape[j];
    }
    auto at = [&](const IntArray& t) {
      std::int64_t o = 0;
      for (std::size_t j = 0; j < t.shape.size(); ++j)
        o = o * t.shape[j] + (t.shape[j] == 1 ? 0 : idx[r - t.shape.size() + j]);
      return t.data[static_cast<std::size_t>(o)];
    };
    const std::int64_t v = at(a) + at(b) - z_out;  // |.| < 2^33: exact in int64
    y[static_cast<std::size_t>(off)] = std::clamp(v, lo, hi);
  }
  write_int(c.output(K::out::y, 0), shape, y);
}

// qnn.avg_pool2d: requantize (or upcast) to int32 output codes, window sums over the input (the
// padding is the integer 0), truncating division by the tap count, clip to the data type.
void qnn_avg_pool2d(OpCall& c) {
  using K = cat::tvm_qnn_avg_pool2d;
  using A = K::attr;
  using Layout = A::layout_is;
  reject_if(c.n_inputs != 1, "tvm.qnn.avg_pool2d takes one input");
  const qspec_tensor& xt = c.inputs[0];
  reject_if(xt.dtype != QSPEC_DTYPE_INT8 && xt.dtype != QSPEC_DTYPE_UINT8,
            "tvm.qnn.avg_pool2d: data must be int8 or uint8");
  const auto k = pair(c.attrs, A::pool_size, {1, 1}), st = pair(c.attrs, A::strides, {1, 1}),
             dl = pair(c.attrs, A::dilation, {1, 1});
  const auto pad = attr::get_or(c.attrs, A::padding, Ints{0, 0, 0, 0});
  reject_if(pad.size() != 4, "tvm.qnn.avg_pool2d: padding needs four entries");
  const bool include_pad = attr::get_or(c.attrs, A::count_include_pad, false);
  const std::string_view layout = attr::get_or(c.attrs, A::layout, Layout::NCHW);
  reject_if(layout != Layout::NCHW && layout != Layout::NHWC, "tvm.qnn.avg_pool2d: layout must be NCHW or NHWC");
  reject_if(attr::get_or(c.attrs, A::ceil_mode, false), "tvm.qnn.avg_pool2d: ceil_mode is not covered");
  const bool nhwc = layout == Layout::NHWC;
  IntArray x = read_int(xt);
  reject_if(x.shape.size() != 4, "tvm.qnn.avg_pool2d: input must have rank 4");
  positive_dims(x, "tvm.qnn.avg_pool2d: input");
  for (int i = 0; i < 2; ++i) {
    reject_if(k[i] < 1 || st[i] < 1 || dl[i] < 1, "tvm.qnn.avg_pool2d: pool_size, strides and dilation must be >= 1");
  }
  for (auto v : pad) reject_if(v < 0, "tvm.qnn.avg_pool2d: padding must be >= 0");
  const std::size_t ha = nhwc ? 1 : 2, wa = nhwc ? 2 : 3;
  const std::int64_t H = x.shape[ha], W = x.shape[wa];
  const std::int64_t eh = dl[0] * (k[0] - 1) + 1, ew = dl[1] * (k[1] - 1) + 1;
  const std::int64_t ph = H + pad[0] + pad[2], pw = W + pad[1] + pad[3];
  reject_if(ph < eh || pw < ew, "tvm.qnn.avg_pool2d: dilated window larger than the padded input");
  std::vector<std::int64_t> shape = x.shape;
  shape[ha] = (ph - eh) / st[0] + 1;
  shape[wa] = (pw - ew) / st[1] + 1;
  const std::uint32_t in_b = attr::get(c.attrs, A::input_scale), out_b = attr::get(c.attrs, A::output_scale);
  const std::int64_t izp = attr::get(c.attrs, A::input_zero_point), ozp = attr::get(c.attrs, A::output_zero_point);
  if (!(in_b == out_b && izp == ozp))
    x.data = requant_tensor(c.k, x, f32_of(in_b), izp, f32_of(out_b), ozp, false, QSPEC_DTYPE_INT32);
  const std::int64_t lo = xt.dtype == QSPEC_DTYPE_INT8 ? -128 : 0, hi = xt.dtype == QSPEC_DTYPE_INT8 ? 127 : 255;
  auto taps_inside = [](std::int64_t start, std::int64_t kk, std::int64_t d, std::int64_t n) {
    std::int64_t cnt = 0;
    for (std::int64_t i = 0; i < kk; ++i) cnt += (start + i * d >= 0 && start + i * d < n) ? 1 : 0;
    return cnt;
  };
  std::int64_t total = 1;
  for (auto d : shape) total *= d;
  std::vector<std::int64_t> y(static_cast<std::size_t>(total));
  std::array<std::int64_t, 4> o{}, in_stride{};
  in_stride[3] = 1;
  for (int d = 2; d >= 0; --d)
    in_stride[static_cast<std::size_t>(d)] =
        in_stride[static_cast<std::size_t>(d) + 1] * x.shape[static_cast<std::size_t>(d) + 1];
  for (std::int64_t off = 0; off < total; ++off) {
    std::int64_t rem = off;
    for (int d = 3; d >= 0; --d) {
      o[static_cast<std::size_t>(d)] = rem % shape[static_cast<std::size_t>(d)];
      rem /= shape[static_cast<std::size_t>(d)];
    }
    const std::int64_t h0 = o[ha] * st[0] - pad[0], w0 = o[wa] * st[1] - pad[1];
    std::int64_t base = 0;
    for (std::size_t d = 0; d < 4; ++d)
      if (d != ha && d != wa) base += o[d] * in_stride[d];
    std::int64_t sum = 0;  // |sum| <= taps * 2^31: int64
    for (std::int64_t i = 0; i < k[0]; ++i)
      for (std::int64_t j = 0; j < k[1]; ++j) {
        const std::int64_t h = h0 + i * dl[0], w = w0 + j * dl[1];
        if (h < 0 || h >= H || w < 0 || w >= W) continue;
        sum += x.data[static_cast<std::size_t>(base + h * in_stride[ha] + w * in_stride[wa])];
      }
    const std::int64_t inside = taps_inside(h0, k[0], dl[0], H) * taps_inside(w0, k[1], dl[1], W);
    const std::int64_t n = include_pad ? k[0] * k[1] : std::max<std::int64_t>(1, inside);
    y[static_cast<std::size_t>(off)] = std::clamp(sum / n, lo, hi);  // C++ division truncates toward zero
  }
  write_int(c.output(K::out::y, 0), shape, y);
}

// gemmlowp: uint8 lhs (M,K) x rhs (K,N) with offsets, then RDBPOT(SRDHM(acc, M), shift) + zp, sat uint8.
void gemmlowp_matmul(OpCall& c) {
  using Op = cat::gemmlowp_matmul;
  using A = Op::attr;
  need_inputs(c, 2, Op::op);
  const std::int64_t zl = attr::get_or(c.attrs, A::lhs_zero_point, 0), zr = attr::get_or(c.attrs, A::rhs_zero_point, 0);
  const std::int64_t zres = attr::get_or(c.attrs, A::result_zero_point, 0);
  const std::int64_t mult = attr::get(c.attrs, A::multiplier), shift = attr::get(c.attrs, A::shift);
  reject_if(zres < 0 || zres > 255, "gemmlowp.matmul: result zero point is uint8");
  const IntArray lhs = read_int(c.inputs[0]), rhs = read_int(c.inputs[1]);
  reject_if(lhs.shape.size() != 2 || rhs.shape.size() != 2 || lhs.dim(1) != rhs.dim(0),
            "gemmlowp.matmul: lhs (M,K) and rhs (K,N)");
  reject_if(!all_within(lhs.data, 0, 255) || !all_within(rhs.data, 0, 255), "gemmlowp.matmul: operands are uint8");
  reject_if(zl < 0 || zl > 255 || zr < 0 || zr > 255, "gemmlowp.matmul: zero points are uint8");
  if (mult < 0 || mult > INT32_MAX || shift < 0 || shift > 31)
    throw Unsupported("multiplier/shift outside the REQUIREs");
  const std::int64_t M = lhs.dim(0), K = lhs.dim(1), N = rhs.dim(1);
  IntArray rt;  // rhs^T: the engine's weights are rows of K
  rt.shape = {N, K};
  rt.data.resize(static_cast<std::size_t>(N * K));
  for (std::int64_t k = 0; k < K; ++k)
    for (std::int64_t n = 0; n < N; ++n)
      rt.data[static_cast<std::size_t>(n * K + k)] = rhs.data[static_cast<std::size_t>(k * N + n)];
  const std::vector<std::int64_t> acc = fc_exact(c.k, lhs, rt, zl, zr);
  RequantParams p;
  p.kind = RequantKind::kQ31Double;
  p.multiplier = static_cast<std::int32_t>(mult);
  p.right_shift = static_cast<int>(shift);
  p.zp = static_cast<std::int32_t>(zres);
  p.out = OutType::I32;
  p.qmin = 0;
  p.qmax = 255;
  if (!finalize(p)) throw Unsupported("requantization parameters outside the kernels' domain");
  std::vector<std::int32_t> x(acc.size()), y(acc.size());
  for (std::size_t i = 0; i < acc.size(); ++i) {
    if (acc[i] < INT32_MIN || acc[i] > INT32_MAX) throw Unsupported("accumulator beyond int32 (REQUIRE)");
    x[i] = static_cast<std::int32_t>(acc[i]);
  }
  c.k.requant(p, x.size(), x.data(), y.data());
  write_int(c.output(Op::out::y, 0), {M, N}, std::vector<std::int64_t>(y.begin(), y.end()));
}

}  // namespace

void add_qnn_ops(std::vector<OpEntry>& t) {
  const char* gemm = "8-bit operands: VNNI/AVX2 GEMM with zero points, then the vectorized requantization";
  t.push_back(entry<cat::tvm_qnn_conv2d>(cat::tvm_qnn_conv2d::conv::tvm, gemm, qnn_conv2d));
  t.push_back(entry<cat::tvm_qnn_dense>(cat::tvm_qnn_dense::conv::tvm, gemm, qnn_dense));
  t.push_back(entry<cat::tvm_qnn_relu>(cat::tvm_qnn_relu::conv::tvm, "scalar", qnn_relu));
  t.push_back(entry<cat::tvm_qnn_max_pool2d>(cat::tvm_qnn_max_pool2d::conv::tvm, "scalar",
                                             nn::max_pool2d<cat::tvm_qnn_max_pool2d>));
  t.push_back(entry<cat::tvm_qnn_concatenate>(cat::tvm_qnn_concatenate::conv::tvm, "vectorized requantization",
                                              qnn_concatenate));
  t.push_back(entry<cat::tvm_qnn_add>(cat::tvm_qnn_add::conv::tvm, "vectorized requantization", qnn_add));
  t.push_back(entry<cat::tvm_qnn_avg_pool2d>(cat::tvm_qnn_avg_pool2d::conv::tvm,
                                             "vectorized requantization, scalar window sums", qnn_avg_pool2d));
  t.push_back(entry<cat::gemmlowp_matmul>(cat::gemmlowp_matmul::conv::gemmlowp, gemm, gemmlowp_matmul));
}

}  // namespace qspec::simd
