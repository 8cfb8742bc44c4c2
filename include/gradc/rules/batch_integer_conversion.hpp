#pragma once
/// \file
/// Keeps NaN, infinite and very large lanes of double batches away from xsimd 8.1's
/// double-to-integer conversion.
///
/// xsimd's exp, exp2 and expm1, and the functions it builds on them (sinh, cosh, tanh,
/// erf, erfc), round a multiple of the argument and convert it to int64 to build the
/// power of two. For double batches on x86 that conversion is a scalar C++ cast, lane by
/// lane (`batch_cast` through `std::copy`, even on AVX-512DQ in xsimd 8.1), and converting
/// NaN, ±inf or a value beyond the int64 range is undefined behaviour: UndefinedBehavior-
/// Sanitizer reports it, and the fuzzer of the dynamic mode found it (docs/reliability.md).
/// The values that come out are right, because xsimd blends those lanes afterwards, but a
/// compiler may assume undefined behaviour never happens.
///
/// Float batches convert with cvttps2dq, whose result is defined for every input, so
/// they are left alone.

#include <cmath>
#include <type_traits>
#include <utility>

#include <gradc/rules/value_traits.hpp>

namespace gradc::rules {

/// The magnitude beyond which the argument of an xsimd function that converts to an
/// integer is clamped. Every such function used by the rules is at its limit there in
/// double: exp and exp2 are +inf or 0, expm1 +inf or -1, sinh ±inf, cosh +inf, tanh ±1,
/// erf ±1, erfc 0 or 2, e^(-a²) 0; and the integers they build (at most 1500²/ln 2 for
/// the e^(-a²) of erf) are far inside int64.
inline constexpr double convertible_argument_limit = 1500.0;

namespace detail {

/// Sets NaN lanes of `r` (a batch or a pair of batches) to `a`'s NaN.
template <class T, class R>
GRADC_RULE_INLINE R restore_nan(const T& a, const R& r) {
    using std::isnan;
    const auto nan = isnan(a);  // not a != a: xsimd's != is an ordered comparison
    if constexpr (std::is_same_v<R, T>) {
        return if_else<T>(nan, a, r);
    } else {
        return R{if_else<T>(nan, a, r.first), if_else<T>(nan, a, r.second)};
    }
}

}  // namespace detail

/// f(a), where f is one of xsimd's functions that convert their argument to an integer
/// (see the file comment). On a double batch whose lanes are all within ±1500 this is
/// f(a) after one comparison; otherwise f runs on a copy whose NaN lanes are 0 and whose
/// larger lanes are ±1500, and the NaN lanes of the result are set back to NaN. Since f
/// is at its limit beyond ±1500, the result is f(a) in every lane. Scalars and float
/// batches call f(a) directly.
template <class T, class F>
GRADC_RULE_INLINE auto on_convertible_lanes(const T& a, F f) {
    if constexpr (!simd_batch<T> || !std::is_same_v<scalar_t<T>, double>) {
        return f(a);
    } else {
        using std::abs;
        using std::isnan;
        const T limit(convertible_argument_limit);
        const auto inside = abs(a) <= limit;  // false for NaN
        if (all(inside)) return f(a);         // xsimd::all, by argument-dependent lookup
        const T clamped = if_else<T>(isnan(a), T(0.0), if_else<T>(a < T(0.0), -limit, limit));
        return detail::restore_nan(a, f(if_else<T>(inside, a, clamped)));
    }
}

}  // namespace gradc::rules
