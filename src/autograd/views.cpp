// View operations: new geometry over the same storage, each with the inverse
// rearrangement as gradient.
#include <algorithm>
#include <numeric>

#include <gradc/autograd/creation.hpp>
#include <gradc/autograd/function.hpp>
#include <gradc/autograd/reduction.hpp>
#include <gradc/autograd/tensor_impl.hpp>
#include <gradc/autograd/view.hpp>

#include "internal.hpp"
#include "view_history.hpp"

namespace gradc {

using autograd::BackwardContext;
using autograd::ForwardContext;
using detail::make_view;
using detail::wrap_dim;

Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op) {
    const std::size_t n = std::max(a.size(), b.size());
    Shape out(n);
    for (std::size_t i = 0; i < n; ++i) {
        const std::int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
        const std::int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
        if (da != db && da != 1 && db != 1)
            throw Error(std::string("gradc: ") + op + ": shapes " + shape_string(a) + " and " + shape_string(b) +
                        " cannot be broadcast together (dimension " + std::to_string(i) + ": " + std::to_string(da) +
                        " vs " + std::to_string(db) + "; expected equal sizes or one of them 1)");
        out[i] = da == 1 ? db : da;
    }
    return out;
}

namespace {

Shape infer_size(const Shape& sizes, std::int64_t numel, const char* op) {
    Shape out = sizes;
    std::int64_t known = 1, infer = -1;
    for (std::size_t i = 0; i < out.size(); ++i) {
        if (out[i] == -1) {
            if (infer >= 0) throw Error(std::string("gradc: ") + op + ": only one dimension can be inferred, got " + shape_string(sizes));
            infer = static_cast<std::int64_t>(i);
        } else if (out[i] < 0) {
            throw Error(std::string("gradc: ") + op + ": invalid shape " + shape_string(sizes));
        } else {
            known *= out[i];
        }
    }
    if (infer >= 0) {
        if (known == 0 || numel % known != 0)
            throw Error(std::string("gradc: ") + op + ": shape " + shape_string(sizes) + " is invalid for input of size " + std::to_string(numel));
        out[infer] = numel / known;
    } else if (known != numel) {
        throw Error(std::string("gradc: ") + op + ": shape " + shape_string(sizes) + " is invalid for input of size " + std::to_string(numel));
    }
    return out;
}

// Strides for viewing `t` with `sizes`, or nothing when the memory layout does not allow
// it. Groups of input dimensions that are contiguous with each other may be merged and
// split freely.
std::optional<Shape> view_strides(const Tensor& t, const Shape& sizes) {
    if (t.is_contiguous()) return contiguous_strides(sizes);
    const Shape& old_sizes = t.sizes();
    const Shape& old_strides = t.strides();
    Shape out(sizes.size());
    std::int64_t view_d = static_cast<std::int64_t>(sizes.size()) - 1;
    std::int64_t chunk_base_stride = old_strides.empty() ? 1 : old_strides.back();
    std::int64_t tensor_numel = 1, view_numel = 1;
    for (std::int64_t d = static_cast<std::int64_t>(old_sizes.size()) - 1; d >= 0; --d) {
        tensor_numel *= old_sizes[d];
        if (d == 0 || (old_sizes[d - 1] != 1 && old_strides[d - 1] != tensor_numel * chunk_base_stride)) {
            while (view_d >= 0 && (view_numel < tensor_numel || sizes[view_d] == 1)) {
                out[view_d] = view_numel * chunk_base_stride;
                view_numel *= sizes[view_d];
                --view_d;
            }
            if (view_numel != tensor_numel) return std::nullopt;
            if (d > 0) {
                chunk_base_stride = old_strides[d - 1];
                tensor_numel = 1;
                view_numel = 1;
            }
        }
    }
    if (view_d != -1) return std::nullopt;
    return out;
}

}  // namespace

