// Vector family of MRT's avg Pooling rewrite (op avg_pool2d, convention mrt): windows with and
// without padding, global pooling, the weight precisions of Convolution (8) and broadcast_mul (16).
#include <string>

#include "qspec/catalogue/keys.h"
#include "qspec/vecgen.h"

namespace qspec::vecgen {
namespace {

using OJ = nlohmann::ordered_json;
using K = cat::avg_pool2d;
using A = K::attr;

// The attributes in the order the vectors hold them (kernel first; absent ones left out).
OJ pool(std::vector<std::int64_t> kernel, std::vector<std::int64_t> strides = {},
        std::vector<std::int64_t> padding = {}, std::int64_t weight_prec = 0) {
  OJ a = OJ::object();
  attr::set(a, A::kernel, kernel);
  if (!strides.empty()) attr::set(a, A::strides, strides);
  if (!padding.empty()) attr::set(a, A::padding, padding);
  if (weight_prec != 0) attr::set(a, A::weight_prec, weight_prec);
  return a;
}

std::vector<Group> generate(Rng& r) {
  std::vector<Test> t;
  auto add = [&](std::string c, std::vector<std::int64_t> shape, OJ attrs, bool invalid = false) {
    std::int64_t n = 1;
    for (auto d : shape) n *= d;
    std::vector<std::int64_t> data;
    for (std::int64_t i = 0; i < n; ++i) data.push_back(r.uniform(-127, 127));
    Test x;
    x.comment = std::move(c);
    x.inputs = {tensor(std::string(K::in::x), DType::I32, shape, data)};
    x.attributes = std::move(attrs);
    x.invalid = invalid;
    t.push_back(std::move(x));
  };
  add("2x2 window, stride 2", {1, 2, 4, 4}, pool({2, 2}, {2, 2}));
  add("3x3 window, padding 1 (padded zeros counted)", {1, 1, 3, 3}, pool({3, 3}, {}, {1, 1}));
  add("global pooling as sum + broadcast_mul (weight precision 16)", {2, 3, 5, 4}, pool({5, 4}, {}, {}, 16));
  add("window entirely in the padding", {1, 1, 1, 1}, pool({2, 2}, {}, {2, 2}));
  add("invalid: weight precision 1", {1, 1, 2, 2}, pool({2, 2}, {}, {}, 1), true);
  add("invalid: kernel larger than the padded input", {1, 1, 2, 2}, pool({3, 3}), true);
  add("invalid: stride 0", {1, 1, 2, 2}, pool({1, 1}, {0, 1}), true);
  for (int i = 0; i < 110; ++i) {
    const std::int64_t kh = r.uniform(1, 3), kw = r.uniform(1, 3), ph = r.uniform(0, 2), pw = r.uniform(0, 2);
    const std::int64_t h = std::max<std::int64_t>(1, kh - 2 * ph) + r.uniform(0, 3),
                       w = std::max<std::int64_t>(1, kw - 2 * pw) + r.uniform(0, 3);
    // The attributes are drawn before the shape: the order GCC evaluated add's arguments (right
    // to left), which the committed vectors hold; an argument list's order is unspecified.
    std::vector<std::int64_t> strides{r.uniform(1, 2), r.uniform(1, 2)};
    const std::int64_t weight_prec = r.pick(std::vector<std::int64_t>{8, 16});
    OJ attrs = pool({kh, kw}, strides, {ph, pw}, weight_prec);
    std::vector<std::int64_t> shape{r.uniform(1, 2), r.uniform(1, 3), h, w};
    add("random", std::move(shape), std::move(attrs));
  }
  return {Group{OJ::object(), std::move(t)}};
}

QSPEC_REGISTER_VECTOR_FAMILY(family<cat::avg_pool2d>(cat::avg_pool2d::conv::mrt, {}, 903, generate));

}  // namespace
}  // namespace qspec::vecgen
