// Joining (cat, stack) and integer indexing (index_select, gather and their adjoints
// index_add, scatter_add).
#include <algorithm>

#include <gradc/autograd/creation.hpp>
#include <gradc/autograd/elementwise.hpp>
#include <gradc/autograd/function.hpp>
#include <gradc/autograd/indexing.hpp>
#include <gradc/autograd/tensor_impl.hpp>
#include <gradc/autograd/view.hpp>

#include "internal.hpp"

namespace gradc {

using autograd::BackwardContext;
using autograd::ForwardContext;

namespace {

Tensor index_vector(const Tensor& index, const char* op) {
    detail::check_defined(index, op);
    if (index.dtype() != kInt64) throw Error(std::string("gradc: ") + op + ": index must be an int64 tensor, got " + detail::describe(index));
    return detail::contiguous_as(index, kInt64);
}

void check_range(std::int64_t i, std::int64_t size, const char* op, std::int64_t dim) {
    if (i < -size || i >= size)
        throw Error(std::string("gradc: ") + op + ": index " + std::to_string(i) + " is out of bounds for dimension " +
                    std::to_string(dim) + " with size " + std::to_string(size));
}

// Slice `i` of `dim` of t as a raw alias (no autograd).
Tensor raw_select(const Tensor& t, std::int64_t dim, std::int64_t i) {
    Shape s = t.sizes(), st = t.strides();
    const std::int64_t off = t.storage_offset() + i * st[dim];
    s.erase(s.begin() + dim);
    st.erase(st.begin() + dim);
    return alias_with_geometry(t, s, st, off);
}

// A row-major tensor seen as [outer, size of dim, inner]: the fast loops below walk it so,
// where the general ones build an alias per slice or recompute each element's coordinates
// (a hundred times slower per element on a bundle-adjustment gather).
struct around_dim {
    std::int64_t outer = 1, size = 1, inner = 1;
};

around_dim split_at(const Shape& sizes, std::int64_t dim) {
    around_dim r;
    for (std::int64_t k = 0; k < std::int64_t(sizes.size()); ++k) {
        if (k < dim) r.outer *= sizes[std::size_t(k)];
        else if (k > dim) r.inner *= sizes[std::size_t(k)];
    }
    r.size = sizes[std::size_t(dim)];
    return r;
}

// Every index in range, before anything is written.
void check_all(const std::int64_t* idx, std::int64_t n, std::int64_t size, const char* op, std::int64_t dim) {
    for (std::int64_t i = 0; i < n; ++i) check_range(idx[i], size, op, dim);
}

std::int64_t wrapped(std::int64_t i, std::int64_t size) { return i < 0 ? i + size : i; }

// The shapes of gather's index and its source agree outside `dim`: the loops can then walk
// both as [outer, ·, inner].
bool same_outside(const Shape& a, const Shape& b, std::int64_t dim) {
    if (a.size() != b.size()) return false;
    for (std::size_t k = 0; k < a.size(); ++k)
        if (std::int64_t(k) != dim && a[k] != b[k]) return false;
    return true;
}

// For each row of a contiguous tensor seen as [outer, size, inner] that `idx` picks (n
// indices, all checked first): f(offset of the picked row, offset of row i in a tensor of
// [outer, n, inner]). Rows are `inner` elements long.
template <class F>
void for_each_selected_row(const around_dim& shape, const std::int64_t* idx, std::int64_t n, const char* op,
                           std::int64_t dim, F f) {
    check_all(idx, n, shape.size, op, dim);
    for (std::int64_t o = 0; o < shape.outer; ++o)
        for (std::int64_t i = 0; i < n; ++i)
            f((o * shape.size + wrapped(idx[i], shape.size)) * shape.inner, (o * n + i) * shape.inner);
}

// For each element of `index` (same rank as t), calls f(offset in t of the addressed
// element, linear position in index/src).
template <class F>
void for_each_indexed(const Tensor& t, std::int64_t dim, const Tensor& index, const char* op, F f) {
    const auto* idx = index.data_ptr<std::int64_t>();
    if (t.dim() > 0 && t.is_contiguous() && same_outside(t.sizes(), index.sizes(), dim)) {
        // Both walked as [outer, ·, inner], every index checked before the first call.
        const around_dim shape = split_at(t.sizes(), dim);
        const std::int64_t m = index.sizes()[std::size_t(dim)];
        check_all(idx, index.numel(), shape.size, op, dim);
        for (std::int64_t o = 0; o < shape.outer; ++o)
            for (std::int64_t j = 0; j < m; ++j) {
                const std::int64_t at = (o * m + j) * shape.inner;
                for (std::int64_t k = 0; k < shape.inner; ++k)
                    f((o * shape.size + wrapped(idx[at + k], shape.size)) * shape.inner + k, at + k);
            }
        return;
    }
    const Shape& is = index.sizes();
    const std::int64_t nd = index.dim();
    Shape coord(nd, 0);
    for (std::int64_t lin = 0; lin < index.numel(); ++lin) {
        std::int64_t offset = 0;
        for (std::int64_t d = 0; d < nd; ++d) {
            std::int64_t c = coord[d];
            if (d == dim) {
                c = idx[lin];
                check_range(c, t.sizes()[d], op, d);
                if (c < 0) c += t.sizes()[d];
            }
            offset += c * t.strides()[d];
        }
        f(offset, lin);
        for (std::int64_t d = nd - 1; d >= 0; --d) {
            if (++coord[d] < is[d]) break;
            coord[d] = 0;
        }
    }
}

void check_gather_shapes(const Tensor& t, std::int64_t dim, const Tensor& index, const char* op) {
    if (index.dim() != t.dim())
        throw Error(std::string("gradc: ") + op + ": index " + detail::describe(index) + " must have the same number of dimensions as " + detail::describe(t));
    for (std::int64_t d = 0; d < t.dim(); ++d)
        if (d != dim && index.sizes()[d] > t.sizes()[d])
            throw Error(std::string("gradc: ") + op + ": size of index " + shape_string(index.sizes()) + " exceeds the size of " +
                        shape_string(t.sizes()) + " at dimension " + std::to_string(d));
}

}  // namespace

Tensor cat(const tensor_list& tensors, std::int64_t dim) {
    if (tensors.empty()) throw Error("gradc: cat: expected a non-empty list of tensors");
    for (const auto& t : tensors) detail::check_defined(t, "cat");
    const Tensor& first = tensors[0];
    if (first.dim() == 0) throw Error("gradc: cat: zero-dimensional tensor cannot be concatenated");
    const std::int64_t d = detail::wrap_dim(dim, first.dim(), "cat");
    ScalarType dt = first.dtype();
    std::int64_t total = 0;
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        const Tensor& t = tensors[i];
        if (t.dim() != first.dim())
            throw Error("gradc: cat: tensors must have the same number of dimensions: got " + detail::describe(first) + " and " + detail::describe(t) + " (tensor " + std::to_string(i) + ")");
        for (std::int64_t k = 0; k < t.dim(); ++k)
            if (k != d && t.sizes()[k] != first.sizes()[k])
                throw Error("gradc: cat: sizes of tensors must match except in dimension " + std::to_string(d) + ": expected size " +
                            std::to_string(first.sizes()[k]) + " but got size " + std::to_string(t.sizes()[k]) + " for tensor number " +
                            std::to_string(i) + " in the list");
        dt = promote_types(dt, t.dtype());
        total += t.sizes()[d];
    }
    Shape out_sizes = first.sizes();
    out_sizes[d] = total;
    Tensor out = zeroed_tensor(out_sizes, dt);
    std::vector<std::int64_t> offsets;
    std::int64_t offset = 0;
    for (const auto& t : tensors) {
        offsets.push_back(offset);
        Shape out_strides = out.strides();
        Shape piece_sizes = t.sizes();
        detail::copy_into(alias_with_geometry(out, piece_sizes, out_strides, offset * out_strides[d]), t);
        offset += t.sizes()[d];
    }
    std::vector<std::int64_t> lengths;
    for (const auto& t : tensors) lengths.push_back(t.sizes()[d]);
    return autograd::record_single_output("cat", tensors, out, {}, [d, offsets, lengths](const tensor_list& g, const BackwardContext& ctx) -> tensor_list {
        tensor_list res(offsets.size());
        for (std::size_t i = 0; i < offsets.size(); ++i)
            if (ctx.needs(i)) res[i] = narrow(g[0], d, offsets[i], lengths[i]);
        return res;
    }, [d](const tensor_list& t, const ForwardContext& ctx) -> tensor_list {
        tensor_list parts;
        for (std::size_t i = 0; i < t.size(); ++i) parts.push_back(t[i].defined() ? t[i] : zeros_like(ctx.inputs[i]));
        return {cat(parts, d)};
    });
}

