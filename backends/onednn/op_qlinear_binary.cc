// qlinear.add and qlinear.mul (spec/operators_qlinear_onednn_binary.md, the onednn convention)
// through oneDNN 2.6's binary primitive, as a user maps a quantized add / mul onto it: s8/u8 plain
// tensors at the output's rank (unit axes prepended: NumPy's right alignment), the source scales
// through set_scales (add: s_a / s_y and s_b / s_y; mul: (s_a s_b) / s_y on src0), the source zero
// points through set_zero_points (which oneDNN refuses when they are not 0), the output zero point
// as the eltwise_linear post-op (alpha 1, beta z_y) and y_min / y_max as eltwise_clip. A
// configuration oneDNN refuses is its refusal.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "dnnl_util.h"
#include "ops.h"
#include "qspec/catalogue/keys.h"
#include "qspec/core/attr.h"
#include "qspec/thirdparty/tensor_io.h"

namespace qspec::onednn_adapter {
namespace {
using namespace thirdparty;
using dnnl::memory;
using Dims = memory::dims;

// Row-major dims and strides of `s` with unit axes prepended up to `rank`.
memory::desc plain_desc(const std::vector<std::int64_t>& s, std::size_t rank, memory::data_type dt) {
  Dims d(rank - s.size(), 1), strides(rank, 1);
  d.insert(d.end(), s.begin(), s.end());
  for (std::size_t j = rank - 1; j-- > 0;) strides[j] = strides[j + 1] * d[j + 1];
  return memory::desc(d, dt, strides);
}

template <class Op>
void run_binary(const Call& call, bool is_add) {
  using A = typename Op::attr;
  const qspec_tensor &a = call.input(Op::in::a), &b = call.input(Op::in::b);
  for (const qspec_tensor* t : {&a, &b})
    if (t->dtype != QSPEC_DTYPE_INT8 && t->dtype != QSPEC_DTYPE_UINT8)
      call.refuse(std::string("the quantized binary takes s8 or u8, not ") + dtype_name(t->dtype));
  if (a.dtype != b.dtype)
    call.refuse("qlinear.add / qlinear.mul have one dtype for a and b (oneDNN would take mixed s8/u8 sources)");
  const auto& at = call.attrs;
  const std::int64_t lo = dtype_min(a.dtype), hi = dtype_max(a.dtype);
  const std::int64_t zy = attr::get(at, A::y_zero_point);
  if (zy < lo || zy > hi) call.refuse("y_zero_point must fit the data type");
  const std::int64_t ymin = attr::get_or(at, A::y_min, lo), ymax = attr::get_or(at, A::y_max, hi);
  if (ymin < lo || ymin > hi || ymax < lo || ymax > hi) call.refuse("y_min and y_max must fit the data type");
  const float sa = std::bit_cast<float>(attr::get(at, A::a_scale)),
              sb = std::bit_cast<float>(attr::get(at, A::b_scale)),
              sy = std::bit_cast<float>(attr::get(at, A::y_scale));
  for (float s : {sa, sb, sy})
    if (!(s > 0.0f) || !std::isfinite(s)) throw Unsupported("scales finite and positive (a REQUIRE of the clause)");
  const float s0 = is_add ? sa / sy : (sa * sb) / sy, s1 = sb / sy;
  if (!std::isfinite(s0) || (is_add && !std::isfinite(s1)))
    throw Unsupported("the derived source scales must be finite (a REQUIRE of the clause)");

  const auto as = shape_of(a), bs = shape_of(b);
  const std::size_t rank = std::max<std::size_t>({as.size(), bs.size(), 1});
  std::vector<std::int64_t> ys(rank);
  for (std::size_t j = 0; j < rank; ++j) {
    const auto dim = [&](const std::vector<std::int64_t>& s) {
      return j + s.size() >= rank ? s[j + s.size() - rank] : std::int64_t{1};
    };
    ys[j] = std::max(dim(as), dim(bs));  // dnnl_binary_desc_init refuses the pairs that do not broadcast
  }
  const memory::data_type dt = to_dnnl(a.dtype);
  dnnl::binary::primitive_desc pd;
  memory::desc amd, bmd, ymd;
  const std::int64_t za = attr::get(at, A::a_zero_point), zb = attr::get(at, A::b_zero_point);
  try {
    create_or_explain(
        [&] {
          amd = plain_desc(as, rank, dt), bmd = plain_desc(bs, rank, dt), ymd = plain_desc(ys, rank, dt);
          dnnl::primitive_attr attr;
          attr.set_scales(DNNL_ARG_SRC_0, 0, {s0});
          if (is_add) attr.set_scales(DNNL_ARG_SRC_1, 0, {s1});
          // What a user with asymmetric inputs would try: oneDNN's binary has no source zero points.
          if (za != 0) attr.set_zero_points(DNNL_ARG_SRC_0, 0, {static_cast<int>(za)});
          if (zb != 0) attr.set_zero_points(DNNL_ARG_SRC_1, 0, {static_cast<int>(zb)});
          dnnl::post_ops po;
          if (zy != 0) po.append_eltwise(1.0f, dnnl::algorithm::eltwise_linear, 1.0f, static_cast<float>(zy));
          if (attr::has(at, A::y_min) || attr::has(at, A::y_max))
            po.append_eltwise(1.0f, dnnl::algorithm::eltwise_clip, static_cast<float>(ymin), static_cast<float>(ymax));
          attr.set_post_ops(po);
          const dnnl::binary::desc d(is_add ? dnnl::algorithm::binary_add : dnnl::algorithm::binary_mul, amd, bmd, ymd);
          pd = dnnl::binary::primitive_desc(d, attr, cpu_engine());
        },
        std::string("binary ") + (is_add ? "add" : "mul") + " s8/u8 with source scales, zero points and post-ops");
  } catch (const Unsupported& e) {
    // Every implementation is unimplemented with a source zero point: the library's refusal.
    if (za != 0 || zb != 0) call.refuse(std::string(e.what()) + ": the binary primitive has no source zero points");
    throw;
  }

  std::vector<std::uint8_t> ab, bb;
  for (auto v : read_ints(a)) ab.push_back(static_cast<std::uint8_t>(v));
  for (auto v : read_ints(b)) bb.push_back(static_cast<std::uint8_t>(v));
  memory am(amd, cpu_engine(), ab.data()), bm(bmd, cpu_engine(), bb.data()), ym(ymd, cpu_engine());
  dnnl::binary(pd).execute(cpu_stream(), {{DNNL_ARG_SRC_0, am}, {DNNL_ARG_SRC_1, bm}, {DNNL_ARG_DST, ym}});
  cpu_stream().wait();
  std::size_t count = 1;
  for (auto d : ys) count *= static_cast<std::size_t>(d);
  const auto* p = static_cast<const std::uint8_t*>(ym.get_data_handle());
  std::vector<std::int64_t> y(count);
  for (std::size_t i = 0; i < count; ++i)
    y[i] = a.dtype == QSPEC_DTYPE_INT8 ? static_cast<std::int64_t>(static_cast<std::int8_t>(p[i])) : p[i];
  write_ints(call.output(Op::out::y), y);
}

}  // namespace

void run_qlinear_add(const Call& call) { run_binary<cat::qlinear_add>(call, true); }
void run_qlinear_mul(const Call& call) { run_binary<cat::qlinear_mul>(call, false); }

}  // namespace qspec::onednn_adapter
