// The avx2 backend through its C ABI: creation, capabilities, supports, and the status of run()
// for a valid, an ERROR_IF-invalid, an unknown and a malformed call, on hand-derived values.
#include <gtest/gtest.h>

#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "qspec/simd/avx2_backend.h"
#include "qspec/simd/cpu.h"

namespace qspec::simd {
namespace {

class BackendAbi : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(qspec_avx2_backend_create(QSPEC_BACKEND_ABI_VERSION, &b_), 0); }
  void TearDown() override {
    if (b_.destroy) b_.destroy(b_.self);
  }
  qspec_status requantize(const char* conv, const std::string& attrs, std::vector<std::int32_t> x,
                          std::vector<std::int8_t>& y, bool with_output = true) {
    const std::int64_t n = static_cast<std::int64_t>(x.size());
    qspec_tensor in{"x", QSPEC_DTYPE_INT32, 1, &n, x.data(), x.size() * 4};
    y.assign(x.size(), 0x5a);
    qspec_tensor out{"y", QSPEC_DTYPE_INT8, 1, &n, y.data(), y.size()};
    return b_.run(b_.self, "requantize", conv, attrs.c_str(), &in, 1, with_output ? &out : nullptr, with_output ? 1 : 0,
                  msg_, sizeof msg_);
  }
  qspec_backend b_{};
  char msg_[512] = {};
};

// QSPEC_SIMD_ISA lowers the path the tests and benchmarks exercise; a value it does not know
// must be said, never silently run the best path under a lower path's test name.
TEST(CpuCap, LowersThePathOrNamesTheUnknownValue) {
  CpuFeatures all;
  all.avx2 = all.avxvnni = all.avx512vnni = all.zmm = all.vbmi = all.neon = all.dotprod = true;
  std::string problem;
  const CpuFeatures avx2 = cap_cpu_features(all, "avx2", &problem);
  EXPECT_TRUE(avx2.avx2);
  EXPECT_FALSE(avx2.avxvnni);
  EXPECT_FALSE(avx2.avx512vnni);
  EXPECT_FALSE(avx2.zmm);
  EXPECT_FALSE(avx2.vbmi);
  EXPECT_EQ(isa_name(avx2), "avx2");
  const CpuFeatures vex = cap_cpu_features(all, "avxvnni", &problem);
  EXPECT_TRUE(vex.avxvnni);
  EXPECT_FALSE(vex.avx512vnni);
  EXPECT_FALSE(vex.zmm);
  EXPECT_FALSE(vex.vbmi);
  EXPECT_EQ(isa_name(vex), "avx2+avxvnni");
  const CpuFeatures ymm = cap_cpu_features(all, "avx512vnni-ymm", &problem);
  EXPECT_TRUE(ymm.avx512vnni);
  EXPECT_FALSE(ymm.zmm);
  EXPECT_FALSE(ymm.vbmi);
  EXPECT_EQ(isa_name(ymm), "avx2+avx512vnni");
  const CpuFeatures zmm = cap_cpu_features(all, "avx512vnni", &problem);
  EXPECT_TRUE(zmm.zmm);
  EXPECT_FALSE(zmm.vbmi);
  EXPECT_EQ(isa_name(zmm), "avx2+avx512vnni+zmm");
  EXPECT_EQ(isa_name(all), "avx2+avx512vnni+zmm+vbmi");
  EXPECT_EQ(isa_name(cap_cpu_features(all, "scalar", &problem)), "scalar");
  EXPECT_FALSE(cap_cpu_features(all, "neon", &problem).dotprod);
  EXPECT_TRUE(problem.empty()) << problem;
  EXPECT_TRUE(cap_cpu_features(all, "", &problem).avx512vnni);
  EXPECT_TRUE(cap_cpu_features(all, "AVX2", &problem).avx512vnni);
  EXPECT_NE(problem.find("QSPEC_SIMD_ISA=AVX2 is not one of scalar, avx2, avxvnni, avx512vnni-ymm, avx512vnni, neon"),
            std::string::npos)
      << problem;
}

