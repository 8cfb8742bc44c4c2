// GradBench's lstm: the loss of ADBench's LSTM (diagonal weight matrices) over a text
// (`objective`), and its gradient with respect to main_params and extra_params
// (`jacobian`), as GradBench's evals/lstm/README.md and cpp/gradbench/evals/lstm.hpp
// define them.
//
// Static mode: examples/lstm_objective.hpp's kernel, one for every l, c and b (the
// characters are a gradc::loop over the rows of the text, the layers a gradc::loop inside
// it; b enters as a literal when the expression is built, so the kernel is built again,
// not compiled again, for another b). Preparing an input (not timed) parses it and puts
// the gates' parameters in the kernel's layout (eight l × b matrices, where the eval has
// per layer one row of 4·b weights and one of 4·b biases); the output (not timed) puts
// the gradient back in the eval's. lstm_dynamic.cpp answers with the dynamic mode.
#include "eval_registry.hpp"

#include "lstm_objective.hpp"

#include <cstddef>
#include <memory>
#include <optional>
#include <tuple>
#include <vector>

namespace gradbench::lstm_static {
namespace {

using Kernel = decltype(gradc::compile(
    lstm_objective::loss(1),
    gradc::wrt(std::get<0>(lstm_objective::vars), std::get<1>(lstm_objective::vars), std::get<2>(lstm_objective::vars),
               std::get<3>(lstm_objective::vars), std::get<4>(lstm_objective::vars), std::get<5>(lstm_objective::vars),
               std::get<6>(lstm_objective::vars), std::get<7>(lstm_objective::vars), std::get<8>(lstm_objective::vars),
               std::get<9>(lstm_objective::vars), std::get<10>(lstm_objective::vars))));

Kernel kernel_for(std::size_t b) {
  const auto& v = lstm_objective::vars;
  return gradc::compile(lstm_objective::loss(b),
                        gradc::wrt(std::get<0>(v), std::get<1>(v), std::get<2>(v), std::get<3>(v), std::get<4>(v),
                                   std::get<5>(v), std::get<6>(v), std::get<7>(v), std::get<8>(v), std::get<9>(v),
                                   std::get<10>(v)));
}

/// One input in the kernel's layout.
struct Problem {
  std::size_t l = 0, b = 0, steps = 0;  ///< steps: the characters read, c − 1.
  std::vector<std::vector<double>> gates;  ///< forget, ingate, outgate, change weights, then biases: l × b each
  std::vector<double> in_weight, out_weight, out_bias, state, inputs, targets;
  std::optional<Kernel> kernel;

  template <class Call>
  auto call(Call&& f) {
    const auto m = [&](std::vector<double>& v) { return gradc::mat_view(v, l, b); };
    return f(*kernel, m(gates[0]), m(gates[1]), m(gates[2]), m(gates[3]), m(gates[4]), m(gates[5]), m(gates[6]),
             m(gates[7]), in_weight, out_weight, out_bias, state, gradc::mat_view(inputs, steps, b),
             gradc::mat_view(targets, steps, b));
  }
};

std::vector<std::vector<double>> rows_of(const json& rows) {
  std::vector<std::vector<double>> out;
  for (const json& row : rows) out.push_back(row.get<std::vector<double>>());
  return out;
}

std::shared_ptr<Problem> read_problem(const json& input) {
  auto problem = std::make_shared<Problem>();
  Problem& p = *problem;
  const auto main = rows_of(input.at("main_params"));
  const auto extra = rows_of(input.at("extra_params"));
  const auto state = rows_of(input.at("state"));
  const auto sequence = rows_of(input.at("sequence"));
  p.l = main.size() / 2;
  p.b = extra.at(0).size();
  p.steps = sequence.size() - 1;
  p.gates = lstm_gates(p.l, p.b, [&](std::size_t r) { return main[r].data(); });
  p.in_weight = extra[0];
  p.out_weight = extra[1];
  p.out_bias = extra[2];
  for (const auto& row : state) p.state.insert(p.state.end(), row.begin(), row.end());
  for (std::size_t t = 0; t + 1 < sequence.size(); ++t) {
    p.inputs.insert(p.inputs.end(), sequence[t].begin(), sequence[t].end());
    p.targets.insert(p.targets.end(), sequence[t + 1].begin(), sequence[t + 1].end());
  }
  p.kernel.emplace(kernel_for(p.b));
  return problem;
}

Prepared objective(const json& input) {
  auto p = read_problem(input);
  auto value = std::make_shared<double>();
  return {[=] { *value = p->call([](const Kernel& k, const auto&... x) { return k(x...); }); },
          [=] { return json(*value); }};
}

Prepared jacobian(const json& input) {
  auto p = read_problem(input);
  using Result = decltype(p->call([](const Kernel& k, const auto&... x) { return k.gradient(x...); }));
  auto result = std::make_shared<std::optional<Result>>();
  return {[=] { result->emplace(p->call([](const Kernel& k, const auto&... x) { return k.gradient(x...); })); },
          [=] { return json(lstm_eval_gradient((*result)->gradient, p->l, p->b)); }};
}

const bool registered = register_module("lstm", {{"objective", objective}, {"jacobian", jacobian}},
                                        AnsweredBy::static_mode, /*default_answer=*/true);

}  // namespace
}  // namespace gradbench::lstm_static
