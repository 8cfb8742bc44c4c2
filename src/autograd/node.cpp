// Nodes of the backward graph and the leaf sink AccumulateGrad.
#include <atomic>
#include <cstdlib>
#include <exception>
#include <memory>
#include <new>
#include <mutex>
#include <unordered_map>

#include <gradc/autograd/elementwise.hpp>
#include <gradc/autograd/engine.hpp>
#include <gradc/autograd/grad_mode.hpp>
#include <gradc/autograd/node.hpp>
#include <gradc/autograd/tensor_impl.hpp>

#include "internal.hpp"

namespace gradc::autograd {

namespace {
std::atomic<std::uint64_t> next_sequence_nr{0};
}

Node::Node() : sequence_nr_(next_sequence_nr.fetch_add(1, std::memory_order_relaxed)) {}

namespace {

// Trivially destructible, so that a graph freed while static objects are destroyed (after
// this thread's thread_local objects) still finds it usable; its buffer is freed whenever
// the queue runs empty.
struct ReleaseQueue {
    bool draining;
    std::shared_ptr<void>* items;
    std::size_t size;
    std::size_t capacity;
};
thread_local ReleaseQueue release_queue{false, nullptr, 0, 0};

void drain_release_queue() noexcept {
    ReleaseQueue& q = release_queue;
    while (q.size > 0) {
        // Moved out first: freeing it may push more.
        std::shared_ptr<void> last = std::move(q.items[--q.size]);
        std::destroy_at(q.items + q.size);
    }
    std::free(q.items);
    q.items = nullptr;
    q.capacity = 0;
    q.draining = false;
}

}  // namespace

void Node::defer_release(std::shared_ptr<void> owner) noexcept {
    if (!owner) return;
    ReleaseQueue& q = release_queue;
    if (q.size == q.capacity) {
        const std::size_t capacity = q.capacity ? 2 * q.capacity : 64;
        auto* grown = static_cast<std::shared_ptr<void>*>(std::malloc(capacity * sizeof(std::shared_ptr<void>)));
        if (!grown) std::terminate();  // out of memory inside a destructor
        std::uninitialized_move(q.items, q.items + q.size, grown);
        std::destroy(q.items, q.items + q.size);
        std::free(q.items);
        q.items = grown;
        q.capacity = capacity;
    }
    ::new (static_cast<void*>(q.items + q.size)) std::shared_ptr<void>(std::move(owner));
    ++q.size;
}

void Node::begin_release() noexcept {
    if (release_queue.draining) return;
    release_queue.draining = true;
    drains_release_queue_ = true;
}

Node::~Node() {
    begin_release();
    for (auto& e : next_edges_) defer_release(std::move(e.function));
    if (drains_release_queue_) drain_release_queue();
}

std::uint32_t Node::add_input_metadata(const Tensor& t) {
    input_metadata_.push_back(InputMetadata{t.sizes(), t.dtype()});
    return static_cast<std::uint32_t>(input_metadata_.size() - 1);
}

namespace {
std::atomic<std::uint64_t> hook_ids{1};

template <class V>
void erase_id(V& v, std::uint64_t id) {
    for (auto it = v.begin(); it != v.end(); ++it)
        if (it->id == id) {
            v.erase(it);
            return;
        }
}

void check_hook_result(const Node& node, const char* kind, const tensor_list& r, std::size_t expected) {
    if (r.size() != expected)
        throw Error("gradc: a " + std::string(kind) + " of " + node.name() + " returned " + std::to_string(r.size()) +
                    " gradients; expected " + std::to_string(expected) + " (or an empty list to keep them)");
}
}  // namespace

std::uint64_t next_hook_id() { return hook_ids.fetch_add(1, std::memory_order_relaxed); }

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

// Hook lists change under the node's lock and are copied under it before running, so a
// hook may be registered or removed while another thread runs the node (that run sees
// the list as it was when copied).
RemovableHandle Node::add_pre_hook(PreHook hook) {
    const auto id = next_hook_id();
    {
        std::lock_guard<std::mutex> lock(mutex_);
        pre_hooks_.push_back({id, std::move(hook)});
    }
    return RemovableHandle([w = weak_from_this(), id] {
        if (auto n = w.lock()) {
            std::lock_guard<std::mutex> lock(n->mutex_);
            erase_id(n->pre_hooks_, id);
        }
    });
}

RemovableHandle Node::add_post_hook(PostHook hook) {
    const auto id = next_hook_id();
    {
        std::lock_guard<std::mutex> lock(mutex_);
        post_hooks_.push_back({id, std::move(hook)});
    }
    return RemovableHandle([w = weak_from_this(), id] {
        if (auto n = w.lock()) {
            std::lock_guard<std::mutex> lock(n->mutex_);
            erase_id(n->post_hooks_, id);
        }
    });
}

bool Node::has_pre_hooks() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return !pre_hooks_.empty();
}

