// The HTML report writer: escaping, the op x convention matrix over every verdict, the drill-down of
// a failing test (differing elements highlighted, conventions named), limits, and the clause texts.
#include <gtest/gtest.h>

#include <fstream>

#include "qspec/harness/html_report.h"
#include "qspec/harness/report_merge.h"
#include "report_test_support.h"

namespace {
using namespace qspec;
using namespace qspec::harness;
using namespace qspec::report_test;
using OJ = nlohmann::ordered_json;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

std::size_t count(const std::string& s, const std::string& part) {
  std::size_t n = 0;
  for (auto p = s.find(part); p != std::string::npos; p = s.find(part, p + 1)) ++n;
  return n;
}

// The <details> element of one drill-down (from its opening tag to its closing tag).
std::string drilldown(const std::string& page, const std::string& file_and_id) {
  const auto name = page.find("<span class=\"name\">" + file_and_id + "</span>");
  if (name == std::string::npos) return "";
  const auto start = page.rfind("<details class=\"test\"", name);
  const auto end = page.find("</div></details>", name);
  return page.substr(start, end - start);
}

struct WrongAndReference {
  std::unique_ptr<Backend> wrong, reference;
  std::unique_ptr<ConventionExplainer> explainer;
  VectorFiles v{1, "html"};
  OJ wrong_report, reference_report;
  WrongAndReference() {
    const std::string plugin = testing_plugin("wrong_requantize");
    if (plugin.empty()) return;
    wrong = Backend::load(plugin);
    reference = Backend::load("reference");
    explainer = std::make_unique<ConventionExplainer>(reference.get());
    wrong_report = run_report(*wrong, v, std::nullopt, explainer.get());
    reference_report = run_report(*reference, v);
  }
};

TEST(harness_html_report, escapes_every_text_from_the_report) {
  EXPECT_EQ(html_escape("<script>alert(\"x\" & 'y')</script>"),
            "&lt;script&gt;alert(&quot;x&quot; &amp; &#39;y&#39;)&lt;/script&gt;");
  EXPECT_EQ(html_escape(std::string("a\x01"
                                    "b\x7f"
                                    "c\n",
                                    6)),
            "abc\n");
  const OJ hostile = OJ::parse(R"({"schema": "qspec-report/1",
    "backend": {"name": "<img src=x onerror=alert(1)>", "version": "\"1\"", "source": "a&b"},
    "tests": [{"file": "x/<b>.json", "tcId": 1, "op": "op<1>", "convention": "c\"onv", "clauses": ["a.b<script>"],
               "verdict": "FAIL", "as_expected": false, "reason": "</summary><script>alert(2)</script>",
               "diagnostic": "<pre>&", "data": {"attributes": {"k": "<v>"},
               "inputs": [{"name": "<x>", "dtype": "int8", "shape": [1], "data": [1]}],
               "expected": [{"name": "y", "dtype": "int8", "shape": [1], "data": [2]}],
               "actual": [{"name": "y", "dtype": "int8", "shape": [1], "data": [3]}]}}]})");
  const std::string page = html_report({hostile}, {});
  for (const char* raw :
       {"<img src=x", "<script>alert", "<b>.json", "op<1>", "a.b<script>", "<x>", "\"<v>\"", "<pre><pre>"})
    EXPECT_FALSE(contains(page, raw)) << raw;
  EXPECT_TRUE(contains(page, "&lt;img src=x onerror=alert(1)&gt;"));
  EXPECT_TRUE(contains(page, "&lt;/summary&gt;&lt;script&gt;alert(2)&lt;/script&gt;"));
  EXPECT_TRUE(contains(page, "data-convention=\"c&quot;onv\""));
  EXPECT_TRUE(contains(page, "<pre>&lt;pre&gt;&amp;</pre>"));
  EXPECT_EQ(count(page, "<script>"), 1u);  // only the page's own
}

