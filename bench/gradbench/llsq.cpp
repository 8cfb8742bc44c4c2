// GradBench's llsq: ½ Σᵢ (s(tᵢ) − Σⱼ xⱼ tᵢʲ)² over n points tᵢ = −1 + 2i/(n−1), with s the
// sign function, and its gradient (GradBench's "llsq" eval README).
// Dynamic mode: the residuals are s − T x with T the n×m matrix of powers tᵢʲ, written by
// a plain loop at every call, as the hand-written tool computes its powers at every call
// (T depends on n and m only, but keeping it from one call to the next would time less
// work than the other tools do); then the matrix product, the sum of squares and, for the
// gradient, the backward pass through them.
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
  const auto n = input.at("n").get<std::int64_t>();
  if (n < 2) throw std::runtime_error("llsq: n is " + std::to_string(n) + "; expected at least 2");
  state->powers = gradc::empty({n, std::int64_t(x.size())}, doubles());
  state->signs = gradc::empty({n}, doubles());
  state->x = tensor_from(x, {std::int64_t(x.size())});
  return state;
}

// As GradBench's reference: tᵢ = −1 + i·2/(n − 1), its powers by repeated products.
void write_powers(State& state) {
  const std::int64_t n = state.powers.size(0), m = state.powers.size(1);
  double* powers = state.powers.data_ptr<double>();
  double* signs = state.signs.data_ptr<double>();
  for (std::int64_t i = 0; i < n; ++i) {
    const double t = -1 + double(i) * 2 / (double(n) - 1);
    signs[i] = double((0 < t) - (t < 0));
    double power = 1;
    for (std::int64_t j = 0; j < m; ++j) {
      powers[i * m + j] = power;
      power *= t;
    }
  }
}

gradc::Tensor objective(State& state) {
  write_powers(state);
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
