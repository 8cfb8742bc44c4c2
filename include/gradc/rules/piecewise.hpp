#pragma once
/// \file
/// Piecewise primitives: abs, relu, min, max and where. Their conventions at the kinks
/// follow the autograd notes and PyTorch, and each is written next to its rule.

#include <cmath>

#include <gradc/rules/rule.hpp>

// Each rule's members are the Rule concept's, documented once in rules/rule.hpp; the API
// reference hides them per rule (the INTERNAL sections) instead of repeating them.
namespace gradc::rules {

/// abs(a);  d/da = sign(a).  Convention (autograd notes): abs'(0) = 0.
struct abs {
    /// \cond INTERNAL
    static constexpr std::string_view name = "abs";
    static constexpr int arity = 1;
    static constexpr std::array<std::string_view, 1> partial_text{"sign(a)"};
    static constexpr reads_t reads{.a = true};
    static constexpr test_domain domain = test_domain::everywhere;
    template <class T>
    GRADC_ALWAYS_INLINE inline static T eval(const T& a) { using std::abs; return abs(a); }
    template <class T>
    GRADC_ALWAYS_INLINE inline static T partial(arg_t<0>, const T& a, const T&) {
        using K = scalar_t<T>;
        return if_else<T>(a > K(0), K(1), if_else<T>(a < K(0), K(-1), K(0)));
    }
    /// \endcond
};

/// relu(a) = max(a, 0), NaN propagating;  d/da = [a > 0].
/// Convention (autograd notes): relu'(0) = 0.
struct relu {
    /// \cond INTERNAL
    static constexpr std::string_view name = "relu";
    static constexpr int arity = 1;
    static constexpr std::array<std::string_view, 1> partial_text{"[a > 0]"};
    static constexpr reads_t reads{.a = true};
    static constexpr test_domain domain = test_domain::everywhere;
    template <class T>
    GRADC_ALWAYS_INLINE inline static T eval(const T& a) {
        using K = scalar_t<T>;
        return if_else<T>(a <= K(0), K(0), a);
    }
    template <class T>
    GRADC_ALWAYS_INLINE inline static auto partial(arg_t<0>, const T& a, const T&) { return gate{a > scalar_t<T>(0)}; }
    /// \endcond
};

/// max(a, b), NaN propagating like torch.maximum (on SIMD batches too: the NaN test is
/// `isnan`, not `a != a`, which xsimd evaluates as an ordered comparison);
/// d/da = 1/2 where a = b, 0 where a < b, else 1: ties split evenly, and where a or b is
/// NaN both operands get the whole incoming derivative, as PyTorch's maximum backward.
struct max {
    /// \cond INTERNAL
    static constexpr std::string_view name = "max";
    static constexpr int arity = 2;
    static constexpr std::array<std::string_view, 2> partial_text{
        "a == b ? 0.5 : a < b ? 0 : 1", "a == b ? 0.5 : b < a ? 0 : 1"};
    static constexpr reads_t reads{.a = true, .b = true};
    static constexpr test_domain domain = test_domain::everywhere;
    template <class T>
    GRADC_ALWAYS_INLINE inline static T eval(const T& a, const T& b) {
        using std::isnan;
        return if_else<T>(logical_or(a >= b, isnan(a)), a, b);
    }
    template <class T>
    GRADC_ALWAYS_INLINE inline static T partial(arg_t<0>, const T& a, const T& b, const T&) { return winner_share(a, b); }
    template <class T>
    GRADC_ALWAYS_INLINE inline static T partial(arg_t<1>, const T& a, const T& b, const T&) { return winner_share(b, a); }

    /// The share of the derivative that goes to `mine`: 0 only where it strictly loses.
    template <class T>
    static T winner_share(const T& mine, const T& other) {
        using K = scalar_t<T>;
        return if_else<T>(mine == other, K(0.5), if_else<T>(mine < other, K(0), K(1)));
    }
    /// \endcond
};

/// min(a, b), NaN propagating like torch.minimum (`isnan`, as max);
/// d/da = 1/2 where a = b, 0 where a > b, else 1 (ties split evenly; with a NaN operand
/// both get the whole derivative, as PyTorch's minimum backward).
struct min {
    /// \cond INTERNAL
    static constexpr std::string_view name = "min";
    static constexpr int arity = 2;
    static constexpr std::array<std::string_view, 2> partial_text{
        "a == b ? 0.5 : a > b ? 0 : 1", "a == b ? 0.5 : b > a ? 0 : 1"};
    static constexpr reads_t reads{.a = true, .b = true};
    static constexpr test_domain domain = test_domain::everywhere;
    template <class T>
    GRADC_ALWAYS_INLINE inline static T eval(const T& a, const T& b) {
        using std::isnan;
        return if_else<T>(logical_or(a <= b, isnan(a)), a, b);
    }
    template <class T>
    GRADC_ALWAYS_INLINE inline static T partial(arg_t<0>, const T& a, const T& b, const T&) { return max::winner_share(b, a); }
    template <class T>
    GRADC_ALWAYS_INLINE inline static T partial(arg_t<1>, const T& a, const T& b, const T&) { return max::winner_share(a, b); }
    /// \endcond
};

/// where(c, a, b) = c ? a : b;  d/da = [c], d/db = [!c]; c has no derivative.
/// The partials are gates, so an infinite derivative on the branch not taken stays out
/// (PyTorch's `where(c, grad, 0)`). In `partial_text`, operands are named by position
/// (a = the condition, b, c = the branches), as for every rule.
struct where {
    /// \cond INTERNAL
    static constexpr std::string_view name = "where";
    static constexpr int arity = 3;
    static constexpr std::array<std::string_view, 3> partial_text{"", "[a]", "[!a]"};
    static constexpr reads_t reads{.a = true};
    static constexpr test_domain domain = test_domain::everywhere;
    template <class C, class T>
    GRADC_ALWAYS_INLINE inline static T eval(const C& c, const T& a, const T& b) { return if_else<T>(c, a, b); }
    template <class C, class T>
    GRADC_ALWAYS_INLINE inline static auto partial(arg_t<1>, const C& c, const T&, const T&, const T&) { return gate{c}; }
    template <class C, class T>
    GRADC_ALWAYS_INLINE inline static auto partial(arg_t<2>, const C& c, const T&, const T&, const T&) {
        return gate{logical_not(c)};
    }
    /// \endcond
};

/// \cond INTERNAL
template <>
inline constexpr bool is_differentiable_operand<where, 0> = false;
// where(c, a, b) = [c]·a + [!c]·b: affine in each branch.
template <>
inline constexpr affinity affine_in<where, 1> = affinity::affine;
template <>
inline constexpr affinity affine_in<where, 2> = affinity::affine;
// Their partials read the operands only to choose among constants (sign(a), [a > 0], the
// winner's share), as their dual numbers compute them: no second derivative.
template <>
inline constexpr bool piecewise_constant_partials<abs> = true;
template <>
inline constexpr bool piecewise_constant_partials<relu> = true;
template <>
inline constexpr bool piecewise_constant_partials<max> = true;
template <>
inline constexpr bool piecewise_constant_partials<min> = true;
/// \endcond

}  // namespace gradc::rules
