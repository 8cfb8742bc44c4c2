#pragma once
/// \file
/// pow with C's special values, on xsimd batches too.

#include <cmath>
#include <limits>
#include <type_traits>

#include <gradc/math/exponential.hpp>
#include <gradc/math/logarithm.hpp>
#include <gradc/math/value_traits.hpp>
#include <gradc/math/widened.hpp>
#include <gradc/math/xsimd.hpp>

namespace gradc::math {

namespace kernel {

/// pow of batches: xsimd's exp2 and log2 on a positive normal base, and C's rules for
/// every other lane (see the numbers' `math::pow` below).
template <class A, class K>
xsimd::batch<K, A> pow(const xsimd::batch<K, A>& a, const xsimd::batch<K, A>& b, requires_arch<xsimd::generic>) {
    using T = xsimd::batch<K, A>;
    using std::abs;
    using std::isnan;
    using std::max;
    using std::min;
    using std::sqrt;
    using std::trunc;
    const K inf = std::numeric_limits<K>::infinity();
    const K minus_one = -1;  // x * -1, not -x: xsimd's -0 is 0 - 0 = +0
    const T m = abs(a);
    // Integer and odd-integer exponents; from 2^digits on every number is an even
    // integer. trunc sees only finite values (some xsimd trunc kernels convert to int).
    constexpr int digits = std::numeric_limits<K>::digits;
    const K two_to_digits = digits == 53 ? K(9007199254740992.0) : K(16777216.0);
    const auto big = abs(b) >= two_to_digits;
    const T small_b = if_else<T>(abs(b) < two_to_digits, b, K(0));
    const auto integer = logical_or(big, small_b == trunc(small_b));
    const auto odd_integer =
        logical_and(logical_not(big), logical_and(small_b == trunc(small_b), trunc(small_b * K(0.5)) * K(2) != small_b));
    const auto negative = logical_or(a < K(0), K(1) / a < K(0));  // also -0
    // The exponents 1, 2, -1 and 1/2: |a|, |a|², 1/|a| and √|a|, each rounded once, as
    // on scalars (exp(b·log a) is an ulp or more off, so that pow(x, 1.0) - x was not
    // 0 on batches). A batch whose every lane has one of them, as with a literal
    // exponent, skips exp(b·log a) altogether.
    const auto exact = logical_or(logical_or(b == K(1), b == K(2)), logical_or(b == K(-1), b == K(0.5)));
    const auto rounded_once = [&] {
        return T(if_else<T>(b == K(1), m, if_else<T>(b == K(2), m * m, if_else<T>(b == K(-1), K(1) / m, sqrt(m)))));
    };
    T t(K(0));  // b·log2|a| where the lanes go through the logarithm
    const auto through_logarithm = [&] {
        // |a|^b = 2^(b·log2|a|) for a finite nonzero base, where xsimd's own pow computes
        // e^(b·log|a|), with three changes. Base 2: log2 is exact at a power of two, so
        // are 2^1024 (+inf; e^(1024·ln 2), ln 2 rounded down, was finite) and the ties
        // half way between subnormals (2^-1075 rounds to 0), and the float batches that
        // compute pow in double round such a tie once. The logarithm is right at a
        // subnormal base (logarithm.hpp). And the argument of exp2 is never NaN
        // and stays within ±2000 (beyond which the result is 0 or inf anyway): xsimd
        // converts it to an integer, which is undefined for NaN and out-of-range values
        // (UBSan reports it). The lanes whose argument was NaN or infinite are all set
        // by the rules below.
        const auto ordinary = logical_not(logical_or(logical_or(a == K(0), m == inf), isnan(a)));
        const T log2_m = math::log2(if_else<T>(ordinary, m, K(1)));
        t = b * log2_m;
        const T bounded = if_else<T>(isnan(t), K(0), min(max(t, T(K(-2000))), T(K(2000))));
        // A subnormal result is computed 2^digits larger and scaled down (exactly, so
        // that it is rounded once); `exp2` is right up to the largest number.
        constexpr K min_exponent = std::numeric_limits<K>::min_exponent - 1;  // -1022, -126
        const auto subnormal_result = bounded < min_exponent;
        const T shift = if_else<T>(subnormal_result, T(K(digits)), K(0));
        return T(math::exp2(T(bounded + shift)) * if_else<T>(subnormal_result, K(1) / two_to_digits, K(1)));
    };
    T regular;
    if (all(exact)) {  // xsimd::all and xsimd::any, by argument-dependent lookup
        regular = rounded_once();
    } else {
        regular = through_logarithm();
        if (any(exact)) regular = if_else<T>(exact, rounded_once(), regular);
    }
    // ±0 and ±inf: 0 or inf by the sign of b (swapped for inf).
    const auto zero_or_inf = logical_or(a == K(0), m == inf);
    T r = if_else<T>(zero_or_inf, if_else<T>(logical_xor(b < K(0), m == inf), inf, K(0)), regular);
    // A negative base: the sign of an odd integer power, NaN for a finite non-integer b.
    r = if_else<T>(logical_and(negative, odd_integer), r * minus_one, r);
    const auto finite_negative = logical_and(a < K(0), m != inf);
    r = if_else<T>(logical_and(finite_negative, logical_and(logical_not(integer), abs(b) != inf)),
                   std::numeric_limits<K>::quiet_NaN(), r);
    r = if_else<T>(logical_and(m < K(1), b == -inf), inf, r);
    r = if_else<T>(logical_and(m > K(1), b == -inf), K(0), r);
    r = if_else<T>(logical_and(m < K(1), b == inf), K(0), r);
    r = if_else<T>(logical_and(m > K(1), b == inf), inf, r);
    r = if_else<T>(logical_or(isnan(a), isnan(b)), a + b, r);  // NaN, unless one of the rules below
    r = if_else<T>(logical_and(a == K(-1), abs(b) == inf), K(1), r);
    r = if_else<T>(logical_or(a == K(1), b == K(0)), K(1), r);
    if constexpr (std::is_same_v<K, float>) {
        // 2^t loses the rounding of t = b·log2|a| times |t|·ln 2: in float, 114 ulps
        // near the largest float. Lanes with |t| > 8 (results beyond 2^±8) are computed
        // in double and rounded once (widened.hpp); the others are within 5 ulps.
        // Only a batch with such a lane pays for the two double pows (3.4 times the
        // float pow, docs/benchmark-history.md, "Batch pow").
        const auto far = abs(t) > K(8);
        if (any(far)) r = if_else<T>(far, widened_to_double([](const auto& x, const auto& y) { return kernel::pow(x, y, A{}); }, a, b), r);
    }
    return r;
}

}  // namespace kernel

/// a^b with C's special values (C11 F.10.4.4, which PyTorch follows) on SIMD batches
/// too. xsimd 8.1's batch pow gets them wrong: 0 for pow(±0, b) whatever b (so pow(0, 0)
/// was 0 and pow(0, -1) was 0), NaN for pow(±inf, 0), pow(nan, 0), pow(±1, ±inf) and
/// pow(-inf, 0.5), the wrong sign for a negative base and an even exponent beyond 2⁵³,
/// and results off by orders of magnitude for subnormal bases. Here the batch pow only
/// ever sees a positive normal base; signs, zeros, infinities and NaN are set by the C
/// rules. Real scalars use the C library's pow, except at the exponents 1, 2, -1 and 1/2,
/// which every path rounds once (tensors go through these same scalar and batch paths).
template <class T>
    requires(!simd_batch<T>)
T pow(const T& a, const T& b) {
    using std::pow;
    if constexpr (std::is_floating_point_v<T>) {
        // The exponents 1, 2, -1 and 1/2 rounded once, as on batches (kernel::pow), so that
        // scalars, batches and tensors agree bit for bit; the C library's pow is an ulp
        // off for about one base in a thousand at 2, -1 and 1/2. pow(±0, 1/2) is +0 and
        // pow(-inf, 1/2) is +inf, where sqrt gives -0 and NaN.
        using std::sqrt;
        if (b == T(1)) return a;
        if (b == T(2)) return a * a;
        if (b == T(-1)) return T(1) / a;
        if (b == T(0.5)) return a == T(0) ? T(0) : a == -std::numeric_limits<T>::infinity() ? -a : T(sqrt(a));
        return pow(a, b);
    } else {
        return pow(a, b);
    }
}

/// a^b of batches, with C's special values (`kernel::pow`).
template <class K, class A>
xsimd::batch<K, A> pow(const xsimd::batch<K, A>& a, const xsimd::batch<K, A>& b) {
    return kernel::pow(a, b, A{});
}

}  // namespace gradc::math
