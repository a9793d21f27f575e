// Parsing and checking the op catalogue (qspec/core/catalogue.h; format: spec/catalogue/README.md).
#include "qspec/core/catalogue.h"

#include <algorithm>
#include <set>

#include "qspec/core/json_values.h"

namespace qspec::catalogue {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::pair<AttrType, std::string_view> kTypeNames[] = {
    {AttrType::Int, "int"},     {AttrType::IntArray, "int[]"},     {AttrType::OptIntArray, "int_or_null[]"},
    {AttrType::F32, "float32"}, {AttrType::F32Array, "float32[]"}, {AttrType::F64, "float64"},
    {AttrType::DType, "dtype"}, {AttrType::Enum, "enum"},          {AttrType::Bool, "bool"}};

// Reads one JSON object field by field, naming the file and the path of any problem, and rejects
// fields it was not asked for (a misspelt key in a catalogue file is an error, not a silent default).
class Reader {
 public:
  Reader(const Json& j, std::string where) : j_(j), where_(std::move(where)) {
    if (!j_.is_object()) fail("expected an object");
  }
  [[noreturn]] void fail(const std::string& what) const { throw CatalogueError(where_ + ": " + what); }
  std::string at(const std::string& key) const { return where_ + "." + key; }
  bool has(const char* key) {
    seen_.insert(key);
    return j_.contains(key);
  }
  const Json& raw(const char* key) {
    if (!has(key)) fail(std::string("missing field '") + key + "'");
    return j_.at(key);
  }
  std::string str(const char* key, bool required = true) {
    if (!has(key)) {
      if (required) fail(std::string("missing field '") + key + "'");
      return "";
    }
    const Json& v = j_.at(key);
    if (!v.is_string()) fail(std::string("field '") + key + "' must be a string");
    return v.get<std::string>();
  }
  bool boolean(const char* key) {
    if (!has(key)) return false;
    const Json& v = j_.at(key);
    if (!v.is_boolean()) fail(std::string("field '") + key + "' must be true or false");
    return v.get<bool>();
  }
  std::vector<std::string> strings(const char* key, bool required = false) {
    std::vector<std::string> out;
    if (!has(key)) {
      if (required) fail(std::string("missing field '") + key + "'");
      return out;
    }
    const Json& v = j_.at(key);
    if (!v.is_array()) fail(std::string("field '") + key + "' must be an array of strings");
    for (const auto& e : v) {
      if (!e.is_string()) fail(std::string("field '") + key + "' must be an array of strings");
      out.push_back(e.get<std::string>());
    }
    return out;
  }
  std::int64_t integer(const char* key, std::int64_t fallback) {
    if (!has(key)) return fallback;
    try {
      return json_to_int(j_.at(key));
    } catch (const JsonValueError& e) {
      fail(std::string("field '") + key + "': " + e.what());
    }
  }
  // Every key of the object must have been asked for.
  void done() const {
    for (const auto& [k, v] : j_.items())
      if (!seen_.count(k)) fail("unknown field '" + k + "'");
  }

