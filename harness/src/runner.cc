// The run loop: load each vector file, call the backend per test, judge, explain failures.
#include "qspec/harness/runner.h"

#include <fnmatch.h>
#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <future>
#include <mutex>
#include <set>

#include "fork_guard.h"
#include "qspec/harness/test_identity.h"

namespace qspec::harness {

void Counts::add(const TestOutcome& o) {
  switch (o.verdict) {
    case Verdict::Pass: ++pass; break;
    case Verdict::Fail: ++fail; break;
    case Verdict::Error: ++error; break;
    case Verdict::Unsupported: ++unsupported; break;
    case Verdict::Crash: ++crash; break;
    case Verdict::Timeout: ++timeout; break;
    case Verdict::Skipped: ++skipped; break;
  }
  if (!o.as_expected) ++unexpected;
  if (o.unexpected_pass) ++unexpected_pass;
  if (o.expected_verdict && o.as_expected && *o.expected_verdict != Verdict::Pass) ++expected_deviation;
}

std::size_t Counts::of(Verdict v) const {
  switch (v) {
    case Verdict::Pass: return pass;
    case Verdict::Fail: return fail;
    case Verdict::Error: return error;
    case Verdict::Unsupported: return unsupported;
    case Verdict::Crash: return crash;
    case Verdict::Timeout: return timeout;
    case Verdict::Skipped: return skipped;
  }
  return 0;
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

bool file_may_be_selected(const std::vector<std::string>& filters, const std::string& file) {
  if (filters.empty()) return true;
  for (const auto& g : filters) {
    if (g.find('#') != std::string::npos) return true;  // FILE#tcId globs: decided test by test
    if (fnmatch(g.c_str(), file.c_str(), 0) == 0) return true;
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
  s += "] (flat index " + std::to_string(d.flat_index) + "); " + std::to_string(c.differing) + " of " +
       std::to_string(c.total) + " output elements differ\n";
  // Elementwise ops: the inputs at the same position explain the element.
  for (const auto& in : t.inputs)
    if (static_cast<std::int64_t>(in.data.size()) > d.flat_index && in.shape.size() == d.index.size() &&
        !d.index.empty()) {
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

// The selection fingerprint: FNV-1a (64 bit) over every selected test's name and content, in
// selection order. Not cryptographic: it tells shards of one run from shards of runs on other
// vector files or filters, which is all `qspec report merge` needs.
constexpr std::uint64_t kFnvOffset = 14695981039346656037ull;

void fnv_bytes(std::uint64_t& h, const void* p, std::size_t n) {
  const auto* b = static_cast<const unsigned char*>(p);
  for (std::size_t i = 0; i < n; ++i) {
    h ^= b[i];
    h *= 1099511628211ull;
  }
}

void fnv_string(std::uint64_t& h, const std::string& s) {
  fnv_bytes(h, s.data(), s.size());
  fnv_bytes(h, "", 1);  // a terminator, so that "ab"+"c" differs from "a"+"bc"
}

void fnv_tensors(std::uint64_t& h, const std::vector<Tensor>& ts) {
  for (const auto& t : ts) {
    fnv_string(h, t.name);
    fnv_string(h, std::string(dtype_name(t.dtype)));
    for (std::int64_t d : t.shape) fnv_bytes(h, &d, sizeof d);
    for (std::int64_t v : t.data) fnv_bytes(h, &v, sizeof v);
    fnv_bytes(h, "|", 1);
  }
}

void add_to_fingerprint(std::uint64_t& h, const std::string& file, const VectorTest& t) {
  fnv_string(h, file);
  fnv_bytes(h, &t.tc_id, sizeof t.tc_id);
  fnv_string(h, t.invalid ? "invalid" : "valid");
  fnv_string(h, attributes_text(t));
  fnv_tensors(h, t.inputs);
  fnv_tensors(h, t.expected);
}

std::string fingerprint_text(std::uint64_t h) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "fnv1a64:%016llx", static_cast<unsigned long long>(h));
  return buf;
}

}  // namespace

TestOutcome judge_test(const Backend& backend, const VectorFile& f, const VectorTest& t,
                       const ConventionExplainer* explainer, bool explain) {
  const auto start = std::chrono::steady_clock::now();
  BackendCall call;
  call.supported = backend.supports(f.op, f.convention);
  if (call.supported) call.result = backend.run(f.op, f.convention, attributes_text(t), t.inputs, t.expected);
  TestOutcome o = judge_call(f, t, call, explainer, explain);
  o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return o;
}

// ---- The verdict policy ----------------------------------------------------------------------
//
// Everything qspec decides about a test is decided here, in agree() and meets_expectation(); the
// rest of the harness only gathers what the backend did (BackendCall) and explains the verdict.
//
// agree() is docs/CONFORMANCE.md section 3.3 as code, in this order:
//  1. A fault the harness observed (the worker died, hung, or misused its buffers) is the verdict
//     the executor named: CRASH, TIMEOUT or ERROR (3.3, last paragraph; 3.4: it costs this test
//     only). Nothing the backend returned is looked at.
//  2. A pair the backend does not claim, or QSPEC_STATUS_UNSUPPORTED: UNSUPPORTED, a declared
//     non-implementation, neither right nor wrong.
//  3. QSPEC_STATUS_ERROR (or an unknown status, mapped to it by the loader): ERROR.
//  4. A rejection (QSPEC_STATUS_REJECTED) is the one correct answer to an invalid test (an
//     ERROR_IF input, 1.3) and a FAIL on a valid one.
//  5. Outputs for an invalid test: FAIL (the backend accepted what it must reject).
//  6. Outputs for a valid test: PASS iff every output lines up with the expected one (count,
//     name, dtype, shape) and every element is equal: integers by value, float32/float64 by bit
//     pattern, so -0.0 != +0.0 and NaN payloads count (compare_outputs). There is no tolerance,
//     no "close enough" and no implementation-defined choice (1.3); a convention that differs
//     from the file's is a different convention, not an approximation of it.
// The vectors are the only oracle (3.5): the reference is consulted afterwards, to explain a FAIL.
// One verdict judges no answer: SKIPPED, for the tests the circuit breaker does not run after
// RunOptions::max_consecutive_faults CRASH/TIMEOUT verdicts in a row in a file (3.4;
// skipped_outcome() below, counted in run_vectors).
namespace {

enum class Finding {
  Fault,
  Unsupported,
  BackendError,
  RejectedAsExpected,
  RejectedValid,
  AcceptedInvalid,
  Match,
  Mismatch
};

struct Agreement {
  Verdict verdict = Verdict::Pass;
  Finding finding = Finding::Match;
  std::string reason;                    // one line
  std::optional<Comparison> comparison;  // Match and Mismatch
};

Agreement agree(const VectorFile& f, const VectorTest& t, const BackendCall& call) {
  if (call.fault) return {*call.fault, Finding::Fault, call.fault_reason, std::nullopt};
  if (!call.supported)
    return {Verdict::Unsupported, Finding::Unsupported, "backend does not implement " + f.op + " / " + f.convention,
            std::nullopt};
  const BackendResult& r = call.result;
  const std::string msg = r.message.empty() ? "" : ": " + r.message;
  switch (r.status) {
    case QSPEC_STATUS_UNSUPPORTED:
      return {Verdict::Unsupported, Finding::Unsupported, "backend reported UNSUPPORTED" + msg, std::nullopt};
    case QSPEC_STATUS_ERROR:
      return {Verdict::Error, Finding::BackendError, "backend reported ERROR" + msg, std::nullopt};
    case QSPEC_STATUS_REJECTED:
      if (t.invalid) return {Verdict::Pass, Finding::RejectedAsExpected, "rejected as expected" + msg, std::nullopt};
      return {Verdict::Fail, Finding::RejectedValid, "rejected a valid input" + msg, std::nullopt};
    case QSPEC_STATUS_OK: break;
  }
  if (r.status != QSPEC_STATUS_OK)  // the loader maps unknown statuses to ERROR; never a PASS by accident
    return {Verdict::Error, Finding::BackendError,
            "backend returned unknown status " + std::to_string(static_cast<int>(r.status)) + msg, std::nullopt};
  if (t.invalid) return {Verdict::Fail, Finding::AcceptedInvalid, "accepted an invalid input", std::nullopt};
  Comparison c = compare_outputs(t.expected, r.outputs);
  if (c.equal) return {Verdict::Pass, Finding::Match, "", std::move(c)};
  std::string reason = c.structural.empty() ? std::to_string(c.differing) + " of " + std::to_string(c.total) +
                                                  " output elements differ; first: expected " + c.first->expected +
                                                  ", got " + c.first->actual
                                            : "outputs do not line up: " + c.structural;
  return {Verdict::Fail, Finding::Mismatch, std::move(reason), std::move(c)};
}

// Whether a verdict is as the run expects (docs/CONFORMANCE.md 4.2). With an --expect entry:
// exactly its verdict; a PASS against an entry is an unexpected pass (the entry is stale, and a
// stale entry falsifies the claim as much as an unlisted failure). Without one: PASS, and
// UNSUPPORTED unless --fail-on-unsupported (not implementing a pair is no wrong answer, 3.3;
// a run in which *everything* is UNSUPPORTED checked nothing: RunResult::nothing_checked, 4.4).
void meets_expectation(TestOutcome& o, const Expectation* e, bool unsupported_is_failure) {
  o.expected_verdict.reset();
  o.expectation_reason.clear();
  if (e) {
    o.expected_verdict = e->verdict;
    o.expectation_reason = e->reason;
  }
  if (o.expected_verdict) {
    o.as_expected = o.verdict == *o.expected_verdict;
    o.unexpected_pass = !o.as_expected && o.verdict == Verdict::Pass;
  } else {
    o.as_expected = o.verdict == Verdict::Pass || (o.verdict == Verdict::Unsupported && !unsupported_is_failure);
    o.unexpected_pass = false;
  }
}

using TestKey = std::pair<std::string, std::int64_t>;

// An outcome naming test t of file f, its verdict still to be decided.
TestOutcome outcome_for(const VectorFile& f, const VectorTest& t) {
  TestOutcome o;
  o.file = f.display_name;
  o.tc_id = t.tc_id;
  o.op = f.op;
  o.convention = f.convention;
  o.clauses = f.clauses;
  o.comment = t.comment;
  o.flags = t.flags;
  o.invalid = t.invalid;
  return o;
}

// The outcome of a test the circuit breaker did not run (RunOptions::max_consecutive_faults).
TestOutcome skipped_outcome(const VectorFile& f, const VectorTest& t, std::size_t faults, Verdict last) {
  TestOutcome o = outcome_for(f, t);
  o.verdict = Verdict::Skipped;
  o.reason = "not run: skipped after " + std::to_string(faults) + " consecutive TIMEOUT/CRASH in this file (the last " +
             std::string(verdict_name(last)) + "; --max-consecutive-faults " + std::to_string(faults) +
             ", 0 runs every test)";
  return o;
}

// --expect applied to an outcome (afresh for one taken from a resumed report).
void apply_expectation(TestOutcome& o, const RunOptions& opt) {
  meets_expectation(o, opt.expectations ? opt.expectations->find(o.file, o.tc_id) : nullptr,
                    opt.unsupported_is_failure);
}

// `--resume`: adds to `r` the earlier report's outcomes that the run has not reached (`reached`:
// taken over, run again, or dropped with their changed file), so that a checkpoint or an
// interrupted result of a resumed run holds every test the report held.
void add_unreached(RunResult& r, const RunOptions& opt, const std::set<TestKey>& reached) {
  for (const auto& [key, previous] : *opt.previous) {
    if (reached.count(key)) continue;
    TestOutcome o = previous;
    apply_expectation(o, opt);
    auto f = std::find_if(r.files.begin(), r.files.end(), [&](const FileResult& x) { return x.file == o.file; });
    if (f == r.files.end()) {
      r.files.push_back(FileResult{o.file, o.op, o.convention, o.clauses, {}});
      f = r.files.end() - 1;
      if (opt.previous_fingerprints)
        if (const auto fp = opt.previous_fingerprints->find(o.file); fp != opt.previous_fingerprints->end())
          r.file_fingerprints[o.file] = fp->second;
    }
    f->counts.add(o);
    r.counts.add(o);
    r.outcomes.push_back(std::move(o));
  }
}

// Whether the earlier report's outcomes for file `name` still hold: the file's fingerprint then
// equals its fingerprint now (without fingerprints to compare, the library caller vouches).
bool previous_still_valid(const RunOptions& opt, const std::string& name, const std::string& fingerprint) {
  if (!opt.previous_fingerprints) return true;
  const auto it = opt.previous_fingerprints->find(name);
  return it != opt.previous_fingerprints->end() && it->second == fingerprint;
}

}  // namespace

TestOutcome judge_call(const VectorFile& f, const VectorTest& t, const BackendCall& call,
                       const ConventionExplainer* explainer, bool explain) {
  TestOutcome o = outcome_for(f, t);
  Agreement a = agree(f, t, call);
  o.verdict = a.verdict;
  o.reason = a.reason;
  // The diagnostic: what a reader needs to reproduce the verdict (context, then the finding).
  const std::string attrs_json = attributes_text(t);
  const std::string msg = call.result.message.empty() ? "" : ": " + call.result.message;
  switch (a.finding) {
    case Finding::Fault:
      o.diagnostic = context_text(f, t, attrs_json, true) + "  " + call.fault_reason + "\n" + call.fault_detail;
      break;
    case Finding::Unsupported:
    case Finding::RejectedAsExpected:
    case Finding::Match: break;
    case Finding::BackendError:
      o.diagnostic = context_text(f, t, attrs_json, true) + "  backend error" + msg + "\n";
      break;
    case Finding::RejectedValid:
      o.diagnostic = context_text(f, t, attrs_json, true) + "  the backend rejected a valid input" + msg +
                     "\n  (the spec's preconditions hold for this input; only an ERROR_IF violation may be rejected)\n";
      break;
    case Finding::AcceptedInvalid:
      o.diagnostic = context_text(f, t, attrs_json, true) +
                     "  the backend accepted an invalid input: the spec's ERROR_IF requires a rejection "
                     "(QSPEC_STATUS_REJECTED) for it\n";
      o.actual = call.result.outputs;
      break;
    case Finding::Mismatch: {
      Comparison& c = *a.comparison;
      o.diagnostic = context_text(f, t, attrs_json, true) + mismatch_text(t, c, call.result.outputs);
      if (explain && explainer && c.structural.empty()) {
        ConventionReport cr =
            explainer->explain(f.op, f.convention, attrs_json, t.inputs, t.expected, call.result.outputs);
        const std::string sentence = describe_conventions(f.op, f.convention, cr);
        if (!sentence.empty())
          o.diagnostic += "  expected " + c.first->expected + ", got " + c.first->actual + ": " + sentence + "\n";
        o.conventions = std::move(cr);
      }
      o.comparison = std::move(c);
      o.actual = call.result.outputs;  // for the report's drill-down
      break;
    }
  }
  return o;
}

RunResult run_vectors(const Backend& backend, const RunOptions& opt) {
  InProcessExecutor executor(backend);
  return run_vectors(executor, opt);
}

RunResult run_vectors(BackendExecutor& executor, const RunOptions& opt) {
  RunResult rr;
  rr.backend_name = executor.name();
  rr.backend_version = executor.version();
  rr.backend_source = executor.source();
  for (const auto& src : opt.files) rr.vector_files.push_back(src.display_name);
  rr.filters = opt.filters;
  rr.only_claimed = opt.only_claimed;
  rr.provenance = opt.provenance;
  auto last_checkpoint = std::chrono::steady_clock::now();
  bool ran_since_checkpoint = false;  // a checkpoint while only replaying a report adds nothing
  std::size_t explained = 0, with_data = 0;
  std::uint64_t fingerprint = kFnvOffset;
  std::set<TestKey> reached;  // --resume: outcomes of the earlier report taken over or superseded
  // The next file is read, parsed and checked against the schemas on a thread of its own while
  // this one's tests run (loading takes more CPU than running the avx2 backend): get() returns
  // it, or rethrows its error, in file order, so errors, --keep-going and observers see exactly
  // what a serial loop would. One file ahead at most bounds the memory to two files.
  // The thread starts with every signal blocked (it inherits the mask in force while it is
  // created), so that SIGINT and SIGTERM reach the thread that waits for the worker.
  const auto load = [&opt](std::size_t i) {
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    std::future<VectorFile> loading;
    try {  // no thread to be had: libstdc++ loads it in get(), in this thread (launch::deferred)
      loading = std::async(std::launch::async | std::launch::deferred, [&opt, i] {
        const std::lock_guard<std::mutex> no_fork(fork_guard());
        return load_vector_source(opt.files[i], opt.schemas);
      });
    } catch (...) {
      pthread_sigmask(SIG_SETMASK, &old, nullptr);
      throw;
    }
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    return loading;
  };
  // A file that no --filter glob can select is never read: its tests could not run, and parsing
  // is most of a filtered run's time (the whole tree for one family, ~45 s under ASan).
  std::vector<std::size_t> to_load;
  for (std::size_t i = 0; i < opt.files.size(); ++i)
    if (file_may_be_selected(opt.filters, opt.files[i].display_name)) to_load.push_back(i);
  std::future<VectorFile> next;
  if (!to_load.empty()) next = load(to_load[0]);
  for (std::size_t load_index = 0; load_index < to_load.size(); ++load_index) {
    const VectorSource& src = opt.files[to_load[load_index]];
    // One file loads at a time: rapidjson 1.1.0 keeps a regex's search state inside the schema
    // document the loads share, so two validations at once would race.
    std::future<VectorFile> current = std::move(next);
    current.wait();
    if (load_index + 1 < to_load.size()) next = load(to_load[load_index + 1]);
    VectorFile f;
    try {
      f = current.get();
      if (!opt.known_ops.empty() && !executor.supports(f))
        check_op_known(f, opt.known_ops, "the reference or by backend '" + executor.name() + "'");
    } catch (const VectorFileError& e) {
      if (!opt.keep_going) throw;
      rr.skipped.push_back({src.display_name, e.what()});
      if (opt.observer.file_skipped) opt.observer.file_skipped(rr.skipped.back());
      continue;
    }
    if (opt.only_claimed && !executor.supports(f)) {  // not part of the selection at all
      rr.unclaimed_files.push_back(f.display_name);
      continue;
    }
    std::vector<const VectorTest*> selected;
    std::vector<std::size_t> positions;  // of `selected` in the whole (unsharded) selection
    std::uint64_t file_fingerprint = kFnvOffset;
    for (const auto& t : f.tests)
      if (test_selected(opt.filters, f.display_name, t.tc_id)) {
        add_to_fingerprint(fingerprint, f.display_name, t);
        add_to_fingerprint(file_fingerprint, f.display_name, t);
        const std::size_t position = rr.selected_total++;
        rr.selection_identity += test_identity_hash(position, f.display_name, t.tc_id, f.op, f.convention);
        if (opt.shard && !in_shard(*opt.shard, position)) continue;
        selected.push_back(&t);
        positions.push_back(position);
      }
    if (selected.empty()) continue;
    rr.file_fingerprints[f.display_name] = fingerprint_text(file_fingerprint);
    // --resume: the earlier report's outcomes for this file, unless the file changed since.
    const std::map<TestKey, TestOutcome>* previous = opt.previous;
    if (previous) {
      const auto first = previous->lower_bound({f.display_name, INT64_MIN});
      const bool has_previous = first != previous->end() && first->first.first == f.display_name;
      if (has_previous && !previous_still_valid(opt, f.display_name, rr.file_fingerprints[f.display_name])) {
        rr.resume_changed_files.push_back(f.display_name);
        for (auto it = first; it != previous->end() && it->first.first == f.display_name; ++it)
          reached.insert(it->first);
        previous = nullptr;  // its tests run again
      }
    }
    if (opt.observer.file_started) opt.observer.file_started(f, selected.size());
    FileResult fr{f.display_name, f.op, f.convention, f.clauses, {}};
    std::size_t done = 0, in_file = 0;
    std::size_t faults_in_a_row = 0;  // the circuit breaker's count (replayed outcomes included)
    Verdict last_fault = Verdict::Crash;
    executor.begin_file(f);
    {
      std::vector<std::size_t> to_run;  // what the loop below will execute, unless it stops early
      for (const VectorTest* t : selected)
        if (!previous || previous->find({f.display_name, t->tc_id}) == previous->end())
          to_run.push_back(static_cast<std::size_t>(t - f.tests.data()));
      executor.plan(f, std::move(to_run));
    }
    for (const VectorTest* t : selected) {
      if (opt.interrupt && *opt.interrupt) {
        rr.interrupted = true;
        break;
      }
      TestOutcome o;
      const TestKey key{f.display_name, t->tc_id};
      const auto taken = previous ? previous->find(key) : std::map<TestKey, TestOutcome>::const_iterator{};
      if (previous && taken != previous->end()) {
        o = taken->second;  // --resume: done before; its expectation is decided afresh below
      } else if (opt.max_consecutive_faults > 0 && faults_in_a_row >= opt.max_consecutive_faults) {
        o = skipped_outcome(f, *t, faults_in_a_row, last_fault);  // the circuit breaker tripped
      } else {
        const auto start = std::chrono::steady_clock::now();
        const BackendCall call = executor.execute(f, static_cast<std::size_t>(t - f.tests.data()));
        if (call.abandoned) {  // SIGINT/SIGTERM while it ran: not a result
          rr.interrupted = true;
          break;
        }
        o = judge_call(f, *t, call, opt.explainer, explained < opt.explain_limit);
        o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        ran_since_checkpoint = true;
      }
      if (opt.previous) reached.insert(key);
      if (o.verdict == Verdict::Crash || o.verdict == Verdict::Timeout) {
        ++faults_in_a_row;
        last_fault = o.verdict;
      } else if (o.verdict != Verdict::Skipped) {
        faults_in_a_row = 0;
      }
      if (o.conventions) ++explained;
      o.index = positions[in_file++];
      if (o.verdict != Verdict::Pass && o.verdict != Verdict::Unsupported && with_data < opt.data_limit) {
        ++with_data;
        o.data = TestOutcome::Data{t->attributes, t->inputs, t->expected, std::move(o.actual)};
      }
      o.actual.clear();
      apply_expectation(o, opt);
      fr.counts.add(o);
      rr.counts.add(o);
      rr.outcomes.push_back(std::move(o));
      if (opt.observer.test_done) opt.observer.test_done(rr.outcomes.back(), ++done, selected.size());
      if (opt.checkpoint && ran_since_checkpoint &&
          std::chrono::duration<double>(std::chrono::steady_clock::now() - last_checkpoint).count() >=
              opt.checkpoint_seconds) {
        RunResult partial = rr;
        partial.files.push_back(fr);
        partial.interrupted = true;
        partial.shard = opt.shard;
        if (opt.previous) add_unreached(partial, opt, reached);
        opt.checkpoint(partial);
        last_checkpoint = std::chrono::steady_clock::now();
        ran_since_checkpoint = false;
      }
    }
    executor.end_file();
    if (rr.interrupted) {  // keep the finished part of this file; stop
      if (fr.counts.total() > 0) rr.files.push_back(std::move(fr));
      break;
    }
    if (opt.observer.file_done) opt.observer.file_done(fr);
    rr.files.push_back(std::move(fr));
  }
  if (rr.interrupted && opt.previous) add_unreached(rr, opt, reached);
  rr.shard = opt.shard;
  rr.selection_fingerprint = fingerprint_text(fingerprint);
  return rr;
}

}  // namespace qspec::harness
