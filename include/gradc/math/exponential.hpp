#pragma once
/// \file
/// exp, exp2 and expm1, with C's values on xsimd batches too. xsimd 8.1's batch
/// functions differ from C's at the edges of their range:
///  - exp was 0 where the result is subnormal (double, a < -708.4) and, in float, +inf
///    from a = 88.38 on, where the result is still below the largest float; exp2 the
///    same (0 for double a ≤ -1022.75, float +inf from 127.5), and +inf at exactly 127
///    (float) and 1023 (double), whose results are powers of two below the largest;
///  - expm1 was +inf from a = 88.38 (float) and 709.44 (double), below the largest, and
///    expm1(-0) was +0 (C: -0).
/// A batch with no lane at an edge pays one comparison and one test (`all`/`any`); the
/// lanes that need it are mended out of line. Numbers, complex numbers, dual numbers and
/// tensors use their own functions.

#include <cmath>
#include <limits>

#include <gradc/math/integer_conversion.hpp>
#include <gradc/math/value_traits.hpp>
#include <gradc/math/xsimd.hpp>

namespace gradc::math {

namespace kernel {

/// f(a) of a batch with a lane outside the range of xsimd's exp (`inside` false there),
/// those lanes as f(a/2)² (a/2 is exact; two roundings more): out of line, since it is
/// rare and would otherwise double the inlined code of every exp. `a` is taken by value,
/// as by `power_of_two_at_edges`: a reference to a program's node value would hand the
/// call the address of the program's array of values, which then has to live in memory
/// on every path, the common one too (g++'s scalar replacement gives up on an array
/// whose address escapes, and the adjoints of a gradient then stay in memory).
template <class T, class Inside, class F>
[[gnu::noinline, gnu::cold]] T by_halves_at_edges(T a, const Inside& inside, F f) {
    using K = scalar_t<T>;
    return on_convertible_lanes(a, [&](const T& b) GRADC_ALWAYS_INLINE {
        const T half = f(b * K(0.5));
        return T(if_else<T>(inside, f(b), half * half));
    });
}

/// exp2(a) of a batch with a lane outside xsimd's range (`inside` false there): lanes of
/// subnormal results as exp2(a/2)², lanes near the largest as 2·exp2(a - 1) (a - 1 and the
/// doubling are exact there, so 2^127 stays exact). Out of line, as `by_halves_at_edges`.
template <class T, class Inside>
[[gnu::noinline, gnu::cold]] T power_of_two_at_edges(T a, const Inside& inside) {
    using K = scalar_t<T>;
    return on_convertible_lanes(a, [&](const T& b) GRADC_ALWAYS_INLINE {
        using std::exp2;
        const T half = exp2(b * K(0.5));
        const T top = exp2(b - K(1)) * K(2);
        return T(if_else<T>(inside, exp2(b), if_else<T>(b > K(0), top, half * half)));
    });
}

/// exp(a) of a batch: lanes at the edges of xsimd's range by `by_halves_at_edges`, and
/// NaN and infinite lanes away from xsimd's integer conversion, only when a batch has
/// such a lane.
template <class A, class T>
GRADC_ALWAYS_INLINE inline xsimd::batch<T, A> exp(const xsimd::batch<T, A>& a, requires_arch<xsimd::generic>) {
    using B = xsimd::batch<T, A>;
    constexpr bool is_double = std::numeric_limits<T>::digits == 53;
    const T low = is_double ? T(-708.3) : T(-87.3), high = is_double ? T(709.0) : T(88.3);
    const auto inside = logical_and(a >= low, a <= high);  // false for NaN
    if (xsimd::all(inside)) [[likely]]
        return xsimd::exp(a);
    return by_halves_at_edges(a, inside, [](const B& b) { return B(xsimd::exp(b)); });
}

/// exp2(a) of a batch: lanes whose result is subnormal (where xsimd gives 0: double
/// a < -1022.5, float a < -126) or near the largest (xsimd overflows from 127.5 in float,
/// and at exactly 127 and 1023) by `power_of_two_at_edges`, only when a batch has such a
/// lane (as `exp`).
template <class A, class T>
GRADC_ALWAYS_INLINE inline xsimd::batch<T, A> exp2(const xsimd::batch<T, A>& a, requires_arch<xsimd::generic>) {
    constexpr bool is_double = std::numeric_limits<T>::digits == 53;
    const T low = is_double ? T(-1022) : T(-126), high = is_double ? T(1023) : T(127);
    const auto inside = logical_and(a >= low, a < high);  // false for NaN
    if (xsimd::all(inside)) [[likely]]
        return xsimd::exp2(a);
    return power_of_two_at_edges(a, inside);
}

/// expm1(a) of a batch: lanes beyond 88 (float) or 709 (double), where xsimd's expm1
/// overflows below the largest number, are e^a (e^a - 1 rounds to e^a there), only when
/// a batch has such a lane.
template <class A, class T>
GRADC_ALWAYS_INLINE inline xsimd::batch<T, A> expm1(const xsimd::batch<T, A>& a, requires_arch<xsimd::generic>) {
    using B = xsimd::batch<T, A>;
    const auto large = a > T(std::numeric_limits<T>::digits == 53 ? 709.0 : 88.0);  // false for NaN
    if (!xsimd::any(large)) [[likely]]
        return xsimd::expm1(a);
    return xsimd::select(large, kernel::exp(a, A{}), B(xsimd::expm1(a)));
}

}  // namespace kernel

/// `r` = f(a) for a function with f(±0) = ±0: on batches, ±0 where a is ±0 (xsimd's
/// functions give +0 at -0, as 0 - 0 does).
template <class T>
GRADC_ALWAYS_INLINE inline T keep_zero_sign(const T& a, const T& r) {
    if constexpr (!simd_batch<T>) {
        return r;
    } else {
        return if_else<T>(a == scalar_t<T>(0), a, r);
    }
}

/// e^a.
template <class T>
    requires(!simd_batch<T>)
GRADC_ALWAYS_INLINE inline T exp(const T& a) {
    using std::exp;
    return T(exp(a));
}
/// e^a of a batch, as C gives it lane by lane (see the file comment).
template <class T, class A>
GRADC_ALWAYS_INLINE inline xsimd::batch<T, A> exp(const xsimd::batch<T, A>& a) {
    return kernel::exp(a, A{});
}

/// 2^a.
template <class T>
    requires(!simd_batch<T>)
GRADC_ALWAYS_INLINE inline T exp2(const T& a) {
    using std::exp2;
    return T(exp2(a));
}
/// 2^a of a batch, as C gives it lane by lane.
template <class T, class A>
GRADC_ALWAYS_INLINE inline xsimd::batch<T, A> exp2(const xsimd::batch<T, A>& a) {
    return kernel::exp2(a, A{});
}

/// e^a - 1, accurate near 0.
template <class T>
    requires(!simd_batch<T>)
GRADC_ALWAYS_INLINE inline T expm1(const T& a) {
    using std::expm1;
    return T(expm1(a));
}
/// e^a - 1 of a batch, as C gives it lane by lane: -0 at -0, and NaN and huge lanes kept
/// from xsimd's integer conversion.
template <class T, class A>
GRADC_ALWAYS_INLINE inline xsimd::batch<T, A> expm1(const xsimd::batch<T, A>& a) {
    using B = xsimd::batch<T, A>;
    return keep_zero_sign(a, on_convertible_lanes(a, [](const B& b) GRADC_ALWAYS_INLINE { return kernel::expm1(b, A{}); }));
}

}  // namespace gradc::math