bool Node::has_post_hooks() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return !post_hooks_.empty();
}

void Node::add_retained_grad(std::uint32_t output_nr, const std::shared_ptr<TensorImpl>& t) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& [nr, weak] : retained_)
        if (nr == output_nr && weak.lock() == t) return;
    retained_.emplace_back(output_nr, t);
}

void Node::release_saved_variables() {
    std::lock_guard<std::mutex> lock(mutex_);
    release_variables();
}

RemovableHandle Node::add_tensor_pre_hook(std::uint32_t output_nr, TensorHook hook) {
    const auto id = next_hook_id();
    {
        std::lock_guard<std::mutex> lock(mutex_);
        tensor_pre_hooks_.push_back({output_nr, {id, std::move(hook)}});
    }
    return RemovableHandle([w = weak_from_this(), id] {
        if (auto n = w.lock()) {
            std::lock_guard<std::mutex> lock(n->mutex_);
            auto& v = n->tensor_pre_hooks_;
            for (auto it = v.begin(); it != v.end(); ++it)
                if (it->second.id == id) {
                    v.erase(it);
                    return;
                }
        }
    });
}

tensor_list Node::call_tensor_pre_hooks(tensor_list grads) {
    std::vector<std::pair<std::uint32_t, Entry<TensorHook>>> hooks;  // a hook may remove itself
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (tensor_pre_hooks_.empty()) return grads;
        hooks = tensor_pre_hooks_;
    }
    for (const auto& [nr, entry] : hooks) {
        if (nr >= grads.size() || !grads[nr].defined()) continue;
        Tensor r = entry.fn(grads[nr]);
        if (r.defined()) grads[nr] = std::move(r);
    }
    return grads;
}

tensor_list Node::run(tensor_list&& grad_outputs) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!pre_hooks_.empty()) {
        const auto hooks = pre_hooks_;
        lock.unlock();  // user code: it may register hooks or inspect saved tensors
        for (const auto& h : hooks) {
            tensor_list r = h.fn(grad_outputs);
            if (r.empty()) continue;
            check_hook_result(*this, "pre-hook", r, grad_outputs.size());
            grad_outputs = std::move(r);
        }
        lock.lock();
    }
    // A retained non-leaf gradient is the gradient arriving at its grad_fn.
    for (auto& [nr, weak] : retained_) {
        if (auto impl = weak.lock(); impl && nr < grad_outputs.size() && grad_outputs[nr].defined())
            AccumulateGrad::accumulate(Tensor(impl), grad_outputs[nr]);
    }
    if (post_hooks_.empty()) return apply(std::move(grad_outputs));
    tensor_list outputs_copy = grad_outputs;
    tensor_list grad_inputs = apply(std::move(grad_outputs));
    const auto hooks = post_hooks_;
    lock.unlock();
    for (const auto& h : hooks) {
        tensor_list r = h.fn(grad_inputs, outputs_copy);
        if (r.empty()) continue;
        check_hook_result(*this, "post-hook", r, grad_inputs.size());
        grad_inputs = std::move(r);
    }
    return grad_inputs;
}

