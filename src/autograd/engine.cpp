// The backward engine: dependency counting (seed 001), per-node input buffers where the
// gradients flowing into a node are summed, and a ready queue ordered newest node first.
#include <atomic>
#include <queue>
#include <unordered_map>
#include <unordered_set>

#include <gradc/autograd/creation.hpp>
#include <gradc/autograd/elementwise.hpp>
#include <gradc/autograd/engine.hpp>
#include <gradc/autograd/grad_mode.hpp>
#include <gradc/autograd/node.hpp>
#include <gradc/autograd/reduction.hpp>
#include <gradc/autograd/tensor_impl.hpp>

#include "internal.hpp"
#include "node_map.hpp"

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

// Per-node state of one backward run: the dependency count (seed 001) and the input
// buffer where arriving gradients are summed. Kept here, not in the node, so that several
// backward runs, on several threads, may share a graph: each runs on its caller's thread
// with its own GraphTask, and the shared nodes lock themselves (Node::mutex).
struct NodeTask {
    int dependencies = 0;
    bool queued = false;
    tensor_list buffer;
};

struct GraphTask {
    bool keep_graph;
    bool create_graph;
    gradc::detail::AddressMap<Node, NodeTask> nodes;
    // With targets: which nodes must run, and where target gradients are captured.
    bool restricted = false;
    gradc::detail::AddressMap<Node, bool> needed;
    std::unordered_map<Node*, std::vector<std::pair<std::uint32_t, std::size_t>>> captures;
    tensor_list captured;
    std::uint64_t id = 0;
    std::vector<std::function<void()>> callbacks;  // queue_callback
};

std::atomic<std::uint64_t> next_task_id{1};
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

// A node is needed when it leads to a target; iterative post-order to survive deep graphs.
bool mark_needed(GraphTask& task, Node* root, const std::unordered_set<Node*>& run_targets) {
    std::vector<std::pair<Node*, std::size_t>> stack{{root, 0}};
    gradc::detail::AddressMap<Node, bool> on_stack;
    on_stack[root] = true;
    while (!stack.empty()) {
        auto& [n, i] = stack.back();
        if (i < n->next_edges().size()) {
            const auto& e = n->next_edges()[i++];
            if (!e.is_valid()) continue;
            Node* next = e.function.get();
            if (task.needed.contains(next) || on_stack.contains(next)) continue;
            stack.emplace_back(next, 0);
            on_stack[next] = true;
            continue;
        }
        bool need = run_targets.count(n) > 0;
        for (const auto& e : n->next_edges())
            if (e.is_valid()) {
                const bool* next_needed = task.needed.find(e.function.get());
                need = need || (next_needed && *next_needed);
            }
        need = need || task.captures.count(n) > 0;
        task.needed[n] = need;
        *on_stack.find(n) = false;
        stack.pop_back();
    }
    return task.needed[root];
}

void add_to_buffer(NodeTask& t, Node* node, std::uint32_t input_nr, Tensor g) {
    auto& buf = t.buffer;
    if (buf.size() < node->num_inputs()) buf.resize(node->num_inputs());
    Tensor& slot = buf.at(input_nr);
    slot = slot.defined() ? slot + g : std::move(g);
}

