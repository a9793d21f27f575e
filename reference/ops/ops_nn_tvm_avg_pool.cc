// Reference-backend registration of TVM's quantized average pooling (op tvm.qnn.avg_pool2d, convention tvm).
//
// Input data (int8 or uint8, NCHW or NHWC) and the attributes of spec/catalogue/tvm.qnn.avg_pool2d.json,
// read through the typed keys qspec::cat::tvm_qnn_avg_pool2d::attr.
#include <string>
#include <vector>

#include "qspec/catalogue/keys.h"
#include "qspec/ref/ops/tvm_avg_pool.h"
#include "qspec/refops.h"

namespace qspec::refops {
namespace {

namespace ro = qspec::ref::ops;
using ref::Int;
using K = cat::tvm_qnn_avg_pool2d;
using Ints = std::vector<std::int64_t>;

ro::Pair pair(const Attrs& a, const attr::IntArray& key) {
  const auto v = attr::get_or(a, key, Ints{1, 1});
  if (v.size() != 2) throw ref::ErrorIf("ERROR_IF: attribute " + std::string(key.name) + " needs two entries");
  return {v[0], v[1]};
}

std::vector<Tensor> avg_pool(const Attrs& a, const std::vector<Tensor>& in) {
  if (in.size() != 1) throw ref::ErrorIf("ERROR_IF: " + std::string(K::op) + " takes one input");
  const Tensor& x = in[0];
  if (x.dtype != DType::I8 && x.dtype != DType::U8)
    throw ref::ErrorIf("ERROR_IF: " + std::string(K::op) + " data must be int8 or uint8");
  ro::TvmAvgPoolAttrs at;
  at.pool_size = pair(a, K::attr::pool_size);
  at.strides = pair(a, K::attr::strides);
  at.dilation = pair(a, K::attr::dilation);
  const auto pad = attr::get_or(a, K::attr::padding, Ints{0, 0, 0, 0});
  if (pad.size() != 4) throw ref::ErrorIf("ERROR_IF: padding needs four entries (top, left, bottom, right)");
  at.padding = {pad[0], pad[1], pad[2], pad[3]};
  at.count_include_pad = attr::get_or(a, K::attr::count_include_pad, false);
  using Layout = K::attr::layout_is;
  const std::string_view layout = attr::get_or(a, K::attr::layout, Layout::NCHW);
  if (layout != Layout::NCHW && layout != Layout::NHWC) throw ref::ErrorIf("ERROR_IF: layout must be NCHW or NHWC");
  at.nhwc = layout == Layout::NHWC;
  if (attr::get_or(a, K::attr::ceil_mode, false)) throw ref::ErrorIf("ERROR_IF: ceil_mode is not covered");
  ro::TvmAvgPoolParams p;
  p.input_scale = attr::get(a, K::attr::input_scale);
  p.output_scale = attr::get(a, K::attr::output_scale);
  p.input_zero_point = Int(attr::get(a, K::attr::input_zero_point));
  p.output_zero_point = Int(attr::get(a, K::attr::output_zero_point));
  p.dtype = static_cast<ref::DType>(static_cast<int>(x.dtype));
  ro::IntArray xa(x.shape);
  for (std::size_t i = 0; i < x.data.size(); ++i) xa.data[i] = Int(x.data[i]);
  const ro::IntArray y = ro::tvm_qnn_avg_pool2d(xa, p, at);
  Tensor t{std::string(K::out::y), x.dtype, y.shape, {}};
  for (const auto& v : y.data) t.data.push_back(static_cast<std::int64_t>(v));
  return {t};
}

QSPEC_REGISTER_REF_OP(registration<K>(K::conv::tvm, avg_pool));

}  // namespace
}  // namespace qspec::refops
