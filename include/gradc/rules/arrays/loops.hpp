#pragma once
/// \file
/// The inner loops of the array operations, over contiguous rows of N values.
///
/// The array operations are generic in the value type T. When T is a SIMD batch, each
/// value already holds one point per lane and these loops are plain. When T is double or
/// float (one point), the loops put elements across the lanes instead: a row of a
/// matrix-vector product is loaded a register at a time. The sum of a dot product is
/// then taken in another order than the one-point-per-lane loop's, so the two differ in
/// the last bits (docs/static.md, "Arrays").

#include <cstddef>
#include <type_traits>

#include <gradc/math/xsimd.hpp>
#include <gradc/rules/arrays/signature.hpp>
#include <gradc/rules/value_traits.hpp>

namespace gradc::rules::arrays {

/// Elements across lanes for one point of float or double, when a row has a full
/// register of them.
template <class T>
constexpr std::size_t lanes_of_number() {
    if constexpr (std::is_same_v<T, double> || std::is_same_v<T, float>) {
        return xsimd::batch<T>::size;
    } else {
        return 0;  // a SIMD batch or a dual number: one point per value already
    }
}
/// Whether a loop of N numbers runs on SIMD batches along the row (at least two batches).
template <class T, std::size_t N>
inline constexpr bool lanes_along_rows = lanes_of_number<T>() > 0 && N >= 2 * lanes_of_number<T>();

/// 0 as a `T` (a number, a batch or a dual).
template <class T>
inline T zero_of() {
    return T(scalar_t<T>(0));
}

/// Σₖ a[k·sa]·b[k·sb], k < N (strides in elements).
template <std::size_t N, std::size_t Sa = 1, std::size_t Sb = 1, class T>
inline T dot_n(const T* a, const T* b) {
    if constexpr (Sa == 1 && Sb == 1 && lanes_along_rows<T, N>) {
        using B = xsimd::batch<T>;
        constexpr std::size_t L = B::size;
        constexpr std::size_t full = N / (2 * L) * (2 * L);  // bounds as constants: no overflow to reason about
        B acc0(T(0)), acc1(T(0));
        for (std::size_t k = 0; k < full; k += 2 * L) {
            acc0 = xsimd::fma(B::load_unaligned(a + k), B::load_unaligned(b + k), acc0);
            acc1 = xsimd::fma(B::load_unaligned(a + k + L), B::load_unaligned(b + k + L), acc1);
        }
        T s = xsimd::hadd(acc0 + acc1);
        for (std::size_t k = full; k < N; ++k) s += a[k] * b[k];
        return s;
    } else {
        if constexpr (N == 0) {
            return zero_of<T>();
        } else {
            T s = a[0] * b[0];
            for (std::size_t k = 1; k < N; ++k) s += a[k * Sa] * b[k * Sb];
            return s;
        }
    }
}

/// y[k·sy] += α·x[k·sx], k < N.
template <std::size_t N, std::size_t Sy = 1, std::size_t Sx = 1, class T>
inline void axpy_n(T* __restrict y, const T& alpha, const T* x) {
    if constexpr (Sy == 1 && Sx == 1 && lanes_along_rows<T, N>) {
        using B = xsimd::batch<T>;
        constexpr std::size_t L = B::size;
        constexpr std::size_t full = N / L * L;
        const B al(alpha);
        for (std::size_t k = 0; k < full; k += L)
            xsimd::fma(al, B::load_unaligned(x + k), B::load_unaligned(y + k)).store_unaligned(y + k);
        for (std::size_t k = full; k < N; ++k) y[k] += alpha * x[k];
    } else {
        for (std::size_t k = 0; k < N; ++k) y[k * Sy] += alpha * x[k * Sx];
    }
}

// ---- the same loops with extents as values: a fixed_extent (the loops above, their
// bounds constants) or a number known at run time (the same order of operations, so
// the results agree bit for bit with a fixed extent of the same value) ------------------

/// Whether a run of n numbers goes along the lanes (lanes_along_rows for a run-time n).
template <class T, class N>
constexpr bool along_rows(N n) {
    return lanes_of_number<T>() > 0 && std::size_t(n) >= 2 * lanes_of_number<T>();
}

/// Σₖ a[k]·b[k], k < n.
template <class T, class N>
    requires(!std::is_pointer_v<N>)
inline T dot_n(N n, const T* a, const T* b) {
    if constexpr (is_fixed_extent<N>) {
        return dot_n<N::value>(a, b);
    } else {
        if constexpr (lanes_of_number<T>() > 0) {
            if (along_rows<T>(n)) {
                using B = xsimd::batch<T>;
                constexpr std::size_t L = B::size;
                const std::size_t full = n / (2 * L) * (2 * L);
                B acc0(T(0)), acc1(T(0));
                // Unrolled as a constant bound would be (the order of the sums is unchanged):
                // the loop's own instructions otherwise cost a 128-entry row a third more.
#pragma GCC unroll 8
                for (std::size_t k = 0; k < full; k += 2 * L) {
                    acc0 = xsimd::fma(B::load_unaligned(a + k), B::load_unaligned(b + k), acc0);
                    acc1 = xsimd::fma(B::load_unaligned(a + k + L), B::load_unaligned(b + k + L), acc1);
                }
                T s = xsimd::hadd(acc0 + acc1);
                for (std::size_t k = full; k < n; ++k) s += a[k] * b[k];
                return s;
            }
        }
        if (n == 0) return zero_of<T>();
        T s = a[0] * b[0];
        for (std::size_t k = 1; k < n; ++k) s += a[k] * b[k];
        return s;
    }
}

/// Σₖ a[k·sa]·b[k], k < n: a column of a row-major matrix (stride sa) against a vector.
template <class T, class N, class Sa>
inline T dot_n(N n, const T* a, const T* b, Sa sa) {
    if constexpr (is_fixed_extent<N> && is_fixed_extent<Sa>) {
        return dot_n<N::value, Sa::value, 1>(a, b);
    } else {
        if (std::size_t(sa) == 1) return dot_n(std::size_t(n), a, b);
        if (std::size_t(n) == 0) return zero_of<T>();
        T s = a[0] * b[0];
        for (std::size_t k = 1; k < n; ++k) s += a[k * sa] * b[k];
        return s;
    }
}

/// y[k] += α·x[k], k < n.
template <class T, class N>
    requires(!std::is_pointer_v<N>)
inline void axpy_n(N n, T* __restrict y, const T& alpha, const T* x) {
    if constexpr (is_fixed_extent<N>) {
        axpy_n<N::value>(y, alpha, x);
    } else {
        if constexpr (lanes_of_number<T>() > 0) {
            if (along_rows<T>(n)) {
                using B = xsimd::batch<T>;
                constexpr std::size_t L = B::size;
                const std::size_t full = n / L * L;
                const B al(alpha);
#pragma GCC unroll 8
                for (std::size_t k = 0; k < full; k += L)
                    xsimd::fma(al, B::load_unaligned(x + k), B::load_unaligned(y + k)).store_unaligned(y + k);
                for (std::size_t k = full; k < n; ++k) y[k] += alpha * x[k];
                return;
            }
        }
        for (std::size_t k = 0; k < n; ++k) y[k] += alpha * x[k];
    }
}

}  // namespace gradc::rules::arrays
