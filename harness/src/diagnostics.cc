// Output comparison, value formatting and convention naming for failing tests.
#include "qspec/harness/diagnostics.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>

namespace qspec::harness {

std::string format_element(DType t, std::int64_t stored) {
  char buf[96];
  if (t == DType::F32) {
    const auto bits = static_cast<std::uint32_t>(stored);
    float f;
    std::memcpy(&f, &bits, 4);
    std::snprintf(buf, sizeof buf, "0x%08" PRIx32 " (%.9g)", bits, static_cast<double>(f));
    return buf;
  }
  if (t == DType::F64) {
    const auto bits = static_cast<std::uint64_t>(stored);
    double d;
    std::memcpy(&d, &bits, 8);
    std::snprintf(buf, sizeof buf, "0x%016" PRIx64 " (%.17g)", bits, d);
    return buf;
  }
  return std::to_string(stored);
}

std::string format_index(const std::vector<std::int64_t>& shape, std::int64_t flat) {
  std::vector<std::int64_t> idx(shape.size(), 0);
  for (std::size_t k = shape.size(); k-- > 0;) {
    if (shape[k] > 0) {
      idx[k] = flat % shape[k];
      flat /= shape[k];
    }
  }
  std::string s = "[";
  for (std::size_t k = 0; k < idx.size(); ++k) s += (k ? ", " : "") + std::to_string(idx[k]);
  return s + "]";
}

std::string format_tensor(const Tensor& t, std::size_t max_elements) {
  std::string s = t.name + " " + std::string(dtype_name(t.dtype)) + "[";
  for (std::size_t k = 0; k < t.shape.size(); ++k) s += (k ? "," : "") + std::to_string(t.shape[k]);
  s += "] = [";
  const std::size_t n = t.data.size();
  const bool cut = n > max_elements;
  const std::size_t head = cut ? max_elements / 2 : n;
  for (std::size_t i = 0; i < head; ++i) s += (i ? ", " : "") + format_element(t.dtype, t.data[i]);
  if (cut) {
    s += ", ...";
    for (std::size_t i = n - max_elements / 4; i < n; ++i) s += ", " + format_element(t.dtype, t.data[i]);
    s += "] (" + std::to_string(n) + " elements)";
    return s;
  }
  return s + "]";
}

Comparison compare_outputs(const std::vector<Tensor>& expected, const std::vector<Tensor>& actual) {
  Comparison c;
  if (expected.size() != actual.size()) {
    c.equal = false;
    c.structural = std::to_string(actual.size()) + " outputs, expected " + std::to_string(expected.size());
    return c;
  }
  for (std::size_t k = 0; k < expected.size(); ++k) {
    const Tensor& e = expected[k];
    const Tensor& a = actual[k];
    if (e.name != a.name || e.dtype != a.dtype || e.shape != a.shape || e.data.size() != a.data.size()) {
      c.equal = false;
      c.structural = "output '" + a.name + "' (" + std::string(dtype_name(a.dtype)) + ") does not line up with expected '" +
                     e.name + "' (" + std::string(dtype_name(e.dtype)) + ")";
      return c;
    }
    c.total += static_cast<std::int64_t>(e.data.size());
    for (std::size_t i = 0; i < e.data.size(); ++i) {
      if (e.data[i] == a.data[i]) continue;
      c.equal = false;
      ++c.differing;
      if (!c.first) {
        ElementDifference d;
        d.output = e.name;
        d.flat_index = static_cast<std::int64_t>(i);
        std::int64_t flat = d.flat_index;
        d.index.assign(e.shape.size(), 0);
        for (std::size_t j = e.shape.size(); j-- > 0;)
          if (e.shape[j] > 0) {
            d.index[j] = flat % e.shape[j];
            flat /= e.shape[j];
          }
        d.expected = format_element(e.dtype, e.data[i]);
        d.actual = format_element(a.dtype, a.data[i]);
        c.first = d;
      }
    }
  }
  return c;
}

ConventionExplainer::ConventionExplainer(const Backend* reference) : ref_(reference) {
  if (ref_) {
    try {
      caps_ = ref_->capabilities();
    } catch (const std::exception&) {
      ref_ = nullptr;
    }
  }
}

ConventionReport ConventionExplainer::explain(const std::string& op, const std::string& spec_convention,
                                              const std::string& attrs_json, const std::vector<Tensor>& inputs,
                                              const std::vector<Tensor>& expected, const std::vector<Tensor>& actual) const {
  ConventionReport r;
  if (!ref_) return r;
  r.available = true;
  for (const auto& cap : caps_) {
    if (cap.op != op) continue;
    if (cap.convention == spec_convention) {
      r.spec_description = cap.description;
      continue;
    }
    const BackendResult br = ref_->run(op, cap.convention, attrs_json, inputs, expected);
    if (br.status != QSPEC_STATUS_OK) continue;  // rejects, or cannot read these attributes: does not apply
    const Comparison c = compare_outputs(br.outputs, actual);
    if (!c.structural.empty()) continue;
    ++r.evaluated;
    ConventionMatch m{cap.convention, cap.description, cap.diagnostic_only, c.differing};
    if (c.equal) r.matches.push_back(m);
    else if (!r.closest || m.differing < r.closest->differing) r.closest = m;
  }
  return r;
}

std::string describe_conventions(const std::string& op, const std::string& spec_convention, const ConventionReport& r) {
  if (!r.available) return "";
  std::string s;
  if (!r.matches.empty()) {
    s = "your result matches ";
    for (std::size_t i = 0; i < r.matches.size(); ++i) {
      const auto& m = r.matches[i];
      s += (i ? ", " : "") + m.convention + (m.description.empty() ? "" : " (" + m.description + ")");
    }
  } else if (r.evaluated == 0) {
    s = "no other registered convention of '" + op + "' applies to these inputs";
  } else {
    s = "none of the " + std::to_string(r.evaluated) + " other registered conventions of '" + op + "' reproduces your result";
    if (r.closest)
      s += " (closest: " + r.closest->convention + ", " + std::to_string(r.closest->differing) + " element" +
           (r.closest->differing == 1 ? "" : "s") + " differ)";
  }
  s += "; the spec (" + spec_convention + ") says" + (r.spec_description.empty() ? " otherwise" : ": " + r.spec_description);
  return s;
}

}  // namespace qspec::harness
