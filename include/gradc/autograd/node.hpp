#pragma once
/// \file
/// The backward graph (PyTorch's "Autograd mechanics" notes, "How autograd encodes the
/// history"; the Operator of the tutorial reverse-mode implementation). A Node is one
/// recorded operation seen backwards: `apply` maps the gradients of its forward outputs to
/// the gradients of its forward inputs, and `next_edges()[i]` says where the gradient of
/// input i goes (a node and which of its inputs).

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <type_traits>
#include <vector>

#include <gradc/autograd/anomaly_mode.hpp>
#include <gradc/autograd/hook_list.hpp>
#include <gradc/autograd/small_vector.hpp>
#include <gradc/autograd/tensor.hpp>

namespace gradc::autograd {

class Node;
struct GraphTask;
// A node lists its saved tensors by name; what they are is saved_variable.hpp's business,
// which builds on nodes (a saved tensor knows the node that saved it).
class SavedVariable;
class SavedTensor;

/// Where a gradient flows: input `input_nr` of node `function`. An edge without a
/// function leads nowhere (the input did not require grad).
struct Edge {
    std::shared_ptr<Node> function;  ///< The node the gradient goes to; null for nowhere.
    std::uint32_t input_nr = 0;  ///< Which of its inputs.
    bool is_valid() const { return function != nullptr; }  ///< Whether the edge leads to a node.
};

/// A node's edges: most operations have one or two inputs, kept inside the node.
using edge_list = SmallVector<Edge, 2>;

/// Shape and dtype of a forward output, checked against the gradient that arrives for it;
/// a gradient with the broadcast shape is summed back to this shape by the engine.
struct InputMetadata {
    Shape sizes;  ///< The output's shape.
    ScalarType dtype = kFloat64;  ///< The output's dtype.
};

/// One per forward output; most operations have one, kept inside the node.
using input_metadata_list = SmallVector<InputMetadata, 1>;

/// A node of the backward graph (PyTorch's `torch::autograd::Node`): the backward of one
/// forward operation, with edges to the nodes of its inputs and hooks ("Autograd mechanics").
class Node : public std::enable_shared_from_this<Node> {
public:
    /// Runs before apply with the incoming gradients; returns replacements (an empty list
    /// keeps them).
    using PreHook = std::function<tensor_list(const tensor_list& grad_outputs)>;
    /// Runs after apply with (grad_inputs, grad_outputs); returns replacements for
    /// grad_inputs (an empty list keeps them).
    using PostHook = std::function<tensor_list(const tensor_list& grad_inputs, const tensor_list& grad_outputs)>;

    Node();
    virtual ~Node();
    Node(const Node&) = delete;
    Node& operator=(const Node&) = delete;

    /// PyTorch-style name, e.g. "MulBackward".
    virtual std::string name() const = 0;
    /// Gradients of the forward inputs from gradients of the forward outputs.
    virtual tensor_list apply(tensor_list&& grad_outputs) = 0;
    /// Whether the engine runs this node when every gradient reaching it is undefined.
    /// Built-in nodes would only pass undefined gradients on, so they are skipped; a
    /// custom function runs, as in PyTorch (its backward sees zeros, or undefined tensors
    /// with set_materialize_grads(false)).
    virtual bool runs_without_gradients() const { return false; }
    /// Frees what was saved for backward (called after backward unless retain_graph).
    /// Callers other than the engine hold `mutex()` (see release_saved_variables).
    virtual void release_variables() {}
    /// release_variables() under the node's lock, as the engine calls it after running
    /// the node without retain_graph: another thread running the node on a shared graph
    /// either finishes with the saved tensors first or finds them freed (the retain_graph
    /// error), never a tensor freed under its feet.
    void release_saved_variables();

    /// The node's lock (PyTorch's `Node::mutex_`): held while apply() runs (so built-in
    /// and custom nodes with state run one thread at a time, and AccumulateGrad's sum into
    /// `.grad()` is exact), while saved tensors are unpacked, freed or given hooks, and
    /// briefly while hook lists change or are copied. Hooks run without it, except a
    /// leaf's post-accumulate-grad hooks, which run inside AccumulateGrad::apply.
    std::mutex& mutex() const { return mutex_; }

    /// The tensors this node saved for backward, by name ("Autograd mechanics" notes,
    /// "Saved tensors"; PyTorch's `grad_fn._saved_self`, `_raw_saved_self`). Built-in
    /// operations name a saved input "self" (first input), "other" (second) or "inputN", a
    /// saved output "result" (or "resultN" for several outputs); a custom function's saved
    /// tensors are "saved0", "saved1", ... in save_for_backward order. Only defined saved
    /// tensors are listed.
    virtual std::vector<std::pair<std::string, SavedVariable*>> saved_variable_entries() { return {}; }
    std::vector<std::string> saved_names();  ///< The names of the saved tensors.
    /// The saved tensor `name`, unpacked (through its unpack hook if any; a saved output
    /// gets this node as grad_fn back). Throws the retain_graph error once backward freed
    /// it, and a list of the names if there is no such saved tensor.
    Tensor saved(std::string_view name);
    /// Every saved tensor, unpacked, with its name.
    std::vector<std::pair<std::string, Tensor>> saved_tensors();
    /// A raw handle to the saved tensor `name`, for `register_hooks(pack, unpack)`
    /// (SavedTensor is in saved_variable.hpp).
    SavedTensor raw_saved(std::string_view name);

