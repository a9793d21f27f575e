// Shards and `qspec report merge` as a library: --shard I/N partitions exactly, GTEST_* variables,
// the merged shards equal the unsharded report, and overlapping, missing or foreign shards are refused.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>
#include <set>

#include "qspec/harness/report_merge.h"
#include "qspec/harness/shard.h"
#include "qspec/harness/sweep.h"
#include "qspec/harness/test_identity.h"
#include "report_test_support.h"

namespace {
using namespace qspec;
using namespace qspec::harness;
using namespace qspec::report_test;
using OJ = nlohmann::ordered_json;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// The message of the MergeError `f` throws ("" if it does not throw).
template <class F>
std::string merge_error(F f) {
  try {
    f();
  } catch (const MergeError& e) {
    return e.what();
  }
  return "";
}

// --- shards --------------------------------------------------------------------------------------

TEST(harness_shard, parse_accepts_only_zero_based_i_of_n) {
  EXPECT_EQ(parse_shard("0/4"), (ShardSpec{0, 4}));
  EXPECT_EQ(parse_shard("3/4"), (ShardSpec{3, 4}));
  EXPECT_EQ(parse_shard("0/1"), (ShardSpec{0, 1}));
  EXPECT_EQ(shard_text(ShardSpec{2, 7}), "2/7");
  for (const char* bad : {"4/4", "1/0", "-1/4", "1", "a/b", "1/4/5", " 1/4", "1/ 4", "", "/", "1/", "99999999999/2"})
    EXPECT_THROW(parse_shard(bad), ShardError) << bad;
}

// Round-robin: every position in exactly one shard, shard sizes within one of each other, and
// shard_size agrees with counting.
TEST(harness_shard, round_robin_partitions_exactly_and_evenly) {
  for (std::size_t n = 1; n <= 7; ++n)
    for (std::size_t total = 0; total <= 40; ++total) {
      std::vector<std::size_t> sizes(n);
      for (std::size_t p = 0; p < total; ++p) {
        std::size_t owners = 0;
        for (std::size_t i = 0; i < n; ++i)
          if (in_shard(ShardSpec{i, n}, p)) {
            ++owners;
            ++sizes[i];
          }
        ASSERT_EQ(owners, 1u) << p << " of " << total << " in " << n;
      }
      for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(shard_size(ShardSpec{i, n}, total), sizes[i]);
      EXPECT_LE(*std::max_element(sizes.begin(), sizes.end()) - *std::min_element(sizes.begin(), sizes.end()), 1u);
    }
}

// Sets the GoogleTest variables for one scope and removes them again.
struct GtestShardEnv {
  GtestShardEnv(const char* index, const char* total, const char* status = nullptr) {
    if (index) ::setenv("GTEST_SHARD_INDEX", index, 1);
    if (total) ::setenv("GTEST_TOTAL_SHARDS", total, 1);
    if (status) ::setenv("GTEST_SHARD_STATUS_FILE", status, 1);
  }
  ~GtestShardEnv() { clear_gtest_shard_environment(); }
};

TEST(harness_shard, gtest_variables_apply_when_no_shard_option_is_given) {
  clear_gtest_shard_environment();
  EXPECT_EQ(resolve_shard(""), std::nullopt);
  EXPECT_EQ(resolve_shard("1/3"), (ShardSpec{1, 3}));
  EXPECT_EQ(resolve_shard("0/1"), std::nullopt);  // one shard is the whole run
  const fs::path status = fs::temp_directory_path() / ("qspec_shard_status_" + std::to_string(::getpid()));
  fs::remove(status);
  {
    GtestShardEnv env("2", "4", status.c_str());
    EXPECT_EQ(resolve_shard(""), (ShardSpec{2, 4}));
    EXPECT_TRUE(fs::exists(status));                     // the handshake file, as GoogleTest writes it
    EXPECT_EQ(resolve_shard("0/2"), (ShardSpec{0, 2}));  // --shard wins
  }
  fs::remove(status);
  {
    GtestShardEnv env("1", nullptr);
    EXPECT_THROW(resolve_shard(""), ShardError);
  }
  {
    GtestShardEnv env(nullptr, "3");
    EXPECT_THROW(resolve_shard(""), ShardError);
  }
  {
    GtestShardEnv env("3", "3");
    EXPECT_THROW(resolve_shard(""), ShardError);
  }
  {
    GtestShardEnv env("x", "3");
    EXPECT_THROW(resolve_shard(""), ShardError);
  }
  {
    GtestShardEnv env("0", "1");
    EXPECT_EQ(resolve_shard(""), std::nullopt);
  }
  {
    GtestShardEnv env(nullptr, nullptr, "/nonexistent-dir/status");
    EXPECT_THROW(resolve_shard(""), ShardError);
  }
}

// Sweep units: K seeds per property, dealt round-robin; with K a multiple of N every shard gets
// every property.
TEST(harness_shard, sweep_units_cover_every_property_seed_pair_once) {
  using sweep::PropertyTarget;
  const std::vector<PropertyTarget> props = {{"/b/x_properties", "a.One", std::nullopt},
                                             {"/b/x_properties", "a.Two", std::nullopt},
                                             {"/b/y_properties", "b.Three", std::nullopt}};
  const auto plain = sweep::sweep_units(props, 100, 1, std::nullopt);
  ASSERT_EQ(plain.size(), 3u);
  EXPECT_FALSE(plain[0].seed);  // K = 1: the sweep's own seed, names unchanged
  EXPECT_EQ(sweep::unit_name(plain[1]), "a.Two");

  const auto all = sweep::sweep_units(props, 100, 4, std::nullopt);
  ASSERT_EQ(all.size(), 12u);
  EXPECT_EQ(sweep::unit_name(all[0]), "a.One@100");
  EXPECT_EQ(sweep::unit_name(all[5]), "a.Two@101");
  std::multiset<std::string> seen;
  for (std::size_t i = 0; i < 4; ++i) {
    const auto part = sweep::sweep_units(props, 100, 4, ShardSpec{i, 4});
    std::set<std::string> props_here;
    for (const auto& u : part) {
      seen.insert(sweep::unit_name(u));
      props_here.insert(u.test);
      EXPECT_EQ(*u.seed, 100 + i);  // K == N: shard i runs seed 100+i of every property
    }
    EXPECT_EQ(props_here.size(), 3u);
  }
  std::multiset<std::string> want;
  for (const auto& u : all) want.insert(sweep::unit_name(u));
  EXPECT_EQ(seen, want);
  sweep::SweepOptions so;
  so.seed = 5;
  so.cases = 10;
  EXPECT_EQ(sweep::rc_params(so, all[6]), "seed=102 max_success=10");
  EXPECT_EQ(sweep::rc_params(so, plain[0]), "seed=5 max_success=10");
}

// --- the report's new fields ---------------------------------------------------------------------

TEST(harness_report_merge, report_records_selection_index_and_failing_test_data) {
  const std::string plugin = testing_plugin("wrong_requantize");
  ASSERT_FALSE(plugin.empty()) << "build backends/testing or set QSPEC_TESTING_PLUGIN_DIR";
  VectorFiles v(2, "fields");
  const auto wrong = Backend::load(plugin);
  const OJ j = run_report(*wrong, v);
  EXPECT_EQ(j["selection"]["tests"], 14);
  EXPECT_TRUE(j["selection"]["shard"].is_null());
  EXPECT_EQ(j["selection"]["shard_tests"], 14);
  EXPECT_TRUE(contains(j["selection"]["fingerprint"].get<std::string>(), "fnv1a64:"));
  ASSERT_EQ(j["tests"].size(), 14u);
  for (std::size_t i = 0; i < 14; ++i) EXPECT_EQ(j["tests"][i]["index"], i);
  // tcId 3 of test/a.json fails: the report holds what the HTML drill-down shows.
  const OJ& t3 = j["tests"][2];
  ASSERT_EQ(t3["tcId"], 3);
  ASSERT_EQ(t3["verdict"], "FAIL");
  ASSERT_TRUE(t3.contains("data"));
  EXPECT_EQ(t3["data"]["attributes"]["multiplier"], 3);
  EXPECT_EQ(t3["data"]["inputs"][0]["name"], "x");
  EXPECT_EQ(t3["data"]["inputs"][0]["data"], OJ::parse("[-6, -2, 2]"));
  EXPECT_EQ(t3["data"]["expected"][0]["data"], OJ::parse("[-5, -2, 2]"));  // 3*x/4: -4.5, -1.5, 1.5 ties away
  EXPECT_EQ(t3["data"]["actual"][0]["data"], OJ::parse("[-4, -1, 2]"));    // the plugin's ties up
  EXPECT_FALSE(j["tests"][0].contains("data"));                            // a PASS carries none
  const OJ& t6 = j["tests"][5];                                            // ERROR: inputs and expected, no actual
  ASSERT_EQ(t6["verdict"], "ERROR");
  EXPECT_TRUE(t6["data"].contains("inputs"));
  EXPECT_FALSE(t6["data"].contains("actual"));

  RunOptions o = v.options();
  o.data_limit = 1;
  const OJ limited = json_report(run_vectors(*wrong, o));
  std::size_t with_data = 0;
  for (const auto& t : limited["tests"]) with_data += t.contains("data");
  EXPECT_EQ(with_data, 1u);
}

// --- merging ---------------------------------------------------------------------------------------

// Recomputes a hand-edited report's "tests_identity" (test_identity.h), as a report written
// by qspec after that edit would have it.
void reseal(OJ& report) {
  std::uint64_t d = 0;
  for (const auto& t : report["tests"])
    d += test_identity_hash(t["index"].get<std::size_t>(), t["file"].get<std::string>(), t["tcId"].get<std::int64_t>(),
                            t["op"].get<std::string>(), t["convention"].get<std::string>());
  report["selection"]["tests_identity"] = identity_digest_text(d);
}

struct Shards {
  std::unique_ptr<Backend> backend, reference;
  std::unique_ptr<ConventionExplainer> explainer;
  VectorFiles v{3, "shards"};
  OJ whole;
  std::vector<LoadedReport> parts;
  Shards() {
    const std::string plugin = testing_plugin("wrong_requantize");
    if (plugin.empty()) return;
    backend = Backend::load(plugin);
    reference = Backend::load("reference");
    explainer = std::make_unique<ConventionExplainer>(reference.get());
    whole = run_report(*backend, v, std::nullopt, explainer.get());
    for (std::size_t i = 0; i < 4; ++i)
      parts.push_back(
          {"shard" + std::to_string(i) + ".json", run_report(*backend, v, ShardSpec{i, 4}, explainer.get())});
  }
};

TEST(harness_report_merge, four_shards_merge_into_the_unsharded_report) {
  Shards s;
  ASSERT_TRUE(s.backend) << "build backends/testing or set QSPEC_TESTING_PLUGIN_DIR";
  std::size_t total = 0;
  for (const auto& p : s.parts) {
    EXPECT_EQ(p.report["selection"]["tests"], 21);
    EXPECT_EQ(p.report["selection"]["fingerprint"], s.whole["selection"]["fingerprint"]);
    total += p.report["tests"].size();
  }
  EXPECT_EQ(total, 21u);
  EXPECT_EQ(s.parts[0].report["tests"].size(), 6u);  // 21 = 6 + 5 + 5 + 5
  EXPECT_EQ(s.parts[3].report["tests"].size(), 5u);
  // In any input order.
  const std::vector<LoadedReport> shuffled = {s.parts[2], s.parts[0], s.parts[3], s.parts[1]};
  const MergeResult m = merge_reports(shuffled);
  EXPECT_TRUE(m.warnings.empty());
  ASSERT_EQ(m.reports.size(), 1u);
  EXPECT_EQ(without_timing(m.reports[0]), without_timing(s.whole))
      << "merged:\n"
      << without_timing(m.reports[0]).dump(1) << "\nwhole:\n"
      << without_timing(s.whole).dump(1);
  EXPECT_EQ(reports_exit_code(m.reports), 1);  // the wrong plugin's failures
  EXPECT_EQ(report_document(m.reports)["schema"], kReportSchema);
  // A whole run merges with nothing but itself: one report in, the same report out.
  EXPECT_EQ(without_timing(merge_reports({{"whole.json", s.whole}}).reports[0]), without_timing(s.whole));
}

// Two --vectors directories can hold files of the same name (test/a.json twice here): the
// selection positions, not the names, tell their tests apart, so nothing is lost or doubled.
TEST(harness_report_merge, files_of_the_same_name_from_two_directories) {
  const std::string plugin = testing_plugin("wrong_requantize");
  ASSERT_FALSE(plugin.empty());
  const auto wrong = Backend::load(plugin);
  VectorFiles one(1, "same1"), two(1, "same2");
  RunOptions o;
  o.files = find_vector_files({one.dir, two.dir});
  ASSERT_EQ(o.files.size(), 2u);
  ASSERT_EQ(o.files[0].display_name, o.files[1].display_name);
  const OJ whole = json_report(run_vectors(*wrong, o));
  ASSERT_EQ(whole["files"].size(), 2u);
  std::vector<LoadedReport> parts;
  for (std::size_t i = 0; i < 3; ++i) {
    o.shard = ShardSpec{i, 3};
    parts.push_back({"part" + std::to_string(i), json_report(run_vectors(*wrong, o))});
  }
  const MergeResult m = merge_reports(parts);
  // Every test once, in order, with the same summary; the two same-named files become one entry
  // of "files" (nothing in a test tells two files of one name apart).
  EXPECT_EQ(without_timing(m.reports[0])["tests"], without_timing(whole)["tests"]);
  EXPECT_EQ(m.reports[0]["summary"], whole["summary"]);
  EXPECT_EQ(m.reports[0]["files"].size(), 1u);
  EXPECT_EQ(m.reports[0]["files"][0]["counts"]["total"], 14);
  EXPECT_EQ(without_timing(merge_reports({{"whole.json", whole}}).reports[0])["tests"], without_timing(whole)["tests"]);
  const std::string twice = merge_error([&] { merge_reports({parts[0], parts[1], parts[2], parts[2]}); });
  EXPECT_TRUE(contains(twice, "given twice")) << twice;
}

TEST(harness_report_merge, refuses_overlapping_shards) {
  Shards s;
  ASSERT_TRUE(s.backend);
  const std::string twice = merge_error([&] {
    merge_reports({s.parts[0], s.parts[1], s.parts[1], s.parts[2], s.parts[3]});
  });
  EXPECT_TRUE(contains(twice, "shard 1/4 of backend testing.wrong_requantize")) << twice;
  EXPECT_TRUE(contains(twice, "given twice: shard1.json and shard1.json")) << twice;

  const std::string whole = merge_error([&] { merge_reports({{"whole.json", s.whole}, s.parts[0]}); });
  EXPECT_TRUE(contains(whole, "whole.json is a whole run of backend testing.wrong_requantize")) << whole;
  EXPECT_TRUE(contains(whole, "not a shard: it overlaps shard0.json")) << whole;

  // Reports without a selection record (an older qspec) merge as a union, but never overlap.
  OJ a = s.parts[0].report, b = s.parts[0].report;
  a.erase("selection");
  b.erase("selection");
  const std::string dup = merge_error([&] { merge_reports({{"old1.json", a}, {"old2.json", b}}); });
  EXPECT_TRUE(contains(dup, "tests reported more than once")) << dup;
  EXPECT_TRUE(contains(dup, "test/a.json#1 (old1.json and old2.json)")) << dup;

  // A shard holding a test of another shard (a mislabelled file).
  OJ wrong_label = s.parts[1].report;
  wrong_label["selection"]["shard"]["index"] = 2;
  const std::string label = merge_error([&] {
    merge_reports({s.parts[0], {"relabelled.json", wrong_label}, s.parts[3]});
  });
  EXPECT_TRUE(contains(label,
                       "relabelled.json says it is shard 2/4 but holds test/a.json#2 at selection position 1, which "
                       "belongs to shard 1/4"))
      << label;
}

TEST(harness_report_merge, reports_missing_shards_and_tests) {
  Shards s;
  ASSERT_TRUE(s.backend);
  const std::string missing = merge_error([&] { merge_reports({s.parts[0], s.parts[1], s.parts[3]}); });
  EXPECT_TRUE(contains(missing, "missing shard 2/4 (5 of 21 tests not covered)")) << missing;

  // An interrupted shard: fewer tests than its share.
  OJ cut = s.parts[2].report;
  cut["tests"].erase(cut["tests"].size() - 1);
  const std::string short_shard = merge_error([&] {
    merge_reports({s.parts[0], s.parts[1], {"cut.json", cut}, s.parts[3]});
  });
  EXPECT_TRUE(contains(short_shard, "cut.json (shard 2/4 of backend testing.wrong_requantize")) << short_shard;
  EXPECT_TRUE(contains(short_shard, "holds 4 of its 5 tests (an interrupted run?)")) << short_shard;

  // A report marked interrupted (SIGINT, a checkpoint) is named as such, with the way out.
  OJ stopped = s.parts[1].report;
  stopped["interrupted"] = true;
  stopped["tests"].erase(stopped["tests"].size() - 1);
  stopped["selection"]["tests"] = 9;  // it had seen only part of the selection
  reseal(stopped);                    // as the interrupted run wrote it
  const std::string interrupted = merge_error([&] {
    merge_reports({s.parts[0], {"stopped.json", stopped}, s.parts[2], s.parts[3]});
  });
  EXPECT_TRUE(contains(interrupted, "stopped.json is an interrupted run of backend testing.wrong_requantize"))
      << interrupted;
  EXPECT_TRUE(contains(
      interrupted, "(4 tests done): finish it with `qspec run ... --resume stopped.json`, or pass --allow-incomplete"))
      << interrupted;

  // --allow-incomplete: a warning, and a report whose total is below its selection.
  MergeOptions lenient;
  lenient.allow_incomplete = true;
  const MergeResult m = merge_reports({s.parts[0], s.parts[1], s.parts[3]}, lenient);
  ASSERT_EQ(m.warnings.size(), 1u);
  EXPECT_TRUE(contains(m.warnings[0], "missing shard 2/4")) << m.warnings[0];
  EXPECT_EQ(m.reports[0]["summary"]["total"], 16);
  EXPECT_EQ(m.reports[0]["selection"]["tests"], 21);
  const MergeResult with_stopped =
      merge_reports({s.parts[0], {"stopped.json", stopped}, s.parts[2], s.parts[3]}, lenient);
  ASSERT_EQ(with_stopped.warnings.size(), 1u);
  EXPECT_EQ(with_stopped.reports[0]["summary"]["total"], 20);
  EXPECT_EQ(with_stopped.reports[0]["selection"]["tests"], 21);
  EXPECT_EQ(with_stopped.reports[0]["interrupted"], true);
}

// A test renamed in a shard's report (a hand edit, reports mixed up) leaves the counts and the
// selection positions as they were: before identities were checked, the merge kept the renamed
// test (a phantom) and lost the original one without a word.
TEST(harness_report_merge, refuses_a_renamed_lost_or_invented_test) {
  Shards s;
  ASSERT_TRUE(s.backend);
  OJ renamed = s.parts[1].report;
  ASSERT_EQ(renamed["tests"][0]["tcId"], 2);
  renamed["tests"][0]["tcId"] = 99;  // test/a.json#2 becomes #99
  std::string e = merge_error([&] { merge_reports({s.parts[0], {"renamed.json", renamed}, s.parts[2], s.parts[3]}); });
  EXPECT_TRUE(contains(e, "renamed.json: its tests are not the tests the run wrote")) << e;
  EXPECT_TRUE(contains(e, "a test was renamed, removed or added after the run")) << e;
  // The report's own digest recomputed too: the run's selection digest still tells.
  reseal(renamed);
  e = merge_error([&] { merge_reports({s.parts[0], {"renamed.json", renamed}, s.parts[2], s.parts[3]}); });
  EXPECT_TRUE(contains(e, "hold 21 tests, as many as the run selected, but not the same tests")) << e;
  // Another file, the same tcId; and a whole run with one test swapped for another.
  OJ moved = s.parts[2].report;
  moved["tests"][0]["file"] = "test/z.json";
  e = merge_error([&] { merge_reports({s.parts[0], s.parts[1], {"moved.json", moved}, s.parts[3]}); });
  EXPECT_TRUE(contains(e, "moved.json: its tests are not the tests the run wrote")) << e;
  OJ whole = s.whole;
  whole["tests"][4]["convention"] = "test.half_up";
  reseal(whole);
  e = merge_error([&] { merge_reports({{"whole.json", whole}}); });
  EXPECT_TRUE(contains(e, "not the same tests")) << e;
  // The untouched shards merge, as before.
  EXPECT_NO_THROW(merge_reports({s.parts[0], s.parts[1], s.parts[2], s.parts[3]}));
}

TEST(harness_report_merge, refuses_shards_of_different_selections) {
  Shards s;
  ASSERT_TRUE(s.backend);
  RunOptions o = s.v.options();
  o.filters = {"test/a.json", "test/b.json"};
  o.shard = ShardSpec{1, 4};
  const OJ other = json_report(run_vectors(*s.backend, o));
  const std::string e = merge_error([&] {
    merge_reports({s.parts[0], {"filtered.json", other}, s.parts[2], s.parts[3]});
  });
  EXPECT_TRUE(contains(e, "shard0.json and filtered.json are runs of different test selections (21 tests")) << e;
  EXPECT_TRUE(contains(e, "vs 14 tests")) << e;
}

TEST(harness_report_merge, different_backends_become_a_report_set) {
  Shards s;
  ASSERT_TRUE(s.backend);
  const OJ ref = run_report(*s.reference, s.v);
  const MergeResult m = merge_reports({s.parts[0], {"reference.json", ref}, s.parts[1], s.parts[2], s.parts[3]});
  ASSERT_EQ(m.reports.size(), 2u);
  EXPECT_EQ(m.reports[0]["backend"]["name"], "testing.wrong_requantize");
  EXPECT_EQ(m.reports[1]["backend"]["name"], "reference");
  EXPECT_EQ(m.reports[1]["summary"]["exit_code"], 0);
  const OJ doc = report_document(m.reports);
  EXPECT_EQ(doc["schema"], kReportSetSchema);
  // A set file reads back as its members.
  const fs::path file = s.v.root / "set.json";
  write_file_atomically(file, doc.dump());
  const auto back = read_report_file(file);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[1].source, file.string() + "[1]");
  EXPECT_EQ(back[1].report, m.reports[1]);
}

TEST(harness_report_merge, rejects_what_is_not_a_report) {
  EXPECT_TRUE(contains(merge_error([] { check_report("x.json", OJ::parse(R"({"schema": "qspec-vectors/1"})")); }),
                       "x.json: not a usable qspec report: \"schema\" is not \"qspec-report/1\""));
  EXPECT_TRUE(contains(
      merge_error([] {
        check_report("y.json",
                     OJ::parse(R"({"schema": "qspec-report/1", "backend": {"name": "b"}, "tests": [{"file": "f"}]})"));
      }),
      "tests[0] lacks"));
  const fs::path junk = fs::temp_directory_path() / ("qspec_junk_" + std::to_string(::getpid()) + ".json");
  std::ofstream(junk) << "{not json";
  EXPECT_TRUE(contains(merge_error([&] { read_report_file(junk); }), "not JSON"));
  fs::remove(junk);
  const OJ unknown = OJ::parse(
      R"({"schema": "qspec-report/1", "backend": {"name": "b"}, "tests": [{"file": "f", "tcId": 1, "verdict": "MAYBE"}]})");
  EXPECT_TRUE(contains(merge_error([&] { merge_reports({{"u.json", unknown}}); }), "unknown verdict 'MAYBE'"));
}

}  // namespace
