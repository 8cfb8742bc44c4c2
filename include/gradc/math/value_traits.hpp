#pragma once
/// \file
/// What the math functions (and the rules above them) need to know about a value type
/// `T`: its scalar type (for constants such as `K(0.5)`), whether it is an xsimd batch,
/// and how to choose between two values by a condition, lane by lane. Plain arithmetic
/// types are handled here; SIMD batches and tensors bring their own `select`, found by
/// argument-dependent lookup.

#include <type_traits>

#include <gradc/always_inline.hpp>

namespace gradc::math {

/// Scalar type of a value type: `double` for `double`, `float` for
/// `xsimd::batch<float>`, ... Constants inside rules are written `K(1)` with
/// `using K = scalar_t<T>` so that they mix with every value type without conversions.
template <class T, class = void>
struct scalar_of {
    using type = T;  ///< The scalar type.
};

/// \cond INTERNAL
template <class T>
struct scalar_of<T, std::void_t<typename T::value_type>> {
    using type = typename T::value_type;
};

/// \endcond
/// The scalar type of `T` (`scalar_of<T>::type`).
template <class T>
using scalar_t = typename scalar_of<T>::type;

/// An xsimd batch (its architecture is a member type); other value types have none. The
/// math functions use it where xsimd's batch functions differ from C's at special values.
template <class T>
concept simd_batch = requires { typename T::arch_type; };

/// `if_else<R>(c, a, b)`: `c ? a : b` lane by lane, converted to `R` (by default the
/// non-scalar one of `A`, `B`). For `bool` conditions it is the conditional operator;
/// otherwise it defers to an ADL-found `select(c, a, b)` (xsimd's for batches, the
/// tensor's own for tensors).
template <class R = void, class C, class A, class B>
constexpr auto if_else(const C& c, const A& a, const B& b) {
    using Res = std::conditional_t<!std::is_void_v<R>, R,
                                   std::conditional_t<std::is_arithmetic_v<A>, B, A>>;
    if constexpr (std::is_same_v<C, bool>) {
        return c ? Res(a) : Res(b);
    } else {
        return select(c, Res(a), Res(b));
    }
}

/// @{
/// Lane-wise logical operations on conditions (`bool`, `xsimd::batch_bool`, bool tensors).
template <class C>
constexpr C logical_and(const C& a, const C& b) {
    if constexpr (std::is_same_v<C, bool>) {
        return a && b;
    } else {
        return a & b;
    }
}

template <class C>
constexpr C logical_or(const C& a, const C& b) {
    if constexpr (std::is_same_v<C, bool>) {
        return a || b;
    } else {
        return a | b;
    }
}

/// Exactly one of a and b, from and, or and not: xsimd 8.1's own operations on two
/// batch_bool get it wrong on some architectures (SSE2's != compares the all-ones masks
/// as doubles, NaN patterns, so true != true is true; AVX-512's ^ gives true ^ true =
/// true), which tests/rules/test_special_values.cpp catches through pow's special values.
template <class C>
constexpr C logical_xor(const C& a, const C& b) {
    if constexpr (std::is_same_v<C, bool>) {
        return a != b;
    } else {
        return (a & ~b) | (~a & b);
    }
}

template <class C>
constexpr C logical_not(const C& a) {
    if constexpr (std::is_same_v<C, bool>) {
        return !a;
    } else {
        return ~a;
    }
}

/// @}
}  // namespace gradc::math
