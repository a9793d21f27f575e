// A private op and vector family for the harness's own tests, registered only in test binaries.
//
// op "test.requantize": input x (int32) -> output y (out_dtype),
//   y = sat_out(round(x * multiplier / 2^shift) + output_zero_point)
// with conventions differing only in the rounding of ties, so a wrong backend's answer can be
// named. Written with plain __int128 arithmetic, independently of the reference library, so the
// pipeline is tested without depending on any clause family:
//   test.half_away   normative: ties away from zero
//   test.half_up     diagnostic only: ties toward +inf
//   test.half_even   diagnostic only: ties to even
//   test.needs_bias  diagnostic only: needs attribute "bias" (never applies: must be skipped)
// ERROR_IF multiplier < 0 (throws qspec::ref::ErrorIf: vectors mark such tests invalid);
// REQUIRE 0 <= shift <= 40 (throws RequireViolated).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "qspec/core/catalogue.h"
#include "qspec/core/json_values.h"
#include "qspec/ref/exact.h"
#include "qspec/refops.h"
#include "qspec/vecgen.h"

namespace qspec::harness_test {

enum class TieRule { Away, Up, Even };

// round(v / 2^s) under `rule`, exactly (floor division plus a remainder test).
inline std::int64_t divide_pot(__int128 v, int s, TieRule rule) {
  const __int128 d = static_cast<__int128>(1) << s;
  __int128 q = v / d, r = v % d;
  if (r < 0) {  // make q the floor and 0 <= r < d
    q -= 1;
    r += d;
  }
  const __int128 twice = 2 * r;
  if (twice > d) return static_cast<std::int64_t>(q + 1);
  if (twice < d) return static_cast<std::int64_t>(q);
  switch (rule) {  // an exact tie: q + 1/2
    case TieRule::Up: return static_cast<std::int64_t>(q + 1);
    case TieRule::Away: return static_cast<std::int64_t>(v > 0 ? q + 1 : q);
    case TieRule::Even: return static_cast<std::int64_t>((q % 2 == 0) ? q : q + 1);
  }
  return 0;
}

inline refops::OpFn test_requantize(TieRule rule, bool needs_bias = false) {
  return [rule, needs_bias](const refops::Attrs& attrs, const std::vector<Tensor>& inputs) {
    const std::int64_t m = attr_int(attrs, "multiplier");
    const std::int64_t s = attr_int(attrs, "shift");
    const std::int64_t zp = attr_int(attrs, "output_zero_point");
    if (needs_bias) (void)attr_int(attrs, "bias");
    const auto out = dtype_from_name(attr_str(attrs, "out_dtype"));
    if (!out) throw JsonValueError("attribute 'out_dtype': unknown dtype");
    ref::error_if(m < 0, "test.requantize: multiplier < 0");
    ref::require(s >= 0 && s <= 40, "test.requantize: 0 <= shift <= 40");
    if (inputs.size() != 1 || inputs[0].dtype != DType::I32) throw JsonValueError("test.requantize: one int32 input x");
    Tensor y{"y", *out, inputs[0].shape, {}};
    for (std::int64_t x : inputs[0].data) {
      std::int64_t v = divide_pot(static_cast<__int128>(x) * m, static_cast<int>(s), rule) + zp;
      v = std::max(dtype_min(*out), std::min(dtype_max(*out), v));
      y.data.push_back(v);
    }
    return std::vector<Tensor>{y};
  };
}

// The test op's catalogue entry: test binaries extend the op catalogue with it.
[[maybe_unused]] inline const bool kTestCatalogue = catalogue::register_extension("conformance/harness/harness_test_ops.h", R"json({
  "op": "test.requantize",
  "summary": "The harness tests' private requantization.",
  "spec": "conformance/harness/harness_test_ops.h",
  "elementwise": true,
  "inputs": [{"name": "x", "dtypes": ["int32"]}],
  "outputs": [{"name": "y", "dtypes": ["int8", "uint8", "int16", "int32"], "dtype_from": "out_dtype"}],
  "attributes": {
    "multiplier": {"type": "int"},
    "shift": {"type": "int"},
    "output_zero_point": {"type": "int"},
    "out_dtype": {"type": "dtype", "values": ["int8", "uint8", "int16", "uint16", "int32", "int64"]},
    "bias": {"type": "int"}
  },
  "conventions": [
    {"name": "test.half_away", "clauses": ["test.clause_a", "test.clause_b"], "description": "ties away from zero",
     "attributes": ["multiplier", "shift", "output_zero_point", "out_dtype"], "vectors": "test/test.half_away.json"},
    {"name": "test.half_up", "clauses": ["test.clause_a"], "description": "rounds ties toward +inf", "diagnostic_only": true,
     "attributes": ["multiplier", "shift", "output_zero_point", "out_dtype"]},
    {"name": "test.half_even", "clauses": ["test.clause_a"], "description": "rounds ties to even", "diagnostic_only": true,
     "attributes": ["multiplier", "shift", "output_zero_point", "out_dtype"]},
    {"name": "test.needs_bias", "clauses": ["test.clause_a"], "description": "needs a bias attribute", "diagnostic_only": true,
     "attributes": ["multiplier", "shift", "output_zero_point", "out_dtype", "bias"]}
  ]
})json");

