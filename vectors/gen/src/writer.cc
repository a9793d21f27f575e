// Builds a family's golden-vector document: generator inputs + exact reference outputs.
#include <set>

#include "qspec/core/attr.h"
#include "qspec/core/catalogue.h"
#include "qspec/core/json_values.h"
#include "qspec/ref/exact.h"
#include "qspec/refops.h"
#include "qspec/vecgen/generate.h"

namespace qspec::vecgen {
namespace {
using OJ = nlohmann::ordered_json;

OJ named_tensors(const std::vector<Tensor>& ts) {
  OJ o = OJ::object();
  for (const auto& t : ts) o[t.name] = tensor_to_json(t);
  return o;
}

}  // namespace

OJ generate_document(const Family& f, const std::string& tool_version) {
  const std::string fam = "vector family " + f.file;
  const refops::OpImpl* impl = refops::find_op(f.op, f.convention);
  if (!impl) throw GenerationError(fam + ": no reference op registered for (" + f.op + ", " + f.convention + ")");
  if (impl->diagnostic_only)
    throw GenerationError(fam + ": (" + f.op + ", " + f.convention +
                          ") is diagnostic_only, not a normative convention");
  if (!f.generate) throw GenerationError(fam + ": has no generate function");

  std::set<std::string> known_flags;
  OJ notes = OJ::object();
  for (const auto& [flag, meaning] : f.notes) {
    if (flag.empty() || meaning.empty())
      throw GenerationError(fam + ": every note needs a flag name and an explanation");
    if (!known_flags.insert(flag).second) throw GenerationError(fam + ": flag '" + flag + "' explained twice");
    notes[flag] = meaning;
  }

  OJ doc = OJ::object();
  doc["schema"] = "qspec-vectors/1";
  doc["op"] = f.op;
  doc["convention"] = f.convention;
  doc["clauses"] = f.clauses;
  doc["generator"] =
      OJ{{"tool", "qspec"}, {"version", tool_version}, {"seed", int_to_json(static_cast<std::int64_t>(f.seed))}};
  doc["numberOfTests"] = 0;  // placeholder keeps the key order; set below
  doc["notes"] = notes;
  doc["testGroups"] = OJ::array();

  Rng rng(f.seed);
  const std::vector<Group> groups = f.generate(rng);
  std::int64_t tc_id = 0;
  for (const auto& g : groups) {
    if (!g.attributes.is_object()) throw GenerationError(fam + ": group attributes must be a JSON object");
    OJ gj = OJ::object();
    gj["attributes"] = g.attributes;
    gj["tests"] = OJ::array();
    for (const auto& t : g.tests) {
      ++tc_id;
      const std::string where = fam + ", tcId " + std::to_string(tc_id) + " (\"" + t.comment + "\")";
      for (const auto& fl : t.flags)
        if (!known_flags.count(fl))
          throw GenerationError(where + ": flag '" + fl + "' is not explained in the family's notes");
      std::set<std::string> names;
      for (const auto& in : t.inputs)
        if (in.name.empty() || !names.insert(in.name).second)
          throw GenerationError(where + ": every input needs a unique, non-empty name");
      if (!t.attributes.is_null() && !t.attributes.is_object())
        throw GenerationError(where + ": test attributes must be a JSON object");
      const OJ own = t.attributes.is_object() ? t.attributes : OJ::object();  // null: none of its own
      const OJ merged = merge_attributes(g.attributes, own);
      std::vector<std::pair<std::string, DType>> input_types;
      for (const auto& in : t.inputs) input_types.emplace_back(in.name, in.dtype);
      if (const auto problems =
              catalogue::check_test(*impl->spec, *impl->convention_spec, merged, input_types, !t.invalid);
          !problems.empty())
        throw GenerationError(where + ": does not match the op catalogue (spec/catalogue/" + f.op +
                              ".json): " + problems.front().where + ": " + problems.front().what);

      std::vector<Tensor> outputs;
      try {
        outputs = impl->fn(merged, t.inputs);
        if (t.invalid)
          throw GenerationError(where + ": marked invalid, but the reference accepted it (no ERROR_IF fired)");
      } catch (const GenerationError&) {
        throw;
      } catch (const ref::ErrorIf& e) {
        if (!t.invalid) throw GenerationError(where + ": the reference rejected a valid test: " + e.what());
      } catch (const std::exception& e) {
        throw GenerationError(where + ": the reference op threw unexpectedly: " + e.what());
      }
      std::set<std::string> out_names;
      for (const auto& o : outputs)
        if (o.name.empty() || !out_names.insert(o.name).second)
          throw GenerationError(where + ": the reference op returned an output without a unique name");
      if (!t.invalid && outputs.empty()) throw GenerationError(where + ": the reference op returned no outputs");

      OJ tj = OJ::object();
      tj["tcId"] = tc_id;
      tj["comment"] = t.comment;
      tj["flags"] = t.flags;
      tj["result"] = t.invalid ? "invalid" : "valid";
      if (!own.empty()) tj["attributes"] = own;
      tj["inputs"] = named_tensors(t.inputs);
      if (!t.invalid) tj["expected"] = named_tensors(outputs);
      gj["tests"].push_back(std::move(tj));
    }
    doc["testGroups"].push_back(std::move(gj));
  }
  doc["numberOfTests"] = tc_id;
  return doc;
}

}  // namespace qspec::vecgen