tensor_list AccumulateGrad::call_tensor_pre_hooks(tensor_list grads) {
    grads = Node::call_tensor_pre_hooks(std::move(grads));
    auto* meta = variable_.unsafeGetTensorImpl()->autograd.get();
    if (!meta || grads.empty()) return grads;
    std::vector<std::pair<std::uint64_t, TensorHook>> hooks;
    {
        std::lock_guard<std::mutex> lock(meta->mutex);
        if (meta->hooks.empty()) return grads;
        hooks = meta->hooks;
    }
    for (const auto& [id, fn] : hooks) {
        if (!grads[0].defined()) break;
        Tensor r = fn(grads[0]);
        if (r.defined()) grads[0] = std::move(r);
    }
    return grads;
}

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
        if (auto* meta = variable_.unsafeGetTensorImpl()->autograd.get()) {
            std::vector<std::pair<std::uint64_t, std::function<void(const Tensor&)>>> hooks;
            {
                std::lock_guard<std::mutex> lock(meta->mutex);
                hooks = meta->post_accumulate_grad_hooks;
            }
            for (const auto& [id, fn] : hooks) fn(variable_);
        }
    }
    return {};
}

void AccumulateGrad::accumulate(const Tensor& variable, const Tensor& new_grad) {
    if (variable.is_leaf() && variable.requires_grad()) {
        auto acc = grad_accumulator(variable);
        std::lock_guard<std::mutex> lock(acc->mutex());
        accumulate_unlocked(variable, new_grad);
    } else {
        // Recording the sum (create_graph) may take the lock of a leaf among its operands,
        // never this non-leaf's.
        std::lock_guard<std::mutex> lock(variable.unsafeGetTensorImpl()->meta().mutex);
        accumulate_unlocked(variable, new_grad);
    }
}

