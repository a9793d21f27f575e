// FNV-1a hashes of test identities and their text form (test_identity.h).
#include "qspec/harness/test_identity.h"

#include <cstdio>

namespace qspec::harness {
namespace {
void fnv(std::uint64_t& h, const void* p, std::size_t n) {
  const auto* b = static_cast<const unsigned char*>(p);
  for (std::size_t i = 0; i < n; ++i) {
    h ^= b[i];
    h *= 1099511628211ull;
  }
}
void fnv_field(std::uint64_t& h, const std::string& s) {
  fnv(h, s.data(), s.size());
  fnv(h, "", 1);  // a terminator: "ab"+"c" differs from "a"+"bc"
}
}  // namespace

std::uint64_t test_identity_hash(std::size_t position, const std::string& file, std::int64_t tc_id,
                                 const std::string& op, const std::string& convention) {
  std::uint64_t h = 14695981039346656037ull;
  const auto pos = static_cast<std::uint64_t>(position);
  fnv(h, &pos, sizeof pos);
  fnv(h, &tc_id, sizeof tc_id);
  fnv_field(h, file);
  fnv_field(h, op);
  fnv_field(h, convention);
  return h;
}

std::string identity_digest_text(std::uint64_t digest) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "sum64:%016llx", static_cast<unsigned long long>(digest));
  return buf;
}

}  // namespace qspec::harness
