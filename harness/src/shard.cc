// Parsing --shard I/N and GoogleTest's sharding variables; the status-file handshake.
#include "qspec/harness/shard.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace qspec::harness {
namespace {

// A non-negative decimal number without sign, spaces or overflow.
std::optional<std::size_t> parse_count(const std::string& s) {
  if (s.empty() || s.size() > 9) return std::nullopt;
  std::size_t v = 0;
  for (char ch : s) {
    if (ch < '0' || ch > '9') return std::nullopt;
    v = v * 10 + static_cast<std::size_t>(ch - '0');
  }
  return v;
}

}  // namespace

ShardSpec parse_shard(const std::string& text) {
  const auto slash = text.find('/');
  const auto bad = [&](const std::string& why) {
    return ShardError("--shard '" + text + "': " + why + " (expected I/N with 0 <= I < N, e.g. 0/4)");
  };
  if (slash == std::string::npos) throw bad("no '/'");
  const auto i = parse_count(text.substr(0, slash));
  const auto n = parse_count(text.substr(slash + 1));
  if (!i || !n) throw bad("not two decimal numbers");
  if (*n == 0) throw bad("N must be at least 1");
  if (*i >= *n) throw bad("the index is 0-based and must be below N");
  return ShardSpec{*i, *n};
}

std::string shard_text(const ShardSpec& s) { return std::to_string(s.index) + "/" + std::to_string(s.count); }

std::optional<ShardSpec> resolve_shard(const std::string& cli) {
  if (const char* status = std::getenv("GTEST_SHARD_STATUS_FILE"); status && *status) {
    // GoogleTest's handshake: the file's existence says "this program honours the shard variables".
    std::FILE* f = std::fopen(status, "a");
    if (!f)
      throw ShardError(std::string("cannot create GTEST_SHARD_STATUS_FILE ") + status + ": " + std::strerror(errno));
    std::fclose(f);
  }
  ShardSpec s;
  if (!cli.empty()) {
    s = parse_shard(cli);
  } else {
    const char* index = std::getenv("GTEST_SHARD_INDEX");
    const char* total = std::getenv("GTEST_TOTAL_SHARDS");
    if (!index && !total) return std::nullopt;
    if (!index || !total)
      throw ShardError(std::string("GTEST_") + (index ? "SHARD_INDEX" : "TOTAL_SHARDS") + " is set but GTEST_" +
                       (index ? "TOTAL_SHARDS" : "SHARD_INDEX") + " is not (set both, or use --shard I/N)");
    const auto i = parse_count(index);
    const auto n = parse_count(total);
    if (!i || !n || *n == 0 || *i >= *n)
      throw ShardError(std::string("invalid GTEST_SHARD_INDEX=") + index + " GTEST_TOTAL_SHARDS=" + total +
                       " (need 0 <= index < total)");
    s = ShardSpec{*i, *n};
  }
  if (s.count == 1) return std::nullopt;
  return s;
}

void clear_gtest_shard_environment() {
  ::unsetenv("GTEST_SHARD_INDEX");
  ::unsetenv("GTEST_TOTAL_SHARDS");
  ::unsetenv("GTEST_SHARD_STATUS_FILE");
}

}  // namespace qspec::harness
