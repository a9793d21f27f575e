// qlinear.conv2d, qlinear.fully_connected and qlinear.matmul (spec/operators_qlinear.md,
// qlinear.onednn) through oneDNN's convolution_forward and matmul primitives, configured as a
// user of oneDNN 2.6 configures them from a quantized model:
// - output scales S_o = x_scale * w_scale[o] / y_scale in float (set_output_scales, mask 0 or the
//   channel axis), zero points of the source, the destination and (matmul) the weights as s32
//   (set_zero_points), a fused clamp as the eltwise_clip post-op on (y_min - zp, y_max - zp), an
//   s32 bias;
// - activations NHWC (acdb) as given, weights described in place (OHWI strides; FC: the (O, K)
//   matrix read as (K, O)) and reordered to the layout the primitive picks (format_tag::any:
//   pre-packed, so the jit int8 kernels run, not the ref_int8 fallback that plain weights select);
// - fully connected is matmul with a (1, O) bias (inner_product rejects zero points in 2.6);
// - one primitive per parameter set and shape, cached (weights are reordered at each run: each
//   vector has its own).
// A configuration oneDNN refuses (status unimplemented or invalid_arguments) is its refusal:
// Rejected for the onednn convention (the clause's ERROR_IFs), Unsupported for a translated one.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "dnnl_util.h"
#include "ops.h"
#include "qspec/catalogue/keys.h"
#include "qspec/core/attr.h"
#include "qspec/core/qlinear_keys.h"
#include "qspec/thirdparty/requant_params.h"
#include "qspec/thirdparty/tensor_io.h"

