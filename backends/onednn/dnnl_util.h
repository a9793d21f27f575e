// oneDNN helpers for the adapter: one CPU engine and stream, dtype mapping, error -> qspec outcome.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include <functional>
#include <string>

#include "qspec/backend.h"

namespace qspec::onednn_adapter {

dnnl::engine& cpu_engine();
dnnl::stream& cpu_stream();

// s8 / u8 / s32 / f32; throws Unsupported for dtypes oneDNN 2.6 has no integer type for (int16...).
dnnl::memory::data_type to_dnnl(qspec_dtype d);

// Runs `create` (which builds a primitive descriptor) and maps oneDNN's failures: status
// unimplemented (no implementation accepts these attributes, e.g. a weight zero point on
// convolution) -> Unsupported; invalid_arguments -> Rejected; anything else rethrown. `what`
// describes the attempted primitive and parameters (oneDNN itself gives no reason).
void create_or_explain(const std::function<void()>& create, const std::string& what);

// "oneDNN 2.6.3 (cpu isa: avx512_core_amx, runtime OMP)".
std::string version_string();

}  // namespace qspec::onednn_adapter
