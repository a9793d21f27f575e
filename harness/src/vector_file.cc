// Loader for qspec-vectors/1 files: structural checks with file, tcId and JSON-path error messages.
#include "qspec/harness/vector_file.h"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "qspec/core/json_values.h"

namespace qspec::harness {
namespace fs = std::filesystem;
using OJ = nlohmann::ordered_json;

VectorFileError::VectorFileError(std::string file, std::optional<std::int64_t> tc_id, std::string json_path, std::string problem)
    : std::runtime_error(file + ": " + (tc_id ? "tcId " + std::to_string(*tc_id) + ": " : std::string()) +
                         (json_path.empty() ? std::string() : "at " + json_path + ": ") + problem),
      file_(std::move(file)), tc_id_(tc_id), json_path_(std::move(json_path)), problem_(std::move(problem)) {}

OJ merge_attributes(const OJ& base, const OJ& over) {
  OJ merged = base.is_object() ? base : OJ::object();
  if (over.is_object())
    for (const auto& [k, v] : over.items()) merged[k] = v;
  return merged;
}

namespace {

// Escapes a key for a JSON Pointer (RFC 6901).
std::string pointer_token(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

struct Ctx {
  const std::string& file;
  std::optional<std::int64_t> tc_id;
  [[noreturn]] void fail(const std::string& path, const std::string& problem) const {
    throw VectorFileError(file, tc_id, path, problem);
  }
  const OJ& field(const OJ& obj, const std::string& path, const char* key) const {
    if (!obj.contains(key)) fail(path, std::string("missing field \"") + key + "\"");
    return obj[key];
  }
  std::string string_field(const OJ& obj, const std::string& path, const char* key, bool nonempty = true) const {
    const OJ& v = field(obj, path, key);
    if (!v.is_string()) fail(path + "/" + key, std::string("expected a string, got ") + v.type_name());
    if (nonempty && v.get<std::string>().empty()) fail(path + "/" + key, "must not be empty");
    return v.get<std::string>();
  }
  std::vector<std::string> string_list(const OJ& obj, const std::string& path, const char* key) const {
    const OJ& v = field(obj, path, key);
    if (!v.is_array()) fail(path + "/" + key, std::string("expected an array of strings, got ") + v.type_name());
    std::vector<std::string> out;
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (!v[i].is_string()) fail(path + "/" + key + "/" + std::to_string(i), "expected a string");
      out.push_back(v[i].get<std::string>());
    }
    return out;
  }
  std::vector<Tensor> tensors(const OJ& obj, const std::string& path) const {
    if (!obj.is_object()) fail(path, std::string("expected an object of named tensors, got ") + obj.type_name());
    std::vector<Tensor> out;
    for (const auto& [name, t] : obj.items()) {
      const std::string tpath = path + "/" + pointer_token(name);
      try {
        out.push_back(json_to_tensor(name, t));
      } catch (const JsonValueError& e) {
        fail(tpath, e.what());
      }
    }
    return out;
  }
};

std::pair<int, int> line_and_column(const std::string& text, std::size_t byte) {
  int line = 1, col = 1;
  for (std::size_t i = 0; i < text.size() && i + 1 < byte; ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return {line, col};
}

const std::set<std::string> kTopKeys = {"schema", "op", "convention", "clauses", "generator", "numberOfTests", "notes", "testGroups"};
const std::set<std::string> kTestKeys = {"tcId", "comment", "flags", "result", "attributes", "inputs", "expected"};

}  // namespace

VectorFile parse_vector_file(const std::string& text, const std::string& display_name) {
  OJ doc;
  try {
    doc = OJ::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    const auto [line, col] = line_and_column(text, e.byte);
    throw VectorFileError(display_name, std::nullopt, "",
                          "not valid JSON (line " + std::to_string(line) + ", column " + std::to_string(col) + "): " + e.what());
  }
  Ctx top{display_name, std::nullopt};
  if (!doc.is_object()) top.fail("", "the file must hold a JSON object");
  for (const auto& [k, v] : doc.items())
    if (!kTopKeys.count(k)) top.fail("/" + pointer_token(k), "unknown top-level field \"" + k + "\"");

  VectorFile f;
  f.display_name = display_name;
  f.schema = top.string_field(doc, "", "schema");
  if (f.schema != kVectorSchemaId)
    top.fail("/schema", "unsupported schema \"" + f.schema + "\" (this qspec reads \"" + kVectorSchemaId + "\")");
  f.op = top.string_field(doc, "", "op");
  f.convention = top.string_field(doc, "", "convention");
  f.clauses = top.string_list(doc, "", "clauses");
  if (f.clauses.empty()) top.fail("/clauses", "must list at least one clause ID");
  f.generator = top.field(doc, "", "generator");
  if (!f.generator.is_object()) top.fail("/generator", "expected an object");
  const OJ& n = top.field(doc, "", "numberOfTests");
  if (!n.is_number_integer() || n.get<std::int64_t>() < 0) top.fail("/numberOfTests", "expected a non-negative integer");
  f.number_of_tests = n.get<std::int64_t>();
  const OJ& notes = top.field(doc, "", "notes");
  if (!notes.is_object()) top.fail("/notes", "expected an object mapping each flag to its meaning");
  std::set<std::string> known_flags;
  for (const auto& [flag, meaning] : notes.items()) {
    if (!meaning.is_string() || meaning.get<std::string>().empty())
      top.fail("/notes/" + pointer_token(flag), "every flag needs a non-empty explanation string");
    f.notes.emplace_back(flag, meaning.get<std::string>());
    known_flags.insert(flag);
  }

  const OJ& groups = top.field(doc, "", "testGroups");
  if (!groups.is_array()) top.fail("/testGroups", "expected an array");
  std::set<std::int64_t> seen;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const std::string gpath = "/testGroups/" + std::to_string(g);
    const OJ& group = groups[g];
    if (!group.is_object()) top.fail(gpath, "expected an object");
    for (const auto& [k, v] : group.items())
      if (k != "attributes" && k != "tests") top.fail(gpath + "/" + pointer_token(k), "unknown group field \"" + k + "\"");
    const OJ& gattrs = top.field(group, gpath, "attributes");
    if (!gattrs.is_object()) top.fail(gpath + "/attributes", "expected an object");
    const OJ& tests = top.field(group, gpath, "tests");
    if (!tests.is_array()) top.fail(gpath + "/tests", "expected an array");
    for (std::size_t t = 0; t < tests.size(); ++t) {
      const std::string tpath = gpath + "/tests/" + std::to_string(t);
      const OJ& tj = tests[t];
      Ctx c{display_name, std::nullopt};
      if (!tj.is_object()) c.fail(tpath, "expected an object");
      if (tj.contains("tcId") && tj["tcId"].is_number_integer()) c.tc_id = tj["tcId"].get<std::int64_t>();
      const OJ& id = c.field(tj, tpath, "tcId");
      if (!id.is_number_integer() || id.get<std::int64_t>() < 1) c.fail(tpath + "/tcId", "expected a positive integer");
      if (!seen.insert(*c.tc_id).second) c.fail(tpath + "/tcId", "duplicate tcId");
      for (const auto& [k, v] : tj.items())
        if (!kTestKeys.count(k)) c.fail(tpath + "/" + pointer_token(k), "unknown test field \"" + k + "\"");
      VectorTest vt;
      vt.tc_id = *c.tc_id;
      vt.json_path = tpath;
      vt.comment = c.string_field(tj, tpath, "comment", /*nonempty=*/false);
      vt.flags = c.string_list(tj, tpath, "flags");
      for (std::size_t i = 0; i < vt.flags.size(); ++i)
        if (!known_flags.count(vt.flags[i]))
          c.fail(tpath + "/flags/" + std::to_string(i), "flag \"" + vt.flags[i] + "\" is not explained in \"notes\"");
      const std::string result = c.string_field(tj, tpath, "result");
      if (result != "valid" && result != "invalid")
        c.fail(tpath + "/result", "expected \"valid\" or \"invalid\", got \"" + result + "\"");
      vt.invalid = result == "invalid";
      if (tj.contains("attributes") && !tj["attributes"].is_object()) c.fail(tpath + "/attributes", "expected an object");
      vt.attributes = merge_attributes(gattrs, tj.contains("attributes") ? tj["attributes"] : OJ::object());
      vt.inputs = c.tensors(c.field(tj, tpath, "inputs"), tpath + "/inputs");
      if (vt.invalid) {
        if (tj.contains("expected")) c.fail(tpath + "/expected", "an invalid test has no expected outputs");
      } else {
        vt.expected = c.tensors(c.field(tj, tpath, "expected"), tpath + "/expected");
        if (vt.expected.empty()) c.fail(tpath + "/expected", "a valid test needs at least one expected output");
      }
      f.tests.push_back(std::move(vt));
    }
  }
  if (static_cast<std::int64_t>(f.tests.size()) != f.number_of_tests)
    top.fail("/numberOfTests", "says " + std::to_string(f.number_of_tests) + " but the file holds " +
                                   std::to_string(f.tests.size()) + " tests");
  return f;
}

VectorFile load_vector_file(const fs::path& path, const std::string& display_name) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw VectorFileError(display_name, std::nullopt, "", "cannot open " + path.string());
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse_vector_file(ss.str(), display_name);
}

