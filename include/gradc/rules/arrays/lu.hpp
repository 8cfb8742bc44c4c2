#pragma once
/// \file
/// `solve(A, B)` as two operations, so that a matrix that does not change from point to
/// point is factorised once (map-reduce evaluates the nodes that depend on θ alone once
/// per call, simd/array_map_reduce.hpp) and each point pays only its substitutions:
///  - `lu_factor(A)`: the LU factors of a square A by elimination with partial pivoting,
///    with the row swaps its pivot searches made. In every derivative the factors stand
///    for A itself: the node's adjoint is A's adjoint and its tangent A's tangent, passed
///    through unchanged, so the formulas below are in A.
///  - `lu_solve(F, B)`: X with A·X = B from A's factors F, B a vector or a matrix of
///    right-hand sides. B̄ += A⁻ᵀ·X̄ and Ā −= (A⁻ᵀ·X̄)·Xᵀ; Ẋ = A⁻¹·(Ḃ − Ȧ·X) (Giles, "An
///    extended collection of matrix derivative results for forward and reverse mode AD",
///    2008, section 2.3.1). Each is a pair of triangular substitutions, never an inverse.
///
/// The pivot search is made of conditional swaps (at column k, row i > k is swapped into
/// row k where |u(i, k)| > |u(k, k)|), so each SIMD lane of a batch picks its own pivots
/// and a dual number follows its value's. A singular A gives infinite or NaN entries,
/// not an error: no lane can throw.

#include <array>
#include <cmath>
#include <cstddef>
#include <string_view>
#include <type_traits>
#include <utility>

#include <gradc/rules/arrays/loops.hpp>
#include <gradc/rules/arrays/scratch.hpp>
#include <gradc/rules/arrays/signature.hpp>
#include <gradc/rules/value_traits.hpp>

// Each operation's members are the array-operation contract's, documented once in
// rules/arrays/signature.hpp; the API reference hides them per operation (the INTERNAL
// sections) instead of repeating them.
namespace gradc::rules::arrays {

/// The entry of larger magnitude decides a pivot: on a dual number its value's, since
/// the choice of pivot is not differentiated.
template <class T>
auto magnitude(const T& v) {
    using std::abs;
    if constexpr (ordered_dual<T>) {
        return abs(v.value);
    } else {
        return abs(v);
    }
}

/// Swaps a and b where c holds: a branch for one point, a select per lane for batches.
template <class C, class T>
void swap_where(const C& c, T& a, T& b) {
    if constexpr (std::is_same_v<C, bool>) {
        if (c) std::swap(a, b);
    } else {
        const T t = if_else<T>(c, b, a);
        b = if_else<T>(c, a, b);
        a = t;
    }
}

/// The factors of an n×n A: U on and above the diagonal, the multipliers of column k
/// below it, and after the n² factors the n(n−1)/2 swaps, 1 where row i was swapped into
/// row k at column k (pairs (k, i), k < i, in order), else 0.
struct lu_factor {
    /// \cond INTERNAL
    static constexpr std::string_view name = "lu_factor";
    static constexpr std::array<std::string_view, 1> adjoint_text{"ȳ (the factors stand for A)"};
    template <std::size_t N>
    static constexpr dims result_shape(const std::array<dims, N>& operands) {
        return shape_with_arity<1>(operands, [](const auto& s) {
            return s[0].is_matrix() && s[0].rows == s[0].cols ? s[0] : invalid_dims;
        });
    }
    template <std::size_t N>
    static constexpr std::size_t saved_size(const std::array<dims, N>& s) {
        return s[0].rows * (s[0].rows - 1) / 2;
    }
    template <dims Y, dims A, class T>
    static void value(sig<Y, A>, T* __restrict y, const T* a) {
        using K = scalar_t<T>;
        constexpr std::size_t n = A.rows;
        T* swapped = y + Y.size();
        for (std::size_t e = 0; e < n * n; ++e) y[e] = a[e];
        for (std::size_t k = 0, pair = 0; k < n; ++k) {
            for (std::size_t i = k + 1; i < n; ++i, ++pair) {
                const auto larger = magnitude(y[i * n + k]) > magnitude(y[k * n + k]);
                for (std::size_t j = k; j < n; ++j) swap_where(larger, y[k * n + j], y[i * n + j]);
                swapped[pair] = if_else<T>(larger, T(K(1)), T(K(0)));
            }
            const T reciprocal = K(1) / y[k * n + k];
            for (std::size_t i = k + 1; i < n; ++i) {
                const T f = y[i * n + k] * reciprocal;
                y[i * n + k] = f;
                for (std::size_t j = k + 1; j < n; ++j) y[i * n + j] -= f * y[k * n + j];
            }
        }
    }
    template <dims Y, dims A, class T>
    static void adjoint(arg_t<0>, sig<Y, A>, const T* yb, T* __restrict ab, const T*, const T*) {
        for (std::size_t e = 0; e < A.size(); ++e) ab[e] += yb[e];
    }
    template <dims Y, dims A, class T>
    static void tangent(arg_t<0>, sig<Y, A>, T* __restrict yd, const T* ad, const T*, const T*) {
        for (std::size_t e = 0; e < A.size(); ++e) yd[e] += ad[e];
    }
    /// \endcond
};

/// X with A·X = B, from A's factors (lu_factor) and B, a vec<n> or a mat<n, m>.
struct lu_solve {
    /// \cond INTERNAL
    static constexpr std::string_view name = "lu_solve";
    static constexpr std::array<std::string_view, 2> adjoint_text{"−(A⁻ᵀ·X̄)·Xᵀ", "A⁻ᵀ·X̄"};
    template <std::size_t N>
    static constexpr dims result_shape(const std::array<dims, N>& operands) {
        return shape_with_arity<2>(operands, [](const auto& s) {
            if (!s[0].is_matrix() || s[0].rows != s[0].cols || s[1].is_scalar() || s[1].rows != s[0].rows)
                return invalid_dims;
            return s[1];
        });
    }

