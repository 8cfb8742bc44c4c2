// GradBench's ode: s steps of classic Runge-Kutta (RK4) on y′ = f(x, y), f₀ = x₀,
// fᵢ = xᵢ·yᵢ₋₁, from y(0) = 0 to t = 2; the primal is y(2), the gradient that of its last
// element with respect to x (GradBench's "ode" eval README, after cmpad's an_ode).
// Dynamic mode: each f is one shifted product over the whole state, so a step is a
// handful of tensor operations of length n and backward walks the 4·s evaluations.
// The tool's default answer for this eval, the faster as measured; the static mode's
// variant is ode.cpp (GRADC_GRADBENCH_MODE=static).
#include "tensor_json.hpp"

namespace gradbench::ode_dynamic {
namespace {

struct State {
  gradc::Tensor x;
  std::int64_t steps = 0;
  gradc::Tensor result;
};

std::shared_ptr<State> read(const json& input) {
  auto state = std::make_shared<State>();
  const auto x = input.at("x").get<std::vector<double>>();
  if (x.empty()) throw std::runtime_error("ode: x is empty; expected at least one element");
  state->x = tensor_from(x, {std::int64_t(x.size())});
  state->steps = input.at("s").get<std::int64_t>();
  if (state->steps < 1) throw std::runtime_error("ode: s must be at least 1");
  return state;
}

// f(x, y) = (x₀, x₁·y₀, x₂·y₁, …).
gradc::Tensor derivative(const gradc::Tensor& x, const gradc::Tensor& y) {
  const std::int64_t n = x.size(0);
  if (n == 1) return x;
  return gradc::cat({x.narrow(0, 0, 1), x.narrow(0, 1, n - 1) * y.narrow(0, 0, n - 1)}, 0);
}

gradc::Tensor final_state(const gradc::Tensor& x, std::int64_t steps) {
  const double h = 2.0 / double(steps);
  gradc::Tensor y = gradc::zeros_like(x);
  for (std::int64_t step = 0; step < steps; ++step) {
    const gradc::Tensor k1 = derivative(x, y);
    const gradc::Tensor k2 = derivative(x, y + (h / 2) * k1);
    const gradc::Tensor k3 = derivative(x, y + (h / 2) * k2);
    const gradc::Tensor k4 = derivative(x, y + h * k3);
    y = y + (h / 6) * (k1 + 2 * k2 + 2 * k3 + k4);
  }
  return y;
}

Prepared primal(const json& input) {
  auto state = read(input);
  return {[state] {
            gradc::NoGradGuard no_graph;
            state->result = final_state(state->x, state->steps);
          },
          [state] { return json(flat_values(state->result)); }};
}

Prepared gradient(const json& input) {
  auto state = read(input);
  state->x.requires_grad_(true);
  return {[state] {
            const gradc::Tensor y = final_state(state->x, state->steps);
            const gradc::Tensor last = y.select(0, y.size(0) - 1);
            state->result = gradc::autograd::grad({last}, {state->x})[0];
          },
          [state] { return json(flat_values(state->result)); }};
}

const bool registered =
    register_module("ode", {{"primal", primal}, {"gradient", gradient}}, AnsweredBy::dynamic_mode, /*default_answer=*/true);

}  // namespace
}  // namespace gradbench::ode_dynamic
