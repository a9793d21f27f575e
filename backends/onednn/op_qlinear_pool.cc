// qlinear.avg_pool2d, qlinear.global_avg_pool and qlinear.max_pool2d (spec/operators_qlinear_onednn_pool.md,
// the onednn convention) through oneDNN 2.6's pooling_v2_forward, as a user runs a quantized pool
// on it: s8/u8 NHWC codes (forward_inference, so the jit int8 kernels are eligible), the algorithm
// from count_include_pad, the global pool as the kernel (H, W), y_min / y_max as the eltwise_clip
// post-op. oneDNN 2.6 pooling takes no scales or zero points: the adapter refuses what a user cannot
// express (different input and output parameters; include-padding with a non-zero zero point, whose
// padded taps oneDNN counts as the code 0), and a configuration oneDNN refuses is its refusal.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "dnnl_util.h"
#include "ops.h"
#include "qspec/catalogue/keys.h"
#include "qspec/core/attr.h"
#include "qspec/thirdparty/tensor_io.h"

namespace qspec::onednn_adapter {
namespace {
using namespace thirdparty;
using dnnl::memory;
using Dims = memory::dims;
using Avg = cat::qlinear_avg_pool2d;
using Gap = cat::qlinear_global_avg_pool;
using Max = cat::qlinear_max_pool2d;

struct PoolSetup {
  dnnl::algorithm alg = dnnl::algorithm::pooling_max;
  Dims kernel{1, 1}, strides{1, 1}, dilation{0, 0}, pad_l{0, 0}, pad_r{0, 0};
  bool clip = false;
  float lo = 0, hi = 0;
};

Dims pair_of(const Call& call, const attr::IntArray& key, Dims d, std::int64_t min_value) {
  const auto v = attr::get_or(call.attrs, key, std::vector<std::int64_t>(d.begin(), d.end()));
  if (v.size() != 2) call.refuse(std::string(key.name) + " needs two entries");
  for (auto x : v)
    if (x < min_value) call.refuse(std::string(key.name) + " entries must be >= " + std::to_string(min_value));
  return Dims(v.begin(), v.end());
}

void read_pads(const Call& call, const attr::IntArray& key, PoolSetup& s) {
  const auto v = attr::get_or(call.attrs, key, std::vector<std::int64_t>{0, 0, 0, 0});
  if (v.size() != 4) call.refuse("pads needs four entries [top, left, bottom, right]");
  for (auto x : v)
    if (x < 0) call.refuse("pads must be >= 0");
  s.pad_l = {v[0], v[1]};
  s.pad_r = {v[2], v[3]};
}

template <class A>
void read_clip(const Call& call, qspec_dtype t, PoolSetup& s) {
  const std::int64_t lo = t == QSPEC_DTYPE_UINT8 ? 0 : -128, hi = t == QSPEC_DTYPE_UINT8 ? 255 : 127;
  const std::int64_t a = attr::get_or(call.attrs, A::y_min, lo), b = attr::get_or(call.attrs, A::y_max, hi);
  if (a < lo || a > hi || b < lo || b > hi) call.refuse("y_min and y_max must fit the data type");
  s.clip = attr::has(call.attrs, A::y_min) || attr::has(call.attrs, A::y_max);
  s.lo = static_cast<float>(a);
  s.hi = static_cast<float>(b);
}

// The parameters a user cannot give oneDNN's pooling: they must be equal (the codes pass through).
template <class A>
std::int64_t shared_zero_point(const Call& call, qspec_dtype t) {
  // A convention without output parameters (pytorch.*: y keeps x's) translates to equal ones.
  const std::int64_t zx = attr::get(call.attrs, A::x_zero_point);
  const std::int64_t zy = attr::get_or(call.attrs, A::y_zero_point, zx);
  const auto xs = attr::get(call.attrs, A::x_scale);
  if (xs != attr::get_or(call.attrs, A::y_scale, xs) || zx != zy)
    call.refuse(
        "oneDNN 2.6 pooling has no quantization parameters (output scales and zero points are "
        "unimplemented): x and y must share scale and zero point");
  const std::int64_t lo = t == QSPEC_DTYPE_UINT8 ? 0 : -128, hi = t == QSPEC_DTYPE_UINT8 ? 255 : 127;
  if (zx < lo || zx > hi) call.refuse("the zero point must fit the data type");
  return zx;
}

void run_pool(const Call& call, const qspec_tensor& xt, const PoolSetup& s, std::string_view out_name) {
  const memory::data_type dt = to_dnnl(xt.dtype);
  const memory::dim n = xt.shape[0], h = xt.shape[1], w = xt.shape[2], c = xt.shape[3];
  Dims out(2);
  const memory::dim in[2] = {h, w};
  for (std::size_t a = 0; a < 2; ++a) {
    const memory::dim span = in[a] + s.pad_l[a] + s.pad_r[a] - ((s.kernel[a] - 1) * (s.dilation[a] + 1) + 1);
    if (span < 0) throw Unsupported("the dilated kernel does not fit the padded input: no output position (a REQUIRE)");
    out[a] = span / s.strides[a] + 1;
  }
  const memory::desc src_md({n, c, h, w}, dt, memory::format_tag::nhwc);
  const memory::desc dst_md({n, c, out[0], out[1]}, dt, memory::format_tag::nhwc);
  dnnl::primitive_attr attr;
  if (s.clip) {
    dnnl::post_ops po;
    try {
      po.append_eltwise(1.0f, dnnl::algorithm::eltwise_clip, s.lo, s.hi);
    } catch (const dnnl::error& e) {
      call.refuse(std::string("oneDNN post_ops::append_eltwise(eltwise_clip): ") + e.what() + " (beta < alpha)");
    }
    attr.set_post_ops(po);
  }
  dnnl::pooling_v2_forward::primitive_desc pd;
  try {
    const dnnl::pooling_v2_forward::desc d(dnnl::prop_kind::forward_inference, s.alg, src_md, dst_md, s.strides,
                                           s.kernel, s.dilation, s.pad_l, s.pad_r);
    pd = dnnl::pooling_v2_forward::primitive_desc(d, attr, cpu_engine());
  } catch (const dnnl::error& e) {
    if (e.status == dnnl_unimplemented || e.status == dnnl_invalid_arguments)
      call.refuse(std::string("oneDNN pooling_v2_forward: ") + e.what() + " (status " +
                  std::to_string(static_cast<int>(e.status)) + ")");
    throw;
  }
  const std::vector<std::int64_t> x = read_ints(xt);
  std::vector<std::uint8_t> xbuf(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) xbuf[i] = static_cast<std::uint8_t>(x[i]);
  memory src(src_md, cpu_engine(), xbuf.data()), dst(dst_md, cpu_engine());
  dnnl::pooling_v2_forward(pd).execute(cpu_stream(), {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}});
  cpu_stream().wait();
  const auto count = static_cast<std::size_t>(n * c * out[0] * out[1]);
  std::vector<std::int64_t> y(count);
  const auto* p = static_cast<const std::uint8_t*>(dst.get_data_handle());
  for (std::size_t i = 0; i < count; ++i)
    y[i] = xt.dtype == QSPEC_DTYPE_INT8 ? static_cast<std::int64_t>(static_cast<std::int8_t>(p[i])) : p[i];
  write_ints(call.output(out_name), y);
}

const qspec_tensor& pool_input(const Call& call, std::string_view name) {
  const qspec_tensor& xt = call.input(name);
  if (xt.dtype != QSPEC_DTYPE_INT8 && xt.dtype != QSPEC_DTYPE_UINT8)
    call.refuse(std::string("oneDNN int8 pooling takes s8 or u8, not ") + dtype_name(xt.dtype));
  if (xt.rank != 4) call.refuse("x must be (N, H, W, C)");
  for (int i = 0; i < 4; ++i)
    if (xt.shape[i] < 1) call.refuse("x has an empty dimension");
  return xt;
}

}  // namespace

