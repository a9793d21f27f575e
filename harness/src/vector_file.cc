// Loader for qspec-vectors/1 files: structural checks with file, tcId and JSON-path error messages.
#include "qspec/harness/vector_file.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>

#include "qspec/core/catalogue.h"
#include "qspec/core/json_values.h"
#include "qspec/harness/json_precheck.h"
#include "qspec/harness/schema_validation.h"
#include "qspec/harness/text_safety.h"
#include "qspec/harness/vector_limits.h"

namespace qspec::harness {
namespace fs = std::filesystem;
namespace lim = vector_limits;
using OJ = nlohmann::ordered_json;

namespace {
// Control characters from a hostile file (a key "\u001b[2J") must not reach a terminal or a log
// raw: they are shown as \xNN, and so is every byte of ill-formed UTF-8.
std::string printable(const std::string& s) { return terminal_safe(s, /*keep_newlines=*/false); }
}  // namespace

VectorFileError::VectorFileError(std::string file, std::optional<std::int64_t> tc_id, std::string json_path,
                                 std::string problem)
    : VectorFileError(Printable{}, printable(std::move(file)), tc_id, printable(std::move(json_path)),
                      printable(std::move(problem))) {}

VectorFileError::VectorFileError(Printable, std::string file, std::optional<std::int64_t> tc_id, std::string json_path,
                                 std::string problem)
    : std::runtime_error(file + ": " + (tc_id ? "tcId " + std::to_string(*tc_id) + ": " : std::string()) +
                         (json_path.empty() ? std::string() : "at " + json_path + ": ") + problem),
      file_(std::move(file)),
      tc_id_(tc_id),
      json_path_(std::move(json_path)),
      problem_(std::move(problem)) {}

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
  // An op, convention or tensor name reaches a backend as a C string (docs/backend-abi.md): an
  // embedded NUL would cut it short ("requantize\u0000evil" would run as "requantize"), and no
  // control character belongs in a name.
  void check_name(const std::string& path, const std::string& name) const {
    for (unsigned char ch : name)
      if (ch < 0x20 || ch == 0x7f)
        fail(path, "the name \"" + name + "\" holds a control character; names reach backends as C strings");
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
      check_name(tpath, name);
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
        fail(tpath + "/shape/" + std::to_string(i),
             "tensor '" + name + "': dimension " + d.dump() + " exceeds the limit of " +
                 std::to_string(lim::kMaxTensorElements) + " elements per tensor (docs/vector-format.md, Limits)");
      n *= static_cast<std::int64_t>(dim);  // both factors <= kMaxTensorElements = 2^18 here: no overflow
      if (n > lim::kMaxTensorElements)
        fail(tpath + "/shape", "tensor '" + name + "': shape " + shape.dump() + " has more than " +
                                   std::to_string(lim::kMaxTensorElements) +
                                   " elements, the limit per tensor (docs/vector-format.md, Limits)");
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

const std::set<std::string> kTopKeys = {"schema",        "op",    "convention", "clauses", "generator",
                                        "numberOfTests", "notes", "testGroups"};
const std::set<std::string> kTestKeys = {"tcId", "comment", "flags", "result", "attributes", "inputs", "expected"};

}  // namespace

VectorFile parse_vector_file(const std::string& text, const std::string& display_name) {
  // Syntax, UTF-8, size, depth, string and duplicate-key checks on the text, with the DOM built
  // in the same pass from the events that passed them (one parse of the text, not two).
  OJ doc;
  if (auto e = precheck_json(text, &doc)) throw VectorFileError(display_name, e->tc_id, e->json_path, e->problem);
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
  top.check_name("/op", f.op);
  top.check_name("/convention", f.convention);
  f.clauses = top.string_list(doc, "", "clauses");
  if (f.clauses.empty()) top.fail("/clauses", "must list at least one clause ID");
  f.generator = top.field(doc, "", "generator");
  if (!f.generator.is_object()) top.fail("/generator", "expected an object");
  const OJ& n = top.field(doc, "", "numberOfTests");
  if (!n.is_number_integer() || n.get<std::int64_t>() < 0)
    top.fail("/numberOfTests", "expected a non-negative integer");
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
      if (k != "attributes" && k != "tests")
        top.fail(gpath + "/" + json_pointer_token(k), "unknown group field \"" + k + "\"");
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
      if (tj.contains("attributes") && !tj["attributes"].is_object())
        c.fail(tpath + "/attributes", "expected an object");
      // Before the merged copy exists: it holds at most the group's values plus the test's own.
      attribute_values += group_attribute_values + (tj.contains("attributes") ? count_values(tj["attributes"]) : 0);
      if (attribute_values > lim::kMaxAttributeValuesPerFile)
        c.fail(tpath + "/attributes", "the tests' attributes (each test's own plus its group's) hold more than " +
                                          std::to_string(lim::kMaxAttributeValuesPerFile) +
                                          " JSON values in total, the limit (docs/vector-format.md, Limits)");
      vt.attributes = merge_attributes(gattrs, tj.contains("attributes") ? tj["attributes"] : OJ::object());
      vt.attributes_json = vt.attributes.dump();
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
  if (fs::is_directory(path, ec))
    throw VectorFileError(display_name, std::nullopt, "", path.string() + " is a directory, not a vector file");
  // The size limit is checked before reading: from the file system when it knows the size, and
  // by reading at most one byte more than the limit otherwise (a pipe, /dev/zero).
  const auto size = fs::file_size(path, ec);
  if (!ec && size > lim::kMaxFileBytes)
    throw VectorFileError(display_name, std::nullopt, "",
                          "the file is " + std::to_string(size) + " bytes, more than the limit of " +
                              std::to_string(lim::kMaxFileBytes) + " bytes (docs/vector-format.md, Limits)");
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
                          "the file holds more than " + std::to_string(lim::kMaxFileBytes) +
                              " bytes, the limit (docs/vector-format.md, Limits)");
  return text;
}

