// rapidjson-backed (JSON Schema draft 4) validation of vector files against vectors/schema/*.schema.json.
//
// rapidjson 1.1.0 (Debian 12's rapidjson-dev) stops at the first violation and silently ignores
// keywords it does not implement. So a schema is vetted when it is loaded (draft-4 keywords only,
// every "$ref" resolves, every "pattern" compiles), and a document is validated repeatedly: after
// each violation the violated keyword is dropped from a copy of the schema and the document is
// validated again. Every message is a real violation; a rule broken in many places is reported at
// its first place (at most kMaxMessages messages per schema).
#include "qspec/harness/schema_validation.h"

#include <rapidjson/document.h>
#include <rapidjson/encodedstream.h>
#include <rapidjson/error/en.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/pointer.h>
#include <rapidjson/schema.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdio>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "qspec/harness/json_precheck.h"

namespace qspec::harness {
namespace fs = std::filesystem;

namespace {
constexpr const char* kCommonSchema = "vectors.schema.json";
constexpr const char* kSuffix = ".schema.json";
constexpr std::size_t kMaxMessages = 20;
constexpr unsigned kParseFlags = rapidjson::kParseValidateEncodingFlag;

// Draft-4 keywords rapidjson 1.1.0 implements, by what their value holds. Anything else in a
// schema ("const", "if"/"then"/"else", "$id", "contains", "format", ...) would be ignored without
// a word, so loading such a schema is an error naming the keyword.
const std::set<std::string> kSchemaValued = {"additionalItems", "additionalProperties", "not"};
const std::set<std::string> kSchemaMapValued = {"definitions", "properties", "patternProperties", "dependencies"};
const std::set<std::string> kSchemaListValued = {"allOf", "anyOf", "oneOf"};
const std::set<std::string> kDataValued = {"$schema",
                                           "id",
                                           "$ref",
                                           "title",
                                           "description",
                                           "default",
                                           "multipleOf",
                                           "maximum",
                                           "exclusiveMaximum",
                                           "minimum",
                                           "exclusiveMinimum",
                                           "maxLength",
                                           "minLength",
                                           "pattern",
                                           "maxItems",
                                           "minItems",
                                           "uniqueItems",
                                           "maxProperties",
                                           "minProperties",
                                           "required",
                                           "enum",
                                           "type"};
constexpr const char* kDraft4 = "http://json-schema.org/draft-04/schema#";

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open schema " + p.string());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Control characters and bytes >= 0x7f as \xNN: paths and values come from untrusted files and
// end up on a terminal.
std::string printable(const std::string& s, std::size_t max_chars = 60) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (out.size() >= max_chars) {
      out += "...";
      break;
    }
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c >= 0x7f) {
      char b[8];
      std::snprintf(b, sizeof b, "\\x%02x", c);
      out += b;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::string compact(const rapidjson::Value& v) {
  rapidjson::StringBuffer sb;
  rapidjson::Writer<rapidjson::StringBuffer> w(sb);
  v.Accept(w);
  return printable(sb.GetString());
}

std::string json_type(const rapidjson::Value& v) {
  if (v.IsNull()) return "null";
  if (v.IsBool()) return "a boolean";
  if (v.IsInt64() || v.IsUint64()) return "an integer";
  if (v.IsNumber()) return "a non-integer number";
  if (v.IsString()) return "a string";
  if (v.IsArray()) return "an array";
  return "an object";
}

std::string pointer_text(const rapidjson::Pointer& p) {
  rapidjson::StringBuffer sb;
  p.Stringify(sb);
  const std::string s = sb.GetString();
  return s.empty() ? "/" : printable(s, 200);
}

std::string list_text(const rapidjson::Value& arr) {
  std::string s;
  if (!arr.IsArray()) return compact(arr);
  for (const auto& v : arr.GetArray()) s += (s.empty() ? "" : ", ") + compact(v);
  return s;
}

// rapidjson's regex parser asserts (or misbehaves under NDEBUG) on an unclosed '(' or a quantifier
// that follows no atom ("a**"), so those are refused before it sees the pattern; then its own
// check (IsValid) refuses what it does not implement (\d, (?:), ...).
bool pattern_compiles(const std::string& p) {
  int depth = 0;
  bool atom = false;  // the previous token can take a quantifier
  bool empty = true;  // nothing since the start, a '(' or a '|'
  for (std::size_t i = 0; i < p.size(); ++i) {
    const char c = p[i];
    if (c == '(' || c == '|') {
      if (c == '|' && empty) return false;
      depth += c == '(';
      atom = false;
      empty = true;
      continue;
    }
    if (c == ')') {
      if (--depth < 0 || empty) return false;
      atom = true;
      empty = false;
      continue;
    }
    if (c == '*' || c == '+' || c == '?' || c == '{') {
      if (!atom) return false;
      if (c == '{' && (i = p.find('}', i)) == std::string::npos) return false;
      atom = false;
      continue;
    }
    if (c == '\\' && ++i >= p.size()) return false;
    if (c == '[' && (i = p.find(']', i + 2)) == std::string::npos) return false;  // "[]a]" holds ']'
    atom = c != '^';
    empty = false;
  }
  return depth == 0 && !empty && rapidjson::internal::GenericRegex<rapidjson::UTF8<>>(p.c_str()).IsValid();
}

// Checks a schema node (recursively) for keywords rapidjson would ignore and for patterns it
// cannot compile; `where` is the node's JSON Pointer in the schema file.
void vet_schema_node(const rapidjson::Value& node, const std::string& where, const rapidjson::Document& root) {
  if (!node.IsObject()) throw std::runtime_error("at " + where + ": a schema must be a JSON object");
  // rapidjson 1.1.0 mishandles a member matched by patternProperties alone when additionalProperties
  // is false: no schema is pushed for its value, so the value is validated against the enclosing
  // object's schema (an "x0" tensor's "dtype" became an unknown field of "inputs"). With a schema
  // there ({"not": {}}) it validates the member against the pattern, as draft 4 says.
  if (node.HasMember("patternProperties") && node.HasMember("additionalProperties") &&
      node["additionalProperties"].IsBool() && !node["additionalProperties"].GetBool())
    throw std::runtime_error("at " + where +
                             ": patternProperties with \"additionalProperties\": false is validated wrongly by "
                             "rapidjson 1.1.0; write \"additionalProperties\": {\"not\": {}}");
  for (const auto& m : node.GetObject()) {
    const std::string key = m.name.GetString();
    const std::string at = where + "/" + key;
    if (kSchemaValued.count(key)) {
      if (!m.value.IsBool()) vet_schema_node(m.value, at, root);
    } else if (kSchemaMapValued.count(key)) {
      if (!m.value.IsObject()) throw std::runtime_error("at " + at + ": must be an object");
      for (const auto& e : m.value.GetObject()) {
        if (key == "dependencies" && e.value.IsArray()) continue;  // property dependencies
        if (key == "patternProperties" && !pattern_compiles(e.name.GetString()))
          throw std::runtime_error("at " + at + ": rapidjson cannot compile the pattern \"" + e.name.GetString() +
                                   "\"");
        vet_schema_node(e.value, at + "/" + e.name.GetString(), root);
      }
    } else if (kSchemaListValued.count(key) || key == "items") {
      if (key == "items" && m.value.IsObject()) {
        vet_schema_node(m.value, at, root);
        continue;
      }
      if (!m.value.IsArray()) throw std::runtime_error("at " + at + ": must be an array of schemas");
      for (rapidjson::SizeType i = 0; i < m.value.Size(); ++i)
        vet_schema_node(m.value[i], at + "/" + std::to_string(i), root);
    } else if (kDataValued.count(key)) {
      if (key == "pattern" && (!m.value.IsString() || !pattern_compiles(m.value.GetString())))
        throw std::runtime_error("at " + at + ": rapidjson cannot compile this pattern");
      if (key == "$ref") {
        const std::string ref = m.value.IsString() ? m.value.GetString() : "";
        if (ref.empty() || ref[0] != '#' || !rapidjson::Pointer(ref.c_str() + 1).IsValid() ||
            !rapidjson::Pointer(ref.c_str() + 1).Get(root))
          throw std::runtime_error("at " + at + ": \"" + ref + "\" does not resolve inside this schema file");
      }
    } else {
      throw std::runtime_error("at " + at + ": keyword \"" + key +
                               "\" is not JSON Schema draft 4 as rapidjson implements it (it would be ignored)" +
                               (key == "const" ? "; use a one-value \"enum\"" : "") +
                               (key == "if" || key == "then" || key == "else" ? "; use \"oneOf\"" : "") +
                               (key == "$id" ? "; use \"id\"" : ""));
    }
  }
}

// A readable sentence for one violation: `keyword` of the subschema `schema` failed on `value`.
std::string describe(const std::string& keyword, const rapidjson::Value& schema, const rapidjson::Value* value,
                     const std::string& schema_pointer) {
  const rapidjson::Value* kw =
      schema.IsObject() && schema.HasMember(keyword.c_str()) ? &schema[keyword.c_str()] : nullptr;
  if (keyword == "required" && kw && kw->IsArray() && value && value->IsObject()) {
    std::string missing;
    for (const auto& r : kw->GetArray())
      if (r.IsString() && !value->HasMember(r))
        missing += (missing.empty() ? "\"" : ", \"") + printable(r.GetString()) + "\"";
    return "missing required field" + std::string(missing.find(',') != std::string::npos ? "s " : " ") + missing;
  }
  if (keyword == "additionalProperties" && value && value->IsObject()) {
    std::string extra;
    for (const auto& m : value->GetObject()) {
      const bool declared =
          schema.HasMember("properties") && schema["properties"].IsObject() && schema["properties"].HasMember(m.name);
      bool patterned = false;
      if (schema.HasMember("patternProperties") && schema["patternProperties"].IsObject())
        for (const auto& pp : schema["patternProperties"].GetObject())
          patterned =
              patterned ||
              rapidjson::internal::GenericRegex<rapidjson::UTF8<>>(pp.name.GetString()).Search(m.name.GetString());
      if (!declared && !patterned) extra += (extra.empty() ? "\"" : ", \"") + printable(m.name.GetString()) + "\"";
    }
    std::string allowed;
    if (schema.HasMember("properties") && schema["properties"].IsObject())
      for (const auto& p : schema["properties"].GetObject())
        allowed += (allowed.empty() ? "" : ", ") + std::string(p.name.GetString());
    return "unknown field " + extra + (allowed.empty() ? "" : " (allowed: " + allowed + ")");
  }
  const std::string what = value ? compact(*value) : std::string("the value");
  if (keyword == "type" && kw && value) return what + " is " + json_type(*value) + ", expected type " + list_text(*kw);
  if (keyword == "enum" && kw) return what + " is not one of " + list_text(*kw);
  if (keyword == "pattern" && kw) return what + " does not match the pattern " + compact(*kw);
  if ((keyword == "minimum" || keyword == "maximum") && kw)
    return what + " is " + (keyword == "minimum" ? "below the minimum " : "above the maximum ") + compact(*kw);
  if ((keyword == "minLength" || keyword == "maxLength" || keyword == "minItems" || keyword == "maxItems" ||
       keyword == "minProperties" || keyword == "maxProperties") &&
      kw)
    return what + " violates " + keyword + " " + compact(*kw);
  if (keyword == "uniqueItems") return what + " has repeated items";
  std::string s = "violates \"" + keyword + "\" of " + schema_pointer;
  if (schema.IsObject() && schema.HasMember("description") && schema["description"].IsString())
    s += std::string(" (") + schema["description"].GetString() + ")";
  return s;
}

// Every SAX event to the common schema's validator and, when the op has a schema, to the op's:
// a valid file is checked against both in one pass over its text, with no DOM built. A handler
// that returns false stops the parse (the caller then validates again, the slow way, for the
// messages).
struct BothValidators {
  rapidjson::SchemaValidator& common;
  rapidjson::SchemaValidator* op;
  template <typename Event>
  bool both(Event event) {
    return event(common) && (!op || event(*op));
  }
  bool Null() {
    return both([](auto& v) { return v.Null(); });
  }
  bool Bool(bool b) {
    return both([b](auto& v) { return v.Bool(b); });
  }
  bool Int(int i) {
    return both([i](auto& v) { return v.Int(i); });
  }
  bool Uint(unsigned u) {
    return both([u](auto& v) { return v.Uint(u); });
  }
  bool Int64(std::int64_t i) {
    return both([i](auto& v) { return v.Int64(i); });
  }
  bool Uint64(std::uint64_t u) {
    return both([u](auto& v) { return v.Uint64(u); });
  }
  bool Double(double d) {
    return both([d](auto& v) { return v.Double(d); });
  }
  bool RawNumber(const char* s, rapidjson::SizeType n, bool copy) {
    return both([=](auto& v) { return v.RawNumber(s, n, copy); });
  }
  bool String(const char* s, rapidjson::SizeType n, bool copy) {
    return both([=](auto& v) { return v.String(s, n, copy); });
  }
  bool StartObject() {
    return both([](auto& v) { return v.StartObject(); });
  }
  bool Key(const char* s, rapidjson::SizeType n, bool copy) {
    return both([=](auto& v) { return v.Key(s, n, copy); });
  }
  bool EndObject(rapidjson::SizeType n) {
    return both([n](auto& v) { return v.EndObject(n); });
  }
  bool StartArray() {
    return both([](auto& v) { return v.StartArray(); });
  }
  bool EndArray(rapidjson::SizeType n) {
    return both([n](auto& v) { return v.EndArray(n); });
  }
};

}  // namespace

struct SchemaSet::Impl {
  struct Entry {
    std::string file;
    rapidjson::Document doc;  // the schema as written; violations relax a copy of it
    std::unique_ptr<rapidjson::SchemaDocument> schema;
  };
  std::unique_ptr<Entry> common;
  std::map<std::string, std::unique_ptr<Entry>> per_op;

