// conv2d (mrt) and tvm.qnn.conv2d through oneDNN's convolution_forward primitive.
//
// Data NCHW and weights OIHW (TVM's NHWC / HWIO is transposed to them and back: data movement
// only). The primitive is created with format_tag::any for every tensor and the user buffers
// are reordered, so oneDNN picks its optimized int8 implementation (jit_int8 on AVX-512) and not
// the ref_int8 fallback that plain layouts select. oneDNN 2.6 convolution accepts a source zero
// point but rejects weight zero points and run-time scales, so one primitive is created per
// parameter set and a nonzero kernel zero point is reported as something the library cannot
// express. oneDNN pads with zero in the zero-point-shifted domain, i.e. with the input zero
// point, which is TVM's padding; MRT's conv2d pads with `pad_value` (0 unless given).
#include <cstdint>
#include <string>
#include <vector>

#include "dnnl_util.h"
#include "ops.h"
#include "qspec/catalogue/keys.h"
#include "qspec/core/attr.h"
#include "qspec/core/window_keys.h"
#include "qspec/thirdparty/layout.h"
#include "qspec/thirdparty/requant_params.h"
#include "qspec/thirdparty/tensor_io.h"
#include "qspec/thirdparty/window_attrs.h"

namespace qspec::onednn_adapter {
namespace {
using namespace thirdparty;
using dnnl::memory;

struct ConvArgs {
  std::vector<std::int64_t> x_shape, w_shape;  // NCHW, OIHW
  std::vector<std::int64_t> x, w;
  qspec_dtype x_dtype = QSPEC_DTYPE_INT8, w_dtype = QSPEC_DTYPE_INT8, y_dtype = QSPEC_DTYPE_INT32;
  std::vector<std::int64_t> strides{1, 1}, padding{0, 0}, dilation{1, 1};
  std::int64_t groups = 1;
  std::int64_t x_zp = 0;
  bool requantize = false;
  float scale = 1.0f;
  std::int64_t y_zp = 0;
};

// Runs the convolution; returns Y in NCHW and its shape.
std::vector<std::int64_t> convolve(const Call& call, const ConvArgs& a, std::vector<std::int64_t>& y_shape) {
  if (a.x_dtype != QSPEC_DTYPE_INT8 && a.x_dtype != QSPEC_DTYPE_UINT8)
    throw Unsupported(std::string("oneDNN int8 convolution takes s8/u8 data, not ") + dtype_name(a.x_dtype));
  if (a.w_dtype != QSPEC_DTYPE_INT8)
    throw Unsupported(std::string("oneDNN int8 convolution takes s8 weights and rejects weight zero points, so ") +
                      dtype_name(a.w_dtype) + " weights cannot be shifted into s8");
  if (!a.requantize && a.y_dtype != QSPEC_DTYPE_INT32)
    throw Unsupported(std::string("oneDNN int8 convolution accumulates in s32; no ") + dtype_name(a.y_dtype) +
                      " accumulator");
  if (a.x_shape.size() != 4 || a.w_shape.size() != 4) call.refuse("conv2d needs 4-D data and weights");
  const memory::dim n = a.x_shape[0], c = a.x_shape[1], h = a.x_shape[2], w = a.x_shape[3];
  const memory::dim o = a.w_shape[0], ic = a.w_shape[1], kh = a.w_shape[2], kw = a.w_shape[3], g = a.groups;
  if (g < 1 || c != ic * g || o % g != 0) call.refuse("channels do not match groups");
  const memory::dim ekh = (kh - 1) * a.dilation[0] + 1, ekw = (kw - 1) * a.dilation[1] + 1;
  if (h + 2 * a.padding[0] < ekh || w + 2 * a.padding[1] < ekw) call.refuse("the kernel does not fit the padded input");
  const memory::dim oh = (h + 2 * a.padding[0] - ekh) / a.strides[0] + 1;
  const memory::dim ow = (w + 2 * a.padding[1] - ekw) / a.strides[1] + 1;
  y_shape = {n, o, oh, ow};
  std::vector<std::int64_t> y(static_cast<std::size_t>(n * o * oh * ow));
  if (y.empty()) return y;

  std::vector<std::uint8_t> xbuf(a.x.size());
  for (std::size_t i = 0; i < a.x.size(); ++i) xbuf[i] = static_cast<std::uint8_t>(a.x[i]);
  std::vector<std::int8_t> wbuf(a.w.begin(), a.w.end());
  const memory::dims src_dims{n, c, h, w}, dst_dims{n, o, oh, ow};
  const memory::dims wei_dims = g == 1 ? memory::dims{o, ic, kh, kw} : memory::dims{g, o / g, ic, kh, kw};
  const memory::data_type dst_dt = to_dnnl(a.y_dtype);
  memory::desc src_any(src_dims, to_dnnl(a.x_dtype), memory::format_tag::any);
  memory::desc wei_any(wei_dims, memory::data_type::s8, memory::format_tag::any);
  memory::desc dst_any(dst_dims, dst_dt, memory::format_tag::any);
  dnnl::primitive_attr attr;
  if (a.x_zp != 0) {
    if (a.x_zp < INT32_MIN || a.x_zp > INT32_MAX) throw Unsupported("oneDNN zero points are int32");
    attr.set_zero_points(DNNL_ARG_SRC, 0, {static_cast<std::int32_t>(a.x_zp)});
  }
  if (a.requantize) {
    attr.set_output_scales(0, {a.scale});
    if (a.y_zp != 0) attr.set_zero_points(DNNL_ARG_DST, 0, {static_cast<std::int32_t>(a.y_zp)});
  }
  dnnl::convolution_forward::primitive_desc pd;
  create_or_explain(
      [&] {
        dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                          src_any, wei_any, dst_any, {a.strides[0], a.strides[1]},
                                          {a.dilation[0] - 1, a.dilation[1] - 1}, {a.padding[0], a.padding[1]},
                                          {a.padding[0], a.padding[1]});
        pd = dnnl::convolution_forward::primitive_desc(d, attr, cpu_engine());
      },
      "convolution " + std::string(dtype_name(a.x_dtype)) + " x s8 -> " + dtype_name(a.y_dtype) +
          (a.x_zp ? " with a source zero point" : ""));
  auto& eng = cpu_engine();
  auto& st = cpu_stream();
  memory user_src({src_dims, to_dnnl(a.x_dtype), memory::format_tag::nchw}, eng, xbuf.data());
  memory user_wei({wei_dims, memory::data_type::s8, g == 1 ? memory::format_tag::oihw : memory::format_tag::goihw}, eng,
                  wbuf.data());
  memory user_dst({dst_dims, dst_dt, memory::format_tag::nchw}, eng);
  memory src(pd.src_desc(), eng), wei(pd.weights_desc(), eng), dst(pd.dst_desc(), eng);
  dnnl::reorder(user_src, src).execute(st, user_src, src);
  dnnl::reorder(user_wei, wei).execute(st, user_wei, wei);
  dnnl::convolution_forward(pd).execute(st, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_DST, dst}});
  dnnl::reorder(dst, user_dst).execute(st, dst, user_dst);
  st.wait();
  const void* d = user_dst.get_data_handle();
  for (std::size_t i = 0; i < y.size(); ++i) {
    switch (a.y_dtype) {
      case QSPEC_DTYPE_INT8: y[i] = static_cast<const std::int8_t*>(d)[i]; break;
      case QSPEC_DTYPE_UINT8: y[i] = static_cast<const std::uint8_t*>(d)[i]; break;
      default: y[i] = static_cast<const std::int32_t*>(d)[i]; break;
    }
  }
  return y;
}