void run_qlinear_avg_pool2d(const Call& call) {
  const qspec_tensor& xt = pool_input(call, Avg::in::x);
  PoolSetup s;
  if (!attr::has(call.attrs, Avg::attr::kernel)) call.refuse("kernel is required");
  s.kernel = pair_of(call, Avg::attr::kernel, {1, 1}, 1);
  s.strides = pair_of(call, Avg::attr::strides, {1, 1}, 1);
  read_pads(call, Avg::attr::pads, s);
  const bool include = attr::get_or(call.attrs, Avg::attr::count_include_pad, false);
  s.alg = include ? dnnl::algorithm::pooling_avg_include_padding : dnnl::algorithm::pooling_avg_exclude_padding;
  const std::int64_t z = shared_zero_point<Avg::attr>(call, xt.dtype);
  const bool padded = s.pad_l[0] || s.pad_l[1] || s.pad_r[0] || s.pad_r[1];
  if (include && padded && z != 0)
    call.refuse("pooling_avg_include_padding counts a padded tap as the code 0 (real -z s), not the real 0");
  read_clip<Avg::attr>(call, xt.dtype, s);
  run_pool(call, xt, s, Avg::out::y);
}

void run_qlinear_global_avg_pool(const Call& call) {
  const qspec_tensor& xt = pool_input(call, Gap::in::x);
  PoolSetup s;
  s.alg = dnnl::algorithm::pooling_avg_include_padding;  // no padding: both algorithms divide by H W
  s.kernel = {xt.shape[1], xt.shape[2]};
  shared_zero_point<Gap::attr>(call, xt.dtype);
  read_clip<Gap::attr>(call, xt.dtype, s);
  run_pool(call, xt, s, Gap::out::y);
}

void run_qlinear_max_pool2d(const Call& call) {
  const qspec_tensor& xt = pool_input(call, Max::in::x);
  PoolSetup s;
  if (!attr::has(call.attrs, Max::attr::kernel)) call.refuse("kernel is required");
  s.kernel = pair_of(call, Max::attr::kernel, {1, 1}, 1);
  s.strides = pair_of(call, Max::attr::strides, {1, 1}, 1);
  const Dims d = pair_of(call, Max::attr::dilations, {1, 1}, 1);
  s.dilation = {d[0] - 1, d[1] - 1};  // oneDNN counts the skipped elements
  read_pads(call, Max::attr::pads, s);
  read_clip<Max::attr>(call, xt.dtype, s);
  run_pool(call, xt, s, Max::out::y);
}

}  // namespace qspec::onednn_adapter
