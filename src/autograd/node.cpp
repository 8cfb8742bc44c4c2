// Nodes of the backward graph: creation order, output metadata, saved-tensor inspection,
// and one run of a node (its hooks around apply).
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

// ---- saved tensors (inspection) ------------------------------------------------------

std::vector<std::string> Node::saved_names() {
    std::vector<std::string> out;
    for (auto& [name, var] : saved_variable_entries()) out.push_back(name);
    return out;
}

SavedTensor Node::raw_saved(std::string_view name) {
    // Entries point into vectors that keep their size after the node is recorded, so
    // they may be listed without the lock; reading what they hold needs it.
    for (auto& [n, var] : saved_variable_entries())
        if (n == name) return SavedTensor(shared_from_this(), var, n);
    std::string names;
    for (auto& n : saved_names()) names += (names.empty() ? "" : ", ") + n;
    throw Error("gradc: " + this->name() + " has no saved tensor named '" + std::string(name) + "'" +
                (names.empty() ? std::string(" (it saves none)") : " (it saves: " + names + ")"));
}

Tensor Node::saved(std::string_view name) { return raw_saved(name).unpack(); }

std::vector<std::pair<std::string, Tensor>> Node::saved_tensors() {
    std::vector<std::pair<std::string, Tensor>> out;
    auto self = shared_from_this();
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& [name, var] : saved_variable_entries()) out.emplace_back(name, var->unpack(self));
    return out;
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

Edge gradient_edge(const Tensor& t) {
    if (!t.defined()) return {};
    if (const auto& fn = t.grad_fn()) return {fn, t.output_nr()};
    if (t.requires_grad()) return {grad_accumulator(t), 0};
    return {};
}

}  // namespace gradc::autograd