Tensor stack(const tensor_list& tensors, std::int64_t dim) {
    if (tensors.empty()) throw Error("gradc: stack: expected a non-empty list of tensors");
    const std::int64_t d = detail::wrap_dim(dim, tensors[0].dim() + 1, "stack");
    tensor_list u;
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        if (tensors[i].sizes() != tensors[0].sizes())
            throw Error("gradc: stack: expects each tensor to be equal size, but got " + shape_string(tensors[0].sizes()) +
                        " at entry 0 and " + shape_string(tensors[i].sizes()) + " at entry " + std::to_string(i));
        u.push_back(unsqueeze(tensors[i], d));
    }
    return cat(u, d);
}

Tensor index_select(const Tensor& a, std::int64_t dim, const Tensor& index_in) {
    detail::check_defined(a, "index_select");
    Tensor index = index_vector(index_in, "index_select");
    if (index.dim() > 1) throw Error("gradc: index_select: index should have 1 dimension, got " + detail::describe(index));
    const std::int64_t d = detail::wrap_dim(dim, a.dim(), "index_select");
    const std::int64_t n = index.numel();
    Shape out_sizes = a.sizes();
    if (a.dim() > 0) out_sizes[d] = n;
    const auto* idx = index.data_ptr<std::int64_t>();
    Tensor out;
    if (a.dim() > 0 && a.is_contiguous()) {
        const around_dim shape = split_at(a.sizes(), d);
        out = uninitialized_tensor(out_sizes, a.dtype());
        dispatch(a.dtype(), [&](auto tag) {
            using T = typename decltype(tag)::type;
            const T* src = static_cast<const T*>(a.raw_data());
            T* dst = static_cast<T*>(out.raw_data());
            for_each_selected_row(shape, idx, n, "index_select", d, [&](std::int64_t picked, std::int64_t at) {
                std::copy_n(src + picked, shape.inner, dst + at);
            });
        });
    } else {
        out = zeroed_tensor(out_sizes, a.dtype());
        for (std::int64_t i = 0; i < n; ++i) {
            const std::int64_t size = a.dim() > 0 ? a.sizes()[d] : 1;
            check_range(idx[i], size, "index_select", d);
            if (a.dim() == 0) detail::copy_into(out, a);
            else detail::copy_into(raw_select(out, d, i), raw_select(a, d, idx[i] < 0 ? idx[i] + size : idx[i]));
        }
    }
    const Shape in = a.sizes();
    return autograd::record_single_output("index_select", {a, index}, out, {index}, [in, d](const tensor_list& g, const BackwardContext& ctx) -> tensor_list {
        return {index_add(zeros(in, dtype(g[0].dtype())), d, ctx.saved[0], g[0]), Tensor()};
    }, [d](const tensor_list& t, const ForwardContext& ctx) -> tensor_list { return {index_select(t[0], d, ctx.inputs[1])}; });
}

