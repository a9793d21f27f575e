// How the reference reads the attributes of the MRT/CVM, TVM QNN and gemmlowp matmul ops, as the
// catalogue states it (spec/catalogue/<op>.json): the domain of each typed key is what the
// reference can read, values it reads and then rejects stay ERROR_IFs, and every attribute the
// reference reads is one the catalogue (and so a vector) may carry.
#include <gtest/gtest.h>

#include <string_view>
#include <vector>

#include "qspec/catalogue/keys.h"
#include "qspec/core/attr.h"
#include "qspec/core/catalogue.h"
#include "qspec/core/json_values.h"
#include "qspec/ref/exact.h"
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

// The catalogue's verdict on one valid test's attributes (empty: acceptable).
std::vector<qspec::catalogue::TestProblem> problems(std::string_view op, std::string_view conv, const Attrs& a,
                                  const std::vector<std::pair<std::string, DType>>& inputs) {
  const auto* o = qspec::catalogue::get().op(op);
  const auto* c = o ? o->convention(conv) : nullptr;
  if (!c) throw std::logic_error("no catalogue pair");
  return qspec::catalogue::check_test(*o, *c, a, inputs, true);
}

// Whether the tvm convention of Op may carry the attribute `key`.
template <class Op, class Key>
bool uses(const Key& key) {
  const auto* conv = qspec::catalogue::get().find(Op::op, Op::conv::tvm);
  return conv != nullptr && conv->uses(key.name);
}

constexpr std::int64_t k2Pow32 = std::int64_t{1} << 32;

// Exponents, precisions and shifts the reference holds in an int: a value beyond int32 makes the
// convention inapplicable (JsonValueError) where it used to be truncated modulo 2^32 and computed
// (exp1 = 2^32 - 20 was read as -20).
TEST(refops_mrt_attributes, IntAttributesBeyondInt32AreNotTruncated) {
  using R = cat::mrt_conv2d_recombine;
  const std::vector<Tensor> in = {Tensor{"ye1", DType::I32, {1}, {1000}}, Tensor{"ye2", DType::I32, {1}, {1000}}};
  Attrs a = Attrs::object();
  qspec::attr::set(a, R::attr::frac1, 1);
  qspec::attr::set(a, R::attr::exp1, -20);
  qspec::attr::set(a, R::attr::frac2, 1);
  qspec::attr::set(a, R::attr::exp2, -1);
  qspec::attr::set(a, R::attr::oprec, 16);
  EXPECT_EQ(run(R::op, R::conv::mrt, a, in)[0].data, (std::vector<std::int64_t>{500}));
  Attrs wrapped = a;
  qspec::attr::set_unchecked(wrapped, R::attr::exp1, k2Pow32 - 20);
  EXPECT_THROW(run(R::op, R::conv::mrt, wrapped, in), qspec::JsonValueError);

  using Q = cat::quantize_scale;
  Attrs qs = Attrs::object();
  qspec::attr::set(qs, Q::attr::op_, Q::attr::op__is::add_n);
  qspec::attr::set(qs, Q::attr::fracs, {1});
  qspec::attr::set_unchecked(qs, Q::attr::exps, nlohmann::ordered_json::array({k2Pow32 - 1}));
  qspec::attr::set(qs, Q::attr::oprec, 8);
  EXPECT_THROW(run(Q::op, Q::conv::mrt, qs, {Tensor{"x0", DType::I32, {1}, {3}}}), qspec::JsonValueError);

  using G = cat::gemmlowp_matmul;
  Attrs g = Attrs::object();
  qspec::attr::set(g, G::attr::multiplier, std::int64_t{1} << 30);
  qspec::attr::set_unchecked(g, G::attr::shift, k2Pow32 + 1);
  EXPECT_THROW(
      run(G::op, G::conv::gemmlowp, g, {Tensor{"lhs", DType::U8, {1, 1}, {2}}, Tensor{"rhs", DType::U8, {1, 1}, {3}}}),
      qspec::JsonValueError);
}

