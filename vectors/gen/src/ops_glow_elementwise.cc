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
void params(Rng& r, OJ& a, const char* tensor) {
  a[std::string(tensor) + "_scale"] = f32_to_json(scale_bits(r, -8, 1));
  a[std::string(tensor) + "_offset"] = r.uniform(-128, 127);
}
Tensor int8s(Rng& r, const char* name, const std::vector<std::int64_t>& shape) {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  std::vector<std::int64_t> v;
  for (std::int64_t i = 0; i < n; ++i) v.push_back(r.uniform(-128, 127));
  return tensor(name, DType::I8, shape, v);
}

std::vector<Group> binary(Rng& r) {
  std::vector<Test> t;
  for (int i = 0; i < 110; ++i) {
    OJ a = OJ::object();
    for (const char* p : {"lhs", "rhs", "output"}) params(r, a, p);
    if (i < 5)
      a["rhs_scale"] = a["lhs_scale"], a["rhs_offset"] = a["lhs_offset"], a["output_scale"] = a["lhs_scale"],
      a["output_offset"] = a["lhs_offset"];  // all at one scale: the plain integer operation
    const std::vector<std::int64_t> shape{r.uniform(1, 3), r.uniform(1, 5)};
    t.push_back(test_case(i < 5 ? "equal parameters" : "random parameters",
                          {int8s(r, "lhs", shape), int8s(r, "rhs", shape)}, a));
  }
  OJ a = OJ::object();
  for (const char* p : {"lhs", "rhs", "output"}) params(r, a, p);
  t.push_back(test_case("invalid: shapes differ", {int8s(r, "lhs", {2}), int8s(r, "rhs", {3})}, a, true));
  return {Group{OJ::object(), std::move(t)}};
}

std::vector<Group> relu(Rng& r) {
  std::vector<Test> t;
  for (int i = 0; i < 110; ++i) {
    OJ a = OJ::object();
    params(r, a, "input");
    params(r, a, "output");
    if (i < 10) a["output_scale"] = a["input_scale"], a["output_offset"] = a["input_offset"];  // fused: max(x, offset)
    t.push_back(test_case(i < 10 ? "equal parameters (the fused Relu)" : "random parameters",
                          {int8s(r, "x", {r.uniform(1, 12)})}, a));
  }
  OJ a = OJ::object();
  params(r, a, "input");
  params(r, a, "output");
  t.push_back(test_case("invalid: an int16 input", {tensor("x", DType::I16, {2}, {300, -1})}, a, true));
  return {Group{OJ::object(), std::move(t)}};
}

std::vector<Group> avg_pool(Rng& r) {
  std::vector<Test> t;
  for (int i = 0; i < 110; ++i) {
    OJ a = OJ::object();
    params(r, a, "input");
    params(r, a, "output");
    const std::int64_t kh = r.uniform(1, 3), kw = r.uniform(1, 3);
    const std::int64_t pt = r.uniform(0, 2), pl = r.uniform(0, 2), pb = r.uniform(0, 2), pr = r.uniform(0, 2);
    a["kernels"] = {kh, kw};
    a["strides"] = {r.uniform(1, 2), r.uniform(1, 2)};
    a["pads"] = {pt, pl, pb, pr};
    a["count_include_pads"] = r.coin();
    const std::int64_t h = std::max<std::int64_t>(1, kh - pt - pb) + r.uniform(0, 2);
    const std::int64_t w = std::max<std::int64_t>(1, kw - pl - pr) + r.uniform(0, 2);
    t.push_back(test_case("random", {int8s(r, "x", {1, h, w, r.uniform(1, 3)})}, a));
  }
  OJ a = OJ::object();
  params(r, a, "input");
  params(r, a, "output");
  a["kernels"] = {2, 2};
  a["pads"] = {2, 2, 0, 0};
  a["count_include_pads"] = false;
  t.push_back(test_case("a window entirely in the padding, padding not counted: the output offset",
                        {int8s(r, "x", {1, 1, 1, 1})}, a));
  a["kernels"] = {3, 3};
  a["pads"] = {0, 0, 0, 0};
  t.push_back(test_case("invalid: kernel larger than the input", {int8s(r, "x", {1, 2, 2, 1})}, a, true));
  return {Group{OJ::object(), std::move(t)}};
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
    t.push_back(test_case("random",
                          {tensor("data", DType::U8, {rows, cols}, data), tensor("scales", DType::F32, {rows}, scales),
                           tensor("offsets", DType::F32, {rows}, offsets), tensor("weights", DType::F32, {n}, weights),
                           tensor("indices", DType::I32, {n}, indices),
                           tensor("lengths", DType::I32, {static_cast<std::int64_t>(lengths.size())}, lengths)},
                          OJ::object()));
  }
  t.push_back(test_case("invalid: one scale for two rows",
                        {tensor("data", DType::U8, {2, 1}, {1, 2}), tensor("scales", DType::F32, {1}, {0x3f800000}),
                         tensor("offsets", DType::F32, {2}, {0, 0}), tensor("weights", DType::F32, {1}, {0x3f800000}),
                         tensor("indices", DType::I32, {1}, {0}), tensor("lengths", DType::I32, {1}, {1})},
                        OJ::object(), true));
  return {Group{OJ::object(), std::move(t)}};
}

// Each op's one convention, glow (the Interpreter).
template <class Op>
Family glow_family(std::uint64_t seed, std::vector<Group> (*generate)(Rng&)) {
  return family<Op>(Op::conv::glow, {}, seed, generate);
}

QSPEC_REGISTER_VECTOR_FAMILY(glow_family<cat::glow_add>(904, binary));
QSPEC_REGISTER_VECTOR_FAMILY(glow_family<cat::glow_max>(905, binary));
QSPEC_REGISTER_VECTOR_FAMILY(glow_family<cat::glow_relu>(906, relu));
QSPEC_REGISTER_VECTOR_FAMILY(glow_family<cat::glow_avg_pool>(907, avg_pool));
QSPEC_REGISTER_VECTOR_FAMILY(glow_family<cat::glow_rowwise_sparse_lengths_weighted_sum>(908, slws));

}  // namespace
}  // namespace qspec::vecgen
