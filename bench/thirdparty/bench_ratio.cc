// bench_ratio: qspec's avx2 time over each library's time, per benchmark shape, from Google
// Benchmark JSON output (bench_kernels --benchmark_format=json or --benchmark_out=FILE).
//
//   bench_ratio run.json [LABEL=other_run.json ...]
// Libraries of a LABEL=file are shown as lib@LABEL (e.g. onednn@avx2_vnni for a run under
// ONEDNN_MAX_CPU_ISA=AVX2_VNNI). A ratio above 1 means the library is faster than qspec's backend.
// A library's configurations (<lib>.<configuration>, or <lib>-<engine>) are one library: the table
// keeps its fastest configuration (every one the benchmark times was checked against qspec's first) and
// names it, with the benchmark's label (the implementation / ISA the library dispatched to); a
// second table lists every configuration. A configuration whose label starts with "inexact" (timed
// under QSPEC_BENCH_TIME_INEXACT although its outputs disagree) is the library's row only when none
// of its configurations is exact, marked INEXACT. <lib>_int8out benchmarks of an int32-output operator
// (libtorch's) are int8-output operators: they go to the <op>_int8out rows.
// Benchmarks that ran on a shrunk problem ("[run_at_...]") are compared per operation rate.
// Times are CPU times (single-threaded runs: not inflated by preemption on a busy machine); with
// --benchmark_repetitions=N the median of the N repetitions (or Google Benchmark's own median
// aggregate, if only aggregates were reported).
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <vector>

