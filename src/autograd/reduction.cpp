// Reductions. The kernel moves the reduced dimensions last (one contiguous copy) and
// reduces each run (reduce_rows.hpp); gradients broadcast the incoming gradient back
// over them.
#include <algorithm>
#include <cmath>
#include <limits>

#include <gradc/autograd/creation.hpp>
#include <gradc/autograd/elementwise.hpp>
#include <gradc/autograd/forward_ad.hpp>
#include <gradc/autograd/function.hpp>
#include <gradc/autograd/grad_mode.hpp>
#include <gradc/autograd/indexing.hpp>
#include <gradc/autograd/reduction.hpp>
#include <gradc/autograd/tensor_impl.hpp>
#include <gradc/autograd/view.hpp>

#include "internal.hpp"
#include "kernels/convert.hpp"
#include "kernels/simd.hpp"
#include "kernels/sum.hpp"
#include "reduce_rows.hpp"

namespace gradc {

using autograd::BackwardContext;
using autograd::ForwardContext;
using reduction_kernel::Plan;
using reduction_kernel::plan;
using reduction_kernel::reduce_raw;
using reduction_kernel::reduce_sum;

namespace {

// g with the reduced dimensions put back as size 1, then broadcast to `in`.
Tensor expand_back(const Tensor& g, const Shape& keep_sizes, const Shape& in) {
    return expand(reshape(g, keep_sizes), in);
}

}  // namespace

std::vector<bool> detail::reduced_dimensions(const Tensor& a, const Shape& dims, const char* op) {
    const std::int64_t n = a.dim();
    std::vector<bool> reduced(n, dims.empty());
    for (auto d : dims) {
        const std::int64_t w = detail::wrap_dim(d, n, op);
        if (n > 0) {
            if (reduced[w]) throw Error(std::string("gradc: ") + op + ": dim " + std::to_string(d) + " appears multiple times in " + shape_string(dims));
            reduced[w] = true;
        }
    }
    return reduced;
}

Tensor sum(const Tensor& a, const Shape& dims, bool keepdim) {
    detail::check_defined(a, "sum");  // first: dtype() would fail without naming the operation
    const ScalarType dt = kernels::float_type(a.dtype());
    Plan p = plan(a, dims, keepdim, "sum", dt);
    Tensor y = reduce_sum(p, dt, "sum", 1);
    const Shape keep = p.keep_sizes, in = a.sizes();
    return autograd::record_single_output("sum", {a}, y, {}, [keep, in](const tensor_list& g, const BackwardContext&) -> tensor_list {
        return {expand_back(g[0], keep, in)};
    }, [dims, keepdim](const tensor_list& t, const ForwardContext&) -> tensor_list { return {sum(t[0], dims, keepdim)}; });
}

Tensor mean(const Tensor& a, const Shape& dims, bool keepdim) {
    detail::check_defined(a, "mean");  // first: dtype() would fail without naming the operation
    const ScalarType dt = kernels::float_type(a.dtype());
    Plan p = plan(a, dims, keepdim, "mean", dt);
    const double count = static_cast<double>(p.inner);
    Tensor y = reduce_sum(p, dt, "mean", count);
    const Shape keep = p.keep_sizes, in = a.sizes();
    return autograd::record_single_output("mean", {a}, y, {}, [keep, in, count](const tensor_list& g, const BackwardContext&) -> tensor_list {
        return {expand_back(g[0] / count, keep, in)};
    }, [dims, keepdim](const tensor_list& t, const ForwardContext&) -> tensor_list { return {mean(t[0], dims, keepdim)}; });
}

namespace {

// The reduced dims of `in` (those `dims` names; all when empty) moved last, and the
// permutation that does it.
Shape reduced_last_order(const Shape& in, const Shape& dims) {
    std::vector<bool> reduced(in.size(), dims.empty());
    for (auto d : dims) reduced[static_cast<std::size_t>(d)] = true;
    Shape order;
    for (std::size_t i = 0; i < in.size(); ++i) if (!reduced[i]) order.push_back(static_cast<std::int64_t>(i));
    for (std::size_t i = 0; i < in.size(); ++i) if (reduced[i]) order.push_back(static_cast<std::int64_t>(i));
    return order;
}

// A tensor laid out with the reduced dims last (in `order`, see reduced_last_order) back
// in the dims of `in`.
Tensor undo_reduced_last(const Tensor& t, const Shape& in, const Shape& order) {
    Shape moved_sizes;
    for (auto i : order) moved_sizes.push_back(in[static_cast<std::size_t>(i)]);
    return permute(reshape(t, moved_sizes), detail::inverse_permutation(order));
}

// prod_others built from differentiable operations, for a backward that is itself being
// recorded (create_graph) when x has zeros: each run of n elements is copied n times with
// the j-th element replaced by 1, and each copy multiplied out. O(n²) work, used only there.
Tensor prod_others_differentiable(const Tensor& x, const Shape& in, const Shape& dims) {
    const Shape order = reduced_last_order(in, dims);
    Shape moved_sizes;
    for (auto i : order) moved_sizes.push_back(in[static_cast<std::size_t>(i)]);
    const std::size_t kept = in.size() - (dims.empty() ? in.size() : dims.size());
    std::int64_t n = 1;
    Shape runs(moved_sizes.begin(), moved_sizes.begin() + static_cast<std::ptrdiff_t>(kept));
    for (std::size_t i = kept; i < moved_sizes.size(); ++i) n *= moved_sizes[i];
    runs.push_back(n);
    Tensor r = reshape(permute(x, order), runs);                       // [..., n]
    Shape square = runs;
    square.insert(square.end() - 1, n);                                 // [..., n, n]
    Tensor copies = expand(unsqueeze(r, -2), square);
    Tensor diagonal = eye(n, dtype(kFloat32)) != 0.0;
    Tensor others = prod(where(diagonal, ones_like(copies), copies), -1);  // [..., n]
    return undo_reduced_last(others, in, order);
}

// ∂y/∂x for y = prod(x) over `dims`: for each element the product of the other elements
// of its run, shaped like x. It is y/x without zeros; with zeros y/x is 0/0, so prefix and
// suffix products along the run are used instead — or, when this backward is itself
// recorded, the differentiable construction above.
Tensor prod_others(const Tensor& x, const Tensor& y, const Shape& keep, const Shape& in, const Shape& dims) {
    Tensor y_kept = reshape(y, keep);
    if (!any(x == 0.0)) return y_kept / x;
    if (GradMode::is_enabled() && x.requires_grad()) return prod_others_differentiable(x, in, dims);
    NoGradGuard no_grad;
    Plan q = plan(x, dims, true, "prod backward", x.dtype());
    Tensor others = zeroed_tensor(q.data.sizes(), x.dtype());
    dispatch_floating(x.dtype(), "prod backward", [&](auto tag) {
        using T = typename decltype(tag)::type;
        const T* src = static_cast<const T*>(q.data.raw_data());
        T* dst = static_cast<T*>(others.raw_data());
        for (std::int64_t i = 0; i < q.outer; ++i) {
            const T* r = src + i * q.inner;
            T* o = dst + i * q.inner;
            T acc(1);
            for (std::int64_t j = 0; j < q.inner; ++j) { o[j] = acc; acc *= r[j]; }
            acc = T(1);
            for (std::int64_t j = q.inner; j-- > 0;) { o[j] *= acc; acc *= r[j]; }
        }
    });
    return undo_reduced_last(others, in, reduced_last_order(in, dims));
}

Tensor prod_impl(const Tensor& a, const Shape& dims, bool keepdim) {
    detail::check_defined(a, "prod");  // first: dtype() would fail without naming the operation
    const ScalarType dt = kernels::float_type(a.dtype());
    Plan p = plan(a, dims, keepdim, "prod", dt);
    Tensor y = reduce_raw(p, dt, "prod", [](const auto* x, std::int64_t n) {
        std::decay_t<decltype(*x)> acc(1);
        for (std::int64_t i = 0; i < n; ++i) acc *= x[i];
        return acc;
    });
    const Shape keep = p.keep_sizes, in = a.sizes(), d = dims;
    return autograd::record_single_output("prod", {a}, y, {a, y}, [keep, in, d](const tensor_list& g, const BackwardContext& ctx) -> tensor_list {
        return {expand_back(g[0], keep, in) * conj(prod_others(ctx.saved[0], ctx.saved[1], keep, in, d))};
    }, [keep, in, d, keepdim](const tensor_list& t, const ForwardContext& ctx) -> tensor_list {
        // dy = Σ (∂y/∂xᵢ)·dxᵢ over each run (holomorphic: no conjugate).
        return {sum(prod_others(ctx.inputs[0], ctx.outputs[0], keep, in, d) * t[0], d, keepdim)};
    });
}

// amax/amin: the gradient is shared evenly among the elements equal to the extremum.
Tensor extremum(const Tensor& a, const Shape& dims, bool keepdim, bool is_max, const char* op) {
    detail::check_defined(a, op);
    if (a.is_complex()) throw Error(std::string("gradc: ") + op + " is not defined for complex tensors, got " + detail::describe(a));
    const ScalarType dt = kernels::float_type(a.dtype());
    Plan p = plan(a, dims, keepdim, op, dt);
    if (p.inner == 0) throw Error(std::string("gradc: ") + op + ": cannot reduce over a zero-size dimension of " + detail::describe(a));
    Tensor y = reduce_raw(p, dt, op, [is_max](const auto* x, std::int64_t n) {
        using T = std::decay_t<decltype(*x)>;
        if constexpr (kernels::is_complex_v<T>) {
            return x[0];
        } else {
            T m = x[0];
            for (std::int64_t i = 0; i < n; ++i) {
                if (std::isnan(x[i])) return x[i];  // NaN propagates, as torch.amax
                m = is_max ? std::max(m, x[i]) : std::min(m, x[i]);
            }
            return m;
        }
    });
    const Shape keep = p.keep_sizes, in = a.sizes();
    Shape rdims;
    for (std::size_t i = 0; i < p.reduced.size(); ++i) if (p.reduced[i]) rdims.push_back(static_cast<std::int64_t>(i));
    return autograd::record_single_output(op, {a}, y, {a, y}, [keep, in, rdims](const tensor_list& g, const BackwardContext& ctx) -> tensor_list {
        Tensor mask = ctx.saved[0] == reshape(ctx.saved[1], keep);
        Tensor count = sum(where(mask, ones_like(ctx.saved[0]), zeros_like(ctx.saved[0])), rdims, true);
        Tensor share = expand_back(g[0], keep, in) / count;
        return {where(mask, share, zeros_like(share))};
    }, [keep, rdims, keepdim](const tensor_list& t, const ForwardContext& ctx) -> tensor_list {
        // The mean of the tangents at the extremal elements (PyTorch's amaxamin_jvp).
        const Tensor& x = ctx.inputs[0];
        Tensor mask = x == reshape(ctx.outputs[0], keep);
        Tensor count = sum(where(mask, ones_like(x), zeros_like(x)), rdims, keepdim);
        return {sum(where(mask, t[0], zeros_like(t[0])), rdims, keepdim) / count};
    });
}

// (values, indices) along one dim; the gradient goes to the index only.
std::tuple<Tensor, Tensor> extremum_dim(const Tensor& a, std::int64_t dim, bool keepdim, bool is_max, const char* op) {
    detail::check_defined(a, op);
    if (a.is_complex()) throw Error(std::string("gradc: ") + op + " is not defined for complex tensors, got " + detail::describe(a));
    const std::int64_t d = detail::wrap_dim(dim, a.dim(), op);
    const ScalarType dt = kernels::float_type(a.dtype());
    Plan p = plan(a, a.dim() == 0 ? Shape{} : Shape{d}, keepdim, op, dt);
    if (p.inner == 0) throw Error(std::string("gradc: ") + op + ": cannot reduce over a zero-size dimension of " + detail::describe(a));
    Tensor idx = reduce_raw(p, kInt64, op, [is_max](const auto* x, std::int64_t n) -> std::int64_t {
        using T = std::decay_t<decltype(*x)>;
        std::int64_t best = 0;
        if constexpr (!kernels::is_complex_v<T>) {
            for (std::int64_t i = 0; i < n; ++i) {
                if (std::isnan(x[i])) return i;
                if (is_max ? x[i] > x[best] : x[i] < x[best]) best = i;
            }
        }
        return best;
    });
    Tensor idx_keep = reshape(idx, p.keep_sizes);
    Tensor values;
    {
        NoGradGuard no_grad;
        autograd::forward_ad::detail::IgnoreTangents no_tangents;  // the record below gives the tangent
        // A fresh tensor (not a view of the gathered one) that gets the history below.
        Tensor g = gather(a, d, idx_keep);
        values = alias_with_geometry(g, p.out_sizes, contiguous_strides(p.out_sizes), g.storage_offset());
    }
    if (a.dim() == 0) values = a.detach().clone();
    const Shape keep = p.keep_sizes, in = a.sizes();
    values = autograd::record_single_output(op, {a, idx_keep}, values, {idx_keep}, [keep, in, d](const tensor_list& g, const BackwardContext& ctx) -> tensor_list {
        if (in.empty()) return {g[0], Tensor()};
        return {scatter_add(zeros(in, dtype(g[0].dtype())), d, ctx.saved[0], reshape(g[0], keep)), Tensor()};
    }, [in, d, out_sizes = p.out_sizes](const tensor_list& t, const ForwardContext& ctx) -> tensor_list {
        // The tangent at the selected index.
        if (in.empty()) return {t[0]};
        return {reshape(gather(t[0], d, ctx.inputs[1]), out_sizes)};
    });
    return {values, idx};
}

}  // namespace

Tensor prod(const Tensor& a) { return prod_impl(a, {}, false); }
Tensor prod(const Tensor& a, std::int64_t dim, bool keepdim) {
    return prod_impl(a, a.dim() == 0 ? Shape{} : Shape{detail::wrap_dim(dim, a.dim(), "prod")}, keepdim);
}
Tensor amax(const Tensor& a, const Shape& dims, bool keepdim) { return extremum(a, dims, keepdim, true, "amax"); }
Tensor amin(const Tensor& a, const Shape& dims, bool keepdim) { return extremum(a, dims, keepdim, false, "amin"); }
Tensor max(const Tensor& a) { return extremum(a, {}, false, true, "max"); }
Tensor min(const Tensor& a) { return extremum(a, {}, false, false, "min"); }
std::tuple<Tensor, Tensor> max(const Tensor& a, std::int64_t dim, bool keepdim) { return extremum_dim(a, dim, keepdim, true, "max"); }
std::tuple<Tensor, Tensor> min(const Tensor& a, std::int64_t dim, bool keepdim) { return extremum_dim(a, dim, keepdim, false, "min"); }
Tensor argmax(const Tensor& a, std::int64_t dim, bool keepdim) { return std::get<1>(max(a.detach(), dim, keepdim)); }
Tensor argmin(const Tensor& a, std::int64_t dim, bool keepdim) { return std::get<1>(min(a.detach(), dim, keepdim)); }

Tensor norm(const Tensor& a, double p) { return norm(a, p, {}, false); }

Tensor norm(const Tensor& a, double p, const Shape& dims, bool keepdim) {
    detail::check_defined(a, "norm");
    if (p != 2) {
        if (p == 1) return sum(abs(a), dims, keepdim);
        if (std::isinf(p)) return amax(abs(a), dims, keepdim);
        return pow(sum(pow(abs(a), p), dims, keepdim), 1.0 / p);
    }
    Tensor squares;
    {
        NoGradGuard no_grad;
        autograd::forward_ad::detail::IgnoreTangents no_tangents;
        squares = a.is_complex() ? real(a * conj(a)) : a * a;
    }
    const ScalarType dt = squares.dtype();
    Plan pl = plan(squares, dims, keepdim, "norm", dt);
    Tensor y = reduce_raw(pl, dt, "norm", [](const auto* x, std::int64_t n) { return std::sqrt(kernels::sum_run(x, n)); });
    const Shape keep = pl.keep_sizes, in = a.sizes();
    return autograd::record_single_output("norm", {a}, y, {a, y}, [keep, in](const tensor_list& g, const BackwardContext& ctx) -> tensor_list {
        // a/‖a‖, and 0 where ‖a‖ = 0 (the minimum-norm subgradient).
        Tensor y_kept = reshape(ctx.saved[1], keep);
        Tensor safe = where(y_kept == 0.0, ones_like(y_kept), y_kept);
        Tensor scale = where(y_kept == 0.0, zeros_like(y_kept), expand_back(g[0], keep, keep) / safe);
        return {ctx.saved[0] * scale};
    }, [dims, keepdim](const tensor_list& t, const ForwardContext& ctx) -> tensor_list {
        // d‖x‖ = Re(Σ conj(x)·dx)/‖x‖, and 0 where ‖x‖ = 0.
        const Tensor& y = ctx.outputs[0];
        Tensor d = sum(real(conj(ctx.inputs[0]) * t[0]), dims, keepdim) / where(y == 0.0, ones_like(y), y);
        return {where(y == 0.0, zeros_like(d), d)};
    });
}

Tensor logsumexp(const Tensor& a, const Shape& dims, bool keepdim) {
    detail::check_defined(a, "logsumexp");
    Tensor m = amax(a, dims, true).detach();
    m = where(isnan(m) | (abs(m) == std::numeric_limits<double>::infinity()), zeros_like(m), m);
    Tensor y = log(sum(exp(a - m), dims, true)) + m;
    if (keepdim) return y;
    Plan p = plan(a.detach(), dims, false, "logsumexp", kernels::float_type(a.dtype()));
    return reshape(y, p.out_sizes);
}

Tensor softmax(const Tensor& a, std::int64_t dim) {
    detail::check_defined(a, "softmax");
    const std::int64_t d = detail::wrap_dim(dim, a.dim(), "softmax");
    Tensor e = exp(a - amax(a, {d}, true).detach());
    return e / sum(e, {d}, true);
}

Tensor log_softmax(const Tensor& a, std::int64_t dim) {
    detail::check_defined(a, "log_softmax");
    const std::int64_t d = detail::wrap_dim(dim, a.dim(), "log_softmax");
    return a - logsumexp(a, {d}, true);
}

Tensor sum_to(const Tensor& a, const Shape& sizes) {
    if (a.sizes() == sizes) return a;
    const std::int64_t lead = a.dim() - static_cast<std::int64_t>(sizes.size());
    if (lead < 0) throw Error("gradc: sum_to: cannot sum " + detail::describe(a) + " to the larger shape " + shape_string(sizes));
    Shape dims;
    for (std::int64_t i = 0; i < a.dim(); ++i)
        if (i < lead || (sizes[i - lead] == 1 && a.sizes()[i] != 1)) dims.push_back(i);
    Tensor s = dims.empty() ? a : sum(a, dims, true);
    return reshape(s, sizes);
}

}  // namespace gradc