void execute(GraphTask& task, const std::vector<Edge>& roots, const tensor_list& root_grads) {
    AutoGradMode mode(task.create_graph);
    task.id = next_task_id.fetch_add(1, std::memory_order_relaxed);
    CurrentTask current(task);
    std::vector<Node*> root_nodes;
    std::vector<std::shared_ptr<Node>> keep_alive;
    for (std::size_t i = 0; i < roots.size(); ++i) {
        root_nodes.push_back(roots[i].function.get());
        keep_alive.push_back(roots[i].function);
    }
    count_dependencies(task, root_nodes);
    for (std::size_t i = 0; i < roots.size(); ++i)
        add_to_buffer(*task.nodes.find(root_nodes[i]), root_nodes[i], roots[i].input_nr, root_grads[i]);

    std::priority_queue<Node*, std::vector<Node*>, ByNewest> ready;
    for (Node* r : root_nodes) {
        NodeTask& t = *task.nodes.find(r);
        if (t.dependencies == 0 && !t.queued) {
            t.queued = true;
            ready.push(r);
        }
    }

    while (!ready.empty()) {
        Node* node = ready.top();
        ready.pop();
        tensor_list inputs = std::move(task.nodes.find(node)->buffer);
        inputs.resize(node->num_inputs());
        // Tensor hooks run whenever the gradient of their tensor is computed, before the
        // gradient is captured and whether or not the node runs.
        bool arrived = false;
        for (const auto& t : inputs) arrived = arrived || t.defined();
        if (arrived) inputs = node->call_tensor_pre_hooks(std::move(inputs));
        if (auto it = task.captures.find(node); it != task.captures.end())
            for (auto [nr, slot] : it->second) {
                Tensor& c = task.captured[slot];
                if (inputs[nr].defined()) c = c.defined() ? c + inputs[nr] : inputs[nr];
            }
        bool any_defined = false;
        for (const auto& t : inputs) any_defined = any_defined || t.defined();
        const bool run = any_defined && (!task.restricted || task.needed[node]);
        tensor_list outputs;
        if (run) {
            outputs = node->run(std::move(inputs));
            if (!task.keep_graph) node->release_saved_variables();
        }
        const auto& edges = node->next_edges();
        for (std::size_t i = 0; i < edges.size(); ++i) {
            const Edge& e = edges[i];
            if (!e.is_valid()) continue;
            Node* next = e.function.get();
            // A restricted pass sends nothing to nodes it neither runs nor captures (their
            // tensor hooks must not see a gradient the pass does not compute).
            const bool wanted = !task.restricted || task.needed[next] || task.captures.count(next) > 0;
            Tensor g;
            if (run && wanted && i < outputs.size() && outputs[i].defined())
                g = validate(std::move(outputs[i]), next->input_metadata(e.input_nr), *node, i);
            // Looked up after validate(), which runs operations: no pointer into the map is
            // held across code that might start another pass on this thread.
            NodeTask& t = task.nodes[next];
            if (g.defined()) add_to_buffer(t, next, e.input_nr, std::move(g));
            if (--t.dependencies == 0 && !t.queued) {
                t.queued = true;
                ready.push(next);
            }
        }
    }
    for (std::size_t i = 0; i < task.callbacks.size(); ++i) {
        auto cb = std::move(task.callbacks[i]);  // a callback may queue another
        cb();
    }
}

struct Roots {
    std::vector<Edge> edges;
    tensor_list grads;
};

Roots make_roots(const tensor_list& outputs, const tensor_list& gradients, const char* op) {
    if (!gradients.empty() && gradients.size() != outputs.size())
        throw Error(std::string("gradc: ") + op + ": got " + std::to_string(gradients.size()) + " gradients for " +
                    std::to_string(outputs.size()) + " outputs; expected one per output");
    Roots r;
    for (std::size_t i = 0; i < outputs.size(); ++i) {
        const Tensor& out = outputs[i];
        detail::check_defined(out, op);
        if (!out.requires_grad())
            throw Error(std::string("gradc: ") + op + ": element " + std::to_string(i) + " of tensors " +
                        detail::describe(out) + " does not require grad and does not have a grad_fn");
        Tensor g = gradients.empty() ? Tensor() : gradients[i];
        if (!g.defined()) {
            if (out.numel() != 1)
                throw Error(std::string("gradc: ") + op + ": grad can be implicitly created only for scalar outputs; "
                            "output " + std::to_string(i) + " has shape " + shape_string(out.sizes()) +
                            ", so pass a gradient of that shape");
            // The notes' PyTorch (unlike 1.13) refuses: "1" is not the obvious seed for a
            // complex output, whose real and imaginary parts are two functions.
            if (out.is_complex())
                throw Error(std::string("gradc: ") + op + ": grad can be implicitly created only for real scalar "
                            "outputs; output " + std::to_string(i) + " is " + std::string(to_string(out.dtype())) +
                            ", so pass a gradient (e.g. ones_like(output)) or take real()/abs() first");
            g = ones_like(out);
        } else if (g.sizes() != out.sizes()) {
            throw Error(std::string("gradc: ") + op + ": mismatch in shape: grad_output[" + std::to_string(i) +
                        "] has a shape of " + shape_string(g.sizes()) + " and output[" + std::to_string(i) +
                        "] has a shape of " + shape_string(out.sizes()));
        }
        r.edges.push_back(gradient_edge(out));
        r.grads.push_back(g);
    }
    return r;
}

}  // namespace

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

