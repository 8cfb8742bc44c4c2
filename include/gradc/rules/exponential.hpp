#pragma once
/// \file
/// Exponentials, logarithms, roots and powers.

#include <cmath>
#include <limits>
#include <numbers>
#include <type_traits>

#include <gradc/math/exponential.hpp>
#include <gradc/math/logarithm.hpp>
#include <gradc/math/power.hpp>
#include <gradc/math/standard.hpp>
#include <gradc/rules/accurate_where.hpp>
#include <gradc/rules/rule.hpp>

// Each rule's members are the Rule concept's, documented once in rules/rule.hpp; the API
// reference hides them per rule (the INTERNAL sections) instead of repeating them.
namespace gradc::rules {

/// exp(a);  d/da = y.
struct exp {
    /// \cond INTERNAL
    static constexpr std::string_view name = "exp";
    static constexpr int arity = 1;
    static constexpr std::array<std::string_view, 1> partial_text{"y"};
    static constexpr reads_t reads{.y = true};
    static constexpr test_domain domain = test_domain::everywhere;
    static constexpr bool complex_form = true;
    template <class T>
    GRADC_ALWAYS_INLINE inline static T eval(const T& a) { return math::exp(a); }
    template <class T>
    GRADC_ALWAYS_INLINE inline static T partial(arg_t<0>, const T&, const T& y) { return y; }
    /// \endcond
};

/// exp2(a) = 2^a;  d/da = y·ln 2.
struct exp2 {
    /// \cond INTERNAL
    static constexpr std::string_view name = "exp2";
    static constexpr int arity = 1;
    static constexpr std::array<std::string_view, 1> partial_text{"y*ln(2)"};
    static constexpr reads_t reads{.y = true};
    static constexpr test_domain domain = test_domain::everywhere;
    template <class T>
    GRADC_ALWAYS_INLINE inline static T eval(const T& a) { return math::exp2(a); }
    template <class T>
    GRADC_ALWAYS_INLINE inline static T partial(arg_t<0>, const T&, const T& y) { return y * scalar_t<T>(std::numbers::ln2); }
    /// \endcond
};

/// expm1(a) = e^a - 1, accurate near 0;  d/da = y + 1 where y >= -1/2, e^a elsewhere
/// (and for tensors): y + 1 cancels as y → -1.
struct expm1 {
    /// \cond INTERNAL
    static constexpr std::string_view name = "expm1";
    static constexpr int arity = 1;
    static constexpr std::array<std::string_view, 1> partial_text{"y >= -0.5 ? y+1 : exp(a)"};
    static constexpr reads_t reads{.a = true, .y = true};
    static constexpr test_domain domain = test_domain::everywhere;
    template <class T>
    GRADC_ALWAYS_INLINE inline static T eval(const T& a) { return math::expm1(a); }
    template <class T>
    GRADC_ALWAYS_INLINE inline static T partial(arg_t<0>, const T& a, const T& y) {
        using K = scalar_t<T>;
        return accurate_where<T, on_duals::choose>([&]() GRADC_ALWAYS_INLINE { return y >= K(-0.5); },
                                                   [&]() GRADC_ALWAYS_INLINE { return T(y + K(1)); },
                                                   [&]() GRADC_ALWAYS_INLINE { return T(math::exp(a)); });
    }
    /// \endcond
};

/// log(a);  d/da = 1/a  (+inf at 0, NaN below: log is undefined there).
struct log {
    /// \cond INTERNAL
    static constexpr std::string_view name = "log";
    static constexpr int arity = 1;
    static constexpr std::array<std::string_view, 1> partial_text{"1/a"};
    static constexpr reads_t reads{.a = true};
    static constexpr test_domain domain = test_domain::positive;
    static constexpr bool complex_form = true;
    template <class T>
    GRADC_ALWAYS_INLINE inline static T eval(const T& a) { return math::log(a); }
    template <class T>
    GRADC_ALWAYS_INLINE inline static T partial(arg_t<0>, const T& a, const T&) { return scalar_t<T>(1) / a; }
    /// \endcond
};

/// log2(a);  d/da = 1/(a·ln 2).
struct log2 {
    /// \cond INTERNAL
    static constexpr std::string_view name = "log2";
    static constexpr int arity = 1;
    static constexpr std::array<std::string_view, 1> partial_text{"1/(a*ln(2))"};
    static constexpr reads_t reads{.a = true};
    static constexpr test_domain domain = test_domain::positive;
    template <class T>
    GRADC_ALWAYS_INLINE inline static T eval(const T& a) { return math::log2(a); }
    template <class T>
    GRADC_ALWAYS_INLINE inline static T partial(arg_t<0>, const T& a, const T&) {
        using K = scalar_t<T>;
        return K(1) / (a * K(std::numbers::ln2));
    }
    /// \endcond
};

/// log10(a);  d/da = 1/(a·ln 10).
struct log10 {
    /// \cond INTERNAL
    static constexpr std::string_view name = "log10";
    static constexpr int arity = 1;
    static constexpr std::array<std::string_view, 1> partial_text{"1/(a*ln(10))"};
    static constexpr reads_t reads{.a = true};
    static constexpr test_domain domain = test_domain::positive;
    static constexpr bool complex_form = true;
    template <class T>
    GRADC_ALWAYS_INLINE inline static T eval(const T& a) { return math::log10(a); }
    template <class T>
    GRADC_ALWAYS_INLINE inline static T partial(arg_t<0>, const T& a, const T&) {
        using K = scalar_t<T>;
        return K(1) / (a * K(std::numbers::ln10));
    }
    /// \endcond
};

/// log1p(a) = log(1 + a), accurate near 0;  d/da = 1/(1 + a).
struct log1p {
    /// \cond INTERNAL
    static constexpr std::string_view name = "log1p";
    static constexpr int arity = 1;
    static constexpr std::array<std::string_view, 1> partial_text{"1/(1+a)"};
    static constexpr reads_t reads{.a = true};
    static constexpr test_domain domain = test_domain::above_minus_one;
    template <class T>
    GRADC_ALWAYS_INLINE inline static T eval(const T& a) { return math::log1p(a); }
    template <class T>
    GRADC_ALWAYS_INLINE inline static T partial(arg_t<0>, const T& a, const T&) {
        using K = scalar_t<T>;
        return K(1) / (K(1) + a);
    }
    /// \endcond
};

/// sqrt(a);  d/da = 1/(2y).  Convention (autograd notes): sqrt'(0) = +inf.
struct sqrt {
    /// \cond INTERNAL
    static constexpr std::string_view name = "sqrt";
    static constexpr int arity = 1;
    static constexpr std::array<std::string_view, 1> partial_text{"0.5/y"};
    static constexpr reads_t reads{.y = true};
    static constexpr test_domain domain = test_domain::positive;
    static constexpr bool complex_form = true;
    template <class T>
    GRADC_ALWAYS_INLINE inline static T eval(const T& a) { return math::sqrt(a); }
    template <class T>
    GRADC_ALWAYS_INLINE inline static T partial(arg_t<0>, const T&, const T& y) { return scalar_t<T>(0.5) / y; }
    /// \endcond
};

/// cbrt(a);  d/da = 1/(3y²)  (+inf at 0, like sqrt; defined for negative a).
struct cbrt {
    /// \cond INTERNAL
    static constexpr std::string_view name = "cbrt";
    static constexpr int arity = 1;
    static constexpr std::array<std::string_view, 1> partial_text{"1/(3*y*y)"};
    static constexpr reads_t reads{.y = true};
    static constexpr test_domain domain = test_domain::moderate;
    template <class T>
    GRADC_ALWAYS_INLINE inline static T eval(const T& a) { return math::cbrt(a); }
    template <class T>
    GRADC_ALWAYS_INLINE inline static T partial(arg_t<0>, const T&, const T& y) {
        using K = scalar_t<T>;
        return K(1) / (K(3) * y * y);
    }
    /// \endcond
};

/// pow(a, b) = a^b.
///  d/da = b·a^(b-1), and 0 where b = 0 and a is 0 or NaN (so pow(x, 0) is constant even
///  at x = 0, instead of 0·inf). Elsewhere at b = 0 the product itself is 0 and stays the
///  expression, so that its derivative by b, a^(-1), reaches second order (forcing 0
///  there too made the mixed second derivative 0 instead of 1/a);
///  d/db = y·log(a), and 0 where a = 0 and b >= 0 (0^b is flat there, instead of 0·(-inf)).
/// Both conventions are PyTorch's (`pow_backward_self`, `pow_backward_exponent`). On
/// tensors the branch a convention discards is evaluated at a = 1 there
/// (`kept_branch_operand`), so that the second derivatives at a = ±0, b = ±0 are 0, as the
/// static mode's dual numbers give, and not PyTorch 1.13's NaN.
struct pow {
    /// \cond INTERNAL
    static constexpr std::string_view name = "pow";
    static constexpr int arity = 2;
    static constexpr std::array<std::string_view, 2> partial_text{
        "b == 0 && (a == 0 || a is NaN) ? 0 : b*pow(a, b-1)", "a == 0 && b >= 0 ? 0 : y*log(a)"};
    static constexpr reads_t reads{.a = true, .b = true, .y = true};
    static constexpr test_domain domain = test_domain::positive;
    template <class T>
    GRADC_ALWAYS_INLINE inline static T eval(const T& a, const T& b) { return math::pow(a, b); }
    template <class T>
    GRADC_ALWAYS_INLINE inline static T partial(arg_t<0>, const T& a, const T& b, const T&) {
        using K = scalar_t<T>;
        using std::isnan;
        const auto forced_zero = logical_and(b == K(0), logical_or(a == K(0), isnan(a)));
        return if_else<T>(forced_zero, K(0), b * math::pow(kept_branch_operand(forced_zero, a, 1.0), b - K(1)));
    }
    template <class T>
    GRADC_ALWAYS_INLINE inline static T partial(arg_t<1>, const T& a, const T& b, const T& y) {
        using K = scalar_t<T>;
        const auto forced_zero = logical_and(a == K(0), b >= K(0));
        return if_else<T>(forced_zero, K(0), y * math::log(kept_branch_operand(forced_zero, a, 1.0)));
    }
    /// \endcond
};

}  // namespace gradc::rules
