#pragma once
/// \file
/// What the rule table needs to know about a value type `T` it is instantiated on:
/// its scalar type (for constants such as `K(0.5)`), and how to choose between two
/// values by a condition. Plain arithmetic types are handled here; SIMD batches and
/// tensors add their own specialisation or ADL overload of `select` next to their type.

#include <type_traits>

#include <gradc/always_inline.hpp>

// Rules and their helpers are forced inline: Note [Forced inlining] (gradc/always_inline.hpp).

namespace gradc::rules {

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
/// rules use it where xsimd's batch functions differ from C's at special values.
template <class T>
concept simd_batch = requires { typename T::arch_type; };

/// A dual number (rules/dual.hpp) of numbers or of SIMD batches: its comparisons look at
/// its value, giving a bool or a batch of bools, so a rule can choose a form lane by lane
/// on it as on its inner type.
template <class T>
concept ordered_dual = requires { typename T::inner_type; } &&
                       (std::is_floating_point_v<typename T::inner_type> || simd_batch<typename T::inner_type>);
/// A dual number of numbers (not of batches).
template <class T>
concept dual_of_number = ordered_dual<T> && std::is_floating_point_v<typename T::inner_type>;

/// A tensor of the dynamic mode, whose operations are recorded for backward; the rules'
/// other value types (scalars, batches, duals) are not.
template <class T>
concept dynamic_tensor = requires(const T& t) { t.requires_grad(); };

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

/// `a`, or `safe` where `discarded`: the operand of a branch that `if_else` discards
/// there. Only tensors need it. A tensor's backward runs through both operands of a
/// `select`, the discarded one with a zero gradient, so a discarded branch evaluated at its
/// singularity (log 0, 0⁻¹) turns that zero into 0·inf = NaN in a second derivative, where
/// the first derivative was a convention of the rule. PyTorch 1.13 gives that NaN; the
/// "Autograd mechanics" notes ("Gradients for non-differentiable functions") ask for a
/// value wherever the function is defined. Scalars, batches and duals select values, so
/// for them `a` is returned as it is, at no cost.
template <class C, class T>
T kept_branch_operand(const C& discarded, const T& a, double safe) {
    if constexpr (dynamic_tensor<T>) {
        return if_else<T>(discarded, safe, a);
    } else {
        return a;
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
}  // namespace gradc::rules
