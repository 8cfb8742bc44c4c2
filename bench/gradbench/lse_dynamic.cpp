// GradBench's lse: log Σᵢ exp(xᵢ) and its gradient (GradBench's "lse" eval README).
// Dynamic mode: gradc::logsumexp, whose backward is the softmax.
// The tool's default answer for this eval, the faster as measured; the static mode's
// variant is lse.cpp (GRADC_GRADBENCH_MODE=static).
#include "tensor_json.hpp"

namespace gradbench::lse_dynamic {
namespace {

struct State {
  gradc::Tensor x;
  gradc::Tensor result;
};

std::shared_ptr<State> read(const json& input) {
  auto state = std::make_shared<State>();
  const auto values = input.at("x").get<std::vector<double>>();
  state->x = tensor_from(values, {std::int64_t(values.size())});
  return state;
}

Prepared primal(const json& input) {
  auto state = read(input);
  return {[state] {
            gradc::NoGradGuard no_graph;
            state->result = gradc::logsumexp(state->x, {0});
          },
          [state] { return json(state->result.item<double>()); }};
}

Prepared gradient(const json& input) {
  auto state = read(input);
  state->x.requires_grad_(true);
  return {[state] {
            const gradc::Tensor value = gradc::logsumexp(state->x, {0});
            state->result = gradc::autograd::grad({value}, {state->x})[0];
          },
          [state] { return json(flat_values(state->result)); }};
}

const bool registered =
    register_module("lse", {{"primal", primal}, {"gradient", gradient}}, AnsweredBy::dynamic_mode, /*default_answer=*/true);

}  // namespace
}  // namespace gradbench::lse_dynamic
