// Loader for qspec-vectors/1 files: structural checks with file, tcId and JSON-path error messages.
#include "qspec/harness/vector_file.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>

#include "qspec/core/json_values.h"
#include "qspec/harness/json_precheck.h"
#include "qspec/harness/vector_limits.h"

namespace qspec::harness {
namespace fs = std::filesystem;
namespace lim = vector_limits;
using OJ = nlohmann::ordered_json;

namespace {
// Control characters from a hostile file (a key "\u001b[2J") must not reach a terminal or a log
// raw: they are shown as \xNN.
std::string printable(std::string s) {
  std::string out;
  for (unsigned char c : s) {
    if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}
}  // namespace

VectorFileError::VectorFileError(std::string file, std::optional<std::int64_t> tc_id, std::string json_path, std::string problem)
    : VectorFileError(Printable{}, printable(std::move(file)), tc_id, printable(std::move(json_path)), printable(std::move(problem))) {}

VectorFileError::VectorFileError(Printable, std::string file, std::optional<std::int64_t> tc_id, std::string json_path, std::string problem)
    : std::runtime_error(file + ": " + (tc_id ? "tcId " + std::to_string(*tc_id) + ": " : std::string()) +
                         (json_path.empty() ? std::string() : "at " + json_path + ": ") + problem),
      file_(std::move(file)), tc_id_(tc_id), json_path_(std::move(json_path)), problem_(std::move(problem)) {}

namespace {

struct Ctx {
  const std::string& file;
  std::optional<std::int64_t> tc_id;
  std::int64_t* file_elements = nullptr;  // running total of the file's tensor elements
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
      const std::string tpath = path + "/" + json_pointer_token(name);
      const std::int64_t n = check_shape(t, tpath, name);
      if (file_elements) {
        *file_elements += n;
        if (*file_elements > lim::kMaxFileElements)
          fail(tpath, "the file's tensors hold more than " + std::to_string(lim::kMaxFileElements) +
                          " elements in total, the limit (docs/vector-format.md, Limits)");
      }
      try {
        out.push_back(json_to_tensor(name, t, lim::kMaxTensorElements));
      } catch (const JsonValueError& e) {
        fail(tpath, e.what());
      }
    }
    return out;
  }
  // The rank, every dimension and the element count of a declared shape, before anything is
  // sized by it: each factor is bounded first, so the running product cannot overflow. Returns
  // the element count (0 when the shape is not an array of non-negative integers: json_to_tensor
  // reports that).
  std::int64_t check_shape(const OJ& t, const std::string& tpath, const std::string& name) const {
    if (!t.is_object() || !t.contains("shape") || !t["shape"].is_array()) return 0;
    const OJ& shape = t["shape"];
    if (shape.size() > lim::kMaxRank)
      fail(tpath + "/shape", "tensor '" + name + "': rank " + std::to_string(shape.size()) + " exceeds the limit of " +
                                 std::to_string(lim::kMaxRank) + " (docs/vector-format.md, Limits)");
    std::int64_t n = 1;
    for (std::size_t i = 0; i < shape.size(); ++i) {
      const OJ& d = shape[i];
      if (!d.is_number_integer() || (!d.is_number_unsigned() && d.get<std::int64_t>() < 0)) return 0;
      const std::uint64_t dim = d.get<std::uint64_t>();  // non-negative here, possibly above INT64_MAX
      if (dim > static_cast<std::uint64_t>(lim::kMaxTensorElements))
        fail(tpath + "/shape/" + std::to_string(i), "tensor '" + name + "': dimension " + d.dump() + " exceeds the limit of " +
                                                        std::to_string(lim::kMaxTensorElements) + " elements per tensor (docs/vector-format.md, Limits)");
      n *= static_cast<std::int64_t>(dim);  // both factors <= kMaxTensorElements = 2^18 here: no overflow
      if (n > lim::kMaxTensorElements)
        fail(tpath + "/shape", "tensor '" + name + "': shape " + shape.dump() + " has more than " +
                                   std::to_string(lim::kMaxTensorElements) + " elements, the limit per tensor (docs/vector-format.md, Limits)");
    }
    return n;
  }
};

// JSON values in `j`, itself included. The recursion is bounded: precheck_json limited the depth.
std::size_t count_values(const OJ& j) {
  std::size_t n = 1;
  if (j.is_structured())
    for (const auto& v : j) n += count_values(v);
  return n;
}

const std::set<std::string> kTopKeys = {"schema", "op", "convention", "clauses", "generator", "numberOfTests", "notes", "testGroups"};
const std::set<std::string> kTestKeys = {"tcId", "comment", "flags", "result", "attributes", "inputs", "expected"};

}  // namespace

