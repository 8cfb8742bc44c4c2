// Views and in-place operations (autograd notes, "In-place correctness checks"): a view
// remembers its root base; an in-place operation on a view gives the base a new history
// ("the base with the view's region replaced", PyTorch's CopySlices) and every view of
// that base regenerates its grad_fn from the base when it next needs it.
#include <gradc/autograd/creation.hpp>
#include <gradc/autograd/elementwise.hpp>
#include <gradc/autograd/function.hpp>
#include <gradc/autograd/grad_mode.hpp>
#include <gradc/autograd/view.hpp>

#include "internal.hpp"
#include "view_history.hpp"

namespace gradc {

using autograd::BackwardContext;

namespace detail {

Tensor embed_strided(const Tensor& g, const Shape& base_sizes, const Shape& sizes, const Shape& strides, std::int64_t offset) {
    Tensor out = empty_tensor(base_sizes, g.dtype());
    add_into(alias_with_geometry(out, sizes, strides, offset), g);
    return autograd::record1("as_strided_scatter", {g}, out, {},
                             [sizes, strides, offset](const tensor_list& gg, const BackwardContext&) -> tensor_list {
                                 Tensor c = gg[0].contiguous();
                                 return {as_strided(c, sizes, strides, c.storage_offset() + offset)};
                             });
}

Tensor make_view(const Tensor& input, Shape sizes, Shape strides, std::int64_t offset) {
    Tensor v = alias_with_geometry(input, std::move(sizes), std::move(strides), offset);
    auto& meta = v.unsafeGetTensorImpl()->meta();
    meta.base = input.is_view() ? input._base() : input;
    meta.view_version = input._version();
    return v;
}

void refresh_view_history(TensorImpl& impl) {
    AutogradMeta& meta = *impl.autograd;
    if (!meta.base.defined() || impl.version->current() == meta.view_version) return;
    meta.view_version = impl.version->current();
    const Tensor base = meta.base;
    if (!base.requires_grad()) return;
    const Tensor& b = base;
    if (!b.is_contiguous()) return;  // rebase_view_history refused such bases already
    Tensor alias = alias_with_geometry(base, impl.sizes, impl.strides, impl.offset);
    AutoGradMode enable(true);
    const Shape base_sizes = b.sizes(), sizes = impl.sizes, strides = impl.strides;
    const std::int64_t rel = impl.offset - b.storage_offset();
    autograd::record("as_strided", {base}, {alias}, {},
                     [base_sizes, sizes, strides, rel](const tensor_list& g, const BackwardContext&) -> tensor_list {
                         return {embed_strided(g[0], base_sizes, sizes, strides, rel)};
                     });
    meta.grad_fn = alias.grad_fn();
    meta.output_nr = 0;
}

void rebase_view_history(const Tensor& self, const Tensor& result) {
    const Tensor base = self._base();
    if (!base.is_contiguous())
        throw Error("gradc: in-place operation on a view of a non-contiguous tensor " + describe(base) +
                    " is not supported by autograd; make the base contiguous() first");
    const Shape base_sizes = base.sizes(), sizes = self.sizes(), strides = self.strides();
    const std::int64_t rel = self.storage_offset() - base.storage_offset();
    // The base's new value is its old value with the view's region replaced by `result`.
    autograd::record("copy_slices", {base, result}, {base}, {},
                     [base_sizes, sizes, strides, rel](const tensor_list& g, const BackwardContext& ctx) -> tensor_list {
                         tensor_list out(2);
                         Tensor gc = g[0].contiguous();
                         if (ctx.needs(0)) {
                             Tensor region = embed_strided(ones(sizes, dtype(kFloat32)), base_sizes, sizes, strides, rel);
                             out[0] = where(region != 0.0, zeros_like(gc), gc);
                         }
                         if (ctx.needs(1)) out[1] = as_strided(gc, sizes, strides, gc.storage_offset() + rel);
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
    if (!autograd::compute_requires_grad({&a})) return v;
    if (!a.is_contiguous())
        throw Error("gradc: as_strided: differentiating through as_strided needs a contiguous input, got strides " +
                    shape_string(a.strides()));
    const Shape in = a.sizes();
    const std::int64_t rel = storage_offset - a.storage_offset();
    return autograd::record1("as_strided", {a}, v, {}, [in, sizes, strides, rel](const tensor_list& g, const BackwardContext&) -> tensor_list {
        return {detail::embed_strided(g[0], in, sizes, strides, rel)};
    });
}

}  // namespace gradc
