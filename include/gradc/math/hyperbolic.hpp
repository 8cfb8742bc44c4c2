#pragma once
/// \file
/// sinh, cosh, tanh (with its derivative) and acosh, with C's values on xsimd batches too:
/// NaN and huge lanes of double batches kept from xsimd's integer conversion
/// (integer_conversion.hpp), tanh and its derivative from one exponential
/// (hyperbolic_tangent.hpp), and acosh NaN below 1.

#include <cmath>
#include <limits>
#include <utility>

#include <gradc/math/hyperbolic_tangent.hpp>
#include <gradc/math/integer_conversion.hpp>
#include <gradc/math/value_traits.hpp>
#include <gradc/math/xsimd.hpp>

namespace gradc::math {

namespace kernel {

/// acosh of a batch: xsimd 8.1's takes log(2a) for large |a| without a domain check
/// (acosh(-1e300) was +inf); C (and PyTorch) give NaN below 1.
template <class A, class T>
GRADC_ALWAYS_INLINE inline xsimd::batch<T, A> acosh(const xsimd::batch<T, A>& a, requires_arch<xsimd::generic>) {
    using B = xsimd::batch<T, A>;
    return xsimd::select(a < B(T(1)), B(std::numeric_limits<T>::quiet_NaN()), B(xsimd::acosh(a)));
}

/// tanh of a batch (xsimd's value, from `tanh_batch`).
template <class A, class T>
GRADC_ALWAYS_INLINE inline xsimd::batch<T, A> tanh(const xsimd::batch<T, A>& a, requires_arch<xsimd::generic>) {
    return tanh_batch<T, A>::value(a);
}

/// d tanh/da of a batch given y = tanh(a) (`tanh_batch`).
template <class A, class T>
GRADC_ALWAYS_INLINE inline xsimd::batch<T, A> tanh_derivative(const xsimd::batch<T, A>& a, const xsimd::batch<T, A>& y,
                                                              requires_arch<xsimd::generic>) {
    return tanh_batch<T, A>::derivative(a, y);
}

/// {tanh(a), d tanh/da} of a batch from one exponential (`tanh_batch`).
template <class A, class T>
GRADC_ALWAYS_INLINE inline std::pair<xsimd::batch<T, A>, xsimd::batch<T, A>> tanh_with_derivative(
    const xsimd::batch<T, A>& a, requires_arch<xsimd::generic>) {
    return tanh_batch<T, A>::with_derivative(a);
}

}  // namespace kernel

/// sinh(a).
template <class T>
GRADC_ALWAYS_INLINE inline T sinh(const T& a) {
    return on_convertible_lanes(a, [](const T& b) GRADC_ALWAYS_INLINE { using std::sinh; return T(sinh(b)); });
}

/// cosh(a).
template <class T>
GRADC_ALWAYS_INLINE inline T cosh(const T& a) {
    return on_convertible_lanes(a, [](const T& b) GRADC_ALWAYS_INLINE { using std::cosh; return T(cosh(b)); });
}

/// tanh(a).
template <class T>
    requires(!simd_batch<T>)
GRADC_ALWAYS_INLINE inline T tanh(const T& a) {
    using std::tanh;
    return T(tanh(a));
}
/// tanh(a) of a batch: xsimd's value, computed by `tanh_batch`.
template <class T, class A>
GRADC_ALWAYS_INLINE inline xsimd::batch<T, A> tanh(const xsimd::batch<T, A>& a) {
    return kernel::tanh(a, A{});
}

/// d tanh/da of a batch given y = tanh(a): 1 - y² near 0, 1/cosh²(a) from tanh's own
/// exponential elsewhere (hyperbolic_tangent.hpp).
template <class T, class A>
GRADC_ALWAYS_INLINE inline xsimd::batch<T, A> tanh_derivative(const xsimd::batch<T, A>& a, const xsimd::batch<T, A>& y) {
    return kernel::tanh_derivative(a, y, A{});
}

/// {tanh(a), d tanh/da} of a batch from one exponential, equal to `tanh` and
/// `tanh_derivative` bit for bit.
template <class T, class A>
GRADC_ALWAYS_INLINE inline std::pair<xsimd::batch<T, A>, xsimd::batch<T, A>> tanh_with_derivative(
    const xsimd::batch<T, A>& a) {
    return kernel::tanh_with_derivative(a, A{});
}

/// acosh(a), a ≥ 1 (NaN below).
template <class T>
    requires(!simd_batch<T>)
GRADC_ALWAYS_INLINE inline T acosh(const T& a) {
    using std::acosh;
    return T(acosh(a));
}
/// acosh(a) of a batch, NaN below 1 as C gives it.
template <class T, class A>
GRADC_ALWAYS_INLINE inline xsimd::batch<T, A> acosh(const xsimd::batch<T, A>& a) {
    return kernel::acosh(a, A{});
}

}  // namespace gradc::math
