// Reference ops for MRT's quantizers, cvm_float, realize and CVM's shift/clip operators.
//
// Vocabulary: spec/catalogue/<op>.json (the ops' tensors and attributes, generated into
// spec/ops.md), clauses in spec/mrt_quantization.md. Float scalars in attributes are bit patterns:
// binary64 thresholds/scales/ranges as "0x" + 16 hex digits. Integer attributes are precisions
// and shifts. Conventions: mrt (MRT's Python), cvm.formal (CVM's formal kernels), cvm.cpu (CVM's
// CPU kernel), and the diagnostic-only mrt.v2, mrt.ideal and shift.exact.<rounding>.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "qspec/catalogue/keys.h"
#include "qspec/core/json_values.h"
#include "qspec/ref/mrt.h"
#include "qspec/refops.h"
#include "qspec/refops/tensor_args.h"

namespace qspec::refops {
namespace {

using qspec::ref::Int;

// A precision or shift attribute as int. The catalogue gives these any integer: values far
// outside every accepted range are pinned to +-2^20 so the reference's own ERROR_IF (precision,
// shift) or REQUIRE (bits) still decides.
int pinned(const Attrs& attrs, const attr::Int& key) {
  const std::int64_t v = attr::get(attrs, key);
  constexpr std::int64_t kLimit = std::int64_t{1} << 20;
  return static_cast<int>(v < -kLimit ? -kLimit : (v > kLimit ? kLimit : v));
}

std::optional<std::uint64_t> opt_f64(const Attrs& attrs, const attr::F64& key) {
  if (!attr::has(attrs, key)) return std::nullopt;
  return attr::get(attrs, key);
}

std::vector<std::uint32_t> f32_data(const Tensor& t) {
  std::vector<std::uint32_t> v;
  for (auto d : t.data) v.push_back(static_cast<std::uint32_t>(d));
  return v;
}
std::vector<Int> int_data(const Tensor& t) {
  std::vector<Int> v;
  for (auto d : t.data) v.emplace_back(d);
  return v;
}

Tensor int_tensor(std::string_view name, DType dtype, const std::vector<std::int64_t>& shape,
                  const std::vector<Int>& v) {
  Tensor t{std::string(name), dtype, shape, {}};
  for (const auto& x : v) t.data.push_back(static_cast<std::int64_t>(x));
  return t;
}
Tensor f64_scalar(std::string_view name, std::uint64_t bits) {
  return Tensor{std::string(name), DType::F64, {1}, {static_cast<std::int64_t>(bits)}};
}
Tensor int_scalar(std::string_view name, DType dtype, std::int64_t v) {
  return Tensor{std::string(name), dtype, {1}, {v}};
}

// ---- mrt.sym_quantize, mrt.affine_quantize ----

OpFn sym_quantize(ref::MrtSymVariant variant) {
  using K = cat::mrt_sym_quantize;
  return [variant](const Attrs& attrs, const std::vector<Tensor>& inputs) {
    const Tensor& w = input(inputs, K::in::w, DType::F32);
    const auto r = ref::mrt_sym_param_quantize(f32_data(w), pinned(attrs, K::attr::prec),
                                               opt_f64(attrs, K::attr::threshold), variant);
    return std::vector<Tensor>{int_tensor(K::out::q, DType::I32, w.shape, r.q), f64_scalar(K::out::scale, r.scale),
                               int_scalar(K::out::out_prec, DType::I32, r.prec)};
  };
}

QSPEC_REGISTER_REF_OP(registration<cat::mrt_sym_quantize>(cat::mrt_sym_quantize::conv::mrt,
                                                          sym_quantize(ref::MrtSymVariant::V1)));
QSPEC_REGISTER_REF_OP(registration<cat::mrt_sym_quantize>(cat::mrt_sym_quantize::conv::mrt_v2,
                                                          sym_quantize(ref::MrtSymVariant::V2)));
QSPEC_REGISTER_REF_OP(registration<cat::mrt_sym_quantize>(cat::mrt_sym_quantize::conv::mrt_ideal,
                                                          sym_quantize(ref::MrtSymVariant::Ideal)));

std::vector<Tensor> affine_quantize(const Attrs& a, const std::vector<Tensor>& in) {
  using K = cat::mrt_affine_quantize;
  const Tensor& w = input(in, K::in::w, DType::F32);
  const auto mn = opt_f64(a, K::attr::min), mx = opt_f64(a, K::attr::max);
  if (mn.has_value() != mx.has_value())
    throw JsonValueError("attributes '" + std::string(K::attr::min.name) + "' and '" + std::string(K::attr::max.name) +
                         "' must be given together");
  const auto r = ref::mrt_affine_param_quantize(f32_data(w), pinned(a, K::attr::prec), mn, mx);
  return {int_tensor(K::out::q, DType::I64, w.shape, r.q), f64_scalar(K::out::scale, r.scale),
          f64_scalar(K::out::zero_point, r.zero_point)};
}
QSPEC_REGISTER_REF_OP(registration<cat::mrt_affine_quantize>(cat::mrt_affine_quantize::conv::mrt, affine_quantize));

// ---- mrt.cvm_float ----

std::vector<Tensor> cvm_float(const Attrs& a, const std::vector<Tensor>& in) {
  using K = cat::mrt_cvm_float;
  const Tensor& n = input(in, K::in::number, DType::F64);
  const int bits = pinned(a, K::attr::bits);
  Tensor frac{std::string(K::out::frac), DType::I32, n.shape, {}},
      exp{std::string(K::out::exp), DType::I32, n.shape, {}};
  for (auto v : n.data) {
    const auto cf = ref::mrt_cvm_float(static_cast<std::uint64_t>(v), bits);
    frac.data.push_back(static_cast<std::int64_t>(cf.frac));
    exp.data.push_back(cf.exp);
  }
  return {frac, exp};
}
QSPEC_REGISTER_REF_OP(registration<cat::mrt_cvm_float>(cat::mrt_cvm_float::conv::mrt, cvm_float));

// ---- CVM operators ----

std::vector<Tensor> cvm_clip(const Attrs& a, const std::vector<Tensor>& in) {
  using K = cat::cvm_clip;
  const Tensor& x = input(in, K::in::x, DType::I32);
  const int p = pinned(a, K::attr::precision);
  ref::cvm_clip(0, p);  // attribute checks even for an empty tensor
  std::vector<Int> y;
  for (auto v : x.data) y.push_back(ref::cvm_clip(Int(v), p));
  return {int_tensor(K::out::y, DType::I32, x.shape, y)};
}
QSPEC_REGISTER_REF_OP(registration<cat::cvm_clip>(cat::cvm_clip::conv::cvm_formal, cvm_clip));

// cvm.right_shift under a per-element function of (x, shift_bit, precision).
OpFn right_shift_fn(std::function<Int(const Int&, int, int)> f) {
  using K = cat::cvm_right_shift;
  return [f](const Attrs& a, const std::vector<Tensor>& in) {
    const Tensor& x = input(in, K::in::x, DType::I32);
    const int b = pinned(a, K::attr::shift_bit), p = pinned(a, K::attr::precision);
    f(Int(0), b, p);  // attribute checks even for an empty tensor
    std::vector<Int> y;
    for (auto v : x.data) y.push_back(f(Int(v), b, p));
    return std::vector<Tensor>{int_tensor(K::out::y, DType::I32, x.shape, y)};
  };
}

using RightShift = cat::cvm_right_shift;
QSPEC_REGISTER_REF_OP(registration<RightShift>(RightShift::conv::cvm_formal,
                                               right_shift_fn([](const Int& x, int b, int p) {
                                                 return ref::cvm_right_shift(x, b, p);
                                               })));
QSPEC_REGISTER_REF_OP(registration<RightShift>(RightShift::conv::cvm_cpu,
                                               right_shift_fn([](const Int& x, int b, int p) {
                                                 return ref::cvm_right_shift_cpu(x, b, p);
                                               })));

// The diagnostic family "shift.exact.<rounding>": the exact quotient x / 2^b rounded by each
// named rounding, then the same clip; lets the harness say "matches half_away, spec says half_up".
OpFn right_shift_exact(ref::Rounding mode) {
  return right_shift_fn([mode](const Int& x, int b, int p) { return ref::cvm_right_shift_exact(x, b, p, mode); });
}
QSPEC_REGISTER_REF_OP(registration<RightShift>(RightShift::conv::shift_exact_floor,
                                               right_shift_exact(ref::Rounding::Floor)));
QSPEC_REGISTER_REF_OP(registration<RightShift>(RightShift::conv::shift_exact_ceil,
                                               right_shift_exact(ref::Rounding::Ceil)));
QSPEC_REGISTER_REF_OP(registration<RightShift>(RightShift::conv::shift_exact_trunc,
                                               right_shift_exact(ref::Rounding::Trunc)));
QSPEC_REGISTER_REF_OP(registration<RightShift>(RightShift::conv::shift_exact_half_up,
                                               right_shift_exact(ref::Rounding::HalfUp)));
QSPEC_REGISTER_REF_OP(registration<RightShift>(RightShift::conv::shift_exact_half_down,
                                               right_shift_exact(ref::Rounding::HalfDown)));
QSPEC_REGISTER_REF_OP(registration<RightShift>(RightShift::conv::shift_exact_half_away,
                                               right_shift_exact(ref::Rounding::HalfAway)));
QSPEC_REGISTER_REF_OP(registration<RightShift>(RightShift::conv::shift_exact_half_even,
                                               right_shift_exact(ref::Rounding::HalfEven)));

std::vector<Tensor> cvm_left_shift(const Attrs& a, const std::vector<Tensor>& in) {
  using K = cat::cvm_left_shift;
  const Tensor& x = input(in, K::in::x, DType::I32);
  const int b = pinned(a, K::attr::shift_bit), p = pinned(a, K::attr::precision);
  const int ip = pinned(a, K::attr::input_precision);
  ref::cvm_left_shift(0, b, p, ip);  // attribute checks even for an empty tensor
  std::vector<Int> y;
  for (auto v : x.data) y.push_back(ref::cvm_left_shift(Int(v), b, p, ip));
  return {int_tensor(K::out::y, DType::I32, x.shape, y)};
}
QSPEC_REGISTER_REF_OP(registration<cat::cvm_left_shift>(cat::cvm_left_shift::conv::cvm_formal, cvm_left_shift));

// ---- realize and the input quantizers ----

std::vector<Tensor> realize(const Attrs& a, const std::vector<Tensor>& in) {
  using K = cat::mrt_realize;
  const Tensor& x = input(in, K::in::x, DType::I32);
  const Int frac(attr::get(a, K::attr::frac));
  const int exp = pinned(a, K::attr::exp), p = pinned(a, K::attr::precision);
  const int ip = pinned(a, K::attr::input_precision);
  ref::mrt_realize_check(frac, exp, p, ip);
  std::vector<Int> y;
  for (auto v : x.data) y.push_back(ref::mrt_realize(Int(v), frac, exp, p, ip));
  return {int_tensor(K::out::y, DType::I32, x.shape, y)};
}
QSPEC_REGISTER_REF_OP(registration<cat::mrt_realize>(cat::mrt_realize::conv::mrt, realize));

std::vector<Tensor> sym_input_quantize(const Attrs& a, const std::vector<Tensor>& in) {
  using K = cat::mrt_sym_input_quantize;
  const Tensor& x = input(in, K::in::x, DType::I32);
  const auto r =
      ref::mrt_sym_input_quantize(int_data(x), attr::get(a, K::attr::iscale), attr::get(a, K::attr::threshold),
                                  pinned(a, K::attr::iprec), pinned(a, K::attr::prec));
  return {int_tensor(K::out::y, DType::I32, x.shape, r.y), f64_scalar(K::out::scale, r.scale)};
}
QSPEC_REGISTER_REF_OP(registration<cat::mrt_sym_input_quantize>(cat::mrt_sym_input_quantize::conv::mrt,
                                                                sym_input_quantize));

std::vector<Tensor> affine_input_quantize(const Attrs& a, const std::vector<Tensor>& in) {
  using K = cat::mrt_affine_input_quantize;
  const Tensor& x = input(in, K::in::x, DType::I32);
  const auto r =
      ref::mrt_affine_input_quantize(int_data(x), attr::get(a, K::attr::iscale), attr::get(a, K::attr::min),
                                     attr::get(a, K::attr::max), pinned(a, K::attr::iprec), pinned(a, K::attr::prec));
  return {int_tensor(K::out::y, DType::I32, x.shape, r.y), f64_scalar(K::out::scale, r.scale),
          int_scalar(K::out::zero_point, DType::I64, static_cast<std::int64_t>(r.zero_point))};
}
QSPEC_REGISTER_REF_OP(registration<cat::mrt_affine_input_quantize>(cat::mrt_affine_input_quantize::conv::mrt,
                                                                   affine_input_quantize));

std::vector<Tensor> requant_operator(const Attrs& a, const std::vector<Tensor>& in) {
  using K = cat::mrt_requant_operator;
  const Tensor& x = input(in, K::in::x, DType::I32);
  const int shift_bits = attr::has(a, K::attr::shift_bits) ? pinned(a, K::attr::shift_bits) : 5;
  const auto r = ref::mrt_requant_operator(int_data(x), attr::get(a, K::attr::iscale), attr::get(a, K::attr::threshold),
                                           pinned(a, K::attr::iprec), pinned(a, K::attr::oprec),
                                           opt_f64(a, K::attr::oscale), shift_bits);
  return {int_tensor(K::out::y, DType::I32, x.shape, r.y), int_scalar(K::out::prec, DType::I32, r.prec),
          f64_scalar(K::out::scale, r.scale)};
}
QSPEC_REGISTER_REF_OP(registration<cat::mrt_requant_operator>(cat::mrt_requant_operator::conv::mrt, requant_operator));

}  // namespace
}  // namespace qspec::refops
