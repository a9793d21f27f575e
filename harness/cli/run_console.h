// What `qspec run` shows while it runs: a line per unexpected outcome and per vector file on
// stdout, a progress line on stderr when that is a terminal, and the summary; colour only on a
// terminal and never with NO_COLOR. Every text from a vector file or a backend is printed
// through terminal_safe (text_safety.h): a hostile comment cannot clear the screen.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

#include "qspec/harness/runner.h"

namespace qspec::cli {

struct ConsoleMode {
  bool progress = false;  // the progress line on stderr
  bool color = false;     // ANSI colours on stdout
};

// --progress and --color (auto|always|never). auto: progress when stderr is a terminal, colour
// when stdout is one and NO_COLOR is unset or empty (https://no-color.org). QSPEC_FORCE_TTY=1
// makes both count as terminals (for tests, which run qspec with pipes).
ConsoleMode console_mode(const std::string& progress, const std::string& color);

class RunConsole {
 public:
  RunConsole(ConsoleMode mode, std::size_t max_diagnostics);
  // Prints to stdout / stderr, escaped; the progress line is cleared first and redrawn later.
  void out(const std::string& text);
  void err(const std::string& text);
  // Starts the progress line over `total` tests (0: unknown; shows tests done and elapsed only).
  void start_progress(std::size_t total);
  // RunObserver callbacks.
  void test_done(const harness::TestOutcome& t);
  void file_done(const harness::FileResult& f);
  void file_skipped(const harness::SkippedFile& s);
  // summary_text(): the result line coloured by what it says.
  void summary(const std::string& text);
  void clear_progress();
  std::size_t hidden() const { return hidden_; }  // unexpected outcomes beyond --max-diagnostics
  bool shows_progress() const { return mode_.progress; }

 private:
  std::string paint(const char* sgr, const std::string& text) const;
  void draw_progress(const std::string& file);

  ConsoleMode mode_;
  std::size_t max_diagnostics_;
  std::size_t shown_ = 0, hidden_ = 0;
  std::size_t done_ = 0, total_ = 0;
  bool progress_visible_ = false;
  std::chrono::steady_clock::time_point start_{}, last_draw_{};
};

}  // namespace qspec::cli
