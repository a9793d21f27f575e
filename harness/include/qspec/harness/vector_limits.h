// Hard limits on a vector file, enforced by the loader before the allocations they guard.
//
// A vector file may be hand-edited, truncated or written by another tool, so nothing in it is
// trusted to be small: every quantity that sizes an allocation or a recursion is bounded here,
// and the loader checks each bound before it allocates (docs/vector-format.md "Limits").
//
// The shipped vectors (106 files, 11.6 MB) reach at most: 389,365 bytes per file
// (dequantize/tvm.dequantize.json), nesting depth 8, 58,845 JSON values per file, 701 tests
// per file, 5,148 merged attribute values per file, rank 6, 600 per dimension, 13,298 elements
// per tensor, 74,895 tensor elements per file, strings of 206 bytes (the element counts since the
// qlinear "wide" draws). Every size limit (bytes, values, tests) is at least 20 times that, the
// element limits at least 10 times, so a generator may grow well past today's
// families; the structural ones leave room for any sensible file (depth 32 where the format
// needs 8, rank 8 above TOSA's and TFLite's 6, strings of 4 KiB for one-line comments). What an
// accepted file can cost stays bounded: 16 MiB of text, a DOM of at most 2^21 values (measured peak RSS of a
// loader process: ~260 MB for 2^21 empty arrays, the worst shape; ~120 MB for 2^21 numbers),
// 2^18 attribute values copied into tests and 2^20 tensor elements (8 MiB).
#pragma once

#include <cstddef>
#include <cstdint>

namespace qspec::harness::vector_limits {

// Bytes in a file (checked before the file is read). 43x the biggest shipped file; more than
// all shipped vectors together.
inline constexpr std::uint64_t kMaxFileBytes = std::uint64_t{16} << 20;

// Nesting depth of JSON arrays and objects (the document object is level 1; a tensor's data
// array is level 8). Checked while parsing, before the nested value exists, so no code that
// walks the document (the DOM's destructor, the schema validator, dump()) recurses deeper.
inline constexpr std::size_t kMaxJsonDepth = 32;

// JSON values (scalars, arrays and objects, each counted once) in a file. Bounds the DOM.
inline constexpr std::size_t kMaxJsonValues = std::size_t{1} << 21;

// Bytes in one JSON string or object key (after unescaping).
inline constexpr std::size_t kMaxStringBytes = 4096;

// Tests in a file, over all groups.
inline constexpr std::size_t kMaxTestsPerFile = std::size_t{1} << 16;

// JSON values in the attributes of all tests of a file together, counting for each test its
// group's attributes plus its own. Each loaded test holds its own merged copy (the backend gets
// one object per test), so without this bound a group's attributes of 2^20 values shared by 2^16
// tests would cost 2^36 values after loading a file that is within every other limit.
inline constexpr std::size_t kMaxAttributeValuesPerFile = std::size_t{1} << 18;

// Dimensions of a tensor's shape.
inline constexpr std::size_t kMaxRank = 8;

// Elements of one tensor (the product of its shape), and the bound on each dimension. The
// product is accumulated with each factor bounded first, so it cannot overflow: a declared
// shape of [2^40, 2^40] is an error, not a multiplication that wraps or an allocation.
inline constexpr std::int64_t kMaxTensorElements = std::int64_t{1} << 18;

// Elements of all tensors of a file together (inputs and expected outputs of every test).
inline constexpr std::int64_t kMaxFileElements = std::int64_t{1} << 20;

}  // namespace qspec::harness::vector_limits
