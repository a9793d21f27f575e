// quantize through oneDNN: a reorder f32 -> s8/u8 with output scale 1/s and a dst zero point.
//
// oneDNN 2.x has no "divide by the scale" attribute: a user quantizing with scale s sets the
// output scale to 1.0f / s (computed in float32, as here). The reorder then computes
// saturate(round_mxcsr(x * (1/s) + zp)) -- zero point added before rounding to nearest even, so
// x/s = .5 with zp 3 gives 4 where XNNPACK's convert gives 3.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "dnnl_util.h"
#include "ops.h"
#include "qspec/catalogue/keys.h"
#include "qspec/thirdparty/requant_params.h"
#include "qspec/thirdparty/tensor_io.h"

namespace qspec::onednn_adapter {

void run_quantize(const thirdparty::Call& call) {
  using namespace thirdparty;
  using dnnl::memory;
  const QuantizeParams p = read_quantize_params(call.attrs, call.first_output().dtype);
  qspec_tensor& yt = call.output(cat::quantize::out::y);
  if (yt.dtype != p.out_dtype) throw std::invalid_argument("output 'y' dtype differs from out_dtype");
  if (p.out_dtype != QSPEC_DTYPE_INT8 && p.out_dtype != QSPEC_DTYPE_UINT8 && p.out_dtype != QSPEC_DTYPE_INT32)
    throw Unsupported(std::string("oneDNN 2.6 has no data type for ") + dtype_name(p.out_dtype));
  if (p.zero_point < INT32_MIN || p.zero_point > INT32_MAX) throw Unsupported("oneDNN takes zero points as int32");
  std::vector<float> x = read_f32(call.input(cat::quantize::in::x));
  if (x.empty()) return;
  const float inv_scale = 1.0f / p.scale();
  const auto n = static_cast<memory::dim>(x.size());
  memory::desc src_md({n}, memory::data_type::f32, memory::format_tag::a);
  memory::desc dst_md({n}, to_dnnl(p.out_dtype), memory::format_tag::a);
  dnnl::primitive_attr attr;
  attr.set_output_scales(0, {inv_scale});
  // INT32_MIN is DNNL_RUNTIME_S32_VAL, the "given at execution" sentinel: that zero point can only
  // be passed as a run-time value.
  std::int32_t zp_value = static_cast<std::int32_t>(p.zero_point);
  const bool runtime_zp = zp_value == DNNL_RUNTIME_S32_VAL;
  attr.set_zero_points(DNNL_ARG_DST, 0, {runtime_zp ? DNNL_RUNTIME_S32_VAL : zp_value});
  dnnl::reorder::primitive_desc pd;
  create_or_explain([&] { pd = dnnl::reorder::primitive_desc(cpu_engine(), src_md, cpu_engine(), dst_md, attr); },
                    "reorder f32 -> " + std::string(dtype_name(p.out_dtype)) + " (output scale 1/" +
                        std::to_string(p.scale()) + ", dst zero point " + std::to_string(p.zero_point) + ")");
  memory src(src_md, cpu_engine(), x.data());
  memory dst(dst_md, cpu_engine());
  memory zp_mem({{1}, memory::data_type::s32, memory::format_tag::a}, cpu_engine(), &zp_value);
  std::unordered_map<int, memory> args{{DNNL_ARG_FROM, src}, {DNNL_ARG_TO, dst}};
  if (runtime_zp) args.insert({DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_DST, zp_mem});
  dnnl::reorder(pd).execute(cpu_stream(), args);
  cpu_stream().wait();
  std::vector<std::int64_t> y(x.size());
  const void* d = dst.get_data_handle();
  for (std::size_t i = 0; i < y.size(); ++i) {
    switch (p.out_dtype) {
      case QSPEC_DTYPE_INT8: y[i] = static_cast<const std::int8_t*>(d)[i]; break;
      case QSPEC_DTYPE_UINT8: y[i] = static_cast<const std::uint8_t*>(d)[i]; break;
      default: y[i] = static_cast<const std::int32_t*>(d)[i]; break;
    }
  }
  write_ints(yt, y);
}

}  // namespace qspec::onednn_adapter
