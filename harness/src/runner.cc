// The run loop: load each vector file, call the backend per test, judge, explain failures.
#include "qspec/harness/runner.h"

#include <fnmatch.h>

#include <chrono>

namespace qspec::harness {

void Counts::add(const TestOutcome& o) {
  switch (o.verdict) {
    case Verdict::Pass: ++pass; break;
    case Verdict::Fail: ++fail; break;
    case Verdict::Error: ++error; break;
    case Verdict::Unsupported: ++unsupported; break;
  }
  if (!o.as_expected) ++unexpected;
  if (o.unexpected_pass) ++unexpected_pass;
  if (o.expected_verdict && o.as_expected && *o.expected_verdict != Verdict::Pass) ++expected_deviation;
}

bool test_selected(const std::vector<std::string>& filters, const std::string& file, std::int64_t tc_id) {
  if (filters.empty()) return true;
  const std::string with_id = file + "#" + std::to_string(tc_id);
  for (const auto& g : filters) {
    const std::string& subject = g.find('#') != std::string::npos ? with_id : file;
    if (fnmatch(g.c_str(), subject.c_str(), 0) == 0) return true;
  }
  return false;
}

namespace {

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i];
  return s;
}

// Header and context lines shared by every diagnostic.
std::string context_text(const VectorFile& f, const VectorTest& t, const std::string& attrs_json, bool with_inputs) {
  std::string s = "  clauses: " + join(f.clauses, ", ") + "; convention: " + f.convention + "\n";
  if (!t.comment.empty() || !t.flags.empty())
    s += "  comment: " + t.comment + (t.flags.empty() ? "" : "  [flags: " + join(t.flags, ", ") + "]") + "\n";
  s += "  attributes: " + attrs_json + "\n";
  if (with_inputs)
    for (const auto& in : t.inputs) s += "  input " + format_tensor(in) + "\n";
  return s;
}

std::string mismatch_text(const VectorTest& t, const Comparison& c, const std::vector<Tensor>& actual) {
  if (!c.structural.empty()) return "  outputs do not line up: " + c.structural + "\n";
  const auto& d = *c.first;
  std::string s = "  expected " + d.expected + ", got " + d.actual + " at " + d.output + "[";
  for (std::size_t k = 0; k < d.index.size(); ++k) s += (k ? ", " : "") + std::to_string(d.index[k]);
  s += "] (flat index " + std::to_string(d.flat_index) + "); " + std::to_string(c.differing) + " of " + std::to_string(c.total) +
       " output elements differ\n";
  // Elementwise ops: the inputs at the same position explain the element.
  for (const auto& in : t.inputs)
    if (static_cast<std::int64_t>(in.data.size()) > d.flat_index && in.shape.size() == d.index.size() && !d.index.empty()) {
      bool same = true;
      for (const auto& e : t.expected)
        if (e.name == d.output && e.shape != in.shape) same = false;
      if (same)
        s += "  at that index: input " + in.name + " = " +
             format_element(in.dtype, in.data[static_cast<std::size_t>(d.flat_index)]) + "\n";
    }
  for (const auto& a : actual) s += "  actual   " + format_tensor(a) + "\n";
  for (const auto& e : t.expected) s += "  expected " + format_tensor(e) + "\n";
  return s;
}

}  // namespace

