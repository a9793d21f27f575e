// Renders docs/third-party.md from the recorded measurements, their deviation classes and the
// annotations: a pure function of committed data, so the page is the same on every machine.
#pragma once

#include <string>
#include <vector>

#include "annotations.h"
#include "summary.h"

namespace qspec::thirdparty_report {

struct RenderInput {
  std::vector<RunSummary> runs;  // sorted as load_measurements sorts them
  std::vector<Annotation> annotations;
  std::string vectors_dir;  // to show each representative's attributes and inputs
  std::string command;      // the command that regenerates the document
};

std::string render_markdown(const RenderInput& in);

}  // namespace qspec::thirdparty_report
