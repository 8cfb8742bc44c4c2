#pragma once
// Dense factorisations of one row-major n×n matrix, for the dynamic mode's
// linalg_decompositions.cpp and linalg_lu.cpp: Cholesky, LU with partial pivoting and
// substitution, as the textbook algorithms (Golub and Van Loan, "Matrix Computations",
// 4th ed.: §4.2 for Cholesky, §3.4 for partial pivoting, §3.1 for triangular systems).
// They run in the element type, as LAPACK's sgetrf/dgetrf do, and report failures as
// LAPACK's `info` does, so the callers can word PyTorch's messages. The matrices this
// mode meets are small (a covariance, a layer's weights); blocking is left to the
// product, which the backward formulas use.

#include <cmath>
#include <cstdint>
#include <utility>

namespace gradc::kernels {

/// The element (i, j) of a matrix read through its strides: a transposed matrix is the
/// same data with the strides swapped.
template <class T>
struct strided_square {
    const T* data;
    std::int64_t row_stride, col_stride;
    T operator()(std::int64_t i, std::int64_t j) const { return data[i * row_stride + j * col_stride]; }
};

/// L with A = L·Lᵀ into `l` (row-major, zeros above the diagonal), reading only the lower
/// triangle of `a`. Returns 0, or the order k of the first leading minor that is not
/// positive-definite (LAPACK potrf's info; a NaN counts as not positive), leaving `l`
/// unfinished.
template <class T>
std::int64_t cholesky_lower(const T* a, T* l, std::int64_t n) {
    for (std::int64_t i = 0; i < n * n; ++i) l[i] = T(0);
    for (std::int64_t j = 0; j < n; ++j) {
        T d = a[j * n + j];
        for (std::int64_t k = 0; k < j; ++k) d -= l[j * n + k] * l[j * n + k];
        if (!(d > T(0))) return j + 1;
        const T ljj = std::sqrt(d);
        l[j * n + j] = ljj;
        for (std::int64_t i = j + 1; i < n; ++i) {
            T s = a[i * n + j];
            for (std::int64_t k = 0; k < j; ++k) s -= l[i * n + k] * l[j * n + k];
            l[i * n + j] = s / ljj;
        }
    }
    return 0;
}

/// LU with partial pivoting in place (LAPACK getrf): `lu` holds A on entry and, after,
/// the unit lower triangle L below the diagonal and U on and above it, with P·A = L·U
/// where row j was swapped with row perm[j] at step j. Returns 0, or 1 + the index of
/// the first exactly zero pivot (getrf's info); as getrf, the factorisation goes on past
/// it, so that U shows every zero of its diagonal (the determinant is then 0).
template <class T>
std::int64_t lu_factor(T* lu, std::int64_t* perm, std::int64_t n) {
    std::int64_t info = 0;
    for (std::int64_t j = 0; j < n; ++j) {
        std::int64_t p = j;
        for (std::int64_t i = j + 1; i < n; ++i)
            if (std::abs(lu[i * n + j]) > std::abs(lu[p * n + j])) p = i;
        perm[j] = p;
        if (p != j)
            for (std::int64_t k = 0; k < n; ++k) std::swap(lu[j * n + k], lu[p * n + k]);
        const T pivot = lu[j * n + j];
        if (pivot == T(0)) {
            if (info == 0) info = j + 1;
            continue;
        }
        for (std::int64_t i = j + 1; i < n; ++i) {
            const T m = lu[i * n + j] /= pivot;
            for (std::int64_t k = j + 1; k < n; ++k) lu[i * n + k] -= m * lu[j * n + k];
        }
    }
    return info;
}

/// Solves A·X = B in place in `b` (row-major n×k) from lu_factor's result. A zero pivot
/// gives infinities or NaNs, as LAPACK's getrs.
template <class T>
void lu_solve(const T* lu, const std::int64_t* perm, T* b, std::int64_t n, std::int64_t k) {
    for (std::int64_t j = 0; j < n; ++j)
        if (perm[j] != j)
            for (std::int64_t c = 0; c < k; ++c) std::swap(b[j * k + c], b[perm[j] * k + c]);
    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < i; ++j) {
            const T m = lu[i * n + j];
            for (std::int64_t c = 0; c < k; ++c) b[i * k + c] -= m * b[j * k + c];
        }
    for (std::int64_t i = n; i-- > 0;) {
        for (std::int64_t j = i + 1; j < n; ++j) {
            const T u = lu[i * n + j];
            for (std::int64_t c = 0; c < k; ++c) b[i * k + c] -= u * b[j * k + c];
        }
        const T d = lu[i * n + i];
        for (std::int64_t c = 0; c < k; ++c) b[i * k + c] /= d;
    }
}

/// Solves A·X = B in place in `b` (row-major n×k) by substitution, reading only A's
/// upper or lower triangle, and taking its diagonal as ones when `unit` (LAPACK trtrs,
/// which does not check for zeros on the diagonal either).
template <class T>
void triangular_solve(strided_square<T> a, T* b, std::int64_t n, std::int64_t k, bool upper, bool unit) {
    auto row = [&](std::int64_t i, std::int64_t j_begin, std::int64_t j_end) {
        for (std::int64_t j = j_begin; j < j_end; ++j) {
            const T m = a(i, j);
            for (std::int64_t c = 0; c < k; ++c) b[i * k + c] -= m * b[j * k + c];
        }
        if (!unit) {
            const T d = a(i, i);
            for (std::int64_t c = 0; c < k; ++c) b[i * k + c] /= d;
        }
    };
    if (upper)
        for (std::int64_t i = n; i-- > 0;) row(i, i + 1, n);
    else
        for (std::int64_t i = 0; i < n; ++i) row(i, 0, i);
}

}  // namespace gradc::kernels