 private:
  const Json& j_;
  std::string where_;
  std::set<std::string> seen_;
};

std::vector<DType> dtype_list(Reader& r, const char* key, bool required) {
  std::vector<DType> out;
  for (const auto& n : r.strings(key, required)) {
    const auto t = dtype_from_name(n);
    if (!t) r.fail("unknown dtype \"" + n + "\" in '" + key + "'");
    out.push_back(*t);
  }
  return out;
}

TensorSpec parse_tensor(const Json& j, const std::string& where, bool output) {
  Reader r(j, where);
  TensorSpec t;
  t.name = r.str("name");
  t.dtypes = dtype_list(r, "dtypes", true);
  if (t.dtypes.empty()) r.fail("'dtypes' must not be empty");
  if (r.has("variadic")) {
    Reader v(r.raw("variadic"), r.at("variadic"));
    t.variadic = true;
    t.min_count = static_cast<int>(v.integer("min", 1));
    t.max_count = static_cast<int>(v.integer("max", 64));
    v.done();
    if (t.min_count < 0 || t.max_count < t.min_count) r.fail("variadic: need 0 <= min <= max");
  }
  // An optional input (e.g. a bias) may be absent from a valid test: a single tensor of count 0..1.
  if (!output && r.has("optional")) {
    if (t.variadic) r.fail("'optional' and 'variadic' exclude each other (variadic: say min 0)");
    if (r.boolean("optional")) t.min_count = 0;
  }
  if (output) {
    t.dtype_from_attribute = r.str("dtype_from", false);
    t.dtype_same_as = r.str("same_dtype_as", false);
  }
  t.doc = r.str("doc", false);
  r.done();
  return t;
}

AttributeSpec parse_attribute(const std::string& name, const Json& j, const std::string& where) {
  Reader r(j, where);
  AttributeSpec a;
  a.name = name;
  const std::string type = r.str("type");
  const auto* it =
      std::find_if(std::begin(kTypeNames), std::end(kTypeNames), [&](const auto& p) { return p.second == type; });
  if (it == std::end(kTypeNames)) r.fail("unknown type \"" + type + "\"");
  a.type = it->first;
  const bool integral = a.type == AttrType::Int || a.type == AttrType::IntArray || a.type == AttrType::OptIntArray;
  if (integral) {
    a.min = r.integer("min", INT64_MIN);
    a.max = r.integer("max", INT64_MAX);
    if (a.min > a.max) r.fail("min > max");
  }
  if (a.type == AttrType::DType || a.type == AttrType::Enum) {
    a.values = r.strings("values", true);
    if (a.values.empty()) r.fail("'values' must not be empty");
    if (a.type == AttrType::DType)
      for (const auto& v : a.values)
        if (!dtype_from_name(v)) r.fail("unknown dtype \"" + v + "\" in 'values'");
  }
  a.doc = r.str("doc", false);
  r.done();
  return a;
}

ConventionSpec parse_convention(const Json& j, const std::string& where, const OpSpec& op) {
  Reader r(j, where);
  ConventionSpec c;
  c.name = r.str("name");
  c.clauses = r.strings("clauses", true);
  if (c.clauses.empty()) r.fail("'clauses' must not be empty");
  c.description = r.str("description");
  c.source = r.str("source", false);
  c.diagnostic_only = r.boolean("diagnostic_only");
  c.attributes = r.strings("attributes");
  c.optional_attributes = r.strings("optional_attributes");
  c.vectors = r.str("vectors", false);
  c.required_flags = r.strings("required_flags");
  r.done();
  for (const auto* list : {&c.attributes, &c.optional_attributes})
    for (const auto& a : *list)
      if (!op.attribute(a)) r.fail("attribute '" + a + "' is not declared in the op's 'attributes'");
  if (c.diagnostic_only && (!c.vectors.empty() || !c.required_flags.empty()))
    r.fail("a diagnostic-only convention has no vectors");
  if (!c.diagnostic_only && c.vectors.empty())
    r.fail("missing field 'vectors' (every normative convention has vectors)");
  return c;
}

OpSpec parse_op(const std::string& file, const Json& j) {
  Reader r(j, file);
  OpSpec op;
  op.name = r.str("op");
  op.summary = r.str("summary");
  op.spec = r.str("spec");
  op.elementwise = r.boolean("elementwise");
  for (const char* side : {"inputs", "outputs"}) {
    const Json& list = r.raw(side);
    if (!list.is_array()) r.fail(std::string("'") + side + "' must be an array");
    auto& dst = side[0] == 'i' ? op.inputs : op.outputs;
    for (std::size_t i = 0; i < list.size(); ++i)
      dst.push_back(parse_tensor(list[i], r.at(side) + "[" + std::to_string(i) + "]", side[0] == 'o'));
  }
  if (r.has("attributes")) {
    const Json& attrs = r.raw("attributes");
    if (!attrs.is_object()) r.fail("'attributes' must be an object");
    for (const auto& [name, spec] : attrs.items())
      op.attributes.push_back(parse_attribute(name, spec, r.at("attributes." + name)));
  }
  const Json& convs = r.raw("conventions");
  if (!convs.is_array() || convs.empty()) r.fail("'conventions' must be a non-empty array");
  for (std::size_t i = 0; i < convs.size(); ++i)
    op.conventions.push_back(parse_convention(convs[i], r.at("conventions") + "[" + std::to_string(i) + "]", op));
  r.done();

  std::set<std::string> names;
  for (const auto& c : op.conventions)
    if (!names.insert(c.name).second) r.fail("convention '" + c.name + "' listed twice");
  names.clear();
  for (const auto* side : {&op.inputs, &op.outputs})
    for (const auto& t : *side)
      if (!names.insert(t.name).second) r.fail("tensor name '" + t.name + "' used twice");
  for (const auto& o : op.outputs) {
    if (!o.dtype_from_attribute.empty()) {
      const AttributeSpec* a = op.attribute(o.dtype_from_attribute);
      if (!a || a->type != AttrType::DType) r.fail("output '" + o.name + "': dtype_from must name a dtype attribute");
    }
    if (!o.dtype_same_as.empty() && !op.input(o.dtype_same_as))
      r.fail("output '" + o.name + "': same_dtype_as must name an input");
  }
  return op;
}

// Is the attribute's JSON value of its type and domain? Returns the problem, or "".
std::string attribute_problem(const AttributeSpec& a, const Json& v) {
  Attrs one = Attrs::object();
  one[a.name] = v;
  try {
    switch (a.type) {
      case AttrType::Int: attr::get(one, attr::Int{a.name, a.min, a.max}); break;
      case AttrType::IntArray: attr::get(one, attr::IntArray{a.name, a.min, a.max}); break;
      case AttrType::OptIntArray: attr::get(one, attr::OptIntArray{a.name, a.min, a.max}); break;
      case AttrType::F32: attr::get(one, attr::F32{a.name}); break;
      case AttrType::F32Array: attr::get(one, attr::F32Array{a.name}); break;
      case AttrType::F64: attr::get(one, attr::F64{a.name}); break;
      case AttrType::Bool: attr::get(one, attr::Bool{a.name}); break;
      case AttrType::DType:
      case AttrType::Enum: {
        // Validated as text: an invalid test may carry a dtype the op does not produce (it is
        // rejected by the op's ERROR_IF), but never something that is not a string.
        if (!v.is_string()) return "attribute '" + a.name + "': expected a string";
        break;
      }
    }
  } catch (const JsonValueError& e) {
    return e.what();
  }
  return "";
}

bool value_in(const AttributeSpec& a, const Json& v) {
  return v.is_string() && std::find(a.values.begin(), a.values.end(), v.get<std::string>()) != a.values.end();
}

std::vector<std::pair<std::string, std::string>>& extensions() {
  static std::vector<std::pair<std::string, std::string>> e;
  return e;
}

}  // namespace

