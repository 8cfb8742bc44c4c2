// The two functions most of GradBench's evals ask of a scalar function of tensors: its
// value, and its gradient by one reverse pass. `evaluate` runs the function (and the
// backward pass); `output` turns the result into the eval's JSON, untimed.
#pragma once

#include "eval_registry.hpp"

#include <gradc/autograd.hpp>

#include <memory>

namespace gradbench {

/// The value of `function(problem)`, a 0-dim tensor, as one number.
template <class Problem, class Function>
Prepared scalar_value(std::shared_ptr<const Problem> problem, Function function) {
  auto value = std::make_shared<double>();
  return {[=] { *value = function(*problem).template item<double>(); }, [=] { return json(*value); }};
}

/// The gradient of `function(problem)` with respect to `differentiated(problem)` (a
/// tensor_list of leaves that require grad), written by `to_json(gradients)`.
template <class Problem, class Function, class Differentiated, class ToJson>
Prepared reverse_gradient(std::shared_ptr<const Problem> problem, Function function, Differentiated differentiated,
                          ToJson to_json) {
  auto gradients = std::make_shared<gradc::tensor_list>();
  return {[=] { *gradients = gradc::autograd::grad({function(*problem)}, differentiated(*problem)); },
          [=] { return to_json(*gradients); }};
}

}  // namespace gradbench
