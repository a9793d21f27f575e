// The generators' one question to the reference: is this input valid, invalid (an ERROR_IF) or
// outside a REQUIRE? Generators ask it to keep inputs inside the REQUIREs (vectors never go
// there) and to mark ERROR_IF tests invalid; expected outputs still come only from the writer.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "qspec/core/attr.h"
#include "qspec/core/tensor.h"
#include "qspec/ref/exact.h"

namespace qspec::vecgen {

enum class Verdict { Valid, Invalid, OutsideRequire };

// Evaluates the reference op registered for (op, conv). `out`, when given, receives the outputs
// of a valid evaluation. A pair without a reference op is a generator bug (std::logic_error).
Verdict classify(std::string_view op, std::string_view conv, const Attrs& attrs, const std::vector<Tensor>& inputs,
                 std::vector<Tensor>* out = nullptr);
inline Verdict classify(std::string_view op, std::string_view conv, const Attrs& attrs, const Tensor& x,
                        std::vector<Tensor>* out = nullptr) {
  return classify(op, conv, attrs, std::vector<Tensor>{x}, out);
}

// v clamped to int32 (for choosing accumulator inputs near the type's ends).
std::int64_t clamp_i32(const ref::Int& v);

}  // namespace qspec::vecgen