namespace {

struct Entry {
  double seconds = 0;  // CPU time per iteration
  double rate = 0;     // operations (GOPS) or elements (Gelem/s) per second, if reported
  bool shrunk = false;
  std::string label;  // the benchmark's label (e.g. the library's dispatched implementation)
};

// Repetitions of one benchmark, and Google Benchmark's median aggregate if it reported one.
struct Samples {
  std::vector<Entry> runs;
  bool has_median = false;
  Entry median;
  bool shrunk = false;
};

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

Entry summarize(const Samples& s) {
  if (s.runs.empty()) return s.median;
  std::vector<double> t, r;
  for (const auto& e : s.runs) {
    t.push_back(e.seconds);
    r.push_back(e.rate);
  }
  return Entry{median_of(t), median_of(r), s.shrunk, s.runs.front().label};
}

double to_seconds(double t, const std::string& unit) {
  if (unit == "ns") return t * 1e-9;
  if (unit == "us") return t * 1e-6;
  if (unit == "ms") return t * 1e-3;
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: bench_ratio run.json [LABEL=other.json ...]\n";
    return 2;
  }
  // (op, shape) -> lib -> entry
  std::map<std::pair<std::string, std::string>, std::map<std::string, Entry>> table;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i], label, path = arg;
    if (const auto eq = arg.find('='); eq != std::string::npos) {
      label = arg.substr(0, eq);
      path = arg.substr(eq + 1);
    }
    std::ifstream in(path);
    if (!in) {
      std::cerr << "bench_ratio: cannot read " << path << "\n";
      return 2;
    }
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(in);
    } catch (const std::exception& e) {
      std::cerr << "bench_ratio: " << path << ": " << e.what() << "\n";
      return 2;
    }
    std::map<std::tuple<std::string, std::string, std::string>, Samples> samples;  // (op, shape, lib)
    for (const auto& b : j.value("benchmarks", nlohmann::json::array())) {
      const std::string run_type = b.value("run_type", "iteration");
      const bool median = run_type == "aggregate" && b.value("aggregate_name", "") == "median";
      if (run_type != "iteration" && !median) continue;  // mean, stddev, cv
      std::string name = b.value("run_name", b.value("name", ""));
      if (name.rfind("BM_", 0) != 0) continue;
      Entry e;
      if (const auto br = name.find("[run_at_"); br != std::string::npos) {
        name = name.substr(0, br);
        e.shrunk = true;
      }
      const auto s1 = name.find('/'), s2 = name.find('/', s1 == std::string::npos ? 0 : s1 + 1);
      if (s1 == std::string::npos || s2 == std::string::npos) continue;
      std::string op = name.substr(3, s1 - 3), lib = name.substr(s1 + 1, s2 - s1 - 1);
      const std::string shape = name.substr(s2 + 1);
      if (const std::string tail = "_int8out"; lib.size() > tail.size() && lib.ends_with(tail)) {
        lib.resize(lib.size() - tail.size());
        op += tail;
      }
      e.label = b.value("label", "");
      e.seconds = to_seconds(b.value("cpu_time", 0.0), b.value("time_unit", "ns"));
      // Shrunk runs: compare rates, i.e. time per operation from the GOPS / Gelem/s counter.
      if (b.contains("GOPS"))
        e.rate = b["GOPS"].get<double>() * 1e9;
      else if (b.contains("Gelem/s"))
        e.rate = b["Gelem/s"].get<double>() * 1e9;
      Samples& sm = samples[{op, shape, label.empty() ? lib : lib + "@" + label}];
      sm.shrunk = sm.shrunk || e.shrunk;
      if (median) {
        sm.has_median = true;
        sm.median = e;
      } else {
        sm.runs.push_back(e);
      }
    }
    for (const auto& [key, sm] : samples) table[{std::get<0>(key), std::get<1>(key)}][std::get<2>(key)] = summarize(sm);
  }
  // qspec's own rows, also from a LABEL=file run (a --benchmark_filter given to compare.sh reaches its
  // second run too, whose avx2 rows are not a library's).
  auto internal = [](std::string lib) {
    lib = lib.substr(0, std::min(lib.find('@'), lib.find('.')));
    return lib == "avx2" || lib == "reference" || lib == "scalar" || lib == "avx2_no_vnni" || lib == "avx2_ymm" ||
           lib == "avx2_novbmi" || lib == "avx2_tflite";
  };
  // qspec's row: its fastest configuration too, "avx2" (the int8 source) or "avx2.u8" (the source
  // as uint8, converted outside the timed loop as for the libraries' u8 configurations), named; not
  // a labelled run's (a filter given to compare.sh runs qspec's rows in its second run too).
  auto qspec_row = [](const std::map<std::string, Entry>& libs) {
    std::pair<std::string, const Entry*> b{"", nullptr};
    for (const auto& [lib, e] : libs)
      if ((lib == "avx2" || lib.starts_with("avx2.")) && lib.find('@') == std::string::npos)
        if (!b.second || e.seconds < b.second->seconds) b = {lib == "avx2" ? "s8" : lib.substr(5), &e};
    return b;
  };
  // lib[.config][@label] -> (lib@label, config); "libtorch-qnnpack" is libtorch's qnnpack engine.
  auto split = [](const std::string& full) {
    std::string name = full, label;
    if (const auto at = name.find('@'); at != std::string::npos) {
      label = name.substr(at);
      name.resize(at);
    }
    const auto dot = name.find_first_of(".-");
    if (dot == std::string::npos) return std::make_pair(name + label, std::string("default"));
    return std::make_pair(name.substr(0, dot) + label, name.substr(dot + 1));
  };
  // A row bench_kernels timed although its outputs disagree (QSPEC_BENCH_TIME_INEXACT): its label
  // starts with "inexact".
  auto inexact = [](const Entry& e) { return e.label.starts_with("inexact"); };
  auto ratio_of = [](const Entry& a, const Entry& e, bool& by_rate) {
    by_rate = (a.shrunk || e.shrunk) && a.rate > 0 && e.rate > 0;
    return by_rate ? e.rate / a.rate : a.seconds / e.seconds;
  };
  std::printf("# median CPU time per iteration; avx2/lib < 1: qspec's avx2 backend is faster\n");
  std::printf("# each library at its fastest exact configuration (the benchmark times only exact ones)\n");
  std::printf("# avx2 src: the source type of qspec's fastest configuration (s8 as given, or u8)\n");
  std::printf("# INEXACT: the library has no exact configuration for the row (a run with QSPEC_BENCH_TIME_INEXACT times\n"
              "# the inexact ones); its fastest inexact one is shown for scale, not as a fair anchor\n");
  std::printf("%-26s %-26s %-22s %-16s %-8s %11s %11s %9s  %s\n", "op", "shape", "library", "configuration", "avx2 src",
              "avx2 (us)", "lib (us)", "avx2/lib", "dispatched");
  for (const auto& [key, libs] : table) {
    const auto [qconfig, qbase] = qspec_row(libs);
    if (qbase == nullptr) continue;
    // library -> its fastest exact configuration, or its fastest inexact one if none is exact
    std::map<std::string, std::pair<std::string, const Entry*>> best;
    for (const auto& [lib, e] : libs) {
      if (internal(lib)) continue;
      const auto [family, config] = split(lib);
      auto& b = best[family];
      const bool exact = !inexact(e), best_exact = b.second && !inexact(*b.second);
      if (!b.second || (exact && !best_exact) || (exact == best_exact && e.seconds < b.second->seconds))
        b = {exact ? config : config + " INEXACT", &e};
    }
    for (const auto& [family, b] : best) {
      bool by_rate = false;
      const double ratio = ratio_of(*qbase, *b.second, by_rate);
      std::printf("%-26s %-26s %-22s %-16s %-8s %11.4g %11.4g %9.3f  %s%s\n", key.first.c_str(), key.second.c_str(),
                  family.c_str(), b.first.c_str(), qconfig.c_str(), qbase->seconds * 1e6, b.second->seconds * 1e6,
                  ratio, b.second->label.c_str(), by_rate ? " (by rate: shrunk problem)" : "");
    }
  }
  std::printf("\n# every configuration timed (against qspec's avx2 row with the int8 source)\n");
  std::printf("%-26s %-26s %-36s %11s %11s %9s  %s\n", "op", "shape", "library", "avx2 (us)", "lib (us)", "avx2/lib",
              "dispatched");
  for (const auto& [key, libs] : table) {
    const auto base = libs.find("avx2");
    if (base == libs.end()) continue;
    for (const auto& [lib, e] : libs) {
      if (internal(lib)) continue;
      bool by_rate = false;
      const double ratio = ratio_of(base->second, e, by_rate);
      std::printf("%-26s %-26s %-36s %11.4g %11.4g %9.3f  %s%s\n", key.first.c_str(), key.second.c_str(), lib.c_str(),
                  base->second.seconds * 1e6, e.seconds * 1e6, ratio, e.label.c_str(),
                  by_rate ? " (by rate: shrunk problem)" : "");
    }
  }
  return 0;
}
