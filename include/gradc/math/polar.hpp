#pragma once
/// \file
/// hypot and atan2, the polar coordinates of (b, a), with C's values on xsimd batches
/// too. xsimd 8.1's batch hypot was sqrt(a² + b²): infinite for |a| ≥ 1e155 and 0 for
/// |a| ≤ 1e-155, and NaN for hypot(NaN, ±inf), where C gives +inf; its atan2(±0, ±0) and
/// atan2(±inf, ±inf) were NaN, where C gives ±0, ±π, ±π/4, ±3π/4. Numbers, complex numbers, dual numbers and
/// tensors use their own functions.

#include <cmath>
#include <limits>
#include <numbers>

#include <gradc/math/value_traits.hpp>
#include <gradc/math/xsimd.hpp>

namespace gradc::math {

/// hypot(a, b) with C's special values; on batches the operands are scaled by a power of
/// two (exact) when the larger one is so large or so small that its square would
/// overflow or underflow.
template <class T>
GRADC_ALWAYS_INLINE inline T hypot(const T& a, const T& b) {
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
GRADC_ALWAYS_INLINE inline T atan2(const T& a, const T& b) {
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

}  // namespace gradc::math
