// The identity digest of a set of tests: what `qspec report merge` checks so that shards merge
// only when they hold exactly the tests of the run they claim to be parts of.
//
// Each test contributes a 64-bit hash of its identity (selection position, file, tcId, op,
// convention; docs/CONFORMANCE.md 2.2: a test is identified by file and tcId); a set's digest is
// the sum of its tests' hashes modulo 2^64. A sum, unlike a hash of a sequence, is the same in
// any order and splits exactly over shards: the shards' digests add up to the selection's. A run
// records the digest of its whole selection (before --shard) and its report records the digest
// of the tests it holds; a renamed, lost or invented test changes the second without the first.
// It guards against accidents (a hand-edited or mixed-up report), not against forgery.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace qspec::harness {

std::uint64_t test_identity_hash(std::size_t position, const std::string& file, std::int64_t tc_id,
                                 const std::string& op, const std::string& convention);

// "sum64:0123456789abcdef", as reports record a digest.
std::string identity_digest_text(std::uint64_t digest);

}  // namespace qspec::harness
