// Reference ops for Glow: quantize / dequantize / rescale in the shared vocabulary, plus Glow's own ops.
//
// Glow's "offset" is the zero point (glow.affine_map), so the shared ops quantize, dequantize and
// requantize (glow.cpu_rescale / glow.interpreter_rescale, with TVM's attribute names) use the
// shared names of their catalogue entries (spec/catalogue/{quantize,dequantize,requantize}.json).
// Glow's own ops (spec/glow.md), each with the one convention glow: parameter choice, bias
// parameters, the Caffe2 uint8 -> int8 shift, row-wise and fused row-wise (de)quantization and the
// rescale parameters. Their tensors and attributes are in spec/catalogue/glow.*.json (spec/ops.md)
// and are named here through the typed keys (qspec::cat::glow_*).
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "qspec/catalogue/keys.h"
#include "qspec/core/json_values.h"
#include "qspec/ref/glow.h"
#include "qspec/refops.h"
#include "qspec/refops/tensor_args.h"

namespace qspec::refops {
namespace {

using qspec::ref::GlowQParams;
using qspec::ref::Int;

void require_dtype(DType t, std::initializer_list<DType> allowed, const std::string& what) {
  for (DType a : allowed)
    if (a == t) return;
  throw JsonValueError(what + " does not apply to dtype " + std::string(dtype_name(t)));
}

// A float32 matrix [rows, cols] split into rows (ERROR_IF not a non-empty matrix).
std::vector<std::vector<std::uint32_t>> rows_of(const Tensor& x) {
  QSPEC_ERROR_IF(x.shape.size() != 2 || x.shape[0] < 1 || x.shape[1] < 1, "glow: row-wise input must be a [rows, cols] matrix");
  const auto rows = static_cast<std::size_t>(x.shape[0]), cols = static_cast<std::size_t>(x.shape[1]);
  std::vector<std::vector<std::uint32_t>> out(rows);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c) out[r].push_back(static_cast<std::uint32_t>(x.data[r * cols + c]));
  return out;
}

// Little-endian bytes of a float32 and back (setFusedScaleOffsetInRow stores the raw float).
void push_le(std::vector<std::int64_t>& bytes, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) bytes.push_back(static_cast<std::int64_t>((v >> (8 * i)) & 0xffu));
}
std::uint32_t read_le(const std::vector<std::int64_t>& bytes, std::size_t at) {
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= static_cast<std::uint32_t>(bytes[at + static_cast<std::size_t>(i)]) << (8 * i);
  return v;
}

Tensor scalar_f32(std::string_view name, std::uint32_t bits) {
  return Tensor{std::string(name), DType::F32, {1}, {static_cast<std::int64_t>(bits)}};
}
Tensor scalar_i32(std::string_view name, const Int& v) {
  return Tensor{std::string(name), DType::I32, {1}, {static_cast<std::int64_t>(v)}};
}

// ---- shared ops ----

std::vector<Tensor> glow_quantize(const Attrs& attrs, const std::vector<Tensor>& inputs) {
  using Op = cat::quantize;
  const Tensor& x = input(inputs, Op::in::x);
  if (x.dtype != DType::F32) throw JsonValueError("glow.quantize: input x must be float32");
  const DType out = attr::get(attrs, Op::attr::out_dtype);
  require_dtype(out, {DType::I8, DType::U8, DType::I16, DType::I32}, std::string(Op::conv::glow_quantize));
  const GlowQParams p{attr::get(attrs, Op::attr::scale), Int(attr::get(attrs, Op::attr::zero_point))};
  Tensor y{std::string(Op::out::y), out, x.shape, {}};
  for (auto v : x.data) y.data.push_back(static_cast<std::int64_t>(ref::glow_quantize(static_cast<std::uint32_t>(v), p, out)));
  return {y};
}

std::vector<Tensor> glow_dequantize(const Attrs& attrs, const std::vector<Tensor>& inputs) {
  using Op = cat::dequantize;
  const Tensor& x = input(inputs, Op::in::x);
  require_dtype(x.dtype, {DType::I8, DType::U8, DType::I16, DType::I32}, std::string(Op::conv::glow_dequantize));
  const GlowQParams p{attr::get(attrs, Op::attr::scale), Int(attr::get(attrs, Op::attr::zero_point))};
  Tensor y{std::string(Op::out::y), DType::F32, x.shape, {}};
  for (auto v : x.data) y.data.push_back(static_cast<std::int64_t>(ref::glow_dequantize(Int(v), p)));
  return {y};
}