Tensor view(const Tensor& a, const Shape& sizes) {
    detail::check_defined(a, "view");
    const Shape s = infer_size(sizes, a.numel(), "view");
    auto strides = view_strides(a, s);
    if (!strides)
        throw Error("gradc: view: size " + shape_string(s) + " is not compatible with input tensor's size " +
                    shape_string(a.sizes()) + " and stride " + shape_string(a.strides()) +
                    " (at least one dimension spans across two contiguous subspaces). Use reshape() instead.");
    Tensor v = make_view(a, s, *strides, a.storage_offset());
    const Shape in = a.sizes();
    return autograd::record_single_output("view", {a}, v, {}, [in](const tensor_list& g, const BackwardContext&) -> tensor_list {
        return {reshape(g[0], in)};
    }, [s](const tensor_list& t, const ForwardContext&) -> tensor_list { return {view(t[0], s)}; });
}

Tensor reshape(const Tensor& a, const Shape& sizes) {
    detail::check_defined(a, "reshape");
    const Shape s = infer_size(sizes, a.numel(), "reshape");
    if (view_strides(a, s)) return view(a, s);
    // The copy is private, so the result is not a view of anything (PyTorch's _unsafe_view).
    Tensor c = a.contiguous();
    Tensor r = alias_with_geometry(c, s, contiguous_strides(s), c.storage_offset());
    const Shape in = a.sizes();
    return autograd::record_single_output("reshape", {c}, r, {}, [in](const tensor_list& g, const BackwardContext&) -> tensor_list {
        return {reshape(g[0], in)};
    }, [s](const tensor_list& t, const ForwardContext&) -> tensor_list { return {reshape(t[0], s)}; });
}

Tensor flatten(const Tensor& a) { return reshape(a, {-1}); }

namespace detail {
Shape inverse_permutation(const Shape& p) {
    Shape q(p.size());
    for (std::size_t i = 0; i < p.size(); ++i) q[static_cast<std::size_t>(p[i])] = static_cast<std::int64_t>(i);
    return q;
}
}  // namespace detail

Tensor permute(const Tensor& a, const Shape& dims) {
    detail::check_defined(a, "permute");
    const std::int64_t n = a.dim();
    if (static_cast<std::int64_t>(dims.size()) != n)
        throw Error("gradc: permute: number of dims " + std::to_string(dims.size()) + " don't match the tensor's " +
                    std::to_string(n) + " dimensions " + shape_string(a.sizes()));
    Shape p(n), sizes(n), strides(n), inverse(n);
    std::vector<bool> seen(n, false);
    for (std::int64_t i = 0; i < n; ++i) {
        p[i] = wrap_dim(dims[i], n, "permute");
        if (seen[p[i]]) throw Error("gradc: permute: repeated dim in " + shape_string(dims));
        seen[p[i]] = true;
        sizes[i] = a.sizes()[p[i]];
        strides[i] = a.strides()[p[i]];
        inverse[p[i]] = i;
    }
    Tensor v = make_view(a, sizes, strides, a.storage_offset());
    return autograd::record_single_output("permute", {a}, v, {}, [inverse](const tensor_list& g, const BackwardContext&) -> tensor_list {
        return {permute(g[0], inverse)};
    }, [p](const tensor_list& t, const ForwardContext&) -> tensor_list { return {permute(t[0], p)}; });
}

Tensor transpose(const Tensor& a, std::int64_t d0, std::int64_t d1) {
    detail::check_defined(a, "transpose");
    const std::int64_t n = a.dim();
    Shape p(std::max<std::int64_t>(n, 0));
    std::iota(p.begin(), p.end(), 0);
    if (n == 0) return permute(a, p);
    std::swap(p[wrap_dim(d0, n, "transpose")], p[wrap_dim(d1, n, "transpose")]);
    return permute(a, p);
}

Tensor t(const Tensor& a) {
    detail::check_defined(a, "t");
    if (a.dim() > 2) throw Error("gradc: t() expects a tensor with <= 2 dimensions, but got " + detail::describe(a));
    return a.dim() < 2 ? permute(a, a.dim() == 1 ? Shape{0} : Shape{}) : transpose(a, 0, 1);
}

namespace {
// slice, narrow and select pick along a dimension; a 0-dim tensor has none (wrap_dim
// accepts 0 and -1 there for the reductions' sake), so they refuse it as PyTorch does.
void require_dimensions(const Tensor& a, const char* op) {
    if (a.dim() == 0) throw Error(std::string("gradc: ") + op + "() cannot be applied to a 0-dim tensor");
}
}  // namespace

