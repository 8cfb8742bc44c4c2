#pragma once
/// \file
/// A tensor saved for backward ("Autograd mechanics" notes, "Saved tensors"). It remembers
/// the version of the tensor when saved and refuses to be used if an in-place operation
/// changed it since. A saved *output* of the node that saves it is kept without its grad_fn
/// (the node would otherwise own itself through the tensor) and is given it back on unpack.
///
/// Saved-tensor hooks ("Autograd mechanics" notes, "Hooks for saved tensors"): a pack hook
/// turns the tensor into any object when it is saved (called exactly once), an unpack hook
/// turns that object back into a tensor whenever backward (or an inspection) needs it. They
/// are set for everything saved in a scope with `SavedTensorsHooks`, thread-locally, or on
/// one saved tensor with `SavedTensor::register_hooks` (reached through `Node::raw_saved`).

#include <any>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <gradc/autograd/tensor.hpp>

namespace gradc {
struct VersionCounter;
}

namespace gradc::autograd {

class Node;

/// `pack(const Tensor&) -> std::any`: must not modify its argument in place (an error).
using PackHook = std::function<std::any(const Tensor&)>;
/// `unpack(const std::any&) -> Tensor`: a tensor with the same content as the one packed;
/// its autograd metadata is ignored (the saved tensor's history is restored on it).
using UnpackHook = std::function<Tensor(const std::any&)>;

/// Not synchronised itself: the node that owns it reads and frees it under its mutex()
/// (apply, release_saved_variables, SavedTensor).
class SavedVariable {
public:
    SavedVariable() = default;
    /// `is_output`: `t` is an output of the node that saves it. The innermost
    /// `SavedTensorsHooks` of this thread, if any, packs `t` here.
    SavedVariable(const Tensor& t, bool is_output);

    /// The saved tensor. `saved_for` is the node that saved it (used to restore the
    /// grad_fn of a saved output and to name the node in errors).
    Tensor unpack(const std::shared_ptr<Node>& saved_for) const;
    /// Drops the data (and the packed object); a later unpack throws the retain_graph error.
    void reset_data();
    /// For the destructor of the node that owns it: hands the tensors and node it holds to
    /// Node::defer_release (node.hpp), so that freeing a long graph does not recurse.
    void defer_release() noexcept;
    bool was_freed() const { return freed_; }  ///< Whether backward freed it (retain_graph was false).
    bool defined() const { return defined_; }  ///< Whether a tensor was saved.
    bool has_hooks() const { return static_cast<bool>(unpack_hook_); }  ///< Whether saved-tensor hooks packed it.
    /// Packs the saved tensor now with `pack` and unpacks it with `unpack` from then on.
    /// Throws if the tensor was freed, is undefined, or already has hooks.
    void register_hooks(PackHook pack, UnpackHook unpack);
    /// Forward-mode AD: the tangent (at dual level `level`) that unpack gives back to a
    /// saved output or hooked tensor, which are new aliases without one.
    void set_forward_grad(Tensor tangent, std::uint64_t level);

private:
    void pack_with(const Tensor& t, const PackHook& pack, UnpackHook unpack);

    Tensor data_;                 // for outputs: an alias without autograd metadata
    std::shared_ptr<VersionCounter> version_;
    std::any packed_;             // what the pack hook returned (hooked tensors only)
    UnpackHook unpack_hook_;
    std::shared_ptr<Node> grad_fn_;             // a hooked non-leaf input's history
    std::weak_ptr<Node> grad_accumulator_;      // a hooked leaf input's AccumulateGrad
    Tensor fw_grad_;                            // see set_forward_grad
    std::uint64_t fw_level_ = 0;
    std::uint32_t saved_version_ = 0;
    std::uint32_t output_nr_ = 0;
    bool is_output_ = false;
    bool is_leaf_ = false;
    bool requires_grad_ = false;
    bool defined_ = false;
    bool freed_ = false;
};

/// A raw handle to one tensor saved by a node (PyTorch's `grad_fn._raw_saved_self`). It
/// keeps the node alive and takes the node's lock to use the tensor (so not from inside
/// that node's apply: a custom backward reads its tensors with get_saved_variables).
class SavedTensor {
public:
    /// A handle to the saved tensor `name` of `node`.
    SavedTensor(std::shared_ptr<Node> node, SavedVariable* var, std::string name)
        : node_(std::move(node)), var_(var), name_(std::move(name)) {}
    /// The pack hook runs at once; the unpack hook whenever the tensor is needed.
    /// Forbidden after the saved tensors were freed (backward without retain_graph).
    void register_hooks(PackHook pack, UnpackHook unpack);
    /// The saved tensor (through the unpack hook if any).
    Tensor unpack() const;
    const std::string& name() const { return name_; }  ///< The saved tensor's name.
    bool has_hooks() const { return var_->has_hooks(); }  ///< Whether saved-tensor hooks packed it.

private:
    std::shared_ptr<Node> node_;
    SavedVariable* var_;
    std::string name_;
};

/// RAII scope: every tensor saved for backward by this thread while the guard lives is
/// packed with `pack` and unpacked with `unpack`. Guards nest; the innermost wins. Other
/// threads are not affected.
class SavedTensorsHooks {
public:
    /// Installs the pack and unpack hooks for the scope (PyTorch's saved_tensors_hooks).
    SavedTensorsHooks(PackHook pack, UnpackHook unpack);
    ~SavedTensorsHooks();
    SavedTensorsHooks(const SavedTensorsHooks&) = delete;
    SavedTensorsHooks& operator=(const SavedTensorsHooks&) = delete;

    /// Whether this thread has an active guard.
    static bool is_enabled();
};

}  // namespace gradc::autograd
