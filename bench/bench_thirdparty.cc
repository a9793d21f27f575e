// The third-party libraries in the benchmark: gemmlowp, XNNPACK and oneDNN on the same problems as
// qspec's backend (bench_problems.h), single-threaded, each through its own public API.
//
// - fully_connected / conv2d (int32 accumulators, activation zero point, zero-point padding):
//   gemmlowp (uint8 GEMM: int8 operands shifted by +128 with offsets; conv by im2col, no depthwise),
//   oneDNN (matmul / convolution with a source zero point, weights in the layout oneDNN picks).
//   XNNPACK has no int32-output operator: its fully connected / convolution always requantize, so
//   they are registered separately as BM_<op>/xnnpack_int8out/<shape> (checked against an exact
//   emulation of XNNPACK's fp32 epilogue over the exact accumulators).
// - requantize: each library's own requantization for the conventions it implements (see below).
// Every implementation's output is checked against qspec's avx2 backend before it is timed (the
// driver skips a disagreeing one). oneDNN honours ONEDNN_MAX_CPU_ISA (e.g. AVX2_VNNI for an
// ISA-for-ISA comparison with the avx2 backend); its OpenMP runtime is held to one thread.
#include <benchmark/benchmark.h>
#include <dlfcn.h>
#include <gemmlowp/public/gemmlowp.h>
#include <oneapi/dnnl/dnnl.hpp>
#include <xnnpack.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "bench_problems.h"
#include "qspec/catalogue/keys.h"
#include "qspec/core/attr.h"

namespace qspec::bench {
namespace {

// ---------------- gemmlowp ----------------

using GemmlowpLhs = gemmlowp::MatrixMap<const std::uint8_t, gemmlowp::MapOrder::RowMajor>;
using GemmlowpRhs = gemmlowp::MatrixMap<const std::uint8_t, gemmlowp::MapOrder::ColMajor>;
using GemmlowpOut = gemmlowp::MatrixMap<std::int32_t, gemmlowp::MapOrder::RowMajor>;

// y (rows x n) = (a - a_off) (b - 128)^T for uint8 a (rows x k) and b (n x k, shifted int8 weights).
void gemmlowp_gemm(gemmlowp::GemmContext& ctx, const std::uint8_t* a, std::int64_t rows, std::int64_t k, int a_zero,
                   const std::uint8_t* b, std::int64_t n, std::int32_t* y) {
  GemmlowpLhs lhs(a, static_cast<int>(rows), static_cast<int>(k));
  GemmlowpRhs rhs(b, static_cast<int>(k), static_cast<int>(n));  // column j = weight row j
  GemmlowpOut out(y, static_cast<int>(rows), static_cast<int>(n));
  gemmlowp::GemmWithOutputPipeline<std::uint8_t, std::int32_t, gemmlowp::DefaultL8R8BitDepthParams>(
      &ctx, lhs, rhs, &out, -a_zero, -128, std::make_tuple());
}

std::vector<std::uint8_t> shifted(const std::vector<std::int8_t>& v) {
  std::vector<std::uint8_t> u(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) u[i] = static_cast<std::uint8_t>(v[i] + 128);
  return u;
}

Runner gemmlowp_fc(const FcProblem& p, std::int32_t* y) {
  auto ctx = std::make_shared<gemmlowp::GemmContext>();
  ctx->set_max_num_threads(1);
  auto w = std::make_shared<std::vector<std::uint8_t>>(shifted(p.w));
  auto x = std::make_shared<std::vector<std::uint8_t>>(p.x.size());
  return [ctx, w, x, &p, y] {
    // gemmlowp takes uint8 only: the int8 activations are shifted on every call (part of the cost).
    for (std::size_t i = 0; i < p.x.size(); ++i) (*x)[i] = static_cast<std::uint8_t>(p.x[i] + 128);
    gemmlowp_gemm(*ctx, x->data(), p.m, p.k, p.zx + 128, w->data(), p.n, y);
  };
}

Runner gemmlowp_conv(const ConvProblem& p, std::int32_t* y) {
  if (p.groups != 1) return {};  // no depthwise convolution in gemmlowp
  const std::int64_t kk = p.k * p.k * p.c, pixels = p.oh() * p.ow();
  auto ctx = std::make_shared<gemmlowp::GemmContext>();
  ctx->set_max_num_threads(1);
  // OIHW -> O x (kh, kw, c), shifted.
  auto w = std::make_shared<std::vector<std::uint8_t>>(static_cast<std::size_t>(p.o * kk));
  for (std::int64_t o = 0; o < p.o; ++o)
    for (std::int64_t c = 0; c < p.c; ++c)
      for (std::int64_t i = 0; i < p.k * p.k; ++i)
        (*w)[static_cast<std::size_t>(o * kk + i * p.c + c)] =
            static_cast<std::uint8_t>(p.wt[static_cast<std::size_t>((o * p.c + c) * p.k * p.k + i)] + 128);
  auto col = std::make_shared<std::vector<std::uint8_t>>(static_cast<std::size_t>(pixels * kk));
  return [ctx, w, col, &p, y, kk, pixels] {
    // im2col of the NHWC input, padded with the (shifted) input zero point: part of the cost.
    const auto pad = static_cast<std::uint8_t>(p.zx + 128);
    std::uint8_t* dst = col->data();
    for (std::int64_t oy = 0; oy < p.oh(); ++oy)
      for (std::int64_t ox = 0; ox < p.ow(); ++ox)
        for (std::int64_t ky = 0; ky < p.k; ++ky)
          for (std::int64_t kx = 0; kx < p.k; ++kx) {
            const std::int64_t iy = oy * p.stride + ky - p.pad, ix = ox * p.stride + kx - p.pad;
            if (iy < 0 || iy >= p.h || ix < 0 || ix >= p.w) {
              std::memset(dst, pad, static_cast<std::size_t>(p.c));
            } else {
              const std::int8_t* src = &p.x[static_cast<std::size_t>((iy * p.w + ix) * p.c)];
              for (std::int64_t c = 0; c < p.c; ++c) dst[c] = static_cast<std::uint8_t>(src[c] + 128);
            }
            dst += p.c;
          }
    gemmlowp_gemm(*ctx, col->data(), pixels, kk, p.zx + 128, w->data(), p.o, y);
  };
}

struct XnnOpHolder {
  xnn_operator_t op = nullptr;
  ~XnnOpHolder() {
    if (op) xnn_delete_operator(op);
  }
};

// ---------------- oneDNN ----------------

void onednn_single_thread() {
  // libgomp has read OMP_NUM_THREADS before any of this runs; ask the runtime directly.
  using SetThreads = void (*)(int);
  if (auto f = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "omp_set_num_threads"))) f(1);
}