Tensor slice(const Tensor& a, std::int64_t dim, std::optional<std::int64_t> start_in, std::optional<std::int64_t> end_in,
             std::int64_t step) {
    detail::check_defined(a, "slice");
    require_dimensions(a, "slice");
    const std::int64_t d = wrap_dim(dim, a.dim(), "slice");
    if (step <= 0) throw Error("gradc: slice: step must be positive, got " + std::to_string(step));
    const std::int64_t len = a.sizes()[d];
    std::int64_t start = start_in.value_or(0), end = end_in.value_or(len);
    if (start < 0) start += len;
    if (end < 0) end += len;
    start = std::clamp<std::int64_t>(start, 0, len);
    end = std::clamp<std::int64_t>(end, start, len);
    Shape sizes = a.sizes(), strides = a.strides();
    sizes[d] = (end - start + step - 1) / step;
    strides[d] *= step;
    Tensor v = make_view(a, sizes, strides, a.storage_offset() + start * a.strides()[d]);
    const Shape in = a.sizes();
    return autograd::record_single_output("slice", {a}, v, {}, [in, d, start, step](const tensor_list& g, const BackwardContext&) -> tensor_list {
        const Shape contiguous = contiguous_strides(in);
        Shape view_strides = contiguous;
        view_strides[d] *= step;
        return {detail::embed_strided(g[0], in, g[0].sizes(), view_strides, start * contiguous[d])};
    }, [d, start, end, step](const tensor_list& t, const ForwardContext&) -> tensor_list { return {slice(t[0], d, start, end, step)}; });
}

Tensor narrow(const Tensor& a, std::int64_t dim, std::int64_t start, std::int64_t length) {
    detail::check_defined(a, "narrow");
    require_dimensions(a, "narrow");
    const std::int64_t d = wrap_dim(dim, a.dim(), "narrow");
    const std::int64_t len = a.sizes()[d];
    if (start < 0) start += len;
    if (start < 0 || length < 0 || start + length > len)
        throw Error("gradc: narrow: start (" + std::to_string(start) + ") + length (" + std::to_string(length) +
                    ") exceeds dimension size (" + std::to_string(len) + ") of " + detail::describe(a));
    return slice(a, d, start, start + length, 1);
}

Tensor select(const Tensor& a, std::int64_t dim, std::int64_t index) {
    detail::check_defined(a, "select");
    require_dimensions(a, "select");
    const std::int64_t d = wrap_dim(dim, a.dim(), "select");
    const std::int64_t len = a.sizes()[d];
    if (index < -len || index >= len)
        throw Error("gradc: select: index " + std::to_string(index) + " is out of bounds for dimension " +
                    std::to_string(d) + " with size " + std::to_string(len) + " of " + detail::describe(a));
    if (index < 0) index += len;
    Shape sizes = a.sizes(), strides = a.strides();
    sizes.erase(sizes.begin() + d);
    strides.erase(strides.begin() + d);
    Tensor v = make_view(a, sizes, strides, a.storage_offset() + index * a.strides()[d]);
    const Shape in = a.sizes();
    return autograd::record_single_output("select", {a}, v, {}, [in, d, index](const tensor_list& g, const BackwardContext&) -> tensor_list {
        const Shape contiguous = contiguous_strides(in);
        Shape view_strides = contiguous;
        view_strides.erase(view_strides.begin() + d);
        return {detail::embed_strided(g[0], in, g[0].sizes(), view_strides, index * contiguous[d])};
    }, [d, index](const tensor_list& t, const ForwardContext&) -> tensor_list { return {select(t[0], d, index)}; });
}

