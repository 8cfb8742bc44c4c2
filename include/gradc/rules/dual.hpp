#pragma once
/// \file
/// Dual numbers made from the rule table: a value and N tangents (directional
/// derivatives), `dual<T, N>`, whose every primitive is the rule's own value and local
/// partial applied to the tangents, y' = Σ_k ∂y/∂a_k · a_k'. No derivative formula is
/// written here; a primitive added to the rule table is a dual function by its list entry
/// (rules/list.hpp).
///
/// The lowered programs are generic in the value type, so running a gradient program on
/// duals differentiates the gradient itself: forward over reverse. With the tangents of
/// the inputs set to the unit vectors of the wrt variables, the tangents of the gradient
/// are the rows of the Hessian; with one tangent v, they are H·v (lower/second_order.hpp).
/// Because every local partial of the adjoint sweep is evaluated on duals, the derivative
/// of each partial comes from the rules too: the second derivatives are the rules' first
/// derivatives composed (docs/static.md, "Second order").
///
/// T is a scalar (double, float) or a SIMD batch; the tangents live in a std::array, so a
/// dual of a batch holds N + 1 batches. Conditions (comparisons, `isnan`) look at the
/// value only: a piecewise rule's branch is chosen by the value, and its tangent is that
/// branch's (the conventions at the kinks are the first-order ones, docs/static.md).

#include <array>
#include <cstddef>
#include <type_traits>
#include <utility>

#include <gradc/rules/arithmetic.hpp>
#include <gradc/rules/compare.hpp>
#include <gradc/rules/exponential.hpp>
#include <gradc/rules/hyperbolic.hpp>
#include <gradc/rules/list.hpp>
#include <gradc/rules/partial.hpp>
#include <gradc/rules/piecewise.hpp>
#include <gradc/rules/special.hpp>
#include <gradc/rules/trigonometric.hpp>
#include <gradc/rules/value_traits.hpp>

// Dual operations are forced inline: Note [Forced inlining] (gradc/always_inline.hpp).

namespace gradc::dual_numbers {

/// A dual number: a value and N tangents, each primitive applied by its rule.
template <class T, std::size_t N>
struct dual {
    /// The scalar type (double for a batch of doubles), for `rules::scalar_t`.
    using value_type = rules::scalar_t<T>;
    using inner_type = T;  ///< The value type of each component (a number or a batch).
    static constexpr std::size_t directions = N;  ///< The number of tangents.

    T value;  ///< The value.
    std::array<T, N> tangent;  ///< The N directional derivatives.

    dual() = default;
    /// A constant: zero tangents.
    dual(const T& v) : value(v) { tangent.fill(T(value_type(0))); }
    /// A scalar constant, for a dual of batches (`K(1) / x` in the rules).
    template <class K>
        requires(std::is_arithmetic_v<K> && !std::is_same_v<K, T>)
    dual(K k) : dual(T(value_type(k))) {}

