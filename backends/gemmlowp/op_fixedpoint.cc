// ops srdhm and rdbpot (convention gemmlowp): gemmlowp's fixedpoint.h primitives themselves.
//
// On x86 with SSE4.1 the adapter evaluates them on __m128i registers, the implementation the
// GEMM output stages use (fixedpoint_sse.h); otherwise the scalar std::int32_t overloads. Lanes
// beyond the input are padded with zeros and dropped.
#include <gemmlowp/fixedpoint/fixedpoint.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "ops.h"
#include "qspec/catalogue/keys.h"
#include "qspec/core/attr.h"
#include "qspec/thirdparty/tensor_io.h"

namespace qspec::gemmlowp_adapter {
namespace {
using namespace thirdparty;

#if defined(GEMMLOWP_SSE4)
constexpr std::size_t kLanes = 4;
using Reg = __m128i;
Reg load(const std::int32_t* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }
void store(std::int32_t* p, Reg r) { _mm_storeu_si128(reinterpret_cast<__m128i*>(p), r); }
#else
constexpr std::size_t kLanes = 1;
using Reg = std::int32_t;
Reg load(const std::int32_t* p) { return *p; }
void store(std::int32_t* p, Reg r) { *p = r; }
#endif

std::vector<std::int32_t> padded(std::vector<std::int32_t> v) {
  v.resize((v.size() + kLanes - 1) / kLanes * kLanes, 0);
  return v;
}

}  // namespace

void run_srdhm(const Call& call) {
  const qspec_tensor& at = call.input(cat::srdhm::in::a);
  const qspec_tensor& bt = call.input(cat::srdhm::in::b);
  expect_dtype(at, QSPEC_DTYPE_INT32);
  expect_dtype(bt, QSPEC_DTYPE_INT32);
  const std::vector<std::int32_t> a0 = read_as<std::int32_t>(at), b0 = read_as<std::int32_t>(bt);
  if (a0.size() != b0.size()) throw std::invalid_argument("a and b differ in size");
  const auto a = padded(a0), b = padded(b0);
  std::vector<std::int32_t> y(a.size());
  for (std::size_t i = 0; i < a.size(); i += kLanes)
    store(&y[i], gemmlowp::SaturatingRoundingDoublingHighMul(load(&a[i]), load(&b[i])));
  y.resize(a0.size());
  write_from(call.output(cat::srdhm::out::y), y);
}

void run_rdbpot(const Call& call) {
  const qspec_tensor& xt = call.input(cat::rdbpot::in::x);
  expect_dtype(xt, QSPEC_DTYPE_INT32);
  const std::int64_t e = attr::get(call.attrs, cat::rdbpot::attr::exponent);
  // The code asserts 0 <= exponent <= 31 (shifts beyond are undefined): not a value to compute.
  if (e < 0 || e > 31) throw Unsupported("RoundingDivideByPOT takes exponents 0..31, not " + std::to_string(e));
  const std::vector<std::int32_t> x0 = read_as<std::int32_t>(xt);
  const auto x = padded(x0);
  std::vector<std::int32_t> y(x.size());
  for (std::size_t i = 0; i < x.size(); i += kLanes)
    store(&y[i], gemmlowp::RoundingDivideByPOT(load(&x[i]), static_cast<int>(e)));
  y.resize(x0.size());
  write_from(call.output(cat::rdbpot::out::y), y);
}

}  // namespace qspec::gemmlowp_adapter