    /// x ← A⁻¹·x for the m columns of x (n×m, row-major), from the factors f: the swaps
    /// and eliminations of each column of the factorisation in turn, then U's back
    /// substitution.
    template <std::size_t n, std::size_t m, class T>
    static void apply_inverse(const T* f, T* x) {
        using K = scalar_t<T>;
        const T* swapped = f + n * n;
        for (std::size_t k = 0, pair = 0; k < n; ++k) {
            for (std::size_t i = k + 1; i < n; ++i, ++pair) {
                const auto was = swapped[pair] != T(K(0));
                for (std::size_t c = 0; c < m; ++c) swap_where(was, x[k * m + c], x[i * m + c]);
            }
            for (std::size_t i = k + 1; i < n; ++i) axpy_n<m>(x + i * m, T(-f[i * n + k]), x + k * m);
        }
        back_substitute<n, m>(f, x);
    }
    /// x ← A⁻ᵀ·x: the transposes in the opposite order (Uᵀ's forward substitution, then
    /// each column's eliminations and swaps transposed, last column first).
    template <std::size_t n, std::size_t m, class T>
    static void apply_inverse_transpose(const T* f, T* x) {
        using K = scalar_t<T>;
        const T* swapped = f + n * n;
        for (std::size_t i = 0; i < n; ++i) {
            for (std::size_t k = 0; k < i; ++k) axpy_n<m>(x + i * m, T(-f[k * n + i]), x + k * m);
            const T reciprocal = K(1) / f[i * n + i];
            for (std::size_t c = 0; c < m; ++c) x[i * m + c] *= reciprocal;
        }
        for (std::size_t k = n; k-- > 0;) {
            for (std::size_t i = k + 1; i < n; ++i) axpy_n<m>(x + k * m, T(-f[i * n + k]), x + i * m);
            for (std::size_t i = n, pair = k * n - k * (k + 1) / 2 + (n - k - 1); i-- > k + 1;) {
                const auto was = swapped[--pair] != T(K(0));
                for (std::size_t c = 0; c < m; ++c) swap_where(was, x[k * m + c], x[i * m + c]);
            }
        }
    }

