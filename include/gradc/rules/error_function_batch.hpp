#pragma once
/// \file
/// erf and erfc of SIMD batches where xsimd 8.1's differ from C's, besides the double
/// tail (gradc/simd/erfc_tail.hpp):
///  - both were NaN for |a| beyond about 1e38 (their rational tail overflows): beyond 30
///    erf is ±1 and erfc 0 or 2 in float and double (`error_function_tail`);
///  - float erfc was 3 ulps low near 0, erfc(±0) = 1 - 2⁻²³ instead of 1 (so the float
///    batch derivative of asin(erfc(x)) at 0 was finite where the scalar's is -inf).
/// Scalars, complex numbers and tensors use their own functions.

#include <cmath>
#include <type_traits>

#include <gradc/rules/value_traits.hpp>

namespace gradc::rules {

/// erf(a) (Erfc = false) or erfc(a) (Erfc = true) given a batch result `r` that may be NaN
/// far in the tail: beyond |a| = 30 erf is ±1 and erfc is 0 or 2 in float and double.
template <bool Erfc, class T>
GRADC_ALWAYS_INLINE inline T error_function_tail(const T& a, const T& r) {
    if constexpr (!simd_batch<T>) {
        return r;
    } else {
        using std::abs;
        using K = scalar_t<T>;
        const auto far = abs(a) > K(30);
        if (!any(far)) return r;  // xsimd::any, by argument-dependent lookup
        const T tail = Erfc ? if_else<T>(a < K(0), T(K(2)), T(K(0))) : if_else<T>(a < K(0), T(K(-1)), T(K(1)));
        return if_else<T>(far, tail, r);
    }
}

/// erfc(a) of a float batch given xsimd's result `r`: 1 - erf(a) for |a| < 1/2, as C
/// libraries do near 0. xsimd's float erfc there is a polynomial in a/(1+a) that is
/// 3–5 ulps low (1 - 2⁻²³ at 0); 1 - erf(a) loses at most one bit to cancellation, since
/// erfc ≥ 0.48 there, and measured 1–3 ulps against the double erfc rounded to float
/// (docs/reliability.md, "Accuracy of the rules"). Only batches with such a lane pay for the
/// erf. Double batches compute erfc near 0 as 1 - erf already.
template <class T>
GRADC_ALWAYS_INLINE inline T erfc_near_zero(const T& a, const T& r) {
    if constexpr (!simd_batch<T> || !std::is_same_v<scalar_t<T>, float>) {
        return r;
    } else {
        using std::abs;
        using std::erf;
        using K = scalar_t<T>;
        const auto near = abs(a) < K(0.5);
        if (!any(near)) return r;  // xsimd::any, by argument-dependent lookup
        return if_else<T>(near, K(1) - erf(a), r);
    }
}

}  // namespace gradc::rules
