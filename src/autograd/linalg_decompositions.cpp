// Cholesky and triangular solves, with their gradients and tangents. The formulas are
// written with matmul, the triangular solve itself and products with constant masks, so
// create_graph and forward-over-reverse differentiate them again.
#include <gradc/autograd/elementwise.hpp>
#include <gradc/autograd/function.hpp>
#include <gradc/autograd/grad_mode.hpp>
#include <gradc/autograd/linalg.hpp>
#include <gradc/autograd/linalg_decompositions.hpp>
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

// A's triangle as the solve reads it: the product that keeps the entries a gradient or a
// tangent of A may have (the others never reach the result).
Tensor solve_triangular_mask(std::int64_t n, bool upper, bool unitriangular, ScalarType dtype) {
    return detail::triangle_mask(n, upper, unitriangular ? 0.0 : 1.0, dtype);
}

// The solve without autograd: A (…, n, n) and B (…, n, k) for `left` or (…, k, n)
// otherwise, with equal batch dimensions. X A = B is solved as Aᵀ Xᵀ = Bᵀ, the
// transpose of A being A's data read with its strides swapped.
Tensor solve_triangular_values(const Tensor& A, const Tensor& B, bool upper, bool left, bool unitriangular) {
    NoGradGuard no_grad;
    const std::int64_t count = detail::check_square(A, "linalg.solve_triangular").count, n = A.size(-1);
    const Tensor a = detail::contiguous_as(A.detach(), A.dtype());
    Tensor x = detail::copy_as(left ? B.detach() : mT(B.detach()), B.dtype());  // a fresh copy: solved in place
    const std::int64_t k = x.size(-1);
    detail::dispatch_real(A.dtype(), [&](auto tag) {
        using T = typename decltype(tag)::type;
        const T* pa = static_cast<const T*>(a.raw_data());
        T* px = static_cast<T*>(x.raw_data());
        for (std::int64_t s = 0; s < count; ++s) {
            const kernels::strided_square<T> matrix{pa + s * n * n, left ? n : 1, left ? 1 : n};
            kernels::triangular_solve(matrix, px + s * n * k, n, k, left ? upper : !upper, unitriangular);
        }
    });
    return left ? x : detail::copy_as(mT(x), x.dtype());
}

// Murray (2016) writes the Cholesky derivatives with Φ(X), the lower triangle of X with
// its diagonal halved: as a product with this constant mask.
Tensor phi(const Tensor& X) { return X * detail::triangle_mask(X.size(-1), false, 0.5, X.dtype()); }

// PyTorch's cholesky_backward: gA = sym(L⁻ᵀ Φ(Lᵀ gL) L⁻¹). The gradient of a function of a
// symmetric matrix is defined up to its antisymmetric part; the symmetric one is the
// gradient along symmetric perturbations, the only ones the factorisation sees. Only the
// lower triangle of gL matters (Lᵀ times the strict upper triangle of gL is strictly
// upper triangular, which Φ drops).
Tensor cholesky_backward(const Tensor& gL, const Tensor& L) {
    Tensor Z = linalg::solve_triangular(mT(L), phi(matmul(mT(L), gL)), /*upper=*/true);  // L⁻ᵀ Φ(Lᵀ gL)
    Z = linalg::solve_triangular(L, Z, /*upper=*/false, /*left=*/false);                  // ... L⁻¹
    return (Z + mT(Z)) * 0.5;
}

// From Ȧ = L̇ Lᵀ + L L̇ᵀ: L⁻¹ Ȧ L⁻ᵀ = M + Mᵀ with M = L⁻¹ L̇ lower triangular, so
// M = Φ(L⁻¹ Ȧ L⁻ᵀ) and L̇ = L M. Ȧ is symmetrised first, so that the tangent is the
// adjoint of the symmetric gradient above for every Ȧ (⟨gL, L̇⟩ = ⟨gA, Ȧ⟩); for a
// symmetric Ȧ it changes nothing.
Tensor cholesky_jvp(const Tensor& dA, const Tensor& L) {
    const Tensor sym = (dA + mT(dA)) * 0.5;
    Tensor M = linalg::solve_triangular(L, sym, /*upper=*/false);                     // L⁻¹ Ȧ
    M = linalg::solve_triangular(mT(L), M, /*upper=*/true, /*left=*/false);          // ... L⁻ᵀ
    return matmul(L, phi(M));
}

}  // namespace