dnnl::engine& dnnl_engine() {
  static dnnl::engine e = (onednn_single_thread(), dnnl::engine(dnnl::engine::kind::cpu, 0));
  return e;
}
dnnl::stream& dnnl_stream() {
  static dnnl::stream s(dnnl_engine());
  return s;
}

Runner onednn_fc(const FcProblem& p, std::int32_t* y) {
  using dnnl::memory;
  auto& eng = dnnl_engine();
  const memory::desc src_md({p.m, p.k}, memory::data_type::s8, memory::format_tag::ab);
  const memory::desc wei_any({p.k, p.n}, memory::data_type::s8, memory::format_tag::any);
  const memory::desc dst_md({p.m, p.n}, memory::data_type::s32, memory::format_tag::ab);
  dnnl::primitive_attr attr;
  attr.set_zero_points(DNNL_ARG_SRC, 0, {p.zx});
  const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(src_md, wei_any, dst_md), attr, eng);
  // Weights reordered once into oneDNN's layout (as a user's model load does).
  memory user_w({{p.k, p.n}, memory::data_type::s8, memory::format_tag::ba}, eng, const_cast<std::int8_t*>(p.w.data()));
  auto w = std::make_shared<memory>(pd.weights_desc(), eng);
  dnnl::reorder(user_w, *w).execute(dnnl_stream(), user_w, *w);
  dnnl_stream().wait();
  auto prim = std::make_shared<dnnl::matmul>(pd);
  auto src = std::make_shared<memory>(src_md, eng, const_cast<std::int8_t*>(p.x.data()));
  auto dst = std::make_shared<memory>(dst_md, eng, y);
  return [prim, src, w, dst] {
    prim->execute(dnnl_stream(), {{DNNL_ARG_SRC, *src}, {DNNL_ARG_WEIGHTS, *w}, {DNNL_ARG_DST, *dst}});
    dnnl_stream().wait();
  };
}