VectorFile load_vector_file(const fs::path& path, const std::string& display_name) {
  return parse_vector_file(read_vector_file_text(path, display_name), display_name);
}

void check_op_known(const VectorFile& f, const std::vector<std::pair<std::string, std::string>>& known,
                    const std::string& known_by) {
  std::vector<std::string> conventions;
  for (const auto& [op, convention] : known) {
    if (op != f.op) continue;
    if (convention == f.convention) return;
    conventions.push_back(convention);
  }
  if (conventions.empty())
    throw VectorFileError(
        f.display_name, std::nullopt, "/op",
        "unknown op \"" + f.op + "\": not implemented by " + known_by + " (`qspec backends -v` lists the known ops)");
  std::sort(conventions.begin(), conventions.end());
  std::string list;
  for (const auto& c : conventions) list += (list.empty() ? "" : ", ") + c;
  throw VectorFileError(f.display_name, std::nullopt, "/convention",
                        "unknown convention \"" + f.convention + "\" of op \"" + f.op + "\": not implemented by " +
                            known_by + " (known conventions of the op: " + list + ")");
}

void check_schema(const VectorFile& f, const std::string& text, const SchemaSet& schemas) {
  // parse_vector_file made `f` from this text, so it passed precheck_json.
  const std::vector<std::string> errors = schemas.validate(text, SchemaSet::Prechecked::Yes, f.op);
  if (errors.empty()) return;
  // A message reads "<schema file>: at <JSON pointer>: <what>" (schema_validation.h).
  const std::string& first = errors.front();
  std::string schema_file, path, what = first;
  if (const auto at = first.find(": at /"); at != std::string::npos) {
    schema_file = first.substr(0, at);
    const auto colon = first.find(": ", at + 5);
    path = first.substr(at + 5, colon == std::string::npos ? std::string::npos : colon - at - 5);
    what = colon == std::string::npos ? std::string() : first.substr(colon + 2);
  }
  std::optional<std::int64_t> tc_id;
  for (const auto& t : f.tests)
    if (path.compare(0, t.json_path.size(), t.json_path) == 0 &&
        (path.size() == t.json_path.size() || path[t.json_path.size()] == '/'))
      tc_id = t.tc_id;
  std::string problem = "schema violation";
  if (!schema_file.empty()) problem += " (vectors/schema/" + schema_file + ")";
  problem += ": " + what;
  if (errors.size() > 1)
    problem += " (and " + std::to_string(errors.size() - 1) + " more; `qspec vectors check --dir DIR` lists them)";
  throw VectorFileError(f.display_name, tc_id, path, problem);
}

