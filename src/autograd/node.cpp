// Nodes of the backward graph: creation order, output metadata, one run of a node (its
// hooks around apply), and how a tensor joins the graph (its edge, its history).
#include <atomic>
#include <mutex>

#include <gradc/autograd/node.hpp>
#include <gradc/autograd/tensor_impl.hpp>

#include "anomaly_trace.hpp"
#include "internal.hpp"

namespace gradc::autograd {

namespace {
std::atomic<std::uint64_t> next_sequence_nr{0};

void check_hook_result(const Node& node, const char* kind, const tensor_list& r, std::size_t expected) {
    if (r.size() != expected)
        throw Error("gradc: a " + std::string(kind) + " of " + node.name() + " returned " + std::to_string(r.size()) +
                    " gradients; expected " + std::to_string(expected) + " (or an empty list to keep them)");
}
}  // namespace

Node::Node() : sequence_nr_(next_sequence_nr.fetch_add(1, std::memory_order_relaxed)) {
    if (AnomalyMode::is_enabled()) anomaly_metadata_ = anomaly::record_metadata();
}

std::uint32_t Node::add_input_metadata(const Tensor& t) {
    input_metadata_.push_back(InputMetadata{t.sizes(), t.dtype()});
    return static_cast<std::uint32_t>(input_metadata_.size() - 1);
}

void Node::release_saved_variables() {
    std::lock_guard<std::mutex> lock(mutex_);
    release_variables();
}

// ---- one run -------------------------------------------------------------------------

tensor_list Node::run(tensor_list&& grad_outputs) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!pre_hooks_.empty()) {
        const auto hooks = pre_hooks_;
        lock.unlock();  // user code: it may register hooks or inspect saved tensors
        hooks.run([&](const PreHook& hook) {
            tensor_list replaced = hook(grad_outputs);
            if (replaced.empty()) return;
            check_hook_result(*this, "pre-hook", replaced, grad_outputs.size());
            grad_outputs = std::move(replaced);
        });
        lock.lock();
    }
    // A retained non-leaf gradient is the gradient arriving at its grad_fn.
    retained_grads_.run([&](const RetainedGrad& retained) {
        const std::uint32_t nr = retained.output_nr;
        auto impl = retained.tensor.lock();
        if (!impl || nr >= grad_outputs.size() || !grad_outputs[nr].defined()) return;
        {
            // Modified in place since: its current grad_fn retains the gradient instead
            // (set_history moved it). A view's history is regenerated from its base
            // without moving it, so a view keeps receiving it here.
            const AutogradMeta& meta = impl->meta();
            std::lock_guard<std::mutex> tensor_lock(impl->meta().mutex);
            if (!meta.base.defined() && (meta.grad_fn.get() != this || meta.output_nr != nr)) return;
        }
        AccumulateGrad::accumulate(Tensor(impl), grad_outputs[nr]);
    });
    if (post_hooks_.empty()) return apply(std::move(grad_outputs));
    tensor_list outputs_copy = grad_outputs;
    tensor_list grad_inputs = apply(std::move(grad_outputs));
    const auto hooks = post_hooks_;
    lock.unlock();
    hooks.run([&](const PostHook& hook) {
        tensor_list replaced = hook(grad_inputs, outputs_copy);
        if (replaced.empty()) return;
        check_hook_result(*this, "post-hook", replaced, grad_inputs.size());
        grad_inputs = std::move(replaced);
    });
    return grad_inputs;
}

// ---- a tensor in the graph -----------------------------------------------------------

Edge gradient_edge(const Tensor& t) {
    if (!t.defined()) return {};
    if (const auto& fn = t.grad_fn()) return {fn, t.output_nr()};
    if (t.requires_grad()) return {grad_accumulator(t), 0};
    return {};
}

void set_history(const Tensor& t, const std::shared_ptr<Node>& fn, std::uint32_t output_nr) {
    auto& meta = t.unsafeGetTensorImpl()->meta();
    const bool replaced = meta.grad_fn && fn && meta.grad_fn != fn;
    meta.grad_fn = fn;
    meta.output_nr = output_nr;
    if (!fn) meta.output_nr = 0;
    if (!replaced) return;
    // An in-place change gave the tensor a new history: a retained gradient is the
    // gradient of the tensor's current value, so the new grad_fn delivers it (the old
    // one stops, Node::run), as LibTorch moves its retains_grad hook.
    bool retains = false;
    {
        std::lock_guard<std::mutex> lock(meta.mutex);
        retains = meta.retains_grad;
    }
    if (retains) fn->add_retained_grad(output_nr, t.impl());
}

void check_not_inference(const Tensor& t, std::string_view op_name) {
    if (t.defined() && t.is_inference())
        throw Error("gradc: " + std::string(op_name) + ": inference tensor " + detail::describe(t) +
                    " cannot be used in a computation recorded for autograd; make a clone() outside InferenceMode.");
}

}  // namespace gradc::autograd
