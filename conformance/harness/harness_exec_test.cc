// Exec backends (docs/exec-protocol.md): naming the program, the handshake and its error paths,
// the claims, one test's request and reply, and the verdicts against the in-process plugin.
//
// The backend programs are qspec_testing_exec_bridge (backends/testing/exec_bridge.cc), which
// serves a testing plugin over the exec protocol and injects the protocol faults its --fault
// names; the fault classes on the shipped vectors (crash, hang, garbage, ...) are CTest tests
// of backends/testing (harness_exec_fault_*).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "build_tree_paths.h"
#include "cli_runner.h"
#include "harness_test_ops.h"
#include "qspec/harness/backend_worker.h"
#include "qspec/harness/exec_backend.h"
#include "qspec/harness/reports.h"
#include "qspec/harness/runner.h"
#include "vector_dir_fixture.h"

namespace {
namespace fs = std::filesystem;
using namespace qspec;
using namespace qspec::harness;
using harness_test::run_cli;
using harness_test::testing_plugin;
using harness_test::testing_program;
using harness_test::VectorDir;
using OJ = nlohmann::ordered_json;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// exec:'BRIDGE' 'PLUGIN' ARGS: the bridge serving the testing plugin `plugin`.
std::string bridged(const std::string& plugin, const std::string& args = "") {
  const std::string bridge = testing_program("qspec_testing_exec_bridge");
  const std::string so = testing_plugin(plugin);
  EXPECT_FALSE(bridge.empty() || so.empty()) << "build backends/testing";
  return "exec:'" + bridge + "' '" + so + "'" + (args.empty() ? "" : " " + args);
}

// The BackendLoadError message of starting `spec`, or "" if it started.
std::string start_error(const std::string& spec, WorkerOptions o = {}) {
  try {
    WorkerExecutor::start(spec, o);
  } catch (const BackendLoadError& e) {
    return e.what();
  }
  return "";
}

OJ tests_without_time(const OJ& report) {
  OJ t = report.at("tests");
  for (auto& e : t) e.erase("seconds");
  return t;
}

struct TempDir {
  fs::path dir = fs::temp_directory_path() / ("qspec_exec_" + std::to_string(::getpid()));
  TempDir() { fs::create_directories(dir); }
  ~TempDir() { fs::remove_all(dir); }
  fs::path write(const std::string& name, const std::string& text) const {
    std::ofstream(dir / name) << text;
    return dir / name;
  }
};

TEST(exec_backend_naming, command_lines_split_like_a_shell_without_expansion) {
  EXPECT_EQ(split_command_line("python3  sut.py --x=1"), (std::vector<std::string>{"python3", "sut.py", "--x=1"}));
  EXPECT_EQ(split_command_line("a 'b c' \"d \\\"e\\\" \\\\\" f\\ g '$HOME'"),
            (std::vector<std::string>{"a", "b c", "d \"e\" \\", "f g", "$HOME"}));
  EXPECT_EQ(split_command_line("x''y \"\""), (std::vector<std::string>{"xy", ""}));
  EXPECT_THROW(split_command_line("a 'b"), std::invalid_argument);
  EXPECT_THROW(split_command_line("a \"b"), std::invalid_argument);
  EXPECT_THROW(split_command_line("a\\"), std::invalid_argument);
}

TEST(exec_backend_naming, exec_prefixes_and_json_manifests_are_exec_backends) {
  EXPECT_TRUE(is_exec_backend("exec:python3 x.py"));
  EXPECT_TRUE(is_exec_backend("ci/mysut.json"));
  EXPECT_FALSE(is_exec_backend("./libmine.so"));
  EXPECT_FALSE(is_exec_backend("reference"));
  EXPECT_EQ(exec_command("exec:'a b' c").argv, (std::vector<std::string>{"a b", "c"}));
  EXPECT_TRUE(contains(start_error("exec:"), "exec: names no command"));
  EXPECT_TRUE(contains(start_error("exec:'a"), "unterminated '"));
}

TEST(exec_backend_naming, a_manifest_gives_command_directory_environment_and_timeouts) {
  TempDir t;
  const auto m = t.write("sut.json", R"({"command": ["python3", "sut.py"], "working_directory": "sub",
      "environment": {"A": "1"}, "timeout": 2.5, "start_timeout": 60, "comment": "x"})");
  const ExecCommand c = exec_command(m.string());
  EXPECT_EQ(c.argv, (std::vector<std::string>{"python3", "sut.py"}));
  EXPECT_EQ(c.working_directory, (fs::absolute(t.dir) / "sub").lexically_normal().string());
  ASSERT_EQ(c.environment.size(), 1u);
  EXPECT_EQ(c.environment[0], (std::pair<std::string, std::string>{"A", "1"}));
  EXPECT_EQ(c.timeout_seconds, 2.5);
  EXPECT_EQ(c.start_timeout_seconds, 60.0);
  EXPECT_EQ(c.source, m.string());
  // The working directory defaults to the manifest's; a string command is split.
  const ExecCommand d = exec_command(t.write("d.json", R"({"command": "node 'my sut.js'"})").string());
  EXPECT_EQ(d.argv, (std::vector<std::string>{"node", "my sut.js"}));
  EXPECT_EQ(d.working_directory, fs::absolute(t.dir).lexically_normal().string());
}

