// `qspec sweep`: run the conformance properties at a chosen scale and seed; summary and replay lines.
#include <sys/ioctl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <random>
#include <sstream>
#include <thread>

#include "commands.h"
#include "qspec/harness/sweep.h"

namespace qspec::cli {
namespace {
namespace fs = std::filesystem;
using namespace qspec::harness::sweep;
using qspec::harness::clear_gtest_shard_environment;
using qspec::harness::resolve_shard;
using qspec::harness::shard_text;
using qspec::harness::ShardError;
using qspec::harness::ShardSpec;

struct SweepCliOptions {
  std::vector<std::string> globs;
  std::uint64_t cases = 1000;
  std::optional<std::uint64_t> seed;
  unsigned jobs = 0;
  std::string out = "qspec-sweep";
  std::string bin_dir;
  double timeout = 0;
  std::string rc_extra;
  bool list = false;
  std::string progress = "auto";
  std::size_t failure_lines = 40;
  std::string shard;               // --shard I/N
  std::uint64_t seeds = 1;         // --seeds K: seeds per property
};

std::size_t terminal_width() {
  winsize w{};
  if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &w) == 0 && w.ws_col > 20) return w.ws_col;
  return 100;
}

// On a terminal: one status line on stderr, rewritten in place. Elsewhere: one plain line per
// finished property on stdout (CI logs).
class Progress {
 public:
  explicit Progress(bool tty) : tty_(tty), width_(tty ? terminal_width() : 0) {}
  void tick(std::size_t done, std::size_t total, const std::vector<const PropertyTarget*>& running) {
    if (!tty_) return;
    std::string s = "[" + std::to_string(done) + "/" + std::to_string(total) + "]";
    if (failed_) s += " " + std::to_string(failed_) + " failed;";
    if (!running.empty()) {
      s += " running:";
      for (const auto* t : running) s += " " + unit_name(*t);
    }
    if (s.size() >= width_) s = s.substr(0, width_ - 4) + "...";
    std::fprintf(stderr, "\r\033[K%s", s.c_str());
    std::fflush(stderr);
    shown_ = true;
  }
  void finished(const PropertyOutcome& p, std::size_t done, std::size_t total) {
    if (p.status != Status::Pass && p.status != Status::Skip) ++failed_;
    if (tty_) return;
    std::cout << "[" << done << "/" << total << "] " << status_name(p.status) << " " << unit_name(p.target) << " ("
              << fixed(p.seconds) << " s)" << (p.reason.empty() ? "" : ": " + p.reason) << "\n"
              << std::flush;
  }
  void clear() {
    if (!shown_) return;
    std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
    shown_ = false;
  }
  static std::string fixed(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", v);
    return buf;
  }

 private:
  bool tty_;
  std::size_t width_;
  bool shown_ = false;
  std::size_t failed_ = 0;
};

std::string pad_left(const std::string& s, std::size_t w) { return s.size() >= w ? s : std::string(w - s.size(), ' ') + s; }
std::string pad_right(const std::string& s, std::size_t w) { return s.size() >= w ? s : s + std::string(w - s.size(), ' '); }

std::string indent(const std::string& text, std::size_t max_lines, const fs::path& log) {
  std::istringstream in(text);
  std::string line, out;
  std::size_t n = 0, total = 0;
  while (std::getline(in, line)) {
    ++total;
    if (n < max_lines) {
      out += (line.empty() ? "" : "    " + line) + "\n";
      ++n;
    }
  }
  if (total > n) out += "    ... " + std::to_string(total - n) + " more lines" + (log.empty() ? "" : " in " + log.string()) + "\n";
  return out;
}

// True when the units carry their own seeds (--seeds K > 1): "Suite.Name@SEED".
bool so_units_seeded(const std::vector<PropertyOutcome>& outcomes) {
  return !outcomes.empty() && outcomes.front().target.seed.has_value();
}

std::string replay_line(const std::string& rc_params_value, const PropertyTarget& t) {
  std::string s = "RC_PARAMS=" + shell_quote(rc_params_value);
  for (const auto& a : property_argv(t)) s += " " + shell_quote(a);
  return s;
}

