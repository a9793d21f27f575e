// libtorch in bench_kernels (built only where libtorch-dev is installed): requantize
// (pytorch.requantize_from_int), quantized::add and the quantized average poolings as qspec::bench::Impls, and
// quantized::linear / quantized::conv2d as BM_<op>/libtorch_int8out/<shape> (default onednn engine) and
// BM_<op>/libtorch-qnnpack_int8out/<shape>.
//
// libtorch has no int32-output linear / conv, so, like XNNPACK's, they are registered separately
// with requantized outputs, on the same shapes and scales (requantization scale 2^-7, output zero
// point -3) and single-threaded (at::set_num_threads(1)). Activations are quint8 (the onednn
// engine takes no qint8 data): int8 data shifted by +128 with zero point zx + 128, output zero
// point -3 + 128. Each output is checked before timing against the exact accumulator and the
// engine's epilogue, emulated: onednn adds the zero point before rounding half to even
// (sat(rne(acc * s + zp))), qnnpack after (sat(rne(acc * s) + zp)); the odd zero point and the
// scale 2^-7 make ties frequent, so the check tells the two apart.
#include <ATen/Context.h>
#include <ATen/Parallel.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/ivalue.h>
#include <ATen/core/stack.h>
#include <ATen/native/quantized/AffineQuantizerBase.h>
#include <ATen/ops/_empty_affine_quantized.h>
#include <ATen/ops/_make_per_tensor_quantized_tensor.h>
#include <ATen/ops/adaptive_avg_pool2d.h>
#include <ATen/ops/avg_pool2d.h>
#include <ATen/ops/empty.h>
#include <ATen/quantized/Quantizer.h>
#include <benchmark/benchmark.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "bench_problems.h"
#include "qspec/catalogue/keys.h"
#include "qspec/core/attr.h"

