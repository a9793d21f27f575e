// Reading `exec:COMMAND` and manifest files into the command an exec backend runs (exec_backend.h).
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "qspec/harness/backend_loader.h"
#include "qspec/harness/exec_backend.h"

namespace qspec::harness {
namespace {
namespace fs = std::filesystem;

constexpr const char* kPrefix = "exec:";

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// A timeout field of a manifest: a non-negative number of seconds (0: none).
double seconds_field(const nlohmann::json& j, const char* key, const std::string& where) {
  const auto& v = j.at(key);
  if (!v.is_number() || v.get<double>() < 0)
    throw BackendLoadError(where + ": \"" + key + "\" must be a number of seconds >= 0 (0: no limit)");
  return v.get<double>();
}

ExecCommand read_manifest(const std::string& path) {
  const std::string where = "exec backend manifest '" + path + "'";
  std::ifstream in(path);
  if (!in) throw BackendLoadError("cannot read " + where);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw BackendLoadError(where + " is not JSON: " + e.what());
  }
  if (!j.is_object()) throw BackendLoadError(where + ": must be a JSON object");
  for (const auto& [key, value] : j.items())
    if (key != "command" && key != "working_directory" && key != "environment" && key != "timeout" &&
        key != "start_timeout" && key != "comment")
      throw BackendLoadError(where + ": unknown field \"" + key +
                             "\" (known: command, working_directory, environment, timeout, start_timeout, comment)");
  ExecCommand c;
  c.source = path;
  if (!j.contains("command")) throw BackendLoadError(where + ": \"command\" is missing");
  const auto& cmd = j["command"];
  if (cmd.is_string()) {
    try {
      c.argv = split_command_line(cmd.get<std::string>());
    } catch (const std::invalid_argument& e) {
      throw BackendLoadError(where + ": \"command\": " + e.what());
    }
  } else if (cmd.is_array()) {
    for (const auto& w : cmd) {
      if (!w.is_string()) throw BackendLoadError(where + ": \"command\" must be a string or an array of strings");
      c.argv.push_back(w.get<std::string>());
    }
  } else {
    throw BackendLoadError(where + ": \"command\" must be a string or an array of strings");
  }
  if (c.argv.empty() || c.argv[0].empty()) throw BackendLoadError(where + ": \"command\" names no program");
  // Relative paths (the working directory, and so a relative program) are the manifest's own.
  const fs::path base = fs::absolute(fs::path(path)).parent_path();
  fs::path wd = base;
  if (j.contains("working_directory")) {
    if (!j["working_directory"].is_string()) throw BackendLoadError(where + ": \"working_directory\" must be a string");
    wd = base / j["working_directory"].get<std::string>();
  }
  c.working_directory = wd.lexically_normal().string();
  if (j.contains("environment")) {
    const auto& env = j["environment"];
    if (!env.is_object()) throw BackendLoadError(where + ": \"environment\" must be an object of strings");
    for (const auto& [name, value] : env.items()) {
      if (!value.is_string() || name.empty() || name.find('=') != std::string::npos)
        throw BackendLoadError(where + ": \"environment\": \"" + name +
                               "\" must be a variable name (no '=') with a string value");
      c.environment.emplace_back(name, value.get<std::string>());
    }
  }
  if (j.contains("timeout")) c.timeout_seconds = seconds_field(j, "timeout", where);
  if (j.contains("start_timeout")) c.start_timeout_seconds = seconds_field(j, "start_timeout", where);
  return c;
}

}  // namespace

bool is_exec_backend(const std::string& spec) { return spec.rfind(kPrefix, 0) == 0 || ends_with(spec, ".json"); }

ExecCommand exec_command(const std::string& spec) {
  if (spec.rfind(kPrefix, 0) != 0) return read_manifest(spec);
  ExecCommand c;
  c.source = spec;
  try {
    c.argv = split_command_line(spec.substr(std::string(kPrefix).size()));
  } catch (const std::invalid_argument& e) {
    throw BackendLoadError("backend '" + spec + "': " + e.what());
  }
  if (c.argv.empty()) throw BackendLoadError("backend '" + spec + "': exec: names no command (exec:'PROGRAM ARGS')");
  return c;
}

std::vector<std::string> split_command_line(const std::string& line) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char ch = line[i];
    if (ch == ' ' || ch == '\t' || ch == '\n') {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
      continue;
    }
    in_word = true;
    if (ch == '\'') {
      const std::size_t end = line.find('\'', i + 1);
      if (end == std::string::npos) throw std::invalid_argument("unterminated ' in the command line");
      word += line.substr(i + 1, end - i - 1);
      i = end;
    } else if (ch == '"') {
      for (++i;; ++i) {
        if (i >= line.size()) throw std::invalid_argument("unterminated \" in the command line");
        if (line[i] == '"') break;
        if (line[i] == '\\' && i + 1 < line.size() && (line[i + 1] == '"' || line[i + 1] == '\\')) ++i;
        word += line[i];
      }
    } else if (ch == '\\') {
      if (i + 1 >= line.size()) throw std::invalid_argument("the command line ends with a lone \\");
      word += line[++i];
    } else {
      word += ch;
    }
  }
  if (in_word) words.push_back(std::move(word));
  return words;
}

}  // namespace qspec::harness
