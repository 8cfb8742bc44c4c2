#pragma once
/// \file
/// Logarithms, log1p and the cube root, with C's values on xsimd batches too.
///
/// xsimd 8.1's double-precision batch log, log2, log10 and cbrt read the exponent field
/// and treat a subnormal argument as if it were normal: log(1e-310) came out -746.52
/// instead of -713.80, cbrt(1e-310) 3.68e-104 instead of 4.64e-104, so a batch call and
/// the scalar call disagreed there. Here the subnormal lanes are scaled into the normal
/// range by 2^shift and the result corrected: log(a) = log(a·2^shift) - shift·log 2,
/// cbrt(a) = cbrt(a·2^shift) / 2^(shift/3). The float kernels are right already; they take
/// the same path. A batch without a subnormal lane costs one comparison and one test
/// (`any`): the scaling and its selects run only on a batch that has one. Paid on every
/// lane, they cost the Black-Scholes gradient, one log node, about 5 %
/// (docs/benchmark-history.md, "Batch gradient: values and adjoints in registers again").
/// xsimd's log1p(-0) is +0 (C: -0). Numbers, complex numbers, dual numbers and tensors
/// use their own functions.

#include <cmath>
#include <limits>
#include <numbers>

#include <gradc/math/exponential.hpp>
#include <gradc/math/value_traits.hpp>
#include <gradc/math/xsimd.hpp>

namespace gradc::math {

/// The scaling of subnormal lanes: a power of two that brings the smallest subnormal of
/// K into the normal range, and a multiple of 3 so that the cube root scales exactly.
template <class K>
inline constexpr int subnormal_shift = std::numeric_limits<K>::digits == 53 ? 54 : 24;

/// 2 to the power `subnormal_shift<K>`, the factor that scales a subnormal lane into the normal range.
template <class K>
inline constexpr K two_to_subnormal_shift = K(std::numeric_limits<K>::digits == 53 ? 18014398509481984.0 : 16777216.0);

/// The base of a logarithm: e, 2 or 10.
enum class log_base { e, two, ten };

namespace kernel {

/// log, log2 or log10 of a batch: xsimd's, with subnormal lanes scaled into the normal
/// range first, only when a batch has one.
template <log_base Base, class A, class K>
GRADC_ALWAYS_INLINE inline xsimd::batch<K, A> logarithm(const xsimd::batch<K, A>& a, requires_arch<xsimd::generic>) {
    using T = xsimd::batch<K, A>;
    const auto plain = [](const T& x) -> T {
        if constexpr (Base == log_base::e) return xsimd::log(x);
        else if constexpr (Base == log_base::two) return xsimd::log2(x);
        else return xsimd::log10(x);
    };
    constexpr long double log_of_two = Base == log_base::e     ? std::numbers::ln2_v<long double>
                                       : Base == log_base::two ? 1.0L
                                                               : std::numbers::ln2_v<long double> * std::numbers::log10e_v<long double>;
    constexpr K correction = K(subnormal_shift<K> * log_of_two);
    const auto subnormal = logical_and(a > K(0), a < std::numeric_limits<K>::min());
    if (!xsimd::any(subnormal)) [[likely]]
        return plain(a);
    const T scaled = if_else<T>(subnormal, a * two_to_subnormal_shift<K>, a);
    return plain(scaled) - if_else<T>(subnormal, T(correction), K(0));
}

/// cbrt of a batch: xsimd's, with subnormal lanes (of either sign) scaled into the normal
/// range first, only when a batch has one.
template <class A, class K>
GRADC_ALWAYS_INLINE inline xsimd::batch<K, A> cbrt(const xsimd::batch<K, A>& a, requires_arch<xsimd::generic>) {
    using T = xsimd::batch<K, A>;
    constexpr K unscale = K(1) / K(1LL << (subnormal_shift<K> / 3));
    const auto subnormal = logical_and(a != K(0), xsimd::abs(a) < std::numeric_limits<K>::min());
    if (!xsimd::any(subnormal)) [[likely]]
        return xsimd::cbrt(a);
    const T scaled = if_else<T>(subnormal, a * two_to_subnormal_shift<K>, a);
    return xsimd::cbrt(scaled) * if_else<T>(subnormal, T(unscale), K(1));
}

}  // namespace kernel

/// log(a).
template <class T>
    requires(!simd_batch<T>)
GRADC_ALWAYS_INLINE inline T log(const T& a) {
    using std::log;
    return T(log(a));
}
/// log(a) of a batch, right at subnormal arguments.
template <class K, class A>
GRADC_ALWAYS_INLINE inline xsimd::batch<K, A> log(const xsimd::batch<K, A>& a) {
    return kernel::logarithm<log_base::e>(a, A{});
}

/// log2(a).
template <class T>
    requires(!simd_batch<T>)
GRADC_ALWAYS_INLINE inline T log2(const T& a) {
    using std::log2;
    return T(log2(a));
}
/// log2(a) of a batch, right at subnormal arguments.
template <class K, class A>
GRADC_ALWAYS_INLINE inline xsimd::batch<K, A> log2(const xsimd::batch<K, A>& a) {
    return kernel::logarithm<log_base::two>(a, A{});
}

/// log10(a).
template <class T>
    requires(!simd_batch<T>)
GRADC_ALWAYS_INLINE inline T log10(const T& a) {
    using std::log10;
    return T(log10(a));
}
/// log10(a) of a batch, right at subnormal arguments.
template <class K, class A>
GRADC_ALWAYS_INLINE inline xsimd::batch<K, A> log10(const xsimd::batch<K, A>& a) {
    return kernel::logarithm<log_base::ten>(a, A{});
}

/// cbrt(a).
template <class T>
    requires(!simd_batch<T>)
GRADC_ALWAYS_INLINE inline T cbrt(const T& a) {
    using std::cbrt;
    return T(cbrt(a));
}
/// cbrt(a) of a batch, right at subnormal arguments of either sign.
template <class K, class A>
GRADC_ALWAYS_INLINE inline xsimd::batch<K, A> cbrt(const xsimd::batch<K, A>& a) {
    return kernel::cbrt(a, A{});
}

/// log(1 + a), accurate near 0; -0 at -0 on batches too.
template <class T>
GRADC_ALWAYS_INLINE inline T log1p(const T& a) {
    using std::log1p;
    return keep_zero_sign(a, T(log1p(a)));
}

}  // namespace gradc::math