  static std::unique_ptr<Entry> load(const fs::path& p) {
    auto e = std::make_unique<Entry>();
    e->file = p.filename().string();
    const std::string text = read_file(p);
    e->doc.Parse<kParseFlags>(text.data(), text.size());
    if (e->doc.HasParseError())
      throw std::runtime_error("schema " + p.string() +
                               " is not valid JSON: " + rapidjson::GetParseError_En(e->doc.GetParseError()) +
                               " at offset " + std::to_string(e->doc.GetErrorOffset()));
    try {
      if (!e->doc.IsObject() || !e->doc.HasMember("$schema") || !e->doc["$schema"].IsString() ||
          std::string(e->doc["$schema"].GetString()) != kDraft4)
        throw std::runtime_error(std::string("\"$schema\" must be \"") + kDraft4 +
                                 "\" (rapidjson implements JSON Schema draft 4)");
      vet_schema_node(e->doc, "", e->doc);
    } catch (const std::exception& ex) {
      throw std::runtime_error("schema " + p.string() + " cannot be used: " + ex.what());
    }
    e->schema = std::make_unique<rapidjson::SchemaDocument>(e->doc);
    return e;
  }

  static void check(const Entry& e, const rapidjson::Document& doc, std::vector<std::string>& out) {
    {
      rapidjson::SchemaValidator v(*e.schema);
      if (doc.Accept(v)) return;
    }
    rapidjson::Document relaxed;
    relaxed.CopyFrom(e.doc, relaxed.GetAllocator());
    for (std::size_t n = 0; n < kMaxMessages; ++n) {
      std::string schema_pointer, keyword;  // "#/definitions/test", "oneOf"
      rapidjson::Pointer full;              // where in the document
      {
        // The schema document and its validator end here, before `relaxed` is edited below.
        const rapidjson::SchemaDocument sd(relaxed);
        rapidjson::SchemaValidator v(sd);
        if (doc.Accept(v)) return;
        rapidjson::StringBuffer sp;
        v.GetInvalidSchemaPointer().StringifyUriFragment(sp);
        schema_pointer = sp.GetString();
        keyword = v.GetInvalidSchemaKeyword();
        full = v.GetInvalidDocumentPointer();
      }
      // {"not": {}} as additionalProperties (beside patternProperties, see vet_schema_node) fails
      // at the unknown member's value: report it as the unknown field it is.
      const std::string kAdditional = "/additionalProperties";
      if (keyword == "not" && schema_pointer.size() > kAdditional.size() &&
          schema_pointer.compare(schema_pointer.size() - kAdditional.size(), kAdditional.size(), kAdditional) == 0 &&
          full.GetTokenCount() > 0) {
        const rapidjson::Pointer parent(full.GetTokens(), full.GetTokenCount() - 1);
        const auto& name = full.GetTokens()[full.GetTokenCount() - 1];
        out.push_back(e.file + ": at " + pointer_text(parent) + ": unknown field \"" +
                      printable(std::string(name.name, name.length)) + "\"");
        rapidjson::Value* sub = rapidjson::Pointer(schema_pointer.c_str()).Get(relaxed);
        if (!sub || !sub->IsObject() || !sub->HasMember("not")) return;
        sub->RemoveMember("not");
        continue;
      }
      // An unknown member is reported at its own path ("/inputs/x2"): describe it at its object.
      const std::size_t depth =
          full.GetTokenCount() - (keyword == "additionalProperties" && full.GetTokenCount() > 0 ? 1 : 0);
      const rapidjson::Pointer doc_pointer(full.GetTokens(), depth);                    // a view of `full`'s tokens
      rapidjson::Value* sub = rapidjson::Pointer(schema_pointer.c_str()).Get(relaxed);  // URI fragment form
      const rapidjson::Value* value = doc_pointer.Get(doc);
      if (!sub || !sub->IsObject() || !sub->HasMember(keyword.c_str())) {
        out.push_back(e.file + ": at " + pointer_text(doc_pointer) + ": violates \"" + keyword + "\" of " +
                      schema_pointer);
        return;  // cannot relax what cannot be found: stop rather than loop
      }
      out.push_back(e.file + ": at " + pointer_text(doc_pointer) + ": " +
                    describe(keyword, *sub, value, schema_pointer));
      sub->RemoveMember(keyword.c_str());
    }
    out.push_back(e.file + ": (more violations not listed)");
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

std::vector<std::string> SchemaSet::validate(const std::string& text, Prechecked prechecked) const {
  std::vector<std::string> out;
  // The loader's limits first (vector_limits.h): the validator walks the document recursively,
  // so a deeply nested or oversized file must never become a DOM here either.
  if (const auto e = prechecked == Prechecked::Yes ? std::nullopt : precheck_json(text))
    return {(e->tc_id ? "tcId " + std::to_string(*e->tc_id) + ": " : std::string()) +
            (e->json_path.empty() ? std::string() : "at " + e->json_path + ": ") + e->problem};
  rapidjson::Document doc;
  doc.Parse<kParseFlags>(text.data(), text.size());
  if (doc.HasParseError())
    return {std::string("not valid JSON: ") + rapidjson::GetParseError_En(doc.GetParseError()) + " at offset " +
            std::to_string(doc.GetErrorOffset())};
  Impl::check(*impl_->common, doc, out);
  if (doc.IsObject() && doc.HasMember("op") && doc["op"].IsString()) {
    auto it = impl_->per_op.find(std::string(doc["op"].GetString(), doc["op"].GetStringLength()));
    if (it != impl_->per_op.end()) Impl::check(*it->second, doc, out);
  }
  return out;
}

std::vector<std::string> SchemaSet::validate(const std::string& text, Prechecked prechecked,
                                             const std::string& op) const {
  if (prechecked == Prechecked::Yes) {
    const auto it = impl_->per_op.find(op);
    rapidjson::SchemaValidator common(*impl_->common->schema);
    std::optional<rapidjson::SchemaValidator> per_op;
    if (it != impl_->per_op.end()) per_op.emplace(*it->second->schema);
    BothValidators both{common, per_op ? &*per_op : nullptr};
    rapidjson::Reader reader;
    rapidjson::MemoryStream ms(text.data(), text.size());
    rapidjson::EncodedInputStream<rapidjson::UTF8<>, rapidjson::MemoryStream> in(ms);
    if (!reader.Parse<kParseFlags>(in, both).IsError() && common.IsValid() && (!per_op || per_op->IsValid())) return {};
  }
  return validate(text, prechecked);  // not prechecked, or a violation: the DOM path, for the messages
}

std::vector<std::string> SchemaSet::op_schemas() const {
  std::vector<std::string> v;
  for (const auto& [op, e] : impl_->per_op) v.push_back(op);
  return v;
}

}  // namespace qspec::harness
