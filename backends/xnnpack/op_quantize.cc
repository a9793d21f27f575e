// quantize through XNNPACK's convert_nc_f32_qs8 / convert_nc_f32_qu8 operators.
//
// XNNPACK takes the quantization scale s and multiplies by 1.0f / s internally (it does not
// divide), so a scale whose float32 reciprocal is inexact can land on the other side of a tie;
// the adapter passes s unchanged and lets the library decide.
#include <cstdint>
#include <string>
#include <vector>

#include "ops.h"
#include "qspec/catalogue/keys.h"
#include "qspec/thirdparty/requant_params.h"
#include "qspec/thirdparty/tensor_io.h"
#include "xnn_util.h"

namespace qspec::xnnpack_adapter {

void run_quantize(const thirdparty::Call& call) {
  using namespace thirdparty;
  const QuantizeParams p = read_quantize_params(call.attrs, call.first_output().dtype);
  const qspec_tensor& xt = call.input(cat::quantize::in::x);
  qspec_tensor& yt = call.output(cat::quantize::out::y);
  if (yt.dtype != p.out_dtype) throw std::invalid_argument("output 'y' dtype differs from out_dtype");
  if (p.out_dtype != QSPEC_DTYPE_INT8 && p.out_dtype != QSPEC_DTYPE_UINT8)
    throw Unsupported(std::string("XNNPACK converts float32 to int8 (qs8) or uint8 (qu8), not ") +
                      dtype_name(p.out_dtype));
  if (p.zero_point < dtype_min(p.out_dtype) || p.zero_point > dtype_max(p.out_dtype))
    call.refuse("XNNPACK's API takes the zero point as " + std::string(p.out_dtype == QSPEC_DTYPE_INT8 ? "int8_t" : "uint8_t") +
                ", which cannot hold " + std::to_string(p.zero_point));
  const std::vector<float> x = read_f32(xt);
  if (x.empty()) return;
  const std::string what = std::string("xnn_create_convert_nc_f32_") +
                           (p.out_dtype == QSPEC_DTYPE_INT8 ? "qs8" : "qu8") +
                           "(output_scale=" + std::to_string(p.scale()) + ", output_zero_point=" +
                           std::to_string(p.zero_point) + ")";
  Operator op;
  std::vector<std::int64_t> y(x.size());
  // One row of x.size() channels: the whole tensor in one call.
  if (p.out_dtype == QSPEC_DTYPE_INT8) {
    std::vector<std::int8_t> out(x.size());
    check_create(call, xnn_create_convert_nc_f32_qs8(x.size(), x.size(), x.size(), p.scale(), static_cast<std::int8_t>(p.zero_point),
                                        INT8_MIN, INT8_MAX, 0, op.out()),
          what);
    check(xnn_setup_convert_nc_f32_qs8(op.get(), 1, x.data(), out.data(), nullptr), "xnn_setup_convert_nc_f32_qs8");
    check(xnn_run_operator(op.get(), nullptr), "xnn_run_operator");
    y.assign(out.begin(), out.end());
  } else {
    std::vector<std::uint8_t> out(x.size());
    check_create(call, xnn_create_convert_nc_f32_qu8(x.size(), x.size(), x.size(), p.scale(), static_cast<std::uint8_t>(p.zero_point),
                                        0, UINT8_MAX, 0, op.out()),
          what);
    check(xnn_setup_convert_nc_f32_qu8(op.get(), 1, x.data(), out.data(), nullptr), "xnn_setup_convert_nc_f32_qu8");
    check(xnn_run_operator(op.get(), nullptr), "xnn_run_operator");
    y.assign(out.begin(), out.end());
  }
  write_ints(yt, y);
}

}  // namespace qspec::xnnpack_adapter