namespace {
std::string generic(const fs::path& p) { return p.lexically_normal().generic_string(); }

std::string name_for_file(const fs::path& given) {
  const fs::path abs = fs::absolute(given).lexically_normal();
  for (fs::path dir = abs.parent_path(); !dir.empty() && dir != dir.root_path(); dir = dir.parent_path())
    if (dir.filename() == "vectors") return generic(abs.lexically_relative(dir));
  return generic(given);
}

const char* type_text(fs::file_type t) {
  switch (t) {
    case fs::file_type::fifo: return "a FIFO";
    case fs::file_type::character: return "a character device";
    case fs::file_type::block: return "a block device";
    case fs::file_type::socket: return "a socket";
    case fs::file_type::directory: return "a directory";
    default: return "not a regular file";
  }
}

// Why a symbolic link cannot be followed (`status_error` from fs::status on it).
std::string broken_link_text(const fs::path& link, const std::error_code& status_error) {
  std::error_code ec;
  const fs::path target = fs::read_symlink(link, ec);
  const std::string to = ec ? std::string() : " -> " + target.string();
  if (status_error == std::errc::too_many_symbolic_link_levels) return "symbolic link loop" + to + " (not followed)";
  if (status_error == std::errc::no_such_file_or_directory)
    return "dangling symbolic link" + to + " (its target does not exist)";
  return "cannot follow symbolic link" + to + ": " + status_error.message();
}

// The recursive walk below a --vectors directory. Symbolic links to directories are followed
// (an op directory linked in from elsewhere is part of the tree), except one that leads back to
// a directory being walked (a loop). Every entry that should hold vectors but cannot be read is
// recorded as a VectorSource with a `problem`, named by its path: an unreadable directory, a
// dangling or looping link, a *.json that is a FIFO or a device. Anything else not named *.json
// (README.md, ...) is not a vector file and is passed over.
class TreeWalk {
 public:
  TreeWalk(const fs::path& base, std::vector<VectorSource>& out) : base_(base), out_(out) {}
  void walk(const fs::path& dir) {
    std::error_code ec;
    const fs::path real = fs::canonical(dir, ec);
    if (!ec && std::find(stack_.begin(), stack_.end(), real) != stack_.end()) {
      problem(dir, "symbolic link to an enclosing directory" + std::string(" -> ") + real.string() +
                       " (a loop; not followed)");
      return;
    }
    std::vector<fs::directory_entry> entries;
    fs::directory_iterator it(dir, ec);
    for (; !ec && it != fs::directory_iterator(); it.increment(ec)) entries.push_back(*it);
    if (ec) {
      problem(dir, "cannot read the directory " + dir.string() + ": " + ec.message());
      return;
    }
    std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.path() < b.path(); });
    stack_.push_back(real);
    for (const auto& e : entries) visit(e.path());
    stack_.pop_back();
  }

 private:
  void visit(const fs::path& p) {
    std::error_code lec, ec;
    const fs::file_status link = fs::symlink_status(p, lec);
    const fs::file_status st = fs::status(p, ec);  // follows symbolic links
    if (ec && !lec && fs::is_symlink(link)) return problem(p, broken_link_text(p, ec));
    if (ec || lec) return problem(p, "cannot inspect " + p.string() + ": " + (ec ? ec : lec).message());
    if (fs::is_directory(st)) {
      if (p.filename() != "schema") walk(p);
      return;
    }
    if (p.extension() != ".json") return;
    if (!fs::is_regular_file(st))
      return problem(p, std::string("not a regular file (") + type_text(st.type()) +
                            "): only regular files are read as vector files from a directory");
    out_.push_back({p, generic(p.lexically_relative(base_)), ""});
  }
  void problem(const fs::path& p, std::string why) {
    out_.push_back({p, generic(p.lexically_relative(base_)), std::move(why)});
  }

  fs::path base_;
  std::vector<VectorSource>& out_;
  std::vector<fs::path> stack_;  // canonical paths of the directories being walked
};
}  // namespace

