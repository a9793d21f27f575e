// Renders JSON reports as one self-contained HTML page: summary, op x convention matrix, drill-downs.
#include "qspec/harness/html_report.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <optional>
#include <set>
#include <utility>

#include "qspec/core/json_values.h"
#include "qspec/harness/diagnostics.h"
#include "qspec/harness/text_safety.h"
#include "qspec/harness/vectors_tree.h"
#include "qspec/harness/verdict.h"

namespace qspec::harness {
namespace {

namespace fs = std::filesystem;
using OJ = nlohmann::ordered_json;

std::string str(const OJ& j, const char* key) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

std::string num(std::size_t n) { return std::to_string(n); }

// --- verdicts ---------------------------------------------------------------------------------

// The verdict columns: every Verdict value in enum order, then names found in the reports that
// this qspec does not know (a report of a newer version), sorted.
std::vector<std::string> verdict_columns(const std::vector<OJ>& reports) {
  std::vector<std::string> cols;
  for (Verdict v : kAllVerdicts) cols.emplace_back(verdict_name(v));
  std::set<std::string> extra;
  for (const auto& r : reports)
    for (const auto& t : r["tests"]) {
      const std::string v = str(t, "verdict");
      if (std::find(cols.begin(), cols.end(), v) == cols.end()) extra.insert(v);
    }
  cols.insert(cols.end(), extra.begin(), extra.end());
  return cols;
}

// A CSS class name for a verdict ("v-PASS"); other characters become '_'.
std::string verdict_class(const std::string& v) {
  std::string c = "v-";
  for (char ch : v) c += (std::isalnum(static_cast<unsigned char>(ch)) || ch == '-') ? ch : '_';
  return c;
}

std::string verdict_color(const std::string& v) {
  static const std::map<std::string, std::string> known = {{"PASS", "#3b9b4b"},  {"FAIL", "#d43d3d"},
                                                           {"ERROR", "#ef8a25"}, {"UNSUPPORTED", "#b9b9b9"},
                                                           {"CRASH", "#8e3fb0"}, {"TIMEOUT", "#8a6a58"}};
  if (auto it = known.find(v); it != known.end()) return it->second;
  unsigned h = 0;
  for (char ch : v) h = h * 31 + static_cast<unsigned char>(ch);
  return "hsl(" + std::to_string(h % 360) + ",55%,45%)";
}

struct Tally {
  std::map<std::string, std::size_t> by_verdict;
  std::size_t total = 0, unexpected = 0, deviations = 0, unexpected_passes = 0;
  void add(const OJ& t) {
    ++total;
    ++by_verdict[str(t, "verdict")];
    const bool as_expected = t.value("as_expected", true);
    if (!as_expected) ++unexpected;
    if (t.value("unexpected_pass", false)) ++unexpected_passes;
    if (as_expected && t.contains("expected_verdict") && str(t, "expected_verdict") != "PASS") ++deviations;
  }
  std::size_t of(const std::string& v) const {
    auto it = by_verdict.find(v);
    return it == by_verdict.end() ? 0 : it->second;
  }
};

// A test the page explains in full: anything not PASS or UNSUPPORTED, and anything not as expected.
bool needs_drilldown(const OJ& t) {
  const std::string v = str(t, "verdict");
  return !t.value("as_expected", true) || (v != "PASS" && v != "UNSUPPORTED");
}

using Cell = std::pair<std::string, std::string>;  // (op, convention)

struct BackendView {
  const OJ* report = nullptr;
  std::string label;
  Tally all;
  std::map<Cell, Tally> cells;
  std::map<std::string, Tally> clauses;  // per clause ID, as the terminal's "Summary by clause"
  std::map<Cell, std::vector<std::size_t>> shown;  // test positions in report["tests"], per cell
  std::size_t failing = 0, not_shown = 0;
};

BackendView view_of(const OJ& r, std::size_t max_failures) {
  BackendView b;
  b.report = &r;
  b.label = str(r["backend"], "name");
  std::vector<std::size_t> unexpected, expected;
  const OJ& tests = r["tests"];
  for (std::size_t i = 0; i < tests.size(); ++i) {
    const OJ& t = tests[i];
    b.all.add(t);
    b.cells[{str(t, "op"), str(t, "convention")}].add(t);
    if (t.contains("clauses") && t["clauses"].is_array())
      for (const auto& c : t["clauses"])
        if (c.is_string()) b.clauses[c.get<std::string>()].add(t);
    if (needs_drilldown(t)) (t.value("as_expected", true) ? expected : unexpected).push_back(i);
  }
  b.failing = unexpected.size() + expected.size();
  // Unexpected outcomes first, then known deviations, each in run order.
  std::vector<std::size_t> pick = unexpected;
  pick.insert(pick.end(), expected.begin(), expected.end());
  if (pick.size() > max_failures) {
    b.not_shown = pick.size() - max_failures;
    pick.resize(max_failures);
  }
  std::sort(pick.begin(), pick.end());
  for (std::size_t i : pick) b.shown[{str(tests[i], "op"), str(tests[i], "convention")}].push_back(i);
  return b;
}

// --- small HTML pieces ------------------------------------------------------------------------

std::string badge(const std::string& verdict) {
  return "<span class=\"badge " + verdict_class(verdict) + "\">" + html_escape(verdict) + "</span>";
}

// Inline Markdown of clause text: `code` and **bold** (on already escaped text).
std::string inline_markdown(const std::string& escaped) {
  std::string o;
  bool code = false, bold = false;
  for (std::size_t i = 0; i < escaped.size(); ++i) {
    if (escaped[i] == '`') {
      o += code ? "</code>" : "<code>";
      code = !code;
    } else if (!code && escaped.compare(i, 2, "**") == 0) {
      o += bold ? "</strong>" : "<strong>";
      bold = !bold;
      ++i;
    } else {
      o += escaped[i];
    }
  }
  if (code) o += "</code>";
  if (bold) o += "</strong>";
  return o;
}

std::string clause_link(const std::string& id) {
  return "<a class=\"clause\" href=\"#clause-" + html_escape(id) + "\">" + html_escape(id) + "</a>";
}

// --- tensors ----------------------------------------------------------------------------------

struct Shown {
  std::optional<Tensor> tensor;  // decoded; nullopt if the report's JSON is not a valid tensor
  std::string name, raw;
};

std::vector<Shown> decode_tensors(const OJ& d, const char* key) {
  std::vector<Shown> out;
  if (!d.contains(key) || !d[key].is_array()) return out;
  for (const auto& j : d[key]) {
    Shown s;
    s.name = str(j, "name");
    try {
      s.tensor = json_to_tensor(s.name, j);
    } catch (const std::exception&) {
      s.raw = j.dump();
    }
    out.push_back(std::move(s));
  }
  return out;
}

std::string tensor_header(const Tensor& t) {
  std::string s = html_escape(t.name) + " <span class=\"dt\">" + html_escape(std::string(dtype_name(t.dtype))) + "[";
  for (std::size_t k = 0; k < t.shape.size(); ++k) s += (k ? "," : "") + std::to_string(t.shape[k]);
  return s + "]</span>";
}

constexpr std::size_t kRow = 16;  // elements per table row

// The rows (chunks of kRow elements) to show: the first, and those with a differing element,
// at most max_elements / kRow of them.
std::vector<std::size_t> rows_to_show(std::size_t n, const std::vector<bool>& differs, std::size_t max_elements) {
  const std::size_t rows = (n + kRow - 1) / kRow, budget = std::max<std::size_t>(1, max_elements / kRow);
  std::vector<std::size_t> out;
  if (rows <= budget) {
    for (std::size_t r = 0; r < rows; ++r) out.push_back(r);
    return out;
  }
  for (std::size_t r = 0; r < rows && out.size() < budget; ++r) {
    bool any = r == 0;
    for (std::size_t i = r * kRow; i < std::min(n, (r + 1) * kRow) && !any; ++i) any = !differs.empty() && differs[i];
    if (any) out.push_back(r);
  }
  for (std::size_t r = 1; r < rows && out.size() < budget; ++r)  // room left: fill in order
    if (std::find(out.begin(), out.end(), r) == out.end()) out.push_back(r);
  std::sort(out.begin(), out.end());
  return out;
}

// A table of one or more aligned tensors of the same size: an index row, then one row per
// tensor; elements where `differs` is set get class "diff" (highlighted).
std::string tensor_table(const std::vector<std::pair<std::string, const Tensor*>>& rows,
                         const std::vector<bool>& differs, std::size_t max_elements) {
  const Tensor& first = *rows[0].second;
  const std::size_t n = first.data.size();
  std::string s = "<table class=\"tensor\">";
  if (n == 0) return s + "<tr><td class=\"empty\">(no elements)</td></tr></table>";
  std::size_t prev = 0;
  bool started = false;
  for (std::size_t r : rows_to_show(n, differs, max_elements)) {
    if (started && r != prev + 1) s += "<tr class=\"gap\"><td colspan=\"" + num(kRow + 1) + "\">&#8230;</td></tr>";
    started = true;
    prev = r;
    const std::size_t lo = r * kRow, hi = std::min(n, lo + kRow);
    s += "<tr class=\"idx\"><th></th>";
    for (std::size_t i = lo; i < hi; ++i)
      s += "<th title=\"" + html_escape(format_index(first.shape, static_cast<std::int64_t>(i))) + "\">" + num(i) +
           "</th>";
    s += "</tr>";
    for (const auto& [label, t] : rows) {
      s += "<tr><th>" + html_escape(label) + "</th>";
      for (std::size_t i = lo; i < hi; ++i) {
        const bool d = !differs.empty() && differs[i];
        s += std::string("<td") + (d ? " class=\"diff\"" : "") + ">" +
             html_escape(format_element(t->dtype, t->data[i])) + "</td>";
      }
      s += "</tr>";
    }
  }
  if (n > max_elements)
    s += "<tr class=\"gap\"><td colspan=\"" + num(kRow + 1) + "\">" + num(n) +
         " elements; rows without a difference left out</td></tr>";
  return s + "</table>";
}

std::string inputs_html(const std::vector<Shown>& inputs, std::size_t max_elements) {
  std::string s;
  for (const auto& in : inputs) {
    if (!in.tensor) {
      s += "<div class=\"tensor-block\"><div class=\"th\">input " + html_escape(in.name) + "</div><pre>" +
           html_escape(in.raw) + "</pre></div>";
      continue;
    }
    s += "<div class=\"tensor-block\"><div class=\"th\">input " + tensor_header(*in.tensor) + "</div>" +
         tensor_table({{"value", &*in.tensor}}, {}, max_elements) + "</div>";
  }
  return s;
}

// Expected against actual, output by output; the differing elements highlighted.
std::string outputs_html(const std::vector<Shown>& expected, const std::vector<Shown>& actual, bool have_actual,
                         std::size_t max_elements) {
  std::string s;
  for (std::size_t k = 0; k < expected.size(); ++k) {
    const Shown& e = expected[k];
    const Shown* a = nullptr;
    for (const auto& x : actual)
      if (x.name == e.name) a = &x;
    if (!a && k < actual.size()) a = &actual[k];
    if (!e.tensor) {
      s += "<div class=\"tensor-block\"><div class=\"th\">output " + html_escape(e.name) + "</div><pre>" +
           html_escape(e.raw) + "</pre></div>";
      continue;
    }
    const Tensor& et = *e.tensor;
    s += "<div class=\"tensor-block\"><div class=\"th\">output " + tensor_header(et);
    if (a && a->tensor && a->tensor->dtype == et.dtype && a->tensor->shape == et.shape &&
        a->tensor->data.size() == et.data.size()) {
      std::vector<bool> differs(et.data.size());
      std::size_t n_diff = 0;
      for (std::size_t i = 0; i < et.data.size(); ++i) n_diff += (differs[i] = et.data[i] != a->tensor->data[i]);
      s += " <span class=\"ndiff\">" + num(n_diff) + " of " + num(et.data.size()) + " elements differ</span></div>";
      s += tensor_table({{"expected", &et}, {"actual", &*a->tensor}}, differs, max_elements) + "</div>";
    } else {
      s += "</div>" + tensor_table({{"expected", &et}}, {}, max_elements);
      if (a && a->tensor)
        s += "<div class=\"th\">actual " + tensor_header(*a->tensor) +
             " <span class=\"ndiff\">does not line up with the expected output</span></div>" +
             tensor_table({{"actual", &*a->tensor}}, {}, max_elements);
      else if (a)
        s += "<div class=\"th\">actual</div><pre>" + html_escape(a->raw) + "</pre>";
      else if (have_actual)
        s += "<p class=\"note\">the backend returned no output named " + html_escape(e.name) + "</p>";
      s += "</div>";
    }
  }
  for (const auto& a : actual) {  // outputs the backend returned beyond the expected ones
    bool matched = false;
    for (const auto& e : expected) matched |= e.name == a.name;
    if (!matched && a.tensor && expected.size() < actual.size())
      s += "<div class=\"tensor-block\"><div class=\"th\">unexpected output " + tensor_header(*a.tensor) + "</div>" +
           tensor_table({{"actual", &*a.tensor}}, {}, max_elements) + "</div>";
  }
  return s;
}

// The convention-match diagnosis (TestOutcome::conventions as the JSON report stores it).
std::string conventions_html(const OJ& t) {
  std::string s;
  const std::string spec = str(t, "convention");
  if (t.contains("matching_conventions") && t["matching_conventions"].is_array() &&
      !t["matching_conventions"].empty()) {
    s += "<div class=\"conv\"><strong>The backend's result matches</strong><ul>";
    for (const auto& m : t["matching_conventions"])
      s += "<li><code>" + html_escape(str(m, "convention")) + "</code>" +
           (m.value("diagnostic_only", false) ? " <em>(diagnostic only)</em>" : "") + ": " +
           html_escape(str(m, "description")) + "</li>";
    s += "</ul>where the spec says <code>" + html_escape(spec) + "</code>.</div>";
  } else if (t.contains("closest_convention") && t["closest_convention"].is_object()) {
    const OJ& c = t["closest_convention"];
    s += "<div class=\"conv\"><strong>No registered convention reproduces the result</strong>; the closest is <code>" +
         html_escape(str(c, "convention")) + "</code> (" +
         html_escape(c.contains("differing_elements") ? c["differing_elements"].dump() : "?") +
         " elements differ).</div>";
  }
  return s;
}

std::string test_drilldown(const OJ& t, std::size_t b, std::size_t i, const HtmlOptions& opt) {
  const std::string verdict = str(t, "verdict");
  const std::string name = str(t, "file") + "#" + (t.contains("tcId") ? t["tcId"].dump() : "?");
  std::string s = "<details class=\"test\" id=\"t" + num(b) + "-" + num(i) + "\" data-tcid=\"" +
                  html_escape(t.contains("tcId") ? t["tcId"].dump() : "") + "\"><summary>" + badge(verdict);
  if (t.value("unexpected_pass", false))
    s += " <span class=\"tag\">unexpected pass</span>";
  else if (t.value("as_expected", true))
    s += " <span class=\"tag\">expected (--expect)</span>";
  s += " <span class=\"name\">" + html_escape(name) + "</span> <span class=\"reason\">" +
       html_escape(str(t, "reason")) + "</span></summary>";
  s += "<div class=\"body\"><p>";
  if (t.contains("clauses") && t["clauses"].is_array()) {
    s += "clauses: ";
    bool first = true;
    for (const auto& c : t["clauses"])
      if (c.is_string()) {
        s += (first ? "" : ", ") + clause_link(c.get<std::string>());
        first = false;
      }
    s += "; ";
  }
  s += "convention <code>" + html_escape(str(t, "convention")) + "</code>; result " + html_escape(str(t, "result")) +
       "</p>";
  if (t.contains("expected_verdict"))
    s += "<p>--expect: " + html_escape(str(t, "expected_verdict")) + " (" + html_escape(str(t, "expectation_reason")) +
         ")</p>";
  s += conventions_html(t);
  if (t.contains("data") && t["data"].is_object()) {
    const OJ& d = t["data"];
    if (d.contains("attributes"))
      s += "<div class=\"th\">attributes</div><pre class=\"attrs\">" + html_escape(d["attributes"].dump()) + "</pre>";
    s += inputs_html(decode_tensors(d, "inputs"), opt.max_elements);
    s += outputs_html(decode_tensors(d, "expected"), decode_tensors(d, "actual"), d.contains("actual"),
                      opt.max_elements);
  } else if (t.contains("first_difference") && t["first_difference"].is_object()) {
    const OJ& f = t["first_difference"];
    s += "<p>first difference: output " + html_escape(str(f, "output")) + " " +
         html_escape(f.contains("index") ? f["index"].dump() : "") + ": expected <span class=\"diff\">" +
         html_escape(str(f, "expected")) + "</span>, got <span class=\"diff\">" + html_escape(str(f, "actual")) +
         "</span> (the report holds no inputs and outputs for this test: see --report-data)</p>";
  }
  if (t.contains("diagnostic") && t["diagnostic"].is_string())
    s += "<details class=\"diag\"><summary>diagnostic text</summary><pre>" + html_escape(str(t, "diagnostic")) +
         "</pre></details>";
  return s + "</div></details>\n";
}

// --- page sections ----------------------------------------------------------------------------

std::string css(const std::vector<std::string>& verdicts) {
  std::string s = R"(
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 2em 4em;color:#1d1d1d;background:#fff}
h1{font-size:1.6em;margin:.8em 0 .1em}h2{margin-top:1.6em;border-bottom:1px solid #ddd}h3{margin:1.2em 0 .4em}
code,pre,.tensor td,.tensor th{font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:12px}
pre{background:#f6f6f6;padding:.5em;overflow:auto;white-space:pre-wrap}
table.summary,table.files{border-collapse:collapse}table.summary td,table.summary th,table.files td,table.files th{border:1px solid #ddd;padding:3px 8px;text-align:right}
table.summary td.l,table.files td.l,table.summary th.l,table.files th.l{text-align:left}
.wide{overflow-x:auto}td.backend{max-width:28em}.meta{font-size:12px;color:#555;overflow-wrap:anywhere}
.ok{color:#256b2f;font-weight:600}.bad{color:#b3261e;font-weight:600}
.badge{display:inline-block;color:#fff;border-radius:3px;padding:0 5px;font-size:11px;font-weight:700}
.legend span.badge{margin-right:.4em}
table.matrix{border-collapse:collapse}table.matrix th{font-weight:normal;font-size:12px}
table.matrix thead th{vertical-align:bottom;height:14em;padding:0}
table.matrix thead th div{writing-mode:vertical-rl;transform:rotate(180deg);white-space:nowrap;padding:2px 0;margin:0 auto}
table.matrix tbody th{text-align:right;padding-right:6px;white-space:nowrap}
table.matrix td{border:1px solid #e4e4e4;min-width:26px;height:20px;padding:1px;vertical-align:middle}
table.matrix td.none{background:repeating-linear-gradient(45deg,#fafafa,#fafafa 3px,#f0f0f0 3px,#f0f0f0 6px)}
a.bar{display:flex;height:14px;margin:1px 0;border:1px solid transparent;text-decoration:none}
a.bar.unexpected{border-color:#000}
a.bar span{display:block;height:100%}
table.matrix div.n{font-size:10px;line-height:11px;text-align:center;white-space:nowrap;color:#444}
details.group{margin:.2em 0}details.group>summary{cursor:pointer}details.group>summary h4{display:inline;margin:0}
.test{border:1px solid #ddd;border-radius:4px;margin:.3em 0;padding:.2em .6em}
.test>summary{cursor:pointer}.test .name{font-family:ui-monospace,monospace}.test .reason{color:#555}
.tag{font-size:11px;color:#555;border:1px solid #bbb;border-radius:3px;padding:0 4px}
.body{margin:.4em 0 .6em}.th{margin:.6em 0 .2em;font-weight:600}.dt{color:#666;font-weight:normal}
table.tensor{border-collapse:collapse;margin-bottom:.3em}table.tensor td,table.tensor th{border:1px solid #e2e2e2;padding:1px 5px;text-align:right}
table.tensor tr.idx th{color:#888;font-weight:normal;background:#fafafa}table.tensor th{text-align:left}
td.diff,span.diff{background:#ffd2cf;outline:2px solid #d43d3d;outline-offset:-2px;font-weight:700}
.ndiff{color:#b3261e;font-weight:normal}.note{color:#666}
.conv{background:#fff8e1;border-left:3px solid #f0b400;padding:.3em .6em;margin:.4em 0}.conv ul{margin:.2em 0}
.clause-text{border-left:3px solid #ccd;padding:.1em .8em;margin:.3em 0 1em;white-space:pre-wrap}
#tools{margin:.5em 0}#tools input{width:24em}
)";
  for (const auto& v : verdicts) s += "." + verdict_class(v) + "{background:" + verdict_color(v) + "}";
  return s + "\n";
}

// Runs after the page is built: opens the drill-down a link points at, and filters by text.
// It sets data-qspec-js="ready" on <html> last, so a headless browser can tell that it ran.
const char* kScript = R"(
(function () {
  function openTarget() {
    var id = decodeURIComponent(location.hash.slice(1));
    var el = id && document.getElementById(id);
    for (var d = el; d; d = d.parentElement) if (d.tagName === 'DETAILS') d.open = true;
    if (el) el.scrollIntoView();
  }
  window.addEventListener('hashchange', openTarget);
  openTarget();
  var box = document.getElementById('filter');
  var tests = document.querySelectorAll('details.test');
  var groups = document.querySelectorAll('details.group');
  box.addEventListener('input', function () {
    var q = box.value.toLowerCase();
    tests.forEach(function (d) {
      d.hidden = q !== '' && d.querySelector('summary').textContent.toLowerCase().indexOf(q) < 0;
    });
    groups.forEach(function (g) {  // a filter opens the groups it matches in and hides the others
      var match = g.querySelector('details.test:not([hidden])') !== null;
      g.hidden = q !== '' && !match;
      if (q !== '') g.open = match;
    });
  });
  function all(open) {
    groups.forEach(function (d) { d.open = open; });
    tests.forEach(function (d) { d.open = open; });
  }
  document.getElementById('expand').addEventListener('click', function () { all(true); });
  document.getElementById('collapse').addEventListener('click', function () { all(false); });
  document.getElementById('tools').hidden = false;
  document.documentElement.setAttribute('data-qspec-js', 'ready');
})();
)";

std::string summary_section(const std::vector<BackendView>& views, const std::vector<std::string>& verdicts) {
  std::string s =
      "<section id=\"summary\"><h2>Summary per backend</h2><div class=\"wide\"><table class=\"summary\"><tr><th "
      "class=\"l\">backend</th><th>tests</th>";
  for (const auto& v : verdicts) s += "<th>" + badge(v) + "</th>";
  s += "<th>unexpected</th><th>known deviations</th><th>unexpected passes</th><th class=\"l\">selection</th><th "
       "class=\"l\">result</th></tr>";
  for (const auto& b : views) {
    const OJ& r = *b.report;
    s += "<tr><td class=\"l backend\"><strong>" + html_escape(b.label) + "</strong><div class=\"meta\">" +
         html_escape(str(r["backend"], "version")) + "</div><div class=\"meta\"><code>" +
         html_escape(str(r["backend"], "source")) + "</code></div></td><td>" + num(b.all.total) + "</td>";
    for (const auto& v : verdicts) s += "<td>" + num(b.all.of(v)) + "</td>";
    s += "<td>" + num(b.all.unexpected) + "</td><td>" + num(b.all.deviations) + "</td><td>" +
         num(b.all.unexpected_passes) + "</td><td class=\"l\">";
    if (r.contains("selection") && r["selection"].is_object()) {
      const OJ& sel = r["selection"];
      const std::size_t want = sel.contains("shard_tests") && sel["shard_tests"].is_number()
                                   ? sel["shard_tests"].get<std::size_t>()
                                   : b.all.total;
      if (sel.contains("shard") && sel["shard"].is_object())
        s += "shard " + html_escape(sel["shard"].value("index", OJ(0)).dump()) + "/" +
             html_escape(sel["shard"].value("count", OJ(1)).dump()) + ", ";
      s += b.all.total == want
               ? "complete"
               : "<span class=\"bad\">incomplete: " + num(b.all.total) + " of " + num(want) + " tests</span>";
    } else {
      s += "not recorded";
    }
    if (r.value("interrupted", false)) s += " <span class=\"bad\">(interrupted)</span>";
    // As `qspec run` says it: a run in which every test is UNSUPPORTED (or none ran) is no OK.
    const char* result = b.all.unexpected != 0                    ? "<span class=\"bad\">FAILED</span>"
                         : b.all.of("UNSUPPORTED") == b.all.total ? "<span class=\"bad\">NOTHING CHECKED</span>"
                                                                  : "<span class=\"ok\">OK</span>";
    s += "</td><td class=\"l\">" + std::string(result) + "</td></tr>";
  }
  return s + "</table></div></section>\n";
}

std::string bar(const Tally& t, const std::vector<std::string>& verdicts, const std::string& title,
                const std::string& href) {
  std::string s = "<a class=\"bar" + std::string(t.unexpected ? " unexpected" : "") + "\" title=\"" +
                  html_escape(title) + "\"" + (href.empty() ? "" : " href=\"" + href + "\"") + ">";
  for (const auto& v : verdicts) {
    const std::size_t n = t.of(v);
    if (!n) continue;
    char w[32];
    std::snprintf(w, sizeof w, "%.3f%%", 100.0 * static_cast<double>(n) / static_cast<double>(t.total));
    s += "<span class=\"" + verdict_class(v) + "\" style=\"width:" + w + "\"></span>";
  }
  return s + "</a>";
}

// The numbers under a bar: passed of total, and the unexpected outcomes when there are any.
std::string cell_numbers(const Tally& t) {
  std::string s = "<div class=\"n\">" + num(t.of("PASS")) + "/" + num(t.total);
  if (t.unexpected) s += " <span class=\"bad\">" + num(t.unexpected) + "&#10007;</span>";
  return s + "</div>";
}

std::string tally_text(const Tally& t, const std::vector<std::string>& verdicts) {
  std::string s = num(t.total) + " tests:";
  bool first = true;
  for (const auto& v : verdicts)
    if (t.of(v)) {
      s += std::string(first ? " " : ", ") + num(t.of(v)) + " " + v;
      first = false;
    }
  if (t.unexpected) s += "; " + num(t.unexpected) + " unexpected";
  return s;
}

std::string matrix_section(const std::vector<BackendView>& views, const std::vector<std::string>& verdicts,
                           const std::vector<Cell>& cells) {
  std::set<std::string> ops, convs;
  for (const auto& c : cells) {
    ops.insert(c.first);
    convs.insert(c.second);
  }
  std::map<Cell, std::size_t> cell_index;
  for (std::size_t k = 0; k < cells.size(); ++k) cell_index[cells[k]] = k;
  std::string s = "<section id=\"matrix-section\"><h2>Op &#215; convention</h2><p class=\"legend\">";
  for (const auto& v : verdicts) s += badge(v);
  s += " Each cell holds one bar per backend";
  if (views.size() > 1) {
    s += " (top to bottom: ";
    for (std::size_t b = 0; b < views.size(); ++b) s += (b ? ", " : "") + html_escape(views[b].label);
    s += ")";
  }
  s += ", its colours in proportion to the verdict counts, and under it the tests passed of the tests run (and the "
       "unexpected outcomes, &#10007;); a black frame marks unexpected outcomes. Hover for every count; click for the "
       "failing tests.</p>";
  s += "<table class=\"matrix\" id=\"matrix\"><thead><tr><th></th>";
  for (const auto& c : convs) s += "<th><div>" + html_escape(c) + "</div></th>";
  s += "</tr></thead><tbody>";
  for (const auto& op : ops) {
    s += "<tr><th>" + html_escape(op) + "</th>";
    for (const auto& conv : convs) {
      const Cell cell{op, conv};
      const auto found = cell_index.find(cell);
      if (found == cell_index.end()) {
        s += "<td class=\"none\"></td>";
        continue;
      }
      std::string cls;
      for (const auto& b : views)
        if (auto it = b.cells.find(cell); it != b.cells.end())
          for (const auto& v : verdicts)
            if (it->second.of(v) && v != "PASS") cls += " has-" + verdict_class(v);
      s += "<td class=\"cell" + cls + "\" data-op=\"" + html_escape(op) + "\" data-convention=\"" + html_escape(conv) +
           "\">";
      for (std::size_t b = 0; b < views.size(); ++b) {
        auto it = views[b].cells.find(cell);
        if (it == views[b].cells.end()) continue;
        const bool linked = views[b].shown.count(cell) > 0;
        s += bar(it->second, verdicts,
                 views[b].label + ": " + op + " / " + conv + ": " + tally_text(it->second, verdicts),
                 linked ? "#g" + num(b) + "-" + num(found->second) : "");
        s += cell_numbers(it->second);
      }
      s += "</td>";
    }
    s += "</tr>";
  }
  return s + "</tbody></table></section>\n";
}

// The counts per clause (as the terminal's and the JSON report's "by clause"): a row per clause
// and backend, the clause linked to its text below.
std::string clause_counts_section(const std::vector<BackendView>& views, const std::vector<std::string>& verdicts) {
  std::set<std::string> ids;
  for (const auto& b : views)
    for (const auto& [id, t] : b.clauses) ids.insert(id);
  std::string s =
      "<section id=\"by-clause\"><h2>Per clause</h2><div class=\"wide\"><table class=\"files clauses-table\"><tr><th "
      "class=\"l\">clause</th>" +
      std::string(views.size() > 1 ? "<th class=\"l\">backend</th>" : "") + "<th>tests</th>";
  for (const auto& v : verdicts) s += "<th>" + badge(v) + "</th>";
  s += "<th>unexpected</th></tr>";
  for (const auto& id : ids)
    for (const auto& b : views) {
      auto it = b.clauses.find(id);
      if (it == b.clauses.end()) continue;
      const Tally& t = it->second;
      s += "<tr><td class=\"l\">" + clause_link(id) + "</td>" +
           (views.size() > 1 ? "<td class=\"l\">" + html_escape(b.label) + "</td>" : std::string()) + "<td>" + num(t.total) + "</td>";
      for (const auto& v : verdicts) s += "<td>" + num(t.of(v)) + "</td>";
      s += "<td" + std::string(t.unexpected ? " class=\"bad\"" : "") + ">" + num(t.unexpected) + "</td></tr>";
    }
  return s + "</table></div></section>\n";
}

std::string files_section(const std::vector<BackendView>& views, const std::vector<std::string>& verdicts) {
  std::string s =
      "<section id=\"files\"><h2>Per vector file</h2><details><summary>Verdict counts of every vector file, per "
      "backend</summary><table class=\"files\"><tr><th class=\"l\">backend</th><th class=\"l\">file</th><th "
      "class=\"l\">op / convention</th><th>tests</th>";
  for (const auto& v : verdicts) s += "<th>" + badge(v) + "</th>";
  s += "<th>unexpected</th></tr>";
  for (const auto& b : views) {
    // A file's tests are consecutive in a report (two files may share a name: --vectors a b).
    struct Row {
      std::string file;
      Cell cell;
      Tally tally;
    };
    std::vector<Row> rows;
    for (const auto& t : (*b.report)["tests"]) {
      const std::string f = str(t, "file");
      const Cell c{str(t, "op"), str(t, "convention")};
      if (rows.empty() || rows.back().file != f || rows.back().cell != c) rows.push_back({f, c, {}});
      rows.back().tally.add(t);
    }
    for (const auto& r : rows) {
      s += "<tr><td class=\"l\">" + html_escape(b.label) + "</td><td class=\"l\"><code>" + html_escape(r.file) +
           "</code></td><td class=\"l\">" + html_escape(r.cell.first + " / " + r.cell.second) + "</td><td>" +
           num(r.tally.total) + "</td>";
      for (const auto& v : verdicts) s += "<td>" + num(r.tally.of(v)) + "</td>";
      s += "<td" + std::string(r.tally.unexpected ? " class=\"bad\"" : "") + ">" + num(r.tally.unexpected) +
           "</td></tr>";
    }
  }
  return s + "</table></details></section>\n";
}

std::string failures_section(const std::vector<BackendView>& views, const std::vector<Cell>& cells,
                             const HtmlOptions& opt) {
  std::string s = "<section id=\"failures\"><h2>Failing tests</h2>";
  s += "<div id=\"tools\" hidden><input id=\"filter\" type=\"search\" placeholder=\"filter by verdict, file#tcId or "
       "reason\"> "
       "<button id=\"expand\" type=\"button\">expand all</button> <button id=\"collapse\" type=\"button\">collapse "
       "all</button></div>";
  for (std::size_t b = 0; b < views.size(); ++b) {
    const BackendView& v = views[b];
    s += "<h3 id=\"b" + num(b) + "\">" + html_escape(v.label) + ": " + num(v.failing) + " non-passing test" +
         (v.failing == 1 ? "" : "s");
    if (v.not_shown) s += " (" + num(v.failing - v.not_shown) + " shown, unexpected outcomes first)";
    s += "</h3>";
    if (v.failing == 0) s += "<p class=\"ok\">Every test passed (or is unsupported as expected).</p>";
    const OJ& tests = (*v.report)["tests"];
    // Collapsed: one line per (op, convention) with its count; a click (or the matrix's link)
    // opens the group, and each test opens on its own.
    for (std::size_t k = 0; k < cells.size(); ++k) {
      auto it = v.shown.find(cells[k]);
      if (it == v.shown.end()) continue;
      const Tally& t = v.cells.at(cells[k]);
      s += "<details class=\"group\" id=\"g" + num(b) + "-" + num(k) + "\"><summary><h4>" + html_escape(cells[k].first) +
           " / " + html_escape(cells[k].second) + " <span class=\"note\">(" + html_escape(v.label) + ": " +
           num(it->second.size()) + " of " + num(t.total) + " tests shown, " + num(t.unexpected) + " unexpected)</span></h4></summary>";
      for (std::size_t i : it->second) s += test_drilldown(tests[i], b, i, opt);
      s += "</details>";
    }
    if (v.not_shown)
      s += "<p class=\"note\">" + num(v.not_shown) + " more non-passing tests of " + html_escape(v.label) +
           " are not shown here; the JSON report lists every test.</p>";
  }
  return s + "</section>\n";
}

std::string clauses_section(const std::vector<OJ>& reports, const HtmlOptions& opt) {
  std::set<std::string> ids;
  for (const auto& r : reports)
    for (const auto& t : r["tests"])
      if (t.contains("clauses") && t["clauses"].is_array())
        for (const auto& c : t["clauses"])
          if (c.is_string()) ids.insert(c.get<std::string>());
  std::string s = "<section id=\"clauses\"><h2>Clauses</h2>";
  if (opt.clauses.empty())
    s += "<p class=\"note\">The clause texts were not available (no spec/ directory under the qspec root).</p>";
  for (const auto& id : ids) {
    s += "<div class=\"clause-entry\" id=\"clause-" + html_escape(id) + "\"><h3><code>" + html_escape(id) + "</code>";
    auto it = opt.clauses.find(id);
    if (it == opt.clauses.end()) {
      s += "</h3><p class=\"note\">not in this qspec's spec/ (a report of another version?)</p></div>";
      continue;
    }
    const ClauseText& c = it->second;
    s += ": " + html_escape(c.title) + "</h3><p class=\"note\">";
    if (!opt.spec_base.empty())
      s += "<a href=\"" + html_escape(opt.spec_base + "/" + c.file + "#" + c.anchor) + "\">" + html_escape(c.file) +
           ":" + num(static_cast<std::size_t>(c.line)) + "</a>";
    else
      s += html_escape(c.file) + ":" + num(static_cast<std::size_t>(c.line));
    s += "</p><div class=\"clause-text\">" + inline_markdown(html_escape(c.body)) + "</div></div>";
  }
  return s + "</section>\n";
}

}  // namespace

std::string html_escape(std::string_view text) {
  std::string o;
  o.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t len = utf8_sequence_length(text, i);
    if (len == 0) {  // ill-formed UTF-8 (a backend's message): U+FFFD, as a browser would show it
      o += "\xef\xbf\xbd";
      ++i;
      continue;
    }
    const auto ch = static_cast<unsigned char>(text[i]);
    switch (len == 1 ? ch : 0) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&#39;"; break;
      default:
        if (len == 1 && ((ch < 0x20 && ch != '\n' && ch != '\t') || ch == 0x7f)) break;
        o.append(text.substr(i, len));
    }
    i += len;
  }
  return o;
}

std::string github_anchor(std::string_view heading) {
  std::string a;
  for (unsigned char ch : heading) {
    if (ch >= 'A' && ch <= 'Z')
      a += static_cast<char>(ch - 'A' + 'a');
    else if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-' || ch == '_' || ch >= 0x80)
      a += static_cast<char>(ch);
    else if (ch == ' ')
      a += '-';
  }
  return a;
}

std::map<std::string, ClauseText> read_clause_texts(const fs::path& root) {
  std::map<std::string, ClauseText> out;
  std::error_code ec;
  const fs::path dir = root / "spec";
  if (!fs::is_directory(dir, ec)) return out;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().extension() == ".md") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& p : files) {
    std::ifstream in(p);
    std::string line;
    ClauseText* open = nullptr;
    int n = 0;
    while (std::getline(in, line)) {
      ++n;
      if (!line.empty() && line[0] == '#') open = nullptr;
      // "### `id`: title" (or "- title"); the ID is lower-case dotted, as the catalogue requires.
      if (line.rfind("### `", 0) == 0) {
        const auto close = line.find('`', 5);
        const std::string id = close == std::string::npos ? "" : line.substr(5, close - 5);
        const bool valid =
            !id.empty() && id.find('.') != std::string::npos && std::all_of(id.begin(), id.end(), [](char ch) {
              return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_' || ch == '.';
            });
        if (valid && !out.count(id)) {
          std::string title = line.substr(close + 1);
          const auto start = title.find_first_not_of(" :-");
          title = start == std::string::npos ? "" : title.substr(start);
          ClauseText c{id, title, "spec/" + p.filename().string(), n, github_anchor(line.substr(4)), ""};
          open = &out.emplace(id, std::move(c)).first->second;
          continue;
        }
      }
      if (open) open->body += line + "\n";
    }
  }
  for (auto& [id, c] : out)  // trailing blank lines
    while (!c.body.empty() && (c.body.back() == '\n' || c.body.back() == ' ')) c.body.pop_back();
  return out;
}

std::string html_report(const std::vector<OJ>& reports, const HtmlOptions& opt) {
  const std::vector<std::string> verdicts = verdict_columns(reports);
  std::vector<BackendView> views;
  for (const auto& r : reports) views.push_back(view_of(r, opt.max_failures));
  // Backends are named by name; by name and version where two share a name.
  for (auto& v : views)
    if (std::count_if(views.begin(), views.end(), [&](const BackendView& o) { return o.label == v.label; }) > 1)
      for (auto& o : views)
        if (o.label == v.label && !str((*o.report)["backend"], "version").empty())
          o.label += " " + str((*o.report)["backend"], "version");
  std::vector<Cell> cells;  // every (op, convention) of any report, sorted: the matrix's cells
  {
    std::set<Cell> all;
    for (const auto& v : views)
      for (const auto& [c, t] : v.cells) all.insert(c);
    cells.assign(all.begin(), all.end());
  }
  std::size_t total = 0;
  for (const auto& v : views) total += v.all.total;

  std::string s =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" "
      "content=\"width=device-width, initial-scale=1\">\n";
  s += "<title>" + html_escape(opt.title) + "</title>\n<style>" + css(verdicts) + "</style>\n</head>\n<body>\n";
  s += "<header><h1>" + html_escape(opt.title) + "</h1><p class=\"note\">" + num(views.size()) + " backend" +
       (views.size() == 1 ? "" : "s") + ", " + num(total) + " test results" +
       (opt.generator.empty() ? "" : "; written by " + html_escape(opt.generator)) +
       ". Sections: <a href=\"#summary\">summary</a>, <a href=\"#matrix-section\">op &#215; convention</a>, <a "
       "href=\"#by-clause\">per clause</a>, <a href=\"#failures\">failing tests</a>, "
       "<a href=\"#files\">per file</a>, <a href=\"#clauses\">clauses</a>.</p></header>\n";
  s += summary_section(views, verdicts);
  s += matrix_section(views, verdicts, cells);
  s += clause_counts_section(views, verdicts);
  s += failures_section(views, cells, opt);
  s += files_section(views, verdicts);
  s += clauses_section(reports, opt);
  s += "<script>" + std::string(kScript) + "</script>\n</body>\n</html>\n";
  return s;
}

void write_html_report(const fs::path& path, const std::vector<OJ>& reports, const HtmlOptions& options) {
  write_file_atomically(path, html_report(reports, options), /*create_parent_directories=*/false);
}

}  // namespace qspec::harness
