// The gemmlowp adapter's op implementations, one file each; every one goes through gemmlowp's own code.
#pragma once

#include "qspec/thirdparty/adapter.h"

namespace qspec::gemmlowp_adapter {

void run_requantize(const thirdparty::Call& call);                // op_requantize.cc
void run_requantize_per_channel(const thirdparty::Call& call);    // op_requantize.cc
void run_legacy_scale(const thirdparty::Call& call);              // op_legacy_scale.cc
void run_legacy_scale_per_channel(const thirdparty::Call& call);  // op_legacy_scale.cc
void run_matmul(const thirdparty::Call& call);                    // op_matmul.cc
void run_srdhm(const thirdparty::Call& call);                     // op_fixedpoint.cc
void run_rdbpot(const thirdparty::Call& call);                    // op_fixedpoint.cc

}  // namespace qspec::gemmlowp_adapter