TEST(exec_backend_naming, a_bad_manifest_names_the_file_and_the_field) {
  TempDir t;
  auto error = [&](const std::string& name, const std::string& text) {
    try {
      exec_command(t.write(name, text).string());
    } catch (const BackendLoadError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_TRUE(contains(error("a.json", R"({"command": ["x"], "timout": 3})"), "a.json': unknown field \"timout\""));
  EXPECT_TRUE(contains(error("b.json", R"({"timeout": 3})"), "b.json': \"command\" is missing"));
  EXPECT_TRUE(contains(error("c.json", R"({"command": [1]})"), "\"command\" must be a string or an array of strings"));
  EXPECT_TRUE(
      contains(error("d.json", R"({"command": "x", "timeout": -1})"), "\"timeout\" must be a number of seconds"));
  EXPECT_TRUE(contains(error("e.json", R"({"command": "x", "environment": {"A": 1}})"), "\"environment\": \"A\""));
  EXPECT_TRUE(contains(error("f.json", "{"), "f.json' is not JSON"));
  EXPECT_TRUE(contains(error("g.json", R"({"command": []})"), "\"command\" names no program"));
  EXPECT_TRUE(contains(start_error((t.dir / "missing.json").string()), "cannot read exec backend manifest"));
}

TEST(exec_backend_handshake, the_program_names_itself_and_declares_its_claims) {
  auto w = WorkerExecutor::start(bridged("wrong_requantize"), WorkerOptions{});
  EXPECT_EQ(w->name(), "bridge.testing.wrong_requantize");
  EXPECT_TRUE(contains(w->source(), "exec:"));
  ASSERT_TRUE(w->declared_claims().has_value());
  bool test_op = false;
  for (const auto& c : *w->declared_claims()) test_op |= c.op == "test.requantize" && c.convention == "test.half_away";
  EXPECT_TRUE(test_op);
}

TEST(exec_backend_handshake, every_way_the_handshake_fails_is_a_load_error_saying_why) {
  WorkerOptions quick;
  quick.timeout_seconds = 0.5;
  EXPECT_TRUE(contains(start_error("exec:/nonexistent/sut"), "backend called exit(127) while starting"));
  EXPECT_TRUE(contains(start_error("exec:/nonexistent/sut"), "qspec: cannot start '/nonexistent/sut'"));
  const std::string no_hello = start_error(bridged("abi_v1", "--fault no_hello"));
  EXPECT_TRUE(contains(no_hello, "backend called exit(2) while starting")) << no_hello;
  EXPECT_TRUE(contains(no_hello, "refusing to start")) << no_hello;  // its stderr
  EXPECT_TRUE(contains(start_error(bridged("abi_v1", "--slow-start 5"), quick),
                       "no answer within 0.5 s (--timeout) while starting"));
  EXPECT_TRUE(contains(start_error(bridged("abi_v1", "--fault bad_hello")), "its hello has no \"name\""));
  EXPECT_TRUE(contains(start_error(bridged("abi_v1", "--fault old_protocol")),
                       "it speaks exec protocol version 99, qspec speaks version 1"));
  EXPECT_TRUE(
      contains(start_error(bridged("abi_v1", "--fault refuse")), "it refused the handshake: no board attached"));
  const std::string crash = start_error(bridged("abi_v1", "--fault hello_crash"));
  EXPECT_TRUE(contains(crash, "backend crashed while starting: SIGSEGV")) << crash;
  EXPECT_TRUE(contains(crash, "crashing before the hello")) << crash;  // its stderr
  EXPECT_TRUE(contains(start_error(bridged("abi_v1", "--fault hello_not_json")), "its hello is not a JSON object"));
  EXPECT_TRUE(contains(start_error(bridged("abi_v1", "--fault no_claims")), "its hello has no \"claims\" array"));
  EXPECT_TRUE(contains(start_error(bridged("abi_v1", "--fault bad_claim")),
                       "needs a string \"op\" and a string \"convention\""));
  EXPECT_TRUE(contains(start_error("exec:sh -c 'echo hello; sleep 5'", quick), "not a frame of the exec protocol"));
  EXPECT_TRUE(contains(start_error("exec:sh -c 'echo hello; sleep 5'", quick), "they begin \"hello\\n\""));
}

TEST(exec_backend_handshake, a_manifest_start_timeout_gives_a_slow_program_longer) {
  TempDir t;
  const auto m = t.write(
      "slow.json",
      OJ{{"command", {testing_program("qspec_testing_exec_bridge"), testing_plugin("abi_v1"), "--slow-start", "0.8"}},
         {"start_timeout", 30}}
          .dump());
  WorkerOptions quick;
  quick.timeout_seconds = 0.2;
  EXPECT_EQ(start_error(m.string(), quick), "");
}

TEST(exec_backend_handshake, the_manifest_environment_and_directory_reach_the_program) {
  TempDir t;
  fs::create_directories(t.dir / "work");
  const auto m = t.write(
      "env.json",
      OJ{{"command", {testing_program("qspec_testing_exec_bridge"), testing_plugin("abi_v1"), "--fault", "env"}},
         {"working_directory", "work"},
         {"environment", {{"QSPEC_TESTING_ENV", "from the manifest"}}}}
          .dump());
  auto w = WorkerExecutor::start(m.string(), WorkerOptions{});
  EXPECT_EQ(w->version(), "env=from the manifest cwd=" + fs::canonical(t.dir / "work").string());
}

TEST(exec_backend_handshake, all_conventions_is_asked_in_the_hello_and_must_be_taken) {
  WorkerOptions all;
  all.backend.all_conventions = true;
  // The bridge takes the request only for a plugin that takes run options (qspec_backend_create2).
  EXPECT_TRUE(contains(start_error(bridged("abi_v1"), all), "its hello answered \"all_conventions\": false"));
  auto w = WorkerExecutor::start(bridged("options_probe"), all);
  EXPECT_EQ(w->version(), "options: all_conventions");
  // Every catalogued convention of a claimed op is supported, without asking the program.
  VectorFile f;
  f.op = "requantize";
  f.convention = "tflite.single_round";
  EXPECT_TRUE(w->supports(f));
  f.convention = "made.up";
  EXPECT_FALSE(w->supports(f));
  f.op = "dequantize";
  f.convention = "gemmlowp.dequantize";
  EXPECT_FALSE(w->supports(f));
  auto plain = WorkerExecutor::start(bridged("options_probe"), WorkerOptions{});
  EXPECT_EQ(plain->version(), "options: none");
  f.op = "requantize";
  f.convention = "tflite.single_round";
  EXPECT_FALSE(plain->supports(f));
}

TEST(exec_backend_run, the_exec_backend_gives_the_in_process_verdicts_reasons_and_diagnostics) {
  VectorDir v("exec");
  const auto ref = Backend::load("reference");
  const ConventionExplainer explainer(ref.get());
  RunOptions o = v.options();
  o.explainer = &explainer;
  const auto in_process = Backend::load(testing_plugin("wrong_requantize"));
  const RunResult a = run_vectors(*in_process, o);
  auto exec = WorkerExecutor::start(bridged("wrong_requantize"), WorkerOptions{});
  const RunResult b = run_vectors(*exec, o);
  ASSERT_EQ(a.outcomes.size(), 7u);
  EXPECT_EQ(tests_without_time(json_report(a)), tests_without_time(json_report(b)));
  EXPECT_EQ(b.counts.error, 1u);  // the plugin's simulated internal error arrives as status ERROR
  EXPECT_GT(b.counts.fail, 0u);
  EXPECT_EQ(exec->workers_started(), 1u);  // one program served the whole run
}

TEST(exec_backend_run, unclaimed_pairs_are_unsupported_without_a_request) {
  VectorDir v("exec_unclaimed");
  auto exec = WorkerExecutor::start(bridged("abi_v1"), WorkerOptions{});  // claims only requantize
  const RunResult r = run_vectors(*exec, v.options());
  EXPECT_EQ(r.counts.unsupported, r.outcomes.size());
}

TEST(exec_backend_cli, run_backends_and_eval_take_an_exec_backend) {
  const std::string vectors = std::string(QSPEC_SOURCE_DIR) + "/vectors/requantize/gemmlowp.double_round.json";
  auto r = run_cli({"--root", QSPEC_SOURCE_DIR, "run", "--backend", bridged("abi_v1"), "--vectors", vectors, "--filter",
                    "*#1?", "--progress", "never"});
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "backend bridge.testing.abi_v1 (1 (built for ABI version 1); exec:")) << r.out;
  r = run_cli({"backends", bridged("abi_v1")});
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "bridge.testing.abi_v1\t1 (built for ABI version 1)\texec:")) << r.out;
  EXPECT_TRUE(contains(r.out, "    requantize / gemmlowp.double_round")) << r.out;
  EXPECT_TRUE(contains(r.out, "reference\t")) << r.out;       // a positional backend is listed after the built-ins
  r = run_cli({"backends", "--backend", bridged("abi_v1")});  // --backend: that backend only
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "bridge.testing.abi_v1\t1 (built for ABI version 1)\texec:")) << r.out;
  EXPECT_TRUE(contains(r.out, "    requantize / gemmlowp.double_round")) << r.out;
  EXPECT_FALSE(contains(r.out, "reference\t")) << r.out;
  r = run_cli({"backends", "--backend", "reference", "--all-conventions"});  // named: refused, not just listed
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "cannot be asked for all conventions")) << r.out;
  r = run_cli({"eval", vectors, "--backend", bridged("faulty_segv"), "--filter", "*#1"});
  EXPECT_EQ(r.rc, 1) << r.out;  // the first test's first element is odd: the bridge crashes
  EXPECT_TRUE(contains(r.out, "backend  CRASH: backend crashed in run(): SIGSEGV")) << r.out;
  r = run_cli({"eval", vectors, "--backend", bridged("abi_v1"), "--filter", "*#2"});
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "actual   y int8[6] = [1, -1, 2, -2, 3, -3]")) << r.out;
}

