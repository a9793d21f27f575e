// The files a run or merge will write (reports), checked before any work: a run of an hour must
// not end in "cannot write report", overwrite one report with another, or create directories.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace qspec::harness {

struct OutputFile {
  std::string option;  // "--report-json", "--junit", ...: named in the message
  std::filesystem::path path;
};

// The first problem, or nullopt: two options naming the same file; a file whose directory does
// not exist (it is not created); a path that is a directory; a directory where a file cannot be
// created (tested by creating and removing the temporary file the atomic write will use).
// Empty paths are ignored.
std::optional<std::string> check_output_files(const std::vector<OutputFile>& files);

}  // namespace qspec::harness