// The window attributes of the op whose keys are `keys` (conv2d, tvm.qnn.conv2d).
void common_attrs(const Call& call, const ConvKeys& keys, ConvArgs& a) {
  a.strides = window_pair(call, keys.strides, 1, 1);
  a.padding = window_pair(call, keys.padding, 0, 0);
  a.dilation = window_pair(call, keys.dilation, 1, 1);
  a.groups = attr::get_or(call.attrs, keys.groups, 1);
  if (a.groups < 1) call.refuse("groups must be >= 1");
}

}  // namespace

void run_conv2d(const Call& call) {
  using K = cat::conv2d;
  if (call.inputs.size() != 2) call.refuse("conv2d takes two inputs");
  if (attr::get_or(call.attrs, K::attr::pad_value, 0) != 0)
    throw Unsupported("oneDNN pads with zero (or the source zero point); a separate pad_value cannot be expressed");
  ConvArgs a;
  const qspec_tensor &xt = call.inputs[0], &wt = call.inputs[1];
  a.x_shape = shape_of(xt);
  a.w_shape = shape_of(wt);
  a.x = read_ints(xt);
  a.w = read_ints(wt);
  a.x_dtype = xt.dtype;
  a.w_dtype = wt.dtype;
  qspec_tensor& yt = call.first_output();
  a.y_dtype = yt.dtype;
  common_attrs(call, conv_keys<K>, a);
  std::vector<std::int64_t> y_shape;
  write_ints(yt, convolve(call, a, y_shape));
}

