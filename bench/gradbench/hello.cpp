// GradBench's hello: square(x) = x² and its derivative, double(x) = 2x.
// Static mode: one scalar kernel; `double` is its gradient.
#include "eval_registry.hpp"

#include <gradc/gradc.hpp>

namespace gradbench::hello {
namespace {

const auto& square_kernel() {
  static const auto kernel = [] {
    auto [x] = gradc::variables<1>();
    return gradc::compile(x * x);
  }();
  return kernel;
}

Prepared square(const json& input) {
  auto x = std::make_shared<double>(input.get<double>());
  auto y = std::make_shared<double>();
  return {[=] { *y = square_kernel().value(std::array{*x}); }, [=] { return json(*y); }};
}

Prepared twice(const json& input) {
  auto x = std::make_shared<double>(input.get<double>());
  auto dy = std::make_shared<double>();
  return {[=] { *dy = square_kernel().gradient(*x).gradient[0]; }, [=] { return json(*dy); }};
}

const bool registered = register_module("hello", {{"square", square}, {"double", twice}});

}  // namespace
}  // namespace gradbench::hello
