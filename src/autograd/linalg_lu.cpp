// The operations computed through LU with partial pivoting: solve, inv and logdet, with
// their gradients and tangents (Giles, "An extended collection of matrix derivative
// results for forward and reverse mode algorithmic differentiation", 2008, §2.2). The
// formulas are written with matmul, solve and inv themselves, so they differentiate again.
#include <cmath>
#include <limits>
#include <vector>

#include <gradc/autograd/elementwise.hpp>
#include <gradc/autograd/function.hpp>
#include <gradc/autograd/grad_mode.hpp>
#include <gradc/autograd/linalg.hpp>
#include <gradc/autograd/linalg_decompositions.hpp>
#include <gradc/autograd/reduction.hpp>
#include <gradc/autograd/tensor_impl.hpp>
#include <gradc/autograd/view.hpp>

#include "internal.hpp"
#include "kernels/factor.hpp"
#include "square_matrices.hpp"

namespace gradc {

using autograd::BackwardContext;
using autograd::ForwardContext;
using detail::mT;

namespace {

// Calls f(lu, perm, info, s) for the LU factors of every matrix s of A (a fresh copy
// factored in place; `perm` as kernels::lu_factor gives it).
template <class T, class F>
void for_each_lu(const Tensor& A, F&& f) {
    const std::int64_t n = A.size(-1), count = shape_numel(detail::batch_shape(A));
    Tensor lu = detail::copy_as(A.detach(), A.dtype());
    T* p = static_cast<T*>(lu.raw_data());
    std::vector<std::int64_t> perm(static_cast<std::size_t>(n));
    for (std::int64_t s = 0; s < count; ++s) {
        const std::int64_t info = kernels::lu_factor(p + s * n * n, perm.data(), n);
        f(static_cast<const T*>(p + s * n * n), perm.data(), info, s);
    }
}

// A⁻¹, throwing for a singular A when `check_errors` (linalg.inv, as torch's linalg_inv_ex
// with check_errors); logdet's formulas call it without, so that a singular A gives the
// infinities PyTorch's gradient has instead of an error in the middle of backward.
Tensor inverse(const Tensor& A, bool check_errors) {
    const std::int64_t n = detail::check_square(A, "linalg.inv").n;
    Tensor X = zeroed_tensor(A.sizes(), A.dtype());
    {
        NoGradGuard no_grad;
        detail::dispatch_real(A.dtype(), [&](auto tag) {
            using T = typename decltype(tag)::type;
            T* px = static_cast<T*>(X.raw_data());
            for_each_lu<T>(A, [&](const T* lu, const std::int64_t* perm, std::int64_t info, std::int64_t s) {
                if (info != 0 && check_errors)
                    throw Error("gradc: linalg.inv: " + detail::batch_element(A, s) + "The diagonal element " +
                                std::to_string(info) +
                                " is zero, the inversion could not be completed because the input matrix is singular.");
                T* x = px + s * n * n;
                for (std::int64_t i = 0; i < n; ++i) x[i * n + i] = T(1);
                kernels::lu_solve(lu, perm, x, n, n);
            });
        });
    }
    return autograd::record_single_output("linalg_inv", {A}, X, {X}, [](const tensor_list& g, const BackwardContext& ctx) -> tensor_list {
        const Tensor& X = ctx.saved[0];
        return {-matmul(mT(X), matmul(g[0], mT(X)))};  // Giles (2008), §2.2: Ā = −Xᵀ X̄ Xᵀ
    }, [](const tensor_list& t, const ForwardContext& ctx) -> tensor_list {
        const Tensor& X = ctx.outputs[0];
        return {-matmul(X, matmul(t[0], X))};  // Ẋ = −X Ȧ X
    });
}

// torch.linalg.solve's rule: B is a vector (or a batch of vectors) when it is 1-D or has
// exactly A's shape without the last dimension; otherwise a (batch of) n×k matrices.
bool is_vector_rhs(const Tensor& A, const Tensor& B) {
    return B.dim() == 1 || (B.dim() == A.dim() - 1 && B.sizes() == Shape(A.sizes().begin(), A.sizes().end() - 1));
}

}  // namespace

Tensor linalg::solve(const Tensor& A, const Tensor& B) {
    const char* op = "linalg.solve";
    const std::int64_t n = detail::check_square(A, op).n;
    detail::check_operand(A, B, op, 1);
    // A vector right-hand side is a one-column matrix, through differentiable views.
    if (is_vector_rhs(A, B)) return squeeze(solve(A, unsqueeze(B, -1)), -1);
    if (B.size(-2) != n)
        throw Error(std::string("gradc: ") + op + ": Incompatible shapes of A and B for the equation AX = B (" +
                    std::to_string(n) + "x" + std::to_string(n) + " and " + std::to_string(B.size(-2)) + "x" +
                    std::to_string(B.size(-1)) + "), got " + detail::describe(A) + " and " + detail::describe(B));
    const Shape batch = broadcast_shapes(detail::batch_shape(A), detail::batch_shape(B), op);
    if (detail::batch_shape(A) != batch || detail::batch_shape(B) != batch)
        return solve(expand(A, detail::with_matrix(batch, n, n)), expand(B, detail::with_matrix(batch, n, B.size(-1))));
    const std::int64_t k = B.size(-1);
    Tensor X = detail::copy_as(B.detach(), B.dtype());  // solved in place
    {
        NoGradGuard no_grad;
        detail::dispatch_real(A.dtype(), [&](auto tag) {
            using T = typename decltype(tag)::type;
            T* px = static_cast<T*>(X.raw_data());
            for_each_lu<T>(A, [&](const T* lu, const std::int64_t* perm, std::int64_t info, std::int64_t s) {
                if (info != 0)
                    throw Error("gradc: linalg.solve: " + detail::batch_element(A, s) +
                                "The solver failed because the input matrix is singular.");
                kernels::lu_solve(lu, perm, px + s * n * k, n, k);
            });
        });
    }
    return autograd::record_single_output("linalg_solve", {A, B}, X, {A, X}, [](const tensor_list& g, const BackwardContext& ctx) -> tensor_list {
        const Tensor &A = ctx.saved[0], &X = ctx.saved[1];
        // X = A⁻¹B: gB = A⁻ᵀ gX, gA = −gB Xᵀ (Giles 2008, §2.2).
        const Tensor gB = solve(mT(A), g[0]);
        tensor_list out(2);
        if (ctx.needs(0)) out[0] = -matmul(gB, mT(X));
        if (ctx.needs(1)) out[1] = gB;
        return out;
    }, [](const tensor_list& t, const ForwardContext& ctx) -> tensor_list {
        const Tensor &A = ctx.inputs[0], &X = ctx.outputs[0];
        Tensor rhs = t[1];  // Ẋ = A⁻¹(Ḃ − Ȧ X)
        if (t[0].defined()) rhs = rhs.defined() ? rhs - matmul(t[0], X) : -matmul(t[0], X);
        return {solve(A, rhs)};
    });
}

Tensor linalg::inv(const Tensor& A) { return inverse(A, true); }

Tensor linalg_solve(const Tensor& A, const Tensor& B) { return linalg::solve(A, B); }
Tensor linalg_inv(const Tensor& A) { return linalg::inv(A); }

Tensor logdet(const Tensor& A) {
    const std::int64_t n = detail::check_square(A, "logdet").n;
    Tensor y = zeroed_tensor(detail::batch_shape(A), A.dtype());
    {
        NoGradGuard no_grad;
        detail::dispatch_real(A.dtype(), [&](auto tag) {
            using T = typename decltype(tag)::type;
            T* py = static_cast<T*>(y.raw_data());
            // det A = (−1)^(row swaps) Π uᵢᵢ: the sum of log|uᵢᵢ| is log|det A|, the signs
            // say whether it is the logarithm of det A (NaN when det A < 0, as torch).
            for_each_lu<T>(A, [&](const T* lu, const std::int64_t* perm, std::int64_t, std::int64_t s) {
                bool negative = false;
                T log_abs(0);
                for (std::int64_t i = 0; i < n; ++i) {
                    const T u = lu[i * n + i];
                    negative ^= (perm[i] != i) != (u < T(0));
                    log_abs += std::log(std::abs(u));
                }
                py[s] = negative && log_abs != -std::numeric_limits<T>::infinity() ? std::numeric_limits<T>::quiet_NaN() : log_abs;
            });
        });
    }
    // PyTorch 1.13 computes logdet as where(sign = −1, NaN, log|det A|), so where the
    // result is NaN its gradient and tangent are 0; the same here, read from the result.
    return autograd::record_single_output("logdet", {A}, y, {A, y}, [](const tensor_list& g, const BackwardContext& ctx) -> tensor_list {
        const Tensor &A = ctx.saved[0], &y = ctx.saved[1];
        const Tensor gy = g[0].masked_fill(isnan(y), 0.0);
        return {unsqueeze(unsqueeze(gy, -1), -1) * mT(inverse(A, false))};  // g·A⁻ᵀ
    }, [](const tensor_list& t, const ForwardContext& ctx) -> tensor_list {
        const Tensor &A = ctx.inputs[0], &y = ctx.outputs[0];
        // trace(A⁻¹ Ȧ) = Σᵢⱼ (A⁻ᵀ)ᵢⱼ Ȧᵢⱼ
        return {sum(mT(inverse(A, false)) * t[0], {-2, -1}).masked_fill(isnan(y), 0.0)};
    });
}

Tensor Tensor::logdet() const { return gradc::logdet(*this); }

}  // namespace gradc
