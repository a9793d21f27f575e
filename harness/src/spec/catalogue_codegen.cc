// Generates the files derived from the op catalogue (qspec/spec/catalogue_codegen.h).
#include "qspec/spec/catalogue_codegen.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "qspec/core/catalogue.h"

namespace qspec::spec {
namespace {

namespace fs = std::filesystem;
using catalogue::AttributeSpec;
using catalogue::AttrType;
using catalogue::ConventionSpec;
using catalogue::OpSpec;
using catalogue::TensorSpec;
using Json = nlohmann::ordered_json;

constexpr const char* kCatalogueDir = "spec/catalogue";
constexpr const char* kKeysHeader = "core/include/qspec/catalogue/keys.h";
constexpr const char* kDataSource = "core/src/catalogue_data.cc";
constexpr const char* kSchemaDir = "vectors/schema";
constexpr const char* kOpsDoc = "spec/ops.md";
constexpr const char* kCommonSchema = "vectors.schema.json";

bool is_keyword(const std::string& s) {
  static const std::set<std::string> k = {
      "and",     "auto",     "bool",     "break",   "case",     "char",     "class",    "const",     "default",
      "delete",  "do",       "double",   "else",    "enum",     "explicit", "export",   "extern",    "false",
      "float",   "for",      "goto",     "if",      "inline",   "int",      "long",     "namespace", "new",
      "not",     "operator", "or",       "private", "public",   "register", "return",   "short",     "signed",
      "sizeof",  "static",   "struct",   "switch",  "template", "this",     "throw",    "true",      "try",
      "typedef", "union",    "unsigned", "using",   "virtual",  "void",     "volatile", "while",     "xor",
      "in",      "out",      "attr",     "conv",    "op"};
  return k.count(s) > 0;
}

// A C++ identifier for a catalogue name: '.', '-' and other punctuation become '_'; a keyword (or
// one of the generated namespace names) gets a trailing '_'.
std::string ident(const std::string& name) {
  std::string s;
  for (char c : name) s += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) s = "_" + s;
  if (is_keyword(s)) s += '_';
  return s;
}

std::string dtype_enumerator(const std::string& dtype_name) {
  static const std::map<std::string, std::string> m = {{"int8", "I8"},     {"uint8", "U8"},   {"int16", "I16"},
                                                       {"uint16", "U16"},  {"int32", "I32"},  {"int64", "I64"},
                                                       {"float32", "F32"}, {"float64", "F64"}};
  return "::qspec::DType::" + m.at(dtype_name);
}

std::string int_literal(std::int64_t v) {
  if (v == INT64_MIN) return "INT64_MIN";
  if (v == INT64_MAX) return "INT64_MAX";
  return std::to_string(v) + (v > 2147483647 || v < -2147483647 ? "LL" : "");
}

std::string quoted(const std::string& s) { return Json(s).dump(); }

// ---- keys.h ----

void emit_tensor_names(std::ostringstream& os, const char* ns, const std::vector<TensorSpec>& tensors) {
  if (tensors.empty()) return;
  os << "  struct " << ns << " {\n";
  for (const auto& t : tensors)
    os << "    static constexpr std::string_view " << ident(t.name) << " = " << quoted(t.name) << ";"
       << (t.variadic ? "  // variadic: " + t.name + "0, " + t.name + "1, ... (qspec::cat::indexed)" : "") << "\n";
  os << "  };\n";
}

void emit_attribute(std::ostringstream& os, const AttributeSpec& a) {
  const std::string id = ident(a.name);
  const std::string name = quoted(a.name);
  switch (a.type) {
    case AttrType::Int:
    case AttrType::IntArray:
    case AttrType::OptIntArray: {
      const char* type = a.type == AttrType::Int ? "Int" : a.type == AttrType::IntArray ? "IntArray" : "OptIntArray";
      os << "    static constexpr ::qspec::attr::" << type << " " << id << "{" << name << ", " << int_literal(a.min)
         << ", " << int_literal(a.max) << "};\n";
      break;
    }
    case AttrType::F32: os << "    static constexpr ::qspec::attr::F32 " << id << "{" << name << "};\n"; break;
    case AttrType::F32Array:
      os << "    static constexpr ::qspec::attr::F32Array " << id << "{" << name << "};\n";
      break;
    case AttrType::F64: os << "    static constexpr ::qspec::attr::F64 " << id << "{" << name << "};\n"; break;
    case AttrType::Bool: os << "    static constexpr ::qspec::attr::Bool " << id << "{" << name << "};\n"; break;
    case AttrType::DType: {
      os << "    static constexpr ::qspec::DType " << id << "_dtypes[] = {";
      for (std::size_t i = 0; i < a.values.size(); ++i) os << (i ? ", " : "") << dtype_enumerator(a.values[i]);
      os << "};\n";
      os << "    static constexpr ::qspec::attr::DTypeKey " << id << "{" << name << ", " << id << "_dtypes};\n";
      break;
    }
    case AttrType::Enum: {
      os << "    static constexpr std::string_view " << id << "_values[] = {";
      for (std::size_t i = 0; i < a.values.size(); ++i) os << (i ? ", " : "") << quoted(a.values[i]);
      os << "};\n";
      os << "    static constexpr ::qspec::attr::Enum " << id << "{" << name << ", " << id << "_values};\n";
      os << "    struct " << id << "_is {  // the values, for comparisons with get(attrs, " << id << ")\n";
      for (const auto& v : a.values)
        os << "      static constexpr std::string_view " << ident(v) << " = " << quoted(v) << ";\n";
      os << "    };\n";
      break;
    }
  }
}

std::string keys_header(const catalogue::Catalogue& c) {
  std::ostringstream os;
  os << "// GENERATED by `qspec spec generate` from spec/catalogue/*.json: edit the catalogue, not this file.\n"
        "//\n"
        "// Typed names of the op catalogue. Each op is a struct (so templates can take an op): its name\n"
        "// (op), tensor names (in, out), typed attribute keys with the catalogue's domains (attr, read and\n"
        "// written with qspec/core/attr.h) and convention names (conv). In-tree code names ops, attributes\n"
        "// and conventions through these, never with string literals.\n"
        "#pragma once\n\n"
        "#include <cstdint>\n#include <string>\n#include <string_view>\n\n#include \"qspec/core/attr.h\"\n\n"
        "namespace qspec::cat {\n\n"
        "// The k-th tensor of a variadic input or output: indexed(in::x, 2) == \"x2\".\n"
        "inline std::string indexed(std::string_view base, std::size_t k) { return std::string(base) + "
        "std::to_string(k); }\n";
  for (const auto& op : c.ops) {
    os << "\n// " << op.name << ": " << op.summary << " (" << op.spec << ")\n";
    os << "struct " << ident(op.name) << " {\n";
    os << "  static constexpr std::string_view op = " << quoted(op.name) << ";\n";
    emit_tensor_names(os, "in", op.inputs);
    emit_tensor_names(os, "out", op.outputs);
    if (!op.attributes.empty()) {
      os << "  struct attr {\n";
      for (const auto& a : op.attributes) emit_attribute(os, a);
      os << "  };\n";
    }
    os << "  struct conv {\n";
    for (const auto& cv : op.conventions)
      os << "    static constexpr std::string_view " << ident(cv.name) << " = " << quoted(cv.name) << ";"
         << (cv.diagnostic_only ? "  // diagnostic only" : "") << "\n";
    os << "  };\n";
    os << "};\n";
  }
  os << "\n}  // namespace qspec::cat\n";
  return os.str();
}

// ---- catalogue_data.cc ----

std::string data_source(const std::vector<std::pair<std::string, std::string>>& files) {
  std::ostringstream os;
  os << "// GENERATED by `qspec spec generate` from spec/catalogue/*.json: edit the catalogue, not this file.\n"
        "// The op catalogue's files compiled into the program; catalogue::get() parses them on first use.\n"
        "#include <string>\n#include <utility>\n#include <vector>\n\n#include \"qspec/core/catalogue.h\"\n\n"
        "namespace qspec::catalogue {\n\n"
        "std::vector<std::pair<std::string, std::string>> builtin_files() {\n"
        "  return {\n";
  for (const auto& [path, text] : files) {
    if (text.find(")qspec\"") != std::string::npos) throw catalogue::CatalogueError(path + ": contains )qspec\"");
    os << "      {" << quoted(path) << ", R\"qspec(" << text << ")qspec\"},\n";
  }
  os << "  };\n}\n\n}  // namespace qspec::catalogue\n";
  return os.str();
}

// ---- schemas ----

Json integer_schema() { return {{"type", Json::array({"integer", "string"})}, {"pattern", "^-?[0-9]+$"}}; }

Json attribute_schema(const AttributeSpec& a) {
  Json s;
  switch (a.type) {
    case AttrType::Int: s = integer_schema(); break;
    case AttrType::IntArray: s = {{"type", "array"}, {"items", integer_schema()}}; break;
    case AttrType::OptIntArray:
      s = {{"type", "array"},
           {"items", {{"type", Json::array({"integer", "string", "null"})}, {"pattern", "^-?[0-9]+$"}}}};
      break;
    case AttrType::F32: s = {{"type", "string"}, {"pattern", "^0x[0-9a-f]{8}$"}}; break;
    case AttrType::F32Array:
      s = {{"type", "array"}, {"items", {{"type", "string"}, {"pattern", "^0x[0-9a-f]{8}$"}}}};
      break;
    case AttrType::F64: s = {{"type", "string"}, {"pattern", "^0x[0-9a-f]{16}$"}}; break;
    case AttrType::Bool: s = {{"type", "boolean"}}; break;
    // An invalid test may carry a dtype or enum value outside the op's (the op rejects it by an
    // ERROR_IF), so the schema asks for a string; the loader checks valid tests' values.
    case AttrType::DType:
    case AttrType::Enum: s = {{"type", "string"}}; break;
  }
  if (!a.doc.empty()) s["description"] = a.doc;
  return s;
}

Json tensor_names_schema(const std::vector<TensorSpec>& tensors) {
  Json props = Json::object(), patterns = Json::object();
  for (const auto& t : tensors) {
    Json dt = {{"properties", {{"dtype", {{"enum", Json::array()}}}}}};
    for (DType d : t.dtypes) dt["properties"]["dtype"]["enum"].push_back(std::string(dtype_name(d)));
    // A variadic tensor's dtypes are the catalogue check's (vector_file.cc): rapidjson 1.1.0
    // reports a failure under patternProperties without the subschema that failed, so the pattern
    // here only admits the names.
    if (t.variadic)
      patterns["^" + t.name + "(0|[1-9][0-9]*)$"] = Json::object();
    else
      props[t.name] = dt;
  }
  // Beside patternProperties, "no other member" is written {"not": {}}: rapidjson 1.1.0 validates
  // a pattern-only member wrongly under `false` (harness/src/schema_validation.cc).
  Json s = {{"type", "object"}, {"additionalProperties", false}};
  if (!props.empty()) s["properties"] = props;
  if (!patterns.empty()) {
    s["patternProperties"] = patterns;
    s["additionalProperties"] = {{"not", Json::object()}};
  }
  return s;
}

std::string op_schema(const OpSpec& op) {
  Json attrs = Json::object();
  for (const auto& a : op.attributes) attrs[a.name] = attribute_schema(a);
  Json conventions = Json::array();
  for (const auto& c : op.conventions)
    if (!c.diagnostic_only) conventions.push_back(c.name);
  Json inputs = tensor_names_schema(op.inputs);
  Json outputs = tensor_names_schema(op.outputs);
  // Output dtypes are checked by the loader against the catalogue (they may follow an attribute).
  for (const char* side : {"properties", "patternProperties"})
    if (outputs.contains(side))
      for (auto& [k, v] : outputs[side].items()) v = Json::object();
  Json test = {{"type", "object"},
               {"properties",
                {{"attributes", {{"$ref", "#/definitions/attributes"}}},
                 {"inputs", {{"$ref", "#/definitions/inputs"}}},
                 {"expected", {{"$ref", "#/definitions/outputs"}}}}}};
  Json s = {
      {"$schema", "http://json-schema.org/draft-04/schema#"},
      {"id", "https://qspec.invalid/schema/" + op.name + ".schema.json"},
      {"title", "Vector files of op \"" + op.name + "\" (generated from spec/catalogue/" + op.name + ".json)"},
      {"description", op.summary + " Refines vectors.schema.json: the op's conventions, attribute names and types, "
                                   "tensor names and input dtypes. Required attributes per convention and the values "
                                   "of dtype and enum attributes are checked by the loader."},
      {"type", "object"},
      {"properties",
       {{"op", {{"enum", Json::array({op.name})}}},
        {"convention", {{"enum", conventions}}},
        {"testGroups",
         {{"type", "array"},
          {"items",
           {{"type", "object"},
            {"properties",
             {{"attributes", {{"$ref", "#/definitions/attributes"}}},
              {"tests", {{"type", "array"}, {"items", test}}}}}}}}}}},
      {"definitions",
       {{"attributes", {{"type", "object"}, {"additionalProperties", false}, {"properties", attrs}}},
        {"inputs", inputs},
        {"outputs", outputs}}}};
  return s.dump(2) + "\n";
}

// ---- spec/ops.md ----

std::string md_escape(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

std::string anchor(const std::string& op) {
  std::string a;
  for (char c : op)
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-') a += c;
  return a;
}

std::string domain_text(const AttributeSpec& a) {
  std::string d;
  const bool integral = a.type == AttrType::Int || a.type == AttrType::IntArray || a.type == AttrType::OptIntArray;
  if (integral && (a.min != INT64_MIN || a.max != INT64_MAX))
    d = "[" + (a.min == INT64_MIN ? std::string("-2^63") : std::to_string(a.min)) + ", " +
        (a.max == INT64_MAX ? std::string("2^63-1") : std::to_string(a.max)) + "]";
  for (std::size_t i = 0; i < a.values.size(); ++i) d += (i ? ", " : "") + a.values[i];
  return d;
}

std::string tensor_row(const TensorSpec& t) {
  std::string name = t.variadic ? t.name + "0.." + t.name + std::to_string(t.max_count - 1) : t.name;
  std::string dt;
  for (DType d : t.dtypes) dt += (dt.empty() ? "" : ", ") + std::string(dtype_name(d));
  if (!t.dtype_from_attribute.empty()) dt += " (= attribute `" + t.dtype_from_attribute + "`)";
  if (!t.dtype_same_as.empty()) dt += " (= dtype of `" + t.dtype_same_as + "`)";
  if (!t.variadic && t.min_count == 0) name += " (optional)";
  return "| `" + name + "` | " + dt + " | " + md_escape(t.doc) + " |\n";
}

std::string join_code(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "`" : ", `") + x + "`";
  return s;
}

std::string ops_doc(const catalogue::Catalogue& c) {
  std::ostringstream os;
  os << "<!-- GENERATED by `qspec spec generate` from spec/catalogue/*.json: edit the catalogue, not this file. -->\n"
        "# Op index\n\n"
        "Every op of the vectors, from the catalogue (`spec/catalogue/`, format in its README). Per op: the\n"
        "tensors and attributes of its vector files, and per convention the clauses it implements, the\n"
        "attributes it reads (optional ones in parentheses) and its vector file. Diagnostic-only\n"
        "conventions have no vectors: they name the convention a wrong result matches.\n\n"
        "| op | summary | conventions | spec |\n|---|---|---|---|\n";
  for (const auto& op : c.ops) {
    std::size_t normative = 0;
    for (const auto& cv : op.conventions) normative += cv.diagnostic_only ? 0 : 1;
    os << "| [`" << op.name << "`](#" << anchor(op.name) << ") | " << md_escape(op.summary) << " | " << normative
       << (op.conventions.size() > normative
               ? " (+" + std::to_string(op.conventions.size() - normative) + " diagnostic)"
               : "")
       << " | [" << op.spec << "](" << op.spec.substr(op.spec.find('/') + 1) << ") |\n";
  }
  for (const auto& op : c.ops) {
    os << "\n## `" << op.name << "`\n\n"
       << op.summary << (op.elementwise ? " Elementwise." : "") << " Clauses: [" << op.spec << "]("
       << op.spec.substr(op.spec.find('/') + 1) << ").\n\n";
    os << "| input | dtypes | |\n|---|---|---|\n";
    for (const auto& t : op.inputs) os << tensor_row(t);
    os << "\n| output | dtypes | |\n|---|---|---|\n";
    for (const auto& t : op.outputs) os << tensor_row(t);
    if (!op.attributes.empty()) {
      os << "\n| attribute | type | domain | meaning |\n|---|---|---|---|\n";
      for (const auto& a : op.attributes)
        os << "| `" << a.name << "` | " << catalogue::attr_type_name(a.type) << " | " << md_escape(domain_text(a))
           << " | " << md_escape(a.doc) << " |\n";
    }
    os << "\n| convention | clauses | attributes | vectors | what it computes |\n|---|---|---|---|---|\n";
    for (const auto& cv : op.conventions) {
      std::string attrs = join_code(cv.attributes);
      if (!cv.optional_attributes.empty())
        attrs += (attrs.empty() ? "(" : " (") + join_code(cv.optional_attributes) + ")";
      os << "| `" << cv.name << "` | " << join_code(cv.clauses) << " | " << attrs << " | "
         << (cv.diagnostic_only ? std::string("diagnostic only")
                                : "[" + cv.vectors + "](../vectors/" + cv.vectors + ")")
         << " | " << md_escape(cv.description) << " |\n";
    }
  }
  return os.str();
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

std::vector<std::pair<std::string, std::string>> read_catalogue_files(const std::string& root) {
  std::vector<std::pair<std::string, std::string>> files;
  const fs::path dir = fs::path(root) / kCatalogueDir;
  if (!fs::is_directory(dir)) throw catalogue::CatalogueError("no catalogue directory " + dir.string());
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".json")
      files.emplace_back(std::string(kCatalogueDir) + "/" + e.path().filename().string(), read_text(e.path()));
  std::sort(files.begin(), files.end());
  return files;
}

std::map<std::string, std::string> generate_from_catalogue(
    const std::vector<std::pair<std::string, std::string>>& files) {
  const catalogue::Catalogue c = catalogue::parse(files);
  for (const auto& [path, text] : files) {
    const std::string stem = fs::path(path).stem().string();
    if (!c.op(stem)) throw catalogue::CatalogueError(path + ": the file name must be the op's name + .json");
  }
  std::map<std::string, std::string> out;
  out[kKeysHeader] = keys_header(c);
  out[kDataSource] = data_source(files);
  out[kOpsDoc] = ops_doc(c);
  for (const auto& op : c.ops) out[std::string(kSchemaDir) + "/" + op.name + ".schema.json"] = op_schema(op);
  return out;
}

std::vector<std::string> stale_generated_files(const std::string& root,
                                               const std::map<std::string, std::string>& generated) {
  std::vector<std::string> stale;
  const fs::path dir = fs::path(root) / kSchemaDir;
  if (fs::is_directory(dir))
    for (const auto& e : fs::directory_iterator(dir)) {
      const std::string rel = std::string(kSchemaDir) + "/" + e.path().filename().string();
      if (e.path().filename() != kCommonSchema && !generated.count(rel)) stale.push_back(rel);
    }
  std::sort(stale.begin(), stale.end());
  return stale;
}

}  // namespace qspec::spec
