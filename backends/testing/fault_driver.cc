// CTest driver for `qspec run` against the faulty plugins: runs qspec, checks exit status, report and verdicts.
//
//   fault_driver fault --qspec Q --plugin P --vectors FILE --work DIR --verdict V --rc N
//                      [--reason TEXT]... [--ids LO-HI] [--timeout S] [--expect-listed] [--max-rss-mib M]
//                      [--qspec-arg ARG]...
//     Runs P on FILE (tcIds LO..HI, else every test). The faulty plugins misbehave exactly on the
//     valid tests whose first input element is odd; the driver computes that set from FILE itself
//     and requires: exit status N; a complete JSON report with one entry per selected test; each
//     faulty test with verdict V and every TEXT in its reason; every other test PASS; the
//     summary's counts agreeing; the faulty tests printed. --expect-listed also passes an --expect
//     file listing the faulty tests with verdict V (then N is 0). --max-rss-mib: qspec's peak
//     resident memory (wait4's ru_maxrss: qspec and its workers) stays within M MiB. --qspec-arg
//     passes ARG on to `qspec run`.
//
//   fault_driver interrupt --qspec Q --plugin SLOW --vectors FIRST --vectors SECOND --work DIR [--ids LO-HI]
//     With a slow plugin: an uninterrupted run; a run stopped by SIGINT after FIRST is done (exit
//     130, a valid partial report marked "interrupted") and resumed (--resume) to a report equal
//     to the uninterrupted one; the same after SIGKILL, from the last checkpoint; SIGKILL of every
//     resumed run at its first checkpoint (the report never shrinks, and completes); SIGTERM (exit
//     143); --resume refusing a report of other vector files (exit 2); and a vector file changed
//     since the report run again (its stale PASS replaced, exit 1).
//
//   fault_driver breaker --qspec Q --plugin HANG_ALL --vectors FILE --work DIR
//     With a plugin that hangs on every test, on FILE and a copy of it under another name: each
//     file costs 5 timeouts (--max-consecutive-faults' default), its other tests are SKIPPED with
//     the reason, the run fails, and the text, JSON and JUnit reports say so; with
//     --max-consecutive-faults 0 every test runs into its timeout.
//
//   fault_driver orphans --qspec Q --plugin FORK --vectors FILE --work DIR [--ids LO-HI]
//     With the plugin whose faulty tests fork a sleeping grandchild (faulty_backend.c, FORK): after
//     a complete run, a run whose faulty tests also abort (the worker is restarted; every later
//     call checks that the processes of earlier workers are gone), and runs ended by one SIGTERM
//     and by two in a row, no process forked by a worker survives, and no process is
//     left in a worker's process group.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {
namespace fs = std::filesystem;
using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

int g_failures = 0;

void check(bool ok, const std::string& what) {
  if (ok) return;
  ++g_failures;
  std::cout << "CHECK FAILED: " << what << "\n";
}

struct Args {
  std::string mode, qspec, plugin, work, verdict, timeout, ids, max_rss_mib;
  std::vector<std::string> vectors, reasons, qspec_args;
  int rc = -1;
  bool expect_listed = false;
};

Args parse_args(int argc, char** argv) {
  Args a;
  if (argc > 1) a.mode = argv[1];
  for (int i = 2; i < argc; ++i) {
    const std::string k = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) throw std::runtime_error("missing value after " + k);
      return argv[++i];
    };
    if (k == "--qspec")
      a.qspec = next();
    else if (k == "--plugin")
      a.plugin = next();
    else if (k == "--vectors")
      a.vectors.push_back(next());
    else if (k == "--work")
      a.work = next();
    else if (k == "--verdict")
      a.verdict = next();
    else if (k == "--reason")
      a.reasons.push_back(next());
    else if (k == "--rc")
      a.rc = std::stoi(next());
    else if (k == "--ids")
      a.ids = next();
    else if (k == "--timeout")
      a.timeout = next();
    else if (k == "--expect-listed")
      a.expect_listed = true;
    else if (k == "--max-rss-mib")
      a.max_rss_mib = next();
    else if (k == "--qspec-arg")
      a.qspec_args.push_back(next());
    else
      throw std::runtime_error("unknown argument " + k);
  }
  return a;
}

// A started qspec whose stdout+stderr we read.
struct Child {
  pid_t pid = -1;
  int fd = -1;
  std::string out;
};