namespace qspec::onednn_adapter {
namespace {
using namespace thirdparty;
using dnnl::memory;
using Dims = memory::dims;

struct QParams {
  float x_scale = 1.0f, y_scale = 1.0f;
  std::vector<float> w_scales;
  std::int64_t x_zp = 0, w_zp = 0, y_zp = 0;
  std::optional<std::int64_t> y_min, y_max;
};

QParams read_params(const Call& call, const QLinearKeys& k) {
  QParams p;
  p.x_scale = f32_from_bits(attr::get(call.attrs, k.x_scale));
  for (auto b : attr::get(call.attrs, k.w_scales)) p.w_scales.push_back(f32_from_bits(b));
  p.y_scale = f32_from_bits(attr::get(call.attrs, k.y_scale));
  p.x_zp = attr::get(call.attrs, k.x_zero_point);
  p.w_zp = attr::get_or(call.attrs, k.w_zero_point, std::int64_t{0});
  p.y_zp = attr::get(call.attrs, k.y_zero_point);
  if (attr::has(call.attrs, k.y_min)) p.y_min = attr::get(call.attrs, k.y_min);
  if (attr::has(call.attrs, k.y_max)) p.y_max = attr::get(call.attrs, k.y_max);
  return p;
}

std::uint32_t f32_to_bits(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
std::int64_t product(const Dims& d) {
  std::int64_t n = 1;
  for (auto v : d) n *= v;
  return n;
}

std::int32_t s32(const Call& call, std::int64_t v) {
  if (v < INT32_MIN || v > INT32_MAX) call.refuse("oneDNN zero points are s32");
  return static_cast<std::int32_t>(v);
}

// The attributes a user sets: output scales over `scale_axis`, zero points, the clip post-op.
dnnl::primitive_attr make_attr(const Call& call, const QParams& p, qspec_dtype y_dtype, std::int64_t channels,
                               int scale_axis) {
  const auto n = static_cast<std::int64_t>(p.w_scales.size());
  if (n != 1 && n != channels)
    call.refuse("the output scales are 1 or one per output channel (" + std::to_string(channels) + "), not " +
                std::to_string(n));
  std::vector<float> scales;
  for (float w : p.w_scales) scales.push_back(p.x_scale * w / p.y_scale);  // the user's output scale
  dnnl::primitive_attr attr;
  attr.set_output_scales(n == 1 ? 0 : 1 << scale_axis, scales);
  if (p.x_zp != 0) attr.set_zero_points(DNNL_ARG_SRC, 0, {s32(call, p.x_zp)});
  if (p.w_zp != 0) attr.set_zero_points(DNNL_ARG_WEIGHTS, 0, {s32(call, p.w_zp)});
  if (p.y_zp != 0) attr.set_zero_points(DNNL_ARG_DST, 0, {s32(call, p.y_zp)});
  if (p.y_min || p.y_max) {
    const std::int64_t lo = y_dtype == QSPEC_DTYPE_UINT8 ? 0 : -128, hi = y_dtype == QSPEC_DTYPE_UINT8 ? 255 : 127;
    dnnl::post_ops po;
    try {
      po.append_eltwise(1.0f, dnnl::algorithm::eltwise_clip, static_cast<float>(p.y_min.value_or(lo) - p.y_zp),
                        static_cast<float>(p.y_max.value_or(hi) - p.y_zp));
    } catch (const dnnl::error& e) {
      call.refuse(std::string("oneDNN post_ops::append_eltwise(eltwise_clip): ") + e.what() + " (beta < alpha)");
    }
    attr.set_post_ops(po);
  }
  return attr;
}

std::string key_of(const std::string& op, const std::vector<Dims>& dims, const QParams& p,
                   const std::vector<qspec_dtype>& types, const std::vector<std::int64_t>& extra) {
  std::string k = op;
  for (const auto& d : dims) {
    k += '|';
    for (auto v : d) k += std::to_string(v) + ',';
  }
  for (auto t : types) k += '|' + std::to_string(static_cast<int>(t));
  for (auto v : extra) k += '|' + std::to_string(v);
  for (float w : p.w_scales) k += ',' + std::to_string(f32_to_bits(w));
  k += '|' + std::to_string(f32_to_bits(p.x_scale)) + ',' + std::to_string(f32_to_bits(p.y_scale)) + ',' +
       std::to_string(p.x_zp) + ',' + std::to_string(p.w_zp) + ',' + std::to_string(p.y_zp) + ',' +
       (p.y_min ? std::to_string(*p.y_min) : "-") + ',' + (p.y_max ? std::to_string(*p.y_max) : "-");
  return k;
}

// A small cache of created primitives (descriptor creation is the costly part of a small problem).
template <class Pd>
struct Cache {
  std::map<std::string, std::pair<Pd, dnnl::primitive>> map;
  const std::pair<Pd, dnnl::primitive>* find(const std::string& k) const {
    auto it = map.find(k);
    return it == map.end() ? nullptr : &it->second;
  }
  const std::pair<Pd, dnnl::primitive>& put(const std::string& k, Pd pd, dnnl::primitive prim) {
    if (map.size() >= 512) map.clear();
    return map[k] = {std::move(pd), std::move(prim)};
  }
};

// Creates a primitive descriptor; oneDNN's refusal of the configuration is the call's refusal.
template <class F>
void create_or_refuse(const Call& call, const F& create, const std::string& what) {
  try {
    create();
  } catch (const dnnl::error& e) {
    if (e.status == dnnl_unimplemented || e.status == dnnl_invalid_arguments)
      call.refuse("oneDNN " + what + ": " + e.what() + " (status " + std::to_string(static_cast<int>(e.status)) + ")");
    throw;
  }
}

memory::data_type data_type(const Call& call, qspec_dtype t) {
  if (t != QSPEC_DTYPE_INT8 && t != QSPEC_DTYPE_UINT8 && t != QSPEC_DTYPE_INT32)
    call.refuse(std::string("oneDNN has no ") + dtype_name(t) + " int8-primitive operand");
  return to_dnnl(t);
}

std::vector<std::uint8_t> bytes_of(const qspec_tensor& t) {
  std::vector<std::uint8_t> b;
  for (std::int64_t v : read_ints(t)) b.push_back(static_cast<std::uint8_t>(v));
  return b;
}
std::vector<std::int32_t> ints_of(const qspec_tensor& t) {
  std::vector<std::int32_t> b;
  for (std::int64_t v : read_ints(t)) b.push_back(static_cast<std::int32_t>(v));
  return b;
}

std::vector<std::int64_t> read_dst(const memory& m, qspec_dtype t, std::size_t n) {
  std::vector<std::int64_t> y(n);
  const void* d = m.get_data_handle();
  for (std::size_t i = 0; i < n; ++i)
    y[i] = t == QSPEC_DTYPE_INT8 ? static_cast<const std::int8_t*>(d)[i] : static_cast<const std::uint8_t*>(d)[i];
  return y;
}

// Runs the primitive on the call's tensors: the user's weights reordered into the layout the
// primitive chose, the bias (if any) as s32, the output written to yt.
void compute(const dnnl::primitive& prim, const memory::desc& wei_pd_md, const memory::desc& src_md,
             const qspec_tensor& xt, const memory::desc& user_wei_md, const qspec_tensor& wt,
             const memory::desc& bias_md, const qspec_tensor* bt, const memory::desc& dst_md, std::size_t n,
             qspec_tensor& yt) {
  std::vector<std::uint8_t> x = bytes_of(xt), w = bytes_of(wt);
  std::vector<std::int32_t> b = bt ? ints_of(*bt) : std::vector<std::int32_t>{};
  auto& st = cpu_stream();
  memory src(src_md, cpu_engine(), x.data()), user_wei(user_wei_md, cpu_engine(), w.data());
  memory dst(dst_md, cpu_engine()), wei = user_wei;
  if (wei_pd_md != user_wei_md) {
    wei = memory(wei_pd_md, cpu_engine());
    dnnl::reorder(user_wei, wei).execute(st, user_wei, wei);
  }
  std::unordered_map<int, memory> args{{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_DST, dst}};
  if (bt) args[DNNL_ARG_BIAS] = memory(bias_md, cpu_engine(), b.data());
  prim.execute(st, args);
  st.wait();
  write_ints(yt, read_dst(dst, xt.dtype, n));
}

Cache<dnnl::convolution_forward::primitive_desc>& conv_cache() {
  static Cache<dnnl::convolution_forward::primitive_desc> c;
  return c;
}
Cache<dnnl::matmul::primitive_desc>& matmul_cache() {
  static Cache<dnnl::matmul::primitive_desc> c;
  return c;
}

// Plain row-major strides of `d`.
Dims row_major(const Dims& d) {
  Dims s(d.size(), 1);
  for (std::size_t i = d.size(); i-- > 1;) s[i - 1] = s[i] * d[i];
  return s;
}

// dst = matmul(src, wei) + bias over a shared channel axis (the last): fully connected and matmul.
void run_matmul(const Call& call, const QParams& p, const qspec_tensor& xt, const Dims& src_dims, const Dims& src_str,
                const qspec_tensor& wt, const Dims& wei_dims, const Dims& wei_str, const qspec_tensor* bt,
                const Dims& dst_dims, qspec_tensor& yt, const char* op) {
  const memory::data_type xdt = data_type(call, xt.dtype), wdt = data_type(call, wt.dtype);
  const auto rank = static_cast<int>(dst_dims.size());
  const std::int64_t channels = dst_dims.back();
  const dnnl::primitive_attr attr = make_attr(call, p, xt.dtype, channels, rank - 1);
  const memory::desc src_md(src_dims, xdt, src_str), user_wei_md(wei_dims, wdt, wei_str);
  const memory::desc dst_md(dst_dims, xdt, row_major(dst_dims));
  Dims bias_dims(dst_dims.size(), 1);
  bias_dims.back() = channels;
  const memory::desc bias_md =
      bt ? memory::desc(bias_dims, memory::data_type::s32, row_major(bias_dims)) : memory::desc();
  const std::string key = key_of(op, {src_dims, src_str, wei_dims, dst_dims}, p, {xt.dtype, wt.dtype}, {bt ? 1 : 0});
  auto& cache = matmul_cache();
  const auto* hit = cache.find(key);
  if (!hit) {
    dnnl::matmul::primitive_desc pd;
    const memory::desc wei_any(wei_dims, wdt, memory::format_tag::any);
    create_or_refuse(
        call,
        [&] {
          const auto d =
              bt ? dnnl::matmul::desc(src_md, wei_any, bias_md, dst_md) : dnnl::matmul::desc(src_md, wei_any, dst_md);
          pd = dnnl::matmul::primitive_desc(d, attr, cpu_engine());
        },
        std::string("matmul ") + dtype_name(xt.dtype) + " x " + dtype_name(wt.dtype));
    hit = &cache.put(key, pd, dnnl::matmul(pd));
  }
  if (!call.has_outputs()) return;  // an invalid test the library accepted: nothing to compute
  compute(hit->second, hit->first.weights_desc(), src_md, xt, user_wei_md, wt, bias_md, bt, dst_md,
          static_cast<std::size_t>(product(dst_dims)), yt);
}

}  // namespace

void run_qlinear_conv2d(const Call& call) {
  using Op = cat::qlinear_conv2d;
  const qspec_tensor &xt = call.input(Op::in::x), &wt = call.input(Op::in::w);
  const qspec_tensor* bt = call.has_input(Op::in::b) ? &call.input(Op::in::b) : nullptr;
  const QParams p = read_params(call, qlinear_keys<Op::attr>);
  const auto pair = [&](const attr::IntArray& k, std::int64_t d, std::size_t n) {
    auto v = attr::get_or(call.attrs, k, std::vector<std::int64_t>(n, d));
    if (v.size() != n) call.refuse(std::string(k.name) + " needs " + std::to_string(n) + " entries");
    return v;
  };
  const auto st = pair(Op::attr::strides, 1, 2), dl = pair(Op::attr::dilations, 1, 2), pd = pair(Op::attr::pads, 0, 4);
  const std::int64_t groups = attr::get_or(call.attrs, Op::attr::groups, std::int64_t{1});
  if (xt.rank != 4 || wt.rank != 4) call.refuse("convolution needs x (N, H, W, C) and w (O, KH, KW, C / groups)");
  const std::vector<std::int64_t> xs = shape_of(xt), ws = shape_of(wt);
  const std::int64_t N = xs[0], H = xs[1], W = xs[2], C = xs[3], O = ws[0], KH = ws[1], KW = ws[2], Cg = ws[3];
  for (auto v : {H, W, C, O, KH, KW, Cg})
    if (v < 1) call.refuse("convolution dimensions must be >= 1");
  for (int i = 0; i < 2; ++i)
    if (st[i] < 1 || dl[i] < 1)
      call.refuse("strides >= 1 and dilations >= 1 (convolution_desc_init: invalid_arguments)");
  for (auto v : pd)
    if (v < 0) call.refuse("pads >= 0 (convolution_desc_init: invalid_arguments)");
  if (groups < 1 || C != groups * Cg || O % groups != 0) call.refuse("channels and groups disagree");
  if (bt && (bt->rank != 1 || bt->shape[0] != O)) call.refuse("bias b must be (O)");
  const std::int64_t eh = dl[0] * (KH - 1) + 1, ew = dl[1] * (KW - 1) + 1;
  if (H + pd[0] + pd[2] < eh || W + pd[1] + pd[3] < ew)
    throw Unsupported("the dilated kernel does not fit the padded input: no output position (a REQUIRE)");
  const std::int64_t OH = (H + pd[0] + pd[2] - eh) / st[0] + 1, OW = (W + pd[1] + pd[3] - ew) / st[1] + 1;
  const memory::data_type xdt = data_type(call, xt.dtype), wdt = data_type(call, wt.dtype);
  const dnnl::primitive_attr attr = make_attr(call, p, xt.dtype, O, 1);
  const Dims src_dims{N, C, H, W}, dst_dims{N, O, OH, OW};
  // OHWI in place: (o, kh, kw, c) at ((o KH + kh) KW + kw) Cg + c.
  const std::int64_t og = O / groups;
  const Dims wei_dims = groups == 1 ? Dims{O, Cg, KH, KW} : Dims{groups, og, Cg, KH, KW};
  const Dims wei_str =
      groups == 1 ? Dims{KH * KW * Cg, 1, KW * Cg, Cg} : Dims{og * KH * KW * Cg, KH * KW * Cg, 1, KW * Cg, Cg};
  const memory::desc src_md(src_dims, xdt, memory::format_tag::nhwc), dst_md(dst_dims, xdt, memory::format_tag::nhwc);
  const memory::desc user_wei_md(wei_dims, wdt, wei_str);
  const memory::desc bias_md = bt ? memory::desc({O}, memory::data_type::s32, memory::format_tag::a) : memory::desc();
  const std::string key = key_of("conv", {src_dims, wei_dims, dst_dims}, p, {xt.dtype, wt.dtype},
                                 {st[0], st[1], dl[0], dl[1], pd[0], pd[1], pd[2], pd[3], groups, bt ? 1 : 0});
  auto& cache = conv_cache();
  const auto* hit = cache.find(key);
  if (!hit) {
    dnnl::convolution_forward::primitive_desc cpd;
    const memory::desc wei_any(wei_dims, wdt, memory::format_tag::any);
    create_or_refuse(
        call,
        [&] {
          using dnnl::convolution_forward;
          const Dims s{st[0], st[1]}, d{dl[0] - 1, dl[1] - 1}, l{pd[0], pd[1]}, r{pd[2], pd[3]};
          const auto desc =
              bt ? convolution_forward::desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                             src_md, wei_any, bias_md, dst_md, s, d, l, r)
                 : convolution_forward::desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                             src_md, wei_any, dst_md, s, d, l, r);
          cpd = convolution_forward::primitive_desc(desc, attr, cpu_engine());
        },
        std::string("convolution ") + dtype_name(xt.dtype) + " x " + dtype_name(wt.dtype) +
            (p.w_zp != 0 ? " with a weights zero point" : ""));
    hit = &cache.put(key, cpd, dnnl::convolution_forward(cpd));
  }
  if (!call.has_outputs()) return;
  compute(hit->second, hit->first.weights_desc(), src_md, xt, user_wei_md, wt, bias_md, bt, dst_md,
          static_cast<std::size_t>(N * OH * OW * O), call.output(Op::out::y));
}

