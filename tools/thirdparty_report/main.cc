// qspec_thirdparty_report: docs/third-party.md from `qspec run --report-json` files of the adapters.
//
//   qspec_thirdparty_report --out docs/third-party.md --vectors vectors
//       --annotations tools/thirdparty_report/annotations.json
//       --run xnnpack:native:xnnpack-native.json --run xnnpack:all:xnnpack-all.json ...
//       [--command "how to regenerate"] [--fail-on-unclassified]
//       [--write-expect LIB=PATH ...]   also write LIB's --expect file from its native run: one line
//                                       per non-passing test, reason from its class's annotation
//                                       (a class without an "expect" reason is an error)
// Exit 0 on success, 1 if --fail-on-unclassified and a deviation class has no annotation,
// 2 on a usage or input error.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>

#include "expect_file.h"
#include "markdown.h"

namespace {

int usage(const char* why) {
  std::cerr << "qspec_thirdparty_report: " << why << "\n"
            << "usage: qspec_thirdparty_report --out FILE --vectors DIR --annotations FILE --run LIB:MODE:REPORT... "
               "[--command TEXT] [--fail-on-unclassified]\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace qspec::thirdparty_report;
  std::string out, annotations;
  RenderInput in;
  in.command = "tools/thirdparty_report/generate.sh";
  bool fail_on_unclassified = false;
  std::vector<std::string> run_specs;
  std::vector<std::pair<std::string, std::string>> expect_out;  // library -> path
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--out") out = next();
    else if (a == "--vectors") in.vectors_dir = next();
    else if (a == "--annotations") annotations = next();
    else if (a == "--run") run_specs.push_back(next());
    else if (a == "--command") in.command = next();
    else if (a == "--fail-on-unclassified") fail_on_unclassified = true;
    else if (a == "--write-expect") {
      const std::string v = next();
      const auto eq = v.find('=');
      if (eq == std::string::npos) return usage("--write-expect takes LIB=PATH");
      expect_out.push_back({v.substr(0, eq), v.substr(eq + 1)});
    }
    else return usage(("unknown argument " + a).c_str());
  }
  if (out.empty() || annotations.empty() || run_specs.empty()) return usage("--out, --annotations and --run are required");
  try {
    in.annotations = load_annotations(annotations);
    for (const auto& spec : run_specs) {
      const auto c1 = spec.find(':'), c2 = spec.find(':', c1 == std::string::npos ? 0 : c1 + 1);
      if (c1 == std::string::npos || c2 == std::string::npos) return usage(("bad --run " + spec).c_str());
      const std::string mode = spec.substr(c1 + 1, c2 - c1 - 1);
      if (mode != "native" && mode != "all") return usage("--run MODE must be native or all");
      in.runs.push_back(load_run(spec.substr(0, c1), mode, spec.substr(c2 + 1)));
    }
  } catch (const std::exception& e) {
    std::cerr << "qspec_thirdparty_report: " << e.what() << "\n";
    return 2;
  }
  const std::string md = render_markdown(in);
  std::ofstream f(out + ".tmp");
  f << md;
  f.close();
  if (!f || std::rename((out + ".tmp").c_str(), out.c_str()) != 0) {
    std::cerr << "qspec_thirdparty_report: cannot write " << out << "\n";
    return 2;
  }
  for (const auto& [lib, path] : expect_out) {
    std::string why;
    if (!write_expect_file(in, lib, path, why)) {
      std::cerr << "qspec_thirdparty_report: " << why << "\n";
      return 2;
    }
    std::cout << "wrote " << path << "\n";
  }
  int unclassified = 0;
  for (const auto& c : deviation_classes(in.runs))
    if (!find_annotation(in.annotations, c.key())) {
      ++unclassified;
      std::cerr << "unclassified deviation class: " << c.key() << "\n";
    }
  for (const auto& a : in.annotations)
    if (a.uses == 0) std::cerr << "note: annotation '" << a.pattern << "' matched no deviation class\n";
  std::cout << "wrote " << out << " (" << in.runs.size() << " runs, " << unclassified << " unclassified classes)\n";
  return fail_on_unclassified && unclassified ? 1 : 0;
}
