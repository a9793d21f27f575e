// Registry of golden-vector families: each family generates test inputs; expected outputs come
// from the reference op registered for (op, convention) (qspec/refops.h), never from the family.
//
// A family is one vector file, vectors/<file>. Generation must be deterministic across
// machines: use only qspec::vecgen::Rng (std::mt19937_64 is fully specified by the standard,
// but std::uniform_int_distribution is not, so Rng does its own range reduction).
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "qspec/core/tensor.h"

namespace qspec::vecgen {

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : engine_(seed) {}
  std::uint64_t next() { return engine_(); }
  // Uniform integer in [lo, hi] (inclusive), by rejection sampling: identical on every platform.
  std::int64_t uniform(std::int64_t lo, std::int64_t hi);
  bool coin() { return (next() & 1) != 0; }
  // Picks one element of a non-empty list.
  template <class T>
  const T& pick(const std::vector<T>& v) {
    return v[static_cast<std::size_t>(uniform(0, static_cast<std::int64_t>(v.size()) - 1))];
  }

 private:
  std::mt19937_64 engine_;
};

struct Test {
  std::string comment;
  std::vector<std::string> flags;                                        // each must be explained in Family::notes
  std::vector<Tensor> inputs;                                            // named, in the op's input order
  nlohmann::ordered_json attributes = nlohmann::ordered_json::object();  // merged over the group's
  bool invalid = false;  // true: the reference must reject (ERROR_IF) -> "invalid"
};

struct Group {
  nlohmann::ordered_json attributes = nlohmann::ordered_json::object();
  std::vector<Test> tests;
};

// A family as a generator file registers it: (op, convention) names a normative pair of the op
// catalogue (qspec/core/catalogue.h), which gives the family its vector file and clause IDs.
struct Family {
  std::string op;                                          // catalogue op
  std::string convention;                                  // one of its normative conventions
  std::vector<std::pair<std::string, std::string>> notes;  // flag -> what it means
  std::uint64_t seed = 1;
  std::function<std::vector<Group>(Rng&)> generate;
  // Filled from the catalogue when the family is registered (never by the generator file).
  std::string file = {};                  // path under vectors/, e.g. "requantize/gemmlowp.double_round.json"
  std::vector<std::string> clauses = {};  // clause IDs covered
};

// Registers at static-initialization time. families() joins them with the catalogue on first use:
// a pair the catalogue lacks or calls diagnostic-only, or registered twice, then aborts the program.
bool register_family(Family f);
const std::vector<Family>& families();

// The family of (Op, convention) named through the catalogue's typed names (qspec/catalogue/keys.h):
// family<cat::requantize>(cat::requantize::conv::tvm_upward, notes, seed, generate).
template <class Op>
Family family(std::string_view convention, std::vector<std::pair<std::string, std::string>> notes, std::uint64_t seed,
              std::function<std::vector<Group>(Rng&)> generate) {
  return {.op = std::string(Op::op),
          .convention = std::string(convention),
          .notes = std::move(notes),
          .seed = seed,
          .generate = std::move(generate)};
}

// Tensor construction shorthands for generators.
Tensor tensor(std::string name, DType t, std::vector<std::int64_t> shape, std::vector<std::int64_t> data);
Tensor scalar_vector(std::string name, DType t, std::vector<std::int64_t> data);  // shape {n}

}  // namespace qspec::vecgen

#define QSPEC_VECGEN_CAT2(a, b) a##b
#define QSPEC_VECGEN_CAT(a, b) QSPEC_VECGEN_CAT2(a, b)
#define QSPEC_REGISTER_VECTOR_FAMILY(...)                                            \
  [[maybe_unused]] static const bool QSPEC_VECGEN_CAT(qspec_vecfam_reg_, __LINE__) = \
      ::qspec::vecgen::register_family(__VA_ARGS__)