void run_qlinear_fully_connected(const Call& call) {
  using Op = cat::qlinear_fully_connected;
  const qspec_tensor &xt = call.input(Op::in::x), &wt = call.input(Op::in::w);
  const qspec_tensor* bt = call.has_input(Op::in::b) ? &call.input(Op::in::b) : nullptr;
  const QParams p = read_params(call, qlinear_keys<Op::attr>);
  if (xt.rank != 2 || wt.rank != 2 || xt.shape[1] != wt.shape[1] || xt.shape[1] < 1 || wt.shape[0] < 1)
    call.refuse("fully connected needs x (N, K) and w (O, K), K >= 1");
  const std::int64_t N = xt.shape[0], K = xt.shape[1], O = wt.shape[0];
  if (bt && (bt->rank != 1 || bt->shape[0] != O)) call.refuse("bias b must be (O)");
  // w (O, K) row-major read as the (K, O) weights: (k, o) at o K + k.
  run_matmul(call, p, xt, {N, K}, {K, 1}, wt, {K, O}, {1, K}, bt, {N, O}, call.output(Op::out::y), "fc");
}

void run_qlinear_matmul(const Call& call) {
  using Op = cat::qlinear_matmul;
  const qspec_tensor &at = call.input(Op::in::a), &bt = call.input(Op::in::b);
  const QParams p = read_params(call, qlinear_matmul_keys);
  if (at.rank < 2 || bt.rank < 2) call.refuse("matmul needs a and b of rank >= 2");
  std::vector<std::int64_t> as = shape_of(at), bs = shape_of(bt);
  const std::size_t r = std::max(as.size(), bs.size());
  while (as.size() < r) as.insert(as.begin(), 1);  // ranks aligned with leading 1s, as a user reshapes
  while (bs.size() < r) bs.insert(bs.begin(), 1);
  for (auto v : as)
    if (v < 1) call.refuse("empty dimension");
  for (auto v : bs)
    if (v < 1) call.refuse("empty dimension");
  if (as[r - 1] != bs[r - 2]) call.refuse("K differs");
  Dims dst(r);
  for (std::size_t i = 0; i + 2 < r; ++i) {
    if (as[i] != bs[i] && as[i] != 1 && bs[i] != 1) call.refuse("batch dimensions do not broadcast");
    dst[i] = std::max(as[i], bs[i]);
  }
  dst[r - 2] = as[r - 2], dst[r - 1] = bs[r - 1];
  const Dims ad(as.begin(), as.end()), bd(bs.begin(), bs.end());
  if (r > DNNL_MAX_NDIMS) throw Unsupported("oneDNN tensors have at most 12 dimensions");
  run_matmul(call, p, at, ad, row_major(ad), bt, bd, row_major(bd), nullptr, dst, call.output(Op::out::y), "mm");
}

}  // namespace qspec::onednn_adapter
