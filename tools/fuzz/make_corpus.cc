// Writes the fuzzer's seed corpus from vectors/: a small valid slice of every vector file.
//
// Usage: make_corpus VECTORS_DIR OUT_DIR MAX_LEN
// For each vectors/**/*.json (schema/ excluded) it writes OUT_DIR/<family>.json holding the
// header, the first group with its first two tests, and the notes those tests use, plus
// OUT_DIR/<family>.invalid.json with the file's first invalid test when it has one. Slices are
// compact JSON, so they exercise the loader on real ops, attributes and tensors at a size
// libFuzzer mutates quickly. Regenerated on every `./qspec.sh fuzz`, so it follows the vectors.
// Fails when a slice is longer than MAX_LEN (the session's -max_len would truncate it).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

namespace fs = std::filesystem;
using OJ = nlohmann::ordered_json;

namespace {

// The file's header and one group holding only `tests` (with numberOfTests and notes to match).
OJ slice(const OJ& doc, const OJ& group, const OJ& tests) {
  OJ out = OJ::object();
  for (const auto& [k, v] : doc.items())
    if (k != "testGroups" && k != "notes" && k != "numberOfTests") out[k] = v;
  out["numberOfTests"] = tests.size();
  std::set<std::string> used;
  for (const auto& t : tests)
    if (t.contains("flags"))
      for (const auto& f : t["flags"]) used.insert(f.get<std::string>());
  OJ notes = OJ::object();
  for (const auto& [flag, meaning] : doc["notes"].items())
    if (used.count(flag)) notes[flag] = meaning;
  out["notes"] = notes;
  out["testGroups"] = OJ::array({OJ{{"attributes", group["attributes"]}, {"tests", tests}}});
  return out;
}

bool write(const fs::path& p, const std::string& text, std::size_t max_len) {
  if (text.size() > max_len) {
    std::cerr << "make_corpus: " << p.string() << " would be " << text.size() << " bytes, more than -max_len " << max_len << "\n";
    return false;
  }
  std::ofstream(p, std::ios::binary) << text;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: make_corpus VECTORS_DIR OUT_DIR MAX_LEN\n";
    return 2;
  }
  const fs::path in = argv[1], out = argv[2];
  const std::size_t max_len = std::strtoull(argv[3], nullptr, 10);
  fs::create_directories(out);
  std::size_t files = 0, biggest = 0;
  bool ok = true;
  for (auto it = fs::recursive_directory_iterator(in); it != fs::recursive_directory_iterator(); ++it) {
    if (it->is_directory() && it->path().filename() == "schema") {
      it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file() || it->path().extension() != ".json") continue;
    std::ifstream f(it->path(), std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    const OJ doc = OJ::parse(ss.str());
    std::string name = fs::relative(it->path(), in).replace_extension("").generic_string();
    std::replace(name.begin(), name.end(), '/', '_');
    const OJ& groups = doc["testGroups"];
    if (groups.empty()) continue;
    OJ first = OJ::array();
    for (std::size_t i = 0; i < groups[0]["tests"].size() && i < 2; ++i) first.push_back(groups[0]["tests"][i]);
    const std::string text = slice(doc, groups[0], first).dump();
    ok = write(out / (name + ".json"), text, max_len) && ok;
    biggest = std::max(biggest, text.size());
    ++files;
    for (const auto& g : groups) {
      const auto t = std::find_if(g["tests"].begin(), g["tests"].end(), [](const OJ& x) { return x["result"] == "invalid"; });
      if (t == g["tests"].end()) continue;
      const std::string inv = slice(doc, g, OJ::array({*t})).dump();
      ok = write(out / (name + ".invalid.json"), inv, max_len) && ok;
      biggest = std::max(biggest, inv.size());
      ++files;
      break;
    }
  }
  std::printf("make_corpus: %zu seeds from %s, the biggest %zu bytes\n", files, in.string().c_str(), biggest);
  return ok ? 0 : 1;
}
