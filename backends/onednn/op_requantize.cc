// requantize through oneDNN: a reorder s32 -> s8/u8/s32 with an output scale and a dst zero point.
//
// oneDNN 2.6's reorder computes dst = saturate(round_mxcsr(scale * float(src) + dst_zp)): the
// zero point is added BEFORE rounding (to nearest even), unlike XNNPACK. The scale is the
// vector's float32 scale, passed unchanged; one primitive per parameter set.
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

void run_requantize(const thirdparty::Call& call) {
  using namespace thirdparty;
  using dnnl::memory;
  const RequantParams p = read_requant_params(call.attrs);
  const qspec_tensor& xt = call.input(cat::requantize::in::x);
  qspec_tensor& yt = call.output(cat::requantize::out::y);
  if (yt.dtype != p.out_dtype) throw std::invalid_argument("output 'y' dtype differs from out_dtype");
  const memory::data_type out_dt = to_dnnl(p.out_dtype);
  if (p.output_zero_point < INT32_MIN || p.output_zero_point > INT32_MAX)
    throw Unsupported("oneDNN takes zero points as int32");
  std::vector<std::int32_t> x = p.accumulators(read_accumulator_input(xt));
  if (x.empty()) return;
  const float scale = p.as_f32_scale();
  const auto n = static_cast<memory::dim>(x.size());
  memory::desc src_md({n}, memory::data_type::s32, memory::format_tag::a);
  memory::desc dst_md({n}, out_dt, memory::format_tag::a);
  dnnl::primitive_attr attr;
  attr.set_output_scales(0, {scale});
  // INT32_MIN is DNNL_RUNTIME_S32_VAL, the "given at execution" sentinel: that zero point can only
  // be passed as a run-time value.
  std::int32_t zp_value = static_cast<std::int32_t>(p.output_zero_point);
  const bool runtime_zp = zp_value == DNNL_RUNTIME_S32_VAL;
  attr.set_zero_points(DNNL_ARG_DST, 0, {runtime_zp ? DNNL_RUNTIME_S32_VAL : zp_value});
  dnnl::reorder::primitive_desc pd;
  create_or_explain([&] { pd = dnnl::reorder::primitive_desc(cpu_engine(), src_md, cpu_engine(), dst_md, attr); },
                    "reorder s32 -> " + std::string(dtype_name(p.out_dtype)) + " (output scale " + std::to_string(scale) +
                        ", dst zero point " + std::to_string(p.output_zero_point) + ")");
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
