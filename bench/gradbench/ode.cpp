// GradBench's ode: s steps of classic Runge-Kutta (RK4) on y′ = f(x, y), f₀ = x₀,
// fᵢ = xᵢ·yᵢ₋₁, from y(0) = 0 to t = 2; the primal is y(2), the gradient that of its last
// element with respect to x (GradBench's "ode" eval README, after cmpad's an_ode).
//
// The static variant (GRADC_GRADBENCH_MODE=static): the dynamic one (ode_dynamic.cpp)
// answers by default, 1.2–10× faster from n = 10,000 on (docs/benchmarks.md says why).
//
// Static mode: the integration is one `gradc::loop` of s steps whose carry is the state y
// (a vector whose length n is read at each call), its body one RK4 step, lowered once
// whatever s is. Each f is x₀ joined to the shifted product x₁…ₙ₋₁ · y₀…ₙ₋₂; the parts of x
// are hoisted out of the loop. The gradient is the loop's reverse sweep by stored steps:
// the s incoming states are kept, and each step's values are computed again from its own.
// n and s are literals of the expression (the segment lengths, the step h), so the kernels
// are built for each input in `prepare` (no compilation then: one kernel type serves
// every n and s).
#include "eval_registry.hpp"

#include <gradc/gradc.hpp>

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace gradbench::ode {
namespace {

using gradc::dynamic_extent;

const auto& ode_variables() {
  static const auto variables = gradc::variables(gradc::vec<dynamic_extent>);
  return variables;
}

/// y(2) after `steps` RK4 steps, for a state of n entries.
auto final_state(std::size_t n, std::size_t steps) {
  const auto x = std::get<0>(ode_variables());
  const double h = 2.0 / double(steps);
  // f(x, y) = (x₀, x₁·y₀, x₂·y₁, …) = x ⊙ (1, y₀, …, yₙ₋₂). Written so, no part of f depends
  // on x alone: a hoisted part takes all the body's literals as operands, and with
  // x₀ and x₁…ₙ₋₁ hoisted from each of the 10 copies of f (docs/static.md, "Loops whose
  // steps chain") the kernel had about 1,300 nodes and this file compiled for minutes.
  const auto one = gradc::constant([] { return 1.0; });
  const auto derivative = [=](const auto& y) { return x * concat(one, gradc::segment(y, 0, n - 1)); };
  const auto zero = 0.0 * x;  // y(0) = 0, of x's length
  return gradc::loop(steps, zero, [=](auto y, auto) {
    const auto k1 = derivative(y);
    const auto k2 = derivative(y + (h / 2) * k1);
    const auto k3 = derivative(y + (h / 2) * k2);
    const auto k4 = derivative(y + h * k3);
    return y + (h / 6) * (k1 + 2.0 * k2 + 2.0 * k3 + k4);
  });
}

auto primal_kernel(std::size_t n, std::size_t steps) { return gradc::compile(final_state(n, steps)); }
auto gradient_kernel(std::size_t n, std::size_t steps) { return gradc::compile(final_state(n, steps)[n - 1]); }

struct Input {
  std::vector<double> x;
  std::size_t steps = 0;
};

Input read(const json& input) {
  Input in{input.at("x").get<std::vector<double>>(), 0};
  if (in.x.empty()) throw std::runtime_error("ode: x is empty; expected at least one element");
  const auto steps = input.at("s").get<long long>();
  if (steps < 1) throw std::runtime_error("ode: s is " + std::to_string(steps) + "; expected at least 1");
  in.steps = std::size_t(steps);
  return in;
}

Prepared primal(const json& input) {
  auto in = std::make_shared<const Input>(read(input));
  auto kernel = std::make_shared<const decltype(primal_kernel(1, 1))>(primal_kernel(in->x.size(), in->steps));
  auto result = std::make_shared<std::vector<double>>();
  return {[=] { *result = (*kernel)(in->x); }, [=] { return json(*result); }};
}

Prepared gradient(const json& input) {
  auto in = std::make_shared<const Input>(read(input));
  auto kernel = std::make_shared<const decltype(gradient_kernel(1, 1))>(gradient_kernel(in->x.size(), in->steps));
  auto result = std::make_shared<std::vector<double>>();
  return {[=] { *result = std::get<0>(kernel->gradient(in->x).gradient); }, [=] { return json(*result); }};
}

const bool registered =
    register_module("ode", {{"primal", primal}, {"gradient", gradient}}, AnsweredBy::static_mode, /*default_answer=*/false);

}  // namespace
}  // namespace gradbench::ode
