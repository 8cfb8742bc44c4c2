// GradBench's llsq: ½ Σᵢ (s(tᵢ) − Σⱼ xⱼ tᵢʲ)² over n points tᵢ = −1 + 2i/(n−1), with s the
// sign function, and its gradient (GradBench's "llsq" eval README).
// Static mode: one kernel ½‖s − T x‖² whose extents (n points, m coefficients) are read at
// each call (gradc::dynamic_extent), compiled once for every n and m. T, the n×m matrix of
// powers tᵢʲ, and s are its data, written by a plain loop at every call, as the
// hand-written tool computes its powers at every call (T depends on n and m only, but
// keeping it from one call to the next would time less work than the other tools do).
#include "eval_registry.hpp"

#include <gradc/gradc.hpp>

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace gradbench::llsq {
namespace {

using gradc::dynamic_extent;

const auto& llsq_kernel() {
  static const auto kernel = [] {
    const auto [x, powers, signs] =
        gradc::variables(gradc::vec<dynamic_extent>, gradc::mat<dynamic_extent, dynamic_extent>, gradc::vec<dynamic_extent>);
    return gradc::compile(0.5 * squared_norm(signs - powers * x), gradc::wrt(x));
  }();
  return kernel;
}

struct State {
  std::vector<double> x;
  std::size_t n = 0;
  std::vector<double> powers;  // n × m, row-major, tᵢʲ
  std::vector<double> signs;   // n, s(tᵢ)
};

std::shared_ptr<State> read(const json& input) {
  auto state = std::make_shared<State>();
  state->x = input.at("x").get<std::vector<double>>();
  const auto n = input.at("n").get<long long>();
  if (n < 2) throw std::runtime_error("llsq: n is " + std::to_string(n) + "; expected at least 2");
  state->n = std::size_t(n);
  state->powers.resize(state->n * state->x.size());
  state->signs.resize(state->n);
  return state;
}

// As GradBench's reference: tᵢ = −1 + i·2/(n − 1), its powers by repeated products.
void write_powers(State& state) {
  const std::size_t n = state.n, m = state.x.size();
  for (std::size_t i = 0; i < n; ++i) {
    const double t = -1 + double(i) * 2 / (double(n) - 1);
    state.signs[i] = double((0 < t) - (t < 0));
    double power = 1;
    for (std::size_t j = 0; j < m; ++j) {
      state.powers[i * m + j] = power;
      power *= t;
    }
  }
}

gradc::matrix_view<double> powers_of(const State& state) {
  return gradc::mat_view(std::span<const double>(state.powers), state.n, state.x.size());
}

Prepared primal(const json& input) {
  auto state = read(input);
  auto value = std::make_shared<double>();
  return {[=] {
            write_powers(*state);
            *value = llsq_kernel()(state->x, powers_of(*state), state->signs);
          },
          [=] { return json(*value); }};
}

Prepared gradient(const json& input) {
  auto state = read(input);
  auto result = std::make_shared<std::vector<double>>();
  return {[=] {
            write_powers(*state);
            *result = std::get<0>(llsq_kernel().gradient(state->x, powers_of(*state), state->signs).gradient);
          },
          [=] { return json(*result); }};
}

const bool registered =
    register_module("llsq", {{"primal", primal}, {"gradient", gradient}}, AnsweredBy::static_mode);

}  // namespace
}  // namespace gradbench::llsq