OpFn rescale_fn(bool integer) {
  using Op = cat::requantize;
  return [integer](const Attrs& attrs, const std::vector<Tensor>& inputs) {
    const Tensor& x = input(inputs, Op::in::x);
    require_dtype(x.dtype, {DType::I8, DType::I32},
                  std::string(integer ? Op::conv::glow_cpu_rescale : Op::conv::glow_interpreter_rescale));
    require_dtype(attr::get(attrs, Op::attr::out_dtype), {DType::I8}, "glow rescale (int8 output)");
    const GlowQParams in{attr::get(attrs, Op::attr::input_scale), Int(attr::get(attrs, Op::attr::input_zero_point))};
    const GlowQParams out{attr::get(attrs, Op::attr::output_scale), Int(attr::get(attrs, Op::attr::output_zero_point))};
    Tensor y{std::string(Op::out::y), DType::I8, x.shape, {}};
    for (auto v : x.data)
      y.data.push_back(static_cast<std::int64_t>(integer ? ref::glow_rescale_integer(Int(v), in, out)
                                                         : ref::glow_rescale_float(Int(v), in, out)));
    return std::vector<Tensor>{y};
  };
}

QSPEC_REGISTER_REF_OP(registration<cat::quantize>(cat::quantize::conv::glow_quantize, glow_quantize));
QSPEC_REGISTER_REF_OP(registration<cat::dequantize>(cat::dequantize::conv::glow_dequantize, glow_dequantize));
QSPEC_REGISTER_REF_OP(registration<cat::requantize>(cat::requantize::conv::glow_cpu_rescale, rescale_fn(true)));
QSPEC_REGISTER_REF_OP(
    registration<cat::requantize>(cat::requantize::conv::glow_interpreter_rescale, rescale_fn(false)));

// ---- Glow's own ops ----

// A registration of Op's convention glow (the one convention of each of Glow's own ops).
template <class Op>
Registration glow_op(OpFn fn) {
  return {.op = std::string(Op::op), .convention = std::string(Op::conv::glow), .fn = std::move(fn)};
}

// Op's schema attribute as Glow's quantization::Schema.
template <class Op>
ref::GlowSchema schema_attr(const Attrs& attrs) {
  using is = typename Op::attr::schema_is;
  const std::string_view s = attr::get(attrs, Op::attr::schema);
  if (s == is::asymmetric) return ref::GlowSchema::Asymmetric;
  if (s == is::symmetric) return ref::GlowSchema::Symmetric;
  return ref::GlowSchema::SymmetricWithUint8;  // the key admits nothing else
}

QSPEC_REGISTER_REF_OP(glow_op<cat::glow_choose_params>([](const Attrs& attrs, const std::vector<Tensor>& inputs) {
  using Op = cat::glow_choose_params;
  const Tensor& range = input(inputs, Op::in::range, DType::F32);
  if (range.data.size() != 2) throw JsonValueError("glow.choose_params: input 'range' must be float32 (min, max)");
  const DType precision = attr::get(attrs, Op::attr::precision);
  const auto p = ref::glow_choose_params(static_cast<std::uint32_t>(range.data[0]),
                                         static_cast<std::uint32_t>(range.data[1]), schema_attr<Op>(attrs), precision);
  return std::vector<Tensor>{scalar_f32(Op::out::scale, p.scale), scalar_i32(Op::out::offset, p.offset)};
}));

QSPEC_REGISTER_REF_OP(glow_op<cat::glow_bias_params>([](const Attrs& attrs, const std::vector<Tensor>& inputs) {
  using Op = cat::glow_bias_params;
  const Tensor& s = input(inputs, Op::in::scales, DType::F32);
  if (s.data.size() != 3)
    throw JsonValueError("glow.bias_params: input 'scales' must be float32 (input, weights, bias)");
  const DType precision = attr::get(attrs, Op::attr::precision);
  const GlowQParams bias{static_cast<std::uint32_t>(s.data[2]), Int(attr::get(attrs, Op::attr::bias_offset))};
  const auto p = ref::glow_bias_params(bias, static_cast<std::uint32_t>(s.data[0]),
                                       static_cast<std::uint32_t>(s.data[1]), precision);
  return std::vector<Tensor>{scalar_f32(Op::out::scale, p.scale), scalar_i32(Op::out::offset, p.offset)};
}));

QSPEC_REGISTER_REF_OP(glow_op<cat::glow_uint8_to_int8>([](const Attrs& attrs, const std::vector<Tensor>& inputs) {
  using Op = cat::glow_uint8_to_int8;
  const Tensor& x = input(inputs, Op::in::x, DType::U8);
  const Int zp(attr::get(attrs, Op::attr::zero_point));
  QSPEC_ERROR_IF(zp < 0 || zp > 255, "glow.uint8_to_int8: a Caffe2 uint8 zero point is in [0, 255]");
  Tensor y{std::string(Op::out::y), DType::I8, x.shape, {}};
  for (auto v : x.data) y.data.push_back(static_cast<std::int64_t>(ref::glow_uint8_to_int8(Int(v))));
  return std::vector<Tensor>{y, scalar_i32(Op::out::zero_point, ref::glow_uint8_to_int8(zp))};
}));