Runner onednn_conv(const ConvProblem& p, std::int32_t* y) {
  using dnnl::memory;
  auto& eng = dnnl_engine();
  const memory::dims src_dims{1, p.c, p.h, p.w}, dst_dims{1, p.o, p.oh(), p.ow()};
  const memory::dims wei_dims = p.groups == 1 ? memory::dims{p.o, p.c, p.k, p.k}
                                              : memory::dims{p.groups, p.o / p.groups, p.c / p.groups, p.k, p.k};
  const memory::desc src_md(src_dims, memory::data_type::s8, memory::format_tag::nhwc);
  const memory::desc dst_md(dst_dims, memory::data_type::s32, memory::format_tag::nhwc);
  const memory::desc wei_any(wei_dims, memory::data_type::s8, memory::format_tag::any);
  dnnl::primitive_attr attr;
  attr.set_zero_points(DNNL_ARG_SRC, 0, {p.zx});  // padding then stands for the zero point
  const dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src_md,
                                          wei_any, dst_md, {p.stride, p.stride}, {0, 0}, {p.pad, p.pad}, {p.pad, p.pad});
  const dnnl::convolution_forward::primitive_desc pd(d, attr, eng);
  memory user_w({wei_dims, memory::data_type::s8, p.groups == 1 ? memory::format_tag::oihw : memory::format_tag::goihw}, eng,
                const_cast<std::int8_t*>(p.wt.data()));
  auto w = std::make_shared<memory>(pd.weights_desc(), eng);
  dnnl::reorder(user_w, *w).execute(dnnl_stream(), user_w, *w);
  dnnl_stream().wait();
  auto prim = std::make_shared<dnnl::convolution_forward>(pd);
  auto src = std::make_shared<memory>(src_md, eng, const_cast<std::int8_t*>(p.x.data()));
  auto dst = std::make_shared<memory>(dst_md, eng, y);
  return [prim, src, w, dst] {
    prim->execute(dnnl_stream(), {{DNNL_ARG_SRC, *src}, {DNNL_ARG_WEIGHTS, *w}, {DNNL_ARG_DST, *dst}});
    dnnl_stream().wait();
  };
}

// ---------------- requantize: each library's own requantization, prepared once ----------------
//
// Only oneDNN exports a standalone requantization (a reorder s32 -> s8 with an output scale and a
// destination zero point). gemmlowp's is an output stage of its GEMM and XNNPACK's the epilogue of
// its GEMM kernels, so they are timed as the adapters run them: gemmlowp a 1 x n GEMM whose bias
// stage injects the accumulators (packing a 1 x n zero matrix is part of its cost), XNNPACK a
// fully connected layer with one input channel and bias = accumulators (created once: the
// accumulators are packed with the weights, and a run re-reads them and requantizes).

using R = cat::requantize;

// The problem's float32 scale attribute as a float.
float scale_of(const RequantProblem& p) { return std::bit_cast<float>(attr::get(p.attrs, R::attr::scale)); }
// An integer attribute the library takes as an int (the problems' values fit).
int int_attr(const RequantProblem& p, const attr::Int& key) { return static_cast<int>(attr::get(p.attrs, key)); }

