// quantize and dequantize through Arm NN's Quantize and Dequantize layers on CpuRef (float32 <->
// QAsymmS8 / QAsymmU8; spec/operators_qlinear_armnn.md, armnn.quantize and float.dequantize).
// The layers are elementwise: every tensor is run flat, as one axis of its element count.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "network.h"
#include "ops.h"
#include "qspec/catalogue/keys.h"
#include "qspec/core/attr.h"
#include "qspec/thirdparty/requant_params.h"
#include "qspec/thirdparty/tensor_io.h"

namespace qspec::armnn_adapter {
namespace {

using thirdparty::Call;
using thirdparty::Unsupported;

armnn::TensorShape flat(std::int64_t n) { return armnn::TensorShape({static_cast<unsigned>(n)}); }

// Arm NN keeps an int32 offset and asserts (aborting the process: Debian keeps ARMNN_ASSERT) on a
// zero scale; a non-finite or negative scale is outside both clauses' REQUIREs.
std::int32_t offset_of(std::int64_t zp) {
  if (zp < INT32_MIN || zp > INT32_MAX) throw Unsupported("Arm NN's quantization offset is an int32_t");
  return static_cast<std::int32_t>(zp);
}
void check_scale(float s) {
  if (!(s > 0.0f) || !std::isfinite(s))
    throw Unsupported(
        "Arm NN asserts on a zero scale (armnn::Quantize / Dequantize: scale != 0.f); scales finite "
        "and positive");
}

}  // namespace

void run_quantize(const Call& call) {
  using Op = cat::quantize;
  const thirdparty::QuantizeParams p = thirdparty::read_quantize_params(call.attrs, call.first_output().dtype);
  const armnn::DataType t = data_type(p.out_dtype);
  check_scale(p.scale());
  const std::int32_t offset = offset_of(p.zero_point);
  const qspec_tensor& xt = call.input(Op::in::x);
  thirdparty::expect_dtype(xt, QSPEC_DTYPE_FLOAT32);
  const std::vector<float> x = thirdparty::read_f32(xt);
  for (float v : x)
    if (std::isnan(v)) throw Unsupported("a NaN input aborts Arm NN (armnn::Quantize: ARMNN_ASSERT(!isnan))");
  if (x.empty()) return;
  const auto n = static_cast<std::int64_t>(x.size());
  const armnn::TensorInfo in(flat(n), armnn::DataType::Float32);
  const armnn::TensorInfo out(flat(n), t, p.scale(), offset);
  const std::string key = "quantize|" + std::to_string(n) + "|" + std::to_string(static_cast<int>(t)) + "|" +
                          std::to_string(p.scale_bits) + "|" + std::to_string(offset);
  const LoadedNetwork* net = nullptr;
  try {
    net = &network(key, in, out, [](armnn::INetwork& nw) { return nw.AddQuantizeLayer("quantize"); });
  } catch (const std::exception& e) {
    call.refuse(e.what());
  }
  std::vector<std::uint8_t> yb(net->output_bytes);
  run(*net, x.data(), yb.data());
  std::vector<std::int64_t> y;
  for (auto v : yb) y.push_back(p.out_dtype == QSPEC_DTYPE_INT8 ? static_cast<std::int8_t>(v) : v);
  thirdparty::write_ints(call.output(Op::out::y), y);
}

void run_dequantize(const Call& call) {
  using Op = cat::dequantize;
  const qspec_tensor& xt = call.input(Op::in::x);
  const armnn::DataType t = data_type(xt.dtype);
  const float scale = f32(attr::get(call.attrs, Op::attr::scale));
  check_scale(scale);
  const std::int32_t offset = offset_of(attr::get(call.attrs, Op::attr::zero_point));
  const std::vector<std::int64_t> x = thirdparty::read_ints(xt);
  if (x.empty()) return;
  const auto n = static_cast<std::int64_t>(x.size());
  const armnn::TensorInfo in(flat(n), t, scale, offset);
  const armnn::TensorInfo out(flat(n), armnn::DataType::Float32);
  std::uint32_t sb;
  std::memcpy(&sb, &scale, 4);
  const std::string key = "dequantize|" + std::to_string(n) + "|" + std::to_string(static_cast<int>(t)) + "|" +
                          std::to_string(sb) + "|" + std::to_string(offset);
  const LoadedNetwork* net = nullptr;
  try {
    net = &network(key, in, out, [](armnn::INetwork& nw) { return nw.AddDequantizeLayer("dequantize"); });
  } catch (const std::exception& e) {
    call.refuse(e.what());
  }
  std::vector<std::uint8_t> xb;
  for (auto v : x) xb.push_back(static_cast<std::uint8_t>(v));
  std::vector<float> y(static_cast<std::size_t>(n));
  run(*net, xb.data(), y.data());
  thirdparty::write_f32(call.output(Op::out::y), y);
}

}  // namespace qspec::armnn_adapter