Tensor expand(const Tensor& a, const Shape& sizes_in) {
    detail::check_defined(a, "expand");
    if (sizes_in.size() < static_cast<std::size_t>(a.dim()))
        throw Error("gradc: expand: the number of sizes provided (" + std::to_string(sizes_in.size()) +
                    ") must be greater or equal to the number of dimensions in the tensor " + detail::describe(a));
    const std::size_t n = sizes_in.size(), lead = n - a.sizes().size();
    Shape sizes(n), strides(n, 0);
    for (std::size_t i = 0; i < n; ++i) {
        const std::int64_t want = sizes_in[i];
        if (i < lead) {
            if (want < 0) throw Error("gradc: expand: -1 is not allowed in a leading, non-existing dimension " + shape_string(sizes_in));
            sizes[i] = want;
            continue;
        }
        const std::int64_t have = a.sizes()[i - lead];
        if (want == -1 || want == have) {
            sizes[i] = have;
            strides[i] = a.strides()[i - lead];
        } else if (have == 1) {
            sizes[i] = want;
        } else {
            throw Error("gradc: expand: the expanded size of the tensor (" + std::to_string(want) +
                        ") must match the existing size (" + std::to_string(have) + ") at non-singleton dimension " +
                        std::to_string(i) + ". Target sizes: " + shape_string(sizes_in) + ". Tensor sizes: " +
                        shape_string(a.sizes()));
        }
    }
    Tensor v = make_view(a, sizes, strides, a.storage_offset());
    const Shape in = a.sizes();
    return autograd::record_single_output("expand", {a}, v, {}, [in](const tensor_list& g, const BackwardContext&) -> tensor_list {
        return {sum_to(g[0], in)};
    }, [sizes_in](const tensor_list& t, const ForwardContext&) -> tensor_list { return {expand(t[0], sizes_in)}; });
}

Tensor expand_as(const Tensor& a, const Tensor& other) { return expand(a, other.sizes()); }

namespace {
// `jvp` applies the same operation to the tangent.
Tensor reshape_view(const Tensor& a, Shape sizes, Shape strides, const char* name, autograd::JvpFormula jvp) {
    Tensor v = make_view(a, std::move(sizes), std::move(strides), a.storage_offset());
    const Shape in = a.sizes();
    return autograd::record_single_output(name, {a}, v, {}, [in](const tensor_list& g, const BackwardContext&) -> tensor_list {
        return {reshape(g[0], in)};
    }, std::move(jvp));
}
}  // namespace

Tensor squeeze(const Tensor& a) {
    detail::check_defined(a, "squeeze");
    Shape sizes, strides;
    for (std::int64_t i = 0; i < a.dim(); ++i)
        if (a.sizes()[i] != 1) {
            sizes.push_back(a.sizes()[i]);
            strides.push_back(a.strides()[i]);
        }
    return reshape_view(a, sizes, strides, "squeeze", [](const tensor_list& t, const ForwardContext&) -> tensor_list {
        return {squeeze(t[0])};
    });
}

Tensor squeeze(const Tensor& a, std::int64_t dim) {
    detail::check_defined(a, "squeeze");
    auto jvp = [dim](const tensor_list& t, const ForwardContext&) -> tensor_list { return {squeeze(t[0], dim)}; };
    if (a.dim() == 0) return reshape_view(a, {}, {}, "squeeze", jvp);
    const std::int64_t d = wrap_dim(dim, a.dim(), "squeeze");
    Shape sizes = a.sizes(), strides = a.strides();
    if (sizes[d] == 1) {
        sizes.erase(sizes.begin() + d);
        strides.erase(strides.begin() + d);
    }
    return reshape_view(a, sizes, strides, "squeeze", jvp);
}

Tensor unsqueeze(const Tensor& a, std::int64_t dim) {
    detail::check_defined(a, "unsqueeze");
    const std::int64_t d = wrap_dim(dim, a.dim() + 1, "unsqueeze");
    Shape sizes = a.sizes(), strides = a.strides();
    const std::int64_t st = d < a.dim() ? sizes[d] * strides[d] : 1;
    sizes.insert(sizes.begin() + d, 1);
    strides.insert(strides.begin() + d, st);
    return reshape_view(a, sizes, strides, "unsqueeze", [d](const tensor_list& t, const ForwardContext&) -> tensor_list {
        return {unsqueeze(t[0], d)};
    });
}

Tensor alias(const Tensor& a) {
    detail::check_defined(a, "alias");
    Tensor v = make_view(a, a.sizes(), a.strides(), a.storage_offset());
    return autograd::record_single_output("alias", {a}, v, {}, [](const tensor_list& g, const BackwardContext&) -> tensor_list {
        return {g[0]};
    }, [](const tensor_list& t, const ForwardContext&) -> tensor_list { return {alias(t[0])}; });
}

}  // namespace gradc