Tensor index_add(const Tensor& self, std::int64_t dim, const Tensor& index_in, const Tensor& src) {
    detail::check_defined(self, "index_add");
    detail::check_defined(src, "index_add");
    Tensor index = index_vector(index_in, "index_add");
    const std::int64_t d = detail::wrap_dim(dim, self.dim(), "index_add");
    Shape expect = self.sizes();
    if (self.dim() > 0) expect[d] = index.numel();
    if (src.sizes() != expect)
        throw Error("gradc: index_add: source " + detail::describe(src) + " should have shape " + shape_string(expect));
    Tensor out = detail::copy_as(self, promote_types(self.dtype(), src.dtype()));
    const auto* idx = index.data_ptr<std::int64_t>();
    const std::int64_t n = index.numel();
    if (self.dim() > 0 && out.is_contiguous() && out.dtype() != kBool) {
        const around_dim shape = split_at(out.sizes(), d);
        const Tensor s = detail::contiguous_as(src, out.dtype());
        dispatch(out.dtype(), [&](auto tag) {
            using T = typename decltype(tag)::type;
            if constexpr (!std::is_same_v<T, bool>) {
                const T* ps = static_cast<const T*>(s.raw_data());
                T* po = static_cast<T*>(out.raw_data());
                for_each_selected_row(shape, idx, n, "index_add", d, [&](std::int64_t picked, std::int64_t at) {
                    for (std::int64_t k = 0; k < shape.inner; ++k) po[picked + k] += ps[at + k];
                });
            }
        });
    } else {
        for (std::int64_t i = 0; i < n; ++i) {
            check_range(idx[i], self.sizes()[d], "index_add", d);
            const std::int64_t j = idx[i] < 0 ? idx[i] + self.sizes()[d] : idx[i];
            detail::add_into(raw_select(out, d, j), raw_select(src, d, i));
        }
    }
    return autograd::record_single_output("index_add", {self, index, src}, out, {index}, [d](const tensor_list& g, const BackwardContext& ctx) -> tensor_list {
        tensor_list r(3);
        if (ctx.needs(0)) r[0] = g[0];
        if (ctx.needs(2)) r[2] = index_select(g[0], d, ctx.saved[0]);
        return r;
    }, [d](const tensor_list& t, const ForwardContext& ctx) -> tensor_list {
        const Tensor& self = ctx.inputs[0];
        if (!t[2].defined()) return {t[0]};
        return {index_add(t[0].defined() ? t[0] : zeros_like(self), d, ctx.inputs[1], t[2])};
    });
}

