// The generators' validity question to the reference (qspec/vecgen/classify.h).
#include "qspec/vecgen/classify.h"

#include <stdexcept>
#include <string>

#include "qspec/refops.h"

namespace qspec::vecgen {

Verdict classify(std::string_view op, std::string_view conv, const Attrs& attrs, const std::vector<Tensor>& inputs,
                 std::vector<Tensor>* out) {
  const auto* impl = refops::find_op(op, conv);
  if (!impl) throw std::logic_error("vecgen: no reference op " + std::string(op) + " / " + std::string(conv));
  try {
    auto r = impl->fn(attrs, inputs);
    if (out) *out = std::move(r);
    return Verdict::Valid;
  } catch (const ref::ErrorIf&) {
    return Verdict::Invalid;
  } catch (const ref::RequireViolated&) {
    return Verdict::OutsideRequire;
  }
}

std::int64_t clamp_i32(const ref::Int& v) {
  if (v < ref::Int(INT32_MIN)) return INT32_MIN;
  if (v > ref::Int(INT32_MAX)) return INT32_MAX;
  return static_cast<std::int64_t>(v);
}

}  // namespace qspec::vecgen
