// Untrusted text made safe (text_safety.h) and the JUnit report that relies on it: terminal
// escaping of control characters and bad UTF-8, UTF-8 repair, XML escaping; a JUnit report of
// backend messages holding invalid UTF-8 and control characters is well-formed XML (checked by
// xml_wellformed.h and, where Python is installed, by its XML parser too), names classes
// without the ".json" dot and states the run's provenance.
#include "qspec/harness/text_safety.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "qspec/harness/reports.h"
#include "xml_wellformed.h"

namespace {
using namespace qspec::harness;
using qspec::harness_test::xml_defect;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TEST(text_safety, terminal_safe_escapes_controls_and_bad_utf8_and_keeps_text) {
  EXPECT_EQ(terminal_safe("plain, \xc3\xa9t\xc3\xa9 \xe2\x82\xac\n\tnext"),
            "plain, \xc3\xa9t\xc3\xa9 \xe2\x82\xac\n\tnext");
  EXPECT_EQ(terminal_safe(std::string("\x1b[2J\0\x7f", 6)), "\\x1b[2J\\x00\\x7f");
  EXPECT_EQ(terminal_safe("a\xc2\x9b"
                          "31mb"),
            "a\\x9b31mb");  // C1 CSI, a one-byte escape on some terminals
  EXPECT_EQ(terminal_safe("\xff\xfe ok"), "\\xff\\xfe ok");
  EXPECT_EQ(terminal_safe("\xe2\x82"), "\\xe2\\x82");  // truncated sequence
  EXPECT_EQ(terminal_safe("a\nb\r", false), "a\\x0ab\\x0d");
}

TEST(text_safety, utf8_repaired_replaces_each_bad_byte) {
  EXPECT_EQ(utf8_repaired("ok \xc3\xa9"), "ok \xc3\xa9");
  EXPECT_EQ(utf8_repaired("\xff\xfe!"), "\xef\xbf\xbd\xef\xbf\xbd!");
  EXPECT_EQ(utf8_repaired("\xed\xa0\x80"), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");  // a surrogate is not UTF-8
}

TEST(text_safety, xml_escape_always_gives_well_formed_text) {
  EXPECT_EQ(xml_escape("<a href=\"x\">'&'</a>"), "&lt;a href=&quot;x&quot;&gt;&apos;&amp;&apos;&lt;/a&gt;");
  EXPECT_EQ(xml_escape(std::string("a\0b\x01\t\n\r", 7)), "a?b?\t\n\r");
  EXPECT_EQ(xml_escape("\xff\xfe"), "\xef\xbf\xbd\xef\xbf\xbd");
  EXPECT_EQ(xml_escape("\xef\xbf\xbe"), "?");  // U+FFFE is no XML character
  EXPECT_EQ(xml_escape("\xc3\xa9\xf0\x9d\x84\x9e"), "\xc3\xa9\xf0\x9d\x84\x9e");
}

// The checker itself finds the defects it is there for.
TEST(text_safety, the_xml_checker_rejects_ill_formed_documents) {
  EXPECT_EQ(xml_defect("<?xml version=\"1.0\"?>\n<a x=\"1\"><b/>t&amp;&#65;&#x42;</a>\n"), std::nullopt);
  for (const char* bad : {"<a>\xff</a>", "<a><b></a></b>", "<a x=1/>", "<a>&foo;</a>", "<a x=\"1\" x=\"2\"/>", "<a>",
                          "<a/><b/>", "<a>\x01</a>", "<a x=\"<\"/>", "text"})
    EXPECT_NE(xml_defect(bad), std::nullopt) << bad;
}

RunResult hostile_run() {
  RunResult r;
  r.backend_name = "mine \xff";
  r.backend_version = "1\x01";
  r.backend_source = "/tmp/libmine.so";
  r.provenance = capture_provenance("9.9.9");
  r.provenance.finished = r.provenance.started;
  TestOutcome o;
  o.file = "requantize/gemmlowp.double_round.json";
  o.tc_id = 3;
  o.op = "requantize";
  o.convention = "gemmlowp.double_round";
  o.verdict = Verdict::Error;
  o.as_expected = false;
  o.reason = "backend reported ERROR: \xff\xfe bad bytes";
  o.diagnostic = std::string("  comment: \x1b[2J\0 \xc2\x9b <&>\n", 21);
  r.counts.add(o);
  r.outcomes.push_back(o);
  o.tc_id = 4;
  o.verdict = Verdict::Fail;
  o.reason = "1 of 1 output elements differ \xed\xa0\x80";
  r.counts.add(o);
  r.outcomes.push_back(o);
  r.skipped.push_back({"x/\xfe.json", "x/\xfe.json: not valid UTF-8"});
  return r;
}

// Before: the backend's bytes \xff\xfe went into the XML as they were: not UTF-8, not XML.
TEST(junit_report, is_well_formed_whatever_a_backend_says) {
  const std::string x = junit_report(hostile_run());
  EXPECT_EQ(xml_defect(x), std::nullopt) << x;
  EXPECT_TRUE(contains(x, "backend reported ERROR: \xef\xbf\xbd\xef\xbf\xbd bad bytes")) << x;
  // A second opinion from a real XML parser, where the machine has one (not in a minimal Debian).
  if (std::system("python3 -c 'import xml.etree.ElementTree' >/dev/null 2>&1") == 0) {
    const auto path = std::filesystem::temp_directory_path() / ("qspec_junit_" + std::to_string(::getpid()) + ".xml");
    std::ofstream(path, std::ios::binary) << x;
    const std::string cmd =
        "python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' '" + path.string() + "'";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << "Python's XML parser rejects:\n" << x;
    std::filesystem::remove(path);
  }
}

TEST(junit_report, classnames_have_no_json_dot_and_the_run_is_described) {
  EXPECT_EQ(junit_classname("requantize/gemmlowp.double_round.json"), "requantize.gemmlowp_double_round");
  EXPECT_EQ(junit_classname("a.b/c/d.e.json"), "a_b.c.d_e");
  EXPECT_EQ(junit_classname("top.json"), "top");
  const RunResult r = hostile_run();
  const std::string x = junit_report(r);
  std::string timestamp = r.provenance.started;
  timestamp.pop_back();  // no 'Z': JUnit's timestamp is ISO 8601 without a zone
  EXPECT_TRUE(contains(x, "<testcase classname=\"requantize.gemmlowp_double_round\" name=\"tcId 3\"")) << x;
  const auto root = x.substr(x.find("<testsuites "), x.find('>', x.find("<testsuites ")) - x.find("<testsuites "));
  EXPECT_TRUE(contains(root, " time=\"")) << root;
  EXPECT_TRUE(contains(root, " timestamp=\"" + timestamp + "\"")) << root;
  EXPECT_TRUE(contains(root, " hostname=\"" + r.provenance.hostname + "\"")) << root;
  EXPECT_FALSE(r.provenance.hostname.empty());
  for (const std::string p :
       {"<property name=\"backend.name\" value=\"mine \xef\xbf\xbd\"/>",
        "<property name=\"backend.version\" value=\"1?\"/>", "<property name=\"qspec.version\" value=\"9.9.9\"/>",
        "<property name=\"qspec.contract_version\" value=\"1\"/>"})
    EXPECT_TRUE(contains(x, p)) << p << "\n" << x;
}

}  // namespace