Tensor gather(const Tensor& a, std::int64_t dim, const Tensor& index_in) {
    detail::check_defined(a, "gather");
    Tensor index = index_vector(index_in, "gather");
    const std::int64_t d = detail::wrap_dim(dim, a.dim(), "gather");
    check_gather_shapes(a, d, index, "gather");
    Tensor out = uninitialized_tensor(index.sizes(), a.dtype());  // every element written, or an error
    dispatch(a.dtype(), [&](auto tag) {
        using T = typename decltype(tag)::type;
        const T* src = static_cast<const T*>(a.raw_data());
        T* dst = static_cast<T*>(out.raw_data());
        for_each_indexed(a, d, index, "gather", [&](std::int64_t off, std::int64_t lin) { dst[lin] = src[off]; });
    });
    const Shape in = a.sizes();
    return autograd::record_single_output("gather", {a, index}, out, {index}, [in, d](const tensor_list& g, const BackwardContext& ctx) -> tensor_list {
        return {scatter_add(zeros(in, dtype(g[0].dtype())), d, ctx.saved[0], g[0]), Tensor()};
    }, [d](const tensor_list& t, const ForwardContext& ctx) -> tensor_list { return {gather(t[0], d, ctx.inputs[1])}; });
}

Tensor scatter_add(const Tensor& self, std::int64_t dim, const Tensor& index_in, const Tensor& src) {
    detail::check_defined(self, "scatter_add");
    detail::check_defined(src, "scatter_add");
    Tensor index = index_vector(index_in, "scatter_add");
    const std::int64_t d = detail::wrap_dim(dim, self.dim(), "scatter_add");
    check_gather_shapes(self, d, index, "scatter_add");
    if (src.sizes() != index.sizes())
        throw Error("gradc: scatter_add: source " + detail::describe(src) + " must have the shape of index " + shape_string(index.sizes()));
    Tensor out = detail::copy_as(self, promote_types(self.dtype(), src.dtype()));
    Tensor s = detail::contiguous_as(src, out.dtype());
    dispatch(out.dtype(), [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (!std::is_same_v<T, bool>) {
            const T* ps = static_cast<const T*>(s.raw_data());
            T* po = static_cast<T*>(out.raw_data());
            for_each_indexed(out, d, index, "scatter_add", [&](std::int64_t off, std::int64_t lin) { po[off] += ps[lin]; });
        }
    });
    return autograd::record_single_output("scatter_add", {self, index, src}, out, {index}, [d](const tensor_list& g, const BackwardContext& ctx) -> tensor_list {
        tensor_list r(3);
        if (ctx.needs(0)) r[0] = g[0];
        if (ctx.needs(2)) r[2] = gather(g[0], d, ctx.saved[0]);
        return r;
    }, [d](const tensor_list& t, const ForwardContext& ctx) -> tensor_list {
        const Tensor& self = ctx.inputs[0];
        if (!t[2].defined()) return {t[0]};
        return {scatter_add(t[0].defined() ? t[0] : zeros_like(self), d, ctx.inputs[1], t[2])};
    });
}

}  // namespace gradc
