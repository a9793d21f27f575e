// The reports of `qspec run` state what docs/CONFORMANCE.md 4.3 asks of a conformance report:
// the qspec version, the contract version (equal to the document's), when and where the run
// happened, and the backend's name and version, in the JSON report and in JUnit's root and
// <properties>. Spawns the qspec executable of this build.
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <regex>

#include "cli_fixture.h"
#include "qspec/harness/run_provenance.h"
#include "xml_wellformed.h"

namespace {
namespace fs = std::filesystem;
using namespace qspec;
using namespace qspec::harness_test;

class RunReportFieldsCli : public CliFixture {
 protected:
  RunReportFieldsCli() : CliFixture("run_report_fields") {}
};

TEST(conformance_contract, the_code_knows_the_documents_version) {
  std::string title = read_text(fs::path(QSPEC_SOURCE_DIR) / "docs" / "CONFORMANCE.md");
  title = title.substr(0, title.find('\n'));
  EXPECT_EQ(title, "# qspec conformance contract, version " + std::to_string(harness::kConformanceContractVersion));
}

// Before: the JSON report had no qspec or contract version, time or host; JUnit had no
// timestamp, hostname or properties.
TEST_F(RunReportFieldsCli, reports_state_versions_time_host_and_backend) {
  const CliResult r = run_cli({"run", "--backend", wrong, "--vectors", vectors.string(), "--progress", "never",
                               "--report-json", (root / "r.json").string(), "--junit", (root / "r.xml").string()});
  ASSERT_EQ(r.rc, 1) << r.out;
  std::string version = run_cli({"--version"}).out;  // "qspec X.Y.Z\n"
  version = version.substr(6, version.find('\n') - 6);
  const auto j = nlohmann::json::parse(read_text(root / "r.json"));
  const auto& run = j["run"];
  EXPECT_EQ(run["qspec_version"], version);
  EXPECT_EQ(run["contract_version"], harness::kConformanceContractVersion);
  const std::regex iso("[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z");
  EXPECT_TRUE(std::regex_match(run["started"].get<std::string>(), iso)) << run;
  EXPECT_TRUE(std::regex_match(run["finished"].get<std::string>(), iso)) << run;
  EXPECT_LE(run["started"].get<std::string>(), run["finished"].get<std::string>());
  char host[256] = {};
  ASSERT_EQ(::gethostname(host, sizeof host - 1), 0);
  EXPECT_EQ(run["host"]["hostname"], host);
  EXPECT_FALSE(run["host"]["system"].get<std::string>().empty());
  EXPECT_EQ(j["backend"]["name"], "testing.wrong_requantize");
  EXPECT_EQ(j["backend"]["version"], "1 (deliberately wrong)");
  EXPECT_TRUE(contains(j["selection"]["identity"].get<std::string>(), "sum64:"));
  EXPECT_EQ(j["selection"]["identity"], j["selection"]["tests_identity"]);  // a whole, complete run

  const std::string x = read_text(root / "r.xml");
  EXPECT_EQ(xml_defect(x), std::nullopt) << x;
  std::string stamp = run["started"].get<std::string>();
  stamp.pop_back();
  EXPECT_TRUE(contains(x, "timestamp=\"" + stamp + "\" hostname=\"" + host + "\">")) << x;
  EXPECT_TRUE(contains(x, "<property name=\"backend.version\" value=\"1 (deliberately wrong)\"/>")) << x;
  EXPECT_TRUE(contains(x, "<property name=\"qspec.version\" value=\"" + version + "\"/>")) << x;
  EXPECT_TRUE(contains(x, "<testcase classname=\"test.test_half_away\" name=\"tcId 1\"")) << x;
}

}  // namespace
