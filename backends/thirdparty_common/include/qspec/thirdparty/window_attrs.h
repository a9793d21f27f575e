// Convolution / pooling window attributes (kernel, strides, padding, dilation) read and checked
// before any library sees them: a zero stride would otherwise divide by zero in the adapter.
// The attributes are named by typed keys (one op's bundle: qspec/core/window_keys.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "qspec/core/attr.h"
#include "qspec/core/window_keys.h"
#include "qspec/thirdparty/adapter.h"

namespace qspec::thirdparty {

// Two entries of attribute `key` (default {d, d}); each must be >= min_value, else the call is
// refused (the spec's ERROR_IF on such attributes).
inline std::vector<std::int64_t> window_pair(const Call& call, const attr::IntArray& key, std::int64_t d,
                                             std::int64_t min_value) {
  const std::string name(key.name);
  if (attr::has(call.attrs, key) && !call.attrs.at(name).is_array()) call.refuse(name + " must be an array");
  const std::vector<std::int64_t> v = attr::get_or(call.attrs, key, std::vector<std::int64_t>{d, d});
  if (v.size() != 2) call.refuse(name + " needs two entries");
  for (auto x : v)
    if (x < min_value) call.refuse(name + " entries must be >= " + std::to_string(min_value));
  return v;
}

}  // namespace qspec::thirdparty
