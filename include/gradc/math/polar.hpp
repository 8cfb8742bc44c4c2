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

namespace kernel {

/// hypot of batches: the operands scaled by a power of two (exact) when the larger one is
/// so large or so small that its square would overflow or underflow; +inf where either
/// is infinite.
template <class A, class K>
GRADC_ALWAYS_INLINE inline xsimd::batch<K, A> hypot(const xsimd::batch<K, A>& a, const xsimd::batch<K, A>& b,
                                                    requires_arch<xsimd::generic>) {
    using T = xsimd::batch<K, A>;
    constexpr bool is_double = std::numeric_limits<K>::digits == 53;
    const K large = is_double ? 0x1p500 : 0x1p60f, small = is_double ? 0x1p-500 : 0x1p-60f;
    const K shrink = is_double ? 0x1p-600 : 0x1p-70f, grow = is_double ? 0x1p600 : 0x1p70f;
    const T m = xsimd::max(xsimd::abs(a), xsimd::abs(b));
    const T scale = if_else<T>(m > large, shrink, if_else<T>(m < small, grow, K(1)));
    const T as = a * scale, bs = b * scale;
    const T r = xsimd::sqrt(as * as + bs * bs) / scale;
    return if_else<T>(logical_or(xsimd::isinf(a), xsimd::isinf(b)), std::numeric_limits<K>::infinity(), r);
}

/// atan2 of batches, with C's values where both operands are zero or both infinite.
template <class A, class K>
GRADC_ALWAYS_INLINE inline xsimd::batch<K, A> atan2(const xsimd::batch<K, A>& a, const xsimd::batch<K, A>& b,
                                                    requires_arch<xsimd::generic>) {
    using T = xsimd::batch<K, A>;
    const K pi = std::numbers::pi_v<K>;
    // The sign of b, -0 included (1/-0 = -inf); the result takes the sign of a.
    const auto b_negative = logical_or(b < K(0), K(1) / b < K(0));
    const T sign_a = xsimd::copysign(T(K(1)), a);
    const T zeros = if_else<T>(b_negative, T(pi), T(K(0))) * sign_a;
    const T infinities = if_else<T>(b_negative, T(K(0.75) * pi), T(K(0.25) * pi)) * sign_a;
    T r = xsimd::atan2(a, b);
    r = if_else<T>(logical_and(a == K(0), b == K(0)), zeros, r);
    return if_else<T>(logical_and(xsimd::isinf(a), xsimd::isinf(b)), infinities, r);
}

}  // namespace kernel

/// hypot(a, b) = √(a² + b²) without overflow, +inf if either is infinite.
template <class T>
    requires(!simd_batch<T>)
GRADC_ALWAYS_INLINE inline T hypot(const T& a, const T& b) {
    using std::hypot;
    return T(hypot(a, b));
}
/// hypot of batches, with C's values.
template <class K, class A>
GRADC_ALWAYS_INLINE inline xsimd::batch<K, A> hypot(const xsimd::batch<K, A>& a, const xsimd::batch<K, A>& b) {
    return kernel::hypot(a, b, A{});
}

/// atan2(a, b): the angle of the point (b, a).
template <class T>
    requires(!simd_batch<T>)
GRADC_ALWAYS_INLINE inline T atan2(const T& a, const T& b) {
    using std::atan2;
    return T(atan2(a, b));
}
/// atan2 of batches, with C's values at (±0, ±0) and (±inf, ±inf).
template <class K, class A>
GRADC_ALWAYS_INLINE inline xsimd::batch<K, A> atan2(const xsimd::batch<K, A>& a, const xsimd::batch<K, A>& b) {
    return kernel::atan2(a, b, A{});
}

}  // namespace gradc::math
