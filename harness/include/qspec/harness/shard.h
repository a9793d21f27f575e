// Shards: split one run (or sweep) into N deterministic, disjoint, balanced parts for N machines.
//
// A shard is "I/N" with 0 <= I < N (0-based like GTEST_SHARD_INDEX and a Kubernetes Indexed
// Job's JOB_COMPLETION_INDEX). The work is a list in a fixed order (the selected tests of
// `qspec run`, sorted by file name then file order; the (property, seed) units of `qspec sweep`)
// and shard I takes the units at positions p with p % N == I: round-robin.
//
// Why round-robin over the ordered list rather than a hash of "file#tcId": it is exact (shard
// sizes differ by at most one, even for a 10-test --filter on 8 machines, where a hash leaves
// some shards empty and others double), and it deals every vector file out across all shards,
// so a file of expensive tests (conv2d) costs every shard the same. Its one drawback, that adding
// a test moves later tests to other shards, does not matter: every shard of a run must see the
// same vector set, which `qspec report merge` checks (the selection fingerprint).
#pragma once

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>

namespace qspec::harness {

struct ShardSpec {
  std::size_t index = 0;  // 0-based
  std::size_t count = 1;
  bool operator==(const ShardSpec&) const = default;
};

// A malformed --shard value or GTEST_* sharding variable (a usage error: exit status 2).
class ShardError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// "I/N" -> {I, N}; throws ShardError unless 0 <= I < N and N >= 1 (decimal digits only).
ShardSpec parse_shard(const std::string& text);

// "I/N".
std::string shard_text(const ShardSpec& s);

// True if position `unit` of the ordered work list belongs to shard `s` (round-robin).
inline bool in_shard(const ShardSpec& s, std::size_t unit) { return unit % s.count == s.index; }

// The number of positions of a list of `total` that shard `s` owns.
inline std::size_t shard_size(const ShardSpec& s, std::size_t total) {
  return total > s.index ? (total - s.index + s.count - 1) / s.count : 0;
}

// The shard a command runs: `cli` ("I/N" from --shard) when non-empty, else the GoogleTest
// variables GTEST_SHARD_INDEX / GTEST_TOTAL_SHARDS when both are set (one without the other, or
// an index outside [0, total), is a ShardError, as in GoogleTest). A single shard (N = 1) is no
// sharding: nullopt. Like a GoogleTest binary, it creates (touches) the file named by
// GTEST_SHARD_STATUS_FILE when that variable is set, to tell the job system that sharding is
// supported; a file that cannot be created is a ShardError.
std::optional<ShardSpec> resolve_shard(const std::string& cli);

// Removes GTEST_SHARD_INDEX, GTEST_TOTAL_SHARDS and GTEST_SHARD_STATUS_FILE from this process's
// environment, so that GoogleTest binaries it starts (the property binaries of `qspec sweep`)
// run their whole --gtest_filter rather than a shard of it.
void clear_gtest_shard_environment();

}  // namespace qspec::harness
