// How the reference reads the attributes of Glow's operators, as the catalogue states it
// (spec/catalogue/glow.*.json): required attributes are required, optional ones have defaults.
#include <gtest/gtest.h>

#include <vector>

#include "qspec/catalogue/keys.h"
#include "qspec/core/attr.h"
#include "qspec/core/json_values.h"
#include "qspec/refops.h"

namespace {

namespace cat = qspec::cat;
using qspec::Attrs;
using qspec::DType;
using qspec::Tensor;

std::vector<Tensor> run(std::string_view op, std::string_view conv, const Attrs& a, const std::vector<Tensor>& in) {
  const auto* impl = qspec::refops::find_op(op, conv);
  if (!impl) throw std::logic_error("no reference op");
  return impl->fn(a, in);
}

template <class Op>
Attrs kept_params() {
  Attrs a = Attrs::object();
  qspec::attr::set(a, Op::attr::input_scale, 0x3f800000u);
  qspec::attr::set(a, Op::attr::input_offset, 0);
  qspec::attr::set(a, Op::attr::output_scale, 0x3f800000u);
  qspec::attr::set(a, Op::attr::output_offset, 0);
  return a;
}

// Reshape's shape and Slice's start/size are required: without them the convention does not
// apply (JsonValueError), where the reference used to read them as [] (a rank-0 result).
TEST(refops_glow_attributes, ReshapeAndSliceNeedTheirAttributes) {
  const std::vector<Tensor> one_code = {Tensor{"x", DType::I8, {1}, {5}}};
  EXPECT_THROW(run(cat::glow_reshape::op, cat::glow_reshape::conv::glow, kept_params<cat::glow_reshape>(), one_code),
               qspec::JsonValueError);
  EXPECT_THROW(run(cat::glow_slice::op, cat::glow_slice::conv::glow, kept_params<cat::glow_slice>(),
                   {Tensor{"x", DType::I8, {}, {5}}}),
               qspec::JsonValueError);
  Attrs shaped = kept_params<cat::glow_reshape>();
  qspec::attr::set(shaped, cat::glow_reshape::attr::shape, {1, 1});
  const auto y = run(cat::glow_reshape::op, cat::glow_reshape::conv::glow, shaped, one_code);
  EXPECT_EQ(y[0].shape, (std::vector<std::int64_t>{1, 1}));
}

// Convolution's geometry attributes are optional (catalogue optional_attributes) with the
// defaults the attribute docs state: strides [1, 1], pads [0, 0, 0, 0], dilation [1, 1], group 1.
TEST(refops_glow_attributes, ConvolutionGeometryDefaults) {
  using Op = cat::glow_convolution;
  Attrs a = Attrs::object();
  for (const auto& keys : {std::pair{Op::attr::input_scale, Op::attr::input_offset},
                           std::pair{Op::attr::weights_scale, Op::attr::weights_offset},
                           std::pair{Op::attr::bias_scale, Op::attr::bias_offset},
                           std::pair{Op::attr::output_scale, Op::attr::output_offset}}) {
    qspec::attr::set(a, keys.first, 0x3f800000u);
    qspec::attr::set(a, keys.second, 0);
  }
  const std::vector<Tensor> in = {
      Tensor{"x", DType::I8, {1, 3, 3, 2}, {1, -2, 3, -4, 5, -6, 7, -8, 9, 10, -11, 12, -13, 14, 15, -16, 17, 18}},
      Tensor{"w", DType::I8, {2, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8, -1, -2, -3, -4, -5, -6, -7, -8}},
      Tensor{"bias", DType::I32, {2}, {3, -3}}};
  Attrs explicit_geometry = a;
  qspec::attr::set(explicit_geometry, Op::attr::strides, {1, 1});
  qspec::attr::set(explicit_geometry, Op::attr::pads, {0, 0, 0, 0});
  qspec::attr::set(explicit_geometry, Op::attr::dilation, {1, 1});
  qspec::attr::set(explicit_geometry, Op::attr::group, 1);
  const auto y = run(Op::op, Op::conv::glow, a, in);
  EXPECT_EQ(y[0].shape, (std::vector<std::int64_t>{1, 2, 2, 2}));
  EXPECT_EQ(y[0].data, run(Op::op, Op::conv::glow, explicit_geometry, in)[0].data);
  Attrs strided = a;
  qspec::attr::set(strided, Op::attr::strides, {2, 2});
  EXPECT_NE(run(Op::op, Op::conv::glow, strided, in)[0].shape, y[0].shape);  // the attribute is read when given
}

}  // namespace