TEST(harness_html_report, matrix_colours_cells_by_every_verdict) {
  WrongAndReference w;
  ASSERT_TRUE(w.wrong) << "build backends/testing or set QSPEC_TESTING_PLUGIN_DIR";
  const std::string page = html_report({w.wrong_report, w.reference_report}, {});
  EXPECT_TRUE(contains(page, "<table class=\"matrix\" id=\"matrix\">"));
  // One cell (the file's op and convention) with one bar per backend; it has FAIL and ERROR.
  const auto attrs = page.find("\" data-op=\"test.requantize\" data-convention=\"test.half_away\">");
  ASSERT_NE(attrs, std::string::npos) << page.substr(0, 4000);
  const auto open = page.rfind("<td class=\"cell", attrs);
  ASSERT_NE(open, std::string::npos);
  const std::string classes = page.substr(open, attrs - open);
  EXPECT_TRUE(contains(classes, "has-v-FAIL")) << classes;
  EXPECT_TRUE(contains(classes, "has-v-ERROR")) << classes;
  EXPECT_FALSE(contains(classes, "has-v-PASS")) << classes;
  EXPECT_EQ(count(page, "<a class=\"bar"), 2u);
  EXPECT_TRUE(contains(page, "<a class=\"bar unexpected\" title=\"testing.wrong_requantize"));
  EXPECT_TRUE(contains(page, "title=\"reference")) << "the reference's bar";
  EXPECT_TRUE(contains(page, ": test.requantize / test.half_away: 7 tests: 7 PASS\""));
  // Every verdict value has a colour and a legend entry, including ones no test has here.
  for (Verdict v : kAllVerdicts) {
    const std::string name(verdict_name(v));
    EXPECT_TRUE(contains(page, ".v-" + name + "{background:")) << name;
    EXPECT_TRUE(contains(page, "<span class=\"badge v-" + name + "\">" + name + "</span>")) << name;
  }
  // The summary counts per backend.
  EXPECT_TRUE(contains(page, "<strong>testing.wrong_requantize"));
  EXPECT_TRUE(contains(page, "<span class=\"bad\">FAILED</span>"));
  EXPECT_TRUE(contains(page, "<span class=\"ok\">OK</span>"));
  // A backend whose every test is UNSUPPORTED checked nothing: not OK (as `qspec run` says it).
  OJ unsupported = w.reference_report;
  for (auto& t : unsupported["tests"]) t["verdict"] = "UNSUPPORTED";
  const std::string none = html_report({unsupported}, {});
  EXPECT_TRUE(contains(none, "<span class=\"bad\">NOTHING CHECKED</span>")) << none;
  EXPECT_FALSE(contains(none, "<span class=\"ok\">OK</span>")) << none;
}

TEST(harness_html_report, failing_test_drilldown_highlights_the_differing_elements) {
  WrongAndReference w;
  ASSERT_TRUE(w.wrong);
  const std::string page = html_report({w.wrong_report}, {});
  // tcId 3: x = [-6, -2, 2] -> expected [-5, -2, 2], the plugin's [-4, -1, 2]: elements 0 and 1 differ.
  const std::string t3 = drilldown(page, "test/a.json#3");
  ASSERT_FALSE(t3.empty()) << page;
  EXPECT_TRUE(contains(t3, "data-tcid=\"3\""));
  EXPECT_TRUE(contains(t3, "<span class=\"badge v-FAIL\">FAIL</span>"));
  EXPECT_TRUE(contains(t3, "2 of 3 elements differ"));
  EXPECT_TRUE(contains(t3, "<tr><th>expected</th><td class=\"diff\">-5</td><td class=\"diff\">-2</td><td>2</td></tr>"))
      << t3;
  EXPECT_TRUE(contains(t3, "<tr><th>actual</th><td class=\"diff\">-4</td><td class=\"diff\">-1</td><td>2</td></tr>"))
      << t3;
  EXPECT_TRUE(contains(t3, "<tr><th>value</th><td>-6</td><td>-2</td><td>2</td></tr>")) << t3;  // the input
  EXPECT_TRUE(contains(t3, "<code>test.half_up</code> <em>(diagnostic only)</em>: rounds ties toward +inf")) << t3;
  EXPECT_TRUE(contains(t3, "{&quot;multiplier&quot;:3,&quot;shift&quot;:2"));  // attributes
  EXPECT_TRUE(contains(t3, "<a class=\"clause\" href=\"#clause-test.clause_a\">test.clause_a</a>"));
  // tcId 6: the plugin's ERROR: inputs and expected outputs, no actual.
  const std::string t6 = drilldown(page, "test/a.json#6");
  EXPECT_TRUE(contains(t6, "<span class=\"badge v-ERROR\">ERROR</span>"));
  EXPECT_TRUE(contains(t6, "<td>12345</td>"));
  EXPECT_FALSE(contains(t6, "class=\"diff\""));
  // Passing tests are counted, not listed.
  EXPECT_TRUE(drilldown(page, "test/a.json#1").empty());
  // The matrix links to the group of failing tests, which is collapsed, as is every drill-down.
  EXPECT_TRUE(contains(page, "href=\"#g0-0\""));
  EXPECT_TRUE(contains(page, "<details class=\"group\" id=\"g0-0\"><summary><h4>test.requantize / test.half_away")) << page;
  EXPECT_TRUE(contains(page, "(testing.wrong_requantize: 5 of 7 tests shown, 5 unexpected)")) << page;
  EXPECT_FALSE(contains(page, "<details class=\"group\" id=\"g0-0\" open")) << page;
  EXPECT_EQ(count(page, "<details class=\"test\""), 5u);
  EXPECT_FALSE(contains(t3, "\" open>")) << t3;
}

