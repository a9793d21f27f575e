// Writes a failing property case as a one-test golden-vector file, for `qspec sweep`.
//
// When the environment variable QSPEC_COUNTEREXAMPLE_DIR is set, a property declares its case with
// QSPEC_RECORD_COUNTEREXAMPLE(...) after drawing its inputs; if the property body then fails (an
// exception unwinds through the recorder), the case is written to
// $QSPEC_COUNTEREXAMPLE_DIR/<property>.json in the qspec-vectors/1 layout. RapidCheck re-runs the
// body while shrinking and adopts every smaller failing case, so the file left last holds the
// shrunk counterexample. The expected outputs are the reference's, so the file is a regression
// vector ready to add under vectors/ once the bug it shows is fixed. Without the variable the
// recorder does nothing.
#pragma once

#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "qspec/ref/ops/nn.h"

namespace qspec::opstest {

using NamedArrays = std::vector<std::pair<std::string, ref::ops::IntArray>>;

// A float32 element of a vector file: its bit pattern as "0x" + 8 hex digits.
inline std::string counterexample_f32_hex(const ref::Int& bits) {
  static const char* digits = "0123456789abcdef";
  auto v = static_cast<unsigned long long>(bits);
  std::string s = "0x";
  for (int i = 7; i >= 0; --i) s += digits[(v >> (4 * i)) & 0xfu];
  return s;
}

// `dtype` names the vector dtype ("int8", "float32" with bit-pattern data, ...); empty: int32, or
// int64 when a value needs it.
inline nlohmann::ordered_json counterexample_tensor(const ref::ops::IntArray& a, const std::string& dtype = "") {
  nlohmann::ordered_json t;
  bool fits32 = true;
  for (const auto& v : a.data) fits32 = fits32 && v >= -(ref::Int(1) << 31) && v < (ref::Int(1) << 31);
  t["dtype"] = !dtype.empty() ? dtype : fits32 ? "int32" : "int64";
  t["shape"] = a.shape;
  t["data"] = nlohmann::ordered_json::array();
  for (const auto& v : a.data) {
    if (dtype == "float32")
      t["data"].push_back(nlohmann::ordered_json(counterexample_f32_hex(v)));
    else if (ref::abs(v) <= (ref::Int(1) << 53))
      t["data"].push_back(static_cast<long long>(v));
    else
      t["data"].push_back(v.str());
  }
  return t;
}

class CounterexampleRecorder {
 public:
  // `dtypes` optionally names the vector dtype of tensors by name (default: int32/int64).
  CounterexampleRecorder(std::string property, std::string op, std::string convention, std::vector<std::string> clauses,
                         nlohmann::ordered_json attrs, NamedArrays inputs, NamedArrays expected,
                         std::map<std::string, std::string> dtypes = {})
      : property_(std::move(property)), op_(std::move(op)), convention_(std::move(convention)), clauses_(std::move(clauses)),
        attrs_(std::move(attrs)), inputs_(std::move(inputs)), expected_(std::move(expected)), dtypes_(std::move(dtypes)),
        uncaught_(std::uncaught_exceptions()) {}
  CounterexampleRecorder(const CounterexampleRecorder&) = delete;
  CounterexampleRecorder& operator=(const CounterexampleRecorder&) = delete;
  ~CounterexampleRecorder() {
    if (std::uncaught_exceptions() <= uncaught_) return;
    const char* dir = std::getenv("QSPEC_COUNTEREXAMPLE_DIR");
    if (!dir || !*dir) return;
    try {
      write(dir);
    } catch (...) {  // never throw from a destructor during unwinding
    }
  }

 private:
  void write(const std::string& dir) const {
    nlohmann::ordered_json doc, test, ins, outs;
    for (const auto& [n, a] : inputs_) ins[n] = counterexample_tensor(a, dtype_of(n));
    for (const auto& [n, a] : expected_) outs[n] = counterexample_tensor(a, dtype_of(n));
    test["tcId"] = 1;
    test["comment"] = "shrunk counterexample of property " + property_;
    test["flags"] = nlohmann::ordered_json::array();
    test["result"] = "valid";
    test["inputs"] = ins;
    test["expected"] = outs;
    doc["schema"] = "qspec-vectors/1";
    doc["op"] = op_;
    doc["convention"] = convention_;
    doc["clauses"] = clauses_;
    doc["generator"] = {{"tool", "qspec sweep"}, {"property", property_}};
    doc["numberOfTests"] = 1;
    doc["notes"] = nlohmann::ordered_json::object();
    doc["testGroups"] = nlohmann::ordered_json::array({{{"attributes", attrs_}, {"tests", {test}}}});
    std::filesystem::create_directories(dir);
    std::ofstream(std::filesystem::path(dir) / (property_ + ".json")) << doc.dump(1) << "\n";
  }

  std::string dtype_of(const std::string& name) const {
    const auto it = dtypes_.find(name);
    return it == dtypes_.end() ? std::string() : it->second;
  }

  std::string property_, op_, convention_;
  std::vector<std::string> clauses_;
  nlohmann::ordered_json attrs_;
  NamedArrays inputs_, expected_;
  std::map<std::string, std::string> dtypes_;
  int uncaught_;
};

// The backend-ABI attributes of a Convolution (spec/operators_mrt.md, "Vector attributes").
inline nlohmann::ordered_json conv_attrs_json(const ref::ops::Conv2dAttrs& a, const ref::Int& pad_value) {
  return {{"strides", a.stride}, {"padding", a.padding}, {"dilation", a.dilation}, {"groups", a.groups},
          {"pad_value", static_cast<long long>(pad_value)}};
}

}  // namespace qspec::opstest

#define QSPEC_RECORD_COUNTEREXAMPLE(var, ...) ::qspec::opstest::CounterexampleRecorder var(__VA_ARGS__)
