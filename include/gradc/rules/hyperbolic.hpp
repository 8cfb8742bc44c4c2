#pragma once
/// \file
/// Hyperbolic functions and their inverses, and the logistic family (sigmoid, softplus, logit).

#include <cmath>
#include <limits>

#include <gradc/math/exponential.hpp>
#include <gradc/math/hyperbolic.hpp>
#include <gradc/math/logistic.hpp>
#include <gradc/math/standard.hpp>
#include <gradc/rules/accurate_where.hpp>
#include <gradc/rules/rule.hpp>

// Each rule's members are the Rule concept's, documented once in rules/rule.hpp; the API
// reference hides them per rule (the INTERNAL sections) instead of repeating them.
namespace gradc::rules {

/// sinh(a);  d/da = cosh(a).
struct sinh {
    /// \cond INTERNAL
    static constexpr std::string_view name = "sinh";
    static constexpr int arity = 1;
    static constexpr std::array<std::string_view, 1> partial_text{"cosh(a)"};
    static constexpr reads_t reads{.a = true};
    static constexpr test_domain domain = test_domain::everywhere;
    static constexpr bool complex_form = true;
    template <class T>
    GRADC_ALWAYS_INLINE inline static T eval(const T& a) { return math::sinh(a); }
    template <class T>
    GRADC_ALWAYS_INLINE inline static T partial(arg_t<0>, const T& a, const T&) { return math::cosh(a); }
    /// \endcond
};

/// cosh(a);  d/da = sinh(a).
struct cosh {
    /// \cond INTERNAL
    static constexpr std::string_view name = "cosh";
    static constexpr int arity = 1;
    static constexpr std::array<std::string_view, 1> partial_text{"sinh(a)"};
    static constexpr reads_t reads{.a = true};
    static constexpr test_domain domain = test_domain::everywhere;
    static constexpr bool complex_form = true;
    template <class T>
    GRADC_ALWAYS_INLINE inline static T eval(const T& a) { return math::cosh(a); }
    template <class T>
    GRADC_ALWAYS_INLINE inline static T partial(arg_t<0>, const T& a, const T&) { return math::sinh(a); }
    /// \endcond
};

/// 1/cosh²(a) on dual numbers (second order) from one exponential: 4e/(1 + e)² with
/// e = e^(-2|a|), which neither overflows nor cancels where tanh uses it (|tanh a| > 1/2,
/// so e < 1/3), and whose tangent is formed from e's (the batch rule's 4s(1 - s) with
/// s = 1/(1 + e^(2|a|)) lost it: s's partial -s/(1 + e^(2|a|)) underflows to 0 from
/// |a| ≈ 177). (1/cosh(a))² on duals took cosh and its partial sinh, two exponentials,
/// and two divisions.
template <class T>
GRADC_ALWAYS_INLINE inline T squared_sech_by_exponential(const T& a) {
    using std::abs;
    using K = scalar_t<T>;
    const T m = abs(a);
    const T e = math::exp(T(-(m + m)));
    const T one_plus_e = K(1) + e;
    return T(K(4) * e / (one_plus_e * one_plus_e));
}

/// tanh(a);  d/da = 1 - y² where |y| <= 1/2, 1/cosh²(a) elsewhere (and for complex
/// numbers and tensors): 1 - y² cancels as |y| → 1 and kept only the error of y (2e-5
/// relative at |a| = 13), 1/cosh² has no cancellation (docs/reliability.md, "Accuracy of the rules").
/// 1/cosh² is formed as (1/cosh)², which is a normal or subnormal number rather than 0
/// where cosh² overflows (|a| > 355.4 in double). Batches take the derivative from the
/// s = 1/(1 + e^(2|a|)) of xsimd's tanh, as 4s(1 - s), where |a| ≥ 0.625
/// (gradc/math/hyperbolic_tangent.hpp), and give value and derivative from one exponential in a
/// gradient (`eval_with_partials`). Dual numbers (second order) choose the form lane by
/// lane as numbers do, with 4e/(1 + e)², e = e^(-2|a|), for the second
/// (`squared_sech_by_exponential`).
struct tanh {
    /// \cond INTERNAL
    static constexpr std::string_view name = "tanh";
    static constexpr int arity = 1;
    static constexpr std::array<std::string_view, 1> partial_text{"|y| <= 0.5 ? 1-y*y : 1/(cosh(a)*cosh(a))"};
    static constexpr reads_t reads{.a = true, .y = true};
    static constexpr test_domain domain = test_domain::everywhere;
    static constexpr bool complex_form = true;
    template <class T>
    GRADC_ALWAYS_INLINE inline static T eval(const T& a) {
        return math::tanh(a);
    }
    template <class T>
    GRADC_ALWAYS_INLINE inline static T partial(arg_t<0>, const T& a, const T& y) {
        using std::abs;
        using K = scalar_t<T>;
        if constexpr (simd_batch<T>) {
            return math::tanh_derivative(a, y);
        } else {
            return accurate_where<T, on_duals::choose>([&]() GRADC_ALWAYS_INLINE { return abs(y) <= K(0.5); },
                                                       [&]() GRADC_ALWAYS_INLINE { return T(K(1) - y * y); },
                                                       [&]() GRADC_ALWAYS_INLINE {
                                                           if constexpr (ordered_dual<T>) {
                                                               return squared_sech_by_exponential(a);
                                                           } else {
                                                               const T r = K(1) / math::cosh(a);
                                                               return T(r * r);
                                                           }
                                                       });
        }
    }
    template <simd_batch T>
    GRADC_ALWAYS_INLINE inline static value_and_partials<T, 1> eval_with_partials(const T& a) {
        const auto [y, d] = math::tanh_with_derivative(a);
        return {y, {d}};
    }
    /// \endcond
};

/// asinh(a);  d/da = 1/sqrt(a² + 1), defined everywhere (0 in the limit |a| → inf).
/// Complex form: the principal branch, cut along the imaginary axis beyond ±i.
/// The partial is r/sqrt(1 + r²) with r = 1/|a| where |a| > 1 (the plain formula
/// elsewhere): a² overflowed beyond |a| ≈ 1.3e154 and made the derivative 0 instead of
/// 1/|a| (asinh(cosh(x)) had derivative 0 at x = 700, not 1). Complex tensors take
/// r/sqrt((a·r)² + r²), the same principal root: sqrt(r²·w) = r·sqrt(w) for real r > 0.
struct asinh {
    /// \cond INTERNAL
    static constexpr std::string_view name = "asinh";
    static constexpr int arity = 1;
    static constexpr std::array<std::string_view, 1> partial_text{"1/sqrt(a*a+1)"};
    static constexpr reads_t reads{.a = true};
    static constexpr test_domain domain = test_domain::everywhere;
    static constexpr bool complex_form = true;
    template <class T>
    GRADC_ALWAYS_INLINE inline static T eval(const T& a) { return math::asinh(a); }
    template <class T>
    GRADC_ALWAYS_INLINE inline static T partial(arg_t<0>, const T& a, const T&) {
        using std::abs;
        using std::sqrt;
        using K = scalar_t<T>;
        if constexpr (dynamic_tensor<T>)
            if (a.is_complex()) return complex_partial(a);
        const T m = abs(a);
        const auto large = m > K(1);
        // Tensors evaluate each discarded branch at a harmless point: 1/|a| at a = 0 and
        // a² at a = inf would turn a second derivative's zero into NaN (kept_branch_operand
        // says why). r is 0 at ±inf, and so is the result.
        const T r = K(1) / kept_branch_operand(logical_not(large), m, 1.0);
        const T x = if_else<T>(large, r, kept_branch_operand(large, a, 0.0));
        return if_else<T>(large, r, K(1)) / sqrt(x * x + K(1));
    }
    /// \endcond

private:
    /// r/sqrt((a·r)² + r²), r = 1/|a|, where |a| > 1 (a complex tensor); 0 at |a| = inf.
    template <class T>
    static T complex_partial(const T& a) {
        using std::abs;
        using std::sqrt;
        using K = scalar_t<T>;
        const T m = abs(a);
        // Of the numbers above 1 only infinities equal their double (either precision).
        const auto infinite = logical_and(m > K(1), m * K(2) == m);
        const T b = kept_branch_operand(infinite, a, 1.0), n = kept_branch_operand(infinite, m, 1.0);
        const auto large = n > K(1);
        const T r = if_else<T>(large, K(1) / kept_branch_operand(logical_not(large), n, 1.0), K(1));
        const T br = b * r;
        return if_else<T>(infinite, K(0), r / sqrt(br * br + r * r));
    }
};

/// acosh(a), a >= 1;  d/da = 1/(sqrt(a - 1)·sqrt(a + 1))  (+inf at 1, NaN below).
/// Two roots rather than sqrt(a² - 1): a - 1 is exact near 1, where a² - 1 cancels, and
/// the product is the derivative of the principal branch (cut along (-inf, 1]) for complex
/// a too, where sqrt(a² - 1) has the wrong sign in the left half-plane. For real a < -1,
/// PyTorch's backward gives 1/sqrt(a² - 1) although acosh(a) is NaN; here it is NaN.
struct acosh {
    /// \cond INTERNAL
    static constexpr std::string_view name = "acosh";
    static constexpr int arity = 1;
    static constexpr std::array<std::string_view, 1> partial_text{"1/(sqrt(a-1)*sqrt(a+1))"};
    static constexpr reads_t reads{.a = true};
    static constexpr test_domain domain = test_domain::above_one;
    static constexpr bool complex_form = true;
    template <class T>
    GRADC_ALWAYS_INLINE inline static T eval(const T& a) { return math::acosh(a); }
    template <class T>
    GRADC_ALWAYS_INLINE inline static T partial(arg_t<0>, const T& a, const T&) {
        using std::sqrt;
        using K = scalar_t<T>;
        return K(1) / (sqrt(a - K(1)) * sqrt(a + K(1)));
    }
    /// \endcond
};

/// atanh(a), |a| < 1;  d/da = 1/(1 - a²), computed as 1/((1 - a)(1 + a)), which does not
/// cancel near ±1  (+inf at ±1; beyond, the formula's value
/// although atanh is NaN there, as PyTorch). Complex form: cuts along |Re a| >= 1.
struct atanh {
    /// \cond INTERNAL
    static constexpr std::string_view name = "atanh";
    static constexpr int arity = 1;
    static constexpr std::array<std::string_view, 1> partial_text{"1/((1-a)*(1+a))"};
    static constexpr reads_t reads{.a = true};
    static constexpr test_domain domain = test_domain::inside_unit;
    static constexpr bool complex_form = true;
    template <class T>
    GRADC_ALWAYS_INLINE inline static T eval(const T& a) { return math::atanh(a); }
    template <class T>
    GRADC_ALWAYS_INLINE inline static T partial(arg_t<0>, const T& a, const T&) {
        using K = scalar_t<T>;
        return K(1) / ((K(1) - a) * (K(1) + a));
    }
    /// \endcond
};

/// sigmoid(a) = 1/(1 + e^-a);  d/da = y(1 - y) where y <= 1/2, 1/(2 + 2cosh(a))
/// elsewhere (and for complex numbers and tensors): 1 - y cancels as y → 1.
struct sigmoid {
    /// \cond INTERNAL
    static constexpr std::string_view name = "sigmoid";
    static constexpr int arity = 1;
    static constexpr std::array<std::string_view, 1> partial_text{"y <= 0.5 ? y*(1-y) : 1/(2+2*cosh(a))"};
    static constexpr reads_t reads{.a = true, .y = true};
    static constexpr test_domain domain = test_domain::everywhere;
    static constexpr bool complex_form = true;
    template <class T>
    GRADC_ALWAYS_INLINE inline static T eval(const T& a) { return math::sigmoid(a); }
    template <class T>
    GRADC_ALWAYS_INLINE inline static T partial(arg_t<0>, const T& a, const T& y) {
        using K = scalar_t<T>;
        return accurate_where<T>([&]() GRADC_ALWAYS_INLINE { return y <= K(0.5); },
                                 [&]() GRADC_ALWAYS_INLINE { return y * (K(1) - y); },
                                 [&]() GRADC_ALWAYS_INLINE { return K(1) / (K(2) + K(2) * math::cosh(a)); });
    }
    /// \endcond
};

/// softplus(a) = log(1 + e^a), evaluated as max(a, 0) + log1p(e^-|a|) so that it
/// neither overflows for large a nor loses digits for very negative a;
/// d/da = sigmoid(a).
struct softplus {
    /// \cond INTERNAL
    static constexpr std::string_view name = "softplus";
    static constexpr int arity = 1;
    static constexpr std::array<std::string_view, 1> partial_text{"1/(1+exp(-a))"};
    static constexpr reads_t reads{.a = true};
    static constexpr test_domain domain = test_domain::everywhere;
    template <class T>
    GRADC_ALWAYS_INLINE inline static T eval(const T& a) { return math::softplus(a); }
    template <class T>
    GRADC_ALWAYS_INLINE inline static T partial(arg_t<0>, const T& a, const T&) { return math::sigmoid(a); }
    /// \endcond
};

/// logit(a) = log(a/(1 - a)), the inverse of sigmoid;  d/da = 1/(a(1 - a)).
/// As PyTorch's logit without eps: -inf at 0 and +inf at 1, derivative +inf at both;
/// outside [0, 1] the value and the derivative are NaN. No complex form (PyTorch has none).
struct logit {
    /// \cond INTERNAL
    static constexpr std::string_view name = "logit";
    static constexpr int arity = 1;
    static constexpr std::array<std::string_view, 1> partial_text{"a < 0 || a > 1 ? nan : 1/(a*(1-a))"};
    static constexpr reads_t reads{.a = true};
    static constexpr test_domain domain = test_domain::probability;
    template <class T>
    GRADC_ALWAYS_INLINE inline static T eval(const T& a) { return math::logit(a); }
    template <class T>
    GRADC_ALWAYS_INLINE inline static T partial(arg_t<0>, const T& a, const T&) {
        using K = scalar_t<T>;
        return if_else<T>(logical_or(a < K(0), a > K(1)), K(std::numeric_limits<K>::quiet_NaN()),
                          K(1) / (a * (K(1) - a)));
    }
    /// \endcond
};

}  // namespace gradc::rules