bool register_extension(std::string file, std::string json_text) {
  extensions().emplace_back(std::move(file), std::move(json_text));
  return true;
}

const Catalogue& get() {
  static const Catalogue c = [] {
    auto files = builtin_files();
    files.insert(files.end(), extensions().begin(), extensions().end());
    return parse(files);
  }();
  return c;
}

std::string_view attr_type_name(AttrType t) {
  for (const auto& [k, n] : kTypeNames)
    if (k == t) return n;
  return "?";
}

bool TensorSpec::matches(std::string_view tensor_name) const {
  if (!variadic) return tensor_name == name;
  if (tensor_name.size() <= name.size() || tensor_name.substr(0, name.size()) != name) return false;
  const std::string_view index = tensor_name.substr(name.size());
  if (index.size() > 1 && index[0] == '0') return false;
  for (char ch : index)
    if (ch < '0' || ch > '9') return false;
  return std::stoi(std::string(index)) < max_count;
}

bool ConventionSpec::uses(std::string_view attribute) const {
  return std::find(attributes.begin(), attributes.end(), attribute) != attributes.end() ||
         std::find(optional_attributes.begin(), optional_attributes.end(), attribute) != optional_attributes.end();
}

const AttributeSpec* OpSpec::attribute(std::string_view n) const {
  for (const auto& a : attributes)
    if (a.name == n) return &a;
  return nullptr;
}
const ConventionSpec* OpSpec::convention(std::string_view n) const {
  for (const auto& c : conventions)
    if (c.name == n) return &c;
  return nullptr;
}
const TensorSpec* OpSpec::input(std::string_view n) const {
  for (const auto& t : inputs)
    if (t.matches(n)) return &t;
  return nullptr;
}
const TensorSpec* OpSpec::output(std::string_view n) const {
  for (const auto& t : outputs)
    if (t.matches(n)) return &t;
  return nullptr;
}