TEST(exec_backend_cli, a_claim_the_catalogue_lacks_is_reported) {
  auto r = run_cli({"backends", bridged("abi_v1", "--fault unknown_claim")});
  EXPECT_EQ(r.rc, 1) << r.out;
  EXPECT_TRUE(contains(r.out, "claims requantize / made.up.convention, which is not a pair of the op catalogue"))
      << r.out;
  EXPECT_TRUE(contains(r.out, "requantize / made.up.convention [NOT IN THE CATALOGUE]")) << r.out;
  const std::string vectors = std::string(QSPEC_SOURCE_DIR) + "/vectors/requantize/gemmlowp.double_round.json";
  r = run_cli({"--root", QSPEC_SOURCE_DIR, "run", "--backend", bridged("abi_v1", "--fault unknown_claim"), "--vectors",
               vectors, "--filter", "*#1?", "--progress", "never"});
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "warning: bridge.testing.abi_v1 claims requantize / made.up.convention")) << r.out;
}

TEST(exec_backend_cli, a_manifest_timeout_applies_unless_the_command_line_gives_one) {
  TempDir t;
  const auto m = t.write(
      "hang.json",
      OJ{{"command", {testing_program("qspec_testing_exec_bridge"), testing_plugin("faulty_hang")}}, {"timeout", 0.3}}
          .dump());
  const std::string vectors = std::string(QSPEC_SOURCE_DIR) + "/vectors/requantize/gemmlowp.double_round.json";
  auto r = run_cli({"--root", QSPEC_SOURCE_DIR, "run", "--backend", m.string(), "--vectors", vectors, "--filter", "*#1",
                    "--progress", "never"});
  EXPECT_EQ(r.rc, 1) << r.out;
  EXPECT_TRUE(contains(r.out, "no answer within 0.3 s (--timeout) in run()")) << r.out;
  r = run_cli({"--root", QSPEC_SOURCE_DIR, "run", "--backend", m.string(), "--vectors", vectors, "--filter", "*#1",
               "--progress", "never", "--timeout", "0.6"});
  EXPECT_TRUE(contains(r.out, "no answer within 0.6 s (--timeout) in run()")) << r.out;
}