Runner gemmlowp_requant(const RequantProblem& p, std::int8_t* y) {
  const bool legacy = p.convention == R::conv::gemmlowp_legacy_uint8_scale;
  if (p.convention != R::conv::gemmlowp_double_round && !legacy) return {};
  auto ctx = std::make_shared<gemmlowp::GemmContext>();
  ctx->set_max_num_threads(1);
  const int n = static_cast<int>(p.x.size());
  auto zeros = std::make_shared<std::vector<std::uint8_t>>(p.x.size(), 0);
  auto one = std::make_shared<std::vector<std::uint8_t>>(1, 0);
  auto out = std::make_shared<std::vector<std::int32_t>>(p.x.size());
  using Bias = gemmlowp::OutputStageBiasAddition<gemmlowp::VectorMap<const std::int32_t, gemmlowp::VectorShape::Row>>;
  Bias bias;
  bias.bias_vector = gemmlowp::VectorMap<const std::int32_t, gemmlowp::VectorShape::Row>(p.x.data(), n);
  gemmlowp::OutputStageClamp clamp;
  clamp.min = -128;
  clamp.max = 127;
  if (legacy) {
    gemmlowp::OutputStageQuantizeDownInt32ToUint8Scale q;
    q.result_offset = int_attr(p, R::attr::result_offset);
    q.result_mult_int = int_attr(p, R::attr::result_mult_int);
    q.result_shift = int_attr(p, R::attr::result_shift);
    return [=, &p] {
      GemmlowpLhs lhs(one->data(), 1, 1);
      GemmlowpRhs rhs(zeros->data(), 1, n);
      gemmlowp::MatrixMap<std::int32_t, gemmlowp::MapOrder::ColMajor> res(out->data(), 1, n);
      gemmlowp::GemmWithOutputPipeline<std::uint8_t, std::int32_t, gemmlowp::DefaultL8R8BitDepthParams>(
          ctx.get(), lhs, rhs, &res, 0, 0, std::make_tuple(bias, q, clamp));
      for (std::size_t i = 0; i < p.x.size(); ++i) y[i] = static_cast<std::int8_t>((*out)[i]);
    };
  }
  const int shift = int_attr(p, R::attr::shift);
  if (shift > 0) return {};
  gemmlowp::OutputStageQuantizeDownInt32ByFixedPoint q;
  q.result_fixedpoint_multiplier = int_attr(p, R::attr::multiplier);
  q.result_shift = -shift;
  q.result_offset_after_shift = int_attr(p, R::attr::output_zero_point);
  return [=, &p] {
    GemmlowpLhs lhs(one->data(), 1, 1);
    GemmlowpRhs rhs(zeros->data(), 1, n);
    gemmlowp::MatrixMap<std::int32_t, gemmlowp::MapOrder::ColMajor> res(out->data(), 1, n);
    gemmlowp::GemmWithOutputPipeline<std::uint8_t, std::int32_t, gemmlowp::DefaultL8R8BitDepthParams>(
        ctx.get(), lhs, rhs, &res, 0, 0, std::make_tuple(bias, q, clamp));
    // The int32 clamp result narrowed to int8 (the int8 cast stage has no SSE implementation).
    for (std::size_t i = 0; i < p.x.size(); ++i) y[i] = static_cast<std::int8_t>((*out)[i]);
  };
}

Runner xnnpack_requant(const RequantProblem& p, std::int8_t* y) {
  if (p.convention != R::conv::xnnpack_fp32 || xnn_initialize(nullptr) != xnn_status_success) return {};
  const std::size_t n = p.x.size();
  auto kernel = std::make_shared<std::vector<std::int8_t>>(n, 0);
  auto in = std::make_shared<std::vector<std::int8_t>>(1, 0);
  auto op = std::make_shared<XnnOpHolder>();
  if (xnn_create_fully_connected_nc_qs8(1, n, 1, n, 0, scale_of(p), 1.0f, kernel->data(), p.x.data(),
                                        static_cast<std::int8_t>(int_attr(p, R::attr::output_zero_point)), 1.0f, INT8_MIN,
                                        INT8_MAX, 0, &op->op) != xnn_status_success ||
      xnn_setup_fully_connected_nc_qs8(op->op, 1, in->data(), y, nullptr) != xnn_status_success)
    return {};
  return [op, kernel, in] { xnn_run_operator(op->op, nullptr); };
}

Runner onednn_requant(const RequantProblem& p, std::int8_t* y) {
  if (p.convention != R::conv::onednn_fp32) return {};
  using dnnl::memory;
  auto& eng = dnnl_engine();
  const memory::dim n = static_cast<memory::dim>(p.x.size());
  const memory::desc src_md({n}, memory::data_type::s32, memory::format_tag::a);
  const memory::desc dst_md({n}, memory::data_type::s8, memory::format_tag::a);
  dnnl::primitive_attr attr;
  attr.set_output_scales(0, {scale_of(p)});
  attr.set_zero_points(DNNL_ARG_DST, 0, {int_attr(p, R::attr::output_zero_point)});
  const dnnl::reorder::primitive_desc pd(eng, src_md, eng, dst_md, attr);
  auto prim = std::make_shared<dnnl::reorder>(pd);
  auto src = std::make_shared<memory>(src_md, eng, const_cast<std::int32_t*>(p.x.data()));
  auto dst = std::make_shared<memory>(dst_md, eng, y);
  return [prim, src, dst] {
    prim->execute(dnnl_stream(), *src, *dst);
    dnnl_stream().wait();
  };
}

