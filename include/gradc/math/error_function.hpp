#pragma once
/// \file
/// The error functions, and e^(-a²), the Gaussian factor of their derivatives:
/// `erf`, `erfc`, `gaussian`, and `erf_with_gaussian` / `erfc_with_gaussian`, which
/// give the function and the factor together (on batches from one evaluation,
/// error_function_batch.hpp). On a batch each function equals the pair's first member
/// bit for bit, so a value alone and a fused value and partial agree.

#include <cmath>
#include <type_traits>
#include <utility>

#include <gradc/math/error_function_batch.hpp>
#include <gradc/math/integer_conversion.hpp>
#include <gradc/math/value_traits.hpp>
#include <gradc/math/xsimd.hpp>

namespace gradc::math {

namespace kernel {

/// erf or erfc of a batch alone: the value of `error_function_batch`, NaN and huge
/// lanes kept from xsimd's integer conversion, the far tail and float erfc near 0 mended.
template <error_function F, class A, class T>
GRADC_ALWAYS_INLINE inline xsimd::batch<T, A> error_function_value(const xsimd::batch<T, A>& a,
                                                                   requires_arch<xsimd::generic>) {
    using B = xsimd::batch<T, A>;
    using forms = error_function_batch<F, T, A>;
    const B r = on_convertible_lanes<forms::keeps_lanes_from_conversion>(
        a, [](const B& b) GRADC_ALWAYS_INLINE { return forms::value(b); });
    if constexpr (F == error_function::erf) {
        return error_function_tail<false>(a, r);
    } else {
        return error_function_tail<true>(a, erfc_near_zero(a, r));
    }
}

/// {erf(a) or erfc(a), e^(-a²)} of a batch: a batch whose lanes are all ordinary
/// (`error_function_batch::ordinary`, one test) runs the plain forms alone; any other
/// takes every special case. The clamp and checks paid on every batch cost the
/// Black-Scholes gradient, two erfc nodes, about 10 % (docs/benchmark-history.md, "Batch
/// gradient: values and adjoints in registers again").
template <error_function F, class A, class T>
GRADC_ALWAYS_INLINE inline std::pair<xsimd::batch<T, A>, xsimd::batch<T, A>> error_function_with_gaussian(
    const xsimd::batch<T, A>& a, requires_arch<xsimd::generic>) {
    using B = xsimd::batch<T, A>;
    using forms = error_function_batch<F, T, A>;
    if (forms::ordinary(a)) [[likely]]
        return forms::apply_ordinary(a);
    const auto [y, g] = on_convertible_lanes<forms::keeps_lanes_from_conversion>(
        a, [](const B& b) GRADC_ALWAYS_INLINE { return forms::apply(b); });
    // erfc_near_zero (float, |a| < 1/2) and the far tail (|a| > 30) mend disjoint lanes.
    if constexpr (F == error_function::erf) {
        return {error_function_tail<false>(a, y), g};
    } else {
        return {erfc_near_zero(a, error_function_tail<true>(a, y)), g};
    }
}

/// e^(-a²) of a batch, as `error_function_batch` computes it (so a partial alone and the
/// fused value and partial agree bit for bit, subnormal results included), NaN and
/// huge lanes of double batches kept from xsimd's integer conversion.
template <class A, class T>
GRADC_ALWAYS_INLINE inline xsimd::batch<T, A> gaussian(const xsimd::batch<T, A>& a, requires_arch<xsimd::generic>) {
    using B = xsimd::batch<T, A>;
    using forms = error_function_batch<error_function::erf, T, A>;
    return on_convertible_lanes<forms::keeps_lanes_from_conversion>(
        a, [](const B& b) GRADC_ALWAYS_INLINE { return forms::gaussian(b); });
}

}  // namespace kernel

/// e^(-a²); floats in double, where a² is exact (as float batches correct for its rounding).
template <class T>
    requires(!simd_batch<T>)
GRADC_ALWAYS_INLINE inline T gaussian(const T& a) {
    using std::exp;
    if constexpr (std::is_same_v<T, float>) {
        return float(exp(-(double(a) * double(a))));
    } else {
        return T(exp(-(a * a)));
    }
}
/// e^(-a²) of a batch.
template <class T, class A>
GRADC_ALWAYS_INLINE inline xsimd::batch<T, A> gaussian(const xsimd::batch<T, A>& a) {
    return kernel::gaussian(a, A{});
}

/// erf(a).
template <class T>
    requires(!simd_batch<T>)
GRADC_ALWAYS_INLINE inline T erf(const T& a) {
    using std::erf;
    return T(erf(a));
}
/// erf(a) of a batch, with a tail more accurate than xsimd's.
template <class T, class A>
GRADC_ALWAYS_INLINE inline xsimd::batch<T, A> erf(const xsimd::batch<T, A>& a) {
    return kernel::error_function_value<error_function::erf>(a, A{});
}

/// erfc(a) = 1 - erf(a), accurate for large a.
template <class T>
    requires(!simd_batch<T>)
GRADC_ALWAYS_INLINE inline T erfc(const T& a) {
    using std::erfc;
    return T(erfc(a));
}
/// erfc(a) of a batch, with a tail more accurate than xsimd's.
template <class T, class A>
GRADC_ALWAYS_INLINE inline xsimd::batch<T, A> erfc(const xsimd::batch<T, A>& a) {
    return kernel::error_function_value<error_function::erfc>(a, A{});
}

/// {erf(a), e^(-a²)}.
template <class T>
    requires(!simd_batch<T>)
GRADC_ALWAYS_INLINE inline std::pair<T, T> erf_with_gaussian(const T& a) {
    return {math::erf(a), math::gaussian(a)};
}
/// {erf(a), e^(-a²)} of a batch, from one evaluation.
template <class T, class A>
GRADC_ALWAYS_INLINE inline std::pair<xsimd::batch<T, A>, xsimd::batch<T, A>> erf_with_gaussian(
    const xsimd::batch<T, A>& a) {
    return kernel::error_function_with_gaussian<error_function::erf>(a, A{});
}

/// {erfc(a), e^(-a²)}.
template <class T>
    requires(!simd_batch<T>)
GRADC_ALWAYS_INLINE inline std::pair<T, T> erfc_with_gaussian(const T& a) {
    return {math::erfc(a), math::gaussian(a)};
}
/// {erfc(a), e^(-a²)} of a batch, from one evaluation.
template <class T, class A>
GRADC_ALWAYS_INLINE inline std::pair<xsimd::batch<T, A>, xsimd::batch<T, A>> erfc_with_gaussian(
    const xsimd::batch<T, A>& a) {
    return kernel::error_function_with_gaussian<error_function::erfc>(a, A{});
}

}  // namespace gradc::math