const OpSpec* Catalogue::op(std::string_view name) const {
  const auto it =
      std::lower_bound(ops.begin(), ops.end(), name, [](const OpSpec& o, std::string_view n) { return o.name < n; });
  return it != ops.end() && it->name == name ? &*it : nullptr;
}

const ConventionSpec* Catalogue::find(std::string_view op_name, std::string_view convention) const {
  const OpSpec* o = op(op_name);
  return o ? o->convention(convention) : nullptr;
}

Catalogue parse(const std::vector<std::pair<std::string, std::string>>& files) {
  Catalogue c;
  for (const auto& [file, text] : files) {
    Json j;
    try {
      j = Json::parse(text);
    } catch (const Json::parse_error& e) {
      throw CatalogueError(file + ": invalid JSON: " + e.what());
    }
    c.ops.push_back(parse_op(file, j));
  }
  std::sort(c.ops.begin(), c.ops.end(), [](const OpSpec& a, const OpSpec& b) { return a.name < b.name; });
  for (std::size_t i = 1; i < c.ops.size(); ++i)
    if (c.ops[i].name == c.ops[i - 1].name) throw CatalogueError("op '" + c.ops[i].name + "' is defined twice");
  std::set<std::string> vector_files;
  for (const auto& op : c.ops)
    for (const auto& conv : op.conventions)
      if (!conv.vectors.empty() && !vector_files.insert(conv.vectors).second)
        throw CatalogueError(op.name + " / " + conv.name + ": vector file '" + conv.vectors + "' is named twice");
  return c;
}

std::vector<TestProblem> check_test(const OpSpec& op, const ConventionSpec& conv, const Attrs& merged,
                                    const std::vector<std::pair<std::string, DType>>& inputs, bool valid) {
  std::vector<TestProblem> problems;
  if (merged.is_object())
    for (const auto& [name, v] : merged.items()) {
      const AttributeSpec* a = op.attribute(name);
      if (!a || !conv.uses(name)) {
        problems.push_back(
            {"attributes/" + name, "attribute '" + name + "' is not an attribute of " + op.name + " / " + conv.name});
        continue;
      }
      if (std::string p = attribute_problem(*a, v); !p.empty())
        problems.push_back({"attributes/" + name, std::move(p)});
      else if (valid && (a->type == AttrType::DType || a->type == AttrType::Enum) && !value_in(*a, v))
        problems.push_back({"attributes/" + name,
                            "attribute '" + name + "': \"" + v.get<std::string>() + "\" is not one of its values"});
    }
  if (valid)
    for (const auto& name : conv.attributes)
      if (!merged.is_object() || !merged.contains(name))
        problems.push_back({"attributes", "missing attribute '" + name + "'"});
  std::set<std::string> seen;
  for (const auto& [name, dtype] : inputs) {
    const TensorSpec* t = op.input(name);
    if (!t) {
      problems.push_back({"inputs/" + name, "input '" + name + "' is not an input of " + op.name});
      continue;
    }
    seen.insert(t->name);
    if (std::find(t->dtypes.begin(), t->dtypes.end(), dtype) == t->dtypes.end())
      problems.push_back(
          {"inputs/" + name, "input '" + name + "': dtype " + std::string(dtype_name(dtype)) + " is not allowed"});
  }
  if (valid)
    for (const auto& t : op.inputs)
      if (!seen.count(t.name) && t.min_count != 0)
        problems.push_back({"inputs", "missing input '" + t.name + (t.variadic ? "0" : "") + "'"});
  return problems;
}

}  // namespace qspec::catalogue
