// Loading annotations.json and matching deviation classes against its glob patterns.
#include "annotations.h"

#include <fnmatch.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace qspec::thirdparty_report {

std::vector<Annotation> load_annotations(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read annotations " + path);
  const auto j = nlohmann::json::parse(in, nullptr, true, /*ignore_comments=*/true);
  std::vector<Annotation> out;
  for (const auto& e : j.at("annotations")) {
    Annotation a;
    a.pattern = e.at("pattern").get<std::string>();
    a.kind = e.at("kind").get<std::string>();
    a.title = e.value("title", a.pattern);
    a.expect = e.value("expect", "");
    if (e.at("text").is_array()) {
      for (const auto& line : e["text"]) a.text += (a.text.empty() ? "" : " ") + line.get<std::string>();
    } else {
      a.text = e["text"].get<std::string>();
    }
    out.push_back(std::move(a));
  }
  return out;
}

const Annotation* find_annotation(const std::vector<Annotation>& a, const std::string& key, const std::string& isa) {
  const std::string with_isa = key + "|" + (isa.empty() ? "fixed" : isa);
  for (const auto& x : a)
    if (fnmatch(x.pattern.c_str(), (std::count(x.pattern.begin(), x.pattern.end(), '|') == 5 ? with_isa : key).c_str(),
                0) == 0) {
      ++x.uses;
      return &x;
    }
  return nullptr;
}

}  // namespace qspec::thirdparty_report
