// Reference-backend registration of TVM's quantized average pooling: op "tvm.qnn.avg_pool2d", convention "tvm".
//
// Input "data" (int8 or uint8, NCHW or NHWC); attributes input_scale, output_scale (float32
// bits), input_zero_point, output_zero_point, pool_size, strides, dilation, padding (top, left,
// bottom, right), count_include_pad (bool, default false), layout ("NCHW" default, or "NHWC").
#include <string>

#include "qspec/core/json_values.h"
#include "qspec/ref/ops/tvm_avg_pool.h"
#include "qspec/refops.h"

namespace qspec::refops {
namespace {

namespace ro = qspec::ref::ops;
using ref::Int;

std::vector<std::int64_t> ints(const Attrs& a, const char* key, std::vector<std::int64_t> dflt) {
  if (!a.contains(key)) return dflt;
  std::vector<std::int64_t> v;
  for (const auto& e : a.at(key)) v.push_back(json_to_int(e));
  return v;
}
ro::Pair pair(const Attrs& a, const char* key) {
  const auto v = ints(a, key, {1, 1});
  if (v.size() != 2) throw ref::ErrorIf(std::string("ERROR_IF: attribute ") + key + " needs two entries");
  return {v[0], v[1]};
}

std::vector<Tensor> avg_pool(const Attrs& a, const std::vector<Tensor>& in) {
  if (in.size() != 1) throw ref::ErrorIf("ERROR_IF: tvm.qnn.avg_pool2d takes one input");
  const Tensor& x = in[0];
  if (x.dtype != DType::I8 && x.dtype != DType::U8) throw ref::ErrorIf("ERROR_IF: tvm.qnn.avg_pool2d data must be int8 or uint8");
  ro::TvmAvgPoolAttrs at;
  at.pool_size = pair(a, "pool_size");
  at.strides = pair(a, "strides");
  at.dilation = pair(a, "dilation");
  const auto pad = ints(a, "padding", {0, 0, 0, 0});
  if (pad.size() != 4) throw ref::ErrorIf("ERROR_IF: padding needs four entries (top, left, bottom, right)");
  at.padding = {pad[0], pad[1], pad[2], pad[3]};
  at.count_include_pad = a.contains("count_include_pad") && a.at("count_include_pad").get<bool>();
  const std::string layout = a.contains("layout") ? attr_str(a, "layout") : "NCHW";
  if (layout != "NCHW" && layout != "NHWC") throw ref::ErrorIf("ERROR_IF: layout must be NCHW or NHWC");
  at.nhwc = layout == "NHWC";
  if (a.contains("ceil_mode") && a.at("ceil_mode").get<bool>()) throw ref::ErrorIf("ERROR_IF: ceil_mode is not covered");
  ro::TvmAvgPoolParams p;
  p.input_scale = attr_f32(a, "input_scale");
  p.output_scale = attr_f32(a, "output_scale");
  p.input_zero_point = Int(attr_int(a, "input_zero_point"));
  p.output_zero_point = Int(attr_int(a, "output_zero_point"));
  p.dtype = static_cast<ref::DType>(static_cast<int>(x.dtype));
  ro::IntArray xa(x.shape);
  for (std::size_t i = 0; i < x.data.size(); ++i) xa.data[i] = Int(x.data[i]);
  const ro::IntArray y = ro::tvm_qnn_avg_pool2d(xa, p, at);
  Tensor t{"y", x.dtype, y.shape, {}};
  for (const auto& v : y.data) t.data.push_back(static_cast<std::int64_t>(v));
  return {t};
}

QSPEC_REGISTER_REF_OP({.op = "tvm.qnn.avg_pool2d",
                       .convention = "tvm",
                       .fn = avg_pool});

}  // namespace
}  // namespace qspec::refops
