// Reference ops for MRT's quantizers, cvm_float, realize and CVM's shift/clip operators.
//
// Vocabulary (spec/mrt_quantization.md). Float scalars in attributes are bit patterns:
// binary64 thresholds/scales/ranges as "0x" + 16 hex digits. Integer attributes are precisions
// and shifts. Conventions: "mrt" (MRT's Python), "cvm.formal" (CVM's formal kernels), "cvm.cpu"
// (CVM's CPU kernel), and the diagnostic-only "mrt.v2", "mrt.ideal", "shift.exact.<rounding>".
//   mrt.sym_quantize        w f32           {prec, threshold?}          -> q i32, scale f64[1], out_prec i32[1]
//   mrt.affine_quantize     w f32           {prec, min?, max?}          -> q i64, scale f64[1], zero_point f64[1]
//   mrt.cvm_float           number f64[n]   {bits}                      -> frac i32[n], exp i32[n]
//   cvm.clip                x i32           {precision}                 -> y i32
//   cvm.right_shift         x i32           {shift_bit, precision}      -> y i32
//   cvm.left_shift          x i32           {shift_bit, precision, input_precision} -> y i32
//   mrt.realize             x i32           {frac, exp, precision, input_precision} -> y i32
//   mrt.sym_input_quantize  x i32           {iscale, threshold, iprec, prec}        -> y i32, scale f64[1]
//   mrt.affine_input_quantize x i32         {iscale, min, max, iprec, prec}         -> y i32, scale f64[1], zero_point i64[1]
//   mrt.requant_operator    x i32           {iscale, threshold, iprec, oprec, oscale?, shift_bits?}
//                                                                       -> y i32, prec i32[1], scale f64[1]
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "qspec/core/json_values.h"
#include "qspec/ref/mrt.h"
#include "qspec/refops.h"

