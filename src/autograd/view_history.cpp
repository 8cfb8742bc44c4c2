// Views and in-place operations ("Autograd mechanics" notes, "In-place correctness
// checks"): a view remembers its root base; an in-place operation on a view gives the base
// a new history ("the base with the view's region replaced", PyTorch's CopySlices) and
// every view of that base regenerates its grad_fn from the base when it next needs it.
#include <algorithm>
#include <optional>

#include <gradc/autograd/creation.hpp>
#include <gradc/autograd/elementwise.hpp>
#include <gradc/autograd/forward_ad.hpp>
#include <gradc/autograd/function.hpp>
#include <gradc/autograd/grad_mode.hpp>
#include <gradc/autograd/tensor_impl.hpp>
#include <gradc/autograd/view.hpp>

#include "internal.hpp"
#include "view_history.hpp"

namespace gradc {

using autograd::BackwardContext;
using autograd::ForwardContext;
using autograd::forward_ad::detail::IgnoreTangents;

namespace detail {

Tensor embed_strided(const Tensor& g, const Shape& base_sizes, const Shape& sizes, const Shape& strides, std::int64_t offset) {
    Tensor out = zeroed_tensor(base_sizes, g.dtype());
    add_into(alias_with_geometry(out, sizes, strides, offset), g);
    return autograd::record_single_output("as_strided_scatter", {g}, out, {},
                             [sizes, strides, offset](const tensor_list& gg, const BackwardContext&) -> tensor_list {
                                 Tensor c = gg[0].contiguous();
                                 return {as_strided(c, sizes, strides, c.storage_offset() + offset)};
                             },
                             [base_sizes, sizes, strides, offset](const tensor_list& t, const ForwardContext&) -> tensor_list {
                                 return {embed_strided(t[0], base_sizes, sizes, strides, offset)};
                             });
}

Tensor make_view(const Tensor& input, Shape sizes, Shape strides, std::int64_t offset) {
    Tensor v = alias_with_geometry(input, std::move(sizes), std::move(strides), offset);
    auto& meta = v.unsafeGetTensorImpl()->meta();
    meta.base = input.is_view() ? input._base() : input;
    meta.view_version = input._version();
    return v;
}

// A base's memory layout as a permutation of a contiguous one: `order` makes
// permute(base, order) contiguous with sizes `dense_sizes`. Views are described by
// storage strides, so gradients are embedded in that contiguous arrangement and permuted
// back to the base's dims. Bases with gaps or overlaps have no such layout.
struct DenseLayout {
    Shape order, inverse, dense_sizes;
    Tensor to_base(const Tensor& dense) const { return permute(dense, inverse); }
    Tensor to_dense(const Tensor& g) const { return permute(g, order).contiguous(); }
};

std::optional<DenseLayout> dense_layout(const Tensor& base) {
    const std::size_t n = static_cast<std::size_t>(base.dim());
    DenseLayout l;
    l.order.resize(n);
    for (std::size_t i = 0; i < n; ++i) l.order[i] = static_cast<std::int64_t>(i);
    std::stable_sort(l.order.begin(), l.order.end(),
                     [&](std::int64_t a, std::int64_t b) { return base.stride(a) > base.stride(b); });
    Shape permuted_strides;
    for (auto d : l.order) {
        l.dense_sizes.push_back(base.size(d));
        permuted_strides.push_back(base.stride(d));
    }
    if (!is_contiguous_geometry(l.dense_sizes, permuted_strides)) return std::nullopt;
    l.inverse = inverse_permutation(l.order);
    return l;
}

// Reached from requires_grad() and grad_fn(), so from any thread that uses a shared view:
// the first to see it stale regenerates grad_fn under the tensor's lock and publishes the
// new view_version last (release), so that a thread seeing that version (acquire) also
// sees the new grad_fn.
void refresh_view_history(TensorImpl& impl) {
    AutogradMeta& meta = *impl.autograd;
    if (!meta.base.defined() || impl.version->current() == meta.view_version.load(std::memory_order_acquire)) return;
    std::lock_guard<std::mutex> lock(meta.mutex);
    const std::uint32_t current = impl.version->current();
    if (current == meta.view_version.load(std::memory_order_relaxed)) return;
    struct Publish {
        std::atomic<std::uint32_t>& to;
        std::uint32_t version;
        ~Publish() { to.store(version, std::memory_order_release); }
    } publish{meta.view_version, current};
    const Tensor base = meta.base;
    if (!base.requires_grad()) return;
    const Tensor& b = base;
    const auto layout = dense_layout(b);
    if (!layout) return;  // rebase_view_history refused such bases already
    Tensor alias = alias_with_geometry(base, impl.sizes, impl.strides, impl.offset);
    AutoGradMode enable(true);
    IgnoreTangents no_tangents;  // a history rewrite: the view's tangent is the base's (forward_ad.cpp)
    const Shape sizes = impl.sizes, strides = impl.strides;
    const std::int64_t rel = impl.offset - b.storage_offset();
    autograd::record("as_strided", {base}, {alias}, {},
                     [l = *layout, sizes, strides, rel](const tensor_list& g, const BackwardContext&) -> tensor_list {
                         return {l.to_base(embed_strided(g[0], l.dense_sizes, sizes, strides, rel))};
                     });
    meta.grad_fn = alias.grad_fn();
    meta.output_nr = 0;
}

void rebase_view_history(const Tensor& self, const Tensor& result) {
    const Tensor base = self._base();
    const auto layout = dense_layout(base);
    if (!layout)
        throw Error("gradc: in-place operation on a view of " + describe(base) + " with strides " +
                    shape_string(base.strides()) +
                    ": autograd needs the base's elements to fill its storage without gaps or overlaps "
                    "(a permutation of a contiguous layout); make the base contiguous() first");
    const Shape sizes = self.sizes(), strides = self.strides();
    const std::int64_t rel = self.storage_offset() - base.storage_offset();
    // The base's new value is its old value with the view's region replaced by `result`
    // (its tangent is updated by the in-place operation itself).
    IgnoreTangents no_tangents;
    autograd::record("copy_slices", {base, result}, {base}, {},
                     [l = *layout, sizes, strides, rel](const tensor_list& g, const BackwardContext& ctx) -> tensor_list {
                         tensor_list out(2);
                         Tensor grad_dense = l.to_dense(g[0]);
                         if (ctx.needs(0)) {
                             Tensor region = embed_strided(ones(sizes, dtype(kFloat32)), l.dense_sizes, sizes, strides, rel);
                             out[0] = l.to_base(where(region != 0.0, zeros_like(grad_dense), grad_dense));
                         }
                         if (ctx.needs(1)) out[1] = as_strided(grad_dense, sizes, strides, grad_dense.storage_offset() + rel);
                         return out;
                     });
}

}  // namespace detail

Tensor as_strided(const Tensor& a, const Shape& sizes, const Shape& strides, std::int64_t storage_offset) {
    detail::check_defined(a, "as_strided");
    if (sizes.size() != strides.size())
        throw Error("gradc: as_strided: got " + std::to_string(sizes.size()) + " sizes and " + std::to_string(strides.size()) + " strides");
    std::int64_t last = storage_offset;
    for (std::size_t i = 0; i < sizes.size(); ++i) last += (sizes[i] - 1) * strides[i];
    const auto capacity = static_cast<std::int64_t>(a.unsafeGetTensorImpl()->storage->nbytes() / element_size(a.dtype()));
    if (storage_offset < 0 || (shape_numel(sizes) > 0 && last >= capacity))
        throw Error("gradc: as_strided: geometry " + shape_string(sizes) + "/" + shape_string(strides) + "+" +
                    std::to_string(storage_offset) + " is out of bounds for a storage of " + std::to_string(capacity) + " elements");
    Tensor v = detail::make_view(a, sizes, strides, storage_offset);
    if (!autograd::should_record({&a})) return v;
    if (autograd::compute_requires_grad({&a}) && !a.is_contiguous())
        throw Error("gradc: as_strided: differentiating through as_strided needs a contiguous input, got strides " +
                    shape_string(a.strides()));
    const Shape in = a.sizes();
    const std::int64_t rel = storage_offset - a.storage_offset();
    return autograd::record_single_output("as_strided", {a}, v, {}, [in, sizes, strides, rel](const tensor_list& g, const BackwardContext&) -> tensor_list {
        return {detail::embed_strided(g[0], in, sizes, strides, rel)};
    }, [sizes, strides, rel](const tensor_list& t, const ForwardContext&) -> tensor_list {
        // The tangent has the input's layout: the same geometry relative to its offset.
        return {as_strided(t[0], sizes, strides, t[0].storage_offset() + rel)};
    });
}

}  // namespace gradc
