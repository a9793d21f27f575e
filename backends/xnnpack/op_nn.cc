// XNNPACK's quantized operators on qspec's NN ops: fully connected and convolution (TVM's dense /
// conv2d, all-conventions mode), max pooling and concatenation (exact, native), add (TVM's add,
// all-conventions mode), and the engine operators qlinear.add / qlinear.mul (XNNPACK's own convention).
//
// Layouts: XNNPACK's int8 convolution and pooling are NHWC with OHWI weights; qspec's NCHW / OIHW
// (and TVM's HWIO) are transposed to them and back (data movement only). XNNPACK pads a
// convolution with the input zero point (TVM's padding). qs8 operators have symmetric (zero
// point 0) weights; qu8 operators take a kernel zero point; the output type is the input's.
// The requantization scale XNNPACK derives is input_scale * kernel_scale / output_scale in
// float32, from the three float32 scales the vector gives: exactly what an XNNPACK user passes.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "ops.h"
#include "qspec/catalogue/keys.h"
#include "qspec/core/attr.h"
#include "qspec/thirdparty/layout.h"
#include "qspec/thirdparty/requant_params.h"
#include "qspec/thirdparty/tensor_io.h"
#include "qspec/thirdparty/window_attrs.h"
#include "xnn_util.h"

namespace qspec::xnnpack_adapter {
namespace {
using namespace thirdparty;

// The quantized family (qs8 / qu8) of a data / weight / output dtype triple.
bool signed_family(const Call& call, qspec_dtype x, qspec_dtype w, qspec_dtype y) {
  (void)call;
  if (x == QSPEC_DTYPE_INT8 && w == QSPEC_DTYPE_INT8 && y == QSPEC_DTYPE_INT8) return true;
  if (x == QSPEC_DTYPE_UINT8 && w == QSPEC_DTYPE_UINT8 && y == QSPEC_DTYPE_UINT8) return false;
  throw Unsupported(
      std::string("XNNPACK's quantized operators are qs8 (int8 data, weights, output) or qu8 (uint8), not ") +
      dtype_name(x) + " x " + dtype_name(w) + " -> " + dtype_name(y));
}

void zp_fits(const Call& call, std::int64_t zp, bool is_signed, const char* what) {
  if (zp < (is_signed ? -128 : 0) || zp > (is_signed ? 127 : 255))
    call.refuse(std::string("XNNPACK's API takes the ") + what + " as " + (is_signed ? "int8_t" : "uint8_t"));
}

struct Scales {
  float in = 1, k = 1, out = 1;
};
// The scales of Op (tvm.qnn.dense, tvm.qnn.conv2d).
template <class Op>
Scales tvm_scales(const nlohmann::ordered_json& a) {
  using A = typename Op::attr;
  return {f32_from_bits(attr::get(a, A::input_scale)), f32_from_bits(attr::get(a, A::kernel_scale)),
          f32_from_bits(attr::get(a, A::output_scale))};
}
// The zero points of Op (default 0).
template <class Op>
std::array<std::int64_t, 3> tvm_zero_points(const nlohmann::ordered_json& a) {
  using A = typename Op::attr;
  return {attr::get_or(a, A::input_zero_point, 0), attr::get_or(a, A::kernel_zero_point, 0),
          attr::get_or(a, A::output_zero_point, 0)};
}

template <typename T>
std::vector<T> narrow(const std::vector<std::int64_t>& v) {
  return std::vector<T>(v.begin(), v.end());
}

}  // namespace

void run_tvm_dense(const Call& call) {
  using K = cat::tvm_qnn_dense;
  const qspec_tensor &xt = call.input(K::in::data), &wt = call.input(K::in::weight);
  qspec_tensor& yt = call.output(K::out::y);
  if (yt.dtype != QSPEC_DTYPE_INT8 && yt.dtype != QSPEC_DTYPE_UINT8 && yt.dtype != QSPEC_DTYPE_INT32)
    call.refuse("out_dtype must be int8, uint8 or int32");
  if (yt.dtype == QSPEC_DTYPE_INT32)
    throw Unsupported("XNNPACK's fully connected operators requantize; no int32 accumulator");
  const bool s8 = signed_family(call, xt.dtype, wt.dtype, yt.dtype);
  if (xt.rank != 2 || wt.rank != 2 || xt.shape[1] != wt.shape[1])
    call.refuse("dense needs data (N,K) and weight (M,K)");
  const auto [izp, kzp, ozp] = tvm_zero_points<K>(call.attrs);
  zp_fits(call, izp, s8, "input zero point");
  zp_fits(call, ozp, s8, "output zero point");
  zp_fits(call, kzp, s8, "kernel zero point");
  if (s8 && kzp != 0) throw Unsupported("XNNPACK qs8 weights are symmetric: no kernel zero point");
  const Scales sc = tvm_scales<K>(call.attrs);
  const std::size_t n = static_cast<std::size_t>(xt.shape[0]), k = static_cast<std::size_t>(xt.shape[1]),
                    m = static_cast<std::size_t>(wt.shape[0]);
  if (n * m == 0) return;
  Operator op;
  const std::string what = std::string("xnn_create_fully_connected_nc_") + (s8 ? "qs8" : "qu8");
  std::vector<std::int64_t> y(n * m);
  if (s8) {
    const auto x = narrow<std::int8_t>(read_ints(xt)), w = narrow<std::int8_t>(read_ints(wt));
    std::vector<std::int8_t> out(n * m);
    check_create(
        call,
        xnn_create_fully_connected_nc_qs8(k, m, k, m, static_cast<std::int8_t>(izp), sc.in, sc.k, w.data(), nullptr,
                                          static_cast<std::int8_t>(ozp), sc.out, INT8_MIN, INT8_MAX, 0, op.out()),
        what);
    check(xnn_setup_fully_connected_nc_qs8(op.get(), n, x.data(), out.data(), nullptr),
          "xnn_setup_fully_connected_nc_qs8");
    check(xnn_run_operator(op.get(), nullptr), "xnn_run_operator");
    y.assign(out.begin(), out.end());
  } else {
    const auto x = narrow<std::uint8_t>(read_ints(xt)), w = narrow<std::uint8_t>(read_ints(wt));
    std::vector<std::uint8_t> out(n * m);
    check_create(call,
                 xnn_create_fully_connected_nc_qu8(k, m, k, m, static_cast<std::uint8_t>(izp), sc.in,
                                                   static_cast<std::uint8_t>(kzp), sc.k, w.data(), nullptr,
                                                   static_cast<std::uint8_t>(ozp), sc.out, 0, UINT8_MAX, 0, op.out()),
                 what);
    check(xnn_setup_fully_connected_nc_qu8(op.get(), n, x.data(), out.data(), nullptr),
          "xnn_setup_fully_connected_nc_qu8");
    check(xnn_run_operator(op.get(), nullptr), "xnn_run_operator");
    y.assign(out.begin(), out.end());
  }
  write_ints(yt, y);
}

void run_tvm_conv2d(const Call& call) {
  using K = cat::tvm_qnn_conv2d;
  using Layout = K::attr::data_layout_is;
  const qspec_tensor &xt = call.input(K::in::data), &wt = call.input(K::in::kernel);
  qspec_tensor& yt = call.output(K::out::y);
  if (yt.dtype != QSPEC_DTYPE_INT8 && yt.dtype != QSPEC_DTYPE_UINT8 && yt.dtype != QSPEC_DTYPE_INT32)
    call.refuse("out_dtype must be int8, uint8 or int32");
  if (yt.dtype == QSPEC_DTYPE_INT32)
    throw Unsupported("XNNPACK's convolution operators requantize; no int32 accumulator");
  const bool s8 = signed_family(call, xt.dtype, wt.dtype, yt.dtype);
  if (xt.rank != 4 || wt.rank != 4) call.refuse("conv2d needs 4-D data and kernel");
  const auto [izp, kzp, ozp] = tvm_zero_points<K>(call.attrs);
  zp_fits(call, izp, s8, "input zero point");
  zp_fits(call, ozp, s8, "output zero point");
  zp_fits(call, kzp, s8, "kernel zero point");
  if (s8 && kzp != 0) throw Unsupported("XNNPACK qs8 weights are symmetric: no kernel zero point");
  const auto st = window_pair(call, K::attr::strides, 1, 1), pad = window_pair(call, K::attr::padding, 0, 0),
             dil = window_pair(call, K::attr::dilation, 1, 1);
  const std::int64_t groups = attr::get_or(call.attrs, K::attr::groups, 1);
  const bool nhwc = attr::get_or(call.attrs, K::attr::data_layout, Layout::NCHW) == Layout::NHWC;
  // To NHWC data and OHWI weights.
  std::vector<std::int64_t> xs, ws;
  const std::vector<std::int64_t> x = nhwc ? read_ints(xt) : permute4(read_ints(xt), shape_of(xt), kNchwToNhwc, xs);
  if (nhwc) xs = shape_of(xt);
  const std::vector<std::int64_t> w = permute4(read_ints(wt), shape_of(wt), nhwc ? kHwioToOhwi : kOihwToOhwi, ws);
  const std::int64_t n = xs[0], h = xs[1], wd = xs[2], c = xs[3], o = ws[0], kh = ws[1], kw = ws[2], ic = ws[3];
  if (groups < 1 || c != ic * groups || o % groups != 0) call.refuse("channels do not match groups");
  if (h + 2 * pad[0] < (kh - 1) * dil[0] + 1 || wd + 2 * pad[1] < (kw - 1) * dil[1] + 1)
    call.refuse("the kernel does not fit the padded input");
  const std::int64_t oh = (h + 2 * pad[0] - ((kh - 1) * dil[0] + 1)) / st[0] + 1;
  const std::int64_t ow = (wd + 2 * pad[1] - ((kw - 1) * dil[1] + 1)) / st[1] + 1;
  const std::size_t out_n = static_cast<std::size_t>(n * oh * ow * o);
  std::vector<std::int64_t> y_nhwc(out_n);
  const Scales sc = tvm_scales<K>(call.attrs);
  const auto u32 = [](std::int64_t v) { return static_cast<std::uint32_t>(v); };
  Operator op;
  const std::string what = std::string("xnn_create_convolution2d_nhwc_") + (s8 ? "qs8" : "qu8");
  if (out_n > 0) {
    if (s8) {
      const auto xb = narrow<std::int8_t>(x), wb = narrow<std::int8_t>(w);
      std::vector<std::int8_t> out(out_n);
      check_create(
          call,
          xnn_create_convolution2d_nhwc_qs8(
              u32(pad[0]), u32(pad[1]), u32(pad[0]), u32(pad[1]), u32(kh), u32(kw), u32(st[0]), u32(st[1]), u32(dil[0]),
              u32(dil[1]), u32(groups), static_cast<std::size_t>(ic), static_cast<std::size_t>(o / groups),
              static_cast<std::size_t>(c), static_cast<std::size_t>(o), static_cast<std::int8_t>(izp), sc.in, sc.k,
              wb.data(), nullptr, static_cast<std::int8_t>(ozp), sc.out, INT8_MIN, INT8_MAX, 0, op.out()),
          what);
      check(xnn_setup_convolution2d_nhwc_qs8(op.get(), static_cast<std::size_t>(n), static_cast<std::size_t>(h),
                                             static_cast<std::size_t>(wd), xb.data(), out.data(), nullptr),
            "xnn_setup_convolution2d_nhwc_qs8");
      check(xnn_run_operator(op.get(), nullptr), "xnn_run_operator");
      y_nhwc.assign(out.begin(), out.end());
    } else {
      const auto xb = narrow<std::uint8_t>(x), wb = narrow<std::uint8_t>(w);
      std::vector<std::uint8_t> out(out_n);
      check_create(call,
                   xnn_create_convolution2d_nhwc_qu8(
                       u32(pad[0]), u32(pad[1]), u32(pad[0]), u32(pad[1]), u32(kh), u32(kw), u32(st[0]), u32(st[1]),
                       u32(dil[0]), u32(dil[1]), u32(groups), static_cast<std::size_t>(ic),
                       static_cast<std::size_t>(o / groups), static_cast<std::size_t>(c), static_cast<std::size_t>(o),
                       static_cast<std::uint8_t>(izp), sc.in, static_cast<std::uint8_t>(kzp), sc.k, wb.data(), nullptr,
                       static_cast<std::uint8_t>(ozp), sc.out, 0, UINT8_MAX, 0, op.out()),
                   what);
      check(xnn_setup_convolution2d_nhwc_qu8(op.get(), static_cast<std::size_t>(n), static_cast<std::size_t>(h),
                                             static_cast<std::size_t>(wd), xb.data(), out.data(), nullptr),
            "xnn_setup_convolution2d_nhwc_qu8");
      check(xnn_run_operator(op.get(), nullptr), "xnn_run_operator");
      y_nhwc.assign(out.begin(), out.end());
    }
  }
  std::vector<std::int64_t> s;
  write_ints(yt, nhwc ? y_nhwc : permute4(y_nhwc, {n, oh, ow, o}, kNhwcToNchw, s));
}

void run_max_pool2d(const Call& call, const PoolKeys& keys) {
  if (call.inputs.size() != 1) call.refuse("max_pool2d takes one input");
  const qspec_tensor& xt = call.inputs[0];
  qspec_tensor& yt = call.first_output();
  if (xt.dtype != QSPEC_DTYPE_INT8 && xt.dtype != QSPEC_DTYPE_UINT8)
    throw Unsupported(std::string("XNNPACK max pooling is s8/u8 (and f32), not ") + dtype_name(xt.dtype));
  if (yt.dtype != xt.dtype) throw Unsupported("XNNPACK max pooling keeps the data type");
  if (xt.rank != 4) call.refuse("max_pool2d needs NCHW data");
  const auto k = window_pair(call, keys.kernel, 1, 1), st = window_pair(call, keys.strides, 1, 1),
             pad = window_pair(call, keys.padding, 0, 0);
  if (k[0] == 1 && k[1] == 1)
    throw Unsupported("XNNPACK refuses 1x1 max pooling (\"1x1 pooling is meaningless\", xnn_status_invalid_parameter)");
  std::vector<std::int64_t> xs;
  const std::vector<std::int64_t> x = permute4(read_ints(xt), shape_of(xt), kNchwToNhwc, xs);
  const std::int64_t n = xs[0], h = xs[1], w = xs[2], c = xs[3];
  if (h + 2 * pad[0] < k[0] || w + 2 * pad[1] < k[1]) call.refuse("the window does not fit the padded input");
  const std::int64_t oh = (h + 2 * pad[0] - k[0]) / st[0] + 1, ow = (w + 2 * pad[1] - k[1]) / st[1] + 1;
  const std::size_t out_n = static_cast<std::size_t>(n * oh * ow * c);
  std::vector<std::int64_t> y(out_n);
  if (out_n > 0) {
    const auto u32 = [](std::int64_t v) { return static_cast<std::uint32_t>(v); };
    Operator op;
    const bool s8 = xt.dtype == QSPEC_DTYPE_INT8;
    const std::size_t cc = static_cast<std::size_t>(c);
    if (s8) {
      const auto xb = narrow<std::int8_t>(x);
      std::vector<std::int8_t> out(out_n);
      check_create(
          call,
          xnn_create_max_pooling2d_nhwc_s8(u32(pad[0]), u32(pad[1]), u32(pad[0]), u32(pad[1]), u32(k[0]), u32(k[1]),
                                           u32(st[0]), u32(st[1]), 1, 1, cc, cc, cc, INT8_MIN, INT8_MAX, 0, op.out()),
          "xnn_create_max_pooling2d_nhwc_s8");
      check(xnn_setup_max_pooling2d_nhwc_s8(op.get(), static_cast<std::size_t>(n), static_cast<std::size_t>(h),
                                            static_cast<std::size_t>(w), xb.data(), out.data(), nullptr),
            "xnn_setup_max_pooling2d_nhwc_s8");
      check(xnn_run_operator(op.get(), nullptr), "xnn_run_operator");
      y.assign(out.begin(), out.end());
    } else {
      const auto xb = narrow<std::uint8_t>(x);
      std::vector<std::uint8_t> out(out_n);
      check_create(
          call,
          xnn_create_max_pooling2d_nhwc_u8(u32(pad[0]), u32(pad[1]), u32(pad[0]), u32(pad[1]), u32(k[0]), u32(k[1]),
                                           u32(st[0]), u32(st[1]), 1, 1, cc, cc, cc, 0, UINT8_MAX, 0, op.out()),
          "xnn_create_max_pooling2d_nhwc_u8");
      check(xnn_setup_max_pooling2d_nhwc_u8(op.get(), static_cast<std::size_t>(n), static_cast<std::size_t>(h),
                                            static_cast<std::size_t>(w), xb.data(), out.data(), nullptr),
            "xnn_setup_max_pooling2d_nhwc_u8");
      check(xnn_run_operator(op.get(), nullptr), "xnn_run_operator");
      y.assign(out.begin(), out.end());
    }
  }
  std::vector<std::int64_t> s;
  write_ints(yt, permute4(y, {n, oh, ow, c}, kNhwcToNchw, s));
}

// No concat operator in this snapshot: one strided copy_nc_x8 / x32 per input into its slice.
void run_concat(const Call& call) {
  if (call.inputs.empty()) call.refuse("concat needs inputs");
  qspec_tensor& yt = call.first_output();
  const qspec_dtype d = call.inputs[0].dtype;
  const std::size_t es = d == QSPEC_DTYPE_INT32 ? 4 : (d == QSPEC_DTYPE_INT8 || d == QSPEC_DTYPE_UINT8) ? 1 : 0;
  if (es == 0)
    throw Unsupported(std::string("XNNPACK copies 8-, 16- or 32-bit elements; no integer copy for ") + dtype_name(d));
  const std::int32_t rank = call.inputs[0].rank;
  std::int64_t axis = attr::get_or(call.attrs, cat::concat::attr::axis, 1);
  if (axis < 0) axis += rank;  // NumPy-style negative axis
  if (axis < 0 || axis >= rank) call.refuse("axis out of range");
  // XNNPACK has no concat to validate the shapes: the adapter does, as a user's code must.
  for (const auto& t : call.inputs)
    for (std::int32_t i = 0; i < rank && t.rank == rank; ++i)
      if (i != axis && t.shape[i] != call.inputs[0].shape[i]) call.refuse("concat inputs differ outside the axis");
  std::int64_t outer = 1;
  for (std::int32_t i = 0; i < axis; ++i) outer *= call.inputs[0].shape[i];
  std::vector<std::size_t> inner;
  std::size_t total_inner = 0;
  for (const auto& t : call.inputs) {
    if (t.dtype != d || t.rank != rank) call.refuse("concat inputs differ in dtype or rank");
    std::size_t in = 1;
    for (std::int32_t i = static_cast<std::int32_t>(axis); i < rank; ++i) in *= static_cast<std::size_t>(t.shape[i]);
    inner.push_back(in);
    total_inner += in;
  }
  std::vector<unsigned char> out(static_cast<std::size_t>(outer) * total_inner * es);
  std::size_t offset = 0;
  for (std::size_t i = 0; i < call.inputs.size(); ++i) {
    if (inner[i] > 0 && outer > 0) {
      const auto v = read_ints(call.inputs[i]);
      std::vector<unsigned char> in(v.size() * es);
      for (std::size_t j = 0; j < v.size(); ++j) {
        const auto x = static_cast<std::int32_t>(v[j]);
        std::memcpy(in.data() + j * es, &x, es);  // little-endian: the low bytes
      }
      Operator op;
      if (es == 1) {
        check_create(call, xnn_create_copy_nc_x8(inner[i], inner[i], total_inner, 0, op.out()),
                     "xnn_create_copy_nc_x8");
        check(xnn_setup_copy_nc_x8(op.get(), static_cast<std::size_t>(outer), in.data(), out.data() + offset, nullptr),
              "xnn_setup_copy_nc_x8");
      } else {
        check_create(call, xnn_create_copy_nc_x32(inner[i], inner[i], total_inner, 0, op.out()),
                     "xnn_create_copy_nc_x32");
        check(xnn_setup_copy_nc_x32(op.get(), static_cast<std::size_t>(outer), in.data(), out.data() + offset, nullptr),
              "xnn_setup_copy_nc_x32");
      }
      check(xnn_run_operator(op.get(), nullptr), "xnn_run_operator");
    }
    offset += inner[i] * es;
  }
  std::vector<std::int64_t> y(out.size() / es);
  for (std::size_t j = 0; j < y.size(); ++j) {
    if (es == 4) {
      std::int32_t v;
      std::memcpy(&v, out.data() + 4 * j, 4);
      y[j] = v;
    } else {
      y[j] = d == QSPEC_DTYPE_INT8 ? static_cast<std::int8_t>(out[j]) : out[j];
    }
  }
  write_ints(yt, y);
}

// TVM's add with XNNPACK's add_nd (its own fixed-point scheme: an integer multiplier of at most
// 21 bits per input and a rounding shift): all-conventions mode only.
namespace {

// One XNNPACK binary elementwise operator's quantization parameters (zero points fitting the
// family, checked by the caller).
struct Binary {
  bool add = true, s8 = true;
  std::int64_t azp = 0, bzp = 0, ozp = 0, out_min = 0, out_max = 0;
  float as = 1, bs = 1, os = 1;
};

// xnn_create_{add,multiply}_nd_{qs8,qu8}, setup with the tensors' shapes (NumPy broadcasting,
// checked first: the output size is needed before setup), run; writes y.
void run_binary(const Call& call, const Binary& b, const qspec_tensor& at, const qspec_tensor& bt, qspec_tensor& yt) {
  std::vector<std::size_t> ashape(at.shape, at.shape + at.rank), bshape(bt.shape, bt.shape + bt.rank);
  std::size_t n = 1;
  for (std::size_t i = 0; i < std::max(ashape.size(), bshape.size()); ++i) {
    const std::size_t da = i < ashape.size() ? ashape[ashape.size() - 1 - i] : 1;
    const std::size_t db = i < bshape.size() ? bshape[bshape.size() - 1 - i] : 1;
    if (da != db && da != 1 && db != 1) call.refuse("shapes do not broadcast");
    n *= std::max(da, db) == 0 || da == 0 || db == 0 ? 0 : std::max(da, db);
  }
  std::vector<std::int64_t> y(n);
  const char* name = b.add ? (b.s8 ? "add_nd_qs8" : "add_nd_qu8") : (b.s8 ? "multiply_nd_qs8" : "multiply_nd_qu8");
  if (n > 0) {
    Operator op;
    // XNNPACK's kernels may read XNN_EXTRA_BYTES past an input (xnnpack.h).
    auto padded = [](std::vector<std::int64_t> v) {
      v.resize(v.size() + XNN_EXTRA_BYTES);
      return v;
    };
    if (b.s8) {
      const auto av = narrow<std::int8_t>(padded(read_ints(at))), bv = narrow<std::int8_t>(padded(read_ints(bt)));
      std::vector<std::int8_t> out(n);
      const auto i8 = [](std::int64_t v) { return static_cast<std::int8_t>(v); };
      check_create(call,
                   b.add ? xnn_create_add_nd_qs8(i8(b.azp), b.as, i8(b.bzp), b.bs, i8(b.ozp), b.os, i8(b.out_min),
                                                 i8(b.out_max), 0, op.out())
                         : xnn_create_multiply_nd_qs8(i8(b.azp), b.as, i8(b.bzp), b.bs, i8(b.ozp), b.os, i8(b.out_min),
                                                      i8(b.out_max), 0, op.out()),
                   std::string("xnn_create_") + name);
      check(b.add ? xnn_setup_add_nd_qs8(op.get(), ashape.size(), ashape.data(), bshape.size(), bshape.data(),
                                         av.data(), bv.data(), out.data(), nullptr)
                  : xnn_setup_multiply_nd_qs8(op.get(), ashape.size(), ashape.data(), bshape.size(), bshape.data(),
                                              av.data(), bv.data(), out.data(), nullptr),
            std::string("xnn_setup_") + name);
      check(xnn_run_operator(op.get(), nullptr), "xnn_run_operator");
      y.assign(out.begin(), out.end());
    } else {
      const auto av = narrow<std::uint8_t>(padded(read_ints(at))), bv = narrow<std::uint8_t>(padded(read_ints(bt)));
      std::vector<std::uint8_t> out(n);
      const auto u8 = [](std::int64_t v) { return static_cast<std::uint8_t>(v); };
      check_create(call,
                   b.add ? xnn_create_add_nd_qu8(u8(b.azp), b.as, u8(b.bzp), b.bs, u8(b.ozp), b.os, u8(b.out_min),
                                                 u8(b.out_max), 0, op.out())
                         : xnn_create_multiply_nd_qu8(u8(b.azp), b.as, u8(b.bzp), b.bs, u8(b.ozp), b.os, u8(b.out_min),
                                                      u8(b.out_max), 0, op.out()),
                   std::string("xnn_create_") + name);
      check(b.add ? xnn_setup_add_nd_qu8(op.get(), ashape.size(), ashape.data(), bshape.size(), bshape.data(),
                                         av.data(), bv.data(), out.data(), nullptr)
                  : xnn_setup_multiply_nd_qu8(op.get(), ashape.size(), ashape.data(), bshape.size(), bshape.data(),
                                              av.data(), bv.data(), out.data(), nullptr),
            std::string("xnn_setup_") + name);
      check(xnn_run_operator(op.get(), nullptr), "xnn_run_operator");
      y.assign(out.begin(), out.end());
    }
  }
  write_ints(yt, y);
}

// qlinear.add / qlinear.mul: one dtype for a, b and y (else no XNNPACK operator: refused).
template <class Op>
void run_qlinear_binary(const Call& call, bool add) {
  using A = typename Op::attr;
  const qspec_tensor &at = call.input(Op::in::a), &bt = call.input(Op::in::b);
  qspec_tensor& yt = call.output(Op::out::y);
  if (at.dtype != bt.dtype) call.refuse("XNNPACK's add and multiply take one data type for both inputs");
  Binary b;
  b.add = add;
  b.s8 = signed_family(call, at.dtype, bt.dtype, yt.dtype);
  const auto& a = call.attrs;
  b.azp = attr::get(a, A::a_zero_point), b.bzp = attr::get(a, A::b_zero_point), b.ozp = attr::get(a, A::y_zero_point);
  b.out_min = attr::get_or(a, A::y_min, b.s8 ? std::int64_t{INT8_MIN} : 0);
  b.out_max = attr::get_or(a, A::y_max, b.s8 ? std::int64_t{INT8_MAX} : std::int64_t{UINT8_MAX});
  zp_fits(call, b.azp, b.s8, "a zero point");
  zp_fits(call, b.bzp, b.s8, "b zero point");
  zp_fits(call, b.ozp, b.s8, "output zero point");
  zp_fits(call, b.out_min, b.s8, "output_min");
  zp_fits(call, b.out_max, b.s8, "output_max");
  b.as = f32_from_bits(attr::get(a, A::a_scale)), b.bs = f32_from_bits(attr::get(a, A::b_scale));
  b.os = f32_from_bits(attr::get(a, A::y_scale));
  run_binary(call, b, at, bt, yt);
}

}  // namespace

void run_tvm_add(const Call& call) {
  using K = cat::tvm_qnn_add;
  using A = K::attr;
  const qspec_tensor &at = call.input(K::in::lhs), &bt = call.input(K::in::rhs);
  qspec_tensor& yt = call.output(K::out::y);
  Binary b;
  b.s8 = signed_family(call, at.dtype, bt.dtype, yt.dtype);
  const auto& a = call.attrs;
  b.azp = attr::get_or(a, A::lhs_zero_point, 0), b.bzp = attr::get_or(a, A::rhs_zero_point, 0);
  b.ozp = attr::get_or(a, A::output_zero_point, 0);
  zp_fits(call, b.azp, b.s8, "lhs zero point");
  zp_fits(call, b.bzp, b.s8, "rhs zero point");
  zp_fits(call, b.ozp, b.s8, "output zero point");
  b.out_min = b.s8 ? INT8_MIN : 0, b.out_max = b.s8 ? INT8_MAX : UINT8_MAX;
  b.as = f32_from_bits(attr::get(a, A::lhs_scale)), b.bs = f32_from_bits(attr::get(a, A::rhs_scale));
  b.os = f32_from_bits(attr::get(a, A::output_scale));
  run_binary(call, b, at, bt, yt);
}

void run_qlinear_add(const Call& call) { run_qlinear_binary<cat::qlinear_add>(call, true); }
void run_qlinear_mul(const Call& call) { run_qlinear_binary<cat::qlinear_mul>(call, false); }

}  // namespace qspec::xnnpack_adapter
