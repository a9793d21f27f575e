// Benchmark driver: builds the problems, checks every implementation's result, registers
// BM_<op>/<lib>/<shape> for each (single-threaded) and runs Google Benchmark.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <new>
#include <random>
#include <set>
#include <string>

#include "bench_problems.h"
#include "qspec/catalogue/keys.h"
#include "qspec/core/attr.h"
#include "qspec/core/catalogue.h"
#include "qspec/refops.h"

namespace qspec::bench {

std::vector<Impl>& impls() {
  static std::vector<Impl> v;
  return v;
}
bool register_impl(Impl impl) {
  impls().push_back(std::move(impl));
  return true;
}

std::int8_t epilogue(std::int64_t acc, Epilogue e) {
  if (e == Epilogue::kQ31DoubleRounding) {
    // SRDHM(acc, 2^30) = floor((acc * 2^30 + 2^30) / 2^31) = floor((acc + 1) / 2) (no saturation:
    // the accumulators are far from INT32_MIN); RDBPOT(h, 6) rounds h / 64 half away from zero.
    const std::int64_t h = (acc + 1) >> 1;  // C++20: arithmetic shift = floor
    const std::int64_t q = h >= 0 ? (h + 32) >> 6 : -((-h + 32) >> 6);
    return static_cast<std::int8_t>(std::clamp<std::int64_t>(q + Int8Out::kOutZp, -128, 127));
  }
  // acc * 2^-7 is exact in binary32 for the benchmarks' accumulators (< 2^24 in magnitude).
  const float v = static_cast<float>(acc) * Int8Out::kScale;
  const long r = e == Epilogue::kZpAfterRounding ? std::lrint(v) + Int8Out::kOutZp
                                                 : std::lrint(v + static_cast<float>(Int8Out::kOutZp));
  return static_cast<std::int8_t>(std::clamp<long>(r, -128, 127));
}

std::string& runner_label() {
  static std::string s;
  return s;
}

std::string FcProblem::shape() const {
  return "M" + std::to_string(m) + "_N" + std::to_string(n) + "_K" + std::to_string(k);
}
std::string ConvProblem::shape() const {
  std::string s = std::to_string(h) + "x" + std::to_string(w) + "x" + std::to_string(c) + "_";
  const std::string st = stride == 1 ? "" : "_s" + std::to_string(stride);
  if (groups == c && o == c) return s + "dw" + std::to_string(k) + "x" + std::to_string(k) + st;
  return s + std::to_string(o) + "_" + std::to_string(k) + "x" + std::to_string(k) + st;
}
std::string RequantProblem::shape() const {
  std::size_t lg = 0;
  while ((std::size_t{1} << lg) < x.size()) ++lg;
  return convention + "_2^" + std::to_string(lg);
}

namespace {

std::mt19937_64& rng() {
  static std::mt19937_64 r(20261121);
  return r;
}
template <class T>
std::vector<T> random_bytes(std::size_t n) {
  std::vector<T> v(n);
  for (auto& x : v) x = static_cast<T>(rng()());
  return v;
}

FcProblem make_fc(std::int64_t m, std::int64_t n, std::int64_t k) {
  FcProblem p;
  p.m = m;
  p.n = n;
  p.k = k;
  p.x = random_bytes<std::int8_t>(static_cast<std::size_t>(m * k));
  p.w = random_bytes<std::int8_t>(static_cast<std::size_t>(n * k));
  return p;
}

ConvProblem make_conv(std::int64_t h, std::int64_t w, std::int64_t c, std::int64_t o, std::int64_t k,
                      std::int64_t groups, std::int64_t stride = 1) {
  ConvProblem p;
  p.h = h;
  p.w = w;
  p.c = c;
  p.o = o;
  p.k = k;
  p.stride = stride;
  p.pad = k / 2;
  p.groups = groups;
  p.x = random_bytes<std::int8_t>(static_cast<std::size_t>(h * w * c));
  p.wt = random_bytes<std::int8_t>(static_cast<std::size_t>(o * (c / groups) * k * k));
  return p;
}

// One requantization problem per normative requantize convention of the catalogue, with
// parameters typical of an int8 layer (scale ~2^-10): the first of the parameter sets below whose
// attributes are exactly the convention's and which its reference op accepts. A convention none of
// them fits is named on stderr: a new convention is benchmarked, or visibly not, never forgotten.
std::vector<RequantProblem> make_requants(std::size_t n) {
  std::vector<std::int32_t> x(n);
  for (auto& v : x) v = static_cast<std::int32_t>(static_cast<std::int64_t>(rng()() % (1u << 22)) - (1 << 21));
  using J = nlohmann::ordered_json;
  using R = cat::requantize;
  auto fixed_point = [](std::int64_t m) {
    J a;
    attr::set(a, R::attr::multiplier, m);
    attr::set(a, R::attr::shift, -9);
    attr::set(a, R::attr::output_zero_point, 3);
    attr::set(a, R::attr::out_dtype, DType::I8);
    return a;
  };
  const J q31 = fixed_point(1518500250), scale16 = fixed_point(1518469120);  // scale16: a multiple of 2^16
  J legacy, fl, tvm;
  attr::set(legacy, R::attr::result_offset, 5);
  attr::set(legacy, R::attr::result_mult_int, 181);
  attr::set(legacy, R::attr::result_shift, 17);
  attr::set(legacy, R::attr::out_dtype, DType::I8);
  attr::set(fl, R::attr::scale, 0x3ab504f3u);
  attr::set(fl, R::attr::output_zero_point, 3);
  attr::set(fl, R::attr::out_dtype, DType::I8);
  attr::set(tvm, R::attr::input_scale, 0x3b800000u);
  attr::set(tvm, R::attr::input_zero_point, 0);
  attr::set(tvm, R::attr::output_scale, 0x40b504f3u);
  attr::set(tvm, R::attr::output_zero_point, 3);
  attr::set(tvm, R::attr::out_dtype, DType::I8);
  const Tensor sample{std::string(R::in::x), DType::I32, {4}, {x[0], x[1], x[2], x[3]}};
  auto fits = [&](const catalogue::ConventionSpec& c, const J& a) {
    std::set<std::string> given, wanted(c.attributes.begin(), c.attributes.end());
    for (const auto& [k, v] : a.items()) given.insert(k);
    if (given != wanted) return false;
    try {
      refops::find_op(R::op, c.name)->fn(a, {sample});
      return true;
    } catch (const std::exception&) {
      return false;
    }
  };
  std::vector<RequantProblem> v;
  for (const auto& c : catalogue::get().op(R::op)->conventions) {
    if (c.diagnostic_only) continue;
    bool found = false;
    for (const J* a : std::initializer_list<const J*>{&q31, &scale16, &legacy, &fl, &tvm})
      if (!found && fits(c, *a)) {
        v.push_back(RequantProblem{c.name, *a, x});  // NOLINT: all three fields given
        found = true;
      }
    if (!found)
      std::fprintf(stderr, "bench_kernels: no typical parameters fit requantize / %s: not benchmarked\n",
                   c.name.c_str());
  }
  return v;
}

// qlinear.add / qlinear.mul problems: every convention the libraries in the benchmark implement
// (XNNPACK's qs8 add and multiply, oneDNN's binary add and mul, libtorch's quantized::add) and qspec's
// other vectorized ones, on 2^16 and 2^20 elements and a ResNet residual add (56x56x64), and the
// same 56x56x64 against a per-channel row of 64 (3136x64_by_64). A residual add's parameters: scales of
// similar size, not powers of two, nonzero zero points (oneDNN's binary primitive has no source
// zero points: 0 there; and pytorch.onednn's, where only 0 makes ATen's vector path compute the
// convention: E-LIBTORCH-EW-1). mul's output scale makes the product ratio about 1/12.
std::vector<EwProblem> make_elementwise() {
  using A = cat::qlinear_add;
  std::vector<EwProblem> v;
  struct Size {
    const char* dims;
    std::size_t n, channels;
  };
  const Size sizes[] = {{"2^16", std::size_t{1} << 16, 0},
                        {"2^20", std::size_t{1} << 20, 0},
                        {"56x56x64", std::size_t{56 * 56 * 64}, 0},
                        {"3136x64_by_64", std::size_t{56 * 56 * 64}, 64}};
  for (const auto& [dims, n, channels] : sizes) {
    const std::vector<std::int8_t> a = random_bytes<std::int8_t>(n), b = random_bytes<std::int8_t>(channels ? channels : n);
    for (bool mul : {false, true})
      for (std::string_view conv : {A::conv::xnnpack_fp32, A::conv::onnxruntime, A::conv::tflite_double_round,
                                    A::conv::tflite_single_round, A::conv::onednn, A::conv::pytorch_onednn}) {
        const bool zero_zp = conv == A::conv::onednn || conv == A::conv::pytorch_onednn;
        nlohmann::ordered_json at;  // qlinear.mul's attributes have the same names
        attr::set(at, A::attr::a_scale, std::bit_cast<std::uint32_t>(0.0371f));
        attr::set(at, A::attr::a_zero_point, zero_zp ? 0 : -3);
        attr::set(at, A::attr::b_scale, std::bit_cast<std::uint32_t>(0.0518f));
        attr::set(at, A::attr::b_zero_point, zero_zp ? 0 : 5);
        attr::set(at, A::attr::y_scale, std::bit_cast<std::uint32_t>(mul ? 0.0229f : 0.0729f));
        attr::set(at, A::attr::y_zero_point, -2);
        v.push_back(EwProblem{std::string(conv), dims, at, a, b, mul, channels});
      }
  }
  return v;
}

// The exact reference's qlinear.add / qlinear.mul of the first n elements of a (n a multiple of the
// channels: [n / C, C] against [C]; else both 1-D: the op is elementwise), or an empty vector if it
// rejects the problem.
std::vector<std::int8_t> reference_ew(const EwProblem& p, std::size_t n) {
  using A = cat::qlinear_add;
  const refops::OpImpl* op = refops::find_op(p.mul ? cat::qlinear_mul::op : A::op, p.convention);
  if (!op) return {};
  const auto c = static_cast<std::int64_t>(p.channels);
  const std::vector<std::int64_t> sa = c ? std::vector<std::int64_t>{static_cast<std::int64_t>(n) / c, c}
                                         : std::vector<std::int64_t>{static_cast<std::int64_t>(n)};
  Tensor a{std::string(A::in::a), DType::I8, sa, {}};
  Tensor b{std::string(A::in::b), DType::I8, c ? std::vector<std::int64_t>{c} : sa, {}};
  a.data.assign(p.a.begin(), p.a.begin() + static_cast<std::ptrdiff_t>(n));
  b.data.assign(p.b.begin(), p.b.begin() + static_cast<std::ptrdiff_t>(c ? p.channels : n));
  std::vector<std::int8_t> y;
  try {
    const std::vector<Tensor> out = op->fn(p.attrs, {a, b});  // kept: a range-for over out[0].data of the
    for (const std::int64_t v : out[0].data) y.push_back(static_cast<std::int8_t>(v));  // temporary would dangle
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench: the reference rejects %s / %s: %s\n", op->op.c_str(), p.convention.c_str(),
                 e.what());
  }
  return y;
}

// Average-pooling problems: a ResNet-style 3x3 stride-1 pad-1 average over 56x56x64 and a
// classifier's global average of 7x7x1024, under every convention with a pooling kernel that a
// library in the benchmark implements (XNNPACK: qu8 windowed, qs8 global; oneDNN's s8 pooling; ATen's
// quantized average) and qspec's other vectorized ones. Parameters: a scale ratio near 1, not a power
// of two, nonzero zero points, where the convention allows them (TFLite and oneDNN take the output's
// parameters equal to the input's; ATen's have no output parameters; XNNPACK's windowed operator is
// uint8 only, and counts the padding).
std::vector<PoolProblem> make_pools() {
  using P = cat::qlinear_avg_pool2d;
  using G = cat::qlinear_global_avg_pool;
  std::vector<PoolProblem> v;
  for (const bool global : {false, true}) {
    PoolProblem base;
    base.op = std::string(global ? G::op : P::op);
    if (global)
      base.h = base.w = base.k = 7, base.c = 1024, base.dims = "7x7x1024";
    else
      base.h = base.w = 56, base.c = 64, base.k = 3, base.pad = 1, base.dims = "56x56x64_3x3";
    const auto n = static_cast<std::size_t>(base.h * base.w * base.c);
    const std::vector<std::uint8_t> x = random_bytes<std::uint8_t>(n);
    for (std::string_view conv : {P::conv::xnnpack_fp32, P::conv::onnxruntime, P::conv::tflite_double_round,
                                  P::conv::onednn, P::conv::pytorch_onednn}) {
      PoolProblem p = base;
      p.convention = std::string(conv);
      p.x = x;
      p.u8 = !global && conv == P::conv::xnnpack_fp32;
      const bool same = conv == P::conv::tflite_double_round || conv == P::conv::onednn;
      const std::int64_t zx = p.u8 ? 131 : -3, zy = same ? zx : (p.u8 ? 125 : -2);
      nlohmann::ordered_json at;
      if (!global) {
        attr::set(at, P::attr::kernel, {p.k, p.k});
        attr::set(at, P::attr::strides, {1, 1});
        attr::set(at, P::attr::pads, {p.pad, p.pad, p.pad, p.pad});
        // XNNPACK and ATen count the padding (XNNPACK always, PyTorch by default); the others not.
        attr::set(at, P::attr::count_include_pad, conv == P::conv::xnnpack_fp32 || conv == P::conv::pytorch_onednn);
      }
      attr::set(at, P::attr::x_scale, std::bit_cast<std::uint32_t>(0.0371f));
      attr::set(at, P::attr::x_zero_point, zx);
      if (conv != P::conv::pytorch_onednn) {
        attr::set(at, P::attr::y_scale, std::bit_cast<std::uint32_t>(same ? 0.0371f : 0.0412f));
        attr::set(at, P::attr::y_zero_point, zy);
      }
      p.attrs = std::move(at);
      v.push_back(std::move(p));
    }
  }
  return v;
}

// The exact reference's average pooling of a problem, or an empty vector if it rejects it.
std::vector<std::uint8_t> reference_pool(const PoolProblem& p) {
  const refops::OpImpl* op = refops::find_op(p.op, p.convention);
  if (!op) return {};
  Tensor x{std::string(cat::qlinear_avg_pool2d::in::x), p.u8 ? DType::U8 : DType::I8, {1, p.h, p.w, p.c}, {}};
  for (const std::uint8_t b : p.x) x.data.push_back(p.u8 ? std::int64_t{b} : std::int64_t{static_cast<std::int8_t>(b)});
  std::vector<std::uint8_t> y;
  try {
    const std::vector<Tensor> out = op->fn(p.attrs, {x});
    for (const std::int64_t v : out[0].data) y.push_back(static_cast<std::uint8_t>(v));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench: the reference rejects %s / %s: %s\n", p.op.c_str(), p.convention.c_str(), e.what());
  }
  return y;
}

// The first rows of a windowed problem (every window shape of the image: both paddings), where the
// reference checks the judge (the rationals would take minutes on the whole image).
PoolProblem first_rows(const PoolProblem& p, std::int64_t rows) {
  if (p.global() || p.h <= rows) return p;
  PoolProblem q = p;
  q.h = rows;
  q.x.resize(static_cast<std::size_t>(rows * p.w * p.c));
  return q;
}

// A shrunk copy of a problem for slow implementations (fewer rows / elements, same data source).
FcProblem shrink(const FcProblem& p, int f) {
  if (f <= 1) return p;
  FcProblem q = make_fc(std::max<std::int64_t>(1, p.m / f), std::max<std::int64_t>(16, p.n / f), p.k);
  q.zx = p.zx;
  return q;
}
ConvProblem shrink(const ConvProblem& p, int f) {
  if (f <= 1) return p;
  return make_conv(std::max<std::int64_t>(4, p.h / f), std::max<std::int64_t>(4, p.w / f), p.c, p.o, p.k, p.groups,
                   p.stride);
}
RequantProblem shrink(const RequantProblem& p, int f) {
  if (f <= 1) return p;
  RequantProblem q = p;
  q.x.resize(std::max<std::size_t>(1024, p.x.size() / static_cast<std::size_t>(f)));
  return q;
}

// What comparing an implementation's outputs with the judge's found. An inexact implementation is
// not timed, unless QSPEC_BENCH_TIME_INEXACT is set (compare.sh sets it in its ISA-class run: there
// a library's fast paths may be inexact, e.g. oneDNN's VPMADDUBSW pairs saturating int16 without
// VNNI, and how fast the inexact path runs is worth knowing); its row's label then says so, and
// bench_ratio never picks it as the library's fastest.
struct Agreement {
  bool runs = false;    // the implementation has a runner for this problem
  std::string inexact;  // empty: every output equal; else how many differ, and the first
  bool timed() const {
    static const bool time_inexact = std::getenv("QSPEC_BENCH_TIME_INEXACT") != nullptr;
    return runs && (inexact.empty() || time_inexact);
  }
};

// "inexact: k of n outputs differ (output i: got g, expected e)", the label prefix of an inexact row.
template <class Out, class Want>
std::string mismatch(const std::vector<Out>& got, Want want_of) {
  std::size_t differ = 0, first = 0;
  for (std::size_t i = got.size(); i-- > 0;)
    if (static_cast<long long>(got[i]) != static_cast<long long>(want_of(i))) {
      ++differ;
      first = i;
    }
  if (differ == 0) return {};
  return "inexact: " + std::to_string(differ) + " of " + std::to_string(got.size()) + " outputs differ (output " +
         std::to_string(first) + ": " + std::to_string(static_cast<long long>(got[first])) + ", expected " +
         std::to_string(static_cast<long long>(want_of(first))) + ")";
}

// The first implementation ("avx2", registered first) is the judge of the others' outputs.
template <class P, class Out, class Get>
Agreement check(const P& p, Get get_runner, const Impl& judge, const Impl& impl, std::size_t n_out) {
  std::vector<Out> want(n_out), got(n_out);
  Runner rj = get_runner(judge)(p, want.data());
  Runner ri = get_runner(impl)(p, got.data());
  if (!rj || !ri) return {static_cast<bool>(ri), {}};
  rj();
  ri();
  Agreement a{true, mismatch(got, [&](std::size_t i) { return want[i]; })};
  if (!a.inexact.empty())
    std::fprintf(stderr, "bench: %s disagrees with %s on %s (%s): %s\n", impl.lib.c_str(), judge.lib.c_str(),
                 p.shape().c_str(), a.inexact.c_str(), a.timed() ? "timed as inexact" : "not benchmarked");
  return a;
}

// An int8-output implementation against its library's epilogue over the judge's exact accumulators.
template <class P, class Get8, class Get32>
Agreement check8(const P& p, Get8 get8, Get32 get32, const Impl& judge, const Impl& impl, std::size_t n_out) {
  std::vector<std::int32_t> acc(n_out);
  std::vector<std::int8_t> got(n_out);
  Runner rj = get32(judge)(p, acc.data());
  runner_label().clear();
  Runner ri = get8(impl)(p, got.data());
  if (!rj || !ri) return {static_cast<bool>(ri), {}};
  rj();
  ri();
  Agreement a{true, mismatch(got, [&](std::size_t i) { return epilogue(acc[i], impl.int8_epilogue); })};
  if (!a.inexact.empty())
    std::fprintf(stderr, "bench: %s (int8 output) disagrees with its epilogue over the exact accumulators on %s (%s): %s\n",
                 impl.lib.c_str(), p.shape().c_str(), a.inexact.c_str(), a.timed() ? "timed as inexact" : "not benchmarked");
  return a;
}

// A timed row's label: the runner factory's (runner_label()), after an inexact row's note.
std::string row_label(const std::string& inexact) {
  if (inexact.empty() || runner_label().empty()) return inexact.empty() ? runner_label() : inexact;
  return inexact + "; " + runner_label();
}

// Registers BM name timing run; the label is what the runner factory said (runner_label()), after
// the inexact note of an implementation that disagreed (Agreement::inexact).
void register_timed(const std::string& name, Runner run, double ops, const std::string& inexact = {}) {
  const std::string label = row_label(inexact);
  benchmark::RegisterBenchmark(name.c_str(), [run, ops, label](benchmark::State& st) {
    for (auto _ : st) run();
    st.counters["GOPS"] =
        benchmark::Counter(ops * static_cast<double>(st.iterations()) * 1e-9, benchmark::Counter::kIsRate);
    if (!label.empty()) st.SetLabel(label);
  })->Unit(benchmark::kMicrosecond);
}

// Registers a streaming operator's BM (requantize, add): bytes moved and elements per second.
void register_streamed(const std::string& name, Runner run, double bytes, double elems,
                       const std::string& inexact = {}) {
  const std::string label = row_label(inexact);
  benchmark::RegisterBenchmark(name.c_str(), [run, bytes, elems, label](benchmark::State& st) {
    for (auto _ : st) run();
    st.counters["bytes/s"] = benchmark::Counter(bytes * static_cast<double>(st.iterations()),
                                                benchmark::Counter::kIsRate, benchmark::Counter::kIs1024);
    st.counters["Gelem/s"] =
        benchmark::Counter(elems * static_cast<double>(st.iterations()) * 1e-9, benchmark::Counter::kIsRate);
    if (!label.empty()) st.SetLabel(label);
  })->Unit(benchmark::kMicrosecond);
}

// The timed runs' outputs start on a 64-byte boundary, as the frameworks' tensor allocators give
// (PyTorch's CPU allocator and XNNPACK align to 64). With malloc's 16, where a large block landed
// decided whether every zmm store split two cache lines: the zmm depthwise row took 35 or 43 µs
// from one build of its code to the next.
template <class T>
struct Aligned64 {
  using value_type = T;
  Aligned64() = default;
  template <class U>
  Aligned64(const Aligned64<U>&) {}
  T* allocate(std::size_t n) { return static_cast<T*>(::operator new (n * sizeof(T), std::align_val_t{64})); }
  void deallocate(T* p, std::size_t) { ::operator delete (p, std::align_val_t{64}); }
  bool operator==(const Aligned64&) const { return true; }
};
template <class T>
using OutBuf = std::vector<T, Aligned64<T>>;

struct Holder {  // problems and outputs must outlive the registered lambdas
  std::vector<std::unique_ptr<FcProblem>> fcs;
  std::vector<std::unique_ptr<EwProblem>> ews;
  std::vector<std::unique_ptr<PoolProblem>> pools;
  std::vector<std::unique_ptr<ConvProblem>> convs;
  std::vector<std::unique_ptr<RequantProblem>> requants;
  std::vector<std::unique_ptr<OutBuf<std::int32_t>>> outs32;
  std::vector<std::unique_ptr<OutBuf<std::int8_t>>> outs8;
};

void register_all(Holder& h) {
  const Impl& judge = impls().front();
  std::vector<FcProblem> fcs;
  for (std::int64_t nk : {256, 1024})
    for (std::int64_t m : {1, 16, 128}) fcs.push_back(make_fc(m, nk, nk));
  // ResNet-style layers, so that no ratio is one shape's: the 3x3 convolution of each stage (56x56x64,
  // 28x28x128, 14x14x256: the same 231 MOPs, ever fewer pixels per channel block), a 1x1 expansion
  // (56x56x64 -> 256), a stride-2 3x3 downsampling (56x56x128 -> 28x28x128), and a MobileNet depthwise.
  std::vector<ConvProblem> convs = {make_conv(56, 56, 64, 64, 3, 1),      make_conv(28, 28, 128, 128, 3, 1),
                                    make_conv(14, 14, 256, 256, 3, 1),    make_conv(56, 56, 64, 256, 1, 1),
                                    make_conv(56, 56, 128, 128, 3, 1, 2), make_conv(112, 112, 32, 32, 3, 32)};
  std::vector<RequantProblem> requants = make_requants(std::size_t{1} << 20);
  // qspec's rows also on the first 2^14 and 2^16 elements (80 and 320 KiB moved: L2-resident, where
  // memory does not bind). Their difference cancels the C ABI's per-call cost (the attributes parsed,
  // the parameters derived) and leaves the kernel's compute-bound time per element: the limit of a
  // requantization bound by its vector operations (docs/benchmarks.md: the double roundings).
  for (const std::size_t l2 : {std::size_t{1} << 14, std::size_t{1} << 16})
    for (std::size_t i = 0, n = requants.size(); i < n && requants[i].x.size() == std::size_t{1} << 20; ++i) {
      RequantProblem q = requants[i];
      q.x.resize(l2);
      requants.push_back(std::move(q));
    }
  auto get_fc = [](const Impl& i) { return i.fc; };
  auto get_conv = [](const Impl& i) { return i.conv; };
  auto get_fc8 = [](const Impl& i) { return i.fc8; };
  auto get_conv8 = [](const Impl& i) { return i.conv8; };
  auto conv_op = [](const ConvProblem& p) { return std::string(p.groups > 1 ? "depthwise_conv2d" : "conv2d"); };

  // Each add / mul problem's expected output: the judge's, once it has agreed with the exact reference
  // on the first kEwChecked elements (the reference computes with rationals; all 2^20 would take
  // minutes). Every implementation is then checked against both before it is timed.
  constexpr std::size_t kEwChecked = 4096;  // a multiple of the per-channel rows' 64
  std::vector<std::vector<std::int8_t>> ew_want;
  for (EwProblem& p : make_elementwise()) {
    h.ews.push_back(std::make_unique<EwProblem>(std::move(p)));
    const EwProblem& q = *h.ews.back();
    std::vector<std::int8_t> want(q.a.size());
    const Runner rj = judge.ew8 ? judge.ew8(q, want.data()) : Runner{};
    if (rj) rj();
    const std::vector<std::int8_t> ref = reference_ew(q, std::min(kEwChecked, q.a.size()));
    const auto [r, w] = std::mismatch(ref.begin(), ref.end(), want.begin());
    if (!rj || ref.empty() || r != ref.end()) {
      const std::size_t i = static_cast<std::size_t>(r - ref.begin());
      std::fprintf(stderr, "bench: %s disagrees with the reference on %s / %s", judge.lib.c_str(), q.bm().c_str(),
                   q.shape().c_str());
      if (rj && r != ref.end())
        std::fprintf(stderr, " (element %zu: a %d, b %d: %d, the reference %d)", i, q.a[i],
                     q.b[q.channels ? i % q.channels : i], *w, *r);
      std::fprintf(stderr, ": not benchmarked\n");
      want.clear();
    }
    ew_want.push_back(std::move(want));
  }

  // Each pooling problem's expected output: the judge's, once it has agreed with the exact reference
  // on the first 6 rows of the image (the whole image for the global pool).
  std::vector<std::vector<std::uint8_t>> pool_want;
  for (PoolProblem& p : make_pools()) {
    h.pools.push_back(std::make_unique<PoolProblem>(std::move(p)));
    const PoolProblem& q = *h.pools.back();
    const PoolProblem top = first_rows(q, 6);
    std::vector<std::uint8_t> want(static_cast<std::size_t>(q.oh() * q.ow() * q.c)),
        top_want(static_cast<std::size_t>(top.oh() * top.ow() * top.c));
    runner_label().clear();
    const Runner rj = judge.pool8 ? judge.pool8(q, want.data()) : Runner{};
    const Runner rt = judge.pool8 ? judge.pool8(top, top_want.data()) : Runner{};
    if (rj) rj();
    if (rt) rt();
    if (!rj || !rt || reference_pool(top) != top_want) {
      std::fprintf(stderr, "bench: %s disagrees with the reference on %s / %s: not benchmarked\n", judge.lib.c_str(),
                   q.op.c_str(), q.shape().c_str());
      want.clear();
    }
    pool_want.push_back(std::move(want));
  }

  for (const Impl& impl : impls()) {
    for (std::size_t i = 0; i < h.pools.size(); ++i) {
      const PoolProblem& p = *h.pools[i];
      if (!impl.pool8 || pool_want[i].empty()) continue;
      auto out = std::make_unique<OutBuf<std::int8_t>>(pool_want[i].size());
      auto* y = reinterpret_cast<std::uint8_t*>(out->data());
      runner_label().clear();
      Runner run = impl.pool8(p, y);
      if (!run) continue;
      run();
      if (!std::equal(pool_want[i].begin(), pool_want[i].end(), y)) {
        std::fprintf(stderr, "bench: %s disagrees with %s (and the reference) on %s / %s: not benchmarked\n",
                     impl.lib.c_str(), judge.lib.c_str(), p.op.c_str(), p.shape().c_str());
        continue;
      }
      register_streamed("BM_avg_pool_int8/" + impl.lib + "/" + p.shape(), run, p.bytes(),
                        static_cast<double>(pool_want[i].size()));
      h.outs8.push_back(std::move(out));
    }
    for (std::size_t i = 0; i < h.ews.size(); ++i) {
      const EwProblem& p = *h.ews[i];
      if (!impl.ew8 || ew_want[i].empty()) continue;
      auto out = std::make_unique<OutBuf<std::int8_t>>(p.a.size());
      runner_label().clear();
      Runner run = impl.ew8(p, out->data());
      if (!run) continue;
      run();
      if (!std::equal(out->begin(), out->end(), ew_want[i].begin())) {
        std::fprintf(stderr, "bench: %s disagrees with %s (and the reference) on %s / %s: not benchmarked\n",
                     impl.lib.c_str(), judge.lib.c_str(), p.bm().c_str(), p.shape().c_str());
        continue;
      }
      register_streamed(p.bm() + "/" + impl.lib + "/" + p.shape(), run, p.bytes(), static_cast<double>(p.a.size()));
      h.outs8.push_back(std::move(out));
    }
    for (const auto& full : fcs) {
      auto p = std::make_unique<FcProblem>(shrink(full, impl.shrink));
      const std::size_t n_out = static_cast<std::size_t>(p->m * p->n);
      std::string suffix = full.shape();
      if (p->m != full.m || p->n != full.n) suffix += "[run_at_" + p->shape() + "]";
      if (Agreement a; impl.fc && (a = check<FcProblem, std::int32_t>(*p, get_fc, judge, impl, n_out)).timed()) {
        auto out = std::make_unique<OutBuf<std::int32_t>>(n_out);
        runner_label().clear();
        register_timed("BM_fully_connected/" + impl.lib + "/" + suffix, impl.fc(*p, out->data()), p->ops(), a.inexact);
        h.outs32.push_back(std::move(out));
      }
      if (Agreement a; impl.fc8 && (a = check8(*p, get_fc8, get_fc, judge, impl, n_out)).timed()) {
        auto out = std::make_unique<OutBuf<std::int8_t>>(n_out);
        runner_label().clear();
        register_timed("BM_fully_connected_int8out/" + impl.lib + "/" + suffix, impl.fc8(*p, out->data()), p->ops(),
                       a.inexact);
        h.outs8.push_back(std::move(out));
      }
      h.fcs.push_back(std::move(p));
    }
    for (const auto& full : convs) {
      auto p = std::make_unique<ConvProblem>(shrink(full, impl.shrink));
      const std::size_t n_out = static_cast<std::size_t>(p->oh() * p->ow() * p->o);
      std::string suffix = full.shape();
      if (p->h != full.h) suffix += "[run_at_" + p->shape() + "]";
      if (Agreement a; impl.conv && (a = check<ConvProblem, std::int32_t>(*p, get_conv, judge, impl, n_out)).timed()) {
        auto out = std::make_unique<OutBuf<std::int32_t>>(n_out);
        runner_label().clear();
        register_timed("BM_" + conv_op(full) + "/" + impl.lib + "/" + suffix, impl.conv(*p, out->data()), p->ops(),
                       a.inexact);
        h.outs32.push_back(std::move(out));
      }
      if (Agreement a; impl.conv8 && (a = check8(*p, get_conv8, get_conv, judge, impl, n_out)).timed()) {
        auto out = std::make_unique<OutBuf<std::int8_t>>(n_out);
        runner_label().clear();
        register_timed("BM_" + conv_op(full) + "_int8out/" + impl.lib + "/" + suffix, impl.conv8(*p, out->data()),
                       p->ops(), a.inexact);
        h.outs8.push_back(std::move(out));
      }
      h.convs.push_back(std::move(p));
    }
    for (const auto& full : requants) {
      if (!impl.requant || (full.x.size() != std::size_t{1} << 20 && impl.lib != "avx2" && impl.lib != "avx2_ymm"))
        continue;
      auto p = std::make_unique<RequantProblem>(shrink(full, impl.shrink));
      const std::size_t n_out = p->x.size();
      const Agreement a = check<RequantProblem, std::int8_t>(
          *p, [](const Impl& i) { return i.requant; }, judge, impl, n_out);
      if (!a.timed()) continue;
      auto out = std::make_unique<OutBuf<std::int8_t>>(n_out);
      Runner run = impl.requant(*p, out->data());
      std::string name = "BM_requantize/" + impl.lib + "/" + full.shape();
      if (p->x.size() != full.x.size()) name += "[run_at_" + p->shape() + "]";
      runner_label().clear();
      register_streamed(name, run, p->bytes(), static_cast<double>(p->x.size()), a.inexact);
      h.requants.push_back(std::move(p));
      h.outs8.push_back(std::move(out));
    }
  }
}

}  // namespace
}  // namespace qspec::bench

void qspec_bench_register_peaks();  // bench_peak*.cc

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (qspec::bench::impls().empty()) {
    std::fprintf(stderr, "bench: no implementation registered\n");
    return 1;
  }
  // The qspec backend registers as "avx2"/"neon" first; make it the judge whatever the link order.
  auto& v = qspec::bench::impls();
  std::stable_partition(v.begin(), v.end(),
                        [](const qspec::bench::Impl& i) { return i.lib == "avx2" || i.lib == "neon"; });
  qspec::bench::Holder holder;
  qspec_bench_register_peaks();
  qspec::bench::register_all(holder);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