VectorFile parse_vector_file(const std::string& text, const std::string& display_name) {
  // Syntax, UTF-8, size, depth, string and duplicate-key checks on the text, before a DOM exists.
  if (auto e = precheck_json(text)) throw VectorFileError(display_name, e->tc_id, e->json_path, e->problem);
  OJ doc;
  try {
    doc = OJ::parse(text);
  } catch (const nlohmann::json::exception& e) {  // unreachable after the precheck; kept as a guard
    throw VectorFileError(display_name, std::nullopt, "", std::string("not valid JSON: ") + e.what());
  }
  std::int64_t file_elements = 0;
  Ctx top{display_name, std::nullopt, &file_elements};
  if (!doc.is_object()) top.fail("", "the file must hold a JSON object");
  for (const auto& [k, v] : doc.items())
    if (!kTopKeys.count(k)) top.fail("/" + json_pointer_token(k), "unknown top-level field \"" + k + "\"");

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
      top.fail("/notes/" + json_pointer_token(flag), "every flag needs a non-empty explanation string");
    f.notes.emplace_back(flag, meaning.get<std::string>());
    known_flags.insert(flag);
  }

  const OJ& groups = top.field(doc, "", "testGroups");
  if (!groups.is_array()) top.fail("/testGroups", "expected an array");
  std::map<std::int64_t, std::string> seen;  // tcId -> the JSON path of the test that has it
  std::size_t tests_in_file = 0, attribute_values = 0;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const std::string gpath = "/testGroups/" + std::to_string(g);
    const OJ& group = groups[g];
    if (!group.is_object()) top.fail(gpath, "expected an object");
    for (const auto& [k, v] : group.items())
      if (k != "attributes" && k != "tests") top.fail(gpath + "/" + json_pointer_token(k), "unknown group field \"" + k + "\"");
    const OJ& gattrs = top.field(group, gpath, "attributes");
    if (!gattrs.is_object()) top.fail(gpath + "/attributes", "expected an object");
    const std::size_t group_attribute_values = count_values(gattrs);
    const OJ& tests = top.field(group, gpath, "tests");
    if (!tests.is_array()) top.fail(gpath + "/tests", "expected an array");
    tests_in_file += tests.size();
    if (tests_in_file > lim::kMaxTestsPerFile)
      top.fail(gpath + "/tests", "the file holds more than " + std::to_string(lim::kMaxTestsPerFile) +
                                     " tests, the limit (docs/vector-format.md, Limits)");
    for (std::size_t t = 0; t < tests.size(); ++t) {
      const std::string tpath = gpath + "/tests/" + std::to_string(t);
      const OJ& tj = tests[t];
      Ctx c{display_name, std::nullopt, &file_elements};
      if (!tj.is_object()) c.fail(tpath, "expected an object");
      if (tj.contains("tcId") && tj["tcId"].is_number_integer() &&
          !(tj["tcId"].is_number_unsigned() && tj["tcId"].get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX)))
        c.tc_id = tj["tcId"].get<std::int64_t>();
      const OJ& id = c.field(tj, tpath, "tcId");
      if (!id.is_number_integer() || id.get<std::int64_t>() < 1) c.fail(tpath + "/tcId", "expected a positive integer");
      if (const auto [it, fresh] = seen.emplace(*c.tc_id, tpath + "/tcId"); !fresh)
        c.fail(tpath + "/tcId", "duplicate tcId " + std::to_string(*c.tc_id) + ": " + it->second + " has it too");
      for (const auto& [k, v] : tj.items())
        if (!kTestKeys.count(k)) c.fail(tpath + "/" + json_pointer_token(k), "unknown test field \"" + k + "\"");
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
      // Before the merged copy exists: it holds at most the group's values plus the test's own.
      attribute_values += group_attribute_values + (tj.contains("attributes") ? count_values(tj["attributes"]) : 0);
      if (attribute_values > lim::kMaxAttributeValuesPerFile)
        c.fail(tpath + "/attributes", "the tests' attributes (each test's own plus its group's) hold more than " +
                                          std::to_string(lim::kMaxAttributeValuesPerFile) +
                                          " JSON values in total, the limit (docs/vector-format.md, Limits)");
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

std::string read_vector_file_text(const fs::path& path, const std::string& display_name) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw VectorFileError(display_name, std::nullopt, "", path.string() + " is a directory, not a vector file");
  // The size limit is checked before reading: from the file system when it knows the size, and
  // by reading at most one byte more than the limit otherwise (a pipe, /dev/zero).
  const auto size = fs::file_size(path, ec);
  if (!ec && size > lim::kMaxFileBytes)
    throw VectorFileError(display_name, std::nullopt, "",
                          "the file is " + std::to_string(size) + " bytes, more than the limit of " + std::to_string(lim::kMaxFileBytes) +
                              " bytes (docs/vector-format.md, Limits)");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw VectorFileError(display_name, std::nullopt, "", "cannot open " + path.string());
  // One allocation: the file's size, or (size unknown) the limit plus one chunk.
  std::string text;
  std::string chunk(std::size_t{1} << 16, '\0');
  text.reserve(ec ? lim::kMaxFileBytes + chunk.size() : static_cast<std::size_t>(size));
  while (text.size() <= lim::kMaxFileBytes) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    text.append(chunk.data(), static_cast<std::size_t>(in.gcount()));
    if (!in) break;
  }
  if (in.bad()) throw VectorFileError(display_name, std::nullopt, "", "cannot read " + path.string());
  if (text.size() > lim::kMaxFileBytes)  // a file whose size the file system does not know
    throw VectorFileError(display_name, std::nullopt, "",
                          "the file holds more than " + std::to_string(lim::kMaxFileBytes) + " bytes, the limit (docs/vector-format.md, Limits)");
  return text;
}

VectorFile load_vector_file(const fs::path& path, const std::string& display_name) {
  return parse_vector_file(read_vector_file_text(path, display_name), display_name);
}

void check_op_known(const VectorFile& f, const std::vector<std::pair<std::string, std::string>>& known, const std::string& known_by) {
  std::vector<std::string> conventions;
  for (const auto& [op, convention] : known) {
    if (op != f.op) continue;
    if (convention == f.convention) return;
    conventions.push_back(convention);
  }
  if (conventions.empty())
    throw VectorFileError(f.display_name, std::nullopt, "/op",
                          "unknown op \"" + f.op + "\": not implemented by " + known_by + " (`qspec backends -v` lists the known ops)");
  std::sort(conventions.begin(), conventions.end());
  std::string list;
  for (const auto& c : conventions) list += (list.empty() ? "" : ", ") + c;
  throw VectorFileError(f.display_name, std::nullopt, "/convention",
                        "unknown convention \"" + f.convention + "\" of op \"" + f.op + "\": not implemented by " + known_by +
                            " (known conventions of the op: " + list + ")");
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
