#pragma once
/// \file
/// The functions whose xsimd batch forms agree with C's: each is the value type's own
/// (`std::` for numbers, xsimd's for batches, the type's for complex numbers, dual numbers
/// and tensors, found by argument-dependent lookup). They are here so that every rule's
/// value is a call of `gradc::math`, and so that a batch form that needs mending later
/// gets its overload here without touching a rule.

#include <cmath>
#include <utility>

#include <gradc/always_inline.hpp>

namespace gradc::math {

// Each is `using std::f; return f(a);`: inside gradc::math, an unqualified `f(a)` would
// find gradc::math::f itself without the block-scope using-declaration.

/// √a.
template <class T>
GRADC_ALWAYS_INLINE inline T sqrt(const T& a) {
    using std::sqrt;
    return T(sqrt(a));
}

/// sin(a).
template <class T>
GRADC_ALWAYS_INLINE inline T sin(const T& a) {
    using std::sin;
    return T(sin(a));
}

/// cos(a).
template <class T>
GRADC_ALWAYS_INLINE inline T cos(const T& a) {
    using std::cos;
    return T(cos(a));
}

/// tan(a).
template <class T>
GRADC_ALWAYS_INLINE inline T tan(const T& a) {
    using std::tan;
    return T(tan(a));
}

/// asin(a), a in [-1, 1].
template <class T>
GRADC_ALWAYS_INLINE inline T asin(const T& a) {
    using std::asin;
    return T(asin(a));
}

/// acos(a), a in [-1, 1].
template <class T>
GRADC_ALWAYS_INLINE inline T acos(const T& a) {
    using std::acos;
    return T(acos(a));
}

/// atan(a).
template <class T>
GRADC_ALWAYS_INLINE inline T atan(const T& a) {
    using std::atan;
    return T(atan(a));
}

/// asinh(a).
template <class T>
GRADC_ALWAYS_INLINE inline T asinh(const T& a) {
    using std::asinh;
    return T(asinh(a));
}

/// atanh(a), a in (-1, 1).
template <class T>
GRADC_ALWAYS_INLINE inline T atanh(const T& a) {
    using std::atanh;
    return T(atanh(a));
}


namespace detail {

void sincos() = delete;  // lookup of `sincos` here finds this, and argument-dependent lookup the type's own

/// The value type's own sincos, found by argument-dependent lookup (xsimd's for batches,
/// the dual number's): the pair a type computes together.
template <class T>
auto own_sincos(const T& a) -> decltype(sincos(a)) {
    return sincos(a);
}

}  // namespace detail

/// {sin(a), cos(a)}. SIMD batches take `xsimd::sincos` (one range reduction and one pair
/// of polynomials for both, bit for bit equal to xsimd's sin and cos), dual numbers their
/// own (rules/dual.hpp); other types compute the two separately.
template <class T>
GRADC_ALWAYS_INLINE inline std::pair<T, T> sincos(const T& a) {
    if constexpr (requires { detail::own_sincos(a); }) {
        const auto [s, c] = detail::own_sincos(a);
        return {T(s), T(c)};
    } else {
        using std::cos;
        using std::sin;
        return {sin(a), cos(a)};
    }
}

}  // namespace gradc::math