namespace qspec::refops {
namespace {

using qspec::ref::Int;

const Tensor& input_of(const std::vector<Tensor>& inputs, const char* name, DType dtype) {
  const Tensor* t = nullptr;
  for (const auto& in : inputs)
    if (in.name == name) t = &in;
  if (!t && !inputs.empty()) t = &inputs[0];
  if (!t) throw JsonValueError(std::string("missing input tensor '") + name + "'");
  if (t->dtype != dtype)
    throw JsonValueError(std::string("input '") + name + "' must be " + std::string(dtype_name(dtype)));
  return *t;
}

// An integer attribute as int. Values far outside every accepted range are pinned to +-2^20 so
// the reference's own ERROR_IF (precision, shift) or REQUIRE (bits) still decides.
int int_attr(const Attrs& attrs, const char* key) {
  const std::int64_t v = attr_int(attrs, key);
  constexpr std::int64_t kLimit = std::int64_t{1} << 20;
  return static_cast<int>(v < -kLimit ? -kLimit : (v > kLimit ? kLimit : v));
}

std::optional<std::uint64_t> opt_f64(const Attrs& attrs, const char* key) {
  if (!has_attr(attrs, key)) return std::nullopt;
  return attr_f64(attrs, key);
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

Tensor int_tensor(const char* name, DType dtype, const std::vector<std::int64_t>& shape, const std::vector<Int>& v) {
  Tensor t{name, dtype, shape, {}};
  for (const auto& x : v) t.data.push_back(static_cast<std::int64_t>(x));
  return t;
}
Tensor f64_scalar(const char* name, std::uint64_t bits) {
  return Tensor{name, DType::F64, {1}, {static_cast<std::int64_t>(bits)}};
}
Tensor int_scalar(const char* name, DType dtype, std::int64_t v) { return Tensor{name, dtype, {1}, {v}}; }

std::vector<Tensor> sym_quantize(const Attrs& attrs, const std::vector<Tensor>& inputs, ref::MrtSymVariant variant) {
  const Tensor& w = input_of(inputs, "w", DType::F32);
  const auto r = ref::mrt_sym_param_quantize(f32_data(w), int_attr(attrs, "prec"), opt_f64(attrs, "threshold"), variant);
  return {int_tensor("q", DType::I32, w.shape, r.q), f64_scalar("scale", r.scale),
          int_scalar("out_prec", DType::I32, r.prec)};
}

QSPEC_REGISTER_REF_OP({.op = "mrt.sym_quantize",
                       .convention = "mrt",
                       .fn = [](const Attrs& a, const std::vector<Tensor>& in) {
                         return sym_quantize(a, in, ref::MrtSymVariant::V1);
                       }});

QSPEC_REGISTER_REF_OP({.op = "mrt.sym_quantize",
                       .convention = "mrt.v2",
                       .fn = [](const Attrs& a, const std::vector<Tensor>& in) {
                         return sym_quantize(a, in, ref::MrtSymVariant::V2);
                       }});

QSPEC_REGISTER_REF_OP({.op = "mrt.sym_quantize",
                       .convention = "mrt.ideal",
                       .fn = [](const Attrs& a, const std::vector<Tensor>& in) {
                         return sym_quantize(a, in, ref::MrtSymVariant::Ideal);
                       }});

QSPEC_REGISTER_REF_OP({.op = "mrt.affine_quantize",
                       .convention = "mrt",
                       .fn = [](const Attrs& a, const std::vector<Tensor>& in) {
                         const Tensor& w = input_of(in, "w", DType::F32);
                         const auto mn = opt_f64(a, "min"), mx = opt_f64(a, "max");
                         if (mn.has_value() != mx.has_value())
                           throw JsonValueError("attributes 'min' and 'max' must be given together");
                         const auto r = ref::mrt_affine_param_quantize(f32_data(w), int_attr(a, "prec"), mn, mx);
                         return std::vector<Tensor>{int_tensor("q", DType::I64, w.shape, r.q),
                                                    f64_scalar("scale", r.scale),
                                                    f64_scalar("zero_point", r.zero_point)};
                       }});

QSPEC_REGISTER_REF_OP({.op = "mrt.cvm_float",
                       .convention = "mrt",
                       .fn = [](const Attrs& a, const std::vector<Tensor>& in) {
                         const Tensor& n = input_of(in, "number", DType::F64);
                         const int bits = int_attr(a, "bits");
                         Tensor frac{"frac", DType::I32, n.shape, {}}, exp{"exp", DType::I32, n.shape, {}};
                         for (auto v : n.data) {
                           const auto cf = ref::mrt_cvm_float(static_cast<std::uint64_t>(v), bits);
                           frac.data.push_back(static_cast<std::int64_t>(cf.frac));
                           exp.data.push_back(cf.exp);
                         }
                         return std::vector<Tensor>{frac, exp};
                       }});

QSPEC_REGISTER_REF_OP({.op = "cvm.clip",
                       .convention = "cvm.formal",
                       .fn = [](const Attrs& a, const std::vector<Tensor>& in) {
                         const Tensor& x = input_of(in, "x", DType::I32);
                         const int p = int_attr(a, "precision");
                         ref::cvm_clip(0, p);  // attribute checks even for an empty tensor
                         std::vector<Int> y;
                         for (auto v : x.data) y.push_back(ref::cvm_clip(Int(v), p));
                         return std::vector<Tensor>{int_tensor("y", DType::I32, x.shape, y)};
                       }});

// cvm.right_shift under a per-element function of (x, shift_bit, precision).
OpFn right_shift_fn(std::function<Int(const Int&, int, int)> f) {
  return [f](const Attrs& a, const std::vector<Tensor>& in) {
    const Tensor& x = input_of(in, "x", DType::I32);
    const int b = int_attr(a, "shift_bit"), p = int_attr(a, "precision");
    f(Int(0), b, p);  // attribute checks even for an empty tensor
    std::vector<Int> y;
    for (auto v : x.data) y.push_back(f(Int(v), b, p));
    return std::vector<Tensor>{int_tensor("y", DType::I32, x.shape, y)};
  };
}

QSPEC_REGISTER_REF_OP({.op = "cvm.right_shift",
                       .convention = "cvm.formal",
                       .fn = right_shift_fn([](const Int& x, int b, int p) { return ref::cvm_right_shift(x, b, p); })});

QSPEC_REGISTER_REF_OP({.op = "cvm.right_shift",
                       .convention = "cvm.cpu",
                       .fn = right_shift_fn([](const Int& x, int b, int p) { return ref::cvm_right_shift_cpu(x, b, p); })});

// The diagnostic family "shift.exact.<rounding>": the exact quotient x / 2^b rounded by each
// named rounding, then the same clip; lets the harness say "matches half_away, spec says half_up".
#define QSPEC_MRT_SHIFT_EXACT(suffix, mode)                                                                  \
  QSPEC_REGISTER_REF_OP({.op = "cvm.right_shift",                                                           \
                         .convention = "shift.exact." suffix,                                                \
                         \
                         \
                         .fn = right_shift_fn([](const Int& x, int b, int p) {                              \
                           return ref::cvm_right_shift_exact(x, b, p, ref::Rounding::mode);                 \
                         }),                                                                                 \
                         })
QSPEC_MRT_SHIFT_EXACT("floor", Floor);
QSPEC_MRT_SHIFT_EXACT("ceil", Ceil);
QSPEC_MRT_SHIFT_EXACT("trunc", Trunc);
QSPEC_MRT_SHIFT_EXACT("half_up", HalfUp);
QSPEC_MRT_SHIFT_EXACT("half_down", HalfDown);
QSPEC_MRT_SHIFT_EXACT("half_away", HalfAway);
QSPEC_MRT_SHIFT_EXACT("half_even", HalfEven);
#undef QSPEC_MRT_SHIFT_EXACT

QSPEC_REGISTER_REF_OP({.op = "cvm.left_shift",
                       .convention = "cvm.formal",
                       .fn = [](const Attrs& a, const std::vector<Tensor>& in) {
                         const Tensor& x = input_of(in, "x", DType::I32);
                         const int b = int_attr(a, "shift_bit"), p = int_attr(a, "precision");
                         const int ip = int_attr(a, "input_precision");
                         ref::cvm_left_shift(0, b, p, ip);  // attribute checks even for an empty tensor
                         std::vector<Int> y;
                         for (auto v : x.data) y.push_back(ref::cvm_left_shift(Int(v), b, p, ip));
                         return std::vector<Tensor>{int_tensor("y", DType::I32, x.shape, y)};
                       }});

QSPEC_REGISTER_REF_OP({.op = "mrt.realize",
                       .convention = "mrt",
                       .fn = [](const Attrs& a, const std::vector<Tensor>& in) {
                         const Tensor& x = input_of(in, "x", DType::I32);
                         const Int frac(attr_int(a, "frac"));
                         const int exp = int_attr(a, "exp"), p = int_attr(a, "precision");
                         const int ip = int_attr(a, "input_precision");
                         ref::mrt_realize_check(frac, exp, p, ip);
                         std::vector<Int> y;
                         for (auto v : x.data) y.push_back(ref::mrt_realize(Int(v), frac, exp, p, ip));
                         return std::vector<Tensor>{int_tensor("y", DType::I32, x.shape, y)};
                       }});

QSPEC_REGISTER_REF_OP({.op = "mrt.sym_input_quantize",
                       .convention = "mrt",
                       .fn = [](const Attrs& a, const std::vector<Tensor>& in) {
                         const Tensor& x = input_of(in, "x", DType::I32);
                         const auto r = ref::mrt_sym_input_quantize(int_data(x), attr_f64(a, "iscale"),
                                                                    attr_f64(a, "threshold"), int_attr(a, "iprec"),
                                                                    int_attr(a, "prec"));
                         return std::vector<Tensor>{int_tensor("y", DType::I32, x.shape, r.y), f64_scalar("scale", r.scale)};
                       }});

QSPEC_REGISTER_REF_OP({.op = "mrt.affine_input_quantize",
                       .convention = "mrt",
                       .fn = [](const Attrs& a, const std::vector<Tensor>& in) {
                         const Tensor& x = input_of(in, "x", DType::I32);
                         const auto r = ref::mrt_affine_input_quantize(int_data(x), attr_f64(a, "iscale"),
                                                                       attr_f64(a, "min"), attr_f64(a, "max"),
                                                                       int_attr(a, "iprec"), int_attr(a, "prec"));
                         return std::vector<Tensor>{int_tensor("y", DType::I32, x.shape, r.y), f64_scalar("scale", r.scale),
                                                    int_scalar("zero_point", DType::I64,
                                                               static_cast<std::int64_t>(r.zero_point))};
                       }});

QSPEC_REGISTER_REF_OP({.op = "mrt.requant_operator",
                       .convention = "mrt",
                       .fn = [](const Attrs& a, const std::vector<Tensor>& in) {
                         const Tensor& x = input_of(in, "x", DType::I32);
                         const int shift_bits = has_attr(a, "shift_bits") ? int_attr(a, "shift_bits") : 5;
                         const auto r = ref::mrt_requant_operator(int_data(x), attr_f64(a, "iscale"),
                                                                  attr_f64(a, "threshold"), int_attr(a, "iprec"),
                                                                  int_attr(a, "oprec"), opt_f64(a, "oscale"), shift_bits);
                         return std::vector<Tensor>{int_tensor("y", DType::I32, x.shape, r.y),
                                                    int_scalar("prec", DType::I32, r.prec), f64_scalar("scale", r.scale)};
                       }});

}  // namespace
}  // namespace qspec::refops