    template <dims Y, dims F, dims B, class T>
    static void value(sig<Y, F, B>, T* __restrict y, const T* f, const T* b) {
        for (std::size_t e = 0; e < B.size(); ++e) y[e] = b[e];
        apply_inverse<F.rows, B.size() / F.rows>(f, y);
    }
    /// Ā −= Z·Xᵀ with Z = A⁻ᵀ·X̄.
    template <dims Y, dims F, dims B, class T>
    static void adjoint(arg_t<0>, sig<Y, F, B>, const T* yb, T* __restrict ab, const T* y, const T* f, const T*) {
        constexpr std::size_t n = F.rows, m = B.size() / F.rows;
        scratch<T, n * m> work;
        T* z = inverse_transpose_of<n, m>(f, yb, work.data());
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j < n; ++j) ab[i * n + j] -= dot_n<m>(z + i * m, y + j * m);
    }
    /// B̄ += A⁻ᵀ·X̄.
    template <dims Y, dims F, dims B, class T>
    static void adjoint(arg_t<1>, sig<Y, F, B>, const T* yb, T* __restrict bb, const T*, const T* f, const T*) {
        constexpr std::size_t n = F.rows, m = B.size() / F.rows;
        scratch<T, n * m> work;
        const T* z = inverse_transpose_of<n, m>(f, yb, work.data());
        for (std::size_t e = 0; e < n * m; ++e) bb[e] += z[e];
    }
    /// Ẋ −= A⁻¹·(Ȧ·X).
    template <dims Y, dims F, dims B, class T>
    static void tangent(arg_t<0>, sig<Y, F, B>, T* __restrict yd, const T* ad, const T* y, const T* f, const T*) {
        constexpr std::size_t n = F.rows, m = B.size() / F.rows;
        scratch<T, n * m> work;
        T* w = work.data();
        for (std::size_t e = 0; e < n * m; ++e) w[e] = zero_of<T>();
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t k = 0; k < n; ++k) axpy_n<m>(w + i * m, ad[i * n + k], y + k * m);
        apply_inverse<n, m>(f, w);
        for (std::size_t e = 0; e < n * m; ++e) yd[e] -= w[e];
    }
    /// Ẋ += A⁻¹·Ḃ.
    template <dims Y, dims F, dims B, class T>
    static void tangent(arg_t<1>, sig<Y, F, B>, T* __restrict yd, const T* bd, const T*, const T* f, const T*) {
        constexpr std::size_t n = F.rows, m = B.size() / F.rows;
        scratch<T, n * m> work;
        T* w = work.data();
        for (std::size_t e = 0; e < n * m; ++e) w[e] = bd[e];
        apply_inverse<n, m>(f, w);
        for (std::size_t e = 0; e < n * m; ++e) yd[e] += w[e];
    }
    /// \endcond

private:
    /// z ← A⁻ᵀ·x̄ (z has room for n×m values); returns z.
    template <std::size_t n, std::size_t m, class T>
    static T* inverse_transpose_of(const T* f, const T* xb, T* z) {
        for (std::size_t e = 0; e < n * m; ++e) z[e] = xb[e];
        apply_inverse_transpose<n, m>(f, z);
        return z;
    }
    /// x ← U⁻¹·x, U the factors' upper triangle.
    template <std::size_t n, std::size_t m, class T>
    static void back_substitute(const T* f, T* x) {
        using K = scalar_t<T>;
        for (std::size_t i = n; i-- > 0;) {
            for (std::size_t l = i + 1; l < n; ++l) axpy_n<m>(x + i * m, T(-f[i * n + l]), x + l * m);
            const T reciprocal = K(1) / f[i * n + i];
            for (std::size_t c = 0; c < m; ++c) x[i * m + c] *= reciprocal;
        }
    }
};

}  // namespace gradc::rules::arrays

namespace gradc::rules {
/// The factors pass derivatives through unchanged (their partial is the identity).
template <>
inline constexpr affinity affine_in<arrays::lu_factor, 0> = affinity::linear;
}  // namespace gradc::rules
