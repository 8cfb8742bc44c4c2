// GradBench's llsq: ½ Σᵢ (s(tᵢ) − Σⱼ xⱼ tᵢʲ)² over n points tᵢ = −1 + 2i/(n−1), with s the
// sign function, and its gradient (GradBench's "llsq" eval README).
// Dynamic mode: the residuals are s − T x with T the n×m matrix of powers tᵢʲ. T and s
// depend only on n, so they are built once per input (prepare); evaluate runs the matrix
// product, the sum of squares and, for the gradient, the backward pass through them.
#include "tensor_json.hpp"

namespace gradbench::llsq {
namespace {

struct State {
  gradc::Tensor powers;  // n × m, tᵢʲ
  gradc::Tensor signs;   // n, s(tᵢ)
  gradc::Tensor x;
  gradc::Tensor result;
};

std::shared_ptr<State> read(const json& input) {
  auto state = std::make_shared<State>();
  const auto x = input.at("x").get<std::vector<double>>();
  const auto n = input.at("n").get<std::size_t>();
  const std::size_t m = x.size();
  std::vector<double> powers(n * m), signs(n);
  for (std::size_t i = 0; i < n; ++i) {
    // As GradBench's reference: t = −1 + i·2/(n − 1), powers by repeated products.
    const double t = -1 + double(i) * 2 / (double(n) - 1);
    signs[i] = double((0 < t) - (t < 0));
    double power = 1;
    for (std::size_t j = 0; j < m; ++j) {
      powers[i * m + j] = power;
      power *= t;
    }
  }
  state->powers = tensor_from(powers, {std::int64_t(n), std::int64_t(m)});
  state->signs = tensor_from(signs, {std::int64_t(n)});
  state->x = tensor_from(x, {std::int64_t(m)});
  return state;
}

gradc::Tensor objective(const State& state) {
  const gradc::Tensor residuals = state.signs - gradc::mv(state.powers, state.x);
  return gradc::sum(gradc::square(residuals)) / 2;
}

Prepared primal(const json& input) {
  auto state = read(input);
  return {[state] {
            gradc::NoGradGuard no_graph;
            state->result = objective(*state);
          },
          [state] { return json(state->result.item<double>()); }};
}

Prepared gradient(const json& input) {
  auto state = read(input);
  state->x.requires_grad_(true);
  return {[state] { state->result = gradc::autograd::grad({objective(*state)}, {state->x})[0]; },
          [state] { return json(flat_values(state->result)); }};
}

const bool registered = register_module("llsq", {{"primal", primal}, {"gradient", gradient}});

}  // namespace
}  // namespace gradbench::llsq