    /// Compound arithmetic: the tangents follow the value's rule (rules/arithmetic.hpp).
    /// @{
    [[gnu::always_inline]] dual& operator+=(const dual& b) {
        value += b.value;
        for (std::size_t k = 0; k < N; ++k) tangent[k] += b.tangent[k];
        return *this;
    }
    [[gnu::always_inline]] dual& operator-=(const dual& b) {
        value -= b.value;
        for (std::size_t k = 0; k < N; ++k) tangent[k] -= b.tangent[k];
        return *this;
    }
    dual& operator*=(const dual& b);
    /// @}
};

/// Whether T is a dual number.
template <class T>
inline constexpr bool is_dual = false;
template <class T, std::size_t N>
inline constexpr bool is_dual<dual<T, N>> = true;  ///< A dual number.

// How a primitive's result is assembled: machinery of the functions below, left out of
// the API reference.
/// \cond INTERNAL
/// The result of a primitive: value y and tangents Σ_k scale(∂y/∂a_k, a_k'), where the
/// partials keep the structural forms of rules/partial.hpp (one, minus one, a gate).
template <class T, std::size_t N, class P>
GRADC_ALWAYS_INLINE inline dual<T, N> chain(const T& y, const P& p, const dual<T, N>& a) {
    dual<T, N> r;
    r.value = y;
    for (std::size_t k = 0; k < N; ++k) r.tangent[k] = rules::scale(p, a.tangent[k]);
    return r;
}

template <class T, std::size_t N, class P, class Q>
GRADC_ALWAYS_INLINE inline dual<T, N> chain(const T& y, const P& p, const dual<T, N>& a, const Q& q, const dual<T, N>& b) {
    dual<T, N> r;
    r.value = y;
    for (std::size_t k = 0; k < N; ++k) r.tangent[k] = rules::scale(p, a.tangent[k]) + rules::scale(q, b.tangent[k]);
    return r;
}

/// A one-operand rule on a dual: its value and partial on the value (together, when the
/// rule computes them together: sin and cos share one sincos). The lowered programs
/// evaluate every primitive on duals through here (lower/steps.hpp), never through the
/// rule's `eval` on duals: that would differentiate how `eval` is written rather than use
/// the rule's partial, which differs at the kinks (max at a tie selects one operand;
/// softplus's stable form has an `abs` whose derivative at 0 is 0).
/// `Carries` = false says that the operand's tangents are known to be zero (a constant, or
/// a value that depends on no differentiated variable): its term is skipped, since
/// 0·p cannot be folded away in IEEE arithmetic (p may be infinite).
template <class R, bool Carries = true, class T, std::size_t N>
GRADC_ALWAYS_INLINE inline dual<T, N> apply_rule(const dual<T, N>& a) {
    if constexpr (!Carries) {
        return dual<T, N>(R::eval(a.value));
    } else if constexpr (rules::fused_rule<R, T>) {
        const auto r = R::eval_with_partials(a.value);
        return chain(r.value, r.partial[0], a);
    } else {
        const T y = R::eval(a.value);
        return chain(y, R::partial(rules::arg<0>, a.value, y), a);
    }
}

/// A two-operand rule on duals (with the same `Carries` flags, one per operand).
template <class R, bool CarriesA = true, bool CarriesB = true, class T, std::size_t N>
GRADC_ALWAYS_INLINE inline dual<T, N> apply_rule(const dual<T, N>& a, const dual<T, N>& b) {
    const T y = R::eval(a.value, b.value);
    if constexpr (CarriesA && CarriesB) {
        return chain(y, R::partial(rules::arg<0>, a.value, b.value, y), a, R::partial(rules::arg<1>, a.value, b.value, y),
                     b);
    } else if constexpr (CarriesA) {
        return chain(y, R::partial(rules::arg<0>, a.value, b.value, y), a);
    } else if constexpr (CarriesB) {
        return chain(y, R::partial(rules::arg<1>, a.value, b.value, y), b);
    } else {
        return dual<T, N>(y);
    }
}

/// \endcond
// ---- arithmetic: the rules add, sub, mul, div, neg ---------------------------------------

/// The arithmetic operators of dual numbers: the rules add, sub, mul, div and neg on the
/// value and the tangents.
/// @{
template <class T, std::size_t N>
GRADC_ALWAYS_INLINE inline dual<T, N> operator+(const dual<T, N>& a, const dual<T, N>& b) { return apply_rule<rules::add>(a, b); }
template <class T, std::size_t N>
GRADC_ALWAYS_INLINE inline dual<T, N> operator-(const dual<T, N>& a, const dual<T, N>& b) { return apply_rule<rules::sub>(a, b); }
template <class T, std::size_t N>
GRADC_ALWAYS_INLINE inline dual<T, N> operator*(const dual<T, N>& a, const dual<T, N>& b) { return apply_rule<rules::mul>(a, b); }
template <class T, std::size_t N>
GRADC_ALWAYS_INLINE inline dual<T, N> operator/(const dual<T, N>& a, const dual<T, N>& b) { return apply_rule<rules::div>(a, b); }
template <class T, std::size_t N>
GRADC_ALWAYS_INLINE inline dual<T, N> operator-(const dual<T, N>& a) { return apply_rule<rules::neg>(a); }
template <class T, std::size_t N>
GRADC_ALWAYS_INLINE inline dual<T, N> operator+(const dual<T, N>& a) { return a; }

/// @}
template <class T, std::size_t N>
GRADC_ALWAYS_INLINE inline dual<T, N>& dual<T, N>::operator*=(const dual& b) {
    return *this = *this * b;
}

/// With a scalar constant (a literal of a rule such as `K(1) / x`): the constant's
/// partial is never formed, so its zero tangent costs nothing. These are the same rules
/// with the constant's tangent known to be zero.
template <class K, class T>
concept scalar_for = std::is_arithmetic_v<K> || std::is_same_v<K, T>;

/// @{
/// A dual number and a constant (its tangent zero), either side.
template <class T, std::size_t N, scalar_for<T> K>
GRADC_ALWAYS_INLINE inline dual<T, N> operator+(const dual<T, N>& a, K c) { return chain(T(a.value + c), rules::one, a); }
template <class T, std::size_t N, scalar_for<T> K>
GRADC_ALWAYS_INLINE inline dual<T, N> operator+(K c, const dual<T, N>& a) { return chain(T(c + a.value), rules::one, a); }
template <class T, std::size_t N, scalar_for<T> K>
GRADC_ALWAYS_INLINE inline dual<T, N> operator-(const dual<T, N>& a, K c) { return chain(T(a.value - c), rules::one, a); }
template <class T, std::size_t N, scalar_for<T> K>
GRADC_ALWAYS_INLINE inline dual<T, N> operator-(K c, const dual<T, N>& a) { return chain(T(c - a.value), rules::minus_one, a); }
template <class T, std::size_t N, scalar_for<T> K>
GRADC_ALWAYS_INLINE inline dual<T, N> operator*(const dual<T, N>& a, K c) { return chain(T(a.value * c), T(c), a); }
template <class T, std::size_t N, scalar_for<T> K>
GRADC_ALWAYS_INLINE inline dual<T, N> operator*(K c, const dual<T, N>& a) { return chain(T(c * a.value), T(c), a); }
template <class T, std::size_t N, scalar_for<T> K>
GRADC_ALWAYS_INLINE inline dual<T, N> operator/(const dual<T, N>& a, K c) {
    return chain(T(a.value / c), rules::div::partial(rules::arg<0>, a.value, T(c), a.value), a);
}
template <class T, std::size_t N, scalar_for<T> K>
GRADC_ALWAYS_INLINE inline dual<T, N> operator/(K c, const dual<T, N>& b) {
    const T y = c / b.value;
    return chain(y, rules::div::partial(rules::arg<1>, T(c), b.value, y), b);
}

/// @}
// ---- conditions: on the value ------------------------------------------------------------

#define GRADC_DUAL_COMPARISON(op)                                                                 \
    template <class T, std::size_t N>                                                             \
    auto operator op(const dual<T, N>& a, const dual<T, N>& b) { return a.value op b.value; }     \
    template <class T, std::size_t N, scalar_for<T> K>                                         \
    GRADC_ALWAYS_INLINE inline auto operator op(const dual<T, N>& a, K c) { return a.value op T(c); }                         \
    template <class T, std::size_t N, scalar_for<T> K>                                         \
    GRADC_ALWAYS_INLINE inline auto operator op(K c, const dual<T, N>& b) { return T(c) op b.value; }
GRADC_DUAL_COMPARISON(<)
GRADC_DUAL_COMPARISON(<=)
GRADC_DUAL_COMPARISON(>)
GRADC_DUAL_COMPARISON(>=)
GRADC_DUAL_COMPARISON(==)
#undef GRADC_DUAL_COMPARISON

/// `!=` is true where either value is NaN, on batches too (rules::not_equal_to: xsimd's
/// batch `!=` is ordered).
template <class T, std::size_t N>
GRADC_ALWAYS_INLINE inline auto operator!=(const dual<T, N>& a, const dual<T, N>& b) {
    return rules::not_equal_to::eval(a.value, b.value);
}
/// `!=` of a dual and a number, NaN-aware as above.
template <class T, std::size_t N, scalar_for<T> K>
GRADC_ALWAYS_INLINE inline auto operator!=(const dual<T, N>& a, K c) {
    return rules::not_equal_to::eval(a.value, T(c));
}
/// `!=` of a number and a dual, NaN-aware as above.
template <class T, std::size_t N, scalar_for<T> K>
GRADC_ALWAYS_INLINE inline auto operator!=(K c, const dual<T, N>& b) {
    return rules::not_equal_to::eval(T(c), b.value);
}

/// Where the value is NaN (the tangents are not looked at).
template <class T, std::size_t N>
GRADC_ALWAYS_INLINE inline auto isnan(const dual<T, N>& a) {
    using std::isnan;
    return isnan(a.value);
}

/// Lane by lane `c ? a : b` for a dual of batches (rules::if_else defers to it).
template <class C, class T, std::size_t N>
GRADC_ALWAYS_INLINE inline dual<T, N> select(const C& c, const dual<T, N>& a, const dual<T, N>& b) {
    dual<T, N> r;
    r.value = rules::if_else<T>(c, a.value, b.value);
    for (std::size_t k = 0; k < N; ++k) r.tangent[k] = rules::if_else<T>(c, a.tangent[k], b.tangent[k]);
    return r;
}

// ---- every primitive of the rule table, by its list entry --------------------------------

#define GRADC_DUAL_UNARY(rule, tensor_op)                 \
    template <class T, std::size_t N>                     \
    GRADC_ALWAYS_INLINE inline dual<T, N> rule(const dual<T, N>& a) {                \
        return apply_rule<rules::rule>(a);                \
    }
#define GRADC_DUAL_BINARY(rule, tensor_op)                          \
    template <class T, std::size_t N>                               \
    GRADC_ALWAYS_INLINE inline dual<T, N> rule(const dual<T, N>& a, const dual<T, N>& b) {     \
        return apply_rule<rules::rule>(a, b);                       \
    }
GRADC_UNARY_PRIMITIVES(GRADC_DUAL_UNARY)
GRADC_BINARY_PRIMITIVES(GRADC_DUAL_BINARY)
#undef GRADC_DUAL_UNARY
#undef GRADC_DUAL_BINARY

/// {sin(a), cos(a)} with one sincos of the value: the sin rule's fused form gives sin and
/// its partial cos; the cos rule's partial is -sin, the value already at hand.
template <class T, std::size_t N>
GRADC_ALWAYS_INLINE inline std::pair<dual<T, N>, dual<T, N>> sincos(const dual<T, N>& a) {
    const auto s = rules::sin::eval_with_partials(a.value);
    const T c = s.partial[0];
    return {chain(s.value, c, a), chain(c, T(-s.value), a)};
}

}  // namespace gradc::dual_numbers

namespace gradc {
using dual_numbers::dual;
}  // namespace gradc