Impl gemmlowp_impl() {
  Impl i;
  i.lib = "gemmlowp";
  i.fc = gemmlowp_fc;
  i.conv = gemmlowp_conv;
  i.requant = gemmlowp_requant;
  return i;
}
Impl onednn_impl() {
  Impl i;
  i.lib = "onednn";
  i.fc = onednn_fc;
  i.conv = onednn_conv;
  i.requant = onednn_requant;
  return i;
}
Impl xnnpack_impl() {
  Impl i;
  i.lib = "xnnpack";
  i.requant = xnnpack_requant;
  return i;
}

QSPEC_REGISTER_BENCH_IMPL(gemmlowp_impl());
QSPEC_REGISTER_BENCH_IMPL(xnnpack_impl());
QSPEC_REGISTER_BENCH_IMPL(onednn_impl());

// ---------------- XNNPACK fully connected / convolution (requantized int8 outputs) ----------------

// XNNPACK's x86 epilogue, emulated exactly: sat(rne(fl32(fl32(acc) * scale)) + zp) (the
// accumulators here stay below 2^24, so fl32(acc) is exact).
std::int8_t xnn_epilogue(std::int64_t acc, float scale, int zp) {
  float v = static_cast<float>(acc) * scale;
  v = std::min(v, static_cast<float>(127 - zp));
  v = std::max(v, static_cast<float>(-128 - zp));
  return static_cast<std::int8_t>(static_cast<int>(std::nearbyint(v)) + zp);
}

constexpr float kInScale = 0.5f, kKernelScale = 1.0f / 64, kOutScale = 1.0f;  // scale 2^-7, exact
constexpr int kOutZp = -3;

