// The HTML report options `qspec run --html` and `qspec report html` share: clause texts and links from the qspec root.
#pragma once

#include <filesystem>
#include <string>

#include "commands.h"
#include "qspec/harness/html_report.h"

#ifndef QSPEC_VERSION
#define QSPEC_VERSION "0.0.0"
#endif

namespace qspec::cli {

// Clause texts from <root>/spec; links to file://<root>/spec/... unless `spec_base` is given
// (e.g. a repository's blob URL, for a page published away from this machine).
inline harness::HtmlOptions html_options(const Context& ctx, const std::string& spec_base) {
  namespace fs = std::filesystem;
  harness::HtmlOptions o;
  o.generator = std::string("qspec ") + QSPEC_VERSION;
  o.clauses = harness::read_clause_texts(ctx.root);
  std::error_code ec;
  if (!spec_base.empty()) {
    o.spec_base = spec_base;
    while (!o.spec_base.empty() && o.spec_base.back() == '/') o.spec_base.pop_back();
  } else if (!o.clauses.empty()) {
    o.spec_base = "file://" + fs::absolute(ctx.root, ec).lexically_normal().generic_string();
    while (o.spec_base.size() > 7 && o.spec_base.back() == '/') o.spec_base.pop_back();
  }
  return o;
}

}  // namespace qspec::cli
