// The exec protocol's choice of tensor encoding, measured on qspec's side (docs/exec-protocol.md):
// one int32 tensor encoded and decoded as the binary frame's little-endian bytes, and as the
// vector files' JSON encoding ({"dtype", "shape", "data": [...]}), at sizes from 64 elements to
// 4 Mi elements. bench/exec_encoding.py measures the same on a Python client's side.
#include <benchmark/benchmark.h>

#include <cstring>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "qspec/core/abi_tensor.h"
#include "qspec/core/json_values.h"

namespace {

qspec::Tensor make_tensor(std::int64_t n) {
  qspec::Tensor t{"x", qspec::DType::I32, {n}, {}};
  std::mt19937 rng(1);
  std::uniform_int_distribution<std::int32_t> d(INT32_MIN, INT32_MAX);
  t.data.resize(static_cast<std::size_t>(n));
  for (auto& v : t.data) v = d(rng);
  return t;
}

void BM_binary_frame(benchmark::State& state) {
  const qspec::Tensor t = make_tensor(state.range(0));
  std::string bytes;
  for (auto _ : state) {
    bytes.resize(t.data.size() * 4);  // encode (qspec, a request) ...
    for (std::size_t i = 0; i < t.data.size(); ++i) qspec::store_element(t.dtype, bytes.data(), i, t.data[i]);
    qspec::Tensor back{t.name, t.dtype, t.shape, std::vector<std::int64_t>(t.data.size())};
    for (std::size_t i = 0; i < back.data.size(); ++i)  // ... and decode (qspec, a reply)
      back.data[i] = qspec::load_element(t.dtype, bytes.data(), i);
    benchmark::DoNotOptimize(back.data.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * state.range(0) * 4);
  state.counters["frame_bytes"] = static_cast<double>(bytes.size());
}

void BM_json_vector_encoding(benchmark::State& state) {
  const qspec::Tensor t = make_tensor(state.range(0));
  std::string text;
  for (auto _ : state) {
    text = qspec::tensor_to_json(t).dump();
    const qspec::Tensor back = qspec::json_to_tensor(t.name, nlohmann::ordered_json::parse(text));
    benchmark::DoNotOptimize(back.data.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * state.range(0) * 4);
  state.counters["frame_bytes"] = static_cast<double>(text.size());
}

BENCHMARK(BM_binary_frame)->RangeMultiplier(16)->Range(64, 4 << 20)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_json_vector_encoding)->RangeMultiplier(16)->Range(64, 4 << 20)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
