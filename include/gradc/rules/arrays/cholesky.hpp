#pragma once
/// \file
/// `cholesky(A)`, with its adjoint and tangent from Murray, "Differentiation of the
/// Cholesky decomposition" (2016), section 3. Generic in the value type like every array
/// operation, so a batch factorises one matrix per lane and a dual number carries the
/// tangents of a Hessian sweep through the same loops (lower/array_second_order.hpp). It
/// cannot stop a SIMD lane, so a matrix that is not positive definite gives a factor that
/// is NaN from its first non-positive pivot on, not an error (docs/static.md,
/// "Operations").

#include <array>
#include <cmath>
#include <cstddef>
#include <string_view>

#include <gradc/rules/arrays/loops.hpp>
#include <gradc/rules/arrays/scratch.hpp>
#include <gradc/rules/arrays/signature.hpp>

// Each operation's members are the array-operation contract's, documented once in
// rules/arrays/signature.hpp; the API reference hides them per operation (the INTERNAL
// sections) instead of repeating them.
namespace gradc::rules::arrays {

/// L with L·Lᵀ = S, lower triangular with a positive diagonal, for the symmetric part
/// S = ½(A + Aᵀ) of a square A. Reading both triangles (as JAX's `cholesky` does by
/// default, where LAPACK reads one) makes the function's derivative its gradient: Ā is
/// symmetric, it agrees with finite differences at any A, and at a symmetric A it is
/// torch.linalg.cholesky's symmetrised gradient.
struct cholesky {
    /// \cond INTERNAL
    static constexpr std::string_view name = "cholesky";
    static constexpr std::array<std::string_view, 1> adjoint_text{"sym(L⁻ᵀ·Φ(Lᵀ·L̄)·L⁻¹)"};
    template <std::size_t N>
    static constexpr dims result_shape(const std::array<dims, N>& operands) {
        return shape_with_arity<1>(operands, [](const auto& s) {
            return s[0].is_matrix() && s[0].rows == s[0].cols ? s[0] : invalid_dims;
        });
    }
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
// g++ 12 at -O1 (not -O2) claims an iteration of the inner loop overflows for n = 2, where
// that loop never runs; the bounds are constants and every index stays below n².
#pragma GCC diagnostic ignored "-Waggressive-loop-optimizations"
#endif
    /// Column by column (the Cholesky–Crout order): Lⱼⱼ = √(Sⱼⱼ − Σₖ Lⱼₖ²), then
    /// Lᵢⱼ = (Sᵢⱼ − Σₖ LᵢₖLⱼₖ)/Lⱼⱼ below it, k < j.
    template <dims Y, dims A, class T>
    static void value(sig<Y, A>, T* __restrict y, const T* a) {
        using std::sqrt;
        using K = scalar_t<T>;
        constexpr std::size_t n = A.rows;
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = i + 1; j < n; ++j) y[i * n + j] = zero_of<T>();
        for (std::size_t j = 0; j < n; ++j) {
            T* row_j = y + j * n;
            T d = a[j * n + j];
            for (std::size_t k = 0; k < j; ++k) d -= row_j[k] * row_j[k];
            const T pivot = sqrt(d);
            row_j[j] = pivot;
            const T reciprocal = K(1) / pivot;
            for (std::size_t i = j + 1; i < n; ++i) {
                T* row_i = y + i * n;
                T s = K(0.5) * (a[i * n + j] + a[j * n + i]);
                for (std::size_t k = 0; k < j; ++k) s -= row_i[k] * row_j[k];
                row_i[j] = s * reciprocal;
            }
        }
    }
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
    /// Ā += sym(G), G = L⁻ᵀ·Φ(Lᵀ·L̄)·L⁻¹ with Φ the lower triangle, diagonal halved, and L̄
    /// read on the lower triangle only (L's upper entries are constant zeros).
    template <dims Y, dims A, class T>
    static void adjoint(arg_t<0>, sig<Y, A>, const T* yb, T* __restrict ab, const T* y, const T*) {
        using K = scalar_t<T>;
        constexpr std::size_t n = A.rows;
        const auto reciprocal = reciprocal_diagonal<n>(y);
        scratch<T, n * n> work;
        T* g = work.data();
        // P = Φ(Lᵀ·L̄): Pₖₗ = Σ_{m≥k} Lₘₖ·L̄ₘₗ for l ≤ k (both factors lower triangular).
        for (std::size_t k = 0; k < n; ++k) {
            for (std::size_t l = 0; l <= k; ++l) {
                T s = zero_of<T>();
                for (std::size_t m = k; m < n; ++m) s += y[m * n + k] * yb[m * n + l];
                g[k * n + l] = l == k ? K(0.5) * s : s;
            }
            for (std::size_t l = k + 1; l < n; ++l) g[k * n + l] = zero_of<T>();
        }
        // Z = L⁻ᵀ·P: Lᵀ is upper triangular, so each column is a back substitution.
        for (std::size_t c = 0; c < n; ++c)
            for (std::size_t i = n; i-- > 0;) {
                T s = g[i * n + c];
                for (std::size_t m = i + 1; m < n; ++m) s -= y[m * n + i] * g[m * n + c];
                g[i * n + c] = s * reciprocal[i];
            }
        // G = Z·L⁻¹: each row r solves G_r·L = Z_r, a back substitution along the row.
        for (std::size_t r = 0; r < n; ++r)
            for (std::size_t j = n; j-- > 0;) {
                T s = g[r * n + j];
                for (std::size_t m = j + 1; m < n; ++m) s -= g[r * n + m] * y[m * n + j];
                g[r * n + j] = s * reciprocal[j];
            }
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j < n; ++j) ab[i * n + j] += K(0.5) * (g[i * n + j] + g[j * n + i]);
    }
    /// L̇ = L·Φ(M), M = L⁻¹·Ṡ·L⁻ᵀ with Ṡ = ½(Ȧ + Ȧᵀ).
    template <dims Y, dims A, class T>
    static void tangent(arg_t<0>, sig<Y, A>, T* __restrict yd, const T* ad, const T* y, const T*) {
        using K = scalar_t<T>;
        constexpr std::size_t n = A.rows;
        const auto reciprocal = reciprocal_diagonal<n>(y);
        scratch<T, n * n> work;
        T* m = work.data();
        // W = L⁻¹·Ṡ: a forward substitution per column.
        for (std::size_t c = 0; c < n; ++c)
            for (std::size_t i = 0; i < n; ++i) {
                T s = K(0.5) * (ad[i * n + c] + ad[c * n + i]);
                for (std::size_t k = 0; k < i; ++k) s -= y[i * n + k] * m[k * n + c];
                m[i * n + c] = s * reciprocal[i];
            }
        // M = W·L⁻ᵀ: each row r solves L·M_rᵀ = W_rᵀ, a forward substitution along the row.
        for (std::size_t r = 0; r < n; ++r)
            for (std::size_t j = 0; j < n; ++j) {
                T s = m[r * n + j];
                for (std::size_t k = 0; k < j; ++k) s -= y[j * n + k] * m[r * n + k];
                m[r * n + j] = s * reciprocal[j];
            }
        // L̇ᵢⱼ = Σ_{j≤k≤i} Lᵢₖ·Φ(M)ₖⱼ for i ≥ j.
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j <= i; ++j) {
                T s = K(0.5) * y[i * n + j] * m[j * n + j];
                for (std::size_t k = j + 1; k <= i; ++k) s += y[i * n + k] * m[k * n + j];
                yd[i * n + j] += s;
            }
    }
    /// \endcond

private:
    /// 1/Lᵢᵢ for each i: every substitution divides by the diagonal.
    template <std::size_t n, class T>
    static std::array<T, n> reciprocal_diagonal(const T* l) {
        std::array<T, n> r;
        for (std::size_t i = 0; i < n; ++i) r[i] = scalar_t<T>(1) / l[i * n + i];
        return r;
    }
};

}  // namespace gradc::rules::arrays