void print_summary(const std::vector<PropertyOutcome>& outcomes, const SweepOptions& so, double wall, std::size_t failure_lines) {
  std::size_t w = 8;
  for (const auto& p : outcomes) w = std::max(w, unit_name(p.target).size());
  std::cout << "\nSummary (seed " << so.seed << ", up to " << so.cases << " cases per " << (so_units_seeded(outcomes) ? "unit" : "property")
            << ")\n";
  std::cout << "  " << pad_right("status", 8) << pad_left("cases", 9) << pad_left("time s", 9) << "  " << pad_right("property", w)
            << "  binary\n";
  std::size_t pass = 0, fail = 0, skip = 0;
  std::uint64_t cases = 0;
  for (const auto& p : outcomes) {
    std::cout << "  " << pad_right(status_name(p.status), 8) << pad_left(p.cases ? std::to_string(*p.cases) : "-", 9)
              << pad_left(Progress::fixed(p.seconds), 9) << "  " << pad_right(unit_name(p.target), w) << "  "
              << p.target.binary.filename().string() << "\n";
    if (p.cases) cases += *p.cases;
    if (p.status == Status::Pass)
      ++pass;
    else if (p.status == Status::Skip)
      ++skip;
    else
      ++fail;
  }
  std::cout << outcomes.size() << " propert" << (outcomes.size() == 1 ? "y" : "ies") << ": " << pass << " passed, " << fail
            << " failed" << (skip ? ", " + std::to_string(skip) + " skipped" : "") << "; " << cases << " cases in "
            << Progress::fixed(wall) << " s wall time\n";
  if (!fail) return;

  std::cout << "\nFailures\n";
  for (const auto& p : outcomes) {
    if (p.status == Status::Pass || p.status == Status::Skip) continue;
    std::cout << status_name(p.status) << " " << unit_name(p.target) << " (" << p.target.binary.filename().string() << "): " << p.reason
              << "\n";
    if (!p.report.failure_text.empty())
      std::cout << indent(p.report.failure_text, failure_lines, p.log_file);
    else if (!p.output.empty())
      std::cout << indent(p.output, failure_lines, p.log_file);
    if (!p.report.reproduce.empty())
      std::cout << "  replay this case:  " << replay_line("reproduce=" + p.report.reproduce, p.target) << "\n";
    std::cout << "  replay the run:    " << replay_line(rc_params(so, p.target), p.target) << "\n";
    for (const auto& f : p.counterexample_files) std::cout << "  counterexample vector: " << f.string() << " (ready to add to vectors/)\n";
    if (!p.log_file.empty()) std::cout << "  full output: " << p.log_file.string() << "\n";
  }
}