TEST_F(BackendAbi, Identity) {
  EXPECT_EQ(b_.abi_version, QSPEC_BACKEND_ABI_VERSION);
  EXPECT_STREQ(b_.name, "avx2");
  EXPECT_NE(std::strstr(b_.version, "0.1.0"), nullptr);
  qspec_backend other{};
  EXPECT_NE(qspec_avx2_backend_create(QSPEC_BACKEND_ABI_VERSION + 1, &other), 0);  // a newer host is refused
}

TEST_F(BackendAbi, CapabilitiesListEverySupportedPair) {
  const auto caps = nlohmann::json::parse(b_.capabilities_json(b_.self));
  ASSERT_TRUE(caps.is_array());
  ASSERT_GT(caps.size(), 100u);
  for (const auto& c : caps)
    EXPECT_EQ(
        b_.supports(b_.self, c.at("op").get<std::string>().c_str(), c.at("convention").get<std::string>().c_str()), 1);
  EXPECT_EQ(b_.supports(b_.self, "requantize", "no.such.convention"), 0);
  EXPECT_EQ(b_.supports(b_.self, "no_such_op", "gemmlowp.double_round"), 0);
}

// gemmlowp double rounding with M = 2^30, shift = -1: x / 4 by SRDHM (ties up) then RDBPOT (ties
// away). x = 6: SRDHM(6, 2^30) = 3, RDBPOT(3, 1) = 2; x = -6: -3 then -2; x = 5: 2.5 -> 3 -> 2
// (1.5 rounds away); x = -5: -2.5 -> -2 (up) -> -1; zero point 10, then int8 saturation.
TEST_F(BackendAbi, RequantizeHandDerived) {
  std::vector<std::int8_t> y;
  ASSERT_EQ(requantize("gemmlowp.double_round",
                       R"({"multiplier":1073741824,"shift":-1,"output_zero_point":10,"out_dtype":"int8"})",
                       {6, -6, 5, -5, 1000, -1000}, y),
            QSPEC_STATUS_OK)
      << msg_;
  EXPECT_EQ(y, (std::vector<std::int8_t>{12, 8, 12, 9, 127, -128}));
}

TEST_F(BackendAbi, ErrorIfIsRejectedBeforeTouchingOutputs) {
  std::vector<std::int8_t> y;
  // TOSA RESCALE refuses an unsigned output from int32 input; an invalid test has no outputs.
  const std::vector<std::int32_t> x = {1, 2, 3};
  const std::int64_t n = 3;
  qspec_tensor in{"x", QSPEC_DTYPE_INT32, 1, &n, const_cast<std::int32_t*>(x.data()), 12};
  EXPECT_EQ(b_.run(b_.self, "requantize", "tosa.single_round",
                   R"({"multiplier":1073741824,"shift":0,"output_zero_point":0,"out_dtype":"uint8"})", &in, 1, nullptr,
                   0, msg_, sizeof msg_),
            QSPEC_STATUS_REJECTED);
  EXPECT_NE(std::string(msg_).find("ERROR_IF"), std::string::npos);
}

TEST_F(BackendAbi, UnknownAndMalformed) {
  std::vector<std::int8_t> y;
  EXPECT_EQ(requantize("no.such.convention", "{}", {1}, y), QSPEC_STATUS_UNSUPPORTED);
  EXPECT_EQ(requantize("gemmlowp.double_round", R"({"shift":0})", {1}, y), QSPEC_STATUS_ERROR);  // missing attributes
  EXPECT_NE(std::string(msg_).find("missing attribute"), std::string::npos) << msg_;
  EXPECT_EQ(requantize("gemmlowp.double_round", "{not json", {1}, y), QSPEC_STATUS_ERROR);
}

}  // namespace
}  // namespace qspec::simd