void register_xnnpack_int8out() {
  if (xnn_initialize(nullptr) != xnn_status_success) return;
  std::mt19937_64 rng(20261122);
  auto bytes = [&rng](std::size_t n) {
    std::vector<std::int8_t> v(n);
    for (auto& x : v) x = static_cast<std::int8_t>(rng());
    return v;
  };
  const float scale = kInScale * kKernelScale / kOutScale;
  const int zx = 3;
  for (std::int64_t nk : {256, 1024})
    for (std::int64_t m : {1, 16, 128}) {
      auto x = std::make_shared<std::vector<std::int8_t>>(bytes(static_cast<std::size_t>(m * nk)));
      auto w = std::make_shared<std::vector<std::int8_t>>(bytes(static_cast<std::size_t>(nk * nk)));
      auto y = std::make_shared<std::vector<std::int8_t>>(static_cast<std::size_t>(m * nk));
      auto op = std::make_shared<XnnOpHolder>();
      const auto n = static_cast<std::size_t>(nk), k = static_cast<std::size_t>(nk);
      if (xnn_create_fully_connected_nc_qs8(k, n, k, n, zx, kInScale, kKernelScale, w->data(), nullptr, kOutZp, kOutScale,
                                            INT8_MIN, INT8_MAX, 0, &op->op) != xnn_status_success ||
          xnn_setup_fully_connected_nc_qs8(op->op, static_cast<std::size_t>(m), x->data(), y->data(), nullptr) !=
              xnn_status_success)
        continue;
      xnn_run_operator(op->op, nullptr);
      bool good = true;
      for (std::int64_t i = 0; i < m && good; ++i)
        for (std::int64_t j = 0; j < nk && good; ++j) {
          std::int64_t acc = 0;
          for (std::int64_t t = 0; t < nk; ++t)
            acc += (static_cast<std::int64_t>((*x)[static_cast<std::size_t>(i * nk + t)]) - zx) * (*w)[static_cast<std::size_t>(j * nk + t)];
          good = (*y)[static_cast<std::size_t>(i * nk + j)] == xnn_epilogue(acc, scale, kOutZp);
        }
      const std::string shape = "M" + std::to_string(m) + "_N" + std::to_string(nk) + "_K" + std::to_string(nk);
      if (!good) {
        std::fprintf(stderr, "bench: xnnpack fully connected disagrees with its emulated epilogue on %s\n", shape.c_str());
        continue;
      }
      const double ops = 2.0 * static_cast<double>(m * nk * nk);
      benchmark::RegisterBenchmark(("BM_fully_connected/xnnpack_int8out/" + shape).c_str(), [op, x, w, y, ops](benchmark::State& st) {
        for (auto _ : st) xnn_run_operator(op->op, nullptr);
        st.counters["GOPS"] = benchmark::Counter(ops * static_cast<double>(st.iterations()) * 1e-9, benchmark::Counter::kIsRate);
      })->Unit(benchmark::kMicrosecond);
    }
  // conv2d 3x3 s1 56x56 64->64 and depthwise 3x3 112x112x32, NHWC, padding 1 (input zero point).
  struct Shape {
    std::int64_t h, c, o, groups;
    const char* op;
    const char* name;
  };
  for (const Shape s : {Shape{56, 64, 64, 1, "BM_conv2d", "56x56x64_64_3x3"},
                        Shape{112, 32, 32, 32, "BM_depthwise_conv2d", "112x112x32_dw3x3"}}) {
    const std::size_t gic = static_cast<std::size_t>(s.c / s.groups), goc = static_cast<std::size_t>(s.o / s.groups);
    auto x = std::make_shared<std::vector<std::int8_t>>(bytes(static_cast<std::size_t>(s.h * s.h * s.c)));
    auto w = std::make_shared<std::vector<std::int8_t>>(bytes(static_cast<std::size_t>(s.o) * gic * 9));  // OHWI
    auto y = std::make_shared<std::vector<std::int8_t>>(static_cast<std::size_t>(s.h * s.h * s.o));
    auto op = std::make_shared<XnnOpHolder>();
    if (xnn_create_convolution2d_nhwc_qs8(1, 1, 1, 1, 3, 3, 1, 1, 1, 1, static_cast<std::uint32_t>(s.groups), gic, goc,
                                          static_cast<std::size_t>(s.c), static_cast<std::size_t>(s.o), zx, kInScale,
                                          kKernelScale, w->data(), nullptr, kOutZp, kOutScale, INT8_MIN, INT8_MAX, 0,
                                          &op->op) != xnn_status_success ||
        xnn_setup_convolution2d_nhwc_qs8(op->op, 1, static_cast<std::size_t>(s.h), static_cast<std::size_t>(s.h), x->data(),
                                         y->data(), nullptr) != xnn_status_success)
      continue;
    xnn_run_operator(op->op, nullptr);
    // Check a strided sample of outputs against the exact accumulator and the emulated epilogue.
    bool good = true;
    for (std::int64_t idx = 0; idx < s.h * s.h * s.o && good; idx += 97) {
      const std::int64_t oc = idx % s.o, pix = idx / s.o, oy = pix / s.h, ox = pix % s.h, g = oc / static_cast<std::int64_t>(goc);
      std::int64_t acc = 0;
      for (std::int64_t ky = 0; ky < 3; ++ky)
        for (std::int64_t kx = 0; kx < 3; ++kx)
          for (std::size_t ic = 0; ic < gic; ++ic) {
            const std::int64_t iy = oy + ky - 1, ix = ox + kx - 1;
            const std::int64_t xv = (iy < 0 || iy >= s.h || ix < 0 || ix >= s.h)
                                        ? zx
                                        : (*x)[static_cast<std::size_t>((iy * s.h + ix) * s.c + g * static_cast<std::int64_t>(gic) +
                                                                        static_cast<std::int64_t>(ic))];
            acc += (xv - zx) * (*w)[static_cast<std::size_t>(((oc * 3 + ky) * 3 + kx) * static_cast<std::int64_t>(gic)) + ic];
          }
      good = (*y)[static_cast<std::size_t>(idx)] == xnn_epilogue(acc, kInScale * kKernelScale / kOutScale, kOutZp);
    }
    if (!good) {
      std::fprintf(stderr, "bench: xnnpack convolution disagrees with its emulated epilogue on %s\n", s.name);
      continue;
    }
    const double ops = 2.0 * static_cast<double>(s.h * s.h * s.o) * static_cast<double>(gic) * 9;
    benchmark::RegisterBenchmark((std::string(s.op) + "/xnnpack_int8out/" + s.name).c_str(), [op, x, w, y, ops](benchmark::State& st) {
      for (auto _ : st) xnn_run_operator(op->op, nullptr);
      st.counters["GOPS"] = benchmark::Counter(ops * static_cast<double>(st.iterations()) * 1e-9, benchmark::Counter::kIsRate);
    })->Unit(benchmark::kMicrosecond);
  }
}

[[maybe_unused]] const bool kXnnpackRegistered = (register_xnnpack_int8out(), true);

}  // namespace
}  // namespace qspec::bench
