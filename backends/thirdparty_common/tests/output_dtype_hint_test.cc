// Adapter::output_dtype_hint: the dtype of an invalid test's output sink, from the catalogue's
// rule for the op's first output (spec/catalogue/<op>.json: dtype_from, same_dtype_as, or one dtype).
#include <gtest/gtest.h>

#include "qspec/catalogue/keys.h"
#include "qspec/thirdparty/adapter.h"

namespace qspec::thirdparty {
namespace {

// The default hint only: claims and run are never called.
class HintOnly final : public Adapter {
 public:
  std::string name() const override { return "hint"; }
  std::string version() const override { return "0"; }
  std::vector<Claim> claims() const override { return {}; }
  void run(const Call&) override {}
};

std::optional<qspec_dtype> hint(std::string_view op, nlohmann::ordered_json attrs) {
  Call call;
  call.op = std::string(op);
  call.attrs = std::move(attrs);
  qspec_dtype out = QSPEC_DTYPE_INT64;
  if (!HintOnly().output_dtype_hint(call, out)) return std::nullopt;
  return out;
}

TEST(OutputDtypeHint, FollowsTheDtypeFromAttribute) {
  // requantize's y: "dtype_from": "out_dtype".
  EXPECT_EQ(hint(cat::requantize::op, {{"out_dtype", "uint8"}}), QSPEC_DTYPE_UINT8);
  EXPECT_EQ(hint(cat::quantize_per_channel::op, {{"out_dtype", "int32"}}), QSPEC_DTYPE_INT32);
  // An invalid test's dtype the valid vectors never hold (tvm.qnn.conv2d's "out_dtype int16"
  // ERROR_IF): the adapters must see int16 to refuse it as the library does.
  EXPECT_EQ(hint(cat::tvm_qnn_conv2d::op, {{"out_dtype", "int16"}}), QSPEC_DTYPE_INT16);
}

TEST(OutputDtypeHint, TakesTheOnlyDtypeAnOutputCanHave) {
  EXPECT_EQ(hint(cat::dequantize::op, nlohmann::ordered_json::object()), QSPEC_DTYPE_FLOAT32);
  EXPECT_EQ(hint(cat::fixed_point_multiply::op, nlohmann::ordered_json::object()), QSPEC_DTYPE_INT32);
}

TEST(OutputDtypeHint, UnknownWithoutARule) {
  // gemmlowp.quantize has no out_dtype and quantize's y has several dtypes: the sink then takes
  // the first input's dtype (adapter.cc).
  EXPECT_EQ(hint(cat::quantize::op, nlohmann::ordered_json::object()), std::nullopt);
  EXPECT_EQ(hint("no.such.op", {{"out_dtype", "int8"}}), std::nullopt);
}

}  // namespace
}  // namespace qspec::thirdparty
