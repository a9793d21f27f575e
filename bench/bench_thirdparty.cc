// The third-party libraries in the benchmark: gemmlowp, XNNPACK and oneDNN on the same problems as
// qspec's backend (bench_problems.h), single-threaded, each through its own public API, in every
// configuration a performance-minded user would try (bench_ratio keeps the fastest exact one).
//
// - fully_connected / conv2d with int32 outputs (activation zero point, zero-point padding):
//   gemmlowp (uint8 GEMM: int8 operands shifted by +128 with offsets; conv by im2col, no depthwise),
//   oneDNN as onednn.<configuration> (matmul / inner product / 1x1 convolution, s8 or u8 source,
//   run-time or folded zero point; convolutions with s8 or u8 source), weights reordered once into
//   the layout oneDNN picks; the benchmark's label is the implementation oneDNN dispatched to.
// - the same operators with int8 outputs (BM_<op>_int8out): oneDNN's configurations with an output
//   scale and a destination zero point, XNNPACK's qs8 and qc8 operators.
// - requantize: each library's own requantization for the conventions it implements (see below).
// - avg_pool_int8: XNNPACK's qu8 windowed / qs8 global average pooling on the xnnpack.fp32
//   problems, oneDNN's s8 pooling on the onednn ones;
// - add_int8 / mul_int8 (qlinear.add / qlinear.mul of two same-shape int8 tensors, or against a
//   per-channel row): XNNPACK's qs8 add / multiply on the xnnpack.fp32 problems, oneDNN's binary add /
//   mul with s8 sources, source scales and the zero point as an eltwise_linear post-op on the onednn
//   problems (see below).
// Every implementation's output is checked before it is timed (the driver skips a disagreeing
// one, saying so). oneDNN honours ONEDNN_MAX_CPU_ISA (e.g. AVX2_VNNI for an ISA-for-ISA comparison
// with the avx2 backend); its OpenMP runtime is held to one thread.
#include <benchmark/benchmark.h>
#include <dlfcn.h>
#include <gemmlowp/public/gemmlowp.h>
#include <xnnpack.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <oneapi/dnnl/dnnl.hpp>
#include <random>
#include <stdexcept>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
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

// The configurations a performance-minded user would try (bench_problems.h): the primitive, the
// source type (u8: the int8 activations + 128 with the zero point + 128, converted once, as a
// model whose activations are u8 holds them), and the source zero point either as a run-time
// attribute or folded into an s32 bias (-zp * colsum(W), formed at weight-load time).
enum class DnnPrim { kMatmul, kInnerProduct, kConv1x1 };
struct DnnFc {
  const char* name;
  DnnPrim prim;
  bool u8;
  bool fold;
};
constexpr DnnFc kDnnFcConfigs[] = {
    {"matmul_s8", DnnPrim::kMatmul, false, false},      {"matmul_u8", DnnPrim::kMatmul, true, false},
    {"matmul_u8_fold", DnnPrim::kMatmul, true, true},   {"ip_s8_fold", DnnPrim::kInnerProduct, false, true},
    {"ip_u8_fold", DnnPrim::kInnerProduct, true, true}, {"conv1x1_s8", DnnPrim::kConv1x1, false, false},
    {"conv1x1_u8", DnnPrim::kConv1x1, true, false},
};

// The int8-output attributes: output scale and destination zero point (bench_problems.h Int8Out).
void int8out_attr(dnnl::primitive_attr& attr) {
  attr.set_output_scales(0, {Int8Out::kScale});
  attr.set_zero_points(DNNL_ARG_DST, 0, {Int8Out::kOutZp});
}

// The source as the configuration takes it: int8 as given, or u8 = int8 + 128.
struct DnnSrc {
  std::shared_ptr<std::vector<std::uint8_t>> u8;
  const void* data;
  std::int32_t zp;
};
DnnSrc dnn_src(const std::vector<std::int8_t>& x, std::int32_t zx, bool u8) {
  DnnSrc s;
  if (!u8) {
    s.data = x.data();
    s.zp = zx;
    return s;
  }
  s.u8 = std::make_shared<std::vector<std::uint8_t>>(shifted(x));
  s.data = s.u8->data();
  s.zp = zx + 128;
  return s;
}

