#pragma once
/// \file
/// The one list type behind every kind of hook of the dynamic mode: a leaf's tensor hooks
/// and post-accumulate-grad hooks, a node's pre-hooks, post-hooks, tensor pre-hooks and
/// retained gradients. Hooks run in registration order; each registration gets an id, and
/// the RemovableHandle returned to the user removes it by that id.
///
/// The list takes no lock of its own: its owner (a Node, a tensor's AutogradMeta) guards it
/// with the mutex it already has, and hooks run on a copy taken under that mutex
/// (`copy_under`), without it, so a hook may register or remove hooks and the running
/// pass sees the list as copied (PyTorch's "Autograd mechanics" notes, "Backward Hooks
/// execution").

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include <gradc/autograd/tensor.hpp>

namespace gradc::autograd {

/// A process-wide increasing id for hook registrations.
std::uint64_t next_hook_id();

/// Hooks of one kind in registration order; removal by handle leaves a hole so positions stay valid.
template <class Hook>
class hook_list {
public:
    using hook_type = Hook;  ///< The hook's type.

    /// Appends `hook`; returns the id that removes it.
    std::uint64_t add(Hook hook) {
        const std::uint64_t id = next_hook_id();
        entries_.push_back(Entry{id, std::move(hook)});
        return id;
    }
    /// Removes the hook registered under `id`; nothing if it is gone already.
    void remove(std::uint64_t id) {
        for (auto it = entries_.begin(); it != entries_.end(); ++it)
            if (it->id == id) {
                entries_.erase(it);
                return;
            }
    }
    bool empty() const { return entries_.empty(); }  ///< Whether no hook is registered.
    std::size_t size() const { return entries_.size(); }  ///< How many hooks are registered.
    /// Whether some hook satisfies `pred` (e.g. the same retained tensor added twice).
    template <class Pred>
    bool any_of(Pred&& pred) const {
        for (const auto& e : entries_)
            if (pred(e.hook)) return true;
        return false;
    }
    /// Calls `call(hook)` for each hook, in registration order.
    template <class Call>
    void run(Call&& call) const {
        for (const auto& e : entries_) call(e.hook);
    }
    /// A copy taken under `guard`, the owner's mutex, to be run without it.
    hook_list copy_under(std::mutex& guard) const {
        std::lock_guard<std::mutex> lock(guard);
        return *this;
    }

private:
    struct Entry {
        std::uint64_t id;
        Hook hook;
    };
    std::vector<Entry> entries_;
};

/// Where an owner keeps one of its hook lists: the list and the mutex that guards it, or a
/// null list when the owner has none (a tensor whose autograd state is gone).
template <class Hook>
struct hook_list_location {
    hook_list<Hook>* list = nullptr;  ///< The list.
    std::mutex* mutex = nullptr;  ///< The mutex that guards it.
};

/// Adds `hook` to the list `locate(owner)` names, under its mutex, and returns the handle
/// that removes it again under the same mutex; the handle holds `owner` weakly and does
/// nothing once the owner is gone.
template <class Owner, class Locate, class Hook>
RemovableHandle add_removable_hook(Owner& owner, std::weak_ptr<Owner> weak_owner, Locate locate, Hook&& hook) {
    const auto where = locate(owner);
    std::uint64_t id = 0;
    {
        std::lock_guard<std::mutex> lock(*where.mutex);
        id = where.list->add(std::forward<Hook>(hook));
    }
    return RemovableHandle([weak_owner = std::move(weak_owner), locate, id] {
        const auto alive = weak_owner.lock();
        if (!alive) return;
        const auto found = locate(*alive);
        if (!found.list) return;
        std::lock_guard<std::mutex> lock(*found.mutex);
        found.list->remove(id);
    });
}

}  // namespace gradc::autograd
