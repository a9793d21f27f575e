// Renders docs/third-party.md from the runs, their deviation classes and the annotations.
#pragma once

#include <string>
#include <vector>

#include "annotations.h"
#include "report_model.h"

namespace qspec::thirdparty_report {

struct RenderInput {
  std::vector<Run> runs;
  std::vector<Annotation> annotations;
  std::string vectors_dir;  // to show each representative's attributes and inputs
  std::string command;      // the command that regenerates the document
};

std::string render_markdown(const RenderInput& in);

}  // namespace qspec::thirdparty_report
