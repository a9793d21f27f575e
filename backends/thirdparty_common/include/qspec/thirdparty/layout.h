// Layout changes adapters need between qspec's tensors and a library's (NCHW <-> NHWC, OIHW <-> OHWI...).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace qspec::thirdparty {

// Permutes a row-major 4-D tensor: output dimension k is input dimension perm[k]. Data
// movement only; out_shape receives the permuted shape.
template <typename T>
std::vector<T> permute4(const std::vector<T>& in, const std::vector<std::int64_t>& shape, const std::array<int, 4>& perm,
                        std::vector<std::int64_t>& out_shape) {
  out_shape = {shape[perm[0]], shape[perm[1]], shape[perm[2]], shape[perm[3]]};
  std::array<std::int64_t, 4> stride{1, 1, 1, 1};
  for (int d = 2; d >= 0; --d) stride[d] = stride[d + 1] * shape[d + 1];
  std::vector<T> out(in.size());
  std::size_t k = 0;
  for (std::int64_t a = 0; a < out_shape[0]; ++a)
    for (std::int64_t b = 0; b < out_shape[1]; ++b)
      for (std::int64_t c = 0; c < out_shape[2]; ++c)
        for (std::int64_t d = 0; d < out_shape[3]; ++d)
          out[k++] = in[static_cast<std::size_t>(a * stride[perm[0]] + b * stride[perm[1]] + c * stride[perm[2]] +
                                                 d * stride[perm[3]])];
  return out;
}

inline constexpr std::array<int, 4> kNchwToNhwc{0, 2, 3, 1};
inline constexpr std::array<int, 4> kNhwcToNchw{0, 3, 1, 2};
inline constexpr std::array<int, 4> kOihwToOhwi{0, 2, 3, 1};
inline constexpr std::array<int, 4> kHwioToOihw{3, 2, 0, 1};
inline constexpr std::array<int, 4> kHwioToOhwi{3, 0, 1, 2};

}  // namespace qspec::thirdparty
