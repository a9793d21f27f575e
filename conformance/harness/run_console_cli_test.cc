// What `qspec run` shows on a terminal and in a log: text from vector files and backends escaped
// (a hostile comment cannot clear the screen or hide a line), a progress line with the tests done
// of the total, elapsed time and ETA plus colour on a terminal (NO_COLOR honoured), neither in a
// pipe; misspelt commands and options named with the nearest valid word. Spawns the qspec
// executable of this build; QSPEC_FORCE_TTY=1 stands for a terminal.
#include <nlohmann/json.hpp>

#include "cli_fixture.h"

namespace {
namespace fs = std::filesystem;
using namespace qspec;
using namespace qspec::harness_test;
using OJ = nlohmann::ordered_json;

class RunConsoleCli : public CliFixture {
 protected:
  RunConsoleCli() : CliFixture("run_console") {}
};

// ESC [2J clears a terminal; NUL and the C1 control CSI (U+009B) are as bad.
const std::string kHostileComment = std::string("tie \x1b[2J\0", 9) +
                                    "\xc2\x9b"
                                    "31m end";

// Before: the comment reached the terminal raw in the FAIL diagnostic and in `qspec eval`.
TEST_F(RunConsoleCli, control_characters_from_a_vector_file_are_escaped) {
  OJ doc = OJ::parse(read_text(file));
  for (auto& g : doc["testGroups"])
    for (auto& t : g["tests"])
      if (t["tcId"] == 2) t["comment"] = kHostileComment;  // tcId 2 fails with the wrong plugin
  harness::write_file_atomically(file, doc.dump());
  for (const auto& args :
       {std::vector<std::string>{"run", "--backend", wrong, "--vectors", vectors.string(), "--progress", "never"},
        std::vector<std::string>{"eval", file.string(), "--backend", wrong, "--filter", "*#2"}}) {
    const CliResult r = run_cli(args);
    EXPECT_EQ(r.rc, 1) << r.out;
    EXPECT_TRUE(contains(r.out, "tie \\x1b[2J\\x00\\x9b31m end")) << r.out;
    EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << args[0];
    EXPECT_EQ(r.out.find('\0'), std::string::npos) << args[0];
    EXPECT_EQ(r.out.find("\xc2\x9b"), std::string::npos) << args[0];
  }
}

TEST_F(RunConsoleCli, a_terminal_gets_progress_and_colour_a_pipe_neither) {
  const std::vector<std::string> args = {"run", "--backend", wrong, "--vectors", vectors.string()};
  CliResult r = run_cli(args, {"env", "-u", "NO_COLOR", "QSPEC_FORCE_TTY=1"});
  EXPECT_EQ(r.rc, 1) << r.out;
  EXPECT_TRUE(contains(r.out, "\r\x1b[K[7/7 tests 100%  ")) << r.out;
  EXPECT_TRUE(contains(r.out, " elapsed, ETA 0:00] test/test.half_away.json")) << r.out;
  EXPECT_TRUE(contains(r.out, "\x1b[1;31mFAIL\x1b[0m test/test.half_away.json tcId 2")) << r.out;
  EXPECT_TRUE(contains(r.out, "\x1b[1;31mResult: FAILED (5 unexpected outcomes)\x1b[0m")) << r.out;
  r = run_cli(args, {"env", "NO_COLOR=1", "QSPEC_FORCE_TTY=1"});
  EXPECT_TRUE(contains(r.out, "[7/7 tests 100%")) << r.out;  // progress stays
  EXPECT_FALSE(contains(r.out, "\x1b[1;31m")) << r.out;      // colour goes
  EXPECT_TRUE(contains(r.out, "\nResult: FAILED (5 unexpected outcomes)\n")) << r.out;
  r = run_cli(args, {"env", "-u", "NO_COLOR", "-u", "QSPEC_FORCE_TTY"});  // a pipe
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << r.out;
  EXPECT_FALSE(contains(r.out, "tests 100%")) << r.out;
  r = run_cli({"run", "--backend", wrong, "--vectors", vectors.string(), "--color", "always", "--progress", "never"});
  EXPECT_TRUE(contains(r.out, "\x1b[1;31mFAIL\x1b[0m")) << r.out;
}

// Before: "A subcommand is required" / "--backend is required", the typo unnamed.
TEST_F(RunConsoleCli, misspelt_words_are_named_with_the_nearest_valid_one) {
  CliResult r = run_cli({"runn", "--backend", "reference"});
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "qspec: unknown command 'runn'; did you mean 'run'?")) << r.out;
  r = run_cli({"run", "--backnd", "reference"});
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "qspec run: unknown option '--backnd'; did you mean '--backend'?")) << r.out;
  r = run_cli({"vectors", "chek"});
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "qspec vectors: unknown command 'chek'; did you mean 'check'?")) << r.out;
  r = run_cli({"run", "--backend", "reference", "--fliter=*#1"});
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "unknown option '--fliter'; did you mean '--filter'?")) << r.out;
  r = run_cli({"frobnicate"});
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "qspec: unknown command 'frobnicate' (qspec --help lists the commands)")) << r.out;
  EXPECT_EQ(run_cli({"--help"}).rc, 0);
}

}  // namespace