int sweep(const SweepCliOptions& o) {
  fs::path bin_dir;
  if (!o.bin_dir.empty()) {
    bin_dir = o.bin_dir;
  } else {
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    if (ec) {
      std::cerr << "qspec sweep: cannot locate the qspec executable (" << ec.message() << "); pass --bin-dir\n";
      return kUsage;
    }
    bin_dir = default_bin_dir(self);
  }

  std::vector<PropertyTarget> targets;
  try {
    const auto binaries = find_property_binaries(bin_dir);
    if (binaries.empty()) {
      std::cerr << "qspec sweep: no *_properties binaries in " << bin_dir.string() << " (build the conformance tests, or pass --bin-dir)\n";
      return kUsage;
    }
    targets = select_properties(binaries, o.globs);
    if (targets.empty()) {
      std::cerr << "qspec sweep: no property matches";
      for (const auto& g : o.globs) std::cerr << " '" << g << "'";
      std::cerr << " in " << binaries.size() << " binaries of " << bin_dir.string() << " (names are Suite.Name, e.g. 'requant_*')\n";
      return kUsage;
    }
  } catch (const SweepError& e) {
    std::cerr << "qspec sweep: " << e.what() << "\n";
    return kUsage;
  }

  // The units: (property, seed) pairs, then this shard's share of them (round-robin, shard.h).
  std::optional<ShardSpec> shard;
  try {
    shard = resolve_shard(o.shard);  // --shard, else GTEST_SHARD_INDEX / GTEST_TOTAL_SHARDS
  } catch (const ShardError& e) {
    std::cerr << "qspec sweep: " << e.what() << "\n";
    return kUsage;
  }
  clear_gtest_shard_environment();  // the property binaries run their whole --gtest_filter
  if (shard && !o.seed) {
    std::cerr << "qspec sweep: --shard " << shard_text(*shard)
              << " needs --seed S: every shard must sweep the same (property, seed) units, and a fresh random seed differs per machine\n";
    return kUsage;
  }
  const std::uint64_t seed = o.seed ? *o.seed : std::random_device{}();
  const std::size_t all_units = targets.size() * o.seeds;
  targets = sweep_units(targets, seed, o.seeds, shard);

  if (o.list) {
    for (const auto& t : targets) std::cout << unit_name(t) << "  " << t.binary.filename().string() << "\n";
    return kOk;
  }
  if (shard) {
    std::cout << "qspec sweep: shard " << shard_text(*shard) << ": " << targets.size() << " of " << all_units << " (property, seed) units\n";
    if (targets.empty()) {
      std::cout << "qspec sweep: nothing to do in this shard\n";
      return kOk;
    }
  }

  SweepOptions so;
  so.cases = o.cases;
  so.seed = seed;
  so.rc_extra = o.rc_extra;
  so.jobs = o.jobs ? o.jobs : std::max(1u, std::thread::hardware_concurrency());
  so.out_dir = fs::absolute(o.out);
  so.timeout_seconds = o.timeout;

  std::cout << "qspec sweep: " << targets.size() << " propert" << (targets.size() == 1 ? "y" : "ies") << " from " << bin_dir.string()
            << "; RC_PARAMS=\"" << rc_params(so) << "\"; " << so.jobs << " job" << (so.jobs == 1 ? "" : "s")
            << "; counterexamples to " << so.out_dir.string() << "\n"
            << std::flush;

  const bool tty = o.progress == "always" || (o.progress == "auto" && ::isatty(STDERR_FILENO));
  Progress progress(tty);
  SweepObserver obs;
  obs.tick = [&](std::size_t done, std::size_t total, const std::vector<const PropertyTarget*>& running) {
    progress.tick(done, total, running);
  };
  obs.finished = [&](const PropertyOutcome& p, std::size_t done, std::size_t total) { progress.finished(p, done, total); };

  const auto t0 = std::chrono::steady_clock::now();
  std::vector<PropertyOutcome> outcomes;
  try {
    outcomes = run_sweep(targets, so, obs);
  } catch (const SweepError& e) {
    progress.clear();
    std::cerr << "qspec sweep: " << e.what() << "\n";
    return kUsage;
  }
  progress.clear();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  print_summary(outcomes, so, wall, o.failure_lines);
  for (const auto& p : outcomes)
    if (p.status != Status::Pass && p.status != Status::Skip) return kFail;
  return kOk;
}

}  // namespace

void add_sweep_command(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<SweepCliOptions>();
  auto* c = app.add_subcommand("sweep", "Run the RapidCheck properties at a chosen scale and seed (docs/sweep.md)");
  c->add_option("--property", o->globs, "Run properties whose Suite.Name matches this glob, e.g. 'requant_*' (repeatable; default all)");
  c->add_option("--cases", o->cases, "RapidCheck cases per property (max_success; default 1000)")->check(CLI::PositiveNumber);
  c->add_option("--seed", o->seed, "RapidCheck seed (default: a fresh random seed, printed)");
  c->add_option("--jobs,-j", o->jobs, "Properties run in parallel (default: the number of cores)");
  c->add_option("--out", o->out, "Directory for counterexample vector files and failure logs (default ./qspec-sweep)");
  c->add_option("--bin-dir", o->bin_dir, "Directory of the *_properties binaries (default <build>/conformance next to this qspec)");
  c->add_option("--timeout", o->timeout, "Kill a property after this many seconds (default: no limit)");
  c->add_option("--rc-extra", o->rc_extra, "More RC_PARAMS settings, e.g. 'max_size=50 noshrink=1'");
  c->add_flag("--list", o->list, "List the selected properties and exit");
  c->add_option("--progress", o->progress, "Progress line: auto (on a terminal), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  c->add_option("--failure-lines", o->failure_lines, "Print at most this many lines of each failure (default 40)");
  c->add_option("--seeds", o->seeds,
                "Run each property with K seeds (--seed, --seed+1, ...): K (property, seed) units per property (default 1)")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 20));
  c->add_option("--shard", o->shard,
                "Run only shard I of N (0 <= I < N): every N-th (property, seed) unit from position I; needs --seed; default: "
                "GTEST_SHARD_INDEX/GTEST_TOTAL_SHARDS when set");
  c->callback([&ctx, o] { ctx.exit_code = sweep(*o); });
}

}  // namespace qspec::cli
