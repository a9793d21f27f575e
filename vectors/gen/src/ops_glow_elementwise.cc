// Vector families of Glow's int8 Add, Max, Relu, AvgPool and the non-fused row-wise SLWS
// (spec/operators_glow.md), convention glow. Inputs only; expected outputs come from the reference.
#include <algorithm>
#include <string>
#include <vector>

#include "qspec/catalogue/keys.h"
#include "qspec/core/json_values.h"
#include "qspec/vecgen.h"

namespace qspec::vecgen {
namespace {

using OJ = nlohmann::ordered_json;

// A positive float32 2^e (1 + m 2^-23), from its bit fields (no host float arithmetic).
std::uint32_t scale_bits(Rng& r, int emin, int emax) {
  const auto e = static_cast<std::uint32_t>(r.uniform(emin, emax) + 127);
  const auto m = static_cast<std::uint32_t>(r.coin() ? r.uniform(0, (1 << 23) - 1) : r.uniform(0, 3) << 21);
  return (e << 23) | m;
}
// One tensor's random scale and offset (scale drawn first).
void params(Rng& r, OJ& a, const attr::F32& scale, const attr::Int& offset) {
  attr::set(a, scale, scale_bits(r, -8, 1));
  attr::set(a, offset, r.uniform(-128, 127));
}
// The same scale and offset as another tensor's.
void same_params(OJ& a, const attr::F32& scale, const attr::Int& offset, const attr::F32& from_scale,
                 const attr::Int& from_offset) {
  attr::set(a, scale, attr::get(a, from_scale));
  attr::set(a, offset, static_cast<std::int64_t>(attr::get(a, from_offset)));
}
Tensor int8s(Rng& r, std::string_view name, const std::vector<std::int64_t>& shape) {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  std::vector<std::int64_t> v;
  for (std::int64_t i = 0; i < n; ++i) v.push_back(r.uniform(-128, 127));
  return tensor(std::string(name), DType::I8, shape, v);
}

// Add and Max: the same tests (both read lhs, rhs and output parameters).
template <class Op>
std::vector<Group> binary(Rng& r) {
  using A = typename Op::attr;
  const auto all_params = [&r](OJ& a) {
    params(r, a, A::lhs_scale, A::lhs_offset);
    params(r, a, A::rhs_scale, A::rhs_offset);
    params(r, a, A::output_scale, A::output_offset);
  };
  std::vector<Test> t;
  for (int i = 0; i < 110; ++i) {
    OJ a = OJ::object();
    all_params(a);
    if (i < 5) {  // all at one scale: the plain integer operation
      same_params(a, A::rhs_scale, A::rhs_offset, A::lhs_scale, A::lhs_offset);
      same_params(a, A::output_scale, A::output_offset, A::lhs_scale, A::lhs_offset);
    }
    const std::vector<std::int64_t> shape{r.uniform(1, 3), r.uniform(1, 5)};
    t.push_back(test_case(i < 5 ? "equal parameters" : "random parameters",
                          {int8s(r, Op::in::lhs, shape), int8s(r, Op::in::rhs, shape)}, a));
  }
  OJ a = OJ::object();
  all_params(a);
  t.push_back(test_case("invalid: shapes differ", {int8s(r, Op::in::lhs, {2}), int8s(r, Op::in::rhs, {3})}, a, true));
  return {Group{OJ::object(), std::move(t)}};
}

std::vector<Group> relu(Rng& r) {
  using K = cat::glow_relu;
  using A = K::attr;
  std::vector<Test> t;
  for (int i = 0; i < 110; ++i) {
    OJ a = OJ::object();
    params(r, a, A::input_scale, A::input_offset);
    params(r, a, A::output_scale, A::output_offset);
    if (i < 10) same_params(a, A::output_scale, A::output_offset, A::input_scale, A::input_offset);  // max(x, offset)
    t.push_back(test_case(i < 10 ? "equal parameters (the fused Relu)" : "random parameters",
                          {int8s(r, K::in::x, {r.uniform(1, 12)})}, a));
  }
  OJ a = OJ::object();
  params(r, a, A::input_scale, A::input_offset);
  params(r, a, A::output_scale, A::output_offset);
  t.push_back(
      test_case("invalid: an int16 input", {tensor(std::string(K::in::x), DType::I16, {2}, {300, -1})}, a, true));
  return {Group{OJ::object(), std::move(t)}};
}

std::vector<Group> avg_pool(Rng& r) {
  using K = cat::glow_avg_pool;
  using A = K::attr;
  std::vector<Test> t;
  for (int i = 0; i < 110; ++i) {
    OJ a = OJ::object();
    params(r, a, A::input_scale, A::input_offset);
    params(r, a, A::output_scale, A::output_offset);
    const std::int64_t kh = r.uniform(1, 3), kw = r.uniform(1, 3);
    const std::int64_t pt = r.uniform(0, 2), pl = r.uniform(0, 2), pb = r.uniform(0, 2), pr = r.uniform(0, 2);
    attr::set(a, A::kernels, {kh, kw});
    attr::set(a, A::strides, {r.uniform(1, 2), r.uniform(1, 2)});
    attr::set(a, A::pads, {pt, pl, pb, pr});
    attr::set(a, A::count_include_pads, r.coin());
    const std::int64_t h = std::max<std::int64_t>(1, kh - pt - pb) + r.uniform(0, 2);
    const std::int64_t w = std::max<std::int64_t>(1, kw - pl - pr) + r.uniform(0, 2);
    t.push_back(test_case("random", {int8s(r, K::in::x, {1, h, w, r.uniform(1, 3)})}, a));
  }
  OJ a = OJ::object();
  params(r, a, A::input_scale, A::input_offset);
  params(r, a, A::output_scale, A::output_offset);
  attr::set(a, A::kernels, {2, 2});
  attr::set(a, A::pads, {2, 2, 0, 0});
  attr::set(a, A::count_include_pads, false);
  t.push_back(test_case("a window entirely in the padding, padding not counted: the output offset",
                        {int8s(r, K::in::x, {1, 1, 1, 1})}, a));
  attr::set(a, A::kernels, {3, 3});
  attr::set(a, A::pads, {0, 0, 0, 0});
  t.push_back(test_case("invalid: kernel larger than the input", {int8s(r, K::in::x, {1, 2, 2, 1})}, a, true));
  return {Group{OJ::object(), std::move(t)}};
}

// The non-fused row-wise SLWS's six input tensors, in the catalogue's order.
std::vector<Tensor> slws_inputs(std::int64_t rows, std::int64_t cols, const std::vector<std::int64_t>& data,
                                const std::vector<std::int64_t>& scales, const std::vector<std::int64_t>& offsets,
                                const std::vector<std::int64_t>& weights, const std::vector<std::int64_t>& indices,
                                const std::vector<std::int64_t>& lengths) {
  using In = cat::glow_rowwise_sparse_lengths_weighted_sum::in;
  const auto n = static_cast<std::int64_t>(weights.size());
  return {tensor(std::string(In::data), DType::U8, {rows, cols}, data),
          tensor(std::string(In::scales), DType::F32, {static_cast<std::int64_t>(scales.size())}, scales),
          tensor(std::string(In::offsets), DType::F32, {static_cast<std::int64_t>(offsets.size())}, offsets),
          tensor(std::string(In::weights), DType::F32, {n}, weights),
          tensor(std::string(In::indices), DType::I32, {static_cast<std::int64_t>(indices.size())}, indices),
          tensor(std::string(In::lengths), DType::I32, {static_cast<std::int64_t>(lengths.size())}, lengths)};
}

std::vector<Group> slws(Rng& r) {
  std::vector<Test> t;
  for (int i = 0; i < 110; ++i) {
    const std::int64_t rows = r.uniform(1, 4), cols = r.uniform(1, 4), n = r.uniform(0, 6);
    std::vector<std::int64_t> data, scales, offsets, weights, indices, lengths;
    for (std::int64_t k = 0; k < rows * cols; ++k) data.push_back(r.uniform(0, 255));
    for (std::int64_t k = 0; k < rows; ++k) {
      scales.push_back(scale_bits(r, -8, 0));
      const std::uint32_t magnitude = scale_bits(r, -4, 3);  // one draw per statement: magnitude, sign
      offsets.push_back(static_cast<std::int64_t>(magnitude | (r.coin() ? 0x80000000u : 0u)));
    }
    for (std::int64_t k = 0; k < n; ++k) {
      weights.push_back(scale_bits(r, -3, 2));
      indices.push_back(r.uniform(0, rows - 1));
    }
    std::int64_t left = n;
    while (left > 0) {
      const std::int64_t l = r.uniform(0, left);
      lengths.push_back(l);
      left -= l;
    }
    lengths.push_back(0);
    t.push_back(
        test_case("random", slws_inputs(rows, cols, data, scales, offsets, weights, indices, lengths), OJ::object()));
  }
  t.push_back(test_case("invalid: one scale for two rows",
                        slws_inputs(2, 1, {1, 2}, {0x3f800000}, {0, 0}, {0x3f800000}, {0}, {1}), OJ::object(), true));
  return {Group{OJ::object(), std::move(t)}};
}

// Each op's one convention, glow (the Interpreter).
template <class Op>
Family glow_family(std::uint64_t seed, std::vector<Group> (*generate)(Rng&)) {
  return family<Op>(Op::conv::glow, {}, seed, generate);
}

QSPEC_REGISTER_VECTOR_FAMILY(glow_family<cat::glow_add>(904, binary<cat::glow_add>));
QSPEC_REGISTER_VECTOR_FAMILY(glow_family<cat::glow_max>(905, binary<cat::glow_max>));
QSPEC_REGISTER_VECTOR_FAMILY(glow_family<cat::glow_relu>(906, relu));
QSPEC_REGISTER_VECTOR_FAMILY(glow_family<cat::glow_avg_pool>(907, avg_pool));
QSPEC_REGISTER_VECTOR_FAMILY(glow_family<cat::glow_rowwise_sparse_lengths_weighted_sum>(908, slws));

}  // namespace
}  // namespace qspec::vecgen
