// max_pool2d (mrt, tvm.qnn.max_pool2d) and concat (mrt) through oneDNN's pooling and concat primitives.
//
// Both are exact on integers (no requantization): max pooling on NCHW data with the window's
// padding never winning (oneDNN's pooling_max ignores padded positions), and concatenation
// along an axis. The data type is the vector's (s8, u8 or s32).
#include <cstdint>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#include "dnnl_util.h"
#include "ops.h"
#include "qspec/catalogue/keys.h"
#include "qspec/core/attr.h"
#include "qspec/thirdparty/tensor_io.h"
#include "qspec/thirdparty/window_attrs.h"

namespace qspec::onednn_adapter {
namespace {
using namespace thirdparty;
using dnnl::memory;

// Packs int64 values into a buffer of the dtype's width (s8/u8/s32).
std::vector<unsigned char> pack(const std::vector<std::int64_t>& v, qspec_dtype d) {
  const std::size_t es = d == QSPEC_DTYPE_INT32 ? 4 : 1;
  std::vector<unsigned char> out(v.size() * es);
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (es == 4) {
      const auto x = static_cast<std::int32_t>(v[i]);
      std::memcpy(out.data() + 4 * i, &x, 4);
    } else {
      out[i] = static_cast<unsigned char>(v[i]);
    }
  }
  return out;
}

std::vector<std::int64_t> unpack(const void* p, std::size_t n, qspec_dtype d) {
  std::vector<std::int64_t> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    switch (d) {
      case QSPEC_DTYPE_INT8: out[i] = static_cast<const std::int8_t*>(p)[i]; break;
      case QSPEC_DTYPE_UINT8: out[i] = static_cast<const std::uint8_t*>(p)[i]; break;
      default: out[i] = static_cast<const std::int32_t*>(p)[i]; break;
    }
  }
  return out;
}

memory::format_tag plain_tag(std::size_t rank) {
  using t = memory::format_tag;
  switch (rank) {
    case 1: return t::a;
    case 2: return t::ab;
    case 3: return t::abc;
    case 4: return t::abcd;
    case 5: return t::abcde;
    case 6: return t::abcdef;
    default: throw Unsupported("oneDNN plain layouts go up to rank 6");
  }
}

void check_dtype(qspec_dtype d) {
  if (d != QSPEC_DTYPE_INT8 && d != QSPEC_DTYPE_UINT8 && d != QSPEC_DTYPE_INT32)
    throw Unsupported(std::string("oneDNN has no integer type for ") + dtype_name(d) + " (s8, u8, s32)");
}

}  // namespace

void run_max_pool2d(const Call& call, const PoolKeys& keys) {
  if (call.inputs.size() != 1) call.refuse("max_pool2d takes one input");
  const qspec_tensor& xt = call.inputs[0];
  qspec_tensor& yt = call.first_output();
  check_dtype(xt.dtype);
  if (yt.dtype != xt.dtype) throw Unsupported("oneDNN pooling keeps the data type");
  if (xt.rank != 4) call.refuse("max_pool2d needs NCHW data");
  const auto k = window_pair(call, keys.kernel, 1, 1), s = window_pair(call, keys.strides, 1, 1),
             p = window_pair(call, keys.padding, 0, 0);
  const memory::dim n = xt.shape[0], c = xt.shape[1], h = xt.shape[2], w = xt.shape[3];
  if (h + 2 * p[0] < k[0] || w + 2 * p[1] < k[1]) call.refuse("the window does not fit the padded input");
  const memory::dim oh = (h + 2 * p[0] - k[0]) / s[0] + 1, ow = (w + 2 * p[1] - k[1]) / s[1] + 1;
  const std::vector<std::int64_t> x = read_ints(xt);
  auto xbuf = pack(x, xt.dtype);
  memory::desc src_md({n, c, h, w}, to_dnnl(xt.dtype), memory::format_tag::nchw);
  memory::desc dst_md({n, c, oh, ow}, to_dnnl(xt.dtype), memory::format_tag::nchw);
  dnnl::pooling_v2_forward::primitive_desc pd;
  create_or_explain(
      [&] {
        dnnl::pooling_v2_forward::desc d(dnnl::prop_kind::forward_inference, dnnl::algorithm::pooling_max, src_md,
                                         dst_md, {s[0], s[1]}, {k[0], k[1]}, {0, 0}, {p[0], p[1]}, {p[0], p[1]});
        pd = dnnl::pooling_v2_forward::primitive_desc(d, cpu_engine());
      },
      std::string("pooling_max on ") + dtype_name(xt.dtype));
  memory src(src_md, cpu_engine(), xbuf.data()), dst(dst_md, cpu_engine());
  dnnl::pooling_v2_forward(pd).execute(cpu_stream(), {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}});
  cpu_stream().wait();
  write_ints(yt, unpack(dst.get_data_handle(), static_cast<std::size_t>(n * c * oh * ow), xt.dtype));
}

void run_concat(const Call& call) {
  if (call.inputs.empty()) call.refuse("concat needs inputs");
  const qspec_tensor& first = call.inputs[0];
  qspec_tensor& yt = call.first_output();
  check_dtype(first.dtype);
  std::int64_t axis = attr::get_or(call.attrs, cat::concat::attr::axis, 1);
  if (axis < 0) axis += first.rank;  // NumPy-style negative axis
  if (axis < 0 || axis >= first.rank) call.refuse("axis out of range");
  std::vector<memory::desc> mds;
  std::vector<std::vector<unsigned char>> bufs;
  std::int64_t total = 0;
  for (const auto& t : call.inputs) {
    if (t.dtype != first.dtype) throw Unsupported("oneDNN concat needs one data type for every input");
    if (t.rank != first.rank) call.refuse("inputs differ in rank");
    const memory::dims dims(t.shape, t.shape + t.rank);
    mds.emplace_back(dims, to_dnnl(t.dtype), plain_tag(static_cast<std::size_t>(t.rank)));
    bufs.push_back(pack(read_ints(t), t.dtype));
    total += numel(t);
  }
  if (call.has_outputs() && yt.dtype != first.dtype) throw Unsupported("oneDNN concat keeps the data type");
  // The destination's shape (checked by oneDNN) with a plain layout, so that it reads row-major.
  memory::dims dst_dims(first.shape, first.shape + first.rank);
  dst_dims[static_cast<std::size_t>(axis)] = 0;
  for (const auto& t : call.inputs) dst_dims[static_cast<std::size_t>(axis)] += t.shape[axis];
  const memory::desc dst_md(dst_dims, to_dnnl(first.dtype), plain_tag(static_cast<std::size_t>(first.rank)));
  dnnl::concat::primitive_desc pd;
  create_or_explain([&] { pd = dnnl::concat::primitive_desc(dst_md, static_cast<int>(axis), mds, cpu_engine()); },
                    "concat");
  if (total == 0) return write_ints(yt, {});
  std::unordered_map<int, memory> args;
  std::vector<memory> srcs;
  for (std::size_t i = 0; i < mds.size(); ++i) {
    srcs.emplace_back(mds[i], cpu_engine(), bufs[i].data());
    args.insert({DNNL_ARG_MULTIPLE_SRC + static_cast<int>(i), srcs.back()});
  }
  memory dst(dst_md, cpu_engine());
  args.insert({DNNL_ARG_DST, dst});
  dnnl::concat(pd).execute(cpu_stream(), args);
  cpu_stream().wait();
  write_ints(yt, unpack(dst.get_data_handle(), static_cast<std::size_t>(total), first.dtype));
}

}  // namespace qspec::onednn_adapter