void run_tvm_conv2d(const Call& call) {
  using K = cat::tvm_qnn_conv2d;
  using A = K::attr;
  const qspec_tensor &xt = call.input(K::in::data), &wt = call.input(K::in::kernel);
  qspec_tensor& yt = call.output(K::out::y);
  if (yt.dtype != QSPEC_DTYPE_INT8 && yt.dtype != QSPEC_DTYPE_UINT8 && yt.dtype != QSPEC_DTYPE_INT32)
    call.refuse("out_dtype must be int8, uint8 or int32");
  ConvArgs a;
  common_attrs(call, conv_keys<K>, a);
  a.x_dtype = xt.dtype;
  a.w_dtype = wt.dtype;
  a.y_dtype = yt.dtype;
  a.x_zp = attr::get_or(call.attrs, A::input_zero_point, 0);
  if (attr::get_or(call.attrs, A::kernel_zero_point, 0) != 0)
    throw Unsupported("oneDNN 2.6 convolution rejects weight zero points");
  if (yt.dtype != QSPEC_DTYPE_INT32) {
    if (!call.all_conventions)
      throw Unsupported("oneDNN requantizes with its own float epilogue (onednn.fp32), not TVM's; int32 outputs only");
    const float in_s = f32_from_bits(attr::get(call.attrs, A::input_scale));
    const float k_s = f32_from_bits(attr::get(call.attrs, A::kernel_scale));
    const float out_s = f32_from_bits(attr::get(call.attrs, A::output_scale));
    a.requantize = true;
    a.scale = in_s * k_s / out_s;
    a.y_zp = attr::get_or(call.attrs, A::output_zero_point, 0);
  }
  const bool nhwc = attr::get_or(call.attrs, A::data_layout, A::data_layout_is::NCHW) == A::data_layout_is::NHWC;
  const std::vector<std::int64_t> xs = shape_of(xt), ws = shape_of(wt);
  if (xs.size() != 4 || ws.size() != 4) call.refuse("conv2d needs 4-D data and kernel");
  if (nhwc) {
    a.x = permute4(read_ints(xt), xs, kNhwcToNchw, a.x_shape);
    a.w = permute4(read_ints(wt), ws, kHwioToOihw, a.w_shape);
  } else {
    a.x = read_ints(xt);
    a.w = read_ints(wt);
    a.x_shape = xs;
    a.w_shape = ws;
  }
  std::vector<std::int64_t> y_shape;
  std::vector<std::int64_t> y = convolve(call, a, y_shape);
  if (nhwc) {
    std::vector<std::int64_t> s;
    y = permute4(y, y_shape, kNchwToNhwc, s);
  }
  write_ints(yt, y);
}

}  // namespace qspec::onednn_adapter
