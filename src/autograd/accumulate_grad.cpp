// AccumulateGrad, the sink of a leaf: sums the gradients that reach it into `.grad()`; and
// requires_grad_, which makes a tensor such a leaf.
#include <memory>
#include <mutex>

#include <gradc/autograd/elementwise.hpp>
#include <gradc/autograd/grad_mode.hpp>
#include <gradc/autograd/node.hpp>
#include <gradc/autograd/tensor_impl.hpp>

#include "graph_task.hpp"
#include "internal.hpp"

namespace gradc::autograd {

AccumulateGrad::AccumulateGrad(Tensor leaf) : variable_(std::move(leaf)) {
    add_input_metadata(variable_);
}

// The leaf's .grad() may hold a graph (a gradient computed with create_graph).
AccumulateGrad::~AccumulateGrad() {
    begin_release();
    defer_release(variable_.impl());
    variable_ = Tensor();
}

// Runs under mutex() (Node::run): the accumulation and the post-accumulate-grad hooks of
// one leaf happen one backward pass at a time, as in PyTorch, so each hook sees the sum
// its own pass just made.
tensor_list AccumulateGrad::apply(tensor_list&& grad_outputs) {
    if (!grad_outputs.empty() && grad_outputs[0].defined()) {
        Tensor g = std::move(grad_outputs[0]);  // so that accumulate may keep it without a copy
        accumulate_unlocked(variable_, g);
        if (auto* meta = variable_.unsafeGetTensorImpl()->autograd.get())
            meta->post_accumulate_grad_hooks.copy_under(meta->mutex).run([&](const auto& hook) { hook(variable_); });
    }
    return {};
}

std::unique_lock<std::mutex> AccumulateGrad::lock_grad(const Tensor& variable) {
    // Recording the sum (create_graph) may take the lock of a leaf among its operands,
    // never a non-leaf's own.
    if (variable.is_leaf() && variable.requires_grad())
        return std::unique_lock<std::mutex>(grad_accumulator(variable)->mutex());
    return std::unique_lock<std::mutex>(variable.unsafeGetTensorImpl()->meta().mutex);
}

void AccumulateGrad::accumulate(const Tensor& variable, const Tensor& new_grad) {
    auto lock = lock_grad(variable);
    accumulate_unlocked(variable, new_grad);
}

namespace {

// Copies `grad`'s values into undo.old_values, in the variable's kept buffer when it is
// free and fits (the usual case: no allocation), else into a new tensor. Allocating a
// copy on every pass made glibc give the memory back and fault it in again each time:
// 234 µs instead of 7 µs for a pass into a leaf of 10^4 doubles (docs/benchmark-history.md, "Undo
// of a failed pass").
void keep_values(const Tensor& variable, const Tensor& grad, GradUndo& undo) {
    AutogradMeta& meta = variable.unsafeGetTensorImpl()->meta();
    if (meta.grad_undo_buffer_lent) {  // another pass on another thread holds it
        undo.old_values = detail::copy_as(grad, grad.dtype());
        return;
    }
    Tensor& buffer = meta.grad_undo_buffer;
    if (!buffer.defined() || buffer.sizes() != grad.sizes() || buffer.dtype() != grad.dtype())
        buffer = detail::copy_as(grad, grad.dtype());
    else
        detail::copy_into(buffer, grad);
    meta.grad_undo_buffer_lent = true;
    undo.old_values = buffer;
    undo.lent = true;
}

}  // namespace

void AccumulateGrad::accumulate_unlocked(const Tensor& variable, const Tensor& new_grad) {
    Tensor& grad = variable.mutable_grad();
    // A .grad() assigned by the user through mutable_grad() may have another shape; the
    // sum below would then broadcast or run past its end.
    if (grad.defined() && grad.sizes() != variable.sizes())
        throw Error("gradc: AccumulateGrad: the .grad() of the leaf " + detail::describe(variable) + " has shape " +
                    shape_string(grad.sizes()) + "; expected the leaf's shape " + shape_string(variable.sizes()) +
                    " (assign a gradient of that shape, or an undefined Tensor, to mutable_grad())");
    // Inside a pass, what the sum replaces is kept until the pass ends (roll_back_gradients).
    GraphTask* task = running_graph_task();
    const bool in_place = grad.defined() && !GradMode::is_enabled();
    GradUndo undo;
    if (task) {
        undo.variable = variable;
        undo.previous = grad;
        if (in_place) {
            keep_values(variable, grad, undo);
            undo.old_version = grad.unsafeGetTensorImpl()->version->current();
        }
    }
    if (GradMode::is_enabled()) {
        // create_graph: keep the gradient's own history so it can be differentiated.
        grad = grad.defined() ? grad + new_grad : new_grad;
    } else if (!grad.defined()) {
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
    if (task) {
        undo.written = grad;
        if (in_place) undo.new_version = grad.unsafeGetTensorImpl()->version->current();
        task->grad_undo.push_back(std::move(undo));
    }
}

void return_undo_buffers(GraphTask& task) noexcept {
    for (GradUndo& undo : task.grad_undo) {
        if (!undo.lent) continue;
        auto lock = AccumulateGrad::lock_grad(undo.variable);
        undo.variable.unsafeGetTensorImpl()->meta().grad_undo_buffer_lent = false;
    }
    task.grad_undo.clear();
}

void roll_back_gradients(GraphTask& task) noexcept {
    for (auto it = task.grad_undo.rbegin(); it != task.grad_undo.rend(); ++it) {
        auto lock = AccumulateGrad::lock_grad(it->variable);
        Tensor& grad = it->variable.mutable_grad();
        if (grad.impl() != it->written.impl()) continue;  // replaced by the user or another pass
        if (!it->old_values.defined()) {
            grad = it->previous;
            continue;
        }
        auto& version = grad.unsafeGetTensorImpl()->version->version;
        if (version.load(std::memory_order_relaxed) != it->new_version) continue;  // another pass added to it
        detail::copy_into(grad, it->old_values);
        version.store(it->old_version, std::memory_order_relaxed);
    }
}

std::shared_ptr<Node> grad_accumulator(const Tensor& leaf) {
    auto& meta = leaf.unsafeGetTensorImpl()->meta();
    // Threads recording operations on a shared leaf must all get the same node: two would
    // sum into .grad() under two different locks.
    std::lock_guard<std::mutex> lock(meta.mutex);
    if (auto existing = meta.grad_accumulator.lock()) return existing;
    auto acc = std::make_shared<AccumulateGrad>(leaf);
    meta.grad_accumulator = acc;
    return acc;
}

}  // namespace gradc::autograd

namespace gradc {

// Whether a leaf requires grad decides whether it gets an AccumulateGrad (grad_accumulator).
const Tensor& Tensor::set_requires_grad(bool r) const {
    auto& impl = detail::defined_impl(impl_, "requires_grad_()");
    if (!is_leaf()) {
        if (r) return *this;
        throw Error(
            "gradc: requires_grad_(false): you can only change requires_grad flags of leaf tensors; this tensor "
            "has grad_fn " + grad_fn()->name() + ". Use detach() to get a tensor without history.");
    }
    if (r && !is_differentiable_type(impl.dtype))
        throw Error("gradc: requires_grad_(): only tensors of floating point and complex dtype can require "
                    "gradients, got dtype " + std::string(to_string(impl.dtype)));
    if (r && impl.inference && !InferenceMode::is_enabled())
        throw Error("gradc: requires_grad_(): setting requires_grad=true on an inference tensor outside "
                    "InferenceMode is not allowed; clone() it first to get a normal tensor.");
    impl.meta().requires_grad = r;
    return *this;
}

Tensor& Tensor::requires_grad_(bool r) const {
    set_requires_grad(r);
    return const_cast<Tensor&>(*this);  // the handle is unchanged; its tensor changes
}

}  // namespace gradc
