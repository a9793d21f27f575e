// Suggestions for misspelt commands and options (unknown_words.h).
#include "unknown_words.h"

#include <algorithm>

namespace qspec::cli {

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

std::string nearest_word(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_distance = 0;
  for (const auto& c : candidates) {
    const std::size_t d = edit_distance(word, c);
    if (best.empty() || d < best_distance) {
      best = c;
      best_distance = d;
    }
  }
  const std::size_t allowed = std::max<std::size_t>(1, word.size() / 3);
  return !best.empty() && best_distance <= allowed ? best : "";
}

namespace {

// "qspec run": the command path of a (sub)command.
std::string command_path(const CLI::App* app) {
  std::string path;
  for (const CLI::App* a = app; a; a = a->get_parent())
    path = a->get_parent() ? " " + a->get_name() + path : "qspec" + path;
  return path;
}

// The long and short option names of `app` and of the commands above it (CLI11 hands an option
// a subcommand does not know to its parent), with their dashes.
std::vector<std::string> option_names(const CLI::App* app) {
  std::vector<std::string> names;
  for (const CLI::App* a = app; a; a = a->get_parent())
    for (const CLI::Option* o : a->get_options()) {
      for (const auto& l : o->get_lnames()) names.push_back("--" + l);
      for (const auto& s : o->get_snames()) names.push_back("-" + s);
    }
  return names;
}

std::vector<std::string> subcommand_names(const CLI::App* app) {
  std::vector<std::string> names;
  for (const CLI::App* s : app->get_subcommands([](const CLI::App*) { return true; })) names.push_back(s->get_name());
  return names;
}

// One parsed (sub)command and those below it, deepest last.
void parsed_chain(const CLI::App* app, std::vector<const CLI::App*>& chain) {
  chain.push_back(app);
  for (const CLI::App* s : app->get_subcommands()) parsed_chain(s, chain);
}

}  // namespace

bool explain_unknown_words(const CLI::App& app, std::ostream& err) {
  std::vector<const CLI::App*> chain;
  parsed_chain(&app, chain);
  bool any = false;
  for (const CLI::App* a : chain) {
    const std::vector<std::string> commands = subcommand_names(a);
    bool after_option = false;
    for (const std::string& word : a->remaining()) {
      const bool option = word.size() > 1 && word[0] == '-';
      // A value after an unknown option is not a word of its own; a misspelt command is the
      // first plain word of a command that has subcommands.
      const bool value = after_option && !option;
      after_option = option && word.find('=') == std::string::npos;
      if (!option && (value || commands.empty())) continue;
      const std::string name = option ? word.substr(0, word.find('=')) : word;
      const std::string hint = nearest_word(name, option ? option_names(a) : commands);
      err << command_path(a) << ": unknown " << (option ? "option" : "command") << " '" << name << "'";
      if (!hint.empty()) err << "; did you mean '" << hint << "'?";
      err << " (" << command_path(a) << " --help lists the " << (option ? "options" : "commands") << ")\n";
      any = true;
      if (!option) break;  // the words after a misspelt command belong to it
    }
  }
  return any;
}

}  // namespace qspec::cli