// A prepared oneDNN primitive with its weights reordered once into the layout it picked.
template <class PD, class Prim>
Runner dnn_runner(const PD& pd, const dnnl::memory::desc& user_w_md, const std::int8_t* w_data, const DnnSrc& src_data,
                  const dnnl::memory::desc& src_md, const dnnl::memory::desc& dst_md, void* y,
                  std::shared_ptr<std::vector<std::int32_t>> bias) {
  using dnnl::memory;
  auto& eng = dnnl_engine();
  memory user_w(user_w_md, eng, const_cast<std::int8_t*>(w_data));
  auto w = std::make_shared<memory>(pd.weights_desc(), eng);
  dnnl::reorder(user_w, *w).execute(dnnl_stream(), user_w, *w);
  dnnl_stream().wait();
  runner_label() = pd.impl_info_str();
  auto prim = std::make_shared<Prim>(pd);
  auto src = std::make_shared<memory>(src_md, eng, const_cast<void*>(src_data.data));
  auto dst = std::make_shared<memory>(dst_md, eng, y);
  std::shared_ptr<memory> b;
  if (bias) b = std::make_shared<memory>(pd.bias_desc(), eng, bias->data());
  auto keep = src_data.u8;
  return [prim, src, w, dst, b, bias, keep] {
    std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_SRC, *src}, {DNNL_ARG_WEIGHTS, *w}, {DNNL_ARG_DST, *dst}};
    if (b) args.insert({DNNL_ARG_BIAS, *b});
    prim->execute(dnnl_stream(), args);
    dnnl_stream().wait();
  };
}

Runner onednn_fc(const DnnFc& c, const FcProblem& p, void* y, bool int8out) {
  using dnnl::memory;
  using dt = memory::data_type;
  using tag = memory::format_tag;
  auto& eng = dnnl_engine();
  const DnnSrc s = dnn_src(p.x, p.zx, c.u8);
  const dt src_t = c.u8 ? dt::u8 : dt::s8, dst_t = int8out ? dt::s8 : dt::s32;
  dnnl::primitive_attr attr;
  if (!c.fold) attr.set_zero_points(DNNL_ARG_SRC, 0, {s.zp});
  if (int8out) int8out_attr(attr);
  std::shared_ptr<std::vector<std::int32_t>> bias;
  if (c.fold) {  // -zp * colsum(W): exact in int32 here
    bias = std::make_shared<std::vector<std::int32_t>>(static_cast<std::size_t>(p.n));
    for (std::int64_t j = 0; j < p.n; ++j) {
      std::int32_t sum = 0;
      for (std::int64_t t = 0; t < p.k; ++t) sum += p.w[static_cast<std::size_t>(j * p.k + t)];
      (*bias)[static_cast<std::size_t>(j)] = -s.zp * sum;
    }
  }
  try {
    if (c.prim == DnnPrim::kMatmul) {
      const memory::desc src_md({p.m, p.k}, src_t, tag::ab), dst_md({p.m, p.n}, dst_t, tag::ab);
      const memory::desc wei_any({p.k, p.n}, dt::s8, tag::any);
      const memory::desc bias_md = c.fold ? memory::desc({1, p.n}, dt::s32, tag::ab) : memory::desc();
      const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(src_md, wei_any, bias_md, dst_md), attr, eng);
      return dnn_runner<dnnl::matmul::primitive_desc, dnnl::matmul>(pd, {{p.k, p.n}, dt::s8, tag::ba}, p.w.data(), s,
                                                                    src_md, dst_md, y, bias);
    }
    if (c.prim == DnnPrim::kInnerProduct) {
      const memory::desc src_md({p.m, p.k}, src_t, tag::nc), dst_md({p.m, p.n}, dst_t, tag::nc);
      const memory::desc wei_any({p.n, p.k}, dt::s8, tag::any), bias_md({p.n}, dt::s32, tag::x);
      const dnnl::inner_product_forward::primitive_desc pd(
          dnnl::inner_product_forward::desc(dnnl::prop_kind::forward_inference, src_md, wei_any, bias_md, dst_md), attr,
          eng);
      return dnn_runner<dnnl::inner_product_forward::primitive_desc, dnnl::inner_product_forward>(
          pd, {{p.n, p.k}, dt::s8, tag::oi}, p.w.data(), s, src_md, dst_md, y, bias);
    }
    // 1x1 convolution over the M rows as the pixels of a 1 x M image (NHWC: row-major M x K).
    const memory::desc src_md({1, p.k, 1, p.m}, src_t, tag::nhwc), dst_md({1, p.n, 1, p.m}, dst_t, tag::nhwc);
    const memory::desc wei_any({p.n, p.k, 1, 1}, dt::s8, tag::any);
    const memory::desc bias_md = c.fold ? memory::desc({p.n}, dt::s32, tag::x) : memory::desc();
    const dnnl::convolution_forward::primitive_desc pd(
        dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src_md,
                                        wei_any, bias_md, dst_md, {1, 1}, {0, 0}, {0, 0}),
        attr, eng);
    return dnn_runner<dnnl::convolution_forward::primitive_desc, dnnl::convolution_forward>(
        pd, {{p.n, p.k, 1, 1}, dt::s8, tag::oihw}, p.w.data(), s, src_md, dst_md, y, bias);
  } catch (const dnnl::error& e) {
    std::fprintf(stderr, "bench: onednn.%s has no implementation for %s%s (%s): not benchmarked\n", c.name,
                 p.shape().c_str(), int8out ? " with int8 output" : "", e.what());
    return {};
  }
}

