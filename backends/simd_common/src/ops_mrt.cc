// Handlers of MRT's quantizers and CVM's shift/clip operators (spec/mrt_quantization.md).
//
// The tensor work is one kShiftRound kernel per op (every CVM operator is "multiply, add a
// rounding constant, arithmetic shift, clip to the symmetric precision range"); the scale
// arithmetic (cvm_float, scales, thresholds) is MRT's binary64 code on the hardware's IEEE
// doubles, which round exactly as the spec's fl64(.) does.
#include <cmath>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "qspec/catalogue/keys.h"
#include "qspec/core/attr.h"
#include "qspec/simd/backend_core.h"

namespace qspec::simd {
namespace {

using Json = nlohmann::ordered_json;

double f64_attr(const Json& a, const attr::F64& key) {
  const std::uint64_t b = attr::get(a, key);
  double d;
  std::memcpy(&d, &b, 8);
  return d;
}
// An integer attribute (the catalogue gives precisions and shifts any integer), pinned to +-2^20
// so that the range checks below decide.
int int_attr(const Json& a, const attr::Int& key) {
  const std::int64_t v = attr::get(a, key);
  constexpr std::int64_t kLimit = std::int64_t{1} << 20;
  return static_cast<int>(v < -kLimit ? -kLimit : (v > kLimit ? kLimit : v));
}
std::int64_t alpha(int p) { return (std::int64_t{1} << (p - 1)) - 1; }

void check_prec(int p, const std::string& what) {
  if (p < 1 || p > 32) throw Rejected(what + " must be in [1, 32], got " + std::to_string(p) + " (ERROR_IF)");
}

// bits.mrt_get_bit of a binary64 value: ceil(log2(|v| + 1)) + 1, exactly.
int mrt_get_bit(double v) {
  v = std::fabs(v);
  int k = 0;
  // |v| + 1 <= 2^k: below 2^53, 2^k - 1 is an exact double; above, v is an integer and the
  // test is v < 2^k.
  while (!(k <= 53 ? v <= std::ldexp(1.0, k) - 1 : v < std::ldexp(1.0, k))) ++k;
  return k + 1;
}
int bit_length(std::int64_t v) {
  int n = 0;
  while (v != 0) {
    v >>= 1;
    ++n;
  }
  return n;
}

// floor((x * m + c) / 2^s) clipped to [lo, hi], int32 in and out (s < 0: exact x * m * 2^-s).
RequantParams shift_clip(std::int64_t m, int s, std::int64_t c, std::int64_t lo, std::int64_t hi) {
  RequantParams p;
  p.kind = RequantKind::kShiftRound;
  if (s < 0 && m <= (std::int64_t{INT32_MAX} >> -s)) {  // fold a small left shift into the multiplier
    m <<= -s;
    s = 0;
  }
  p.multiplier = static_cast<std::int32_t>(m);
  p.shift = s;
  p.round_pos = p.round_neg = c;
  p.out = OutType::I32;
  p.qmin = static_cast<std::int32_t>(lo);
  p.qmax = static_cast<std::int32_t>(hi);
  if (m > INT32_MAX || !finalize(p)) throw Unsupported("shift/clip parameters outside the kernels' domain");
  return p;
}

const qspec_tensor& int32_input(const OpCall& c, std::string_view name) {
  const qspec_tensor& x = c.input(name, 0);
  expect_dtype(x, QSPEC_DTYPE_INT32, ("input '" + std::string(name) + "'").c_str());
  return x;
}
qspec_tensor& int32_output(const OpCall& c, std::string_view name, std::size_t pos, const qspec_tensor& like) {
  qspec_tensor& y = c.output(name, pos);
  expect_dtype(y, QSPEC_DTYPE_INT32, ("output '" + std::string(name) + "'").c_str());
  expect_same_shape(like, y, ("output '" + std::string(name) + "'").c_str());
  return y;
}
template <class T>
void write_scalar(const OpCall& c, std::string_view name, std::size_t pos, qspec_dtype d, T v) {
  qspec_tensor& t = c.output(name, pos);
  expect_dtype(t, d, ("output '" + std::string(name) + "'").c_str());
  if (numel(t) != 1) throw std::invalid_argument("output '" + std::string(name) + "' must hold one value");
  std::memcpy(t.data, &v, sizeof(T));
}
void run(const OpCall& c, const RequantParams& p, const std::int32_t* x, std::size_t n, void* y) {
  c.k.requant(p, n, x, y);
}

// ---- CVM operators ----

void cvm_clip(OpCall& c) {
  using K = cat::cvm_clip;
  const qspec_tensor& x = int32_input(c, K::in::x);
  const int p = int_attr(c.attrs, K::attr::precision);
  check_prec(p, "cvm.clip: precision");
  const RequantParams rp = shift_clip(1, 0, 0, -alpha(p), alpha(p));
  run(c, rp, static_cast<const std::int32_t*>(x.data), static_cast<std::size_t>(numel(x)),
      int32_output(c, K::out::y, 0, x).data);
}

// cvm.right_shift (formal): clip_p(floor((x + 2^(b-1)) / 2^b)); cvm.cpu: its four branches.
template <bool kCpu>
void cvm_right_shift(OpCall& c) {
  using K = cat::cvm_right_shift;
  const qspec_tensor& x = int32_input(c, K::in::x);
  const int b = int_attr(c.attrs, K::attr::shift_bit), p = int_attr(c.attrs, K::attr::precision);
  check_prec(p, "cvm.right_shift: precision");
  check_prec(b, "cvm.right_shift: shift_bit");
  RequantParams rp;
  if (!kCpu) {
    rp = shift_clip(1, b, std::int64_t{1} << (b - 1), -alpha(p), alpha(p));
  } else if (p == 1) {
    rp = shift_clip(1, 0, 0, 0, 0);  // memset to zero
  } else if (b >= 31) {
    rp = shift_clip(1, 31, 0, INT32_MIN, INT32_MAX);  // a >> 31: no rounding, no clip
  } else if (p + b >= 32) {
    rp = shift_clip(1, b, std::int64_t{1} << (b - 1), INT32_MIN, INT32_MAX);  // no clip
  } else {
    rp = shift_clip(1, b, std::int64_t{1} << (b - 1), -alpha(p), alpha(p));
  }
  run(c, rp, static_cast<const std::int32_t*>(x.data), static_cast<std::size_t>(numel(x)),
      int32_output(c, K::out::y, 0, x).data);
}

void cvm_left_shift(OpCall& c) {
  using K = cat::cvm_left_shift;
  const qspec_tensor& x = int32_input(c, K::in::x);
  const int b = int_attr(c.attrs, K::attr::shift_bit), p = int_attr(c.attrs, K::attr::precision),
            ip = int_attr(c.attrs, K::attr::input_precision);
  check_prec(p, "cvm.left_shift: precision");
  check_prec(b, "cvm.left_shift: shift_bit");
  check_prec(ip, "cvm.left_shift: input_precision");
  if (ip + b > 32) throw Rejected("cvm.left_shift: input precision + shift_bit > 32 (ERROR_IF)");
  const RequantParams rp = shift_clip(1, -b, 0, -alpha(p), alpha(p));
  run(c, rp, static_cast<const std::int32_t*>(x.data), static_cast<std::size_t>(numel(x)),
      int32_output(c, K::out::y, 0, x).data);
}

// ---- realize: optional multiply by frac, then one shift-and-clip ----

// mrt_realize_check: the ERROR_IFs that depend only on the attributes. Returns ip' (the product's precision).
int realize_check(std::int64_t frac, int exp, int p, int ip) {
  check_prec(p, "mrt.realize: precision");
  check_prec(ip, "mrt.realize: input precision");
  if (frac < 1) throw Unsupported("mrt.realize: frac >= 1 (REQUIRE)");
  const int ipf = frac > 1 ? ip + bit_length(frac) + 1 : ip;  // get_bit(frac) = bit_length + 1 for frac >= 1
  if (ipf > 32) throw Rejected("mrt.realize: precision of x * frac exceeds 32 (ERROR_IF)");
  if (exp < 0 && -exp > 32) throw Rejected("mrt.realize: right shift > 32 (ERROR_IF)");
  if (exp > 0 && (exp > 32 || ipf + exp > 32)) throw Rejected("mrt.realize: left shift exceeds 32 bits (ERROR_IF)");
  return ipf;
}

// clip_p(floor((x * frac + 2^(sb-1)) / 2^sb)) with sb = -exp (a left shift for exp > 0).
RequantParams realize_params(std::int64_t frac, int exp, int p) {
  const std::int64_t m = frac > 1 ? frac : 1;
  const int sb = -exp;
  return shift_clip(m, sb, sb > 0 ? std::int64_t{1} << (sb - 1) : 0, -alpha(p), alpha(p));
}

void mrt_realize(OpCall& c) {
  using K = cat::mrt_realize;
  const qspec_tensor& x = int32_input(c, K::in::x);
  const std::int64_t frac = attr::get(c.attrs, K::attr::frac);
  const int exp = int_attr(c.attrs, K::attr::exp), p = int_attr(c.attrs, K::attr::precision),
            ip = int_attr(c.attrs, K::attr::input_precision);
  realize_check(frac, exp, p, ip);
  const RequantParams rp = realize_params(frac, exp, p);
  run(c, rp, static_cast<const std::int32_t*>(x.data), static_cast<std::size_t>(numel(x)),
      int32_output(c, K::out::y, 0, x).data);
}

// ---- cvm_float, scales ----

struct CvmFloat {
  std::int64_t frac = 0;
  int exp = 0;
};
// sim_quant_helper.cvm_float on binary64: halving and doubling are exact, only round() rounds
// (Python 3 round: half to even).
CvmFloat cvm_float(double number, int bits) {
  if (std::isnan(number) || std::isinf(number) || bits > 32)
    throw Unsupported("cvm_float: finite number, bits <= 32 (REQUIRE)");
  if (number < 0) throw Rejected("mrt.cvm_float: number must be >= 0 (ERROR_IF)");
  const std::int64_t a = bits >= 2 ? (std::int64_t{1} << (bits - 1)) - 1 : 1;
  int b = bits - 1;
  if (number == 0) return {};
  int exp = 0;
  while (number >= 1) {
    number /= 2;
    ++exp;
  }
  while (number < 1) {
    number *= 2;
    --exp;
  }
  while (b > 1) {
    if (std::floor(number) == number) break;
    number *= 2;
    --exp;
    --b;
  }
  std::int64_t frac = static_cast<std::int64_t>(std::nearbyint(number));  // < 2^32: exact
  if (frac > a) frac = a;  // the carry is clamped, not renormalised (errata E-MRT-2)
  return {frac, exp};
}

void mrt_cvm_float(OpCall& c) {
  using K = cat::mrt_cvm_float;
  const qspec_tensor& n = c.input(K::in::number, 0);
  expect_dtype(n, QSPEC_DTYPE_FLOAT64, "input 'number'");
  const int bits = int_attr(c.attrs, K::attr::bits);
  const auto count = static_cast<std::size_t>(numel(n));
  std::vector<CvmFloat> r(count);
  for (std::size_t i = 0; i < count; ++i) r[i] = cvm_float(static_cast<const double*>(n.data)[i], bits);
  auto* frac = static_cast<std::int32_t*>(int32_output(c, K::out::frac, 0, n).data);
  auto* exp = static_cast<std::int32_t*>(int32_output(c, K::out::exp, 1, n).data);
  for (std::size_t i = 0; i < count; ++i) {
    frac[i] = static_cast<std::int32_t>(r[i].frac);
    exp[i] = r[i].exp;
  }
}

// mrt.scale: 1 if th == 0, else fl64(alpha(p) / th).
double mrt_scale(double th, int p) {
  check_prec(p, "mrt.scale: precision");
  if (!std::isfinite(th)) throw Unsupported("mrt.scale: finite threshold (REQUIRE)");
  if (th < 0) throw Rejected("mrt.scale: threshold must be >= 0 (ERROR_IF)");
  if (th == 0) return 1.0;
  return static_cast<double>(alpha(p)) / th;
}

// fl64(fl64(iscale * frac) * 2^exp): the simulated scale MRT records.
double simulated_scale(double iscale, const CvmFloat& cf) {
  return iscale * static_cast<double>(cf.frac) * std::ldexp(1.0, cf.exp);
}

// ---- parameter quantizers ----

void mrt_sym_quantize(OpCall& c) {
  using K = cat::mrt_sym_quantize;
  const qspec_tensor& w = c.input(K::in::w, 0);
  expect_dtype(w, QSPEC_DTYPE_FLOAT32, "input 'w'");
  const int p = int_attr(c.attrs, K::attr::prec);
  check_prec(p, "mrt.sym_param_quantizer: precision");
  const auto n = static_cast<std::size_t>(numel(w));
  const auto* ws = static_cast<const float*>(w.data);
  double th = 0;
  if (attr::has(c.attrs, K::attr::threshold)) {
    th = f64_attr(c.attrs, K::attr::threshold);
  } else {
    for (std::size_t i = 0; i < n; ++i) th = std::fmax(th, std::fabs(static_cast<double>(ws[i])));
  }
  const double sc = mrt_scale(th, p);  // ERROR_IF th < 0
  const bool zero = th == 0;
  qspec_tensor& q = int32_output(c, K::out::q, 0, w);
  auto* qs = static_cast<std::int32_t*>(q.data);
  const double a = static_cast<double>(alpha(p));
  for (std::size_t i = 0; i < n; ++i) {
    // fl64(W * sc) with W widened exactly; MXNet round: half away from zero; clip.
    const double r = zero ? 0.0 : std::round(static_cast<double>(ws[i]) * sc);
    qs[i] = static_cast<std::int32_t>(std::fmin(std::fmax(r, -a), a));
  }
  write_scalar(c, K::out::scale, 1, QSPEC_DTYPE_FLOAT64, zero ? 1.0 : sc);
  write_scalar(c, K::out::out_prec, 2, QSPEC_DTYPE_INT32, std::int32_t{zero ? 1 : p});
}

void mrt_affine_quantize(OpCall& c) {
  using K = cat::mrt_affine_quantize;
  using A = K::attr;
  const qspec_tensor& w = c.input(K::in::w, 0);
  expect_dtype(w, QSPEC_DTYPE_FLOAT32, "input 'w'");
  const int p = int_attr(c.attrs, A::prec);
  if (attr::has(c.attrs, A::min) != attr::has(c.attrs, A::max))
    throw std::invalid_argument("attributes '" + std::string(A::min.name) + "' and '" + std::string(A::max.name) +
                                "' must be given together");
  const auto n = static_cast<std::size_t>(numel(w));
  const auto* ws = static_cast<const float*>(w.data);
  check_prec(p, "mrt.affine_param_quantizer: precision");
  double mn = 0, mx = 0;
  if (attr::has(c.attrs, A::min)) {
    mn = f64_attr(c.attrs, A::min);
    mx = f64_attr(c.attrs, A::max);
  } else {
    if (n == 0) throw Unsupported("empty weights without a range (REQUIRE)");
    float lo = ws[0], hi = ws[0];
    for (std::size_t i = 1; i < n; ++i) {
      lo = std::fmin(lo, ws[i]);
      hi = std::fmax(hi, ws[i]);
    }
    mn = lo;
    mx = hi;
  }
  if (mn == mx) throw Rejected("mrt.affine_param_quantizer: max == min (ERROR_IF)");
  const double sc = static_cast<double>((std::int64_t{1} << p) - 1) / (mx - mn);
  const float zp32 = static_cast<float>(mn), sc32 = static_cast<float>(sc);
  const double qmax = static_cast<double>((std::int64_t{1} << p) - 1);
  qspec_tensor& q = c.output(K::out::q, 0);
  expect_dtype(q, QSPEC_DTYPE_INT64, "output 'q'");
  expect_same_shape(w, q, "output 'q'");
  auto* qs = static_cast<std::int64_t*>(q.data);
  for (std::size_t i = 0; i < n; ++i) {
    const float prod = (ws[i] - zp32) * sc32;  // two binary32 operations
    const double v = std::fmax(0.0, static_cast<double>(prod));
    qs[i] = static_cast<std::int64_t>(std::fmin(std::round(v), qmax));
  }
  write_scalar(c, K::out::scale, 1, QSPEC_DTYPE_FLOAT64, sc);
  write_scalar(c, K::out::zero_point, 2, QSPEC_DTYPE_FLOAT64, mn);
}

// ---- input quantizers and requant_operator ----

void mrt_sym_input_quantize(OpCall& c) {
  using K = cat::mrt_sym_input_quantize;
  using A = K::attr;
  const qspec_tensor& x = int32_input(c, K::in::x);
  const double iscale = f64_attr(c.attrs, A::iscale), th = f64_attr(c.attrs, A::threshold);
  const int iprec = int_attr(c.attrs, A::iprec), p = int_attr(c.attrs, A::prec);
  check_prec(p, "mrt.sym_input_quantizer: precision");
  check_prec(iprec, "mrt.sym_input_quantizer: input precision");
  const auto n = static_cast<std::size_t>(numel(x));
  const auto* xs = static_cast<const std::int32_t*>(x.data);
  if (th == 0) {  // MRT returns the node unchanged, scale 1
    qspec_tensor& y = int32_output(c, K::out::y, 0, x);
    std::memcpy(y.data, xs, n * 4);
    write_scalar(c, K::out::scale, 1, QSPEC_DTYPE_FLOAT64, 1.0);
    return;
  }
  const double ratio = mrt_scale(th, p) / iscale;
  const CvmFloat cf = cvm_float(ratio, 32 - iprec);
  realize_check(cf.frac, cf.exp, p, iprec);
  const RequantParams rp = realize_params(cf.frac, cf.exp, p);
  run(c, rp, xs, n, int32_output(c, K::out::y, 0, x).data);
  write_scalar(c, K::out::scale, 1, QSPEC_DTYPE_FLOAT64, simulated_scale(iscale, cf));
}

void mrt_affine_input_quantize(OpCall& c) {
  using K = cat::mrt_affine_input_quantize;
  using A = K::attr;
  const qspec_tensor& x = int32_input(c, K::in::x);
  const double iscale = f64_attr(c.attrs, A::iscale), mn = f64_attr(c.attrs, A::min), mx = f64_attr(c.attrs, A::max);
  const int iprec = int_attr(c.attrs, A::iprec), p = int_attr(c.attrs, A::prec);
  if (p < 1 || p > 31) throw Rejected("mrt.affine_input_quantizer: precision must be in [1, 31] (ERROR_IF)");
  check_prec(iprec, "mrt.affine_input_quantizer: input precision");
  if (mn == mx) throw Rejected("mrt.affine_input_quantizer: max == min (ERROR_IF)");
  const double sc_x = static_cast<double>((std::int64_t{1} << p) - 1) / (mx - mn);
  const double zprod = mn * iscale;
  if (!std::isfinite(zprod) || std::fabs(zprod) >= 9.2e18) throw Unsupported("finite min * iscale (REQUIRE)");
  const auto zp = static_cast<std::int64_t>(std::nearbyint(zprod));  // Python round: half to even
  const int ip = std::max(iprec, mrt_get_bit(static_cast<double>(zp))) + 1;
  if (ip > 32) throw Rejected("mrt.affine_input_quantizer: precision of Xe - zp exceeds 32 (ERROR_IF)");
  const CvmFloat cf = cvm_float(sc_x / iscale, 32 - ip);
  realize_check(cf.frac, cf.exp, p + 1, ip);
  if (zp < INT32_MIN || zp > INT32_MAX) throw Unsupported("zero point beyond int32");
  // max(0, realize(x - zp)): the same kernel with x' = x - zp and the clip's low end at 0.
  RequantParams rp = realize_params(cf.frac, cf.exp, p + 1);
  rp.input_offset = static_cast<std::int32_t>(-zp);
  rp.qmin = 0;
  if (!finalize(rp)) throw Unsupported("realize parameters outside the kernels' domain");
  run(c, rp, static_cast<const std::int32_t*>(x.data), static_cast<std::size_t>(numel(x)),
      int32_output(c, K::out::y, 0, x).data);
  write_scalar(c, K::out::scale, 1, QSPEC_DTYPE_FLOAT64, simulated_scale(iscale, cf));
  write_scalar(c, K::out::zero_point, 2, QSPEC_DTYPE_INT64, zp);
}

void mrt_requant_operator(OpCall& c) {
  using K = cat::mrt_requant_operator;
  using A = K::attr;
  const qspec_tensor& x = int32_input(c, K::in::x);
  const double iscale0 = f64_attr(c.attrs, A::iscale), th = f64_attr(c.attrs, A::threshold);
  const int iprec = int_attr(c.attrs, A::iprec), oprec = int_attr(c.attrs, A::oprec);
  const int shift_bits = attr::has(c.attrs, A::shift_bits) ? int_attr(c.attrs, A::shift_bits) : 5;
  check_prec(oprec, "mrt.requant_operator: output precision");
  check_prec(iprec, "mrt.requant_operator: input precision");
  const bool exactly = attr::has(c.attrs, A::oscale);
  const auto n = static_cast<std::size_t>(numel(x));
  const auto* xs = static_cast<const std::int32_t*>(x.data);
  if (th == 0) {
    qspec_tensor& y = int32_output(c, K::out::y, 0, x);
    std::memcpy(y.data, xs, n * 4);
    write_scalar(c, K::out::prec, 1, QSPEC_DTYPE_INT32, std::int32_t{1});
    write_scalar(c, K::out::scale, 2, QSPEC_DTYPE_FLOAT64, exactly ? f64_attr(c.attrs, A::oscale) : 1.0);
    return;
  }
  const double oscale = exactly ? f64_attr(c.attrs, A::oscale) : mrt_scale(th, oprec);
  int ip = iprec;
  double iscale = iscale0;
  const int sb = mrt_get_bit(th * iscale0) - oprec;
  const bool preshift = sb > shift_bits;
  if (preshift) {
    ip -= sb;
    if (ip < 1) throw Rejected("mrt.requant_operator: the pre-shift leaves precision < 1 (ERROR_IF)");
    if (sb > 32) throw Rejected("mrt.requant_operator: pre-shift > 32 (ERROR_IF)");
    iscale = iscale / std::ldexp(1.0, sb);
  }
  const bool requant = exactly || ip > oprec;
  CvmFloat cf;
  if (requant) {
    cf = cvm_float(oscale / iscale, 32 - ip);
    realize_check(cf.frac, cf.exp, oprec, ip);
  }
  qspec_tensor& y = int32_output(c, K::out::y, 0, x);
  auto* ys = static_cast<std::int32_t*>(y.data);
  const std::int32_t* src = xs;
  if (preshift) {
    run(c, shift_clip(1, sb, std::int64_t{1} << (sb - 1), -alpha(ip), alpha(ip)), xs, n, ys);
    src = ys;
  }
  if (requant) {
    run(c, realize_params(cf.frac, cf.exp, oprec), src, n, ys);  // in place is fine: elementwise
  } else if (!preshift) {
    std::memcpy(ys, xs, n * 4);
  }
  write_scalar(c, K::out::prec, 1, QSPEC_DTYPE_INT32, std::int32_t{oprec});
  write_scalar(c, K::out::scale, 2, QSPEC_DTYPE_FLOAT64, requant ? simulated_scale(iscale, cf) : iscale);
}

}  // namespace

void add_mrt_ops(std::vector<OpEntry>& t) {
  const char* vec = "vectorized shift-and-clip";
  t.push_back(entry<cat::cvm_clip>(cat::cvm_clip::conv::cvm_formal, vec, cvm_clip));
  t.push_back(entry<cat::cvm_right_shift>(cat::cvm_right_shift::conv::cvm_formal, vec, cvm_right_shift<false>));
  t.push_back(entry<cat::cvm_right_shift>(cat::cvm_right_shift::conv::cvm_cpu, vec, cvm_right_shift<true>));
  t.push_back(entry<cat::cvm_left_shift>(cat::cvm_left_shift::conv::cvm_formal, vec, cvm_left_shift));
  t.push_back(entry<cat::mrt_realize>(cat::mrt_realize::conv::mrt, vec, mrt_realize));
  t.push_back(entry<cat::mrt_cvm_float>(cat::mrt_cvm_float::conv::mrt, "scalar binary64", mrt_cvm_float));
  t.push_back(entry<cat::mrt_sym_quantize>(cat::mrt_sym_quantize::conv::mrt, "scalar binary64", mrt_sym_quantize));
  t.push_back(
      entry<cat::mrt_affine_quantize>(cat::mrt_affine_quantize::conv::mrt, "scalar binary32/64", mrt_affine_quantize));
  t.push_back(entry<cat::mrt_sym_input_quantize>(cat::mrt_sym_input_quantize::conv::mrt, vec, mrt_sym_input_quantize));
  t.push_back(
      entry<cat::mrt_affine_input_quantize>(cat::mrt_affine_input_quantize::conv::mrt, vec, mrt_affine_input_quantize));
  t.push_back(entry<cat::mrt_requant_operator>(cat::mrt_requant_operator::conv::mrt, vec, mrt_requant_operator));
}

}  // namespace qspec::simd