    const edge_list& next_edges() const { return next_edges_; }  ///< One edge per forward input.
    edge_list& mutable_next_edges() { return next_edges_; }  ///< The edges, modifiable.
    const Edge& next_edge(std::size_t i) const { return next_edges_.at(i); }  ///< Edge `i`.
    std::size_t num_outputs() const { return next_edges_.size(); }  ///< Backward outputs.
    std::size_t num_inputs() const { return input_metadata_.size(); }  ///< Backward inputs.
    /// Order of creation; the engine runs ready nodes newest first, as PyTorch does.
    std::uint64_t sequence_nr() const { return sequence_nr_; }
    /// The forward trace recorded when the node was created in anomaly mode; null otherwise.
    const std::shared_ptr<const AnomalyMetadata>& anomaly_metadata() const { return anomaly_metadata_; }
    const InputMetadata& input_metadata(std::size_t i) const { return input_metadata_.at(i); }  ///< Of input `i`.
    std::uint32_t add_input_metadata(const Tensor& t);  ///< Adds one; returns its index.
    /// Whether input `i` of the forward op needs a gradient (its edge leads somewhere).
    bool should_compute_output(std::size_t i) const { return i < next_edges_.size() && next_edges_[i].is_valid(); }
    /// The same, narrowed to the backward pass running on this thread: false when the pass
    /// does not run what the edge leads to (autograd::grad(outputs, inputs) runs only the
    /// paths to `inputs`), as LibTorch's task_should_compute_output.
    bool task_should_compute_output(std::size_t i) const;

    /// Hooks on this node; they run only when the node runs. Several of one kind run in
    /// registration order, each seeing the previous one's result. A `void` callable is
    /// accepted (it observes without replacing).
    template <class F>
    RemovableHandle register_prehook(F&& fn) {
        if constexpr (std::is_void_v<std::invoke_result_t<F&, const tensor_list&>>) {
            return add_pre_hook([f = std::forward<F>(fn)](const tensor_list& g) mutable -> tensor_list {
                f(g);
                return {};
            });
        } else {
            return add_pre_hook(PreHook(std::forward<F>(fn)));
        }
    }
    /// A post-hook: `fn(grad_inputs, grad_outputs)` after apply (LibTorch's register_hook).
    template <class F>
    RemovableHandle register_hook(F&& fn) {
        if constexpr (std::is_void_v<std::invoke_result_t<F&, const tensor_list&, const tensor_list&>>) {
            return add_post_hook([f = std::forward<F>(fn)](const tensor_list& gi, const tensor_list& go) mutable -> tensor_list {
                f(gi, go);
                return {};
            });
        } else {
            return add_post_hook(PostHook(std::forward<F>(fn)));
        }
    }
    RemovableHandle add_pre_hook(PreHook hook);  ///< register_prehook's non-template form.
    RemovableHandle add_post_hook(PostHook hook);  ///< register_hook's non-template form.
    /// A tensor hook for output `output_nr` of this node (Tensor::register_hook on a non-leaf).
    RemovableHandle add_tensor_pre_hook(std::uint32_t output_nr, TensorHook hook);
    /// Applies the tensor hooks to the incoming gradients (the engine calls this whenever
    /// gradients reach the node, even if the node then does not run).
    virtual tensor_list call_tensor_pre_hooks(tensor_list grads);
    bool has_pre_hooks() const;  ///< Whether any pre-hook is registered.
    bool has_post_hooks() const;  ///< Whether any post-hook is registered.
    /// How many hooks of each kind the node holds now (for pictures of the graph,
    /// autograd/graph_dot.hpp): pre-hooks, post-hooks, tensor hooks on its outputs, and
    /// outputs whose gradient is retained (retain_grad).
    struct HookCounts {
        std::size_t pre = 0;             ///< Pre-hooks (register_prehook).
        std::size_t post = 0;            ///< Post-hooks (register_hook).
        std::size_t tensor = 0;          ///< Tensor hooks on the node's outputs.
        std::size_t retained_grads = 0;  ///< Outputs whose gradient is retained (retain_grad).
    };
    HookCounts hook_counts() const;  ///< The node's hooks of each kind, counted now.
    /// Makes output `output_nr`'s gradient accumulate into `t.grad()` whenever this node
    /// runs (Tensor::retain_grad; weakly held: the tensor owns this node). Adding the same
    /// tensor twice is a no-op.
    void add_retained_grad(std::uint32_t output_nr, const std::shared_ptr<TensorImpl>& t);