Child start(const std::vector<std::string>& argv) {
  int p[2];
  if (::pipe(p) != 0) throw std::runtime_error("pipe failed");
  std::vector<char*> c;
  for (const auto& s : argv) c.push_back(const_cast<char*>(s.c_str()));
  c.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(p[1], 1);
    ::dup2(p[1], 2);
    ::close(p[0]);
    ::close(p[1]);
    ::execv(c[0], c.data());
    ::_exit(127);
  }
  ::close(p[1]);
  return {pid, p[0], {}};
}

// Reads output until `text` appears (true) or the child ends / `seconds` pass (false).
bool read_until(Child& ch, const std::string& text, double seconds) {
  const auto t0 = Clock::now();
  while (ch.out.find(text) == std::string::npos) {
    const double left = seconds - std::chrono::duration<double>(Clock::now() - t0).count();
    if (left <= 0 || ch.fd < 0) return false;
    pollfd f{ch.fd, POLLIN, 0};
    if (::poll(&f, 1, static_cast<int>(left * 1000) + 1) <= 0) continue;
    char buf[4096];
    const ssize_t n = ::read(ch.fd, buf, sizeof buf);
    if (n <= 0) {
      ::close(ch.fd);
      ch.fd = -1;
      return ch.out.find(text) != std::string::npos;
    }
    ch.out.append(buf, static_cast<std::size_t>(n));
  }
  return true;
}

// The peak resident set size of the last child finish() reaped (and of its reaped children).
long g_last_maxrss_kib = 0;

