// The benchmark problems and the registry of implementations: one BM_<op>/<lib>/<shape> per
// (problem, implementation). Third-party adapters add a bench_<lib>.cc that registers an Impl.
//
// Every implementation computes the same exact result (checked once against the qspec backend's
// scalar path before timing), single-threaded:
//   fully_connected  y[m][n] = sum_k (x[m][k] - zx) * w[n][k]       int8 x int8 -> int32
//   conv2d           NHWC int8 input, OIHW int8 weights, stride 1 or 2, zero-point padding k / 2
//                    -> int32 NHWC (the shapes: bench_main.cc's register_all)
//   requantize       int32 -> int8 under one named convention (attributes as in the vectors)
//   add_int8,        qlinear.add / qlinear.mul of two int8 tensors of one shape, or of [N, C] and a
//   mul_int8         per-channel [C], under one named convention (a residual add's scales and zero
//                    points): each implementation checked against the exact reference on a prefix of
//                    the elements, and against the qspec backend on all
//   avg_pool_int8    qlinear.avg_pool2d (3x3 stride 1 pad 1) / qlinear.global_avg_pool of an NHWC int8
//                    tensor (uint8 where the convention is uint8-only: XNNPACK's windowed average) under
//                    one named convention: the qspec backend checked against the exact reference on the
//                    image's first rows (the whole image for the global pool), every other
//                    implementation against the backend on all outputs
// and the int8-output operators (BM_<op>_int8out/...: fully connected / conv2d as the libraries
// ship them, the accumulators requantized to int8 with the scales of Int8Out): each checked
// against its own library's epilogue over the exact accumulators (Epilogue).
//
// A library may register several configurations of one operator (oneDNN: matmul / inner product /
// 1x1 convolution, s8 / u8 source...) as <lib>.<configuration>; bench_ratio compares qspec with
// the fastest exact one and names it.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace qspec::bench {

struct FcProblem {
  std::int64_t m = 1, n = 1, k = 1;
  std::int32_t zx = 3;  // activation zero point (weights symmetric, as in XNNPACK qs8)
  std::vector<std::int8_t> x, w;
  std::string shape() const;
  double ops() const { return 2.0 * static_cast<double>(m * n * k); }  // 2 ops per MAC
};

struct ConvProblem {
  std::int64_t h = 1, w = 1, c = 1, o = 1, k = 1, stride = 1, pad = 0, groups = 1;
  std::int32_t zx = 3;
  std::vector<std::int8_t> x, wt;  // NHWC input, OIHW weights
  std::int64_t oh() const { return (h + 2 * pad - k) / stride + 1; }
  std::int64_t ow() const { return (w + 2 * pad - k) / stride + 1; }
  std::string shape() const;
  double ops() const { return 2.0 * static_cast<double>(oh() * ow() * o * (c / groups) * k * k); }
};

struct RequantProblem {
  std::string convention;
  nlohmann::ordered_json attrs;  // the vector vocabulary (spec/*.md "Vector attributes")
  std::vector<std::int32_t> x;
  std::string shape() const;
  double bytes() const { return 5.0 * static_cast<double>(x.size()); }  // 4 read + 1 written
};

struct EwProblem {
  std::string convention, dims;  // dims: "2^16", "56x56x64", "3136x64_by_64" (a per-channel b)
  nlohmann::ordered_json attrs;  // the vector vocabulary of qlinear.add / qlinear.mul
  std::vector<std::int8_t> a, b;  // b: a's shape, or one row of `channels` codes
  bool mul = false;               // qlinear.mul (else qlinear.add)
  std::size_t channels = 0;       // 0: b has a's shape; else a is [a.size() / channels, channels], b [channels]
  std::string shape() const { return convention + "_" + dims; }
  std::string bm() const { return mul ? "BM_mul_int8" : "BM_add_int8"; }
  // a and b read, y written
  double bytes() const { return static_cast<double>(2 * a.size() + b.size()); }
};

