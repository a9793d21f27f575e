// Vector family of TVM's quantized average pooling (tvm.qnn.avg_pool2d): ops/tvm/qnn_avg_pool2d.json.
// Tensors and attributes through the catalogue's typed keys (qspec::cat::tvm_qnn_avg_pool2d).
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "qspec/catalogue/keys.h"
#include "qspec/vecgen.h"
#include "qspec/vecgen/attrs_of.h"
#include "qspec/vecgen/classify.h"

namespace qspec::vecgen {
namespace {

using OJ = nlohmann::ordered_json;
using Dims = std::vector<std::int64_t>;
using K = cat::tvm_qnn_avg_pool2d;
using Layout = K::attr::layout_is;

std::uint32_t f32_bits(int e, std::uint32_t m) { return (static_cast<std::uint32_t>(e + 127) << 23) | (m & 0x7fffffu); }

Tensor rand_data(Rng& r, const Dims& s, DType t) {
  std::int64_t n = 1;
  for (auto d : s) n *= d;
  std::vector<std::int64_t> v;
  for (std::int64_t i = 0; i < n; ++i) v.push_back(r.uniform(dtype_min(t), dtype_max(t)));
  return tensor(std::string(K::in::data), t, s, v);
}

Tensor data_of(DType t, Dims shape, std::vector<std::int64_t> v) {
  return tensor(std::string(K::in::data), t, std::move(shape), std::move(v));
}

OJ attrs(std::uint32_t si, std::int64_t zi, std::uint32_t so, std::int64_t zo, const Dims& pool, const Dims& strides,
         const Dims& dil, const Dims& pad, bool cip, std::string_view layout) {
  using A = K::attr;
  return attrs_of(A::input_scale, si, A::input_zero_point, zi, A::output_scale, so, A::output_zero_point, zo,
                  A::pool_size, pool, A::strides, strides, A::dilation, dil, A::padding, pad, A::count_include_pad, cip,
                  A::layout, layout);
}

Test make(std::string c, std::vector<Tensor> in, OJ a, bool invalid = false, std::vector<std::string> flags = {}) {
  Test t;
  t.comment = std::move(c);
  t.inputs = std::move(in);
  t.attributes = std::move(a);
  t.invalid = invalid;
  t.flags = std::move(flags);
  if (classify(K::op, K::conv::tvm, t.attributes, t.inputs) != (invalid ? Verdict::Invalid : Verdict::Valid))
    throw std::logic_error("vecgen " + std::string(K::op) + ": case '" + t.comment + "' misclassified");
  return t;
}

std::vector<Group> generate(Rng& r) {
  std::vector<Test> t;
  const std::uint32_t one = f32_bits(0, 0), half = f32_bits(-1, 0);
  // Truncation of code sums: uint8 [1, 2] -> 3 / 2 = 1 (floor); int8 [-1, -2] -> -3 / 2 = -1 (toward zero).
  t.push_back(make("uint8 average 1.5 truncates to 1", {data_of(DType::U8, {1, 1, 1, 2}, {1, 2})},
                   attrs(one, 0, one, 0, {1, 2}, {1, 1}, {1, 1}, {0, 0, 0, 0}, false, Layout::NCHW), false,
                   {"truncation"}));
  t.push_back(make("int8 average -1.5 truncates toward zero to -1", {data_of(DType::I8, {1, 1, 1, 2}, {-1, -2})},
                   attrs(one, 0, one, 0, {1, 2}, {1, 1}, {1, 1}, {0, 0, 0, 0}, false, Layout::NCHW), false,
                   {"truncation"}));
  // count_include_pad with zero point 100: the padding is the integer 0 (real -100 s), not 100.
  t.push_back(make("count_include_pad averages the integer 0, not the zero point",
                   {data_of(DType::U8, {1, 1, 1, 1}, {100})},
                   attrs(one, 100, one, 100, {2, 2}, {1, 1}, {1, 1}, {1, 1, 1, 1}, true, Layout::NCHW), false,
                   {"pad_is_integer_zero"}));
  t.push_back(make("count_include_pad false: only the input counts", {data_of(DType::U8, {1, 1, 1, 1}, {100})},
                   attrs(one, 100, one, 100, {2, 2}, {1, 1}, {1, 1}, {1, 1, 1, 1}, false, Layout::NCHW)));
  t.push_back(make("a window entirely in the padding gives 0, not the zero point",
                   {data_of(DType::I8, {1, 2, 2, 1}, {5, 6, 7, 8})},
                   attrs(one, -20, one, -20, {1, 1}, {2, 2}, {1, 1}, {1, 1, 0, 0}, false, Layout::NHWC), false,
                   {"pad_is_integer_zero"}));
  t.push_back(make("requantized to the output parameters first (scale 2 -> 1, zero point 3 -> -3)",
                   {data_of(DType::I8, {1, 1, 2, 2}, {-128, 127, 10, 11})},
                   attrs(f32_bits(1, 0), 3, one, -3, {2, 2}, {1, 1}, {1, 1}, {0, 0, 0, 0}, false, Layout::NCHW), false,
                   {"requantized"}));
  t.push_back(make("requantized beyond int8 then clipped", {data_of(DType::I8, {1, 1, 1, 2}, {127, 126})},
                   attrs(one, 0, half, 0, {1, 2}, {1, 1}, {1, 1}, {0, 0, 0, 0}, false, Layout::NCHW), false,
                   {"requantized", "clip"}));
  t.push_back(make("dilation 2 with asymmetric padding", {rand_data(r, {1, 2, 5, 4}, DType::U8)},
                   attrs(one, 0, one, 0, {2, 2}, {1, 2}, {2, 1}, {1, 0, 2, 1}, false, Layout::NCHW)));
  t.push_back(make("invalid: int16 data", {data_of(DType::I16, {1, 1, 1, 1}, {0})},
                   attrs(one, 0, one, 0, {1, 1}, {1, 1}, {1, 1}, {0, 0, 0, 0}, false, Layout::NCHW), true));
  t.push_back(make("invalid: rank 3", {data_of(DType::I8, {1, 1, 1}, {0})},
                   attrs(one, 0, one, 0, {1, 1}, {1, 1}, {1, 1}, {0, 0, 0, 0}, false, Layout::NCHW), true));
  t.push_back(make("invalid: window larger than the padded input", {data_of(DType::I8, {1, 1, 2, 2}, {0, 0, 0, 0})},
                   attrs(one, 0, one, 0, {3, 1}, {1, 1}, {1, 1}, {0, 0, 0, 0}, false, Layout::NCHW), true));
  t.push_back(make("invalid: stride 0", {data_of(DType::I8, {1, 1, 2, 2}, {0, 0, 0, 0})},
                   attrs(one, 0, one, 0, {1, 1}, {0, 1}, {1, 1}, {0, 0, 0, 0}, false, Layout::NCHW), true));
  t.push_back(make("invalid: negative padding", {data_of(DType::I8, {1, 1, 2, 2}, {0, 0, 0, 0})},
                   attrs(one, 0, one, 0, {1, 1}, {1, 1}, {1, 1}, {0, -1, 0, 0}, false, Layout::NCHW), true));
  t.push_back(make("invalid: layout HWCN", {data_of(DType::I8, {1, 1, 2, 2}, {0, 0, 0, 0})},
                   attrs(one, 0, one, 0, {1, 1}, {1, 1}, {1, 1}, {0, 0, 0, 0}, false, Layout::HWCN), true));
  for (int i = 0; i < 130; ++i) {
    const DType dt = r.coin() ? DType::I8 : DType::U8;
    const std::int64_t kh = r.uniform(1, 3), kw = r.uniform(1, 3), dh = r.uniform(1, 2), dw = r.uniform(1, 2);
    const Dims pad{r.uniform(0, 2), r.uniform(0, 2), r.uniform(0, 2), r.uniform(0, 2)};
    const std::int64_t h = std::max<std::int64_t>(1, dh * (kh - 1) + 1 - pad[0] - pad[2]) + r.uniform(0, 3);
    const std::int64_t w = std::max<std::int64_t>(1, dw * (kw - 1) + 1 - pad[1] - pad[3]) + r.uniform(0, 3);
    const bool nhwc = r.coin();
    const std::int64_t n = r.uniform(1, 2), c = r.uniform(1, 3);
    const Dims shape = nhwc ? Dims{n, h, w, c} : Dims{n, c, h, w};
    const bool same = r.uniform(0, 2) == 0;
    // Mantissa before exponent: one draw per statement in the order GCC evaluated f32_bits's
    // arguments (right to left), which the committed vectors hold.
    const auto si_mantissa = static_cast<std::uint32_t>(r.uniform(0, (1 << 23) - 1));
    const std::uint32_t si = f32_bits(static_cast<int>(r.uniform(-8, 0)), si_mantissa);
    const std::int64_t zi = r.uniform(dtype_min(dt) / 2, dtype_max(dt) / 2 + 64);
    std::uint32_t so = si;
    if (!same) {
      const auto so_mantissa = static_cast<std::uint32_t>(r.uniform(0, (1 << 23) - 1));
      so = f32_bits(static_cast<int>(r.uniform(-8, 0)), so_mantissa);
    }
    const std::int64_t zo = same ? zi : r.uniform(dtype_min(dt) / 2, dtype_max(dt) / 2 + 64);
    const bool cip = r.coin();
    std::vector<std::string> flags;
    if (!same) flags.push_back("requantized");
    if (cip && zo != 0 && (pad[0] || pad[1] || pad[2] || pad[3])) flags.push_back("pad_is_integer_zero");
    const Dims strides{r.uniform(1, 3), r.uniform(1, 3)};  // drawn before the data: the committed vectors' order
    Tensor data = rand_data(r, shape, dt);
    t.push_back(make("random", {std::move(data)},
                     attrs(si, zi, so, zo, {kh, kw}, strides, {dh, dw}, pad, cip, nhwc ? Layout::NHWC : Layout::NCHW),
                     false, flags));
  }
  return {Group{OJ::object(), std::move(t)}};
}

QSPEC_REGISTER_VECTOR_FAMILY(family<K>(
    K::conv::tvm,
    {{"truncation", "the window sum of codes is divided with truncation toward zero (TIR truncdiv)"},
     {"pad_is_integer_zero", "the padding is the integer 0 in output codes, whose real value is -zero_point * scale"},
     {"requantized",
      "input and output parameters differ: the input is requantized (UPWARD) to int32 output codes first"},
     {"clip", "the average clips at an end of the dtype"}},
    1301, generate));

}  // namespace
}  // namespace qspec::vecgen