// The verdict line and reason of test #1 of the gemmlowp file (its first element is odd: the
// bridge's faults strike there) run through `spec`.
std::string first_test_through(const std::string& spec) {
  const std::string vectors = std::string(QSPEC_SOURCE_DIR) + "/vectors/requantize/gemmlowp.double_round.json";
  const auto r = run_cli({"--root", QSPEC_SOURCE_DIR, "run", "--backend", spec, "--vectors", vectors, "--filter", "*#1",
                          "--progress", "never"});
  EXPECT_EQ(r.rc, 1) << r.out;
  return r.out;
}

TEST(exec_backend_run, every_malformed_result_is_an_error_of_that_test_naming_the_problem) {
  const std::pair<const char*, const char*> cases[] = {
      {"misnamed", "ERROR requantize/gemmlowp.double_round.json tcId 1"},
      {"misnamed", "the backend's output 0 ('y') is named 'z' (outputs come in the request's order)"},
      {"no_outputs", "the backend answered OK with 0 outputs, the test has 1"},
      {"out_of_range", "the backend's output 0 ('y') lies outside the frame's data"},
      {"wrong_dtype", "the backend's output 0 ('y') has dtype \"float64\", the test's is int8"},
      {"bad_message", "the backend's \"message\" is not a string"},
      {"wrong_shape", "the backend's output 0 ('y') has 5 bytes, the test's int8[6] has 6"},
      {"bad_status", "the backend answered the unknown status \"MAYBE\""},
      {"bad_json", "the backend's reply is not a JSON object: \"{not json\""},
  };
  for (const auto& [fault, reason] : cases)
    EXPECT_TRUE(contains(first_test_through(bridged("abi_v1", std::string("--fault ") + fault)), reason))
        << fault << ": " << reason;
}

