// qlinear.concat through Arm NN's Concat layer on CpuRef (QAsymmS8 / QAsymmU8 inputs, each with its
// own scale and offset; spec/operators_qlinear_armnn.md, qlinear.concat.armnn_cpuref).
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

void run_concat(const thirdparty::Call& call) {
  using K = cat::qlinear_concat;
  using thirdparty::Unsupported;
  const auto& at = call.attrs;
  const auto scales = attr::get(at, K::attr::x_scales);
  const auto zps = attr::get(at, K::attr::x_zero_points);
  const std::size_t n = call.inputs.size();
  if (n == 0 || scales.size() != n || zps.size() != n)
    call.refuse("qlinear.concat needs inputs and one scale and zero point per input");
  const qspec_dtype t = call.inputs[0].dtype;
  const armnn::DataType dt = data_type(t);
  const float sy = f32(attr::get(at, K::attr::y_scale));
  const std::int64_t zy = attr::get(at, K::attr::y_zero_point);
  auto check = [](float s, std::int64_t z) {
    if (!(s > 0.0f) || !std::isfinite(s))
      throw Unsupported("Arm NN asserts on a zero scale (armnn::Quantize / Dequantize); scales finite and positive");
    if (z < INT32_MIN || z > INT32_MAX) throw Unsupported("Arm NN's quantization offset is an int32_t");
  };
  check(sy, zy);
  std::vector<armnn::TensorShape> shapes;
  std::vector<armnn::TensorInfo> infos;
  std::vector<std::vector<std::uint8_t>> data;
  std::string key = "concat|" + at.dump() + "|" + std::to_string(t);
  const std::size_t rank = static_cast<std::size_t>(call.inputs[0].rank);
  for (std::size_t i = 0; i < n; ++i) {
    const qspec_tensor& x = call.inputs[i];
    if (x.dtype != t) call.refuse("Reference concatenation: input and output types mismatched");
    check(f32(scales[i]), zps[i]);
    const auto s = thirdparty::shape_of(x);
    if (s.size() != rank) call.refuse("the inputs' ranks differ");
    if (s.empty() || s.size() > armnn::MaxNumOfTensorDimensions)
      throw Unsupported("Arm NN tensors have 1 to 5 dimensions");
    std::vector<unsigned> d;
    for (auto v : s) d.push_back(static_cast<unsigned>(v));
    shapes.emplace_back(static_cast<unsigned>(d.size()), d.data());
    infos.emplace_back(shapes.back(), dt, f32(scales[i]), static_cast<std::int32_t>(zps[i]));
    key += "|";
    for (auto v : s) key += std::to_string(v) + ",";
    std::vector<std::uint8_t> b;
    for (auto v : thirdparty::read_ints(x)) b.push_back(static_cast<std::uint8_t>(v));
    data.push_back(std::move(b));
  }
  std::int64_t axis = attr::get(at, K::attr::axis);
  if (axis < -static_cast<std::int64_t>(rank) || axis >= static_cast<std::int64_t>(rank))
    call.refuse("axis outside [-rank, rank)");
  if (axis < 0) axis += static_cast<std::int64_t>(rank);
  const auto ax = static_cast<unsigned>(axis);
  std::vector<unsigned> yd(shapes[0].GetNumDimensions());
  for (unsigned d = 0; d < yd.size(); ++d) yd[d] = shapes[0][d];
  yd[ax] = 0;
  for (const auto& s : shapes) {
    for (unsigned d = 0; d < yd.size(); ++d)
      if (d != ax && s[d] != yd[d]) call.refuse("the inputs' extents off the axis differ");
    yd[ax] += s[ax];
  }
  const armnn::TensorInfo iy(armnn::TensorShape(static_cast<unsigned>(yd.size()), yd.data()), dt, sy,
                             static_cast<std::int32_t>(zy));
  armnn::OriginsDescriptor desc;
  try {
    desc = armnn::CreateDescriptorForConcatenation(shapes.begin(), shapes.end(), ax);
  } catch (const std::exception& e) {
    call.refuse(e.what());
  }
  const LoadedNetwork* net = nullptr;
  try {
    net = &network(key, infos, iy, [&desc](armnn::INetwork& nw) { return nw.AddConcatLayer(desc, "concat"); });
  } catch (const std::exception& e) {
    call.refuse(e.what());
  }
  std::vector<const void*> ins;
  for (const auto& b : data) ins.push_back(b.data());
  std::vector<std::uint8_t> yb(net->output_bytes);
  run(*net, ins, yb.data());
  std::vector<std::int64_t> y;
  for (auto v : yb) y.push_back(t == QSPEC_DTYPE_INT8 ? static_cast<std::int8_t>(v) : v);
  thirdparty::write_ints(call.output(K::out::y), y);
}

}  // namespace qspec::armnn_adapter