struct PoolProblem {
  std::string op, convention, dims;  // op: qlinear.avg_pool2d or qlinear.global_avg_pool; dims "56x56x64_3x3"
  nlohmann::ordered_json attrs;      // the vector vocabulary of the op
  bool u8 = false;                   // uint8 codes (else int8)
  std::int64_t h = 1, w = 1, c = 1, k = 1, stride = 1, pad = 0;  // global: k = h = w, no padding
  std::vector<std::uint8_t> x;                                   // NHWC codes, N = 1
  bool global() const { return op.find("global") != std::string::npos; }
  std::int64_t oh() const { return global() ? 1 : (h + 2 * pad - k) / stride + 1; }
  std::int64_t ow() const { return global() ? 1 : (w + 2 * pad - k) / stride + 1; }
  std::string shape() const { return convention + (u8 ? "_u8_" : "_") + dims; }
  double bytes() const { return static_cast<double>(x.size() + static_cast<std::size_t>(oh() * ow() * c)); }
};

// A prepared run: everything that can be done once (weight packing...) is done before.
using Runner = std::function<void()>;

// The requantization of the int8-output operators: input scale 0.5, weight scale 1/64, output
// scale 1 (so acc * 2^-7, exact in binary32), output zero point -3 (odd: ties to even then tell
// the two epilogues apart).
struct Int8Out {
  static constexpr float kInScale = 0.5f, kWeightScale = 1.0f / 64, kOutScale = 1.0f;
  static constexpr float kScale = kInScale * kWeightScale / kOutScale;
  static constexpr int kOutZp = -3;
};
// How a library forms the int8 output from the accumulator: XNNPACK (and qspec's xnnpack.fp32
// convention) sat(rne(acc * s) + zp); oneDNN sat(rne(acc * s + zp)).
// kQ31DoubleRounding: TFLite's double rounding of the same scale (M = 2^30 in Q31, a right shift
// of 6), sat(RDBPOT(SRDHM(acc, 2^30), 6) + zp).
enum class Epilogue { kZpAfterRounding, kZpBeforeRounding, kQ31DoubleRounding };
std::int8_t epilogue(std::int64_t acc, Epilogue e);

// What a runner factory may say about the run it prepared (e.g. oneDNN's implementation name,
// the dispatched ISA): the driver clears it, calls the factory and puts it in the benchmark's label.
std::string& runner_label();

struct Impl {
  std::string lib;  // the <lib> of BM_<op>/<lib>/<shape>
  // Each returns a runner writing into the given output, or an empty function if unsupported.
  std::function<Runner(const FcProblem&, std::int32_t* y)> fc;
  std::function<Runner(const ConvProblem&, std::int32_t* y)> conv;
  std::function<Runner(const RequantProblem&, std::int8_t* y)> requant;
  // The int8-output operators (scales of Int8Out), and the epilogue they compute.
  std::function<Runner(const FcProblem&, std::int8_t* y)> fc8;
  std::function<Runner(const ConvProblem&, std::int8_t* y)> conv8;
  // qlinear.add / qlinear.mul under the problem's convention (empty runner: the library has no such operator).
  std::function<Runner(const EwProblem&, std::int8_t* y)> ew8;
  // The average pooling under the problem's convention (empty runner: the library has no such operator).
  std::function<Runner(const PoolProblem&, std::uint8_t* y)> pool8;
  Epilogue int8_epilogue = Epilogue::kZpAfterRounding;
  // Problems too slow for this implementation at full size are shrunk by this factor along M /
  // output rows / elements (the counters stay per-op rates, so they compare).
  int shrink = 1;
};

// A library's implementation of the add / mul rows alone (its other operators register separately).
inline Impl ew_impl(std::string lib, std::function<Runner(const EwProblem&, std::int8_t* y)> ew) {
  Impl i;
  i.lib = std::move(lib);
  i.ew8 = std::move(ew);
  return i;
}

// A library's implementation of the average-pooling rows alone.
inline Impl pool_impl(std::string lib, std::function<Runner(const PoolProblem&, std::uint8_t* y)> pool) {
  Impl i;
  i.lib = std::move(lib);
  i.pool8 = std::move(pool);
  return i;
}

std::vector<Impl>& impls();
bool register_impl(Impl impl);

#define QSPEC_BENCH_CAT2(a, b) a##b
#define QSPEC_BENCH_CAT(a, b) QSPEC_BENCH_CAT2(a, b)
#define QSPEC_REGISTER_BENCH_IMPL(...)                                              \
  [[maybe_unused]] static const bool QSPEC_BENCH_CAT(qspec_bench_impl_, __LINE__) = \
      ::qspec::bench::register_impl(__VA_ARGS__)

}  // namespace qspec::bench
