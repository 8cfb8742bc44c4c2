// Registering and running hooks (PyTorch's "Autograd mechanics" notes, "Backward Hooks
// execution"): a node's pre- and post-hooks, tensor hooks (kept on the grad_fn of a
// non-leaf, on the AutogradMeta of a leaf), post-accumulate-grad hooks and retained
// gradients. Every list is a hook_list changed under its owner's lock and copied under it
// before its hooks run, so a hook may register or remove hooks while another thread runs
// the node (that run sees the list as it was when copied).
#include <atomic>
#include <memory>
#include <mutex>

#include <gradc/autograd/hook_list.hpp>
#include <gradc/autograd/node.hpp>
#include <gradc/autograd/tensor_impl.hpp>

#include "internal.hpp"

namespace gradc::autograd {

namespace {

std::atomic<std::uint64_t> hook_ids{1};

// A tensor hook returns a replacement gradient, or an undefined Tensor to keep it.
void apply_tensor_hook(const TensorHook& hook, Tensor& grad) {
    if (!grad.defined()) return;
    Tensor replaced = hook(grad);
    if (!replaced.defined()) return;
    // As PyTorch's check of a hook's result: the engine would otherwise blame the next node
    // for a gradient of the wrong shape, or silently cast another dtype.
    if (replaced.sizes() != grad.sizes() || replaced.dtype() != grad.dtype())
        throw Error("gradc: tensor hook: a hook changed the gradient from " + detail::describe(grad) + " to " +
                    detail::describe(replaced) + "; expected a gradient of the same shape and dtype, or an "
                    "undefined Tensor to keep the gradient");
    grad = std::move(replaced);
}

template <class Hook>
RemovableHandle add_leaf_hook(const Tensor& leaf, hook_list<Hook> AutogradMeta::*list, Hook hook) {
    TensorImpl& impl = *leaf.unsafeGetTensorImpl();
    impl.meta();  // the hook lists live in it
    auto locate = [list](TensorImpl& owner) {
        if (!owner.autograd) return hook_list_location<Hook>{};
        return hook_list_location<Hook>{&((*owner.autograd).*list), &owner.autograd->mutex};
    };
    return add_removable_hook(impl, std::weak_ptr<TensorImpl>(leaf.impl()), locate, std::move(hook));
}

}  // namespace

std::uint64_t next_hook_id() { return hook_ids.fetch_add(1, std::memory_order_relaxed); }

// ---- hooks of a node -----------------------------------------------------------------

template <class Hook>
RemovableHandle Node::add_hook(hook_list<Hook> Node::*list, Hook hook) {
    auto locate = [list](Node& owner) { return hook_list_location<Hook>{&(owner.*list), &owner.mutex_}; };
    return add_removable_hook(*this, weak_from_this(), locate, std::move(hook));
}

RemovableHandle Node::add_pre_hook(PreHook hook) { return add_hook(&Node::pre_hooks_, std::move(hook)); }

RemovableHandle Node::add_post_hook(PostHook hook) { return add_hook(&Node::post_hooks_, std::move(hook)); }

RemovableHandle Node::add_tensor_pre_hook(std::uint32_t output_nr, TensorHook hook) {
    return add_hook(&Node::tensor_pre_hooks_, OutputHook{output_nr, std::move(hook)});
}

bool Node::has_pre_hooks() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return !pre_hooks_.empty();
}

bool Node::has_post_hooks() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return !post_hooks_.empty();
}

Node::HookCounts Node::hook_counts() const {
    std::lock_guard<std::mutex> lock(mutex_);
    HookCounts counts{pre_hooks_.size(), post_hooks_.size(), tensor_pre_hooks_.size(), 0};
    // A retained gradient whose tensor is gone is never delivered again: not counted.
    retained_grads_.run([&](const RetainedGrad& r) { counts.retained_grads += r.tensor.expired() ? 0 : 1; });
    return counts;
}

void Node::add_retained_grad(std::uint32_t output_nr, const std::shared_ptr<TensorImpl>& t) {
    std::lock_guard<std::mutex> lock(mutex_);
    const bool known = retained_grads_.any_of(
        [&](const RetainedGrad& r) { return r.output_nr == output_nr && r.tensor.lock() == t; });
    if (!known) retained_grads_.add(RetainedGrad{output_nr, t});
}

