// Handlers of qlinear.fully_connected and qlinear.matmul (spec/operators_qlinear.md) under
// xnnpack.fp32, onnxruntime, tflite.double_round, tflite.single_round, tosa and onednn: the exact product of the 8-bit
// GEMM engines with zero points (one GEMM per broadcast batch of a matmul), the int32 bias, then the convention's
// epilogue.
#include <algorithm>
#include <string>
#include <vector>

#include "qlinear_common.h"
#include "qspec/catalogue/keys.h"
#include "qspec/simd/int_tensor.h"
#include "qspec/simd/qgemm.h"

namespace qspec::simd {
namespace {

using nn::reject_if;
using qlinear::Convention;
using qlinear::named;
using qlinear::optional_input;
using Fc = cat::qlinear_fully_connected;
using Mm = cat::qlinear_matmul;

constexpr const qlinear::Keys& kFcKeys = qlinear_keys<Fc::attr>;
constexpr const qlinear::Keys& kMmKeys = qlinear_matmul_keys;

// The 8-bit elements of t as bytes (the GEMM engine's operands).
std::vector<std::uint8_t> bytes_of(const IntArray& t) {
  std::vector<std::uint8_t> b(t.data.size());
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<std::uint8_t>(t.data[i]);
  return b;
}

// y = the requantized x w^T (+ b) through the GEMM engine's fused epilogue (qgemm_requant), one
// product of x's rows; false (nothing written) where the route does not apply (qlinear::fused_epilogue).
bool fused_product(OpCall& c, const qlinear::Params& p, const std::vector<RequantParams>& plan, const IntArray& x,
                   const IntArray& w, const IntArray* b, Convention conv, const std::vector<std::int64_t>& shape,
                   std::string_view out_name) {
  const std::int64_t M = x.dim(0), K = x.dim(1), O = w.dim(0);
  const auto ep = qlinear::fused_epilogue(*c.k.gemm, conv, p, plan, K, O, b);
  std::uint8_t* y = ep ? qlinear::byte_output(c.output(out_name, 0), shape) : nullptr;
  if (y == nullptr) return false;
  const std::vector<std::uint8_t> xb = bytes_of(x), wb = bytes_of(w);
  const QWeights packed = pack_weights(*c.k.gemm, O, K, wb.data(), p.w_type == QSPEC_DTYPE_UINT8, K);
  qgemm_requant(*c.k.gemm, M, xb.data(), p.x_type == QSPEC_DTYPE_INT8, K, p.x_zero_point, packed, p.w_zero_point,
                ep->view(), y, O);
  return true;
}

template <Convention conv>
void qlinear_fully_connected(OpCall& c) {
  const qspec_tensor &xt = named(c, Fc::in::x), &wt = named(c, Fc::in::w);
  const qspec_tensor* bt = optional_input(c, Fc::in::b);
  const IntArray x = read_int(xt), w = read_int(wt);
  reject_if(x.shape.size() != 2 || w.shape.size() != 2, "qlinear.fully_connected: x (N,K) and w (O,K)");
  reject_if(x.dim(1) != w.dim(1) || x.dim(1) < 1 || w.dim(0) < 1 || x.dim(0) < 0,
            "qlinear.fully_connected: K differs or an empty dimension");
  const std::int64_t O = w.dim(0);
  IntArray b;
  if (bt) {
    b = read_int(*bt);
    reject_if(b.shape != std::vector<std::int64_t>{O}, "qlinear.fully_connected: bias b must be (O)");
  }
  const qlinear::Params p = qlinear::read_params(c, kFcKeys, xt, wt, conv);
  const auto plan = qlinear::plan(p, O, conv, qlinear::OpKind::kFullyConnected);
  if (x.dim(0) > 0 && fused_product(c, p, plan, x, w, bt ? &b : nullptr, conv, {x.dim(0), O}, Fc::out::y)) return;
  std::vector<std::int64_t> acc =
      x.dim(0) == 0 ? std::vector<std::int64_t>{} : nn::fc_exact(c.k, x, w, p.x_zero_point, p.w_zero_point);
  if (bt)
    for (std::size_t i = 0; i < acc.size(); ++i)
      acc[i] = qlinear::add_bias(conv, acc[i], b.data[i % static_cast<std::size_t>(O)]);
  qlinear::requantize(c.k, acc, plan, c.output(Fc::out::y, 0), {x.dim(0), O});
}

template <Convention conv>
void qlinear_matmul(OpCall& c) {
  const qspec_tensor &at = named(c, Mm::in::a), &bt = named(c, Mm::in::b);
  const IntArray a = read_int(at), b = read_int(bt);
  reject_if(a.shape.size() < 2 || b.shape.size() < 2, "qlinear.matmul: a and b must have rank >= 2");
  for (auto d : a.shape) reject_if(d < 1, "qlinear.matmul: a has an empty dimension");
  for (auto d : b.shape) reject_if(d < 1, "qlinear.matmul: b has an empty dimension");
  const std::size_t ra = a.shape.size() - 2, rb = b.shape.size() - 2, r = std::max(ra, rb);
  const std::int64_t M = a.shape[ra], K = a.shape[ra + 1], N = b.shape[rb + 1];
  reject_if(b.shape[rb] != K, "qlinear.matmul: K differs");
  std::vector<std::int64_t> batch(r);
  for (std::size_t k = 0; k < r; ++k) {
    const std::int64_t da = k + ra >= r ? a.shape[k + ra - r] : 1, db = k + rb >= r ? b.shape[k + rb - r] : 1;
    reject_if(da != db && da != 1 && db != 1, "qlinear.matmul: batch dimensions do not broadcast");
    batch[k] = da == 1 ? db : da;
  }
  if constexpr (qlinear::is_tflite(conv))
    reject_if(a.shape.size() > 5 || b.shape.size() > 5, "tflite: BATCH_MATMUL supports ranks 2 to 5");
  if constexpr (conv == Convention::kTosa)
    reject_if(std::vector<std::int64_t>(a.shape.begin(), a.shape.end() - 2) !=
                  std::vector<std::int64_t>(b.shape.begin(), b.shape.end() - 2),
              "tosa: MATMUL's batch dimensions must be equal");
  const qlinear::Params p = qlinear::read_params(c, kMmKeys, at, bt, conv);
  const auto plan = qlinear::plan(p, N, conv, qlinear::OpKind::kMatmul);
  std::int64_t batches = 1;
  for (auto d : batch) batches *= d;
  std::vector<std::int64_t> shape = batch;
  shape.push_back(M);
  shape.push_back(N);
  // The fused route: each batch's bytes written by qgemm_requant directly.
  const auto ep = qlinear::fused_epilogue(*c.k.gemm, conv, p, plan, K, N, nullptr);
  std::uint8_t* y = ep ? qlinear::byte_output(c.output(Mm::out::y, 0), shape) : nullptr;
  std::vector<std::int64_t> acc;
  if (y == nullptr) acc.reserve(static_cast<std::size_t>(batches * M * N));
  std::vector<std::int64_t> idx(r, 0);
  IntArray as{{M, K}, std::vector<std::int64_t>(static_cast<std::size_t>(M * K))};
  IntArray bs{{N, K}, std::vector<std::int64_t>(static_cast<std::size_t>(N * K))};  // b's slice transposed
  for (std::int64_t bi = 0; bi < batches; ++bi) {
    // The row-major offsets of this batch in a and b (broadcast dimensions at 0).
    std::int64_t rem = bi, oa = 0, ob = 0, sa = M * K, sb = K * N;
    for (std::size_t k = r; k-- > 0;) {
      const std::int64_t i = rem % batch[k];
      rem /= batch[k];
      if (k + ra >= r) {
        const std::int64_t d = a.shape[k + ra - r];
        oa += (d == 1 ? 0 : i) * sa;
        sa *= d;
      }
      if (k + rb >= r) {
        const std::int64_t d = b.shape[k + rb - r];
        ob += (d == 1 ? 0 : i) * sb;
        sb *= d;
      }
    }
    std::copy_n(a.data.begin() + oa, M * K, as.data.begin());
    for (std::int64_t kk = 0; kk < K; ++kk)
      for (std::int64_t n = 0; n < N; ++n)
        bs.data[static_cast<std::size_t>(n * K + kk)] = b.data[static_cast<std::size_t>(ob + kk * N + n)];
    if (y != nullptr) {
      const std::vector<std::uint8_t> ab = bytes_of(as), bb = bytes_of(bs);
      const QWeights packed = pack_weights(*c.k.gemm, N, K, bb.data(), p.w_type == QSPEC_DTYPE_UINT8, K);
      qgemm_requant(*c.k.gemm, M, ab.data(), p.x_type == QSPEC_DTYPE_INT8, K, p.x_zero_point, packed, p.w_zero_point,
                    ep->view(), y + bi * M * N, N);
      continue;
    }
    const auto part = nn::fc_exact(c.k, as, bs, p.x_zero_point, p.w_zero_point);
    acc.insert(acc.end(), part.begin(), part.end());
  }
  if (y == nullptr) qlinear::requantize(c.k, acc, plan, c.output(Mm::out::y, 0), shape);
}

}  // namespace

void add_qlinear_linear_ops(std::vector<OpEntry>& t) {
  const std::string fc = "exact GEMM with zero points + int32 bias, ", mm = "exact GEMM per broadcast batch, ";
  const std::string xnn = "XNNPACK fp32 epilogue", ort = "ONNX Runtime MLAS epilogue";
  const std::string tfd = "TFLite Q31 epilogue, double rounding", tfs = "TFLite Q31 epilogue, single rounding";
  const std::string tosa = "TOSA RESCALE (double_round) and CLAMP";
  t.push_back(entry<Fc>(Fc::conv::xnnpack_fp32, fc + xnn, qlinear_fully_connected<Convention::kXnnpackFp32>));
  t.push_back(entry<Fc>(Fc::conv::onnxruntime, fc + ort, qlinear_fully_connected<Convention::kOnnxRuntime>));
  t.push_back(entry<Mm>(Mm::conv::xnnpack_fp32, mm + xnn, qlinear_matmul<Convention::kXnnpackFp32>));
  t.push_back(entry<Mm>(Mm::conv::onnxruntime, mm + ort, qlinear_matmul<Convention::kOnnxRuntime>));
  t.push_back(entry<Fc>(Fc::conv::tflite_double_round, fc + tfd, qlinear_fully_connected<Convention::kTfliteDouble>));
  t.push_back(entry<Fc>(Fc::conv::tflite_single_round, fc + tfs, qlinear_fully_connected<Convention::kTfliteSingle>));
  t.push_back(entry<Mm>(Mm::conv::tflite_double_round, mm + tfd, qlinear_matmul<Convention::kTfliteDouble>));
  t.push_back(entry<Mm>(Mm::conv::tflite_single_round, mm + tfs, qlinear_matmul<Convention::kTfliteSingle>));
  t.push_back(entry<Fc>(Fc::conv::tosa, fc + tosa, qlinear_fully_connected<Convention::kTosa>));
  t.push_back(entry<Mm>(Mm::conv::tosa, mm + tosa, qlinear_matmul<Convention::kTosa>));
  t.push_back(entry<Fc>(Fc::conv::pytorch_qnnpack, fc + "PyTorch qnnpack: QNNPACK (quint8) / XNNPACK (qint8) fp32",
                        qlinear_fully_connected<Convention::kPytorchQnnpack>));
  const std::string dnn = "oneDNN float bias, output scale, zero point before rounding";
  t.push_back(entry<Fc>(Fc::conv::onednn, fc + dnn, qlinear_fully_connected<Convention::kOnednn>));
  t.push_back(entry<Fc>(Fc::conv::pytorch_onednn, fc + "PyTorch onednn: reciprocal scales, oneDNN's float epilogue",
                        qlinear_fully_connected<Convention::kPytorchOnednn>));
  t.push_back(entry<Mm>(Mm::conv::onednn, mm + dnn, qlinear_matmul<Convention::kOnednn>));
}

}  // namespace qspec::simd