void AccumulateGrad::accumulate_unlocked(const Tensor& variable, const Tensor& new_grad) {
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
    // Threads recording operations on a shared leaf must all get the same node: two would
    // sum into .grad() under two different locks.
    std::lock_guard<std::mutex> lock(meta.mutex);
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

// ---- tensor hooks --------------------------------------------------------------------

namespace {
void check_hookable(const Tensor& t, const char* what) {
    if (!t.defined()) throw Error(std::string("gradc: ") + what + ": the tensor is undefined");
    if (!t.requires_grad())
        throw Error(std::string("gradc: ") + what + ": cannot register a hook on a tensor that doesn't require gradient");
}

template <class V>
RemovableHandle leaf_hook_handle(const Tensor& t, std::uint64_t id, V AutogradMeta::*list) {
    return RemovableHandle([w = std::weak_ptr<TensorImpl>(t.impl()), id, list] {
        auto impl = w.lock();
        if (!impl || !impl->autograd) return;
        std::lock_guard<std::mutex> lock(impl->autograd->mutex);
        auto& v = (*impl->autograd).*list;
        for (auto it = v.begin(); it != v.end(); ++it)
            if (it->first == id) {
                v.erase(it);
                return;
            }
    });
}
}  // namespace

// ---- multi-grad hooks -----------------------------------------------------------------

namespace {
struct MultiGradHook {
    std::function<void(const tensor_list&)> fn;
    // Where each tensor's gradient arrives: its grad_fn, or its leaf (whose AccumulateGrad
    // may be recreated).
    std::vector<std::weak_ptr<Node>> nodes;
    std::vector<std::weak_ptr<TensorImpl>> leaves;
    struct Pass {
        tensor_list grads;
        std::size_t seen = 0, expected = 0;
        bool done = false;
    };
    std::mutex mutex;
    std::unordered_map<std::uint64_t, Pass> passes;

    // The node may die once the pointer is returned; it is only compared, never followed.
    Node* node_of(std::size_t i) const {
        if (auto impl = leaves[i].lock()) {
            if (!impl->autograd) return nullptr;
            std::lock_guard<std::mutex> lock(impl->autograd->mutex);
            return impl->autograd->grad_accumulator.lock().get();
        }
        return nodes[i].lock().get();
    }
};
}  // namespace

RemovableHandle register_multi_grad_hook(const tensor_list& tensors, std::function<void(const tensor_list&)> fn) {
    auto state = std::make_shared<MultiGradHook>();
    state->fn = std::move(fn);
    for (const auto& t : tensors) {
        check_hookable(t, "register_multi_grad_hook");
        state->nodes.push_back(t.is_leaf() ? std::weak_ptr<Node>() : std::weak_ptr<Node>(t.grad_fn()));
        state->leaves.push_back(t.is_leaf() ? std::weak_ptr<TensorImpl>(t.impl()) : std::weak_ptr<TensorImpl>());
    }
    std::vector<RemovableHandle> handles;
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        handles.push_back(tensors[i].register_hook([state, i](const Tensor& g) {
            const std::uint64_t task = current_graph_task_id();
            std::function<void()> call;
            {
                std::lock_guard<std::mutex> lock(state->mutex);
                auto [it, fresh] = state->passes.try_emplace(task);
                auto& pass = it->second;
                if (fresh) {
                    pass.grads.resize(state->nodes.size());
                    for (std::size_t k = 0; k < state->nodes.size(); ++k) {
                        Node* n = state->node_of(k);
                        if (n && will_engine_execute_node(n)) ++pass.expected;
                    }
                    // Gradients the pass reaches but never computes: call at its end.
                    queue_callback([w = std::weak_ptr<MultiGradHook>(state), task] {
                        auto s = w.lock();
                        if (!s) return;
                        tensor_list grads;
                        {
                            std::lock_guard<std::mutex> l(s->mutex);
                            auto found = s->passes.find(task);
                            if (found == s->passes.end()) return;
                            const bool done = found->second.done;
                            grads = std::move(found->second.grads);
                            s->passes.erase(found);
                            if (done) return;
                        }
                        s->fn(grads);
                    });
                }
                if (!pass.grads[i].defined()) ++pass.seen;
                pass.grads[i] = g;
                if (!pass.done && pass.seen >= pass.expected) {
                    pass.done = true;
                    call = [state, grads = pass.grads] { state->fn(grads); };
                }
            }
            if (call) call();
        }));
    }
    return RemovableHandle([handles]() mutable {
        for (auto& h : handles) h.remove();
    });
}

}  // namespace gradc::autograd

namespace gradc {

autograd::RemovableHandle Tensor::register_tensor_hook(autograd::TensorHook fn) const {
    autograd::check_hookable(*this, "register_hook");
    if (is_leaf()) {
        const auto id = autograd::next_hook_id();
        auto& meta = impl_->meta();
        {
            std::lock_guard<std::mutex> lock(meta.mutex);
            meta.hooks.emplace_back(id, std::move(fn));
        }
        return autograd::leaf_hook_handle(*this, id, &AutogradMeta::hooks);
    }
    return grad_fn()->add_tensor_pre_hook(output_nr(), std::move(fn));
}

autograd::RemovableHandle Tensor::register_post_accumulate_grad_hook(std::function<void(const Tensor&)> fn) const {
    autograd::check_hookable(*this, "register_post_accumulate_grad_hook");
    if (!is_leaf())
        throw Error("gradc: register_post_accumulate_grad_hook: post accumulate grad hooks cannot be registered on "
                    "non-leaf tensors (" + grad_fn()->name() + "); register them on the leaves whose .grad() you want to see");
    const auto id = autograd::next_hook_id();
    auto& meta = impl_->meta();
    {
        std::lock_guard<std::mutex> lock(meta.mutex);
        meta.post_accumulate_grad_hooks.emplace_back(id, std::move(fn));
    }
    return autograd::leaf_hook_handle(*this, id, &AutogradMeta::post_accumulate_grad_hooks);
}

}  // namespace gradc
