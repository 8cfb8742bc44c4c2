#pragma once
/// \file
/// Arithmetic primitives: + - * / and unary minus.

#include <gradc/rules/rule.hpp>

// Each rule's members are the Rule concept's, documented once in rules/rule.hpp; the API
// reference hides them per rule (the INTERNAL sections) instead of repeating them.
namespace gradc::rules {

/// add(a, b) = a + b;  d/da = 1, d/db = 1.
struct add {
    /// \cond INTERNAL
    static constexpr std::string_view name = "add";
    static constexpr int arity = 2;
    static constexpr std::array<std::string_view, 2> partial_text{"1", "1"};
    static constexpr reads_t reads{};
    static constexpr test_domain domain = test_domain::everywhere;
    static constexpr bool complex_form = true;
    template <class T>
    GRADC_ALWAYS_INLINE inline static T eval(const T& a, const T& b) { return a + b; }
    template <class T>
    GRADC_ALWAYS_INLINE inline static one_t partial(arg_t<0>, const T&, const T&, const T&) { return one; }
    template <class T>
    GRADC_ALWAYS_INLINE inline static one_t partial(arg_t<1>, const T&, const T&, const T&) { return one; }
    /// \endcond
};

/// sub(a, b) = a - b;  d/da = 1, d/db = -1.
struct sub {
    /// \cond INTERNAL
    static constexpr std::string_view name = "sub";
    static constexpr int arity = 2;
    static constexpr std::array<std::string_view, 2> partial_text{"1", "-1"};
    static constexpr reads_t reads{};
    static constexpr test_domain domain = test_domain::everywhere;
    static constexpr bool complex_form = true;
    template <class T>
    GRADC_ALWAYS_INLINE inline static T eval(const T& a, const T& b) { return a - b; }
    template <class T>
    GRADC_ALWAYS_INLINE inline static one_t partial(arg_t<0>, const T&, const T&, const T&) { return one; }
    template <class T>
    GRADC_ALWAYS_INLINE inline static minus_one_t partial(arg_t<1>, const T&, const T&, const T&) { return minus_one; }
    /// \endcond
};

/// mul(a, b) = a * b;  d/da = b, d/db = a.
struct mul {
    /// \cond INTERNAL
    static constexpr std::string_view name = "mul";
    static constexpr int arity = 2;
    static constexpr std::array<std::string_view, 2> partial_text{"b", "a"};
    static constexpr reads_t reads{.a = true, .b = true};
    static constexpr test_domain domain = test_domain::everywhere;
    static constexpr bool complex_form = true;
    template <class T>
    GRADC_ALWAYS_INLINE inline static T eval(const T& a, const T& b) { return a * b; }
    template <class T>
    GRADC_ALWAYS_INLINE inline static T partial(arg_t<0>, const T&, const T& b, const T&) { return b; }
    template <class T>
    GRADC_ALWAYS_INLINE inline static T partial(arg_t<1>, const T& a, const T&, const T&) { return a; }
    /// \endcond
};

/// div(a, b) = a / b;  d/da = 1/b, d/db = y·(-1/b)  (= -a/b²). Both partials use the
/// same reciprocal, which the compiler computes once when both are needed (and, with b
/// the same at every point of a map-reduce, -1/b once for all points).
struct div {
    /// \cond INTERNAL
    static constexpr std::string_view name = "div";
    static constexpr int arity = 2;
    static constexpr std::array<std::string_view, 2> partial_text{"1/b", "y*(-1/b)"};
    static constexpr reads_t reads{.b = true, .y = true};
    static constexpr test_domain domain = test_domain::everywhere;
    static constexpr bool complex_form = true;
    template <class T>
    GRADC_ALWAYS_INLINE inline static T eval(const T& a, const T& b) { return a / b; }
    template <class T>
    GRADC_ALWAYS_INLINE inline static T partial(arg_t<0>, const T&, const T& b, const T&) { return scalar_t<T>(1) / b; }
    template <class T>
    GRADC_ALWAYS_INLINE inline static T partial(arg_t<1>, const T&, const T& b, const T& y) { return y * -(scalar_t<T>(1) / b); }
    /// With b the same at every point of a map-reduce: a·(1/b), the reciprocal computed
    /// once outside the loop. One multiplication per point instead of a division; the
    /// result may differ from a/b by one unit in the last place (docs/static.md).
    template <class T>
    GRADC_ALWAYS_INLINE inline static T eval_fixed(arg_t<1>, const T& a, const T& b) { return a * (scalar_t<T>(1) / b); }
    /// \endcond
};

/// neg(a) = -a;  d/da = -1.
struct neg {
    /// \cond INTERNAL
    static constexpr std::string_view name = "neg";
    static constexpr int arity = 1;
    static constexpr std::array<std::string_view, 1> partial_text{"-1"};
    static constexpr reads_t reads{};
    static constexpr test_domain domain = test_domain::everywhere;
    static constexpr bool complex_form = true;
    /// On batches a·(-1): xsimd 8.1's batch negation is 0 - a, which gives +0 for +0 (C's
    /// -0.0 is -0), and the sign of a zero decides atan2, 1/x and copysign downstream.
    template <class T>
    GRADC_ALWAYS_INLINE inline static T eval(const T& a) {
        if constexpr (simd_batch<T>) return a * scalar_t<T>(-1);
        else return -a;
    }
    template <class T>
    GRADC_ALWAYS_INLINE inline static minus_one_t partial(arg_t<0>, const T&, const T&) { return minus_one; }
    /// \endcond
};

// Affine operands (rule.hpp): a + b and a - b in each; linear: -a, a·b in each factor, a/b in a.
/// \cond INTERNAL
template <> inline constexpr affinity affine_in<add, 0> = affinity::affine;
template <> inline constexpr affinity affine_in<add, 1> = affinity::affine;
template <> inline constexpr affinity affine_in<sub, 0> = affinity::affine;
template <> inline constexpr affinity affine_in<sub, 1> = affinity::affine;
template <> inline constexpr affinity affine_in<neg, 0> = affinity::linear;
template <> inline constexpr affinity affine_in<mul, 0> = affinity::linear;
template <> inline constexpr affinity affine_in<mul, 1> = affinity::linear;
template <> inline constexpr affinity affine_in<div, 0> = affinity::linear;
/// \endcond

}  // namespace gradc::rules