    /// Pre-hooks, apply, post-hooks, in that order; apply (and the retained gradients)
    /// under mutex().
    tensor_list run(tensor_list&& grad_outputs);

    /// Freeing a graph without recursion: a node's destructor hands what it holds of the
    /// graph (the nodes its edges lead to, its saved tensors) to a queue of its thread, and
    /// the outermost node destructor on the thread frees the queue's contents in a loop.
    /// Freed in place, a chain of a million operations would recurse a million levels
    /// deep and overflow the stack.
    static void defer_release(std::shared_ptr<void> owner) noexcept;

protected:
    /// The first statement of the destructor of a subclass that passes what it holds to
    /// defer_release: unless a node is already being freed on this thread, makes
    /// this node the one whose destructor (~Node) empties the queue.
    void begin_release() noexcept;

    edge_list next_edges_;  ///< Where the gradients of the forward inputs go.
    input_metadata_list input_metadata_;  ///< One per forward output.

private:
    /// A tensor hook on output `output_nr` (Tensor::register_hook on a non-leaf).
    struct OutputHook {
        std::uint32_t output_nr;
        TensorHook fn;
    };
    /// A tensor whose gradient is output `output_nr`'s (Tensor::retain_grad).
    struct RetainedGrad {
        std::uint32_t output_nr;
        std::weak_ptr<TensorImpl> tensor;
    };
    /// Adds `hook` to `list` under mutex(); the handle removes it under mutex() again.
    template <class Hook>
    RemovableHandle add_hook(hook_list<Hook> Node::*list, Hook hook);

    bool drains_release_queue_ = false;
    mutable std::mutex mutex_;
    std::uint64_t sequence_nr_;
    std::shared_ptr<const AnomalyMetadata> anomaly_metadata_;
    hook_list<PreHook> pre_hooks_;
    hook_list<PostHook> post_hooks_;
    hook_list<OutputHook> tensor_pre_hooks_;
    hook_list<RetainedGrad> retained_grads_;
};

/// The sink of a leaf: adds the gradient that reaches it into `leaf.grad()`.
class AccumulateGrad : public Node {
public:
    explicit AccumulateGrad(Tensor leaf);  ///< The sink of `leaf`.
    ~AccumulateGrad() override;
    std::string name() const override { return "AccumulateGrad"; }
    tensor_list apply(tensor_list&& grad_outputs) override;
    const Tensor& variable() const { return variable_; }  ///< The leaf.
    /// The leaf's own hooks (Tensor::register_hook on a leaf) after any on this node.
    tensor_list call_tensor_pre_hooks(tensor_list grads) override;

    /// `grad += new_grad` in place when no graph is being built, out of place otherwise
    /// (create_graph keeps the gradient differentiable). Takes the lock that guards
    /// `variable.grad()` against other backward passes: the mutex() of its AccumulateGrad
    /// for a leaf that requires grad, its AutogradMeta's otherwise (retain_grad,
    /// backward(inputs=...)).
    static void accumulate(const Tensor& variable, const Tensor& new_grad);

private:
    // A pass that fails puts back the gradients it had summed; every pass returns the
    // buffers it kept them in (engine.cpp).
    friend void roll_back_gradients(GraphTask& task) noexcept;
    friend void return_undo_buffers(GraphTask& task) noexcept;
    // The sum itself; the caller holds the lock above.
    static void accumulate_unlocked(const Tensor& variable, const Tensor& new_grad);
    // The lock that guards `variable.grad()` (see accumulate).
    static std::unique_lock<std::mutex> lock_grad(const Tensor& variable);
    Tensor variable_;
};

/// The edge a gradient for `t` must be sent along: (grad_fn, output_nr) for a non-leaf,
/// (the leaf's AccumulateGrad, 0) for a leaf that requires grad, nothing otherwise.
Edge gradient_edge(const Tensor& t);
/// The AccumulateGrad of a leaf that requires grad, created on first use (once: threads
/// asking at the same time get the same node).
std::shared_ptr<Node> grad_accumulator(const Tensor& leaf);

/// Sets `t`'s history to output `output_nr` of `fn` (or clears it for null `fn`).
void set_history(const Tensor& t, const std::shared_ptr<Node>& fn, std::uint32_t output_nr);

/// Throws if `t` is an inference tensor and is about to be used in a recorded computation.
void check_not_inference(const Tensor& t, std::string_view op_name);

/// `fn(grads)` runs once per backward pass, after the last of `tensors`' gradients that
/// the pass computes (PyTorch's "all" mode); `grads[i]` is undefined for a tensor whose
/// gradient the pass does not compute. Built on tensor hooks, so it fires where they do.
/// The handle's remove() unregisters it from every tensor.
RemovableHandle register_multi_grad_hook(const tensor_list& tensors, std::function<void(const tensor_list& grads)> fn);

}  // namespace gradc::autograd