// conv2d / depthwise with the source zero point as a run-time attribute (padding then stands for
// the zero point; folding it into a bias would be wrong at the borders), s8 or u8 source.
Runner onednn_conv(bool u8, const ConvProblem& p, void* y, bool int8out) {
  using dnnl::memory;
  using dt = memory::data_type;
  auto& eng = dnnl_engine();
  const DnnSrc s = dnn_src(p.x, p.zx, u8);
  const memory::dims src_dims{1, p.c, p.h, p.w}, dst_dims{1, p.o, p.oh(), p.ow()};
  const memory::dims wei_dims = p.groups == 1 ? memory::dims{p.o, p.c, p.k, p.k}
                                              : memory::dims{p.groups, p.o / p.groups, p.c / p.groups, p.k, p.k};
  const memory::desc src_md(src_dims, u8 ? dt::u8 : dt::s8, memory::format_tag::nhwc);
  const memory::desc dst_md(dst_dims, int8out ? dt::s8 : dt::s32, memory::format_tag::nhwc);
  const memory::desc wei_any(wei_dims, dt::s8, memory::format_tag::any);
  dnnl::primitive_attr attr;
  attr.set_zero_points(DNNL_ARG_SRC, 0, {s.zp});
  if (int8out) int8out_attr(attr);
  try {
    const dnnl::convolution_forward::primitive_desc pd(
        dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src_md,
                                        wei_any, dst_md, {p.stride, p.stride}, {0, 0}, {p.pad, p.pad}, {p.pad, p.pad}),
        attr, eng);
    return dnn_runner<dnnl::convolution_forward::primitive_desc, dnnl::convolution_forward>(
        pd, {wei_dims, dt::s8, p.groups == 1 ? memory::format_tag::oihw : memory::format_tag::goihw}, p.wt.data(), s,
        src_md, dst_md, y, nullptr);
  } catch (const dnnl::error& e) {
    std::fprintf(stderr, "bench: onednn.conv_%s has no implementation for %s%s (%s): not benchmarked\n",
                 u8 ? "u8" : "s8", p.shape().c_str(), int8out ? " with int8 output" : "", e.what());
    return {};
  }
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
                                        static_cast<std::int8_t>(int_attr(p, R::attr::output_zero_point)), 1.0f,
                                        INT8_MIN, INT8_MAX, 0, &op->op) != xnn_status_success ||
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
// oneDNN: the requantize reorder, and every configuration as onednn.<configuration>; each takes
// int32 and int8 outputs (oneDNN adds the destination zero point before rounding).
Impl onednn_requant_impl() {
  Impl i;
  i.lib = "onednn";
  i.requant = onednn_requant;
  return i;
}
Impl onednn_fc_impl(const DnnFc& c) {
  Impl i;
  i.lib = std::string("onednn.") + c.name;
  i.fc = [c](const FcProblem& p, std::int32_t* y) { return onednn_fc(c, p, y, false); };
  i.fc8 = [c](const FcProblem& p, std::int8_t* y) { return onednn_fc(c, p, y, true); };
  i.int8_epilogue = Epilogue::kZpBeforeRounding;
  return i;
}
Impl onednn_conv_impl(bool u8) {
  Impl i;
  i.lib = u8 ? "onednn.conv_u8" : "onednn.conv_s8";
  i.conv = [u8](const ConvProblem& p, std::int32_t* y) { return onednn_conv(u8, p, y, false); };
  i.conv8 = [u8](const ConvProblem& p, std::int8_t* y) { return onednn_conv(u8, p, y, true); };
  i.int8_epilogue = Epilogue::kZpBeforeRounding;
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
QSPEC_REGISTER_BENCH_IMPL(onednn_requant_impl());
[[maybe_unused]] const bool kOnednnConfigs = [] {
  for (const DnnFc& c : kDnnFcConfigs) register_impl(onednn_fc_impl(c));
  register_impl(onednn_conv_impl(false));
  register_impl(onednn_conv_impl(true));
  return true;
}();

// ---------------- add_int8 / mul_int8: each library's quantized add and multiply, prepared once ----------------

using A = cat::qlinear_add;  // qlinear.mul's attributes have the same names
std::string xnnpack_isa();   // below: the ISA class XNNPACK's dispatch picks here

float f32_attr(const EwProblem& p, const attr::F32& key) { return std::bit_cast<float>(attr::get(p.attrs, key)); }
std::int8_t zp_attr(const EwProblem& p, const attr::Int& key) { return static_cast<std::int8_t>(attr::get(p.attrs, key)); }

// xnn_create_add_nd_qs8 / xnn_create_multiply_nd_qs8 (XNNPACK's qs8 vadd / vmul microkernels, what
// qspec's xnnpack.fp32 add and mul describe): the same-shape problems as one dimension, a per-channel
// b as [N, C] against [C] (XNNPACK's own broadcast: its vaddc / vmulc kernels per row).
Runner xnnpack_ew(const EwProblem& p, std::int8_t* y) {
  if (p.convention != A::conv::xnnpack_fp32 || xnn_initialize(nullptr) != xnn_status_success) return {};
  auto op = std::make_shared<XnnOpHolder>();
  const auto create = p.mul ? xnn_create_multiply_nd_qs8 : xnn_create_add_nd_qs8;
  const xnn_status created =
      create(zp_attr(p, A::attr::a_zero_point), f32_attr(p, A::attr::a_scale), zp_attr(p, A::attr::b_zero_point),
             f32_attr(p, A::attr::b_scale), zp_attr(p, A::attr::y_zero_point), f32_attr(p, A::attr::y_scale), INT8_MIN,
             INT8_MAX, 0, &op->op);
  const std::size_t c = p.channels;
  const std::size_t sa[2] = {c ? p.a.size() / c : p.a.size(), c}, sb[1] = {c ? c : p.a.size()};
  const std::size_t rank_a = c ? 2 : 1;
  const auto setup = p.mul ? xnn_setup_multiply_nd_qs8 : xnn_setup_add_nd_qs8;
  const xnn_status set_up = created != xnn_status_success
                                ? created
                                : setup(op->op, rank_a, sa, 1, sb, p.a.data(), p.b.data(), y, nullptr);
  if (set_up != xnn_status_success) {
    std::fprintf(stderr, "bench: xnnpack qs8 %s on %s: status %d: not benchmarked\n", p.mul ? "multiply" : "add",
                 p.shape().c_str(), static_cast<int>(set_up));
    return {};
  }
  runner_label() = xnnpack_isa();
  return [op] { xnn_run_operator(op->op, nullptr); };
}

// oneDNN's binary_add / binary_mul as a user maps qlinear.add / qlinear.mul onto it (qspec's onednn
// conventions): s8 sources scaled by s_a / s_y and s_b / s_y (add) or src0 alone by (s_a s_b) / s_y
// (mul; binary32 quotients), the output zero point as an eltwise_linear post-op (+ z_y in float; the
// binary primitive has no zero points), s8 destination (saturation, rne). A per-channel b is src1
// of dims [1, C] (oneDNN's broadcast).
Runner onednn_ew(const EwProblem& p, std::int8_t* y) {
  if (p.convention != A::conv::onednn) return {};
  using dnnl::memory;
  auto& eng = dnnl_engine();
  const auto c = static_cast<memory::dim>(p.channels);
  const auto n = static_cast<memory::dim>(p.a.size());
  const memory::desc md = c ? memory::desc({n / c, c}, memory::data_type::s8, memory::format_tag::ab)
                            : memory::desc({n}, memory::data_type::s8, memory::format_tag::a);
  const memory::desc md_b = c ? memory::desc({1, c}, memory::data_type::s8, memory::format_tag::ab) : md;
  const float sa = f32_attr(p, A::attr::a_scale), sb = f32_attr(p, A::attr::b_scale), sy = f32_attr(p, A::attr::y_scale);
  dnnl::primitive_attr attr;
  if (p.mul) {
    attr.set_scales(DNNL_ARG_SRC_0, 0, {sa * sb / sy});
  } else {
    attr.set_scales(DNNL_ARG_SRC_0, 0, {sa / sy});
    attr.set_scales(DNNL_ARG_SRC_1, 0, {sb / sy});
  }
  dnnl::post_ops po;
  po.append_eltwise(1.0f, dnnl::algorithm::eltwise_linear, 1.0f,
                    static_cast<float>(attr::get(p.attrs, A::attr::y_zero_point)));
  attr.set_post_ops(po);
  try {
    const auto alg = p.mul ? dnnl::algorithm::binary_mul : dnnl::algorithm::binary_add;
    const dnnl::binary::primitive_desc pd(dnnl::binary::desc(alg, md, md_b, md), attr, eng);
    runner_label() = pd.impl_info_str();
    auto prim = std::make_shared<dnnl::binary>(pd);
    auto a = std::make_shared<memory>(md, eng, const_cast<std::int8_t*>(p.a.data()));
    auto b = std::make_shared<memory>(md_b, eng, const_cast<std::int8_t*>(p.b.data()));
    auto dst = std::make_shared<memory>(md, eng, y);
    return [prim, a, b, dst] {
      prim->execute(dnnl_stream(), {{DNNL_ARG_SRC_0, *a}, {DNNL_ARG_SRC_1, *b}, {DNNL_ARG_DST, *dst}});
      dnnl_stream().wait();
    };
  } catch (const dnnl::error& e) {
    std::fprintf(stderr, "bench: onednn binary %s has no implementation for %s (%s): not benchmarked\n",
                 p.mul ? "mul" : "add", p.shape().c_str(), e.what());
    return {};
  }
}

// ---------------- avg_pool_int8: each library's quantized average pooling, prepared once ----------------

using P = cat::qlinear_avg_pool2d;
float f32_attr(const PoolProblem& p, const attr::F32& key) { return std::bit_cast<float>(attr::get(p.attrs, key)); }

// XNNPACK's two quantized average poolings, what qspec's xnnpack.fp32 conventions describe: the
// windowed xnn_create_average_pooling2d_nhwc_qu8 (uint8 only in this snapshot: no qs8 windowed
// average; it always counts the padding) and the global xnn_create_global_average_pooling_nwc_qs8
// over the H W pixels.
Runner xnnpack_pool(const PoolProblem& p, std::uint8_t* y) {
  if (p.convention != P::conv::xnnpack_fp32 || xnn_initialize(nullptr) != xnn_status_success) return {};
  auto op = std::make_shared<XnnOpHolder>();
  const float xs = f32_attr(p, P::attr::x_scale), ys = f32_attr(p, P::attr::y_scale);
  const std::int64_t zx = attr::get(p.attrs, P::attr::x_zero_point), zy = attr::get(p.attrs, P::attr::y_zero_point);
  const auto c = static_cast<std::size_t>(p.c);
  xnn_status st = xnn_status_success;
  if (p.global()) {
    st = xnn_create_global_average_pooling_nwc_qs8(c, c, c, static_cast<std::int8_t>(zx), xs,
                                                   static_cast<std::int8_t>(zy), ys, INT8_MIN, INT8_MAX, 0, &op->op);
    if (st == xnn_status_success)
      st = xnn_setup_global_average_pooling_nwc_qs8(op->op, 1, static_cast<std::size_t>(p.h * p.w),
                                                    reinterpret_cast<const std::int8_t*>(p.x.data()),
                                                    reinterpret_cast<std::int8_t*>(y), nullptr);
  } else {
    const auto pad = static_cast<std::uint32_t>(p.pad), k = static_cast<std::uint32_t>(p.k),
               s = static_cast<std::uint32_t>(p.stride);
    st = xnn_create_average_pooling2d_nhwc_qu8(pad, pad, pad, pad, k, k, s, s, c, c, c, static_cast<std::uint8_t>(zx),
                                               xs, static_cast<std::uint8_t>(zy), ys, 0, 255, 0, &op->op);
    if (st == xnn_status_success)
      st = xnn_setup_average_pooling2d_nhwc_qu8(op->op, 1, static_cast<std::size_t>(p.h), static_cast<std::size_t>(p.w),
                                                p.x.data(), y, nullptr);
  }
  if (st != xnn_status_success) {
    std::fprintf(stderr, "bench: xnnpack average pooling on %s: status %d: not benchmarked\n", p.shape().c_str(),
                 static_cast<int>(st));
    return {};
  }
  runner_label() = xnnpack_isa();
  return [op] { xnn_run_operator(op->op, nullptr); };
}

// oneDNN's s8 / u8 pooling (pooling_avg_exclude_padding, or _include_padding where the problem counts
// the padding) on NHWC codes, what qspec's onednn convention describes (its output parameters equal
// the input's: oneDNN averages the codes); the implementation oneDNN picks is the label.
Runner onednn_pool(const PoolProblem& p, std::uint8_t* y) {
  if (p.convention != P::conv::onednn) return {};
  using dnnl::memory;
  auto& eng = dnnl_engine();
  const auto dt = p.u8 ? memory::data_type::u8 : memory::data_type::s8;
  const memory::desc src({1, p.c, p.h, p.w}, dt, memory::format_tag::nhwc),
      dst({1, p.c, p.oh(), p.ow()}, dt, memory::format_tag::nhwc);
  const bool include = attr::get_or(p.attrs, P::attr::count_include_pad, false);
  const auto alg =
      include ? dnnl::algorithm::pooling_avg_include_padding : dnnl::algorithm::pooling_avg_exclude_padding;
  try {
    const dnnl::pooling_forward::primitive_desc pd(
        dnnl::pooling_forward::desc(dnnl::prop_kind::forward_inference, alg, src, dst, {p.stride, p.stride}, {p.k, p.k},
                                    {p.pad, p.pad}, {p.pad, p.pad}),
        eng);
    runner_label() = pd.impl_info_str();
    auto prim = std::make_shared<dnnl::pooling_forward>(pd);
    auto x = std::make_shared<memory>(src, eng, const_cast<std::uint8_t*>(p.x.data()));
    auto out = std::make_shared<memory>(dst, eng, y);
    return [prim, x, out] {
      prim->execute(dnnl_stream(), {{DNNL_ARG_SRC, *x}, {DNNL_ARG_DST, *out}});
      dnnl_stream().wait();
    };
  } catch (const dnnl::error& e) {
    std::fprintf(stderr, "bench: onednn pooling has no implementation for %s (%s): not benchmarked\n",
                 p.shape().c_str(), e.what());
    return {};
  }
}

// ---------------- XNNPACK fully connected / convolution (int8 outputs only) ----------------
//
// XNNPACK has no int32-output operator: its qs8 (per-tensor weight scale) and qc8 (per-channel)
// operators always requantize (sat(rne(acc * s) + zp), Epilogue::kZpAfterRounding). Fully
// connected as qs8 fully_connected and as a qc8 1x1 convolution over the M rows (no qc8 fully
// connected in this XNNPACK); convolution and depthwise as qs8 and qc8 convolutions (OHWI weights).

Runner xnn_owned(std::shared_ptr<XnnOpHolder> op, std::shared_ptr<void> keep) {
  return [op, keep] { xnn_run_operator(op->op, nullptr); };
}

Runner xnnpack_fc8(bool qc8, const FcProblem& p, std::int8_t* y) {
  if (xnn_initialize(nullptr) != xnn_status_success) return {};
  auto op = std::make_shared<XnnOpHolder>();
  const auto n = static_cast<std::size_t>(p.n), k = static_cast<std::size_t>(p.k), m = static_cast<std::size_t>(p.m);
  const auto zx = static_cast<std::int8_t>(p.zx), zy = static_cast<std::int8_t>(Int8Out::kOutZp);
  if (!qc8) {
    if (xnn_create_fully_connected_nc_qs8(k, n, k, n, zx, Int8Out::kInScale, Int8Out::kWeightScale, p.w.data(), nullptr,
                                          zy, Int8Out::kOutScale, INT8_MIN, INT8_MAX, 0,
                                          &op->op) != xnn_status_success ||
        xnn_setup_fully_connected_nc_qs8(op->op, m, p.x.data(), y, nullptr) != xnn_status_success)
      return {};
    return xnn_owned(op, nullptr);
  }
  auto scales = std::make_shared<std::vector<float>>(n, Int8Out::kWeightScale);
  if (xnn_create_convolution2d_nhwc_qc8(0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, k, n, k, n, zx, Int8Out::kInScale,
                                        scales->data(), p.w.data(), nullptr, zy, Int8Out::kOutScale, INT8_MIN, INT8_MAX,
                                        0, &op->op) != xnn_status_success ||
      xnn_setup_convolution2d_nhwc_qc8(op->op, 1, 1, m, p.x.data(), y, nullptr) != xnn_status_success)
    return {};
  return xnn_owned(op, scales);
}

Runner xnnpack_conv8(bool qc8, const ConvProblem& p, std::int8_t* y) {
  if (xnn_initialize(nullptr) != xnn_status_success) return {};
  const std::int64_t gic = p.c / p.groups, taps = p.k * p.k;
  // OIHW -> OHWI (per group: O x (kh, kw, gic)).
  auto w = std::make_shared<std::vector<std::int8_t>>(p.wt.size());
  for (std::int64_t o = 0; o < p.o; ++o)
    for (std::int64_t ci = 0; ci < gic; ++ci)
      for (std::int64_t t = 0; t < taps; ++t)
        (*w)[static_cast<std::size_t>((o * taps + t) * gic + ci)] =
            p.wt[static_cast<std::size_t>((o * gic + ci) * taps + t)];
  auto op = std::make_shared<XnnOpHolder>();
  const auto pad = static_cast<std::uint32_t>(p.pad), kk = static_cast<std::uint32_t>(p.k),
             st = static_cast<std::uint32_t>(p.stride), groups = static_cast<std::uint32_t>(p.groups);
  const auto zx = static_cast<std::int8_t>(p.zx), zy = static_cast<std::int8_t>(Int8Out::kOutZp);
  const std::size_t g_in = static_cast<std::size_t>(gic), g_out = static_cast<std::size_t>(p.o / p.groups);
  const auto c = static_cast<std::size_t>(p.c), o = static_cast<std::size_t>(p.o);
  auto scales = std::make_shared<std::vector<float>>(o, Int8Out::kWeightScale);
  const bool ok = qc8 ? xnn_create_convolution2d_nhwc_qc8(pad, pad, pad, pad, kk, kk, st, st, 1, 1, groups, g_in, g_out,
                                                          c, o, zx, Int8Out::kInScale, scales->data(), w->data(),
                                                          nullptr, zy, Int8Out::kOutScale, INT8_MIN, INT8_MAX, 0,
                                                          &op->op) == xnn_status_success &&
                            xnn_setup_convolution2d_nhwc_qc8(op->op, 1, static_cast<std::size_t>(p.h),
                                                             static_cast<std::size_t>(p.w), p.x.data(), y,
                                                             nullptr) == xnn_status_success
                      : xnn_create_convolution2d_nhwc_qs8(pad, pad, pad, pad, kk, kk, st, st, 1, 1, groups, g_in, g_out,
                                                          c, o, zx, Int8Out::kInScale, Int8Out::kWeightScale, w->data(),
                                                          nullptr, zy, Int8Out::kOutScale, INT8_MIN, INT8_MAX, 0,
                                                          &op->op) == xnn_status_success &&
                            xnn_setup_convolution2d_nhwc_qs8(op->op, 1, static_cast<std::size_t>(p.h),
                                                             static_cast<std::size_t>(p.w), p.x.data(), y,
                                                             nullptr) == xnn_status_success;
  if (!ok) return {};
  return xnn_owned(op, std::make_shared<std::pair<decltype(w), decltype(scales)>>(w, scales));
}

// XNNPACK's x86 int8 kernels as its dispatch picks them: this snapshot has avx512skx (VPMADDWD on
// zmm) as its best qs8 / qc8 GEMM and depthwise kernels, and no VNNI ones.
std::string xnnpack_isa() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512vl"))
    return "isa avx512skx (XNNPACK's best x86 int8 kernels here; none use VNNI)";
  if (__builtin_cpu_supports("avx2")) return "isa avx2";
  return "isa below avx2";
}

Impl xnnpack_int8out_impl(bool qc8) {
  Impl i;
  i.lib = qc8 ? "xnnpack.qc8" : "xnnpack.qs8";
  i.fc8 = [qc8](const FcProblem& p, std::int8_t* y) {
    runner_label() = xnnpack_isa();
    return xnnpack_fc8(qc8, p, y);
  };
  i.conv8 = [qc8](const ConvProblem& p, std::int8_t* y) {
    runner_label() = xnnpack_isa();
    return xnnpack_conv8(qc8, p, y);
  };
  return i;
}
QSPEC_REGISTER_BENCH_IMPL(xnnpack_int8out_impl(false));
QSPEC_REGISTER_BENCH_IMPL(xnnpack_int8out_impl(true));
QSPEC_REGISTER_BENCH_IMPL(ew_impl("xnnpack.qs8", xnnpack_ew));
QSPEC_REGISTER_BENCH_IMPL(ew_impl("onednn.binary_s8", onednn_ew));
QSPEC_REGISTER_BENCH_IMPL(pool_impl("xnnpack", xnnpack_pool));
QSPEC_REGISTER_BENCH_IMPL(pool_impl("onednn.pooling", onednn_pool));

}  // namespace
}  // namespace qspec::bench
