#pragma once
/// What a Tensor handle points to: geometry over a shared storage, plus the autograd
/// metadata. Library-internal, but public so that extensions (custom functions, hooks)
/// can reach it.

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include <gradc/autograd/storage.hpp>
#include <gradc/autograd/tensor.hpp>

namespace gradc {

/// Autograd state of one tensor. A leaf owns only a weak reference to its
/// AccumulateGrad node (the node owns the leaf), so the graph has no cycles.
struct AutogradMeta {
    Tensor grad;
    std::shared_ptr<autograd::Node> grad_fn;
    std::weak_ptr<autograd::Node> grad_accumulator;
    std::uint32_t output_nr = 0;
    bool requires_grad = false;  // meaningful for leaves; non-leaves follow grad_fn
    bool retains_grad = false;
    // Views: the root tensor whose storage this one looks at, and the version at which
    // grad_fn was last made consistent with the base's history (see views.cpp).
    Tensor base;
    std::uint32_t view_version = 0;
    // Hooks of a leaf (a non-leaf's tensor hooks live on its grad_fn), by registration id.
    std::vector<std::pair<std::uint64_t, autograd::TensorHook>> hooks;
    std::vector<std::pair<std::uint64_t, std::function<void(const Tensor&)>>> post_accumulate_grad_hooks;
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
    std::unique_ptr<AutogradMeta> autograd;

    AutogradMeta& meta();  // created on first use
    std::byte* data() const { return storage->data() + offset * static_cast<std::int64_t>(element_size(dtype)); }
    bool is_contiguous() const;
};

/// Row-major strides for `sizes`.
Shape contiguous_strides(const Shape& sizes);
std::int64_t shape_numel(const Shape& sizes);
/// `[2, 3]`, for error messages.
std::string shape_string(const Shape& sizes);

/// A new contiguous tensor filled with zeros, with no history.
Tensor empty_tensor(const Shape& sizes, ScalarType dtype);
/// The same without the zero fill, for kernels that write every element.
Tensor uninitialized_tensor(const Shape& sizes, ScalarType dtype);
/// A tensor sharing `base`'s storage and version counter with the given geometry, no history.
Tensor alias_with_geometry(const Tensor& base, Shape sizes, Shape strides, std::int64_t offset);

}  // namespace gradc
