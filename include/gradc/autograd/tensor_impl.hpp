#pragma once
/// \file
/// What a Tensor handle points to: geometry over a shared storage, plus the autograd
/// metadata. Library-internal, but public so that extensions (custom functions, hooks)
/// can reach it.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include <gradc/autograd/hook_list.hpp>
#include <gradc/autograd/storage.hpp>
#include <gradc/autograd/tensor.hpp>

namespace gradc {

/// Autograd state of one tensor. A leaf owns only a weak reference to its
/// AccumulateGrad node (the node owns the leaf), so the graph has no cycles.
struct AutogradMeta {
    Tensor grad;
    // Where a backward pass keeps `grad`'s values before it adds into them in place, so
    // that a pass that fails can put them back; kept between passes (no allocation per
    // pass), lent to one pass at a time. Guarded, as `grad`, by AccumulateGrad::accumulate's lock.
    Tensor grad_undo_buffer;
    bool grad_undo_buffer_lent = false;
    std::shared_ptr<autograd::Node> grad_fn;
    std::weak_ptr<autograd::Node> grad_accumulator;
    std::uint32_t output_nr = 0;
    bool requires_grad = false;  // meaningful for leaves; non-leaves follow grad_fn
    bool retains_grad = false;
    // Views: the root tensor whose storage this one looks at, and the version at which
    // grad_fn was last made consistent with the base's history (see views.cpp). Atomic:
    // readers compare it without the lock, the thread that regenerates grad_fn stores it
    // last (view_history.cpp).
    Tensor base;
    std::atomic<std::uint32_t> view_version{0};
    // Hooks of a leaf (a non-leaf's tensor hooks live on its grad_fn).
    autograd::hook_list<autograd::TensorHook> hooks;
    autograd::hook_list<std::function<void(const Tensor&)>> post_accumulate_grad_hooks;
    // Every register_hook on this tensor in order, so that LibTorch's
    // `remove_hook(position)` finds the hook a position stands for.
    std::vector<autograd::RemovableHandle> registered_hooks;
    // Forward-mode AD (forward_ad.hpp): the tangent, valid only while dual level
    // `fw_level` is the active one.
    Tensor fw_grad;
    std::uint64_t fw_level = 0;
    // Guards, against concurrent backward passes and hook registrations: grad_accumulator
    // (created once), the hook lists, retains_grad, a view's regenerated grad_fn, and the
    // gradient of a non-leaf (a leaf's is guarded by its AccumulateGrad's lock). Never
    // held while user code runs (docs/dynamic.md, "Threads").
    std::mutex mutex;
};

/// A TensorImpl's AutogradMeta, constructed on first use inside the TensorImpl itself:
/// a tensor recorded by an operation needs no heap block of its own for it.
class LazyAutogradMeta {
public:
    LazyAutogradMeta() = default;
    ~LazyAutogradMeta() { reset(); }
    LazyAutogradMeta(const LazyAutogradMeta&) = delete;
    LazyAutogradMeta& operator=(const LazyAutogradMeta&) = delete;

    explicit operator bool() const { return meta_ != nullptr; }
    AutogradMeta* get() const { return meta_; }
    AutogradMeta* operator->() const { return meta_; }
    AutogradMeta& operator*() const { return *meta_; }
    AutogradMeta& emplace() {
        reset();
        meta_ = ::new (static_cast<void*>(slot_)) AutogradMeta();
        return *meta_;
    }
    void reset() {
        if (meta_) std::exchange(meta_, nullptr)->~AutogradMeta();
    }

private:
    AutogradMeta* meta_ = nullptr;
    alignas(AutogradMeta) unsigned char slot_[sizeof(AutogradMeta)];
};

class TensorImpl {
public:
    TensorImpl(std::shared_ptr<Storage> storage, std::shared_ptr<VersionCounter> version,
               ScalarType dtype, Shape sizes, Shape strides, std::int64_t offset);

    std::shared_ptr<Storage> storage;
    std::shared_ptr<VersionCounter> version;
    ScalarType dtype;
    Shape sizes;
    Shape strides;
    std::int64_t offset;
    std::int64_t numel;
    bool wrapped_number = false;  // a C++ scalar turned into a 0-dim tensor
    bool inference = false;       // created inside InferenceMode
    LazyAutogradMeta autograd;

    // Created on first use, without a lock: only writers create it (set_requires_grad,
    // set_history on a new output, mutable_grad); every reader checks `autograd` first.
    AutogradMeta& meta();
    std::byte* data() const { return storage->data() + offset * static_cast<std::int64_t>(element_size(dtype)); }
    bool is_contiguous() const;
};

/// Whether `strides` are row-major for `sizes` (dims of size 1 may have any stride).
bool is_contiguous_geometry(const Shape& sizes, const Shape& strides);
/// Row-major strides for `sizes`.
Shape contiguous_strides(const Shape& sizes);
std::int64_t shape_numel(const Shape& sizes);
/// `[2, 3]`, for error messages.
std::string shape_string(const Shape& sizes);

/// A new contiguous tensor filled with zeros, with no history.
Tensor zeroed_tensor(const Shape& sizes, ScalarType dtype);
/// The same without the zero fill, for kernels that write every element (what the
/// public `gradc::empty` returns, as LibTorch's `empty`).
Tensor uninitialized_tensor(const Shape& sizes, ScalarType dtype);
/// A tensor sharing `base`'s storage and version counter with the given geometry, no history.
Tensor alias_with_geometry(const Tensor& base, Shape sizes, Shape strides, std::int64_t offset);

}  // namespace gradc
