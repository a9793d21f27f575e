// Hand-written classifications of deviation classes (annotations.json), matched by glob.
//
// The tables and representatives are generated from the runs; what a deviation MEANS (the
// library's documented behaviour, a bug in the library, a bug in qspec, an artefact of
// translating parameters between conventions) is an engineer's finding, recorded once per class
// pattern with the evidence. A class no annotation covers is printed as UNCLASSIFIED, so a new
// deviation can never hide in the generated document.
#pragma once

#include <string>
#include <vector>

namespace qspec::thirdparty_report {

struct Annotation {
  // fnmatch glob over a class key, "library|mode|op|convention|kind", or with a sixth field over
  // "library|mode|op|convention|kind|isa" (isa "fixed" when the library's is fixed at build
  // time): a finding that holds on some instruction sets only.
  std::string pattern;
  std::string title;    // heading of the paragraph
  std::string kind;     // "documented", "library bug", "qspec bug", "translation", "not applicable"
  std::string text;     // the paragraph (markdown)
  std::string expect;   // one-line reason for --expect entries of native-run classes (may be empty)
  mutable int uses = 0;
};

std::vector<Annotation> load_annotations(const std::string& path);
// First annotation whose pattern matches key (measured at `isa`), or nullptr.
const Annotation* find_annotation(const std::vector<Annotation>& a, const std::string& key,
                                  const std::string& isa = "");

}  // namespace qspec::thirdparty_report
