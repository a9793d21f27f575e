// fully_connected (mrt) and tvm.qnn.dense through oneDNN's matmul primitive.
//
// matmul computes dst = scale * sum_k (src - zp_src)(wei - zp_wei) [+ zp_dst, rounded half to
// even, saturated], int32 accumulation; src s8/u8, weights s8. The weight matrix W (M,K) is
// handed over as the (K,M) matrix with format tag `ba` (its transpose, no copy). uint8 weights
// are shifted into s8 as (w - 128) with the weight zero point lowered by 128, which leaves every
// product (w - zp) unchanged. With an int32 output the result is the exact accumulator (the
// convention-free part of both ops); an int8/uint8 output uses oneDNN's own requantization
// (onednn.fp32), so for tvm.qnn.dense it is only computed in the all-conventions mode.
#include <cstdint>
#include <string>
#include <vector>

#include "dnnl_util.h"
#include "ops.h"
#include "qspec/catalogue/keys.h"
#include "qspec/core/attr.h"
#include "qspec/thirdparty/requant_params.h"
#include "qspec/thirdparty/tensor_io.h"

namespace qspec::onednn_adapter {
namespace {
using namespace thirdparty;
using dnnl::memory;

struct MatmulArgs {
  const qspec_tensor* x = nullptr;  // (N, K)
  const qspec_tensor* w = nullptr;  // (M, K)
  std::int64_t x_zp = 0, w_zp = 0, y_zp = 0;
  bool requantize = false;  // int8/uint8 output with `scale`
  float scale = 1.0f;
};

std::vector<std::int64_t> run_matmul(const Call& call, const MatmulArgs& a, qspec_tensor& yt) {
  const qspec_tensor& xt = *a.x;
  const qspec_tensor& wt = *a.w;
  if (xt.rank != 2 || wt.rank != 2 || xt.shape[1] != wt.shape[1])
    call.refuse("fully connected needs X (N,K) and W (M,K)");
  if (xt.dtype != QSPEC_DTYPE_INT8 && xt.dtype != QSPEC_DTYPE_UINT8)
    throw Unsupported(std::string("oneDNN int8 matmul takes s8/u8 activations, not ") + dtype_name(xt.dtype));
  if (wt.dtype != QSPEC_DTYPE_INT8 && wt.dtype != QSPEC_DTYPE_UINT8)
    throw Unsupported(std::string("oneDNN int8 matmul takes s8 weights (u8 via a shift), not ") + dtype_name(wt.dtype));
  if (!a.requantize && yt.dtype != QSPEC_DTYPE_INT32)
    throw Unsupported(std::string("oneDNN int8 matmul accumulates in s32; no ") + dtype_name(yt.dtype) +
                      " accumulator");
  const memory::dim n = xt.shape[0], k = xt.shape[1], m = wt.shape[0];
  std::vector<std::int64_t> y(static_cast<std::size_t>(n * m));
  if (n == 0 || m == 0) return y;
  if (k == 0) throw Unsupported("oneDNN matmul needs K >= 1");
  // Weights as s8; uint8 shifted by -128 with the zero point shifted alike.
  std::vector<std::int8_t> w;
  std::int64_t w_zp = a.w_zp;
  for (std::int64_t v : read_ints(wt))
    w.push_back(static_cast<std::int8_t>(wt.dtype == QSPEC_DTYPE_UINT8 ? v - 128 : v));
  if (wt.dtype == QSPEC_DTYPE_UINT8) w_zp -= 128;
  const std::vector<std::int64_t> x64 = read_ints(xt);
  std::vector<std::uint8_t> xbuf(x64.size());
  for (std::size_t i = 0; i < x64.size(); ++i) xbuf[i] = static_cast<std::uint8_t>(x64[i]);  // s8 or u8 bytes
  for (std::int64_t zp : {a.x_zp, w_zp, a.y_zp})
    if (zp < INT32_MIN || zp > INT32_MAX) throw Unsupported("oneDNN zero points are int32");

  memory::desc src_md({n, k}, to_dnnl(xt.dtype), memory::format_tag::ab);
  memory::desc wei_md({k, m}, memory::data_type::s8, memory::format_tag::ba);
  memory::desc dst_md({n, m}, to_dnnl(yt.dtype), memory::format_tag::ab);
  dnnl::primitive_attr attr;
  if (a.x_zp != 0) attr.set_zero_points(DNNL_ARG_SRC, 0, {static_cast<std::int32_t>(a.x_zp)});
  if (w_zp != 0) attr.set_zero_points(DNNL_ARG_WEIGHTS, 0, {static_cast<std::int32_t>(w_zp)});
  if (a.requantize) {
    attr.set_output_scales(0, {a.scale});
    if (a.y_zp != 0) attr.set_zero_points(DNNL_ARG_DST, 0, {static_cast<std::int32_t>(a.y_zp)});
  }
  dnnl::matmul::primitive_desc pd;
  create_or_explain(
      [&] { pd = dnnl::matmul::primitive_desc(dnnl::matmul::desc(src_md, wei_md, dst_md), attr, cpu_engine()); },
      "matmul " + std::string(dtype_name(xt.dtype)) + " x s8 -> " + dtype_name(yt.dtype));
  memory src(src_md, cpu_engine(), xbuf.data());
  memory wei(wei_md, cpu_engine(), w.data());
  memory dst(dst_md, cpu_engine());
  dnnl::matmul(pd).execute(cpu_stream(), {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_DST, dst}});
  cpu_stream().wait();
  const void* d = dst.get_data_handle();
  for (std::size_t i = 0; i < y.size(); ++i) {
    switch (yt.dtype) {
      case QSPEC_DTYPE_INT8: y[i] = static_cast<const std::int8_t*>(d)[i]; break;
      case QSPEC_DTYPE_UINT8: y[i] = static_cast<const std::uint8_t*>(d)[i]; break;
      default: y[i] = static_cast<const std::int32_t*>(d)[i]; break;
    }
  }
  return y;
}

}  // namespace

