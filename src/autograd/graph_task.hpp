#pragma once
// One backward pass as the engine runs it (engine.cpp), and what backward() and grad()
// prepare for it (backward.cpp): its options, the per-node dependency counts and input
// buffers, and for a pass with targets which nodes must run and where the targets'
// gradients are captured.

#include <cstdint>
#include <functional>
#include <unordered_map>
#include <utility>
#include <vector>

#include <gradc/autograd/node.hpp>
#include <gradc/autograd/tensor.hpp>

#include "node_map.hpp"

namespace gradc::autograd {

/// A process-wide increasing id, one per backward pass.
std::uint64_t next_graph_task_id();

// Per-node state of one backward run: the dependency count (the tutorial reverse-mode
// implementation's compute_dependencies) and the input buffer where arriving gradients
// are summed. Kept here, not in the node, so that several backward runs, on several
// threads, may share a graph: each runs on its caller's thread with its own GraphTask,
// and the shared nodes lock themselves (Node::mutex).
struct NodeTask {
    int dependencies = 0;
    bool queued = false;
    tensor_list buffer;
};

/// What a pass's sum into `variable.grad()` replaced, so that a pass that fails part way
/// can put it back ("leaves nothing half-modified").
struct GradUndo {
    Tensor variable;
    Tensor written;     // the .grad() tensor the sum left (the same one for a sum in place)
    Tensor previous;    // the .grad() before: undefined, or the tensor a new one replaced
    Tensor old_values;  // a sum in place: a copy of the values before, and the versions
    bool lent = false;  // old_values is the variable's grad_undo_buffer, to return
    std::uint32_t old_version = 0;
    std::uint32_t new_version = 0;
};

/// What a backward pass is asked to do.
struct GraphTaskOptions {
    bool keep_graph = false;    // retain_graph: keep the saved tensors for another pass
    bool create_graph = false;  // record the pass itself (higher-order derivatives)
    bool restricted = false;    // run only the nodes that lead to targets (`needed`)
};

/// One backward pass: its options, the per-node state, and with targets which nodes must
/// run and where target gradients are captured.
struct GraphTask {
    explicit GraphTask(const GraphTaskOptions& options)
        : keep_graph(options.keep_graph),
          create_graph(options.create_graph),
          restricted(options.restricted),
          id(next_graph_task_id()) {}
    GraphTask(const GraphTask&) = delete;
    GraphTask& operator=(const GraphTask&) = delete;

    const bool keep_graph;
    const bool create_graph;
    const bool restricted;
    const std::uint64_t id;  // current_graph_task_id()
    gradc::detail::AddressMap<Node, NodeTask> nodes;
    gradc::detail::AddressMap<Node, bool> needed;
    // Node -> (input of the node, slot in `captured`) for each target it receives.
    std::unordered_map<Node*, std::vector<std::pair<std::uint32_t, std::size_t>>> captures;
    tensor_list captured;
    std::vector<std::function<void()>> callbacks;  // queue_callback
    std::vector<GradUndo> grad_undo;  // every sum into a .grad() so far, in order
};

/// The pass running on this thread (the innermost, if a hook started one), or null.
GraphTask* running_graph_task();

/// After a node of the pass failed: puts back, newest first, every `.grad()` the pass had
/// summed into (its values and version counter, or the tensor it replaced). A `.grad()`
/// that another pass or the user changed meanwhile is left as it is.
void roll_back_gradients(GraphTask& task) noexcept;

/// At the end of every pass: gives back the buffers that held the values the pass's sums
/// replaced (AutogradMeta::grad_undo_buffer), and forgets what they replaced.
void return_undo_buffers(GraphTask& task) noexcept;

/// Runs the pass: the gradients `root_grads` enter the graph along `roots` (which keep
/// the root nodes alive), every reachable node runs once when all its gradients have
/// arrived, and the callbacks queued meanwhile run at the end.
void execute(GraphTask& task, const std::vector<Edge>& roots, const tensor_list& root_grads);

}  // namespace gradc::autograd