Tensor linalg::cholesky(const Tensor& A) {
    // Named variables, not a structured binding: clang 14 cannot capture those in a lambda.
    const detail::SquareBatch square = detail::check_square(A, "linalg.cholesky");
    const std::int64_t count = square.count, n = square.n;
    Tensor L = zeroed_tensor(A.sizes(), A.dtype());
    {
        NoGradGuard no_grad;
        const Tensor a = detail::contiguous_as(A.detach(), A.dtype());
        detail::dispatch_real(A.dtype(), [&](auto tag) {
            using T = typename decltype(tag)::type;
            const T* pa = static_cast<const T*>(a.raw_data());
            T* pl = static_cast<T*>(L.raw_data());
            for (std::int64_t s = 0; s < count; ++s)
                if (const std::int64_t order = kernels::cholesky_lower(pa + s * n * n, pl + s * n * n, n))
                    throw Error("gradc: linalg.cholesky: " + detail::batch_element(A, s) +
                                "The factorization could not be completed because the input is not positive-definite "
                                "(the leading minor of order " + std::to_string(order) + " is not positive-definite).");
        });
    }
    return autograd::record_single_output("linalg_cholesky", {A}, L, {L}, [](const tensor_list& g, const BackwardContext& ctx) -> tensor_list {
        return {cholesky_backward(g[0], ctx.saved[0])};
    }, [](const tensor_list& t, const ForwardContext& ctx) -> tensor_list { return {cholesky_jvp(t[0], ctx.outputs[0])}; });
}

Tensor linalg::solve_triangular(const Tensor& A, const Tensor& B, bool upper, bool left, bool unitriangular) {
    const char* op = "linalg.solve_triangular";
    const std::int64_t n = detail::check_square(A, op).n;
    detail::check_operand(A, B, op, 2);
    if ((left ? B.size(-2) : B.size(-1)) != n)
        throw Error(std::string("gradc: ") + op + ": Incompatible shapes of A and B for the equation " +
                    (left ? "AX = B" : "XA = B") + " (" + std::to_string(n) + "x" + std::to_string(n) + " and " +
                    std::to_string(B.size(-2)) + "x" + std::to_string(B.size(-1)) + "), got " + detail::describe(A) +
                    " and " + detail::describe(B));
    // Batch dimensions broadcast as in matmul; expand is differentiable, so the gradients
    // are summed back to each operand's shape by expand's own backward.
    const Shape batch = broadcast_shapes(detail::batch_shape(A), detail::batch_shape(B), op);
    if (detail::batch_shape(A) != batch || detail::batch_shape(B) != batch)
        return solve_triangular(expand(A, detail::with_matrix(batch, n, n)),
                                expand(B, detail::with_matrix(batch, B.size(-2), B.size(-1))), upper, left, unitriangular);
    Tensor X = solve_triangular_values(A, B, upper, left, unitriangular);
    return autograd::record_single_output("linalg_solve_triangular", {A, B}, X, {A, X},
        [upper, left, unitriangular](const tensor_list& g, const BackwardContext& ctx) -> tensor_list {
            const Tensor &A = ctx.saved[0], &X = ctx.saved[1];
            // Giles (2008), §2.2: X = A⁻¹B gives gB = A⁻ᵀ gX and gA = −gB Xᵀ (X = B A⁻¹:
            // gB = gX A⁻ᵀ, gA = −Xᵀ gB); gA keeps only the entries of A that were read.
            const Tensor gB = linalg::solve_triangular(mT(A), g[0], !upper, left, unitriangular);
            tensor_list out(2);
            if (ctx.needs(0))
                out[0] = -(left ? matmul(gB, mT(X)) : matmul(mT(X), gB)) *
                         solve_triangular_mask(A.size(-1), upper, unitriangular, A.dtype());
            if (ctx.needs(1)) out[1] = gB;
            return out;
        },
        [upper, left, unitriangular](const tensor_list& t, const ForwardContext& ctx) -> tensor_list {
            const Tensor &A = ctx.inputs[0], &X = ctx.outputs[0];
            // Ẋ = A⁻¹(Ḃ − Ȧ X) (left) or (Ḃ − X Ȧ) A⁻¹, with Ȧ restricted to the triangle read.
            Tensor rhs = t[1];
            if (t[0].defined()) {
                const Tensor dA = t[0] * solve_triangular_mask(A.size(-1), upper, unitriangular, A.dtype());
                const Tensor dAX = left ? matmul(dA, X) : matmul(X, dA);
                rhs = rhs.defined() ? rhs - dAX : -dAX;
            }
            return {linalg::solve_triangular(A, rhs, upper, left, unitriangular)};
        });
}

Tensor linalg_cholesky(const Tensor& A) { return linalg::cholesky(A); }
Tensor linalg_solve_triangular(const Tensor& A, const Tensor& B, bool upper, bool left, bool unitriangular) {
    return linalg::solve_triangular(A, B, upper, left, unitriangular);
}

}  // namespace gradc
