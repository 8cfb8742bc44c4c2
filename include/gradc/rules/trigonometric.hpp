#pragma once
/// \file
/// Circular functions and their inverses, atan2 and hypot.

#include <cmath>
#include <limits>
#include <utility>

#include <gradc/math/polar.hpp>
#include <gradc/math/standard.hpp>
#include <gradc/rules/rule.hpp>

// Each rule's members are the Rule concept's, documented once in rules/rule.hpp; the API
// reference hides them per rule (the INTERNAL sections) instead of repeating them.
namespace gradc::rules {

/// sin(a);  d/da = cos(a).
struct sin {
    /// \cond INTERNAL
    static constexpr std::string_view name = "sin";
    static constexpr int arity = 1;
    static constexpr std::array<std::string_view, 1> partial_text{"cos(a)"};
    static constexpr reads_t reads{.a = true};
    static constexpr test_domain domain = test_domain::everywhere;
    static constexpr bool complex_form = true;
    template <class T>
    GRADC_ALWAYS_INLINE inline static T eval(const T& a) { return math::sin(a); }
    template <class T>
    GRADC_ALWAYS_INLINE inline static T partial(arg_t<0>, const T& a, const T&) { using std::cos; return cos(a); }
    template <class T>
    GRADC_ALWAYS_INLINE inline static value_and_partials<T, 1> eval_with_partials(const T& a) {
        auto [s, c] = math::sincos(a);
        return {s, {c}};
    }
    /// \endcond
};

/// cos(a);  d/da = -sin(a).
struct cos {
    /// \cond INTERNAL
    static constexpr std::string_view name = "cos";
    static constexpr int arity = 1;
    static constexpr std::array<std::string_view, 1> partial_text{"-sin(a)"};
    static constexpr reads_t reads{.a = true};
    static constexpr test_domain domain = test_domain::everywhere;
    static constexpr bool complex_form = true;
    template <class T>
    GRADC_ALWAYS_INLINE inline static T eval(const T& a) { return math::cos(a); }
    template <class T>
    GRADC_ALWAYS_INLINE inline static T partial(arg_t<0>, const T& a, const T&) { using std::sin; return -sin(a); }
    template <class T>
    GRADC_ALWAYS_INLINE inline static value_and_partials<T, 1> eval_with_partials(const T& a) {
        auto [s, c] = math::sincos(a);
        return {c, {-s}};
    }
    /// \endcond
};

/// tan(a);  d/da = 1 + y².
struct tan {
    /// \cond INTERNAL
    static constexpr std::string_view name = "tan";
    static constexpr int arity = 1;
    static constexpr std::array<std::string_view, 1> partial_text{"1+y*y"};
    static constexpr reads_t reads{.y = true};
    static constexpr test_domain domain = test_domain::moderate;
    static constexpr bool complex_form = true;
    template <class T>
    GRADC_ALWAYS_INLINE inline static T eval(const T& a) { return math::tan(a); }
    template <class T>
    GRADC_ALWAYS_INLINE inline static T partial(arg_t<0>, const T&, const T& y) { return scalar_t<T>(1) + y * y; }
    /// \endcond
};

/// asin(a);  d/da = 1/sqrt(1 - a²)  (+inf at ±1, NaN outside [-1, 1]), computed as
/// 1/sqrt((1 - a)(1 + a)): 1 - a is exact near 1, where 1 - a·a cancels.
struct asin {
    /// \cond INTERNAL
    static constexpr std::string_view name = "asin";
    static constexpr int arity = 1;
    static constexpr std::array<std::string_view, 1> partial_text{"1/sqrt((1-a)*(1+a))"};
    static constexpr reads_t reads{.a = true};
    static constexpr test_domain domain = test_domain::inside_unit;
    static constexpr bool complex_form = true;
    template <class T>
    GRADC_ALWAYS_INLINE inline static T eval(const T& a) { return math::asin(a); }
    template <class T>
    GRADC_ALWAYS_INLINE inline static T partial(arg_t<0>, const T& a, const T&) {
        using std::sqrt;
        using K = scalar_t<T>;
        return K(1) / sqrt((K(1) - a) * (K(1) + a));
    }
    /// \endcond
};

/// acos(a);  d/da = -1/sqrt(1 - a²)  (-inf at ±1).
struct acos {
    /// \cond INTERNAL
    static constexpr std::string_view name = "acos";
    static constexpr int arity = 1;
    static constexpr std::array<std::string_view, 1> partial_text{"-1/sqrt((1-a)*(1+a))"};
    static constexpr reads_t reads{.a = true};
    static constexpr test_domain domain = test_domain::inside_unit;
    static constexpr bool complex_form = true;
    template <class T>
    GRADC_ALWAYS_INLINE inline static T eval(const T& a) { return math::acos(a); }
    template <class T>
    GRADC_ALWAYS_INLINE inline static T partial(arg_t<0>, const T& a, const T&) {
        using std::sqrt;
        using K = scalar_t<T>;
        return K(-1) / sqrt((K(1) - a) * (K(1) + a));
    }
    /// \endcond
};

/// atan(a);  d/da = 1/(1 + a²).
struct atan {
    /// \cond INTERNAL
    static constexpr std::string_view name = "atan";
    static constexpr int arity = 1;
    static constexpr std::array<std::string_view, 1> partial_text{"1/(1+a*a)"};
    static constexpr reads_t reads{.a = true};
    static constexpr test_domain domain = test_domain::everywhere;
    static constexpr bool complex_form = true;
    template <class T>
    GRADC_ALWAYS_INLINE inline static T eval(const T& a) { return math::atan(a); }
    template <class T>
    GRADC_ALWAYS_INLINE inline static T partial(arg_t<0>, const T& a, const T&) {
        using K = scalar_t<T>;
        return K(1) / (K(1) + a * a);
    }
    /// \endcond
};

/// atan2(a, b): the angle of the point (b, a);  d/da = b/(a² + b²), d/db = -a/(a² + b²)
/// (NaN at the origin, as PyTorch).
struct atan2 {
    /// \cond INTERNAL
    static constexpr std::string_view name = "atan2";
    static constexpr int arity = 2;
    static constexpr std::array<std::string_view, 2> partial_text{"b/(a*a+b*b)", "-a/(a*a+b*b)"};
    static constexpr reads_t reads{.a = true, .b = true};
    static constexpr test_domain domain = test_domain::everywhere;
    template <class T>
    GRADC_ALWAYS_INLINE inline static T eval(const T& a, const T& b) { return math::atan2(a, b); }
    template <class T>
    GRADC_ALWAYS_INLINE inline static T partial(arg_t<0>, const T& a, const T& b, const T&) { return b / (a * a + b * b); }
    template <class T>
    GRADC_ALWAYS_INLINE inline static T partial(arg_t<1>, const T& a, const T& b, const T&) { return -a / (a * a + b * b); }
    /// \endcond
};

/// hypot(a, b) = sqrt(a² + b²) without overflow, +inf if either is infinite (even with NaN);  d/da = a/y, d/db = b/y
/// (NaN at the origin, as PyTorch).
struct hypot {
    /// \cond INTERNAL
    static constexpr std::string_view name = "hypot";
    static constexpr int arity = 2;
    static constexpr std::array<std::string_view, 2> partial_text{"a/y", "b/y"};
    static constexpr reads_t reads{.a = true, .b = true, .y = true};
    static constexpr test_domain domain = test_domain::everywhere;
    template <class T>
    GRADC_ALWAYS_INLINE inline static T eval(const T& a, const T& b) { return math::hypot(a, b); }
    template <class T>
    GRADC_ALWAYS_INLINE inline static T partial(arg_t<0>, const T& a, const T&, const T& y) { return a / y; }
    template <class T>
    GRADC_ALWAYS_INLINE inline static T partial(arg_t<1>, const T&, const T& b, const T& y) { return b / y; }
    /// \endcond
};

}  // namespace gradc::rules