tensor_list Node::call_tensor_pre_hooks(tensor_list grads) {
    tensor_pre_hooks_.copy_under(mutex_).run([&](const OutputHook& hook) {
        if (hook.output_nr < grads.size()) apply_tensor_hook(hook.fn, grads[hook.output_nr]);
    });
    return grads;
}

tensor_list AccumulateGrad::call_tensor_pre_hooks(tensor_list grads) {
    grads = Node::call_tensor_pre_hooks(std::move(grads));
    auto* meta = variable_.unsafeGetTensorImpl()->autograd.get();
    if (!meta || grads.empty()) return grads;
    meta->hooks.copy_under(meta->mutex).run([&](const TensorHook& hook) { apply_tensor_hook(hook, grads[0]); });
    return grads;
}

}  // namespace gradc::autograd

// ---- hooks of a tensor ---------------------------------------------------------------

namespace gradc {

void detail::check_hookable(const Tensor& t, const char* what) {
    if (!t.defined()) throw Error(std::string("gradc: ") + what + ": the tensor is undefined");
    if (!t.requires_grad())
        throw Error(std::string("gradc: ") + what + ": cannot register a hook on a tensor that doesn't require gradient");
}

autograd::RemovableHandle Tensor::register_tensor_hook(autograd::TensorHook fn) const {
    detail::check_hookable(*this, "register_hook");
    autograd::RemovableHandle handle = is_leaf() ? autograd::add_leaf_hook(*this, &AutogradMeta::hooks, std::move(fn))
                                                 : grad_fn()->add_tensor_pre_hook(output_nr(), std::move(fn));
    AutogradMeta& meta = impl()->meta();
    std::lock_guard<std::mutex> lock(meta.mutex);
    const auto position = static_cast<unsigned>(meta.registered_hooks.size());
    meta.registered_hooks.push_back(handle);
    return autograd::RemovableHandle([handle]() mutable { handle.remove(); }, position);
}

void Tensor::remove_hook(unsigned position) const {
    detail::check_defined(*this, "remove_hook");
    autograd::RemovableHandle handle;
    bool found = false;
    if (impl()->autograd) {
        std::lock_guard<std::mutex> lock(impl()->autograd->mutex);
        found = position < impl()->autograd->registered_hooks.size();
        if (found) handle = impl()->autograd->registered_hooks[position];
    }
    // "Invalid index": LibTorch's words, which its own tests look for.
    if (!found)
        throw Error("gradc: remove_hook: Invalid index, no hook at position " + std::to_string(position) +
                    " (positions are those register_hook returned for this tensor)");
    handle.remove();  // a no-op for a hook already removed
}

autograd::RemovableHandle Tensor::register_post_accumulate_grad_hook(std::function<void(const Tensor&)> fn) const {
    detail::check_hookable(*this, "register_post_accumulate_grad_hook");
    if (!is_leaf())
        throw Error("gradc: register_post_accumulate_grad_hook: post accumulate grad hooks cannot be registered on "
                    "non-leaf tensors (" + grad_fn()->name() + "); register them on the leaves whose .grad() you want to see");
    return autograd::add_leaf_hook(*this, &AutogradMeta::post_accumulate_grad_hooks, std::move(fn));
}

// A retained gradient is delivered by the tensor's grad_fn when it runs (Node::run).
void Tensor::retain_grad() const {
    auto& impl = detail::defined_impl(impl_, "retain_grad()");
    if (!requires_grad())
        throw Error("gradc: retain_grad(): can't retain_grad on a tensor that has requires_grad=false");
    if (is_leaf()) return;  // leaves keep their gradient anyway
    auto& meta = impl.meta();
    std::shared_ptr<autograd::Node> fn;
    std::uint32_t nr = 0;
    {
        std::lock_guard<std::mutex> lock(meta.mutex);
        if (meta.retains_grad) return;
        fn = meta.grad_fn;
        nr = meta.output_nr;
    }
    // Registered under the node's lock alone (a node's lock is never taken under a
    // tensor's), once however many threads ask; the flag is set after, so a thread that
    // sees it set knows the node already accumulates into this tensor.
    fn->add_retained_grad(nr, impl_);
    std::lock_guard<std::mutex> lock(meta.mutex);
    meta.retains_grad = true;
}

}  // namespace gradc
