// dequantize through XNNPACK's convert_nc_qs8_f32 / convert_nc_qu8_f32 operators.
#include <cstdint>
#include <string>
#include <vector>

#include "ops.h"
#include "qspec/catalogue/keys.h"
#include "qspec/core/attr.h"
#include "qspec/thirdparty/requant_params.h"
#include "qspec/thirdparty/tensor_io.h"
#include "xnn_util.h"

namespace qspec::xnnpack_adapter {

void run_dequantize(const thirdparty::Call& call) {
  using namespace thirdparty;
  using Op = cat::dequantize;
  const qspec_tensor& xt = call.input(Op::in::x);
  qspec_tensor& yt = call.output(Op::out::y);
  expect_dtype(yt, QSPEC_DTYPE_FLOAT32);
  if (xt.dtype != QSPEC_DTYPE_INT8 && xt.dtype != QSPEC_DTYPE_UINT8)
    throw Unsupported(std::string("XNNPACK converts int8 (qs8) or uint8 (qu8) to float32, not ") + dtype_name(xt.dtype));
  const float scale = f32_from_bits(attr::get(call.attrs, Op::attr::scale));
  const std::int64_t zp = attr::get(call.attrs, Op::attr::zero_point);
  if (zp < dtype_min(xt.dtype) || zp > dtype_max(xt.dtype))
    call.refuse("XNNPACK's API takes the zero point as " + std::string(xt.dtype == QSPEC_DTYPE_INT8 ? "int8_t" : "uint8_t") +
                ", which cannot hold " + std::to_string(zp));
  const std::vector<std::int64_t> x = read_ints(xt);
  if (x.empty()) return;
  const std::string what = std::string("xnn_create_convert_nc_") + (xt.dtype == QSPEC_DTYPE_INT8 ? "qs8" : "qu8") +
                           "_f32(input_scale=" + std::to_string(scale) + ", input_zero_point=" + std::to_string(zp) + ")";
  Operator op;
  std::vector<float> y(x.size());
  if (xt.dtype == QSPEC_DTYPE_INT8) {
    const std::vector<std::int8_t> in(x.begin(), x.end());
    check_create(call, xnn_create_convert_nc_qs8_f32(x.size(), x.size(), x.size(), scale, static_cast<std::int8_t>(zp), 0, op.out()),
                 what);
    check(xnn_setup_convert_nc_qs8_f32(op.get(), 1, in.data(), y.data(), nullptr), "xnn_setup_convert_nc_qs8_f32");
    check(xnn_run_operator(op.get(), nullptr), "xnn_run_operator");
  } else {
    const std::vector<std::uint8_t> in(x.begin(), x.end());
    check_create(call, xnn_create_convert_nc_qu8_f32(x.size(), x.size(), x.size(), scale, static_cast<std::uint8_t>(zp), 0, op.out()),
                 what);
    check(xnn_setup_convert_nc_qu8_f32(op.get(), 1, in.data(), y.data(), nullptr), "xnn_setup_convert_nc_qu8_f32");
    check(xnn_run_operator(op.get(), nullptr), "xnn_run_operator");
  }
  write_f32(yt, y);
}

}  // namespace qspec::xnnpack_adapter
