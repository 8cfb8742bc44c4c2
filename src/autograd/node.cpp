// Nodes of the backward graph and the leaf sink AccumulateGrad.
#include <atomic>

#include <gradc/autograd/elementwise.hpp>
#include <gradc/autograd/grad_mode.hpp>
#include <gradc/autograd/node.hpp>
#include <gradc/autograd/tensor_impl.hpp>

#include "internal.hpp"

namespace gradc::autograd {

namespace {
std::atomic<std::uint64_t> next_sequence_nr{0};
}

Node::Node() : sequence_nr_(next_sequence_nr.fetch_add(1, std::memory_order_relaxed)) {}

std::uint32_t Node::add_input_metadata(const Tensor& t) {
    input_metadata_.push_back(InputMetadata{t.sizes(), t.dtype()});
    return static_cast<std::uint32_t>(input_metadata_.size() - 1);
}

tensor_list Node::run(tensor_list&& grad_outputs) {
    for (auto& hook : pre_hooks_) grad_outputs = hook(grad_outputs);
    // A retained non-leaf gradient is the gradient arriving at its grad_fn.
    for (auto& [nr, weak] : retained_) {
        if (auto impl = weak.lock(); impl && nr < grad_outputs.size() && grad_outputs[nr].defined())
            AccumulateGrad::accumulate(Tensor(impl), grad_outputs[nr]);
    }
    if (post_hooks_.empty()) return apply(std::move(grad_outputs));
    tensor_list outputs_copy = grad_outputs;
    tensor_list grad_inputs = apply(std::move(grad_outputs));
    for (auto& hook : post_hooks_) grad_inputs = hook(grad_inputs, outputs_copy);
    return grad_inputs;
}

AccumulateGrad::AccumulateGrad(Tensor leaf) : variable_(std::move(leaf)) {
    add_input_metadata(variable_);
}

tensor_list AccumulateGrad::apply(tensor_list&& grad_outputs) {
    if (!grad_outputs.empty() && grad_outputs[0].defined()) {
        Tensor g = std::move(grad_outputs[0]);  // so that accumulate may keep it without a copy
        accumulate(variable_, g);
    }
    return {};
}

void AccumulateGrad::accumulate(const Tensor& variable, const Tensor& new_grad) {
    Tensor& grad = variable.mutable_grad();
    if (GradMode::is_enabled()) {
        // create_graph: keep the gradient's own history so it can be differentiated.
        grad = grad.defined() ? grad + new_grad : new_grad;
        return;
    }
    if (!grad.defined()) {
        // The incoming gradient may alias a tensor the user holds: keep it only when
        // nothing else refers to it or its storage (the usual case), else copy it.
        const auto& impl = new_grad.impl();
        const bool sole_owner = impl.use_count() == 1 && impl->storage.use_count() == 1 && !impl->autograd;
        if (sole_owner && new_grad.is_contiguous() && new_grad.dtype() == variable.dtype() && new_grad.sizes() == variable.sizes())
            grad = new_grad;
        else
            grad = detail::copy_as(new_grad, variable.dtype());
    } else {
        detail::add_into(grad, new_grad);
        grad.unsafeGetTensorImpl()->version->bump();
    }
}

std::shared_ptr<Node> grad_accumulator(const Tensor& leaf) {
    auto& meta = leaf.unsafeGetTensorImpl()->meta();
    if (auto existing = meta.grad_accumulator.lock()) return existing;
    auto acc = std::make_shared<AccumulateGrad>(leaf);
    meta.grad_accumulator = acc;
    return acc;
}

Edge gradient_edge(const Tensor& t) {
    if (!t.defined()) return {};
    if (const auto& fn = t.grad_fn()) return {fn, t.output_nr()};
    if (t.requires_grad()) return {grad_accumulator(t), 0};
    return {};
}

}  // namespace gradc::autograd
