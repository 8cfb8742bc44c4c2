// The public entry points of the backward engine: backward() and autograd::grad() check
// their arguments, turn them into the roots of a pass and, with targets, mark which
// nodes the pass must run and where it captures the targets' gradients.
#include <string>
#include <unordered_set>

#include <gradc/autograd/creation.hpp>
#include <gradc/autograd/engine.hpp>
#include <gradc/autograd/grad_mode.hpp>
#include <gradc/autograd/node.hpp>
#include <gradc/autograd/tensor_impl.hpp>

#include "graph_task.hpp"
#include "internal.hpp"

namespace gradc::autograd {

namespace {

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
            // PyTorch as its "Autograd mechanics" notes describe it (unlike 1.13) refuses:
            // "1" is not the obvious seed for a complex output, whose real and imaginary
            // parts are two functions.
            if (out.is_complex())
                throw Error(std::string("gradc: ") + op + ": grad can be implicitly created only for real scalar "
                            "outputs; output " + std::to_string(i) + " is " + std::string(to_string(out.dtype())) +
                            ", so pass a gradient (e.g. ones_like(output)) or take real()/abs() first");
            g = ones_like(out);
        } else if (g.sizes() != out.sizes()) {
            throw Error(std::string("gradc: ") + op + ": mismatch in shape: grad_output[" + std::to_string(i) +
                        "] has a shape of " + shape_string(g.sizes()) + " and output[" + std::to_string(i) +
                        "] has a shape of " + shape_string(out.sizes()));
        } else if (g.is_complex() != out.is_complex()) {
            // As PyTorch's _make_grads: a real gradient of a complex output would drop the
            // imaginary part's function, a complex one of a real output is meaningless.
            throw Error(std::string("gradc: ") + op + ": for complex tensors, both grad_output and output are "
                        "required to have the same dtype: grad_output[" + std::to_string(i) + "] has dtype " +
                        std::string(to_string(g.dtype())) + " and output[" + std::to_string(i) + "] has dtype " +
                        std::string(to_string(out.dtype())) + "; expected both real or both complex");
        }
        r.edges.push_back(gradient_edge(out));
        r.grads.push_back(g);
    }
    return r;
}

}  // namespace

void backward(const tensor_list& outputs, const tensor_list& gradients, std::optional<bool> retain_graph,
              bool create_graph, const tensor_list& inputs) {
    Roots roots = make_roots(outputs, gradients, "backward");
    GraphTask task({.keep_graph = retain_graph.value_or(create_graph),
                    .create_graph = create_graph,
                    .restricted = !inputs.empty()});
    std::vector<std::pair<Tensor, std::size_t>> non_leaf_targets;
    if (task.restricted) {
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
    if (inputs.empty())
        throw Error("gradc: autograd::grad: grad requires non-empty inputs. Got no inputs; pass the tensors to "
                    "differentiate with respect to (use backward() to accumulate into every leaf)");
    Roots roots = make_roots(outputs, grad_outputs, "autograd::grad");
    GraphTask task({.keep_graph = retain_graph.value_or(create_graph), .create_graph = create_graph, .restricted = true});
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
                        "allow_unused=True (the allow_unused argument) if this is the desired behavior.");
    return task.captured;
}

}  // namespace gradc::autograd

namespace gradc {

// Tensor's own entry point, beside the one it calls.
void Tensor::backward(const Tensor& gradient, std::optional<bool> retain_graph, bool create_graph,
                      const tensor_list& inputs) const {
    autograd::backward({*this}, gradient.defined() ? tensor_list{gradient} : tensor_list{}, retain_graph,
                       create_graph, inputs);
}

}  // namespace gradc