TEST(exec_backend_run, a_reply_out_of_step_or_cut_short_costs_the_test_and_the_program) {
  std::string out = first_test_through(bridged("abi_v1", "--fault wrong_type"));
  EXPECT_TRUE(contains(out, "CRASH requantize/gemmlowp.double_round.json tcId 1")) << out;
  EXPECT_TRUE(contains(out, "the backend's reply is not the result of request 1 (\"type\": \"hello\", \"id\": 1)"))
      << out;
  out = first_test_through(bridged("abi_v1", "--fault truncated"));  // EOF in the middle of a frame
  EXPECT_TRUE(contains(out, "CRASH requantize/gemmlowp.double_round.json tcId 1")) << out;
  EXPECT_TRUE(contains(out, "backend called exit(0) in run()")) << out;
}

TEST(exec_backend_run, a_program_that_cannot_be_started_again_fails_the_rest_of_its_file) {
  TempDir t;
  const std::string marker = (t.dir / "started").string();
  const std::string vectors = std::string(QSPEC_SOURCE_DIR) + "/vectors/requantize/gemmlowp.double_round.json";
  const auto r = run_cli({"--root", QSPEC_SOURCE_DIR, "run", "--backend",
                          bridged("abi_v1", "--fault refuse_restart --marker '" + marker + "'"), "--vectors", vectors,
                          "--filter", "*#1", "--filter", "*#2", "--filter", "*#4", "--progress", "never"});
  EXPECT_EQ(r.rc, 1) << r.out;
  EXPECT_TRUE(contains(r.out, "CRASH requantize/gemmlowp.double_round.json tcId 1")) << r.out;
  EXPECT_TRUE(contains(r.out, "backend called exit(3) in run()")) << r.out;
  for (const char* id : {"tcId 2", "tcId 4"})
    EXPECT_TRUE(contains(r.out, std::string("ERROR requantize/gemmlowp.double_round.json ") + id)) << r.out;
  EXPECT_TRUE(contains(r.out, "the worker could not load the backend again")) << r.out;
  EXPECT_TRUE(contains(r.out, "it refused the handshake: the board is still rebooting")) << r.out;
}

TEST(exec_backend_cli, an_exec_backend_never_runs_inside_qspec) {
  auto r = run_cli({"--root", QSPEC_SOURCE_DIR, "run", "--backend", bridged("abi_v1"), "--no-isolate"});
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "runs only in its own process")) << r.out;
}

}  // namespace