namespace {
std::string generic(const fs::path& p) { return p.lexically_normal().generic_string(); }

std::string name_for_file(const fs::path& given) {
  const fs::path abs = fs::absolute(given).lexically_normal();
  for (fs::path dir = abs.parent_path(); !dir.empty() && dir != dir.root_path(); dir = dir.parent_path())
    if (dir.filename() == "vectors") return generic(abs.lexically_relative(dir));
  return generic(given);
}
}  // namespace

std::vector<VectorSource> find_vector_files(const std::vector<fs::path>& paths) {
  std::vector<VectorSource> out;
  for (const auto& p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      for (auto it = fs::recursive_directory_iterator(p); it != fs::recursive_directory_iterator(); ++it) {
        if (it->is_directory() && it->path().filename() == "schema") {
          it.disable_recursion_pending();
          continue;
        }
        if (it->is_regular_file() && it->path().extension() == ".json")
          out.push_back({it->path(), generic(it->path().lexically_relative(p))});
      }
    } else if (fs::is_regular_file(p, ec)) {
      out.push_back({p, name_for_file(p)});
    } else {
      throw VectorFileError(p.string(), std::nullopt, "", "no such vector file or directory");
    }
  }
  std::sort(out.begin(), out.end(), [](const VectorSource& a, const VectorSource& b) { return a.display_name < b.display_name; });
  out.erase(std::unique(out.begin(), out.end(),
                        [](const VectorSource& a, const VectorSource& b) {
                          return fs::weakly_canonical(a.path) == fs::weakly_canonical(b.path);
                        }),
            out.end());
  return out;
}

}  // namespace qspec::harness
