// libFuzzer target: the vector loader, its streaming pre-pass and the schema validator on arbitrary bytes.
//
// Properties checked on every input (a violation aborts, which libFuzzer records as a crash):
//  - parse_vector_file either returns or throws VectorFileError: no other exception, no crash,
//    no sanitizer report, no allocation beyond libFuzzer's -rss_limit_mb / -malloc_limit_mb;
//  - the pre-pass and the DOM parser agree: text the pre-pass accepts always parses, within the
//    depth limit;
//  - an accepted file stays within every limit of vector_limits.h;
//  - SchemaSet::validate returns messages and never throws.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "qspec/harness/json_precheck.h"
#include "qspec/harness/schema_validation.h"
#include "qspec/harness/vector_file.h"
#include "qspec/harness/vector_limits.h"

namespace {
namespace h = qspec::harness;
namespace lim = qspec::harness::vector_limits;

[[noreturn]] void violated(const char* what) {
  std::fprintf(stderr, "vector_loader_fuzzer: property violated: %s\n", what);
  std::abort();
}

std::size_t depth(const nlohmann::ordered_json& j) {
  // Recursion is safe here: the pre-pass bounded the depth (and this checks that it did).
  std::size_t d = 0;
  if (j.is_structured())
    for (const auto& v : j) d = std::max(d, depth(v));
  return j.is_structured() ? d + 1 : 0;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const h::SchemaSet schemas(QSPEC_FUZZ_SCHEMA_DIR);
  const std::string text(reinterpret_cast<const char*>(data), size);

  if (!h::precheck_json(text)) {
    nlohmann::ordered_json doc;
    try {
      doc = nlohmann::ordered_json::parse(text);
    } catch (const std::exception&) {
      violated("the pre-pass accepted text that nlohmann cannot parse");
    }
    if (depth(doc) > lim::kMaxJsonDepth) violated("the pre-pass accepted a document deeper than kMaxJsonDepth");
  }

  try {
    const h::VectorFile f = h::parse_vector_file(text, "fuzz.json");
    if (f.tests.size() > lim::kMaxTestsPerFile) violated("accepted more tests than kMaxTestsPerFile");
    std::int64_t elements = 0;
    for (const auto& t : f.tests)
      for (const auto* ts : {&t.inputs, &t.expected})
        for (const auto& x : *ts) {
          if (x.shape.size() > lim::kMaxRank) violated("accepted a rank above kMaxRank");
          if (x.numel() > lim::kMaxTensorElements || static_cast<std::int64_t>(x.data.size()) != x.numel())
            violated("accepted a tensor whose data does not match a bounded shape");
          elements += x.numel();
        }
    if (elements > lim::kMaxFileElements) violated("accepted more elements than kMaxFileElements");
    h::check_op_known(f, {{f.op, f.convention}}, "the fuzzer");  // must not throw for its own pair
  } catch (const h::VectorFileError&) {
  }

  (void)schemas.validate(text);
  return 0;
}