// Reads the rest of the output and returns the exit status (128 + signal if killed).
int finish(Child& ch) {
  while (ch.fd >= 0) read_until(ch, "\x01never\x01", 60);
  int st = 0;
  struct rusage ru {};
  while (::wait4(ch.pid, &st, 0, &ru) < 0 && errno == EINTR) {
  }
  g_last_maxrss_kib = ru.ru_maxrss;
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

std::pair<int, std::string> run(const std::vector<std::string>& argv) {
  Child ch = start(argv);
  const int rc = finish(ch);
  return {rc, ch.out};
}

json read_json(const fs::path& p) {
  std::ifstream in(p);
  if (!in) throw std::runtime_error("cannot read " + p.string());
  return json::parse(in);
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// The vector file's display name as `qspec run` gives it: relative to the nearest "vectors" dir.
std::string display_name(const fs::path& file) {
  fs::path rel;
  for (fs::path p = file.parent_path(); !p.empty() && p != p.root_path(); p = p.parent_path()) {
    if (p.filename() == "vectors") return fs::relative(file, p).generic_string();
  }
  return file.generic_string();
}

struct VectorTestInfo {
  std::int64_t id;
  bool faulty;
};

// The tests of a vector file, and which of them the faulty plugins misbehave on: valid tests
// whose first input's first element is odd (faulty_backend.c, faulty_test).
std::vector<VectorTestInfo> vector_tests(const fs::path& file, std::int64_t lo, std::int64_t hi) {
  const json v = read_json(file);
  std::vector<VectorTestInfo> out;
  for (const auto& g : v.at("testGroups"))
    for (const auto& t : g.at("tests")) {
      const std::int64_t id = t.at("tcId").get<std::int64_t>();
      if (id < lo || id > hi) continue;
      bool faulty = false;
      if (t.at("result") == "valid" && t.contains("inputs") && !t["inputs"].empty()) {
        const json& x = t["inputs"].begin().value();
        if (x.at("dtype") == "int32" && !x.at("data").empty()) {
          const json& e = x["data"][0];
          const std::int64_t v0 = e.is_string() ? std::stoll(e.get<std::string>()) : e.get<std::int64_t>();
          faulty = v0 % 2 != 0;
        }
      }
      out.push_back({id, faulty});
    }
  return out;
}

void parse_ids(const std::string& ids, std::int64_t& lo, std::int64_t& hi) {
  lo = 0;
  hi = INT64_MAX;
  if (ids.empty()) return;
  const auto dash = ids.find('-');
  lo = std::stoll(ids.substr(0, dash));
  hi = std::stoll(ids.substr(dash + 1));
}

std::vector<std::string> id_filters(const std::string& ids) {
  std::vector<std::string> f;
  if (ids.empty()) return f;
  std::int64_t lo, hi;
  parse_ids(ids, lo, hi);
  for (std::int64_t i = lo; i <= hi; ++i) {
    f.push_back("--filter");
    f.push_back("*#" + std::to_string(i));
  }
  return f;
}

int fault_mode(const Args& a) {
  const auto t0 = Clock::now();
  fs::remove_all(a.work);
  fs::create_directories(a.work);
  std::int64_t lo, hi;
  parse_ids(a.ids, lo, hi);
  const fs::path vectors = a.vectors.at(0);
  const std::string name = display_name(vectors);
  const auto tests = vector_tests(vectors, lo, hi);
  std::size_t n_faulty = 0;
  for (const auto& t : tests) n_faulty += t.faulty;
  check(n_faulty > 0 && n_faulty < tests.size(), "the selection mixes faulty and correct tests (" +
                                                     std::to_string(n_faulty) + " of " + std::to_string(tests.size()) +
                                                     " faulty)");

  const fs::path report = fs::path(a.work) / "report.json";
  std::vector<std::string> argv = {
      a.qspec,      "run",   "--backend",     a.plugin,        "--vectors",         vectors.string(),
      "--progress", "never", "--report-json", report.string(), "--max-diagnostics", "1000"};
  if (!a.timeout.empty()) argv.insert(argv.end(), {"--timeout", a.timeout});
  argv.insert(argv.end(), a.qspec_args.begin(), a.qspec_args.end());
  for (const auto& f : id_filters(a.ids)) argv.push_back(f);
  if (a.expect_listed) {
    const fs::path expect = fs::path(a.work) / "expect.txt";
    std::ofstream e(expect);
    e << "# the faulty plugin's known faults\n";
    for (const auto& t : tests)
      if (t.faulty) e << "* " << t.id << " " << a.verdict << " known fault of the test plugin\n";
    e.close();
    argv.insert(argv.end(), {"--expect", expect.string()});
  }
  const auto [rc, out] = run(argv);
  std::cout << out.substr(0, 6000) << (out.size() > 6000 ? "\n...\n" : "");
  check(rc == a.rc, "exit status " + std::to_string(rc) + ", expected " + std::to_string(a.rc));
  if (!a.max_rss_mib.empty()) {
    const long limit_kib = std::stol(a.max_rss_mib) * 1024;
    check(g_last_maxrss_kib <= limit_kib, "qspec's peak resident memory " + std::to_string(g_last_maxrss_kib / 1024) +
                                              " MiB is within " + a.max_rss_mib + " MiB");
    std::cout << "qspec's peak resident memory: " << g_last_maxrss_kib / 1024 << " MiB\n";
  }

  json r;
  try {
    r = read_json(report);
  } catch (const std::exception& e) {
    check(false, std::string("the JSON report: ") + e.what());
    return 1;
  }
  check(r.value("interrupted", true) == false, "the report is complete (\"interrupted\": false)");
  const json& rt = r.at("tests");
  check(rt.size() == tests.size(),
        "the report has " + std::to_string(rt.size()) + " tests, the selection " + std::to_string(tests.size()));
  check(r.at("summary").at("total") == tests.size(), "summary.total equals the number of selected tests");
  std::map<std::int64_t, const json*> by_id;
  for (const auto& t : rt) {
    check(t.at("file") == name, "test file " + t.at("file").dump() + " is " + name);
    check(by_id.emplace(t.at("tcId").get<std::int64_t>(), &t).second, "tcId " + t.at("tcId").dump() + " reported once");
  }
  std::size_t n_verdict = 0, n_pass = 0;
  bool printed = false;
  for (const auto& t : tests) {
    const auto it = by_id.find(t.id);
    if (it == by_id.end()) {
      check(false, "tcId " + std::to_string(t.id) + " is in the report");
      continue;
    }
    const json& j = *it->second;
    const std::string verdict = j.at("verdict").get<std::string>();
    const std::string reason = j.value("reason", "");
    if (t.faulty) {
      n_verdict += verdict == a.verdict;
      check(verdict == a.verdict,
            "tcId " + std::to_string(t.id) + ": verdict " + verdict + ", expected " + a.verdict + " (" + reason + ")");
      for (const auto& text : a.reasons)
        check(contains(reason, text),
              "tcId " + std::to_string(t.id) + ": the reason contains '" + text + "': " + reason);
      if (!printed && a.rc == 1) {
        check(contains(out, a.verdict + " " + name + " tcId " + std::to_string(t.id) + ": "),
              "the output shows the first faulty test");
        printed = true;
      }
    } else {
      n_pass += verdict == "PASS";
      check(verdict == "PASS",
            "tcId " + std::to_string(t.id) + ": verdict " + verdict + ", expected PASS (" + reason + ")");
    }
  }
  check(r.at("summary").at(a.verdict) == n_faulty, "summary." + a.verdict + " = " + std::to_string(n_faulty));
  check(r.at("summary").at("PASS") == tests.size() - n_faulty, "summary.PASS = the correct tests");
  const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
  std::cout << "fault_driver: " << n_verdict << " " << a.verdict << " and " << n_pass << " PASS of " << tests.size()
            << " tests, " << secs << " s, " << g_failures << " failed checks\n";
  return g_failures ? 1 : 0;
}

// (file, tcId, verdict, reason) of every test, in report order.
std::vector<std::string> verdict_list(const json& r) {
  std::vector<std::string> v;
  for (const auto& t : r.at("tests"))
    v.push_back(t.at("file").get<std::string>() + "#" + t.at("tcId").dump() + " " + t.at("verdict").get<std::string>() +
                " " + t.value("reason", ""));
  return v;
}

void compare_reports(const json& got, const json& want, const std::string& what) {
  check(got.value("interrupted", true) == false, what + ": complete (\"interrupted\": false)");
  for (const char* k : {"total", "PASS", "FAIL", "ERROR", "UNSUPPORTED", "CRASH", "TIMEOUT", "SKIPPED", "unexpected"})
    check(got.at("summary").value(k, -1) == want.at("summary").value(k, -1),
          what + ": summary." + k + " " + got.at("summary").value(k, json(-1)).dump() + " vs " +
              want.at("summary").value(k, json(-1)).dump());
  check(verdict_list(got) == verdict_list(want), what + ": the per-test verdict list equals the uninterrupted run's");
  check(got.at("files").size() == want.at("files").size(), what + ": the same files");
}

int interrupt_mode(const Args& a) {
  const auto t0 = Clock::now();
  fs::remove_all(a.work);
  fs::create_directories(a.work);
  const fs::path w = a.work;
  std::vector<std::string> base = {a.qspec, "run", "--backend", a.plugin, "--progress", "never"};
  for (const auto& v : a.vectors) base.insert(base.end(), {"--vectors", v});
  for (const auto& f : id_filters(a.ids)) base.push_back(f);
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> v = base;
    v.insert(v.end(), extra.begin(), extra.end());
    return v;
  };
  const std::string first_done = display_name(a.vectors.at(0)) + ": ";

  // The uninterrupted run.
  auto [rc, out] = run(with({"--report-json", (w / "full.json").string()}));
  check(rc == 0, "the uninterrupted run exits 0 (got " + std::to_string(rc) + ")\n" + out);
  const json full = read_json(w / "full.json");
  const std::size_t total = full.at("tests").size();
  std::size_t first_count = 0;
  for (const auto& t : full.at("tests")) first_count += t.at("file") == display_name(a.vectors.at(0));
  check(total > first_count && first_count > 0, "both vector files have tests");

  // SIGINT after the first file: a valid partial report, then --resume completes it.
  {
    Child ch = start(with({"--report-json", (w / "int.json").string()}));
    check(read_until(ch, first_done, 30), "the first file finishes");
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    ::kill(ch.pid, SIGINT);
    const int st = finish(ch);
    check(st == 130, "SIGINT: exit status 130 (got " + std::to_string(st) + ")\n" + ch.out);
    check(contains(ch.out, "interrupted by SIGINT"), "SIGINT: says so");
    const json part = read_json(w / "int.json");
    check(part.value("interrupted", false) == true, "SIGINT: the report is marked \"interrupted\": true");
    const std::size_t n = part.at("tests").size();
    check(n >= first_count && n < total,
          "SIGINT: the report holds the tests done (" + std::to_string(n) + " of " + std::to_string(total) + ")");
    check(part.at("summary").at("total") == n, "SIGINT: the partial summary counts the tests done");
    std::tie(rc, out) = run(with({"--resume", (w / "int.json").string()}));
    check(rc == 0, "resume after SIGINT exits 0 (got " + std::to_string(rc) + ")\n" + out);
    check(contains(out, "resuming"), "resume: says so");
    compare_reports(read_json(w / "int.json"), full, "resumed after SIGINT");
    std::cout << "SIGINT: " << n << " of " << total << " tests in the partial report; resumed to the full result\n";
  }

  // SIGKILL: no chance to write anything; the last checkpoint (--checkpoint-seconds 0: after
  // every test) is a valid partial report, and --resume completes it.
  {
    const fs::path rep = w / "kill.json";
    Child ch = start(with({"--report-json", rep.string(), "--checkpoint-seconds", "0"}));
    check(read_until(ch, first_done, 30), "the first file finishes");
    const auto deadline = Clock::now() + std::chrono::seconds(20);
    std::size_t n = 0;
    while (Clock::now() < deadline) {  // until a checkpoint beyond the first file exists
      try {
        if (fs::exists(rep)) n = read_json(rep).at("tests").size();
      } catch (const std::exception&) {
        check(false, "SIGKILL: every checkpoint is valid JSON");
        break;
      }
      if (n > first_count) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ::kill(ch.pid, SIGKILL);
    const int st = finish(ch);
    check(st == 128 + SIGKILL, "SIGKILL: killed");
    const json part = read_json(rep);
    check(part.value("interrupted", false) == true, "SIGKILL: the checkpoint is marked \"interrupted\": true");
    n = part.at("tests").size();
    check(n > first_count && n < total,
          "SIGKILL: the checkpoint holds " + std::to_string(n) + " of " + std::to_string(total) + " tests");
    std::tie(rc, out) = run(with({"--resume", rep.string()}));
    check(rc == 0, "resume after SIGKILL exits 0 (got " + std::to_string(rc) + ")\n" + out);
    compare_reports(read_json(rep), full, "resumed after SIGKILL");
    std::cout << "SIGKILL: " << n << " of " << total << " tests in the last checkpoint; resumed to the full result\n";
  }

  // SIGKILL again and again, each resumed run killed as soon as it wrote its first checkpoint
  // (--checkpoint-seconds 0): the report never holds fewer tests than before, and the last
  // resumed run completes it.
  {
    const fs::path rep = w / "kills.json";
    auto report_id = [&rep]() -> std::pair<ino_t, bool> {
      struct stat st {};
      return ::stat(rep.c_str(), &st) == 0 ? std::make_pair(st.st_ino, true) : std::make_pair(ino_t{}, false);
    };
    std::vector<std::string> args = with({"--report-json", rep.string(), "--checkpoint-seconds", "0"});
    std::size_t held = 0, kills = 0;
    bool completed = false;
    for (int round = 0; round < 100 && !completed; ++round) {
      const auto before = report_id();
      Child ch = start(
          round == 0 ? args
                     : with({"--report-json", rep.string(), "--checkpoint-seconds", "0", "--resume", rep.string()}));
      // Until a checkpoint replaces the report (the first run: one with 3 tests), or qspec ends.
      const auto deadline = Clock::now() + std::chrono::seconds(20);
      bool killed = false;
      while (Clock::now() < deadline) {
        int st = 0;
        if (::waitpid(ch.pid, &st, WNOHANG) == ch.pid) {
          ch.pid = -1;
          completed = WIFEXITED(st) && WEXITSTATUS(st) == 0;
          check(completed, "kills: a resumed run ended with status " + std::to_string(st) + "\n" + ch.out);
          break;
        }
        const auto now = report_id();
        if (now.second && now != before) {
          std::size_t n = 0;
          bool partial = false;  // a checkpoint, not the complete report being written at the end
          try {
            const json r = read_json(rep);
            n = r.at("tests").size();
            partial = r.value("interrupted", false);
          } catch (const std::exception&) {
          }
          if (partial && (round > 0 || n >= 3)) {
            ::kill(ch.pid, SIGKILL);
            killed = true;
            ++kills;
            break;
          }
        }
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
      if (ch.pid > 0) {
        if (!killed) ::kill(ch.pid, SIGKILL);
        finish(ch);
      } else {
        while (ch.fd >= 0) read_until(ch, "\x01never\x01", 60);
      }
      const std::size_t n = read_json(rep).at("tests").size();
      check(n >= held, "kills: round " + std::to_string(round) + ": the report shrank from " + std::to_string(held) +
                           " to " + std::to_string(n) + " tests");
      held = std::max(held, n);
    }
    check(completed, "kills: the resumed runs completed the report");
    compare_reports(read_json(rep), full, "resumed after repeated SIGKILLs");
    std::cout << "SIGKILL after each first checkpoint: " << kills << " kills, the report never shrank, completed\n";
  }

  // SIGTERM: exit 143 and a partial report.
  {
    Child ch = start(with({"--report-json", (w / "term.json").string()}));
    check(read_until(ch, first_done, 30), "the first file finishes");
    ::kill(ch.pid, SIGTERM);
    const int st = finish(ch);
    check(st == 143, "SIGTERM: exit status 143 (got " + std::to_string(st) + ")\n" + ch.out);
    check(read_json(w / "term.json").value("interrupted", false) == true, "SIGTERM: the report is marked interrupted");
  }

  // --resume refuses a report of another vector set.
  {
    std::vector<std::string> other = {a.qspec,         "run",
                                      "--backend",     a.plugin,
                                      "--progress",    "never",
                                      "--vectors",     a.vectors.at(1),
                                      "--resume",      (w / "full.json").string(),
                                      "--report-json", (w / "other.json").string()};
    for (const auto& f : id_filters(a.ids)) other.push_back(f);
    std::tie(rc, out) = run(other);
    check(rc == 2, "resume on other vector files: exit status 2 (got " + std::to_string(rc) + ")");
    check(contains(out, "cannot resume from") && contains(out, "other vector files"),
          "resume on other vector files: says why\n" + out);
  }
  // A vector file changed under the same name since the report: --resume runs it again (its
  // stale PASS gives way to the FAIL the new content earns) and says so.
  {
    const fs::path copy = w / "vectors" / fs::path(display_name(a.vectors.at(1)));
    fs::create_directories(copy.parent_path());
    fs::copy_file(a.vectors.at(1), copy, fs::copy_options::overwrite_existing);
    std::vector<std::string> one = {a.qspec,         "run",
                                    "--backend",     a.plugin,
                                    "--progress",    "never",
                                    "--vectors",     copy.string(),
                                    "--filter",      "*#1",
                                    "--filter",      "*#2",
                                    "--report-json", (w / "changed.json").string()};
    std::tie(rc, out) = run(one);
    check(rc == 0, "changed file: the first run passes (got " + std::to_string(rc) + ")\n" + out);
    json doc = read_json(copy);
    json& e = doc["testGroups"][0]["tests"][0]["expected"].begin().value()["data"][0];
    e = e.get<std::int64_t>() == 0 ? 1 : 0;
    std::ofstream(copy) << doc.dump(1);
    one.insert(one.end(), {"--resume", (w / "changed.json").string()});
    std::tie(rc, out) = run(one);
    check(rc == 1, "changed file: the resumed run fails the changed test (got " + std::to_string(rc) + ")\n" + out);
    check(contains(out, "changed since"), "changed file: the resumed run says the file is run again\n" + out);
    const json r = read_json(w / "changed.json");
    check(r.at("tests").size() == 2 && r.at("tests")[0].at("verdict") == "FAIL",
          "changed file: its first test is now FAIL");
  }
  const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
  std::cout << "fault_driver interrupt: " << secs << " s, " << g_failures << " failed checks\n";
  return g_failures ? 1 : 0;
}

// Whether process `pid` exists and is not a zombie.
bool process_runs(long pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!in || !std::getline(in, stat)) return false;
  const auto paren = stat.rfind(')');
  return paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] != 'Z' && stat[paren + 2] != 'X';
}

// The process group of `pid` (field 5 of /proc/PID/stat), or -1.
long process_group(const std::string& pid) {
  std::ifstream in("/proc/" + pid + "/stat");
  std::string stat;
  if (!in || !std::getline(in, stat)) return -1;
  const auto paren = stat.rfind(')');
  if (paren == std::string::npos) return -1;
  std::istringstream rest(stat.substr(paren + 2));
  std::string state;
  long ppid = 0, pgrp = -1;
  rest >> state >> ppid >> pgrp;
  return state == "Z" || state == "X" ? -1 : pgrp;
}

// Checks that no process logged in `log` ("WORKER CHILD" lines) runs, nor any process in a
// logged worker's process group (waiting up to 2 s for SIGKILLed processes to go).
void check_no_survivors(const fs::path& log, const std::string& what) {
  std::set<long> workers, children;
  std::ifstream in(log);
  long w = 0, c = 0;
  while (in >> w >> c) {
    workers.insert(w);
    children.insert(c);
  }
  check(!children.empty(), what + ": the plugin forked processes (" + log.string() + ")");
  std::vector<std::string> left;
  for (int attempt = 0; attempt < 200; ++attempt) {
    left.clear();
    for (long child : children)
      if (process_runs(child)) left.push_back("forked process " + std::to_string(child));
    for (const auto& e : fs::directory_iterator("/proc")) {
      const std::string name = e.path().filename().string();
      if (name.find_first_not_of("0123456789") != std::string::npos) continue;
      const long g = process_group(name);
      if (workers.count(g)) left.push_back("process " + name + " in worker process group " + std::to_string(g));
    }
    if (left.empty()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  for (const auto& l : left) check(false, what + ": " + l + " survives qspec");
  std::cout << what << ": " << children.size() << " forked processes of " << workers.size() << " workers, "
            << left.size() << " left running\n";
}

int orphans_mode(const Args& a) {
  const auto t0 = Clock::now();
  fs::remove_all(a.work);
  fs::create_directories(a.work);
  const fs::path w = a.work;
  std::vector<std::string> base = {a.qspec,      "run",   "--backend", a.plugin,
                                   "--progress", "never", "--vectors", a.vectors.at(0)};
  for (const auto& f : id_filters(a.ids)) base.push_back(f);

  // A complete run: the forked processes end with the run.
  ::setenv("QSPEC_TESTING_FORK_LOG", (w / "complete.log").c_str(), 1);
  auto [rc, out] = run(base);
  check(rc == 0, "complete run: exit status 0 (got " + std::to_string(rc) + ")\n" + out);
  check_no_survivors(w / "complete.log", "complete run");

  // Each faulty test forks, then aborts: CRASH, a fresh worker, whose calls find no process of
  // the earlier workers (else the plugin answers ERROR).
  ::setenv("QSPEC_TESTING_FORK_LOG", (w / "restart.log").c_str(), 1);
  ::setenv("QSPEC_TESTING_FORK_THEN_ABORT", "1", 1);
  std::vector<std::string> restart = base;
  restart.insert(restart.end(), {"--timeout", "5", "--report-json", (w / "restart.json").string()});
  std::tie(rc, out) = run(restart);
  ::unsetenv("QSPEC_TESTING_FORK_THEN_ABORT");
  check(rc == 1, "restarting run: exit status 1 (got " + std::to_string(rc) + ")");
  const json r = read_json(w / "restart.json");
  std::size_t crashes = 0;
  for (const auto& t : r.at("tests")) {
    const std::string verdict = t.at("verdict"), reason = t.value("reason", "");
    if (verdict == "CRASH") {
      ++crashes;
      check(contains(reason, "SIGABRT"), "restarting run: the crash is the abort, seen at once: " + reason);
    } else {
      check(verdict == "PASS", "restarting run: tcId " + t.at("tcId").dump() + " " + verdict + " " + reason);
    }
  }
  check(crashes > 1, "restarting run: several workers crashed (" + std::to_string(crashes) + ")");
  check_no_survivors(w / "restart.log", "restarting run");

  // SIGTERM during a run.
  ::setenv("QSPEC_TESTING_FORK_LOG", (w / "sigterm.log").c_str(), 1);
  ::setenv("QSPEC_TESTING_FORK_SLOW_MS", "20", 1);
  Child ch = start(base);
  const auto deadline = Clock::now() + std::chrono::seconds(30);
  while (Clock::now() < deadline && (!fs::exists(w / "sigterm.log") || fs::file_size(w / "sigterm.log") == 0))
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ::kill(ch.pid, SIGTERM);
  int st = finish(ch);
  check(st == 143, "SIGTERM: exit status 143 (got " + std::to_string(st) + ")\n" + ch.out);
  check_no_survivors(w / "sigterm.log", "SIGTERM");

  // Two SIGTERMs in a row (the second, if it finds qspec still busy, ends it at once after
  // killing the workers' process groups: cmd_run.cc).
  ::setenv("QSPEC_TESTING_FORK_LOG", (w / "sigterm2.log").c_str(), 1);
  ::setenv("QSPEC_TESTING_FORK_SLOW_MS", "300", 1);
  ch = start(base);
  const auto deadline2 = Clock::now() + std::chrono::seconds(30);
  while (Clock::now() < deadline2 && (!fs::exists(w / "sigterm2.log") || fs::file_size(w / "sigterm2.log") == 0))
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ::kill(ch.pid, SIGTERM);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ::kill(ch.pid, SIGTERM);
  st = finish(ch);
  check(st == 128 + SIGTERM, "two SIGTERMs: exit status 143 (got " + std::to_string(st) + ")\n" + ch.out);
  check_no_survivors(w / "sigterm2.log", "two SIGTERMs");
  ::unsetenv("QSPEC_TESTING_FORK_SLOW_MS");
  ::unsetenv("QSPEC_TESTING_FORK_LOG");

  const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
  std::cout << "fault_driver orphans: " << secs << " s, " << g_failures << " failed checks\n";
  return g_failures ? 1 : 0;
}

int breaker_mode(const Args& a) {
  const auto t0 = Clock::now();
  fs::remove_all(a.work);
  fs::create_directories(a.work);
  const fs::path w = a.work;
  const fs::path copy = w / "vectors" / "requantize" / "copy.json";  // the same op and convention
  fs::create_directories(copy.parent_path());
  fs::copy_file(a.vectors.at(0), copy);
  const std::size_t per_file = vector_tests(a.vectors.at(0), 0, INT64_MAX).size();
  const std::vector<std::string> base = {a.qspec,     "run", "--backend", a.plugin,        "--progress", "never",
                                         "--timeout", "0.3", "--vectors", a.vectors.at(0), "--vectors",  copy.string()};
  std::vector<std::string> argv = base;
  argv.insert(argv.end(), {"--report-json", (w / "r.json").string(), "--junit", (w / "r.xml").string()});
  const auto t1 = Clock::now();
  auto [rc, out] = run(argv);
  const double secs = std::chrono::duration<double>(Clock::now() - t1).count();
  std::cout << out.substr(0, 3000) << "\n";
  check(rc == 1, "exit status 1 (got " + std::to_string(rc) + ")");
  check(secs < 30, "2 files of " + std::to_string(per_file) + " hanging tests take " + std::to_string(secs) +
                       " s at --timeout 0.3, not one timeout per test");
  const json r = read_json(w / "r.json");
  std::map<std::string, std::size_t> seen;
  for (const auto& t : r.at("tests")) {
    const std::size_t i = seen[t.at("file").get<std::string>()]++;
    const std::string verdict = t.at("verdict"), reason = t.value("reason", "");
    check(verdict == (i < 5 ? "TIMEOUT" : "SKIPPED"),
          t.at("file").get<std::string>() + " #" + std::to_string(i) + ": " + verdict);
    if (i >= 5)
      check(contains(reason, "not run: skipped after 5 consecutive TIMEOUT/CRASH in this file"),
            "the reason says why: " + reason);
  }
  check(seen.size() == 2 && r.at("tests").size() == 2 * per_file, "both files, every test reported");
  check(r.at("summary").at("SKIPPED") == 2 * (per_file - 5), "summary.SKIPPED counts them");
  check(r.at("summary").at("unexpected") == 2 * per_file, "every test is a failure");
  check(contains(out, std::to_string(per_file - 5) + " SKIPPED"), "the file lines count them");
  check(contains(out, std::to_string(2 * (per_file - 5)) + " SKIPPED (after consecutive TIMEOUT/CRASH)"),
        "the total says why");
  check(contains(out, "Result: FAILED"), "the result is FAILED");
  std::ifstream x(w / "r.xml");
  const std::string junit((std::istreambuf_iterator<char>(x)), std::istreambuf_iterator<char>());
  check(contains(junit, "type=\"SKIPPED\">not run: skipped after 5 consecutive"), "JUnit: an <error> of type SKIPPED");

  // Off: every selected test runs into its timeout.
  argv = base;
  argv.insert(argv.end(), {"--max-consecutive-faults", "0", "--filter", "requantize/copy.json#[1-7]", "--report-json",
                           (w / "off.json").string()});
  std::tie(rc, out) = run(argv);
  const json off = read_json(w / "off.json");
  check(rc == 1 && off.at("summary").at("TIMEOUT") == 7 && off.at("summary").at("SKIPPED") == 0,
        "--max-consecutive-faults 0: 7 TIMEOUT, nothing skipped\n" + out);
  std::cout << "fault_driver breaker: the hanging run took " << secs << " s; "
            << std::chrono::duration<double>(Clock::now() - t0).count() << " s, " << g_failures << " failed checks\n";
  return g_failures ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Args a = parse_args(argc, argv);
    if (a.mode == "fault") return fault_mode(a);
    if (a.mode == "interrupt") return interrupt_mode(a);
    if (a.mode == "orphans") return orphans_mode(a);
    if (a.mode == "breaker") return breaker_mode(a);
    std::cerr << "usage: fault_driver fault|interrupt|orphans|breaker ...\n";
  } catch (const std::exception& e) {
    std::cout << "fault_driver: " << e.what() << "\n";
  }
  return 1;
}
