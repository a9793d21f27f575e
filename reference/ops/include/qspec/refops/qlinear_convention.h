// The reference's QLinearConvention of a qlinear op's convention name (spec/catalogue/qlinear.*.json:
// conv2d, fully_connected and matmul name their conventions alike; armnn.cpuref: conv2d and fully_connected), for the
// registrations and the vector generators.
#pragma once

#include <string_view>

#include "qspec/catalogue/keys.h"
#include "qspec/ref/ops/qlinear.h"

namespace qspec::refops {

inline ref::ops::QLinearConvention qlinear_convention_of(std::string_view name) {
  using Names = cat::qlinear_conv2d::conv;
  using C = ref::ops::QLinearConvention;
  if (name == Names::xnnpack_fp32) return C::XnnpackFp32;
  if (name == Names::tflite_double_round) return C::TfliteDoubleRound;
  if (name == Names::tflite_single_round) return C::TfliteSingleRound;
  if (name == Names::tosa) return C::Tosa;
  if (name == Names::onednn) return C::Onednn;
  if (name == Names::armnn_cpuref) return C::ArmnnCpuref;
  if (name == Names::pytorch_qnnpack) return C::PytorchQnnpack;
  if (name == Names::pytorch_onednn) return C::PytorchOnednn;
  return C::OnnxRuntime;
}

}  // namespace qspec::refops
