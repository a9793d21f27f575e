// qlinear.leaky_relu through Arm NN's Activation layer (LeakyReLu) on CpuRef, QAsymmS8 / QAsymmU8 in
// and out with their own scales and offsets (spec/operators_qlinear_leaky_relu.md,
// qlinear.leaky_relu.armnn_cpuref). The tensor runs flat (one dimension): the layer is elementwise.
#include <armnn/Descriptors.hpp>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "network.h"
#include "ops.h"
#include "qspec/catalogue/keys.h"
#include "qspec/core/attr.h"
#include "qspec/thirdparty/tensor_io.h"

namespace qspec::armnn_adapter {

void run_leaky_relu(const thirdparty::Call& call) {
  using K = cat::qlinear_leaky_relu;
  using thirdparty::Unsupported;
  const auto& at = call.attrs;
  if (call.inputs.size() != 1) call.refuse("qlinear.leaky_relu takes one input");
  const qspec_tensor& x = call.inputs[0];
  const armnn::DataType dt = data_type(x.dtype);
  const float alpha = f32(attr::get(at, K::attr::alpha));
  const float sx = f32(attr::get(at, K::attr::x_scale)), sy = f32(attr::get(at, K::attr::y_scale));
  const std::int64_t zx = attr::get(at, K::attr::x_zero_point), zy = attr::get(at, K::attr::y_zero_point);
  for (float s : {sx, sy})
    if (!(s > 0.0f) || !std::isfinite(s))
      throw Unsupported("Arm NN asserts on a zero scale (armnn::Quantize / Dequantize); scales finite and positive");
  for (std::int64_t z : {zx, zy})
    if (z < INT32_MIN || z > INT32_MAX) throw Unsupported("Arm NN's quantization offset is an int32_t");
  if (!std::isfinite(alpha))
    throw Unsupported("alpha finite (an infinite m_A can make a NaN armnn::Quantize asserts on)");
  const std::vector<std::int64_t> codes = thirdparty::read_ints(x);
  if (codes.empty()) throw Unsupported("Arm NN tensors have at least one element");
  const unsigned n = static_cast<unsigned>(codes.size());
  const armnn::TensorShape shape(1, &n);
  const armnn::TensorInfo ix(shape, dt, sx, static_cast<std::int32_t>(zx));
  const armnn::TensorInfo iy(shape, dt, sy, static_cast<std::int32_t>(zy));
  armnn::ActivationDescriptor desc;
  desc.m_Function = armnn::ActivationFunction::LeakyReLu;
  desc.m_A = alpha;
  const std::string key = "leaky_relu|" + at.dump() + "|" + std::to_string(x.dtype) + "|" + std::to_string(n);
  const LoadedNetwork* net = nullptr;
  try {
    net = &network(key, ix, iy, [&desc](armnn::INetwork& nw) { return nw.AddActivationLayer(desc, "leaky_relu"); });
  } catch (const std::exception& e) {
    call.refuse(e.what());
  }
  std::vector<std::uint8_t> xb;
  for (auto v : codes) xb.push_back(static_cast<std::uint8_t>(v));
  std::vector<std::uint8_t> yb(net->output_bytes);
  run(*net, xb.data(), yb.data());
  std::vector<std::int64_t> y;
  for (auto v : yb) y.push_back(x.dtype == QSPEC_DTYPE_INT8 ? static_cast<std::int8_t>(v) : v);
  thirdparty::write_ints(call.output(K::out::y), y);
}

}  // namespace qspec::armnn_adapter
