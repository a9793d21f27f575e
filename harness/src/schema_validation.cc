// valijson-backed validation of vector files against vectors/schema/*.schema.json.
#define VALIJSON_USE_EXCEPTIONS 1
// GCC 12 with -fsanitize=address reports a false -Wmaybe-uninitialized inside std::function
// as instantiated by std::regex (valijson's "pattern" keyword); the code is the library's.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include "qspec/harness/schema_validation.h"

#include <fstream>
#include <utility>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>

#include "qspec/harness/json_precheck.h"

namespace qspec::harness {
namespace fs = std::filesystem;

namespace {
constexpr const char* kCommonSchema = "vectors.schema.json";
constexpr const char* kSuffix = ".schema.json";

nlohmann::json read_json(const fs::path& p) {
  std::ifstream in(p);
  if (!in) throw std::runtime_error("cannot open schema " + p.string());
  try {
    return nlohmann::json::parse(in);
  } catch (const std::exception& e) {
    throw std::runtime_error("schema " + p.string() + " is not valid JSON: " + e.what());
  }
}

// valijson's context is ["<root>", "[testGroups]", "[0]", ...]; print it as a JSON Pointer.
std::string pointer(const std::vector<std::string>& context) {
  std::string out;
  for (const auto& c : context) {
    if (c == "<root>") continue;
    std::string s = c;
    if (s.size() >= 2 && s.front() == '[' && s.back() == ']') s = s.substr(1, s.size() - 2);
    if (s.size() >= 2 && s.front() == '"' && s.back() == '"') s = s.substr(1, s.size() - 2);
    out += "/" + s;
  }
  return out.empty() ? "/" : out;
}
}  // namespace

struct SchemaSet::Impl {
  struct Entry {
    std::string file;
    nlohmann::json doc;  // valijson keeps references into the schema document
    valijson::Schema schema;
  };
  std::unique_ptr<Entry> common;
  std::map<std::string, std::unique_ptr<Entry>> per_op;

  static std::unique_ptr<Entry> load(const fs::path& p) {
    auto e = std::make_unique<Entry>();
    e->file = p.filename().string();
    e->doc = read_json(p);
    try {
      valijson::SchemaParser parser;
      valijson::adapters::NlohmannJsonAdapter adapter(e->doc);
      parser.populateSchema(adapter, e->schema);
    } catch (const std::exception& ex) {
      throw std::runtime_error("schema " + p.string() + " cannot be used: " + ex.what());
    }
    return e;
  }

  static void check(const Entry& e, const nlohmann::json& doc, std::vector<std::string>& out) {
    valijson::Validator validator;
    valijson::ValidationResults results;
    valijson::adapters::NlohmannJsonAdapter target(doc);
    if (validator.validate(e.schema, target, &results)) return;
    // valijson reports a violation and then every enclosing node ("Failed to validate item #0
    // in array"); drop those wrappers: "Failed to validate ..." at a path enclosing another error.
    std::vector<std::pair<std::string, std::string>> errors;
    valijson::ValidationResults::Error err;
    while (results.popError(err)) errors.emplace_back(pointer(err.context), err.description);
    auto encloses = [](const std::string& outer, const std::string& inner) {
      if (outer == "/") return inner != "/";
      return inner.size() > outer.size() && inner.compare(0, outer.size(), outer) == 0 && inner[outer.size()] == '/';
    };
    for (const auto& [path, what] : errors) {
      bool enclosing = false;
      for (const auto& other : errors) enclosing = enclosing || encloses(path, other.first);
      if (!enclosing || what.rfind("Failed to validate", 0) != 0) out.push_back(e.file + ": at " + path + ": " + what);
    }
  }
};

SchemaSet::SchemaSet(const fs::path& dir) : impl_(std::make_unique<Impl>()) {
  const fs::path common = dir / kCommonSchema;
  if (!fs::exists(common)) throw std::runtime_error("common vector schema missing: " + common.string());
  impl_->common = Impl::load(common);
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name == kCommonSchema || name.size() <= std::string(kSuffix).size() ||
        name.compare(name.size() - std::string(kSuffix).size(), std::string::npos, kSuffix) != 0)
      continue;
    impl_->per_op[name.substr(0, name.size() - std::string(kSuffix).size())] = Impl::load(entry.path());
  }
}

SchemaSet::~SchemaSet() = default;

std::vector<std::string> SchemaSet::validate(const std::string& text) const {
  std::vector<std::string> out;
  // The loader's limits first (vector_limits.h): the validator walks the document recursively,
  // so a deeply nested or oversized file must never become a DOM here either.
  if (const auto e = precheck_json(text))
    return {(e->tc_id ? "tcId " + std::to_string(*e->tc_id) + ": " : std::string()) +
            (e->json_path.empty() ? std::string() : "at " + e->json_path + ": ") + e->problem};
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const std::exception& e) {
    return {std::string("not valid JSON: ") + e.what()};
  }
  Impl::check(*impl_->common, doc, out);
  if (doc.is_object() && doc.contains("op") && doc["op"].is_string()) {
    auto it = impl_->per_op.find(doc["op"].get<std::string>());
    if (it != impl_->per_op.end()) Impl::check(*it->second, doc, out);
  }
  return out;
}

std::vector<std::string> SchemaSet::op_schemas() const {
  std::vector<std::string> v;
  for (const auto& [op, e] : impl_->per_op) v.push_back(op);
  return v;
}

}  // namespace qspec::harness
