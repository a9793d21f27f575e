// The qspec implementations in the benchmark: the avx2 backend (best ISA, VNNI on ymm only,
// AVX2-only, scalar) and
// the exact reference (on shrunk problems: it computes with cpp_int, thousands of times slower).
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "bench_problems.h"
#include "qspec/catalogue/keys.h"
#include "qspec/core/tensor.h"
#include "qspec/ref/ops/nn.h"
#include "qspec/refops.h"
#include "qspec/simd/avx2_backend.h"
#include "qspec/simd/conv.h"
#include "qspec/simd/qgemm.h"
#include "qspec/simd/requant.h"

namespace qspec::bench {
namespace {

using simd::KernelSet;

// The activations as a run receives them: the problem's int8 tensor, or (the u8 configuration, as
// oneDNN's u8 configurations get theirs) the same values + 128 as uint8 with the zero point + 128,
// converted once outside the timed loop: a model whose previous layer writes uint8 pays nothing.
struct Src {
  const void* data;
  bool is_signed;
  std::int64_t zp;
  std::shared_ptr<std::vector<std::uint8_t>> u8;
};
Src src_of(const std::vector<std::int8_t>& x, std::int64_t zx, bool u8) {
  if (!u8) return {x.data(), true, zx, nullptr};
  auto v = std::make_shared<std::vector<std::uint8_t>>(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) (*v)[i] = static_cast<std::uint8_t>(x[i] + 128);
  return {v->data(), false, zx + 128, v};
}

Runner fc_runner(const KernelSet& k, const FcProblem& p, std::int32_t* y, bool u8 = false) {
  auto w = std::make_shared<simd::QWeights>(simd::pack_weights(*k.gemm, p.n, p.k, p.w.data(), false, p.k));
  const simd::GemmEngine* e = k.gemm;
  const Src s = src_of(p.x, p.zx, u8);
  return [e, w, &p, y, s] { simd::qgemm(*e, p.m, s.data, s.is_signed, p.k, s.zp, *w, 0, y, p.n); };
}

simd::ConvGeom geom_of(const ConvProblem& p) {
  simd::ConvGeom g;
  g.h = p.h;
  g.w = p.w;
  g.c = p.c;
  g.o = p.o;
  g.kh = g.kw = p.k;
  g.sh = g.sw = p.stride;
  g.ph = g.pw = p.pad;
  g.groups = p.groups;
  return g;
}

Runner conv_runner(const KernelSet& k, const ConvProblem& p, std::int32_t* y, bool u8 = false) {
  const simd::ConvGeom g = geom_of(p);
  const Src s = src_of(p.x, p.zx, u8);
  // Padding with the input zero point: the padded taps stand for the real value 0.
  auto w = std::make_shared<simd::QConvWeights>(simd::pack_conv_weights(k, g, p.wt.data(), false, 0, s.zp, s.zp));
  auto ks = std::make_shared<KernelSet>(k);
  return [ks, w, y, s] { simd::qconv2d_nhwc(*ks, *w, s.data, s.is_signed, s.zp, s.zp, y); };
}

// The int8-output operators as qspec's qlinear ops compute them under xnnpack.fp32 (no bias):
// kFloatThenZp (sat(rne(fl32(acc) * scale) + zp)) fused into the stores (no int32 tensor is
// written) of the GEMM engines that fuse in registers (the VNNI ones: qgemm_requant, the im2col
// convolution), of the direct convolution and of the VNNI depthwise kernels; the other engines keep two passes.
// kind kQ31Double: TFLite's double rounding of the same scale (the avx2_tflite rows), M = 2^30
// (one half in Q31) and a right shift of 6.
simd::RequantParams int8out_params(simd::RequantKind kind = simd::RequantKind::kFloatThenZp) {
  static_assert(Int8Out::kScale == 1.0f / 128);
  simd::RequantParams r;
  r.kind = kind;
  r.out = simd::OutType::I8;
  r.zp = Int8Out::kOutZp;
  r.scale = Int8Out::kScale;
  r.zp_f = static_cast<float>(Int8Out::kOutZp);
  r.multiplier = 1 << 30;
  r.right_shift = 6;
  simd::finalize(r);
  return r;
}

// The two passes (the engines without an in-register epilogue, the AVX2 depthwise kernel): the
// int32 result, then the requantization kernel over it.
Runner two_passes(const KernelSet& k, Runner int32_run, std::shared_ptr<std::vector<std::int32_t>> acc,
                  std::int8_t* y, const simd::RequantParams& r = int8out_params()) {
  const simd::RequantFn rq = k.requant;
  return [int32_run, acc, rq, y, r] {
    int32_run();
    rq(r, acc->size(), acc->data(), y);
  };
}

Runner fc8_runner(const KernelSet& k, const FcProblem& p, std::int8_t* y, bool u8 = false) {
  if (!k.gemm->fuses_requant()) {
    auto acc = std::make_shared<std::vector<std::int32_t>>(static_cast<std::size_t>(p.m * p.n));
    return two_passes(k, fc_runner(k, p, acc->data(), u8), acc, y);
  }
  const Src s = src_of(p.x, p.zx, u8);
  auto w = std::make_shared<simd::QWeights>(simd::pack_weights(*k.gemm, p.n, p.k, p.w.data(), false, p.k));
  auto ep =
      std::make_shared<simd::FusedRequant>(std::vector<simd::RequantParams>{int8out_params()}, p.n, nullptr, false);
  const simd::GemmEngine* e = k.gemm;
  auto* yb = reinterpret_cast<std::uint8_t*>(y);
  return [e, w, ep, &p, yb, s] {
    simd::qgemm_requant(*e, p.m, s.data, s.is_signed, p.k, s.zp, *w, 0, ep->view(), yb, p.n);
  };
}

Runner conv8_runner(const KernelSet& k, const ConvProblem& p, std::int8_t* y, bool u8 = false,
                    simd::RequantKind kind = simd::RequantKind::kFloatThenZp) {
  const simd::ConvGeom g = geom_of(p);
  const Src s = src_of(p.x, p.zx, u8);
  auto w = std::make_shared<simd::QConvWeights>(simd::pack_conv_weights(k, g, p.wt.data(), false, 0, s.zp, s.zp));
  if (!simd::conv_fuses_requant(k, *w) || !k.gemm->fuses_requant()) {
    auto acc = std::make_shared<std::vector<std::int32_t>>(static_cast<std::size_t>(p.oh() * p.ow() * p.o));
    return two_passes(k, conv_runner(k, p, acc->data(), u8), acc, y, int8out_params(kind));
  }
  auto ep =
      std::make_shared<simd::FusedRequant>(std::vector<simd::RequantParams>{int8out_params(kind)}, p.o, nullptr, false);
  auto ks = std::make_shared<KernelSet>(k);
  auto* yb = reinterpret_cast<std::uint8_t*>(y);
  return [ks, w, ep, yb, s] { simd::qconv2d_nhwc_requant(*ks, *w, s.data, s.is_signed, s.zp, s.zp, *ep, yb); };
}

// One op through the backend's C ABI, exactly as `qspec run` drives it (the attributes parsed per
// call); the tensors' names, shape and data pointers must outlive the runner.
Runner abi_runner(const KernelSet& k, std::string_view op_name, const std::string& convention,
                  const nlohmann::ordered_json& attrs_json, std::vector<qspec_tensor> in, qspec_tensor out) {
  auto b = std::shared_ptr<qspec_backend>(new qspec_backend{}, [](qspec_backend* q) {
    if (q->destroy) q->destroy(q->self);
    delete q;
  });
  if (simd::create_backend(QSPEC_BACKEND_ABI_VERSION, b.get(), "avx2", k) != 0) return {};
  const std::string op(op_name);
  if (!b->supports(b->self, op.c_str(), convention.c_str())) return {};
  auto attrs = std::make_shared<std::string>(attrs_json.dump());
  auto ins = std::make_shared<std::vector<qspec_tensor>>(std::move(in));
  auto outs = std::make_shared<qspec_tensor>(out);
  return [b, op, convention, attrs, ins, outs] {
    char msg[256];
    if (b->run(b->self, op.c_str(), convention.c_str(), attrs->c_str(), ins->data(), ins->size(), outs.get(), 1, msg,
               sizeof msg) != QSPEC_STATUS_OK)
      throw std::runtime_error(op + " failed: " + msg);
  };
}

Runner requant_runner(const KernelSet& k, const RequantProblem& p, std::int8_t* y) {
  using R = cat::requantize;
  auto shape = std::make_shared<std::int64_t>(static_cast<std::int64_t>(p.x.size()));
  Runner run = abi_runner(k, R::op, p.convention, p.attrs,
                          {{R::in::x.data(), QSPEC_DTYPE_INT32, 1, shape.get(), const_cast<std::int32_t*>(p.x.data()),
                            p.x.size() * 4}},
                          {R::out::y.data(), QSPEC_DTYPE_INT8, 1, shape.get(), y, p.x.size()});
  if (!run) return {};
  return [run, shape] { run(); };
}

// qlinear.add / qlinear.mul of two same-shape int8 tensors: prepared once where the convention has a
// kernel (the parameters derived as the handler does, as the libraries create their operators), the
// kernel alone timed. A per-channel b, and the conventions without a kernel, through the C ABI (the
// handler: its parameter derivation, the broadcast, its kernel or element loop; the same-shape
// problems as 1-D tensors: the op is elementwise).
Runner ew_runner(const KernelSet& k, const EwProblem& p, std::int8_t* y) {
  using A = cat::qlinear_add;
  if (p.channels == 0) {
    if (!p.mul)
      if (const std::optional<simd::AddParams> q = simd::prepared_add(p.convention, p.attrs, QSPEC_DTYPE_INT8);
          q && q->fast) {
        runner_label() = "prepared kernel";
        return [add = k.add, q = *q, &p, y] { add(q, p.a.size(), p.a.data(), p.b.data(), y); };
      }
    if (p.mul)
      if (const std::optional<simd::MulParams> q = simd::prepared_mul(p.convention, p.attrs, QSPEC_DTYPE_INT8);
          q && q->fast) {
        runner_label() = "prepared kernel";
        return [mul = k.mul, q = *q, &p, y] { mul(q, p.a.size(), p.a.data(), p.b.data(), y); };
      }
  }
  runner_label() = p.channels ? "C ABI" : "C ABI, scalar path";
  const auto c = static_cast<std::int64_t>(p.channels);
  auto shapes = std::make_shared<std::vector<std::int64_t>>(
      c ? std::vector<std::int64_t>{static_cast<std::int64_t>(p.a.size()) / c, c, c}
        : std::vector<std::int64_t>{static_cast<std::int64_t>(p.a.size())});
  const std::int32_t rank = c ? 2 : 1;
  const qspec_tensor a{A::in::a.data(), QSPEC_DTYPE_INT8, rank, shapes->data(), const_cast<std::int8_t*>(p.a.data()),
                       p.a.size()};
  const qspec_tensor b{A::in::b.data(), QSPEC_DTYPE_INT8, c ? 1 : rank, c ? shapes->data() + 2 : shapes->data(),
                       const_cast<std::int8_t*>(p.b.data()), p.b.size()};
  Runner run = abi_runner(k, p.mul ? cat::qlinear_mul::op : A::op, p.convention, p.attrs, {a, b},
                          {A::out::y.data(), QSPEC_DTYPE_INT8, rank, shapes->data(), y, p.a.size()});
  if (!run) return {};
  return [run, shapes] { run(); };
}

// An average pooling prepared once where its handler runs the pooling kernel (prepared_avg_pool: the
// parameters derived by the handler itself, outside the timed loop), the kernel alone timed; else
// through the C ABI (the handler's scalar path).
Runner pool_runner(const KernelSet& k, const PoolProblem& p, std::uint8_t* y) {
  using P = cat::qlinear_avg_pool2d;
  auto shapes =
      std::make_shared<std::vector<std::int64_t>>(std::vector<std::int64_t>{1, p.h, p.w, p.c, 1, p.oh(), p.ow(), p.c});
  const qspec_dtype t = p.u8 ? QSPEC_DTYPE_UINT8 : QSPEC_DTYPE_INT8;
  const qspec_tensor x{P::in::x.data(), t, 4, shapes->data(), const_cast<std::uint8_t*>(p.x.data()), p.x.size()};
  qspec_tensor yt{P::out::y.data(), t, 4, shapes->data() + 4, y, static_cast<std::size_t>(p.oh() * p.ow() * p.c)};
  try {
    if (const std::optional<simd::PoolParams> q = simd::prepared_avg_pool(p.op, p.convention, p.attrs, x, yt)) {
      runner_label() = "prepared kernel";
      const simd::PoolFn pool = k.avg_pool;
      return [pool, q = *q, &p, y] { pool(q, p.x.data(), y); };
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench: %s / %s: %s: not benchmarked\n", p.op.c_str(), p.convention.c_str(), e.what());
    return {};
  }
  runner_label() = "C ABI, scalar path";
  Runner run = abi_runner(k, p.op, p.convention, p.attrs, {x}, yt);
  if (!run) return {};
  return [run, shapes] { run(); };
}

Impl backend_impl(const std::string& lib, const simd::CpuFeatures& f) {
  const KernelSet k = simd::avx2::kernel_set(f);
  Impl impl;
  impl.lib = lib;
  impl.fc = [k](const FcProblem& p, std::int32_t* y) { return fc_runner(k, p, y); };
  impl.conv = [k](const ConvProblem& p, std::int32_t* y) { return conv_runner(k, p, y); };
  impl.requant = [k](const RequantProblem& p, std::int8_t* y) { return requant_runner(k, p, y); };
  impl.fc8 = [k](const FcProblem& p, std::int8_t* y) { return fc8_runner(k, p, y); };
  impl.conv8 = [k](const ConvProblem& p, std::int8_t* y) { return conv8_runner(k, p, y); };
  // The add / mul kernels: zmm, ymm (the same at every level below zmm), scalar.
  if (lib == "avx2" || lib == "avx2_ymm" || lib == "scalar")
    impl.ew8 = [k](const EwProblem& p, std::int8_t* y) { return ew_runner(k, p, y); };
  if (lib == "avx2" || lib == "avx2_ymm" || lib == "scalar")  // the pooling kernels likewise
    impl.pool8 = [k](const PoolProblem& p, std::uint8_t* y) { return pool_runner(k, p, y); };
  return impl;
}

simd::CpuFeatures without_vnni() {
  simd::CpuFeatures f = simd::detect_cpu_features();
  f.avxvnni = f.avx512vnni = f.zmm = f.vbmi = false;
  return f;
}
simd::CpuFeatures without_zmm() {
  simd::CpuFeatures f = simd::detect_cpu_features();
  f.zmm = f.vbmi = false;
  return f;
}

// The backend's rows run the level QSPEC_SIMD_ISA allows (as `qspec run` does), so that
// `QSPEC_SIMD_ISA=avxvnni bench/thirdparty/compare.sh` sets them against the libraries at that class.
QSPEC_REGISTER_BENCH_IMPL(backend_impl("avx2", simd::cpu_features()));
// The u8-source configuration of the same level (FC and convolution rows only).
Impl backend_u8_impl(const simd::CpuFeatures& f) {
  const KernelSet k = simd::avx2::kernel_set(f);
  Impl impl;
  impl.lib = "avx2.u8";
  impl.fc = [k](const FcProblem& p, std::int32_t* y) { return fc_runner(k, p, y, true); };
  impl.conv = [k](const ConvProblem& p, std::int32_t* y) { return conv_runner(k, p, y, true); };
  impl.fc8 = [k](const FcProblem& p, std::int8_t* y) { return fc8_runner(k, p, y, true); };
  impl.conv8 = [k](const ConvProblem& p, std::int8_t* y) { return conv8_runner(k, p, y, true); };
  return impl;
}
QSPEC_REGISTER_BENCH_IMPL(backend_u8_impl(simd::cpu_features()));
QSPEC_REGISTER_BENCH_IMPL(simd::detect_cpu_features().avx512vnni || simd::detect_cpu_features().avxvnni
                              ? backend_impl("avx2_no_vnni", without_vnni())
                              : Impl{});
QSPEC_REGISTER_BENCH_IMPL(simd::detect_cpu_features().zmm ? backend_impl("avx2_ymm", without_zmm()) : Impl{});
// The zmm level without AVX512-VBMI (Cascade Lake's), where the CPU has VBMI: only the depthwise
// kernel differs there (depthwise_vnni512's ring instead of the direct strips), so only its rows.
Impl backend_novbmi_impl() {
  simd::CpuFeatures f = simd::detect_cpu_features();
  f.vbmi = false;
  const KernelSet k = simd::avx2::kernel_set(f);
  Impl impl;
  impl.lib = "avx2_novbmi";
  impl.conv = [k](const ConvProblem& p, std::int32_t* y) { return p.groups > 1 ? conv_runner(k, p, y) : Runner{}; };
  impl.conv8 = [k](const ConvProblem& p, std::int8_t* y) { return p.groups > 1 ? conv8_runner(k, p, y) : Runner{}; };
  return impl;
}
QSPEC_REGISTER_BENCH_IMPL(simd::detect_cpu_features().vbmi ? backend_novbmi_impl() : Impl{});
// The depthwise int8 rows under TFLite's double rounding (kQ31Double) instead of xnnpack.fp32: the
// epilogue VnniZmm::PairPack does not implement, which the kernels run per vector through Sink's.
Impl backend_tflite_impl() {
  const KernelSet k = simd::avx2::kernel_set(simd::cpu_features());
  Impl impl;
  impl.lib = "avx2_tflite";
  impl.int8_epilogue = Epilogue::kQ31DoubleRounding;
  impl.conv8 = [k](const ConvProblem& p, std::int8_t* y) {
    return p.groups > 1 ? conv8_runner(k, p, y, false, simd::RequantKind::kQ31Double) : Runner{};
  };
  return impl;
}
QSPEC_REGISTER_BENCH_IMPL(backend_tflite_impl());
QSPEC_REGISTER_BENCH_IMPL(backend_impl("scalar", simd::CpuFeatures{}));

// ---- the exact reference (cpp_int), on problems shrunk 64x ----

using ref::Int;
using ref::ops::NdArray;

Impl reference_impl() {
  Impl impl;
  impl.lib = "reference";
  impl.shrink = 64;
  impl.fc = [](const FcProblem& p, std::int32_t* y) -> Runner {
    return [&p, y] {
      NdArray<Int> x({p.m, p.k}), w({p.n, p.k});
      for (std::size_t i = 0; i < p.x.size(); ++i) x.data[i] = Int(p.x[i] - p.zx);
      for (std::size_t i = 0; i < p.w.size(); ++i) w.data[i] = Int(p.w[i]);
      const NdArray<Int> r = ref::ops::fully_connected(x, w);
      for (std::size_t i = 0; i < r.data.size(); ++i) y[i] = static_cast<std::int32_t>(r.data[i]);
    };
  };
  impl.conv = [](const ConvProblem& p, std::int32_t* y) -> Runner {
    return [&p, y] {
      NdArray<Int> x({1, p.c, p.h, p.w}), w({p.o, p.c / p.groups, p.k, p.k});
      for (std::int64_t h = 0; h < p.h; ++h)
        for (std::int64_t v = 0; v < p.w; ++v)
          for (std::int64_t c = 0; c < p.c; ++c)
            x.at4(0, c, h, v) = Int(p.x[static_cast<std::size_t>((h * p.w + v) * p.c + c)] - p.zx);
      for (std::size_t i = 0; i < p.wt.size(); ++i) w.data[i] = Int(p.wt[i]);
      ref::ops::Conv2dAttrs a;
      a.stride = {p.stride, p.stride};
      a.padding = {p.pad, p.pad};
      a.groups = p.groups;
      const NdArray<Int> r = ref::ops::conv2d(x, w, a);  // NCHW; padded with the real 0
      const std::int64_t oh = r.dim(2), ow = r.dim(3);
      for (std::int64_t o = 0; o < p.o; ++o)
        for (std::int64_t i = 0; i < oh * ow; ++i)
          y[i * p.o + o] = static_cast<std::int32_t>(r.data[static_cast<std::size_t>(o * oh * ow + i)]);
    };
  };
  impl.requant = [](const RequantProblem& p, std::int8_t* y) -> Runner {
    const refops::OpImpl* op = refops::find_op(cat::requantize::op, p.convention);
    if (!op) return {};
    return [op, &p, y] {
      Tensor x{std::string(cat::requantize::in::x), DType::I32, {static_cast<std::int64_t>(p.x.size())}, {}};
      x.data.assign(p.x.begin(), p.x.end());
      const auto out = op->fn(p.attrs, {x});
      for (std::size_t i = 0; i < out[0].data.size(); ++i) y[i] = static_cast<std::int8_t>(out[0].data[i]);
    };
  };
  return impl;
}

QSPEC_REGISTER_BENCH_IMPL(reference_impl());

}  // namespace
}  // namespace qspec::bench
