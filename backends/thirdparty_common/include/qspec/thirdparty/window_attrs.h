// Convolution / pooling window attributes (kernel, strides, padding, dilation) read and checked
// before any library sees them: a zero stride would otherwise divide by zero in the adapter.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "qspec/core/json_values.h"
#include "qspec/thirdparty/adapter.h"

namespace qspec::thirdparty {

// Two entries of attribute `key` (default {d, d}); each must be >= min_value, else the call is
// refused (the spec's ERROR_IF on such attributes).
inline std::vector<std::int64_t> window_pair(const Call& call, const char* key, std::int64_t d, std::int64_t min_value) {
  std::vector<std::int64_t> v;
  if (!call.attrs.contains(key)) {
    v = {d, d};
  } else {
    if (!call.attrs.at(key).is_array()) call.refuse(std::string(key) + " must be an array");
    for (const auto& e : call.attrs.at(key)) v.push_back(json_to_int(e));
  }
  if (v.size() != 2) call.refuse(std::string(key) + " needs two entries");
  for (auto x : v)
    if (x < min_value) call.refuse(std::string(key) + " entries must be >= " + std::to_string(min_value));
  return v;
}

}  // namespace qspec::thirdparty
