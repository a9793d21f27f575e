// The terminal side of `qspec run`: escaped output, colours, the progress line with an ETA.
#include "run_console.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "qspec/harness/text_safety.h"

namespace qspec::cli {
namespace {
using namespace qspec::harness;

constexpr const char* kRed = "31";
constexpr const char* kGreen = "32";
constexpr const char* kYellow = "33";
constexpr const char* kBoldRed = "1;31";
constexpr const char* kBoldGreen = "1;32";
constexpr const char* kBoldYellow = "1;33";

bool forced_tty() {
  const char* v = std::getenv("QSPEC_FORCE_TTY");
  return v && std::strcmp(v, "1") == 0;
}

bool no_color_env() {
  const char* v = std::getenv("NO_COLOR");
  return v && *v;
}

std::string clock_text(double seconds) {
  const auto s = static_cast<long long>(seconds + 0.5);
  char buf[32];
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", s / 3600, s / 60 % 60, s % 60);
  else
    std::snprintf(buf, sizeof buf, "%lld:%02lld", s / 60, s % 60);
  return buf;
}

std::size_t terminal_columns() {
  struct winsize w {};
  if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &w) == 0 && w.ws_col > 20) return w.ws_col;
  return 80;
}

const char* verdict_color(Verdict v, bool unexpected_pass) {
  if (unexpected_pass) return kBoldRed;
  switch (v) {
    case Verdict::Pass: return kGreen;
    case Verdict::Unsupported: return kYellow;
    case Verdict::Error: return kBoldYellow;
    default: return kBoldRed;
  }
}

}  // namespace

ConsoleMode console_mode(const std::string& progress, const std::string& color) {
  const bool force = forced_tty();
  ConsoleMode m;
  m.progress = progress == "always" || (progress == "auto" && (force || ::isatty(STDERR_FILENO)));
  m.color = color == "always" || (color == "auto" && !no_color_env() && (force || ::isatty(STDOUT_FILENO)));
  return m;
}

RunConsole::RunConsole(ConsoleMode mode, std::size_t max_diagnostics)
    : mode_(mode), max_diagnostics_(max_diagnostics), start_(std::chrono::steady_clock::now()) {}

std::string RunConsole::paint(const char* sgr, const std::string& text) const {
  return mode_.color ? "\033[" + std::string(sgr) + "m" + text + "\033[0m" : text;
}

void RunConsole::clear_progress() {
  if (!progress_visible_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  progress_visible_ = false;
}

void RunConsole::out(const std::string& text) {
  clear_progress();
  std::cout << terminal_safe(text) << std::flush;
}

void RunConsole::err(const std::string& text) {
  clear_progress();
  std::cerr << terminal_safe(text) << std::flush;
}

void RunConsole::start_progress(std::size_t total) {
  total_ = total;
  done_ = 0;
  start_ = std::chrono::steady_clock::now();
}

// "[  1234/24023 tests   5%  0:03 elapsed, ETA 0:57] requantize/x.json", at most every 100 ms
// and cut to the terminal's width (a wrapped line could not be redrawn in place).
void RunConsole::draw_progress(const std::string& file) {
  if (!mode_.progress) return;
  const auto now = std::chrono::steady_clock::now();
  if (done_ != total_ && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  char buf[160];
  if (total_ > 0) {
    const double fraction = static_cast<double>(done_) / static_cast<double>(total_);
    // The rate of the tests so far, once there is one to speak of.
    const std::string eta = done_ == total_               ? clock_text(0)
                            : done_ > 0 && elapsed >= 0.5 ? clock_text(elapsed * (1 - fraction) / fraction)
                                                          : "--:--";
    std::snprintf(buf, sizeof buf, "[%zu/%zu tests %3.0f%%  %s elapsed, ETA %s] ", done_, total_, 100 * fraction,
                  clock_text(elapsed).c_str(), eta.c_str());
  } else {
    std::snprintf(buf, sizeof buf, "[%zu tests  %s elapsed] ", done_, clock_text(elapsed).c_str());
  }
  std::string line = buf + terminal_safe(file, false);
  const std::size_t width = terminal_columns() - 1;
  if (line.size() > width) line.resize(width);
  std::fprintf(stderr, "\r\033[K%s", line.c_str());
  std::fflush(stderr);
  progress_visible_ = true;
}

void RunConsole::test_done(const TestOutcome& t) {
  ++done_;
  if (!t.as_expected) {
    if (shown_ < max_diagnostics_) {
      ++shown_;
      std::string head = paint(verdict_color(t.verdict, t.unexpected_pass), std::string(verdict_name(t.verdict))) +
                         (t.unexpected_pass ? " (unexpected pass)" : "");
      clear_progress();
      std::cout << head << terminal_safe(" " + t.file + " tcId " + std::to_string(t.tc_id) + ": " + t.reason + "\n");
      if (t.unexpected_pass)
        std::cout << terminal_safe("  --expect said " + std::string(verdict_name(*t.expected_verdict)) + " (" +
                                   t.expectation_reason + "); the entry is stale\n");
      std::cout << terminal_safe(t.diagnostic) << std::flush;
    } else {
      ++hidden_;
    }
  }
  draw_progress(t.file);
}

void RunConsole::file_done(const FileResult& f) {
  const Counts& c = f.counts;
  // PASS always, every other verdict when it occurs, in report order (kAllVerdicts).
  std::string s = f.file + ": " + std::to_string(c.total()) + " tests: " + std::to_string(c.pass) + " PASS";
  for (Verdict v : kAllVerdicts)
    if (v != Verdict::Pass && c.of(v)) s += ", " + std::to_string(c.of(v)) + " " + std::string(verdict_name(v));
  clear_progress();
  std::cout << terminal_safe(s);
  if (c.unexpected) std::cout << paint(kRed, "  <-- " + std::to_string(c.unexpected) + " unexpected");
  std::cout << "\n" << std::flush;
}

void RunConsole::file_skipped(const SkippedFile& s) {
  clear_progress();
  std::cout << paint(kBoldRed, "SKIPPED") << terminal_safe(" malformed vector file (--keep-going): " + s.error + "\n")
            << std::flush;
}

void RunConsole::summary(const std::string& text) {
  clear_progress();
  const std::string safe = terminal_safe(text);
  const auto at = safe.rfind("Result: ");
  if (at == std::string::npos || !mode_.color) {
    std::cout << safe << std::flush;
    return;
  }
  const std::string line = safe.substr(at);
  const char* sgr = line.rfind("Result: OK", 0) == 0       ? kBoldGreen
                    : line.rfind("Result: FAILED", 0) == 0 ? kBoldRed
                                                           : kBoldYellow;
  std::string body = line;
  const bool newline = !body.empty() && body.back() == '\n';
  if (newline) body.pop_back();
  std::cout << safe.substr(0, at) << paint(sgr, body) << (newline ? "\n" : "") << std::flush;
}

}  // namespace qspec::cli
