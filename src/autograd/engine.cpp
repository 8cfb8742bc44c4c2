// The backward engine: dependency counting (the tutorial reverse-mode implementation's
// compute_dependencies / execute_graph), per-node input buffers where the gradients
// flowing into a node are summed, and a ready queue ordered newest node first.
#include <atomic>
#include <queue>

#include <gradc/autograd/elementwise.hpp>
#include <gradc/autograd/engine.hpp>
#include <gradc/autograd/grad_mode.hpp>
#include <gradc/autograd/node.hpp>
#include <gradc/autograd/reduction.hpp>
#include <gradc/autograd/tensor_impl.hpp>

#include "anomaly_checks.hpp"
#include "graph_task.hpp"
#include "internal.hpp"

namespace gradc::autograd {

namespace {

bool expandable_to(const Shape& from, const Shape& to) {
    if (from.size() > to.size()) return false;
    const std::size_t lead = to.size() - from.size();
    for (std::size_t i = 0; i < from.size(); ++i)
        if (from[i] != 1 && from[i] != to[lead + i]) return false;
    return true;
}

// Brings a gradient to the shape and dtype of the tensor it is for: the sum over
// broadcast dimensions, the real part for a real input of a complex computation.
Tensor validate(Tensor g, const InputMetadata& meta, const Node& from, std::size_t index) {
    if (g.sizes() != meta.sizes) {
        if (!expandable_to(meta.sizes, g.sizes()))
            throw Error("gradc: " + from.name() + " returned an invalid gradient at index " + std::to_string(index) +
                        " - got " + shape_string(g.sizes()) + " but expected shape compatible with " +
                        shape_string(meta.sizes));
        g = sum_to(g, meta.sizes);
    }
    if (!is_complex(meta.dtype) && g.is_complex()) g = real(g);
    if (g.dtype() != meta.dtype) g = g.to(meta.dtype);
    return g;
}

struct ByNewest {
    bool operator()(const Node* a, const Node* b) const { return a->sequence_nr() < b->sequence_nr(); }
};

std::atomic<std::uint64_t> graph_task_ids{1};

// The pass running on this thread (a hook may start a nested one).
thread_local GraphTask* current_task = nullptr;

class CurrentTask {
public:
    explicit CurrentTask(GraphTask& t) : previous_(current_task) { current_task = &t; }
    ~CurrentTask() { current_task = previous_; }
    CurrentTask(const CurrentTask&) = delete;
    CurrentTask& operator=(const CurrentTask&) = delete;

private:
    GraphTask* previous_;
};

void count_dependencies(GraphTask& task, const std::vector<Node*>& roots) {
    std::vector<Node*> stack;
    for (Node* r : roots)
        if (task.nodes.try_emplace(r).second) stack.push_back(r);
    while (!stack.empty()) {
        Node* n = stack.back();
        stack.pop_back();
        for (const auto& e : n->next_edges()) {
            if (!e.is_valid()) continue;
            Node* next = e.function.get();
            auto [state, inserted] = task.nodes.try_emplace(next);
            ++state->dependencies;
            if (inserted) stack.push_back(next);
        }
    }
}

void add_to_buffer(NodeTask& t, Node* node, std::uint32_t input_nr, Tensor g) {
    auto& buf = t.buffer;
    if (buf.size() < node->num_inputs()) buf.resize(node->num_inputs());
    Tensor& slot = buf.at(input_nr);
    slot = slot.defined() ? slot + g : std::move(g);
}

using ReadyQueue = std::priority_queue<Node*, std::vector<Node*>, ByNewest>;

void queue_if_ready(NodeTask& state, Node* node, ReadyQueue& ready) {
    if (state.dependencies == 0 && !state.queued) {
        state.queued = true;
        ready.push(node);
    }
}

// Step 1: counts every node's dependencies, puts the root gradients into the roots'
// buffers and queues the roots nothing else leads to.
ReadyQueue prepare_dependencies(GraphTask& task, const std::vector<Edge>& roots, const tensor_list& root_grads) {
    // The root nodes stay alive through the pass: the caller's `roots` hold them.
    std::vector<Node*> root_nodes;
    for (const Edge& root : roots) root_nodes.push_back(root.function.get());
    count_dependencies(task, root_nodes);
    for (std::size_t i = 0; i < roots.size(); ++i)
        add_to_buffer(*task.nodes.find(root_nodes[i]), root_nodes[i], roots[i].input_nr, root_grads[i]);
    ReadyQueue ready;
    for (Node* root : root_nodes) queue_if_ready(*task.nodes.find(root), root, ready);
    return ready;
}

bool any_defined(const tensor_list& grads) {
    for (const auto& g : grads)
        if (g.defined()) return true;
    return false;
}

// The gradients that arrived at `node`, after its tensor hooks; a target's gradient is
// captured here. Tensor hooks run whenever the gradient of their tensor is computed,
// before it is captured and whether or not the node runs.
tensor_list take_inputs(GraphTask& task, Node* node) {
    tensor_list inputs = std::move(task.nodes.find(node)->buffer);
    inputs.resize(node->num_inputs());
    if (any_defined(inputs)) inputs = node->call_tensor_pre_hooks(std::move(inputs));
    if (auto it = task.captures.find(node); it != task.captures.end())
        for (auto [input_nr, slot] : it->second) {
            Tensor& captured = task.captured[slot];
            const Tensor& g = inputs[input_nr];
            if (g.defined()) captured = captured.defined() ? captured + g : g;
        }
    return inputs;
}

// Step 3: sends what `node` computed (nothing if it did not run) along its edges, summing
// each gradient into the next node's buffer, and queues the nodes that become ready.
void accumulate_outputs(GraphTask& task, Node* node, tensor_list& outputs, bool ran, ReadyQueue& ready) {
    const auto& edges = node->next_edges();
    for (std::size_t i = 0; i < edges.size(); ++i) {
        const Edge& e = edges[i];
        if (!e.is_valid()) continue;
        Node* next = e.function.get();
        // A restricted pass sends nothing to nodes it neither runs nor captures (their
        // tensor hooks must not see a gradient the pass does not compute).
        const bool wanted = !task.restricted || task.needed[next] || task.captures.count(next) > 0;
        Tensor g;
        if (ran && wanted && i < outputs.size() && outputs[i].defined())
            g = validate(std::move(outputs[i]), next->input_metadata(e.input_nr), *node, i);
        // Looked up after validate(), which runs operations: no pointer into the map is
        // held across code that might start another pass on this thread.
        NodeTask& state = task.nodes[next];
        if (g.defined()) add_to_buffer(state, next, e.input_nr, std::move(g));
        --state.dependencies;
        queue_if_ready(state, next, ready);
    }
}

// Step 2: runs the ready nodes, newest first, each once all its gradients have arrived.
void run_ready_nodes(GraphTask& task, ReadyQueue& ready) {
    while (!ready.empty()) {
        Node* node = ready.top();
        ready.pop();
        tensor_list inputs = take_inputs(task, node);
        const bool run = (any_defined(inputs) || node->runs_without_gradients()) && (!task.restricted || task.needed[node]);
        tensor_list outputs;
        if (run) {
            outputs = AnomalyMode::is_enabled() ? anomaly::run_checked(*node, std::move(inputs))
                                                : node->run(std::move(inputs));
            if (!task.keep_graph) node->release_saved_variables();
        }
        accumulate_outputs(task, node, outputs, run, ready);
    }
}

// Step 4: the callbacks queued during the pass (queue_callback), in order.
void finish(GraphTask& task) {
    for (std::size_t i = 0; i < task.callbacks.size(); ++i) {
        auto callback = std::move(task.callbacks[i]);  // a callback may queue another
        callback();
    }
}

}  // namespace

std::uint64_t next_graph_task_id() { return graph_task_ids.fetch_add(1, std::memory_order_relaxed); }

void execute(GraphTask& task, const std::vector<Edge>& roots, const tensor_list& root_grads) {
    AutoGradMode mode(task.create_graph);
    CurrentTask current(task);
    ReadyQueue ready = prepare_dependencies(task, roots, root_grads);
    try {
        run_ready_nodes(task, ready);
    } catch (...) {
        roll_back_gradients(task);
        return_undo_buffers(task);
        throw;
    }
    return_undo_buffers(task);
    finish(task);
}

GraphTask* running_graph_task() { return current_task; }

std::uint64_t current_graph_task_id() { return current_task ? current_task->id : 0; }

bool will_engine_execute_node(const Node* node) {
    if (!current_task) return false;
    auto* n = const_cast<Node*>(node);
    if (!current_task->nodes.contains(n)) return false;
    if (!current_task->restricted) return true;
    if (current_task->captures.count(n)) return true;
    const bool* needed = current_task->needed.find(n);
    return needed && *needed;
}

// A member of Node, defined here because it asks the pass running on this thread.
bool Node::task_should_compute_output(std::size_t i) const {
    if (!should_compute_output(i)) return false;
    return current_graph_task_id() == 0 || will_engine_execute_node(next_edges_[i].function.get());
}

void queue_callback(std::function<void()> callback) {
    if (!current_task) throw Error("gradc: queue_callback: no backward pass is running on this thread");
    current_task->callbacks.push_back(std::move(callback));
}

}  // namespace gradc::autograd
