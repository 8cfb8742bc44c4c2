// Matrix products with their gradients (ᴴ: conjugate transpose).
#include <gradc/autograd/creation.hpp>
#include <gradc/autograd/elementwise.hpp>
#include <gradc/autograd/function.hpp>
#include <gradc/autograd/linalg.hpp>
#include <gradc/autograd/reduction.hpp>
#include <gradc/autograd/tensor_impl.hpp>
#include <gradc/autograd/view.hpp>

#include "internal.hpp"
#include "kernels/gemm.hpp"

namespace gradc {

using autograd::BackwardContext;
using autograd::ForwardContext;

namespace {
// The JVP of a bilinear product p(a, b): p(ta, b) + p(a, tb), skipping missing tangents.
template <class P>
autograd::JvpFormula bilinear_jvp(P product) {
    return [product](const tensor_list& t, const ForwardContext& ctx) -> tensor_list {
        Tensor out;
        if (t[0].defined()) out = product(t[0], ctx.inputs[1]);
        if (t[1].defined()) {
            Tensor d = product(ctx.inputs[0], t[1]);
            out = out.defined() ? out + d : d;
        }
        return {out};
    };
}
}  // namespace

namespace {

void check_same_dtype(const Tensor& a, const Tensor& b, const char* op) {
    if (a.dtype() != b.dtype())
        throw Error(std::string("gradc: ") + op + ": expected both operands to have the same dtype, but got " +
                    detail::describe(a) + " and " + detail::describe(b));
    if (!is_differentiable_type(a.dtype()))
        throw Error(std::string("gradc: ") + op + " expects floating or complex tensors, got " + detail::describe(a));
}

/// The matrices of a product operand: `t` read as `batch` matrices of rows × cols. Its
/// last two dimensions are the matrix (a 1-D operand is one row or one column, as
/// `vector_is_row` says) and a 3-D operand's first dimension is the batch.
template <class T>
kernels::strided_matrices<T> matrices_of(const Tensor& t, bool vector_is_row) {
    const T* data = static_cast<const T*>(t.raw_data());
    switch (t.dim()) {
        case 1: return vector_is_row ? kernels::strided_matrices<T>{data, 0, 0, t.stride(0)}
                                     : kernels::strided_matrices<T>{data, 0, t.stride(0), 0};
        case 2: return {data, 0, t.stride(0), t.stride(1)};
        default: return {data, t.stride(0), t.stride(1), t.stride(2)};
    }
}

// batch × (m×k)·(k×n), no autograd. The operands are read in place through their strides
// (a transposed view is not copied).
Tensor batched_product(const Tensor& a, const Tensor& b, std::int64_t batch, std::int64_t m, std::int64_t k,
                       std::int64_t n, Shape out_sizes) {
    Tensor c = zeroed_tensor(out_sizes, a.dtype());
    dispatch_floating(a.dtype(), "matmul", [&](auto tag) {
        using T = typename decltype(tag)::type;
        kernels::gemm(matrices_of<T>(a, true), matrices_of<T>(b, false), static_cast<T*>(c.raw_data()), batch, m, k, n);
    });
    return c;
}

Tensor mH(const Tensor& t) { return conj(transpose(t, -2, -1)); }

}  // namespace

Tensor mm(const Tensor& a, const Tensor& b) {
    detail::check_defined(a, "mm");
    detail::check_defined(b, "mm");
    if (a.dim() != 2 || b.dim() != 2)
        throw Error("gradc: mm: expected 2-D matrices, got " + detail::describe(a) + " and " + detail::describe(b));
    if (a.size(1) != b.size(0))
        throw Error("gradc: mm: mat1 and mat2 shapes cannot be multiplied (" + std::to_string(a.size(0)) + "x" +
                    std::to_string(a.size(1)) + " and " + std::to_string(b.size(0)) + "x" + std::to_string(b.size(1)) + ")");
    check_same_dtype(a, b, "mm");
    Tensor y = batched_product(a, b, 1, a.size(0), a.size(1), b.size(1), {a.size(0), b.size(1)});
    return autograd::record_single_output("mm", {a, b}, y, {a, b}, [](const tensor_list& g, const BackwardContext& ctx) -> tensor_list {
        tensor_list out(2);
        if (ctx.needs(0)) out[0] = mm(g[0], mH(ctx.saved[1]));
        if (ctx.needs(1)) out[1] = mm(mH(ctx.saved[0]), g[0]);
        return out;
    }, bilinear_jvp([](const Tensor& x, const Tensor& y) { return mm(x, y); }));
}

Tensor bmm(const Tensor& a, const Tensor& b) {
    detail::check_defined(a, "bmm");
    detail::check_defined(b, "bmm");
    if (a.dim() != 3 || b.dim() != 3 || a.size(0) != b.size(0) || a.size(2) != b.size(1))
        throw Error("gradc: bmm: expected batches (b×n×k) and (b×k×m), got " + detail::describe(a) + " and " + detail::describe(b));
    check_same_dtype(a, b, "bmm");
    Tensor y = batched_product(a, b, a.size(0), a.size(1), a.size(2), b.size(2), {a.size(0), a.size(1), b.size(2)});
    return autograd::record_single_output("bmm", {a, b}, y, {a, b}, [](const tensor_list& g, const BackwardContext& ctx) -> tensor_list {
        tensor_list out(2);
        if (ctx.needs(0)) out[0] = bmm(g[0], mH(ctx.saved[1]));
        if (ctx.needs(1)) out[1] = bmm(mH(ctx.saved[0]), g[0]);
        return out;
    }, bilinear_jvp([](const Tensor& x, const Tensor& y) { return bmm(x, y); }));
}

Tensor mv(const Tensor& a, const Tensor& v) {
    detail::check_defined(a, "mv");
    detail::check_defined(v, "mv");
    if (a.dim() != 2 || v.dim() != 1 || a.size(1) != v.size(0))
        throw Error("gradc: mv: expected a matrix (n×k) and a vector (k), got " + detail::describe(a) + " and " + detail::describe(v));
    check_same_dtype(a, v, "mv");
    Tensor y = batched_product(a, v, 1, a.size(0), a.size(1), 1, {a.size(0)});
    return autograd::record_single_output("mv", {a, v}, y, {a, v}, [](const tensor_list& g, const BackwardContext& ctx) -> tensor_list {
        tensor_list out(2);
        if (ctx.needs(0)) out[0] = outer(g[0], conj(ctx.saved[1]));
        if (ctx.needs(1)) out[1] = mv(mH(ctx.saved[0]), g[0]);
        return out;
    }, bilinear_jvp([](const Tensor& x, const Tensor& y) { return mv(x, y); }));
}

Tensor dot(const Tensor& a, const Tensor& b) {
    detail::check_defined(a, "dot");
    detail::check_defined(b, "dot");
    if (a.dim() != 1 || b.dim() != 1 || a.size(0) != b.size(0))
        throw Error("gradc: dot: expected two 1-D tensors of the same size, got " + detail::describe(a) + " and " + detail::describe(b));
    check_same_dtype(a, b, "dot");
    Tensor y = batched_product(a, b, 1, 1, a.size(0), 1, {});
    return autograd::record_single_output("dot", {a, b}, y, {a, b}, [](const tensor_list& g, const BackwardContext& ctx) -> tensor_list {
        tensor_list out(2);
        if (ctx.needs(0)) out[0] = g[0] * conj(ctx.saved[1]);
        if (ctx.needs(1)) out[1] = g[0] * conj(ctx.saved[0]);
        return out;
    }, bilinear_jvp([](const Tensor& x, const Tensor& y) { return dot(x, y); }));
}

Tensor outer(const Tensor& a, const Tensor& b) {
    detail::check_defined(a, "outer");
    detail::check_defined(b, "outer");
    if (a.dim() != 1 || b.dim() != 1)
        throw Error("gradc: outer: expected two 1-D tensors, got " + detail::describe(a) + " and " + detail::describe(b));
    return unsqueeze(a, 1) * unsqueeze(b, 0);
}

Tensor matmul(const Tensor& a, const Tensor& b) {
    detail::check_defined(a, "matmul");
    detail::check_defined(b, "matmul");
    const auto a_dims = a.dim(), b_dims = b.dim();
    if (a_dims == 0 || b_dims == 0)
        throw Error("gradc: matmul: both arguments need at least 1 dimension, got " + detail::describe(a) + " and " + detail::describe(b));
    if (a_dims == 1 && b_dims == 1) return dot(a, b);
    if (a_dims == 2 && b_dims == 1) return mv(a, b);
    if (a_dims == 1 && b_dims == 2) return squeeze(mm(unsqueeze(a, 0), b), 0);
    if (a_dims == 2 && b_dims == 2) return mm(a, b);
    // Batched: broadcast the batch dimensions, then one bmm.
    Tensor a3 = a_dims == 1 ? unsqueeze(a, 0) : a;
    Tensor b3 = b_dims == 1 ? unsqueeze(b, 1) : b;
    const Shape a_batch(a3.sizes().begin(), a3.sizes().end() - 2), b_batch(b3.sizes().begin(), b3.sizes().end() - 2);
    const Shape batch = broadcast_shapes(a_batch, b_batch, "matmul");
    const std::int64_t n = a3.size(-2), k = a3.size(-1), k2 = b3.size(-2), m = b3.size(-1);
    if (k != k2)
        throw Error("gradc: matmul: shapes " + shape_string(a.sizes()) + " and " + shape_string(b.sizes()) +
                    " cannot be multiplied (" + std::to_string(k) + " vs " + std::to_string(k2) + ")");
    Shape a_expanded = batch, b_expanded = batch;
    a_expanded.insert(a_expanded.end(), {n, k});
    b_expanded.insert(b_expanded.end(), {k, m});
    const std::int64_t batch_numel = shape_numel(batch);
    Tensor y = bmm(reshape(expand(a3, a_expanded), {batch_numel, n, k}),
                   reshape(expand(b3, b_expanded), {batch_numel, k, m}));
    Shape out = batch;
    if (a_dims > 1) out.push_back(n);
    if (b_dims > 1) out.push_back(m);
    return reshape(y, out);
}

}  // namespace gradc
