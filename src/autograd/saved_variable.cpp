// Tensors saved for backward, with the version check of the "Autograd mechanics" notes, and
// the saved-tensor hooks (pack/unpack) of its "Hooks for saved tensors" section; a node's
// saved tensors looked up by name.
#include <mutex>
#include <utility>
#include <vector>

#include <gradc/autograd/node.hpp>
#include <gradc/autograd/saved_variable.hpp>
#include <gradc/autograd/tensor_impl.hpp>

#include "forward_grad.hpp"
#include "internal.hpp"

namespace gradc::autograd {

namespace {

struct HookPair {
    PackHook pack;
    UnpackHook unpack;
};

// The guards of this thread, innermost last.
std::vector<HookPair>& hook_stack() {
    thread_local std::vector<HookPair> stack;
    return stack;
}

// Set while a pack hook runs: operations inside the hook save their tensors unhooked
// (otherwise a hook computing with its input would call itself without end).
thread_local bool in_pack_hook = false;

struct PackScope {
    bool previous = in_pack_hook;
    PackScope() { in_pack_hook = true; }
    ~PackScope() { in_pack_hook = previous; }
    PackScope(const PackScope&) = delete;
    PackScope& operator=(const PackScope&) = delete;
};

[[noreturn]] void throw_freed() {
    throw Error(
        "gradc: Trying to backward through the graph a second time (or directly access saved tensors after "
        "they have already been freed). Saved intermediate values of the graph are freed when you call "
        "backward() or autograd::grad(). Specify retain_graph=true if you need to backward through the graph "
        "a second time or if you need to access saved tensors after calling backward.");
}

}  // namespace

SavedTensorsHooks::SavedTensorsHooks(PackHook pack, UnpackHook unpack) {
    if (!pack || !unpack) throw Error("gradc: SavedTensorsHooks needs both a pack and an unpack hook");
    hook_stack().push_back({std::move(pack), std::move(unpack)});
}

SavedTensorsHooks::~SavedTensorsHooks() { hook_stack().pop_back(); }

bool SavedTensorsHooks::is_enabled() { return !hook_stack().empty(); }

SavedVariable::SavedVariable(const Tensor& t, bool is_output) {
    if (!t.defined()) return;
    if (t.is_inference())
        throw Error("gradc: inference tensors cannot be saved for backward: " + detail::describe(t) +
                    " was created in InferenceMode. To work around this, make a clone() to get a normal tensor "
                    "and use it in autograd.");
    defined_ = true;
    version_ = t.unsafeGetTensorImpl()->version;
    saved_version_ = t._version();
    is_output_ = is_output;
    requires_grad_ = t.requires_grad();
    output_nr_ = t.output_nr();
    is_leaf_ = t.is_leaf();
    // An output is kept as a plain alias: holding the tensor itself would make the node
    // own its own output, whose grad_fn owns the node.
    data_ = is_output ? t.detach() : t;
    auto& stack = hook_stack();
    if (!stack.empty() && !in_pack_hook) {
        const HookPair hooks = stack.back();  // a copy: the hook may open a guard itself
        pack_with(data_, hooks.pack, hooks.unpack);
    }
}

void SavedVariable::pack_with(const Tensor& t, const PackHook& pack, UnpackHook unpack) {
    // Remember where the gradient of a saved input goes, since the tensor unpack returns
    // is a new one.
    if (!is_output_) {
        if (!is_leaf_) grad_fn_ = t.grad_fn();
        else if (requires_grad_) grad_accumulator_ = grad_accumulator(t);
    }
    const std::uint32_t before = version_->current();
    std::any packed;
    {
        PackScope scope;
        packed = pack(t);
    }
    if (version_->current() != before)
        throw Error("gradc: a saved tensor pack hook is modifying its input in place (" + detail::describe(t) +
                    " went from version " + std::to_string(before) + " to " + std::to_string(version_->current()) +
                    "). Tensors given to a pack hook must not be modified by in-place operations; pack a clone() "
                    "instead.");
    packed_ = std::move(packed);
    unpack_hook_ = std::move(unpack);
    data_ = Tensor();
}

void SavedVariable::register_hooks(PackHook pack, UnpackHook unpack) {
    if (freed_)
        throw Error("gradc: SavedTensor::register_hooks: the saved tensor was already freed (backward ran "
                    "without retain_graph=true); hooks can only be registered before backward frees it.");
    if (!defined_) throw Error("gradc: SavedTensor::register_hooks: the saved tensor is undefined (nothing was saved)");
    if (unpack_hook_)
        throw Error("gradc: SavedTensor::register_hooks: this saved tensor already has hooks (set by register_hooks "
                    "or a SavedTensorsHooks guard); they can be set only once.");
    if (!pack || !unpack) throw Error("gradc: SavedTensor::register_hooks needs both a pack and an unpack hook");
    pack_with(data_, pack, std::move(unpack));
}

void SavedVariable::reset_data() {
    if (!defined_) return;
    data_ = Tensor();
    packed_.reset();
    grad_fn_.reset();
    fw_grad_ = Tensor();
    freed_ = true;
}

void SavedVariable::defer_release() noexcept {
    Node::defer_release(data_.impl());
    Node::defer_release(std::move(grad_fn_));
    Node::defer_release(fw_grad_.impl());
    data_ = Tensor();
    fw_grad_ = Tensor();
}

Tensor SavedVariable::unpack(const std::shared_ptr<Node>& saved_for) const {
    if (freed_) throw_freed();
    if (!defined_) return Tensor();
    const std::uint32_t current = version_->current();
    if (current != saved_version_) {
        std::string which;
        if (is_output_ && saved_for)
            which = ", which is output " + std::to_string(output_nr_) + " of " + saved_for->name() + ",";
        else if (!is_leaf_ && data_.defined() && data_.grad_fn())
            which = ", which is output " + std::to_string(data_.output_nr()) + " of " + data_.grad_fn()->name() + ",";
        else if (!is_leaf_ && grad_fn_)
            which = ", which is output " + std::to_string(output_nr_) + " of " + grad_fn_->name() + ",";
        const std::string what = data_.defined() ? detail::describe(data_) : std::string("a saved tensor");
        throw Error("gradc: one of the variables needed for gradient computation has been modified by an inplace "
                    "operation: " + what + which + " is at version " + std::to_string(current) +
                    "; expected version " + std::to_string(saved_version_) + " instead. It was saved by " +
                    (saved_for ? saved_for->name() : std::string("a backward node")) +
                    ". Hint: modify a clone() instead, or make the in-place operation out-of-place.");
    }
    if (unpack_hook_) {
        Tensor u = unpack_hook_(packed_);
        if (!u.defined())
            throw Error("gradc: the unpack hook of a tensor saved by " +
                        (saved_for ? saved_for->name() : std::string("a backward node")) +
                        " returned an undefined tensor; it must return a tensor with the content that was packed.");
        // A new alias: the unpacked tensor's own autograd metadata is ignored and the
        // saved tensor's history is put on the alias.
        Tensor out = u.detach();
        if (is_output_) {
            if (requires_grad_ && saved_for) set_history(out, saved_for, output_nr_);
        } else if (grad_fn_) {
            set_history(out, grad_fn_, output_nr_);
        } else if (requires_grad_) {
            auto& meta = out.unsafeGetTensorImpl()->meta();
            meta.requires_grad = true;
            meta.grad_accumulator = grad_accumulator_;
        }
        if (fw_grad_.defined()) forward_ad::detail::restore_saved(out, fw_grad_, fw_level_);
        return out;
    }
    if (!is_output_) return data_;
    Tensor out = data_.detach();
    if (requires_grad_ && saved_for) set_history(out, saved_for, output_nr_);
    if (fw_grad_.defined()) forward_ad::detail::restore_saved(out, fw_grad_, fw_level_);
    return out;
}

void SavedVariable::set_forward_grad(Tensor tangent, std::uint64_t level) {
    fw_grad_ = std::move(tangent);
    fw_level_ = level;
}

// The node's lock keeps a saved tensor from being freed by a backward pass on another
// thread while it is read or given hooks.
void SavedTensor::register_hooks(PackHook pack, UnpackHook unpack) {
    std::lock_guard<std::mutex> lock(node_->mutex());
    var_->register_hooks(std::move(pack), std::move(unpack));
}

Tensor SavedTensor::unpack() const {
    std::lock_guard<std::mutex> lock(node_->mutex());
    return var_->unpack(node_);
}

// ---- a node's saved tensors, by name (Node's members, here beside what they unpack) ---

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

}  // namespace gradc::autograd