QSPEC_REGISTER_REF_OP(glow_op<cat::glow_rowwise_quantize>([](const Attrs& attrs, const std::vector<Tensor>& inputs) {
  using Op = cat::glow_rowwise_quantize;
  const Tensor& x = input(inputs, Op::in::x, DType::F32);
  const auto rows = rows_of(x);
  const auto schema = schema_attr<Op>(attrs);
  Tensor y{std::string(Op::out::y), DType::I8, x.shape, {}};
  Tensor scales{std::string(Op::out::scales), DType::F32, {x.shape[0]}, {}};
  Tensor offsets{std::string(Op::out::offsets), DType::I32, {x.shape[0]}, {}};
  for (const auto& row : rows) {
    std::vector<Int> q;
    const auto p = ref::glow_rowwise_quantize_row(row, schema, q);
    for (const auto& v : q) y.data.push_back(static_cast<std::int64_t>(v));
    scales.data.push_back(static_cast<std::int64_t>(p.scale));
    offsets.data.push_back(static_cast<std::int64_t>(p.offset));
  }
  return std::vector<Tensor>{y, scales, offsets};
}));

QSPEC_REGISTER_REF_OP(glow_op<cat::glow_rowwise_dequantize>([](const Attrs& attrs, const std::vector<Tensor>& inputs) {
  using Op = cat::glow_rowwise_dequantize;
  const Tensor& x = input(inputs, Op::in::x, DType::I8);
  QSPEC_ERROR_IF(x.shape.size() != 2 || x.shape[0] < 1 || x.shape[1] < 1,
                 "glow: row-wise input must be a [rows, cols] matrix");
  const auto scales = attr::get(attrs, Op::attr::scales);
  const auto offsets = attr::get(attrs, Op::attr::offsets);
  QSPEC_ERROR_IF(scales.size() != static_cast<std::size_t>(x.shape[0]) || offsets.size() != scales.size(),
                 "glow: one scale and one offset per row");
  const auto cols = static_cast<std::size_t>(x.shape[1]);
  Tensor y{std::string(Op::out::y), DType::F32, x.shape, {}};
  for (std::size_t i = 0; i < x.data.size(); ++i)
    y.data.push_back(
        static_cast<std::int64_t>(ref::glow_dequantize(Int(x.data[i]), {scales[i / cols], Int(offsets[i / cols])})));
  return std::vector<Tensor>{y};
}));

QSPEC_REGISTER_REF_OP(glow_op<cat::glow_fused_rowwise_quantize>([](const Attrs&, const std::vector<Tensor>& inputs) {
  using Op = cat::glow_fused_rowwise_quantize;
  const Tensor& x = input(inputs, Op::in::x, DType::F32);
  const auto rows = rows_of(x);
  Tensor y{std::string(Op::out::y), DType::U8, {x.shape[0], x.shape[1] + 8}, {}};
  for (const auto& row : rows) {
    const auto r = ref::glow_fused_rowwise_quantize_row(row);
    for (const auto& v : r.q) y.data.push_back(static_cast<std::int64_t>(v));
    push_le(y.data, r.scale);
    push_le(y.data, r.offset);
  }
  return std::vector<Tensor>{y};
}));

QSPEC_REGISTER_REF_OP(glow_op<cat::glow_fused_rowwise_dequantize>([](const Attrs&, const std::vector<Tensor>& inputs) {
  using Op = cat::glow_fused_rowwise_dequantize;
  const Tensor& x = input(inputs, Op::in::x, DType::U8);
  QSPEC_ERROR_IF(x.shape.size() != 2 || x.shape[0] < 1 || x.shape[1] <= 8,
                 "glow: a fused row-wise tensor is [rows, cols + 8] with cols >= 1");
  const auto width = static_cast<std::size_t>(x.shape[1]), cols = width - 8;
  Tensor y{std::string(Op::out::y), DType::F32, {x.shape[0], static_cast<std::int64_t>(cols)}, {}};
  for (std::size_t r = 0; r < static_cast<std::size_t>(x.shape[0]); ++r) {
    const std::uint32_t scale = read_le(x.data, r * width + cols);
    const std::uint32_t offset = read_le(x.data, r * width + cols + 4);
    for (std::size_t c = 0; c < cols; ++c)
      y.data.push_back(
          static_cast<std::int64_t>(ref::glow_fused_rowwise_dequantize(Int(x.data[r * width + c]), scale, offset)));
  }
  return std::vector<Tensor>{y};
}));

QSPEC_REGISTER_REF_OP(glow_op<cat::glow_rescale_params>([](const Attrs&, const std::vector<Tensor>& inputs) {
  using Op = cat::glow_rescale_params;
  const Tensor& s = input(inputs, Op::in::scale, DType::F32);
  Tensor pre{std::string(Op::out::pre), DType::I32, s.shape, {}},
      post{std::string(Op::out::post), DType::I32, s.shape, {}},
      mul{std::string(Op::out::multiplier), DType::I32, s.shape, {}};
  for (auto v : s.data) {
    const auto p = ref::glow_rescale_params(static_cast<std::uint32_t>(v));
    pre.data.push_back(p.pre);
    post.data.push_back(p.post);
    mul.data.push_back(static_cast<std::int64_t>(p.scale));
  }
  return std::vector<Tensor>{pre, post, mul};
}));

}  // namespace
}  // namespace qspec::refops
