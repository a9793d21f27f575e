// A tensor viewed as [outer, channels, inner] along an axis: gather / scatter one channel's elements.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "qspec/backend.h"
#include "qspec/catalogue/keys.h"
#include "qspec/core/attr.h"
#include "qspec/thirdparty/adapter.h"

namespace qspec::thirdparty {

class ChannelView {
 public:
  ChannelView(const qspec_tensor& t, std::int64_t axis) {
    if (axis < 0 || axis >= t.rank) throw std::invalid_argument("axis out of range");
    for (std::int32_t d = 0; d < t.rank; ++d) {
      if (d < axis) outer_ *= t.shape[d];
      if (d > axis) inner_ *= t.shape[d];
    }
    channels_ = t.shape[axis];
  }
  std::int64_t channels() const { return channels_; }

  // The elements of channel c in row-major order.
  template <typename T>
  std::vector<T> gather(const std::vector<T>& flat, std::int64_t c) const {
    std::vector<T> out;
    out.reserve(static_cast<std::size_t>(outer_ * inner_));
    for (std::int64_t o = 0; o < outer_; ++o)
      for (std::int64_t i = 0; i < inner_; ++i) out.push_back(flat[index(o, c, i)]);
    return out;
  }
  // Writes a gathered line of channel c back into flat.
  template <typename T>
  void scatter(std::int64_t c, const std::vector<T>& line, std::vector<T>& flat) const {
    std::size_t k = 0;
    for (std::int64_t o = 0; o < outer_; ++o)
      for (std::int64_t i = 0; i < inner_; ++i) flat[index(o, c, i)] = line[k++];
  }

  // The other view: each (outer, inner) position holds one element of every channel.
  std::int64_t positions() const { return outer_ * inner_; }
  template <typename T>
  std::vector<T> gather_position(const std::vector<T>& flat, std::int64_t p) const {
    std::vector<T> out;
    for (std::int64_t c = 0; c < channels_; ++c) out.push_back(flat[index(p / inner_, c, p % inner_)]);
    return out;
  }
  template <typename T>
  void scatter_position(std::int64_t p, const std::vector<T>& line, std::vector<T>& flat) const {
    for (std::int64_t c = 0; c < channels_; ++c)
      flat[index(p / inner_, c, p % inner_)] = line[static_cast<std::size_t>(c)];
  }

 private:
  std::size_t index(std::int64_t o, std::int64_t c, std::int64_t i) const {
    return static_cast<std::size_t>((o * channels_ + c) * inner_ + i);
  }
  std::int64_t outer_ = 1, channels_ = 1, inner_ = 1;
};

// The channel axis of a per-channel call of Op: attribute axis in [0, rank) (refused otherwise). A
// negative axis counts from the end only for translated conventions (TVM's per-axis ops allow it;
// the Q31 and float conventions' vectors make it invalid).
template <class Op = cat::requantize_per_channel>
std::int64_t channel_axis(const Call& call, const qspec_tensor& t) {
  const std::int64_t given = attr::get(call.attrs, Op::attr::axis);
  std::int64_t axis = given;
  if (axis < 0 && call.translated()) axis += t.rank;
  if (axis < 0 || axis >= t.rank) call.refuse("axis " + std::to_string(given) + " is out of range");
  return axis;
}

}  // namespace qspec::thirdparty