QSPEC_REGISTER_REF_OP({.op = "test.requantize", .convention = "test.half_away", .fn = test_requantize(TieRule::Away)});
QSPEC_REGISTER_REF_OP({.op = "test.requantize", .convention = "test.half_up", .fn = test_requantize(TieRule::Up)});
QSPEC_REGISTER_REF_OP({.op = "test.requantize", .convention = "test.half_even", .fn = test_requantize(TieRule::Even)});
QSPEC_REGISTER_REF_OP({.op = "test.requantize", .convention = "test.needs_bias",
                       .fn = test_requantize(TieRule::Away, true)});

inline nlohmann::ordered_json requant_attrs(std::int64_t m, std::int64_t s, std::int64_t zp, const char* out) {
  return {{"multiplier", m}, {"shift", s}, {"output_zero_point", zp}, {"out_dtype", out}};
}

inline vecgen::Test test_case(std::string comment, std::vector<std::int64_t> xs, std::vector<std::string> flags = {},
                              nlohmann::ordered_json attrs = nlohmann::ordered_json::object(), bool invalid = false) {
  vecgen::Test t;
  t.comment = std::move(comment);
  t.flags = std::move(flags);
  t.inputs = {vecgen::scalar_vector("x", DType::I32, std::move(xs))};
  t.attributes = std::move(attrs);
  t.invalid = invalid;
  return t;
}

// The test family (not registered: tests pass it explicitly). tcIds in order:
//   1 positives only (ties up == ties away)      -> a half-up backend passes
//   2 negative tie -1.5                           -> half-up fails, matching test.half_up only
//   3 ties -4.5, -1.5 and 2                       -> half-up fails, matching test.half_up only
//   4 127 at int8                                 -> max-1 saturation fails, no convention matches
//   5 invalid: multiplier -1                      -> must be rejected
//   6 12345 (the wrong plugin reports ERROR)      -> valid, expected 9259 at int16
//   7 random values (seeded Rng)                  -> exercises Rng determinism
inline vecgen::Family test_family() {
  vecgen::Family f;
  f.file = "test/test.half_away.json";
  f.op = "test.requantize";
  f.convention = "test.half_away";
  f.clauses = {"test.clause_a", "test.clause_b"};
  f.notes = {{"NegativeTie", "x*M/2^s is exactly -k-0.5: half away and half up disagree"},
             {"Saturation", "the exact result exceeds the output type"},
             {"Invalid", "an ERROR_IF precondition fails"}};
  f.seed = 17;
  f.generate = [](vecgen::Rng& rng) {
    std::vector<vecgen::Group> gs(2);
    gs[0].attributes = requant_attrs(3, 2, 0, "int8");
    gs[0].tests.push_back(test_case("positive values and ties", {1, 2, 3, 4}));
    gs[0].tests.push_back(test_case("tie at -1.5", {-2}, {"NegativeTie"}));
    gs[0].tests.push_back(test_case("ties at -4.5 and -1.5", {-6, -2, 2}, {"NegativeTie"}));
    gs[0].tests.push_back(test_case("saturates at the top of int8", {127}, {"Saturation"}, requant_attrs(1, 0, 0, "int8")));
    gs[0].tests.push_back(test_case("negative multiplier", {1}, {"Invalid"}, {{"multiplier", -1}}, true));
    gs[1].attributes = requant_attrs(3, 2, 0, "int16");
    gs[1].tests.push_back(test_case("12345 (a backend crash trigger)", {12345}));
    std::vector<std::int64_t> xs;
    for (int i = 0; i < 8; ++i) xs.push_back(rng.uniform(-40, 40));
    gs[1].tests.push_back(test_case("random", xs));
    return gs;
  };
  return f;
}

}  // namespace qspec::harness_test
