// register_multi_grad_hook: one callback per backward pass, after the last of several
// tensors' gradients that the pass computes (PyTorch's "all" mode), built on tensor hooks.
#include <functional>
#include <memory>
#include <mutex>
#include <unordered_map>

#include <gradc/autograd/engine.hpp>
#include <gradc/autograd/node.hpp>
#include <gradc/autograd/tensor_impl.hpp>

#include "internal.hpp"

namespace gradc::autograd {

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
        gradc::detail::check_hookable(t, "register_multi_grad_hook");
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
