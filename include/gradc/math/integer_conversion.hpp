#pragma once
/// \file
/// Keeps NaN, infinite and very large lanes of double batches away from xsimd 8.1's
/// double-to-integer conversion.
///
/// xsimd's exp, exp2 and expm1, and the functions it builds on them (sinh, cosh, tanh,
/// erf, erfc), round a multiple of the argument and convert it to int64 to build the
/// power of two. For double batches on x86 that conversion is a scalar C++ cast, lane by
/// lane (`batch_cast` through `std::copy`, even on AVX-512DQ in xsimd 8.1), and converting
/// NaN, ±inf or a value beyond the int64 range is undefined behaviour, which
/// UndefinedBehaviorSanitizer reports (docs/reliability.md).
/// The values that come out are right, because xsimd blends those lanes afterwards, but a
/// compiler may assume undefined behaviour never happens.
///
/// Float batches convert with cvttps2dq, whose result is defined for every input, so
/// they are left alone.

#include <cmath>
#include <type_traits>
#include <utility>

#include <gradc/math/value_traits.hpp>

namespace gradc::math {

/// The magnitude beyond which the argument of an xsimd function that converts to an
/// integer is clamped. Every such function used here is at its limit there in
/// double: exp and exp2 are +inf or 0, expm1 +inf or -1, sinh ±inf, cosh +inf, tanh ±1,
/// erf ±1, erfc 0 or 2, e^(-a²) 0; and the integers they build (at most 1500²/ln 2 for
/// the e^(-a²) of erf) are far inside int64.
inline constexpr double convertible_argument_limit = 1500.0;

/// f(a), where f is one of xsimd's functions that convert their argument to an integer
/// (see the file comment). On a double batch, f runs on a clamped to ±1500, where each
/// such f is already at its limit, and NaN lanes are set back to NaN afterwards: x86's
/// max (maxpd, which xsimd's max is) returns its second operand where the first is NaN,
/// so NaN lanes run on -1500. Four instructions and no branch: a test of the lanes with
/// a branch to a clamping path, taken only when needed, measured slower (a network of 8
/// tanh units alone: 10.7–13.1 ns/point against 6.9–8.5 unguarded and 8.0–9.3 for this form,
/// docs/benchmark-history.md), since the kernel's batch values had to survive the call. Scalars
/// and float batches call f(a) directly, and so does a form that keeps its lanes from the
/// conversion itself (`LanesKept`: tanh's and erf's batch forms, hyperbolic_tangent.hpp and error_function_batch.hpp).
template <bool LanesKept = false, class T, class F>
GRADC_ALWAYS_INLINE inline auto on_convertible_lanes(const T& a, F f) {
    if constexpr (LanesKept || !simd_batch<T> || !std::is_same_v<scalar_t<T>, double>) {
        return f(a);
    } else {
        using std::isnan;
        using std::max;
        using std::min;
        const T limit(convertible_argument_limit);
        const auto r = f(min(max(a, -limit), limit));
        const auto nan = isnan(a);
        if constexpr (std::is_same_v<decltype(r), const T>) {
            return T(if_else<T>(nan, a, r));
        } else {
            return decltype(r)(if_else<T>(nan, a, r.first), if_else<T>(nan, a, r.second));
        }
    }
}

}  // namespace gradc::math