void queue_callback(std::function<void()> callback) {
    if (!current_task) throw Error("gradc: queue_callback: no backward pass is running on this thread");
    current_task->callbacks.push_back(std::move(callback));
}

void backward(const tensor_list& outputs, const tensor_list& gradients, std::optional<bool> retain_graph,
              bool create_graph, const tensor_list& inputs) {
    Roots roots = make_roots(outputs, gradients, "backward");
    GraphTask task{retain_graph.value_or(create_graph), create_graph, {}, false, {}, {}, {}, 0, {}};
    std::vector<std::pair<Tensor, std::size_t>> non_leaf_targets;
    if (!inputs.empty()) {
        task.restricted = true;
        std::unordered_set<Node*> run_targets;
        for (std::size_t i = 0; i < inputs.size(); ++i) {
            const Tensor& in = inputs[i];
            detail::check_defined(in, "backward");
            Edge e = gradient_edge(in);
            if (!e.is_valid())
                throw Error("gradc: backward: input " + std::to_string(i) + " " + detail::describe(in) +
                            " does not require grad");
            if (in.is_leaf()) {
                run_targets.insert(e.function.get());
            } else {
                task.captures[e.function.get()].emplace_back(e.input_nr, task.captured.size());
                non_leaf_targets.emplace_back(in, task.captured.size());
                task.captured.emplace_back();
            }
        }
        for (const auto& r : roots.edges) mark_needed(task, r.function.get(), run_targets);
    }
    execute(task, roots.edges, roots.grads);
    AutoGradMode mode(create_graph);
    for (auto& [t, slot] : non_leaf_targets)
        if (task.captured[slot].defined()) AccumulateGrad::accumulate(t, task.captured[slot]);
}

tensor_list grad(const tensor_list& outputs, const tensor_list& inputs, const tensor_list& grad_outputs,
                 std::optional<bool> retain_graph, bool create_graph, bool allow_unused) {
    Roots roots = make_roots(outputs, grad_outputs, "autograd::grad");
    GraphTask task{retain_graph.value_or(create_graph), create_graph, {}, true, {}, {}, {}, 0, {}};
    task.captured.resize(inputs.size());
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        const Tensor& in = inputs[i];
        detail::check_defined(in, "autograd::grad");
        Edge e = gradient_edge(in);
        if (!e.is_valid())
            throw Error("gradc: autograd::grad: one of the differentiated tensors (input " + std::to_string(i) + " " +
                        detail::describe(in) + ") does not require grad");
        task.captures[e.function.get()].emplace_back(e.input_nr, i);
    }
    for (const auto& r : roots.edges) mark_needed(task, r.function.get(), {});
    // Captured nodes themselves need not run (an AccumulateGrad must not touch .grad()).
    for (auto& [node, list] : task.captures) {
        bool leads_on = false;
        for (const auto& e : node->next_edges())
            if (e.is_valid()) {
                const bool* needed = task.needed.find(e.function.get());
                leads_on = leads_on || (needed && *needed);
            }
        task.needed[node] = leads_on;
    }
    execute(task, roots.edges, roots.grads);
    for (std::size_t i = 0; i < inputs.size(); ++i)
        if (!task.captured[i].defined() && !allow_unused)
            throw Error("gradc: autograd::grad: one of the differentiated tensors (input " + std::to_string(i) + " " +
                        detail::describe(inputs[i]) + ") appears to not have been used in the graph. Set "
                        "allow_unused=true if this is the desired behavior.");
    return task.captured;
}

}  // namespace gradc::autograd