// The matrix cells state their numbers (passed of run, unexpected) and the page has the
// per-clause table the terminal summary and the JSON report have (summary.by_clause).
TEST(harness_html_report, matrix_cells_hold_numbers_and_clauses_have_a_table) {
  WrongAndReference w;
  ASSERT_TRUE(w.wrong);
  const std::string page = html_report({w.wrong_report, w.reference_report}, {});
  EXPECT_TRUE(contains(page, "<div class=\"n\">2/7 <span class=\"bad\">5&#10007;</span></div>")) << page;  // the wrong plugin
  EXPECT_TRUE(contains(page, "<div class=\"n\">7/7</div>")) << page;                                           // the reference
  ASSERT_TRUE(contains(page, "<section id=\"by-clause\"><h2>Per clause</h2>")) << page;
  const std::string table = page.substr(page.find("<section id=\"by-clause\">"));
  const std::string row = "<tr><td class=\"l\"><a class=\"clause\" href=\"#clause-test.clause_b\">test.clause_b</a></td><td "
                          "class=\"l\">testing.wrong_requantize</td><td>7</td><td>2</td><td>4</td><td>1</td>";
  EXPECT_TRUE(contains(table.substr(0, table.find("</section>")), row)) << table.substr(0, 3000);
  // One backend: no backend column.
  const std::string one = html_report({w.wrong_report}, {});
  EXPECT_TRUE(contains(one, "<tr><td class=\"l\"><a class=\"clause\" href=\"#clause-test.clause_b\">test.clause_b</a></td><td>7</td>"))
      << one;
}

TEST(harness_html_report, drilldowns_are_limited_per_backend) {
  WrongAndReference w;
  ASSERT_TRUE(w.wrong);
  HtmlOptions o;
  o.max_failures = 1;
  const std::string page = html_report({w.wrong_report}, o);
  EXPECT_EQ(count(page, "<details class=\"test\""), 1u);
  EXPECT_TRUE(contains(page, "more non-passing tests of testing.wrong_requantize"));
  // A long tensor keeps the rows with differences and leaves the others out.
  OJ big = w.wrong_report;
  OJ& t = big["tests"][2]["data"];
  OJ x = OJ::array(), e = OJ::array(), a = OJ::array();
  for (int i = 0; i < 1000; ++i) {
    x.push_back(i);
    e.push_back(i % 100);
    a.push_back(i == 777 ? 1 : i % 100);
  }
  t["inputs"][0] = OJ{{"name", "x"}, {"dtype", "int32"}, {"shape", {1000}}, {"data", x}};
  t["expected"][0] = OJ{{"name", "y"}, {"dtype", "int8"}, {"shape", {1000}}, {"data", e}};
  t["actual"][0] = OJ{{"name", "y"}, {"dtype", "int8"}, {"shape", {1000}}, {"data", a}};
  HtmlOptions small;
  small.max_elements = 64;
  const std::string p2 = html_report({big}, small);
  const std::string t3 = drilldown(p2, "test/a.json#3");
  EXPECT_TRUE(contains(t3, "1 of 1000 elements differ"));
  EXPECT_TRUE(contains(t3, "<th title=\"[777]\">777</th>")) << "the row of the differing element is shown";
  EXPECT_EQ(count(t3, "class=\"diff\""), 2u);
  EXPECT_TRUE(contains(t3, "1000 elements; rows without a difference left out"));
  EXPECT_FALSE(contains(t3, "<th title=\"[500]\">500</th>"));
}

