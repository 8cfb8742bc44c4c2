#pragma once
/// Reverse-mode execution of the backward graph (seed 001's `execute_graph`, with the
/// dependency counting of `compute_dependencies`): each node runs once, when every
/// gradient flowing into it has arrived and been summed.

#include <optional>

#include <gradc/autograd/tensor.hpp>

namespace gradc::autograd {

/// Accumulates d(Σ gradientsᵢ·outputsᵢ)/d(leaf) into `leaf.grad()` for every leaf that
/// requires grad (or only for `inputs` when given). A missing gradient is taken as 1 for
/// a one-element output and is an error otherwise. `retain_graph` defaults to
/// `create_graph`; without it the saved tensors are freed.
void backward(const tensor_list& outputs, const tensor_list& gradients = {},
              std::optional<bool> retain_graph = std::nullopt, bool create_graph = false,
              const tensor_list& inputs = {});

/// Returns Σᵢ grad_outputsᵢ · ∂outputsᵢ/∂inputsⱼ for each input j without touching any
/// `.grad()`. With `create_graph` the results are differentiable again (higher-order
/// derivatives). An input the outputs do not depend on is an error unless `allow_unused`,
/// in which case its gradient is an undefined Tensor.
tensor_list grad(const tensor_list& outputs, const tensor_list& inputs, const tensor_list& grad_outputs = {},
                 std::optional<bool> retain_graph = std::nullopt, bool create_graph = false,
                 bool allow_unused = false);

}  // namespace gradc::autograd