void run_fully_connected(const Call& call) {
  if (call.inputs.size() != 2) call.refuse("fully_connected takes two inputs");
  MatmulArgs a;
  a.x = &call.inputs[0];
  a.w = &call.inputs[1];
  qspec_tensor& yt = call.first_output();
  write_ints(yt, run_matmul(call, a, yt));
}

void run_tvm_dense(const Call& call) {
  using K = cat::tvm_qnn_dense;
  using A = K::attr;
  MatmulArgs a;
  a.x = &call.input(K::in::data);
  a.w = &call.input(K::in::weight);
  a.x_zp = attr::get_or(call.attrs, A::input_zero_point, 0);
  a.w_zp = attr::get_or(call.attrs, A::kernel_zero_point, 0);
  a.y_zp = attr::get_or(call.attrs, A::output_zero_point, 0);
  qspec_tensor& yt = call.output(K::out::y);
  if (yt.dtype != QSPEC_DTYPE_INT8 && yt.dtype != QSPEC_DTYPE_UINT8 && yt.dtype != QSPEC_DTYPE_INT32)
    call.refuse("out_dtype must be int8, uint8 or int32");
  if (yt.dtype != QSPEC_DTYPE_INT32) {
    // TVM requantizes the accumulator with its own fixed-point rounding; oneDNN can only apply
    // its float epilogue, so that is computed in the all-conventions mode only.
    if (!call.all_conventions)
      throw Unsupported("oneDNN requantizes with its own float epilogue (onednn.fp32), not TVM's; int32 outputs only");
    const float in_s = f32_from_bits(attr::get(call.attrs, A::input_scale));
    const float k_s = f32_from_bits(attr::get(call.attrs, A::kernel_scale));
    const float out_s = f32_from_bits(attr::get(call.attrs, A::output_scale));
    a.requantize = true;
    a.scale = in_s * k_s / out_s;  // what a oneDNN user passes as the output scale
  }
  write_ints(yt, run_matmul(call, a, yt));
}

}  // namespace qspec::onednn_adapter