// Precisions and shifts of the CVM ops read any integer (the catalogue gives no bounds): a value
// far outside [1, 32] is still the clause's ERROR_IF, not an unreadable attribute.
TEST(refops_mrt_attributes, FarPrecisionsAreStillErrorIfs) {
  using C = cat::cvm_clip;
  Attrs a = Attrs::object();
  qspec::attr::set(a, C::attr::precision, std::int64_t{1} << 40);
  EXPECT_THROW(run(C::op, C::conv::cvm_formal, a, {Tensor{"x", DType::I32, {1}, {5}}}), qspec::ref::ErrorIf);
  EXPECT_TRUE(problems(C::op, C::conv::cvm_formal, a, {{"x", DType::I32}}).empty());
}

// An enum value outside the catalogue's values makes the convention inapplicable; the values it
// lists that the clause forbids (avg_pool2d's HWCN layout) stay ERROR_IFs.
TEST(refops_mrt_attributes, EnumValuesOutsideTheDomainDoNotApply) {
  using D = cat::tvm_qnn_dense;
  const std::vector<Tensor> in = {Tensor{"data", DType::I8, {1, 1}, {2}}, Tensor{"weight", DType::I8, {1, 1}, {3}}};
  Attrs a = Attrs::object();
  qspec::attr::set(a, D::attr::rounding, D::attr::rounding_is::TONEAREST);
  EXPECT_EQ(run(D::op, D::conv::tvm, a, in)[0].data, (std::vector<std::int64_t>{6}));
  qspec::attr::set_unchecked(a, D::attr::rounding, "DOWNWARD");
  EXPECT_THROW(run(D::op, D::conv::tvm, a, in), qspec::JsonValueError);

  using P = cat::tvm_qnn_avg_pool2d;
  Attrs p = Attrs::object();
  qspec::attr::set(p, P::attr::input_scale, 0x3f800000u);
  qspec::attr::set(p, P::attr::output_scale, 0x3f800000u);
  qspec::attr::set(p, P::attr::input_zero_point, 0);
  qspec::attr::set(p, P::attr::output_zero_point, 0);
  qspec::attr::set(p, P::attr::layout, P::attr::layout_is::HWCN);
  EXPECT_THROW(run(P::op, P::conv::tvm, p, {Tensor{"data", DType::I8, {1, 1, 1, 1}, {0}}}), qspec::ref::ErrorIf);
}

// Attributes the reference reads with a default are ones a vector may give: conv2d's pad_value,
// the rounding of TVM's dense, concatenate and add, avg_pool2d's ceil_mode (the drafted catalogue
// rejected them as unknown attributes).
TEST(refops_mrt_attributes, AttributesTheReferenceReadsAreCatalogued) {
  using C = cat::conv2d;
  Attrs c = Attrs::object();
  qspec::attr::set(c, C::attr::strides, {1, 1});
  qspec::attr::set(c, C::attr::padding, {1, 1});
  qspec::attr::set(c, C::attr::dilation, {1, 1});
  qspec::attr::set(c, C::attr::groups, 1);
  qspec::attr::set(c, C::attr::pad_value, -3);
  EXPECT_TRUE(problems(C::op, C::conv::mrt, c, {{"x", DType::I32}, {"w", DType::I32}}).empty());
  // The padded positions hold pad_value: a 1x1 kernel of 1 at padding 1 shows it in the corners.
  const auto y = run(C::op, C::conv::mrt, c,
                     {Tensor{"x", DType::I32, {1, 1, 1, 1}, {7}}, Tensor{"w", DType::I32, {1, 1, 1, 1}, {1}}});
  EXPECT_EQ(y[0].data, (std::vector<std::int64_t>{-3, -3, -3, -3, 7, -3, -3, -3, -3}));

  EXPECT_TRUE(uses<cat::tvm_qnn_dense>(cat::tvm_qnn_dense::attr::rounding));
  EXPECT_TRUE(uses<cat::tvm_qnn_concatenate>(cat::tvm_qnn_concatenate::attr::rounding));
  EXPECT_TRUE(uses<cat::tvm_qnn_add>(cat::tvm_qnn_add::attr::rounding));
  EXPECT_TRUE(uses<cat::tvm_qnn_avg_pool2d>(cat::tvm_qnn_avg_pool2d::attr::ceil_mode));
}

}  // namespace
