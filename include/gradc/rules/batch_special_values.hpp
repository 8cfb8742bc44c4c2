#pragma once
/// \file
/// Batch versions of exp, exp2, hypot and atan2 where xsimd 8.1's
/// batch functions differ from C's (the differential tester found each, tests/difftest):
///  - exp was 0 where the result is subnormal (double, a < -708.4) and, in float, +inf
///    from a = 88.38 on, where the result is still below the largest float; exp2 the
///    same (0 for double a ≤ -1022.75, float +inf from 127.5), and +inf at exactly 127
///    (float) and 1023 (double), whose results are powers of two below the largest;
///  - expm1 was +inf from a = 88.38 (float) and 709.44 (double), below the largest;
///  - hypot was sqrt(a² + b²): infinite for |a| ≥ 1e155 and 0 for |a| ≤ 1e-155, and NaN
///    for hypot(NaN, ±inf), where C gives +inf;
///  - atan2(±0, ±0) and atan2(±inf, ±inf) were NaN; C gives ±0, ±π, ±π/4, ±3π/4;
///  - expm1(-0) and log1p(-0) were +0 (C: -0).
/// (erf and erfc: rules/error_function_batch.hpp.)
/// Scalars, complex numbers and tensors use their own functions.

#include <cmath>
#include <limits>
#include <numbers>
#include <type_traits>

#include <gradc/rules/batch_integer_conversion.hpp>
#include <gradc/rules/value_traits.hpp>

namespace gradc::rules {

namespace detail {

/// f(a) of a batch with a lane outside the range of xsimd's exp (`inside` false there),
/// those lanes as f(a/2)² (a/2 is exact; two roundings more): out of line, since it is
/// rare and would otherwise double the inlined code of every exp. `a` is taken by value,
/// as by `power_of_two_at_edges`: a reference to a program's node value would hand the
/// call the address of the program's array of values, which then has to live in memory
/// on every path, the common one too (g++'s scalar replacement gives up on an array
/// whose address escapes; the Black-Scholes gradient kept its adjoints in memory).
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

}  // namespace detail

/// exp2(a); on batches, lanes whose result is subnormal (where xsimd gives 0: double
/// a < -1022.5, float a < -126) or near the largest (xsimd overflows from 127.5 in float,
/// and at exactly 127 and 1023) are computed by `power_of_two_at_edges`, and NaN and
/// infinite lanes away from xsimd's integer conversion, only when a batch has such a lane
/// (as `exponential`).
template <class T>
GRADC_ALWAYS_INLINE inline T power_of_two(const T& a) {
    using std::exp2;
    if constexpr (!simd_batch<T>) {
        return T(exp2(a));
    } else {
        using K = scalar_t<T>;
        constexpr bool is_double = std::numeric_limits<K>::digits == 53;
        const K low = is_double ? K(-1022) : K(-126), high = is_double ? K(1023) : K(127);
        const auto inside = logical_and(a >= low, a < high);  // false for NaN
        if (all(inside)) [[likely]]
            return exp2(a);
        return detail::power_of_two_at_edges(a, inside);
    }
}

/// exp(a); on batches, lanes at the edges of xsimd's range are computed as exp(a/2)²
/// (a/2 is exact; two roundings more), and NaN and infinite lanes away from xsimd's
/// integer conversion (batch_integer_conversion.hpp), only when a batch has such a lane.
template <class T>
GRADC_ALWAYS_INLINE inline T exponential(const T& a) {
    using std::exp;
    if constexpr (!simd_batch<T>) {
        return exp(a);
    } else {
        using K = scalar_t<T>;
        constexpr bool is_double = std::numeric_limits<K>::digits == 53;
        const K low = is_double ? K(-708.3) : K(-87.3), high = is_double ? K(709.0) : K(88.3);
        const auto inside = logical_and(a >= low, a <= high);  // false for NaN
        if (all(inside)) [[likely]]  // xsimd::all, by argument-dependent lookup
            return exp(a);
        return detail::by_halves_at_edges(a, inside, [](const T& b) { using std::exp; return T(exp(b)); });
    }
}

/// expm1(a) = e^a - 1; on batches, lanes beyond 88 (float) or 709 (double), where xsimd's
/// expm1 overflows below the largest number, are e^a (`exponential`: e^a - 1 rounds to e^a
/// there), only when a batch has such a lane.
template <class T>
GRADC_ALWAYS_INLINE inline T exponential_minus_one(const T& a) {
    using std::expm1;
    if constexpr (!simd_batch<T>) {
        return T(expm1(a));
    } else {
        using K = scalar_t<T>;
        const auto large = a > K(std::numeric_limits<K>::digits == 53 ? 709.0 : 88.0);  // false for NaN
        if (!any(large)) [[likely]]  // xsimd::any, by argument-dependent lookup
            return expm1(a);
        return if_else<T>(large, exponential(a), T(expm1(a)));
    }
}

/// hypot(a, b) with C's special values; on batches the operands are scaled by a power of
/// two (exact) when the larger one is so large or so small that its square would
/// overflow or underflow.
template <class T>
GRADC_ALWAYS_INLINE inline T hypotenuse(const T& a, const T& b) {
    using std::hypot;
    if constexpr (!simd_batch<T>) {
        return hypot(a, b);
    } else {
        using std::abs;
        using std::isinf;
        using std::max;
        using std::sqrt;
        using K = scalar_t<T>;
        constexpr bool is_double = std::numeric_limits<K>::digits == 53;
        const K large = is_double ? 0x1p500 : 0x1p60f, small = is_double ? 0x1p-500 : 0x1p-60f;
        const K shrink = is_double ? 0x1p-600 : 0x1p-70f, grow = is_double ? 0x1p600 : 0x1p70f;
        const T m = max(abs(a), abs(b));
        const T scale = if_else<T>(m > large, shrink, if_else<T>(m < small, grow, K(1)));
        const T as = a * scale, bs = b * scale;
        const T r = sqrt(as * as + bs * bs) / scale;
        return if_else<T>(logical_or(isinf(a), isinf(b)), std::numeric_limits<K>::infinity(), r);
    }
}

/// atan2(a, b) with C's values where both operands are zero or both infinite.
template <class T>
GRADC_ALWAYS_INLINE inline T arc_tangent2(const T& a, const T& b) {
    using std::atan2;
    if constexpr (!simd_batch<T>) {
        return atan2(a, b);
    } else {
        using std::isinf;
        using K = scalar_t<T>;
        const K pi = std::numbers::pi_v<K>;
        // The sign of b, -0 included (1/-0 = -inf); the result takes the sign of a.
        const auto b_negative = logical_or(b < K(0), K(1) / b < K(0));
        const T sign_a = copysign(T(K(1)), a);  // xsimd::copysign, by argument-dependent lookup
        const T zeros = if_else<T>(b_negative, T(pi), T(K(0))) * sign_a;
        const T infinities = if_else<T>(b_negative, T(K(0.75) * pi), T(K(0.25) * pi)) * sign_a;
        T r = atan2(a, b);
        r = if_else<T>(logical_and(a == K(0), b == K(0)), zeros, r);
        return if_else<T>(logical_and(isinf(a), isinf(b)), infinities, r);
    }
}

/// `r` = f(a) for a function with f(±0) = ±0: on batches, ±0 where a is ±0.
template <class T>
GRADC_ALWAYS_INLINE inline T keep_zero_sign(const T& a, const T& r) {
    if constexpr (!simd_batch<T>) {
        return r;
    } else {
        return if_else<T>(a == scalar_t<T>(0), a, r);
    }
}

}  // namespace gradc::rules
