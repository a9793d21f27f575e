// XNNPACK's 8-bit pooling and lookup-table operators on the engine operators under xnnpack.fp32
// (spec/operators_qlinear_pool.md): qlinear.avg_pool2d (average_pooling2d_nhwc_qu8: XNNPACK has no
// qs8 average pooling), qlinear.global_avg_pool (global_average_pooling_nwc_qs8 / _qu8),
// qlinear.max_pool2d (max_pooling2d_nhwc_s8 / _u8) and qlinear.leaky_relu (leaky_relu_nc_qu8, a
// 256-entry table; no qs8 operator). The vector's float32 scales, zero points and clamp go to
// xnn_create_* as a user passes them; tensors are NHWC already.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "ops.h"
#include "qspec/catalogue/keys.h"
#include "qspec/core/attr.h"
#include "qspec/thirdparty/requant_params.h"
#include "qspec/thirdparty/tensor_io.h"
#include "qspec/thirdparty/window_attrs.h"
#include "xnn_util.h"

namespace qspec::xnnpack_adapter {
namespace {
using namespace thirdparty;

// One pooling call's parameters as XNNPACK's create functions take them.
struct Pool {
  bool s8 = true;
  std::int64_t zx = 0, zy = 0, y_min = 0, y_max = 0;
  float xs = 1, ys = 1;
  std::size_t n = 1, h = 1, w = 1, c = 1;
  std::uint32_t kh = 1, kw = 1, sh = 1, sw = 1, dh = 1, dw = 1, pt = 0, pl = 0, pb = 0, pr = 0;
  std::size_t out_elems() const {
    const std::size_t eh = dh * (kh - 1) + 1, ew = dw * (kw - 1) + 1;
    if (h + pt + pb < eh || w + pl + pr < ew) return 0;
    return n * ((h + pt + pb - eh) / sh + 1) * ((w + pl + pr - ew) / sw + 1) * c;
  }
};

// The input's family (int8 or uint8; `u8_only`: XNNPACK has the uint8 operator only) and the
// clamp and zero points of Op, each refused where XNNPACK's int8_t / uint8_t API cannot hold it.
template <class Op>
Pool read_pool(const Call& call, const qspec_tensor& xt, const char* u8_only) {
  using A = typename Op::attr;
  Pool p;
  if (xt.dtype != QSPEC_DTYPE_INT8 && xt.dtype != QSPEC_DTYPE_UINT8)
    call.refuse(std::string("XNNPACK's 8-bit operators take int8 or uint8, not ") + dtype_name(xt.dtype));
  p.s8 = xt.dtype == QSPEC_DTYPE_INT8;
  if (p.s8 && u8_only != nullptr) call.refuse(u8_only);
  if (xt.rank != 4) call.refuse("x must be (N, H, W, C)");
  p.n = static_cast<std::size_t>(xt.shape[0]), p.h = static_cast<std::size_t>(xt.shape[1]);
  p.w = static_cast<std::size_t>(xt.shape[2]), p.c = static_cast<std::size_t>(xt.shape[3]);
  const std::int64_t lo = p.s8 ? INT8_MIN : 0, hi = p.s8 ? INT8_MAX : UINT8_MAX;
  p.y_min = attr::get_or(call.attrs, A::y_min, lo);
  p.y_max = attr::get_or(call.attrs, A::y_max, hi);
  for (auto [v, what] : {std::pair{p.y_min, "output_min"}, std::pair{p.y_max, "output_max"}})
    if (v < lo || v > hi)
      call.refuse(std::string("XNNPACK's API takes the ") + what + " as " + (p.s8 ? "int8_t" : "uint8_t"));
  return p;
}

// The scales and zero points of Op (average pooling, global average pooling, leaky ReLU).
template <class Op>
void read_scales(const Call& call, Pool& p) {
  using A = typename Op::attr;
  p.zx = attr::get(call.attrs, A::x_zero_point);
  // A convention without output parameters (pytorch.*: y keeps x's) translates to equal ones.
  p.zy = attr::get_or(call.attrs, A::y_zero_point, p.zx);
  const std::int64_t lo = p.s8 ? INT8_MIN : 0, hi = p.s8 ? INT8_MAX : UINT8_MAX;
  for (auto [v, what] : {std::pair{p.zx, "input zero point"}, std::pair{p.zy, "output zero point"}})
    if (v < lo || v > hi)
      call.refuse(std::string("XNNPACK's API takes the ") + what + " as " + (p.s8 ? "int8_t" : "uint8_t"));
  p.xs = f32_from_bits(attr::get(call.attrs, A::x_scale));
  p.ys = f32_from_bits(attr::get_or(call.attrs, A::y_scale, attr::get(call.attrs, A::x_scale)));
}

// Kernel, strides and pads of Op (pads [top, left, bottom, right], each >= 0: XNNPACK's are unsigned).
template <class Op>
void read_window(const Call& call, Pool& p) {
  using A = typename Op::attr;
  const auto u32 = [](std::int64_t v) { return static_cast<std::uint32_t>(v); };
  const auto k = window_pair(call, A::kernel, 1, 1), st = window_pair(call, A::strides, 1, 1);
  const auto pads = attr::get_or(call.attrs, A::pads, std::vector<std::int64_t>{0, 0, 0, 0});
  if (pads.size() != 4) call.refuse("pads needs four entries [top, left, bottom, right]");
  for (auto v : pads)
    if (v < 0) call.refuse("XNNPACK's padding is unsigned: a negative pad");
  p.kh = u32(k[0]), p.kw = u32(k[1]), p.sh = u32(st[0]), p.sw = u32(st[1]);
  p.pt = u32(pads[0]), p.pl = u32(pads[1]), p.pb = u32(pads[2]), p.pr = u32(pads[3]);
}

// The input codes followed by zeros: XNN_EXTRA_BYTES, which XNNPACK's kernels may read past the
// input (xnnpack.h), and for dilated max pooling one more padded image: its indirection buffer
// replaces a padded tap by a "safe" row or column that can itself lie past the input (rows up to
// the bottom padding plus one dilation step: spec/errata.md E-XNN4-1), so the read stays inside
// this buffer and its result does not depend on foreign memory.
template <typename T>
std::vector<T> padded_input(const qspec_tensor& xt, const Pool& p, bool dilated) {
  const auto v = read_ints(xt);
  const std::size_t slack = dilated ? (p.h + p.pt + p.pb + p.dh * p.kh) * (p.w + p.pl + p.pr + p.dw * p.kw) * p.c : 0;
  std::vector<T> out(v.size() + slack + XNN_EXTRA_BYTES);
  std::transform(v.begin(), v.end(), out.begin(), [](std::int64_t x) { return static_cast<T>(x); });
  return out;
}

enum class Kind { Avg, Global, Max, LeakyRelu };

// Creates, sets up and runs one XNNPACK operator of `kind` on x; writes y (nothing for an invalid
// test, whose parameters XNNPACK still sees at create).
template <typename T>
void run_typed(const Call& call, Kind kind, const Pool& p, float alpha, const qspec_tensor& xt, qspec_tensor& yt) {
  constexpr bool s8 = std::is_same_v<T, std::int8_t>;
  const T zx = static_cast<T>(p.zx), zy = static_cast<T>(p.zy), lo = static_cast<T>(p.y_min),
          hi = static_cast<T>(p.y_max);
  Operator op;
  std::size_t out_n = 0;
  switch (kind) {
    case Kind::Avg:
      if constexpr (!s8)
        check_create(call,
                     xnn_create_average_pooling2d_nhwc_qu8(p.pt, p.pr, p.pb, p.pl, p.kh, p.kw, p.sh, p.sw, p.c, p.c,
                                                           p.c, zx, p.xs, zy, p.ys, lo, hi, 0, op.out()),
                     "xnn_create_average_pooling2d_nhwc_qu8");
      out_n = p.out_elems();
      break;
    case Kind::Global:
      if constexpr (s8)
        check_create(call,
                     xnn_create_global_average_pooling_nwc_qs8(p.c, p.c, p.c, zx, p.xs, zy, p.ys, lo, hi, 0, op.out()),
                     "xnn_create_global_average_pooling_nwc_qs8");
      else
        check_create(call,
                     xnn_create_global_average_pooling_nwc_qu8(p.c, p.c, p.c, zx, p.xs, zy, p.ys, lo, hi, 0, op.out()),
                     "xnn_create_global_average_pooling_nwc_qu8");
      out_n = p.n * p.c;
      break;
    case Kind::Max:
      if constexpr (s8)
        check_create(call,
                     xnn_create_max_pooling2d_nhwc_s8(p.pt, p.pr, p.pb, p.pl, p.kh, p.kw, p.sh, p.sw, p.dh, p.dw, p.c,
                                                      p.c, p.c, lo, hi, 0, op.out()),
                     "xnn_create_max_pooling2d_nhwc_s8");
      else
        check_create(call,
                     xnn_create_max_pooling2d_nhwc_u8(p.pt, p.pr, p.pb, p.pl, p.kh, p.kw, p.sh, p.sw, p.dh, p.dw, p.c,
                                                      p.c, p.c, lo, hi, 0, op.out()),
                     "xnn_create_max_pooling2d_nhwc_u8");
      out_n = p.out_elems();
      break;
    case Kind::LeakyRelu:
      if constexpr (!s8)
        check_create(call, xnn_create_leaky_relu_nc_qu8(1, 1, 1, alpha, zx, p.xs, zy, p.ys, lo, hi, 0, op.out()),
                     "xnn_create_leaky_relu_nc_qu8");
      out_n = static_cast<std::size_t>(numel(xt));
      break;
  }
  if (!call.has_outputs() || out_n == 0) return;
  const auto x = padded_input<T>(xt, p, kind == Kind::Max && (p.dh > 1 || p.dw > 1));
  std::vector<T> out(out_n);
  switch (kind) {
    case Kind::Avg:
      if constexpr (!s8)
        check(xnn_setup_average_pooling2d_nhwc_qu8(op.get(), p.n, p.h, p.w, x.data(), out.data(), nullptr),
              "xnn_setup_average_pooling2d_nhwc_qu8");
      break;
    case Kind::Global:
      if constexpr (s8)
        check(xnn_setup_global_average_pooling_nwc_qs8(op.get(), p.n, p.h * p.w, x.data(), out.data(), nullptr),
              "xnn_setup_global_average_pooling_nwc_qs8");
      else
        check(xnn_setup_global_average_pooling_nwc_qu8(op.get(), p.n, p.h * p.w, x.data(), out.data(), nullptr),
              "xnn_setup_global_average_pooling_nwc_qu8");
      break;
    case Kind::Max:
      if constexpr (s8)
        check(xnn_setup_max_pooling2d_nhwc_s8(op.get(), p.n, p.h, p.w, x.data(), out.data(), nullptr),
              "xnn_setup_max_pooling2d_nhwc_s8");
      else
        check(xnn_setup_max_pooling2d_nhwc_u8(op.get(), p.n, p.h, p.w, x.data(), out.data(), nullptr),
              "xnn_setup_max_pooling2d_nhwc_u8");
      break;
    case Kind::LeakyRelu:
      if constexpr (!s8)
        check(xnn_setup_leaky_relu_nc_qu8(op.get(), out_n, x.data(), out.data(), nullptr),
              "xnn_setup_leaky_relu_nc_qu8");
      break;
  }
  check(xnn_run_operator(op.get(), nullptr), "xnn_run_operator");
  write_ints(yt, std::vector<std::int64_t>(out.begin(), out.end()));
}

void run(const Call& call, Kind kind, const Pool& p, float alpha, const qspec_tensor& xt, qspec_tensor& yt) {
  if (p.s8)
    run_typed<std::int8_t>(call, kind, p, alpha, xt, yt);
  else
    run_typed<std::uint8_t>(call, kind, p, alpha, xt, yt);
}

}  // namespace

void run_qlinear_avg_pool2d(const Call& call) {
  using K = cat::qlinear_avg_pool2d;
  const qspec_tensor& xt = call.input(K::in::x);
  Pool p = read_pool<K>(call, xt, "XNNPACK (this snapshot) has no qs8 average pooling operator, only qu8");
  read_scales<K>(call, p);
  read_window<K>(call, p);
  // XNNPACK always divides by KH KW; without padding both modes agree.
  if (!attr::get_or(call.attrs, K::attr::count_include_pad, false) && p.pt + p.pl + p.pb + p.pr > 0)
    call.refuse("XNNPACK's average pooling divides by KH KW (count_include_pad); no operator excludes the padding");
  // The clause REQUIREs the kernel to fit the padded input: XNNPACK's output size wraps otherwise.
  if (p.h + p.pt + p.pb < p.kh || p.w + p.pl + p.pr < p.kw)
    throw Unsupported("the kernel is larger than the padded input (a REQUIRE: XNNPACK's output size wraps)");
  run(call, Kind::Avg, p, 0, xt, call.output(K::out::y));
}

void run_qlinear_global_avg_pool(const Call& call) {
  using K = cat::qlinear_global_avg_pool;
  const qspec_tensor& xt = call.input(K::in::x);
  Pool p = read_pool<K>(call, xt, nullptr);
  read_scales<K>(call, p);
  run(call, Kind::Global, p, 0, xt, call.output(K::out::y));
}

void run_qlinear_max_pool2d(const Call& call) {
  using K = cat::qlinear_max_pool2d;
  const qspec_tensor& xt = call.input(K::in::x);
  Pool p = read_pool<K>(call, xt, nullptr);
  read_window<K>(call, p);
  const auto dil = window_pair(call, K::attr::dilations, 1, 1);
  p.dh = static_cast<std::uint32_t>(dil[0]), p.dw = static_cast<std::uint32_t>(dil[1]);
  if (p.h + p.pt + p.pb < p.dh * (p.kh - 1) + 1 || p.w + p.pl + p.pr < p.dw * (p.kw - 1) + 1)
    throw Unsupported("the dilated kernel is larger than the padded input (a REQUIRE: XNNPACK's output size wraps)");
  // The clause REQUIREs every window to hold a tap inside the input: XNNPACK's indirection buffer
  // gives a window without one a border element (another convention's vectors have such windows).
  const auto every_window_has_a_tap = [](std::size_t in, std::uint32_t k, std::uint32_t s, std::uint32_t d,
                                         std::uint32_t before, std::uint32_t after) {
    const std::size_t out = (in + before + after - (d * (k - 1) + 1)) / s + 1;
    for (std::size_t o = 0; o < out; ++o) {
      bool inside = false;
      for (std::uint32_t i = 0; i < k && !inside; ++i) {
        const std::size_t pos = o * s + i * d;  // in padded coordinates
        inside = pos >= before && pos < before + in;
      }
      if (!inside) return false;
    }
    return true;
  };
  if (!every_window_has_a_tap(p.h, p.kh, p.sh, p.dh, p.pt, p.pb) ||
      !every_window_has_a_tap(p.w, p.kw, p.sw, p.dw, p.pl, p.pr))
    throw Unsupported("a window without a tap inside the input (a REQUIRE: XNNPACK returns a border element)");
  run(call, Kind::Max, p, 0, xt, call.output(K::out::y));
}

void run_qlinear_leaky_relu(const Call& call) {
  using K = cat::qlinear_leaky_relu;
  const qspec_tensor& xt = call.input(K::in::x);
  qspec_tensor& yt = call.output(K::out::y);
  if (xt.dtype != QSPEC_DTYPE_INT8 && xt.dtype != QSPEC_DTYPE_UINT8)
    call.refuse(std::string("XNNPACK's leaky ReLU takes uint8, not ") + dtype_name(xt.dtype));
  if (xt.dtype == QSPEC_DTYPE_INT8) call.refuse("XNNPACK (this snapshot) has no qs8 leaky ReLU operator, only qu8");
  Pool p;
  p.s8 = false;
  p.y_min = attr::get_or(call.attrs, K::attr::y_min, std::int64_t{0});
  p.y_max = attr::get_or(call.attrs, K::attr::y_max, std::int64_t{UINT8_MAX});
  if (p.y_min < 0 || p.y_min > UINT8_MAX || p.y_max < 0 || p.y_max > UINT8_MAX)
    call.refuse("XNNPACK's API takes output_min / output_max as uint8_t");
  read_scales<K>(call, p);
  run(call, Kind::LeakyRelu, p, f32_from_bits(attr::get(call.attrs, K::attr::alpha)), xt, yt);
}

}  // namespace qspec::xnnpack_adapter
