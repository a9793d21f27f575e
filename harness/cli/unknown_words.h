// A misspelt command or option ("qspec runn", "--backnd") named with the nearest valid word.
#pragma once

#include <CLI/CLI.hpp>
#include <ostream>
#include <string>
#include <vector>

namespace qspec::cli {

// Levenshtein distance (insertions, deletions, substitutions) between two words.
std::size_t edit_distance(const std::string& a, const std::string& b);

// The candidate nearest to `word` if it is close enough to be a likely typo (at most a third of
// the word's length in edits, at least one), else "".
std::string nearest_word(const std::string& word, const std::vector<std::string>& candidates);

// After a parse error: if the command line holds words that no (sub)command knows, prints one
// line per word to `err` ("qspec run: unknown option '--backnd'; did you mean '--backend'?") and
// returns true. CLI11 itself would report "--backend is required" or "A subcommand is required"
// first, which hides the typo.
bool explain_unknown_words(const CLI::App& app, std::ostream& err);

}  // namespace qspec::cli
