#pragma once
/// \file
/// Reverse-mode execution of the backward graph (the tutorial reverse-mode implementation's
/// dependency counting, `compute_dependencies` / `execute_graph`): each node runs once,
/// when every gradient flowing into it has arrived and been summed.

#include <cstdint>
#include <functional>
#include <optional>

#include <gradc/autograd/tensor.hpp>

namespace gradc::autograd {

class Node;

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

/// Inside a backward pass on this thread (e.g. in a hook): an id unique to the pass;
/// 0 outside one.
std::uint64_t current_graph_task_id();
/// Inside a backward pass: whether the pass will send gradients to `node` (it is
/// reachable from the pass's outputs and, when inputs restrict the pass, leads to one of
/// them or is one of them). False outside a pass.
bool will_engine_execute_node(const Node* node);
/// Runs `callback` when the current backward pass has finished its graph (before backward
/// or grad returns). Throws outside a pass.
void queue_callback(std::function<void()> callback);

}  // namespace gradc::autograd
