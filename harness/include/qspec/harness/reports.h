// Reports of a run: the text summary (per op, per clause), the JSON report and JUnit XML.
// Files are written atomically (temporary file + rename), so a reader never sees half a report.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "qspec/harness/runner.h"

namespace qspec::harness {

// Tables of verdict counts per op and per clause, then the totals and the overall result line.
std::string summary_text(const RunResult& r);

// {"schema": "qspec-report/1", "backend": {...}, "summary": {...}, "files": [...], "tests": [...]}
// (docs/running.md describes every field).
nlohmann::ordered_json json_report(const RunResult& r);
void write_json_report(const std::filesystem::path& path, const RunResult& r);

// JUnit XML: one <testsuite name=FILE> per vector file (with timestamp, hostname and
// <properties>: backend name, version and source, qspec and contract versions, host), one
// <testcase classname=junit_classname(FILE) name="tcId N"> per test; unexpected FAIL ->
// <failure>, unexpected ERROR/CRASH/TIMEOUT -> <error>, UNSUPPORTED and expected deviations ->
// <skipped>, an unexpected pass -> <failure> saying the --expect entry is stale. Every text is
// escaped (text_safety.h xml_escape): the document is well-formed whatever a backend says.
std::string junit_report(const RunResult& r);

// The JUnit classname of a vector file: no ".json", and no '.' but between directories, since
// Jenkins and other readers split a classname at its last '.' into package and class:
// "requantize/gemmlowp.double_round.json" -> "requantize.gemmlowp_double_round".
std::string junit_classname(const std::string& file);
void write_junit_report(const std::filesystem::path& path, const RunResult& r);

}  // namespace qspec::harness