namespace qspec::bench {
namespace {

// requantize_from_int per element: the scalar the quantized kernels use (no tensor op exists).
Runner libtorch_requant(const RequantProblem& p, std::int8_t* y) {
  using R = cat::requantize;
  if (p.convention != R::conv::pytorch_requantize_from_int) return {};
  const double m = static_cast<double>(std::bit_cast<float>(attr::get(p.attrs, R::attr::scale)));
  const std::int64_t zp = attr::get(p.attrs, R::attr::output_zero_point);
  return [&p, y, m, zp] {
    for (std::size_t i = 0; i < p.x.size(); ++i) y[i] = at::native::requantize_from_int<c10::qint8>(m, zp, p.x[i]).val_;
  };
}

Impl libtorch_impl() {
  at::set_num_threads(1);
  Impl i;
  i.lib = "libtorch";
  i.requant = libtorch_requant;
  return i;
}
QSPEC_REGISTER_BENCH_IMPL(libtorch_impl());

constexpr float kInScale = 0.5f, kKernelScale = 1.0f / 64, kOutScale = 1.0f;  // scale 2^-7, exact
constexpr int kOutZp = -3, kZx = 3;

c10::IValue call(const char* name, const char* overload, std::vector<c10::IValue> args) {
  const c10::OperatorHandle op = c10::Dispatcher::singleton().findSchemaOrThrow(name, overload);
  torch::jit::Stack stack(std::move(args));
  op.callBoxed(&stack);
  return stack.at(0);
}

at::Tensor quantized(const std::vector<std::int8_t>& v, std::vector<std::int64_t> shape, bool as_quint8, double scale,
                     std::int64_t zp) {
  at::Tensor t = at::empty(shape, at::TensorOptions().dtype(as_quint8 ? c10::kByte : c10::kChar));
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (as_quint8) t.data_ptr<std::uint8_t>()[i] = static_cast<std::uint8_t>(v[i] + 128);
    else t.data_ptr<std::int8_t>()[i] = v[i];
  }
  return at::_make_per_tensor_quantized_tensor(t, scale, as_quint8 ? zp + 128 : zp);
}

// quantized::add (its out= overload, writing into y) of two qint8 tensors under the onednn engine:
// ATen's qadd_kernel, on the pytorch.onednn problems (whose source zero points are 0: ATen's AVX2
// vector path dequantizes as fma(s, q, fl32(-z s)), which is the convention's fl32((q - z) s) only
// for z = 0, errata E-LIBTORCH-EW-1).
// Same-shape adds only (the mul and per-channel rows are not registered here).
Runner libtorch_add(const EwProblem& p, std::int8_t* y) {
  using A = cat::qlinear_add;
  if (p.convention != A::conv::pytorch_onednn || p.mul || p.channels) return {};
  const auto f32 = [&p](const attr::F32& k) { return std::bit_cast<float>(attr::get(p.attrs, k)); };
  const auto n = static_cast<std::int64_t>(p.a.size());
  try {
    at::globalContext().setQEngine(c10::QEngine::ONEDNN);
    auto qa = std::make_shared<at::Tensor>(quantized(p.a, {n}, false, f32(A::attr::a_scale), attr::get(p.attrs, A::attr::a_zero_point)));
    auto qb = std::make_shared<at::Tensor>(quantized(p.b, {n}, false, f32(A::attr::b_scale), attr::get(p.attrs, A::attr::b_zero_point)));
    auto qy = std::make_shared<at::Tensor>(at::from_blob_quantized_per_tensor_affine(
        y, {n}, [](void*) {}, f32(A::attr::y_scale), attr::get(p.attrs, A::attr::y_zero_point),
        at::TensorOptions().dtype(c10::kQInt8)));
    return [qa, qb, qy] {
      at::globalContext().setQEngine(c10::QEngine::ONEDNN);  // the int8out registrations switch engines
      call("quantized::add", "out", {*qa, *qb, *qy});
    };
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench: libtorch quantized::add on %s: %s: not benchmarked\n", p.shape().c_str(), e.what());
    return {};
  }
}

QSPEC_REGISTER_BENCH_IMPL(ew_impl("libtorch", libtorch_add));

// at::avg_pool2d / at::adaptive_avg_pool2d(x, 1) of a channels-last qint8 tensor under the onednn
// engine: ATen's _qavg_pool_nhwc_kernel / its adaptive twin, on the pytorch.onednn problems. The
// operators take no output tensor: each call allocates one, as a model's forward does (timed); the
// first call's result is copied into y for the driver's check.
Runner libtorch_pool(const PoolProblem& p, std::uint8_t* y) {
  using P = cat::qlinear_avg_pool2d;
  if (p.convention != P::conv::pytorch_onednn || p.u8) return {};
  try {
    at::globalContext().setQEngine(c10::QEngine::ONEDNN);
    auto qx = std::make_shared<at::Tensor>(
        at::_empty_affine_quantized({1, p.c, p.h, p.w}, at::TensorOptions().dtype(c10::kQInt8),
                                    static_cast<double>(std::bit_cast<float>(attr::get(p.attrs, P::attr::x_scale))),
                                    attr::get(p.attrs, P::attr::x_zero_point), c10::MemoryFormat::ChannelsLast));
    std::memcpy(qx->data_ptr(), p.x.data(), p.x.size());  // NHWC: the channels-last storage order
    const bool include = attr::get_or(p.attrs, P::attr::count_include_pad, false);
    auto copied = std::make_shared<bool>(false);
    const auto n = static_cast<std::size_t>(p.oh() * p.ow() * p.c);
    return [qx, include, copied, n, y, &p] {
      at::globalContext().setQEngine(c10::QEngine::ONEDNN);
      const at::Tensor r = p.global() ? at::adaptive_avg_pool2d(*qx, {1, 1})
                                      : at::avg_pool2d(*qx, {p.k, p.k}, {p.stride, p.stride}, {p.pad, p.pad}, false,
                                                       include, c10::nullopt);
      if (!*copied) {
        std::memcpy(y, r.contiguous(c10::MemoryFormat::ChannelsLast).data_ptr(), n);
        *copied = true;
      }
    };
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench: libtorch average pooling on %s: %s: not benchmarked\n", p.shape().c_str(), e.what());
    return {};
  }
}

QSPEC_REGISTER_BENCH_IMPL(pool_impl("libtorch", libtorch_pool));

// The engine's epilogue on an exact accumulator, as the int8 value (quint8 - 128).
int epilogue(std::int64_t acc, bool zp_before_rounding) {
  const float s = kInScale * kKernelScale / kOutScale;
  const float v = static_cast<float>(acc) * s;  // exact: |acc| < 2^24 and s = 2^-7
  const int zp = kOutZp + 128;
  const long r = zp_before_rounding ? std::lrintf(v + static_cast<float>(zp)) : std::lrintf(v) + zp;
  return static_cast<int>(std::min(255L, std::max(0L, r))) - 128;
}

struct Engine {
  c10::QEngine engine;
  const char* label;
  bool zp_before_rounding;
};

void register_libtorch_int8out() {
  at::set_num_threads(1);
  std::vector<Engine> engines;
  for (c10::QEngine e : at::globalContext().supportedQEngines()) {
    if (e == c10::QEngine::ONEDNN) engines.push_back({e, "libtorch", true});
    if (e == c10::QEngine::QNNPACK) engines.push_back({e, "libtorch-qnnpack", false});
  }
  std::mt19937_64 rng(20261122);
  auto bytes = [&rng](std::size_t n) {
    std::vector<std::int8_t> v(n);
    for (auto& x : v) x = static_cast<std::int8_t>(rng());
    return v;
  };
  for (std::int64_t nk : {256, 1024})
    for (std::int64_t m : {1, 16, 128}) {
      const auto xv = bytes(static_cast<std::size_t>(m * nk)), wv = bytes(static_cast<std::size_t>(nk * nk));
      const std::string shape = "M" + std::to_string(m) + "_N" + std::to_string(nk) + "_K" + std::to_string(nk);
      for (const Engine& e : engines) {
        at::globalContext().setQEngine(e.engine);
        try {
          auto x = std::make_shared<c10::IValue>(quantized(xv, {m, nk}, true, kInScale, kZx));
          auto packed = std::make_shared<c10::IValue>(
              call("quantized::linear_prepack", "", {quantized(wv, {nk, nk}, false, kKernelScale, 0), c10::IValue()}));
          const at::Tensor y = call("quantized::linear", "", {*x, *packed, static_cast<double>(kOutScale), kOutZp + 128})
                                   .toTensor().int_repr().contiguous();
          bool good = true;
          for (std::int64_t i = 0; i < m && good; ++i)
            for (std::int64_t j = 0; j < nk && good; ++j) {
              std::int64_t acc = 0;
              for (std::int64_t t = 0; t < nk; ++t)
                acc += (static_cast<std::int64_t>(xv[static_cast<std::size_t>(i * nk + t)]) - kZx) * wv[static_cast<std::size_t>(j * nk + t)];
              good = y.data_ptr<std::uint8_t>()[i * nk + j] - 128 == epilogue(acc, e.zp_before_rounding);
            }
          if (!good) {
            std::fprintf(stderr, "bench: %s linear disagrees with its emulated epilogue on %s\n", e.label, shape.c_str());
            continue;
          }
          const double ops = 2.0 * static_cast<double>(m * nk * nk);
          benchmark::RegisterBenchmark(("BM_fully_connected/" + std::string(e.label) + "_int8out/" + shape).c_str(),
                                       [x, packed, ops](benchmark::State& st) {
                                         for (auto _ : st)
                                           benchmark::DoNotOptimize(
                                               call("quantized::linear", "", {*x, *packed, static_cast<double>(kOutScale), kOutZp + 128}));
                                         st.counters["GOPS"] = benchmark::Counter(
                                             ops * static_cast<double>(st.iterations()) * 1e-9, benchmark::Counter::kIsRate);
                                       })
              ->Unit(benchmark::kMicrosecond);
        } catch (const std::exception& ex) {
          std::fprintf(stderr, "bench: %s linear %s: %s\n", e.label, shape.c_str(), ex.what());
        }
      }
    }
  // conv2d 3x3 s1 56x56 64->64 and depthwise 3x3 112x112x32, padding 1 (input zero point),
  // channels-last data (libtorch's fast layout for quantized conv).
  struct Shape {
    std::int64_t h, c, o, groups;
    const char* op;
    const char* name;
  };
  for (const Shape s : {Shape{56, 64, 64, 1, "BM_conv2d", "56x56x64_64_3x3"},
                        Shape{112, 32, 32, 32, "BM_depthwise_conv2d", "112x112x32_dw3x3"}}) {
    const std::int64_t gic = s.c / s.groups;
    const auto xv = bytes(static_cast<std::size_t>(s.h * s.h * s.c));           // NHWC
    const auto wv = bytes(static_cast<std::size_t>(s.o * gic * 9));             // OHWI
    for (const Engine& e : engines) {
      at::globalContext().setQEngine(e.engine);
      try {
        // NHWC / OHWI buffers viewed as NCHW / OIHW tensors in channels-last memory.
        auto x = std::make_shared<c10::IValue>(quantized(xv, {1, s.h, s.h, s.c}, true, kInScale, kZx).permute({0, 3, 1, 2}));
        const at::Tensor w = quantized(wv, {s.o, 3, 3, gic}, false, kKernelScale, 0).permute({0, 3, 1, 2});
        auto packed = std::make_shared<c10::IValue>(call("quantized::conv2d_prepack", "",
                                                         {w, c10::IValue(), c10::List<std::int64_t>({1, 1}),
                                                          c10::List<std::int64_t>({1, 1}), c10::List<std::int64_t>({1, 1}), s.groups}));
        const at::Tensor y = call("quantized::conv2d", "new", {*x, *packed, static_cast<double>(kOutScale), kOutZp + 128})
                                 .toTensor().int_repr().permute({0, 2, 3, 1}).contiguous();  // NHWC
        bool good = true;
        for (std::int64_t idx = 0; idx < s.h * s.h * s.o && good; idx += 97) {
          const std::int64_t oc = idx % s.o, pix = idx / s.o, oy = pix / s.h, ox = pix % s.h, g = oc / (s.o / s.groups);
          std::int64_t acc = 0;
          for (std::int64_t ky = 0; ky < 3; ++ky)
            for (std::int64_t kx = 0; kx < 3; ++kx)
              for (std::int64_t ic = 0; ic < gic; ++ic) {
                const std::int64_t iy = oy + ky - 1, ix = ox + kx - 1;
                const std::int64_t v = (iy < 0 || iy >= s.h || ix < 0 || ix >= s.h)
                                           ? kZx
                                           : xv[static_cast<std::size_t>((iy * s.h + ix) * s.c + g * gic + ic)];
                acc += (v - kZx) * wv[static_cast<std::size_t>(((oc * 3 + ky) * 3 + kx) * gic + ic)];
              }
          good = y.data_ptr<std::uint8_t>()[idx] - 128 == epilogue(acc, e.zp_before_rounding);
        }
        if (!good) {
          std::fprintf(stderr, "bench: %s convolution disagrees with its emulated epilogue on %s\n", e.label, s.name);
          continue;
        }
        const double ops = 2.0 * static_cast<double>(s.h * s.h * s.o) * static_cast<double>(gic) * 9;
        benchmark::RegisterBenchmark((std::string(s.op) + "/" + e.label + "_int8out/" + s.name).c_str(),
                                     [x, packed, ops](benchmark::State& st) {
                                       for (auto _ : st)
                                         benchmark::DoNotOptimize(
                                             call("quantized::conv2d", "new", {*x, *packed, static_cast<double>(kOutScale), kOutZp + 128}));
                                       st.counters["GOPS"] = benchmark::Counter(
                                           ops * static_cast<double>(st.iterations()) * 1e-9, benchmark::Counter::kIsRate);
                                     })
            ->Unit(benchmark::kMicrosecond);
      } catch (const std::exception& ex) {
        std::fprintf(stderr, "bench: %s convolution %s: %s\n", e.label, s.name, ex.what());
      }
    }
  }
  at::globalContext().setQEngine(engines.empty() ? at::globalContext().qEngine() : engines.front().engine);
}

[[maybe_unused]] const bool kLibtorchRegistered = (register_libtorch_int8out(), true);

}  // namespace
}  // namespace qspec::bench