std::vector<VectorSource> find_vector_files(const std::vector<fs::path>& paths) {
  std::vector<VectorSource> out;
  for (const auto& p : paths) {
    std::error_code ec, lec;
    const fs::file_status st = fs::status(p, ec);
    const fs::file_status link = fs::symlink_status(p, lec);
    if (!ec && fs::is_directory(st)) {
      TreeWalk(p, out).walk(p);
    } else if (!lec && fs::is_symlink(link) && ec) {
      out.push_back({p, name_for_file(p), broken_link_text(p, ec)});
    } else if (!ec && fs::exists(st)) {
      // Given by name, anything that is not a directory is read as a vector file, within the
      // size limit: a regular file, or a pipe such as bash's <(...) (a FIFO in a directory is not).
      out.push_back({p, name_for_file(p), ""});
    } else {
      throw VectorFileError(p.string(), std::nullopt, "", "no such vector file or directory");
    }
  }
  std::sort(out.begin(), out.end(),
            [](const VectorSource& a, const VectorSource& b) { return a.display_name < b.display_name; });
  out.erase(std::unique(out.begin(), out.end(),
                        [](const VectorSource& a, const VectorSource& b) {
                          if (!a.problem.empty() || !b.problem.empty()) return false;
                          std::error_code ea, eb;
                          const fs::path ca = fs::weakly_canonical(a.path, ea), cb = fs::weakly_canonical(b.path, eb);
                          return !ea && !eb && ca == cb;
                        }),
            out.end());
  return out;
}

void check_catalogue(const VectorFile& f) {
  const catalogue::ConventionSpec* conv = catalogue::get().find(f.op, f.convention);
  if (!conv) return;  // an unknown pair is reported by the caller, against the backend's claims
  const catalogue::OpSpec& op = *catalogue::get().op(f.op);
  for (const auto& t : f.tests) {
    std::vector<std::pair<std::string, DType>> inputs;
    for (const auto& in : t.inputs) inputs.emplace_back(in.name, in.dtype);
    const auto problems = catalogue::check_test(op, *conv, t.attributes, inputs, !t.invalid);
    if (!problems.empty())
      throw VectorFileError(f.display_name, t.tc_id, t.json_path + "/" + problems.front().where,
                            problems.front().what + " (spec/catalogue/" + f.op + ".json" +
                                (problems.size() > 1 ? "; " + std::to_string(problems.size() - 1) + " more" : "") +
                                ")");
  }
}

VectorFile load_vector_source(const VectorSource& src, const SchemaSet* schemas) {
  if (!src.problem.empty()) throw VectorFileError(src.display_name, std::nullopt, "", src.problem);
  const std::string text = read_vector_file_text(src.path, src.display_name);
  VectorFile f = parse_vector_file(text, src.display_name);
  if (schemas) {
    check_schema(f, text, *schemas);
    check_catalogue(f);
  }
  return f;
}

}  // namespace qspec::harness
