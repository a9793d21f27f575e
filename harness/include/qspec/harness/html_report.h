// The HTML report: one self-contained page (inline CSS and a little inline JS, no network, no
// external assets) rendered from one or more JSON reports (`qspec run --html`, `qspec report html`).
//
// The page holds: a summary per backend (verdict counts, every Verdict value); an op x
// convention matrix whose cells are coloured by each backend's verdict counts, state the tests
// passed of those run, and link to the failing tests of that cell; the verdict counts per clause;
// the drill-down of each non-passing test (inputs, expected and actual outputs with the
// differing elements highlighted, the convention-match diagnosis, the diagnostic text), grouped
// per (op, convention) and collapsed, up to a limit per backend, later ones only counted; the
// text of every
// clause the tests name, with a link to its heading in spec/<family>.md. Passing tests are only
// counted, so a 24,000-test run stays a page of a few hundred kilobytes. Everything taken from a
// report is HTML-escaped.
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace qspec::harness {

// One clause of spec/*.md: the heading "### `id`: title" and the text up to the next heading.
struct ClauseText {
  std::string id;
  std::string title;
  std::string file;  // relative to the root: "spec/gemmlowp.md"
  int line = 0;
  std::string anchor;  // the heading's anchor as GitHub renders Markdown (github_anchor)
  std::string body;    // the clause text (Statement, Preconditions, Source, ...), Markdown
};

// Reads every clause heading of <root>/spec/*.md (the catalogue format of qspec/spec/catalog.h).
// A missing spec directory gives an empty map.
std::map<std::string, ClauseText> read_clause_texts(const std::filesystem::path& root);

// GitHub's anchor for a Markdown heading's text: lower case, inline-code backticks dropped, every
// character other than a letter, digit, '-' or '_' removed, spaces turned into '-'
// ("`gemmlowp.quantize`: float to uint8" -> "gemmlowpquantize-float-to-uint8").
std::string github_anchor(std::string_view heading_text);

// &, <, >, " and ' as character references; control characters other than \n and \t dropped;
// ill-formed UTF-8 as U+FFFD.
std::string html_escape(std::string_view text);

struct HtmlOptions {
  std::string title = "qspec conformance report";
  std::string generator;                      // "qspec 0.1.0", shown in the header
  std::map<std::string, ClauseText> clauses;  // clause texts to show (read_clause_texts)
  // Links to clause headings are <spec_base>/<clause file>#<anchor>, e.g. a repository's blob
  // URL or "file:///path/to/qspec"; empty: the clause text is shown without a link.
  std::string spec_base;
  std::size_t max_failures = 300;  // drill-downs per backend; further non-passing tests are counted
  std::size_t max_elements = 256;  // tensor elements shown per tensor (differing ones first)
};

// The page for these "qspec-report/1" documents (one per backend, e.g. merge_reports' result).
std::string html_report(const std::vector<nlohmann::ordered_json>& reports, const HtmlOptions& options);

// Renders and writes atomically (temporary file + rename).
void write_html_report(const std::filesystem::path& path, const std::vector<nlohmann::ordered_json>& reports,
                       const HtmlOptions& options);

}  // namespace qspec::harness
