// qlinear.avg_pool2d, qlinear.global_avg_pool and qlinear.max_pool2d through Arm NN's Pooling2d layer
// on CpuRef (NHWC, OutputShapeRounding::Floor; count_include_pad = PaddingMethod::IgnoreValue, else
// Exclude; spec/operators_qlinear_armnn.md). Max pooling has no quantization attributes: the
// adapter gives input and output one scale and offset (any equal pair encodes the same codes).
#include <cmath>
#include <string>
#include <vector>

#include "network.h"
#include "ops.h"
#include "qspec/catalogue/keys.h"
#include "qspec/core/attr.h"
#include "qspec/thirdparty/tensor_io.h"

namespace qspec::armnn_adapter {
namespace {

using thirdparty::Call;
using thirdparty::Unsupported;

armnn::TensorShape shape_of(const std::vector<std::int64_t>& s) {
  std::vector<unsigned> d;
  for (auto v : s) d.push_back(static_cast<unsigned>(v));
  return armnn::TensorShape(static_cast<unsigned>(d.size()), d.data());
}

struct Quant {
  float x_scale = 1.0f, y_scale = 1.0f;
  std::int32_t x_zp = 0, y_zp = 0;
};

// No fused clamp in Arm NN's layers.
template <class A>
void no_clamp(const Call& call, qspec_dtype t) {
  const std::int64_t lo = thirdparty::dtype_min(t), hi = thirdparty::dtype_max(t);
  if (attr::get_or(call.attrs, A::y_min, lo) != lo || attr::get_or(call.attrs, A::y_max, hi) != hi)
    throw Unsupported("Arm NN's layers have no fused output clamp (y_min / y_max)");
}

template <class A>
Quant quant_of(const Call& call) {
  Quant q;
  q.x_scale = f32(attr::get(call.attrs, A::x_scale));
  q.y_scale = f32(attr::get(call.attrs, A::y_scale));
  q.x_zp = static_cast<std::int32_t>(attr::get(call.attrs, A::x_zero_point));
  q.y_zp = static_cast<std::int32_t>(attr::get(call.attrs, A::y_zero_point));
  for (float v : {q.x_scale, q.y_scale})
    if (!(v > 0.0f) || !std::isfinite(v))
      throw Unsupported("Arm NN asserts on a zero scale (armnn::Quantize: scale != 0.f); scales finite and positive");
  return q;
}

// Runs Pooling2d with `d` on x; the output shape is qlinear.pool.window's (Arm NN refuses the
// network where its own shape inference differs).
void run_pooling(const Call& call, const qspec_tensor& x, armnn::Pooling2dDescriptor d, const Quant& q,
                 std::string_view y_name) {
  const auto xs = thirdparty::shape_of(x);
  if (xs.size() != 4) call.refuse("Pooling2d: x must be (N, H, W, C)");
  d.m_DataLayout = armnn::DataLayout::NHWC;
  d.m_OutputShapeRounding = armnn::OutputShapeRounding::Floor;
  std::vector<std::int64_t> ys{xs[0], 1, 1, xs[3]};
  const std::int64_t pads[2][2] = {{d.m_PadTop, d.m_PadBottom}, {d.m_PadLeft, d.m_PadRight}};
  const std::int64_t k[2] = {d.m_PoolHeight, d.m_PoolWidth}, s[2] = {d.m_StrideY, d.m_StrideX};
  for (int a = 0; a < 2; ++a) {
    const std::int64_t span = xs[static_cast<std::size_t>(a) + 1] + pads[a][0] + pads[a][1] - k[a];
    if (span < 0) throw Unsupported("the kernel is larger than the padded input (Arm NN's shapes wrap)");
    ys[static_cast<std::size_t>(a) + 1] = span / s[a] + 1;
  }
  const armnn::TensorInfo in(shape_of(xs), data_type(x.dtype), q.x_scale, q.x_zp);
  const armnn::TensorInfo out(shape_of(ys), data_type(x.dtype), q.y_scale, q.y_zp);
  std::string key = call.op + "|" + call.attrs.dump() + "|" + std::to_string(x.dtype);
  for (auto v : xs) key += "," + std::to_string(v);
  const LoadedNetwork* n = nullptr;
  try {
    n = &network(key, in, out, [&d](armnn::INetwork& net) { return net.AddPooling2dLayer(d, "pool"); });
  } catch (const std::exception& e) {
    call.refuse(e.what());
  }
  std::vector<std::uint8_t> xb;
  for (auto v : thirdparty::read_ints(x)) xb.push_back(static_cast<std::uint8_t>(v));
  std::vector<std::uint8_t> yb(n->output_bytes);
  run(*n, xb.data(), yb.data());
  std::vector<std::int64_t> y;
  for (auto v : yb) y.push_back(x.dtype == QSPEC_DTYPE_INT8 ? static_cast<std::int8_t>(v) : v);
  thirdparty::write_ints(call.output(y_name), y);
}

// kernel, strides and pads into the descriptor (Arm NN's fields are unsigned).
template <class A>
void window_of(const Call& call, armnn::Pooling2dDescriptor& d) {
  const auto k = attr::get(call.attrs, A::kernel);
  const auto st = attr::get_or(call.attrs, A::strides, std::vector<std::int64_t>{1, 1});
  const auto pd = attr::get_or(call.attrs, A::pads, std::vector<std::int64_t>{0, 0, 0, 0});
  if (k.size() != 2 || st.size() != 2 || pd.size() != 4 || k[0] < 1 || k[1] < 1 || st[0] < 1 || st[1] < 1)
    call.refuse("kernel and strides must be 2 entries >= 1, pads 4 entries");
  for (auto v : pd)
    if (v < 0) call.refuse("a negative pad (Arm NN's pads are unsigned)");
  d.m_PoolHeight = static_cast<unsigned>(k[0]), d.m_PoolWidth = static_cast<unsigned>(k[1]);
  d.m_StrideY = static_cast<unsigned>(st[0]), d.m_StrideX = static_cast<unsigned>(st[1]);
  d.m_PadTop = static_cast<unsigned>(pd[0]), d.m_PadLeft = static_cast<unsigned>(pd[1]);
  d.m_PadBottom = static_cast<unsigned>(pd[2]), d.m_PadRight = static_cast<unsigned>(pd[3]);
}

}  // namespace

void run_avg_pool2d(const Call& call) {
  using Op = cat::qlinear_avg_pool2d;
  const qspec_tensor& x = call.input(Op::in::x);
  no_clamp<Op::attr>(call, x.dtype);
  armnn::Pooling2dDescriptor d;
  d.m_PoolType = armnn::PoolingAlgorithm::Average;
  window_of<Op::attr>(call, d);
  d.m_PaddingMethod = attr::get_or(call.attrs, Op::attr::count_include_pad, false) ? armnn::PaddingMethod::IgnoreValue
                                                                                   : armnn::PaddingMethod::Exclude;
  run_pooling(call, x, d, quant_of<Op::attr>(call), Op::out::y);
}

void run_global_avg_pool(const Call& call) {
  using Op = cat::qlinear_global_avg_pool;
  const qspec_tensor& x = call.input(Op::in::x);
  no_clamp<Op::attr>(call, x.dtype);
  const auto xs = thirdparty::shape_of(x);
  if (xs.size() != 4) call.refuse("Pooling2d: x must be (N, H, W, C)");
  armnn::Pooling2dDescriptor d;
  d.m_PoolType = armnn::PoolingAlgorithm::Average;
  d.m_PaddingMethod = armnn::PaddingMethod::IgnoreValue;
  d.m_PoolHeight = static_cast<unsigned>(xs[1]), d.m_PoolWidth = static_cast<unsigned>(xs[2]);
  d.m_StrideY = d.m_StrideX = 1;
  run_pooling(call, x, d, quant_of<Op::attr>(call), Op::out::y);
}

void run_max_pool2d(const Call& call) {
  using Op = cat::qlinear_max_pool2d;
  const qspec_tensor& x = call.input(Op::in::x);
  no_clamp<Op::attr>(call, x.dtype);
  const auto dl = attr::get_or(call.attrs, Op::attr::dilations, std::vector<std::int64_t>{1, 1});
  if (dl != std::vector<std::int64_t>{1, 1}) throw Unsupported("Arm NN's Pooling2d has no dilation");
  armnn::Pooling2dDescriptor d;
  d.m_PoolType = armnn::PoolingAlgorithm::Max;
  window_of<Op::attr>(call, d);
  run_pooling(call, x, d, Quant{}, Op::out::y);  // one scale and offset for x and y (1, 0)
}

}  // namespace qspec::armnn_adapter