TestOutcome judge_test(const Backend& backend, const VectorFile& f, const VectorTest& t, const ConventionExplainer* explainer,
                       bool explain) {
  TestOutcome o;
  o.file = f.display_name;
  o.tc_id = t.tc_id;
  o.op = f.op;
  o.convention = f.convention;
  o.clauses = f.clauses;
  o.comment = t.comment;
  o.flags = t.flags;
  o.invalid = t.invalid;
  const auto start = std::chrono::steady_clock::now();
  const std::string attrs_json = t.attributes.dump();

  if (!backend.supports(f.op, f.convention)) {
    o.verdict = Verdict::Unsupported;
    o.reason = "backend does not implement " + f.op + " / " + f.convention;
    return o;
  }
  const BackendResult r = backend.run(f.op, f.convention, attrs_json, t.inputs, t.expected);
  const std::string msg = r.message.empty() ? "" : ": " + r.message;
  switch (r.status) {
    case QSPEC_STATUS_UNSUPPORTED:
      o.verdict = Verdict::Unsupported;
      o.reason = "backend reported UNSUPPORTED" + msg;
      break;
    case QSPEC_STATUS_ERROR:
      o.verdict = Verdict::Error;
      o.reason = "backend reported ERROR" + msg;
      o.diagnostic = context_text(f, t, attrs_json, true) + "  backend error" + msg + "\n";
      break;
    case QSPEC_STATUS_REJECTED:
      if (t.invalid) {
        o.verdict = Verdict::Pass;
        o.reason = "rejected as expected" + msg;
      } else {
        o.verdict = Verdict::Fail;
        o.reason = "rejected a valid input" + msg;
        o.diagnostic = context_text(f, t, attrs_json, true) + "  the backend rejected a valid input" + msg +
                       "\n  (the spec's preconditions hold for this input; only an ERROR_IF violation may be rejected)\n";
      }
      break;
    case QSPEC_STATUS_OK:
      if (t.invalid) {
        o.verdict = Verdict::Fail;
        o.reason = "accepted an invalid input";
        o.diagnostic = context_text(f, t, attrs_json, true) +
                       "  the backend accepted an invalid input: the spec's ERROR_IF requires a rejection "
                       "(QSPEC_STATUS_REJECTED) for it\n";
        break;
      }
      {
        Comparison c = compare_outputs(t.expected, r.outputs);
        if (c.equal) {
          o.verdict = Verdict::Pass;
          break;
        }
        o.verdict = Verdict::Fail;
        o.reason = c.structural.empty() ? std::to_string(c.differing) + " of " + std::to_string(c.total) +
                                              " output elements differ; first: expected " + c.first->expected + ", got " +
                                              c.first->actual
                                        : "outputs do not line up: " + c.structural;
        o.diagnostic = context_text(f, t, attrs_json, true) + mismatch_text(t, c, r.outputs);
        if (explain && explainer && c.structural.empty()) {
          ConventionReport cr = explainer->explain(f.op, f.convention, attrs_json, t.inputs, t.expected, r.outputs);
          const std::string sentence = describe_conventions(f.op, f.convention, cr);
          if (!sentence.empty()) o.diagnostic += "  expected " + c.first->expected + ", got " + c.first->actual + ": " + sentence + "\n";
          o.conventions = std::move(cr);
        }
        o.comparison = std::move(c);
      }
      break;
  }
  o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return o;
}

RunResult run_vectors(const Backend& backend, const RunOptions& opt) {
  RunResult rr;
  rr.backend_name = backend.name();
  rr.backend_version = backend.version();
  rr.backend_source = backend.source();
  std::size_t explained = 0;
  for (const auto& src : opt.files) {
    VectorFile f = load_vector_file(src.path, src.display_name);
    std::vector<const VectorTest*> selected;
    for (const auto& t : f.tests)
      if (test_selected(opt.filters, f.display_name, t.tc_id)) selected.push_back(&t);
    if (selected.empty()) continue;
    if (opt.observer.file_started) opt.observer.file_started(f, selected.size());
    FileResult fr{f.display_name, f.op, f.convention, f.clauses, {}};
    std::size_t done = 0;
    for (const VectorTest* t : selected) {
      TestOutcome o = judge_test(backend, f, *t, opt.explainer, explained < opt.explain_limit);
      if (o.conventions) ++explained;
      if (opt.expectations) {
        if (const Expectation* e = opt.expectations->find(f.display_name, t->tc_id)) {
          o.expected_verdict = e->verdict;
          o.expectation_reason = e->reason;
        }
      }
      if (o.expected_verdict) {
        o.as_expected = o.verdict == *o.expected_verdict;
        o.unexpected_pass = !o.as_expected && o.verdict == Verdict::Pass;
      } else {
        o.as_expected = o.verdict == Verdict::Pass || (o.verdict == Verdict::Unsupported && !opt.unsupported_is_failure);
      }
      fr.counts.add(o);
      rr.counts.add(o);
      rr.outcomes.push_back(std::move(o));
      if (opt.observer.test_done) opt.observer.test_done(rr.outcomes.back(), ++done, selected.size());
    }
    if (opt.observer.file_done) opt.observer.file_done(fr);
    rr.files.push_back(std::move(fr));
  }
  return rr;
}

}  // namespace qspec::harness