TEST(harness_html_report, clause_texts_and_github_anchors) {
  EXPECT_EQ(github_anchor("`gemmlowp.quantize`: float to uint8"), "gemmlowpquantize-float-to-uint8");
  EXPECT_EQ(github_anchor("`requant.tflite.double_round`: TFLite's two-step Rounding"),
            "requanttflitedouble_round-tflites-two-step-rounding");
  const fs::path root = fs::temp_directory_path() / ("qspec_html_spec_" + std::to_string(::getpid()));
  fs::create_directories(root / "spec");
  std::ofstream(root / "spec" / "demo.md")
      << "# Demo\n\n### `demo.one`: the first <rule>\n**Statement.** `y = x` & more.\n\n"
         "### `demo.two`: second\nText two.\n## Other\nnot part of demo.two\n";
  const auto clauses = read_clause_texts(root);
  ASSERT_EQ(clauses.size(), 2u);
  const ClauseText& one = clauses.at("demo.one");
  EXPECT_EQ(one.title, "the first <rule>");
  EXPECT_EQ(one.file, "spec/demo.md");
  EXPECT_EQ(one.line, 3);
  EXPECT_EQ(one.anchor, "demoone-the-first-rule");
  EXPECT_EQ(one.body, "**Statement.** `y = x` & more.");
  EXPECT_EQ(clauses.at("demo.two").body, "Text two.");

  const OJ r = OJ::parse(R"({"schema": "qspec-report/1", "backend": {"name": "b"},
    "tests": [{"file": "f.json", "tcId": 1, "op": "o", "convention": "c", "clauses": ["demo.one", "demo.gone"], "verdict": "PASS"}]})");
  HtmlOptions o;
  o.clauses = clauses;
  o.spec_base = "https://example.org/qspec/blob/main";
  const std::string page = html_report({r}, o);
  EXPECT_TRUE(contains(
      page,
      "<div class=\"clause-entry\" id=\"clause-demo.one\"><h3><code>demo.one</code>: the first &lt;rule&gt;</h3>"));
  EXPECT_TRUE(contains(page, "href=\"https://example.org/qspec/blob/main/spec/demo.md#demoone-the-first-rule\""));
  EXPECT_TRUE(contains(page, "<strong>Statement.</strong> <code>y = x</code> &amp; more."));
  EXPECT_TRUE(contains(page, "id=\"clause-demo.gone\""));
  EXPECT_TRUE(contains(page, "not in this qspec's spec/"));
  fs::remove_all(root);
}

TEST(harness_html_report, written_atomically_from_merged_shards) {
  WrongAndReference w;
  ASSERT_TRUE(w.wrong);
  std::vector<LoadedReport> parts;
  for (std::size_t i = 0; i < 2; ++i)
    parts.push_back({"s" + std::to_string(i), run_report(*w.wrong, w.v, ShardSpec{i, 2}, w.explainer.get())});
  const MergeResult m = merge_reports(parts);
  const fs::path out = w.v.root / "out" / "report.html";
  fs::create_directories(out.parent_path());  // a report never creates directories
  write_html_report(out, m.reports, {});
  std::ifstream in(out);
  const std::string page((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(page, html_report(m.reports, {}));
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_FALSE(drilldown(page, "test/a.json#3").empty());
  EXPECT_FALSE(drilldown(page, "test/a.json#4").empty());  // from the other shard
  for (const auto& e : fs::directory_iterator(out.parent_path()))
    EXPECT_EQ(e.path().filename(), "report.html");  // no temporary left
}

}  // namespace
