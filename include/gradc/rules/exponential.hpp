#pragma once
/// \file
/// Exponentials, logarithms, roots and powers.

#include <cmath>
#include <limits>
#include <numbers>
#include <type_traits>

#include <gradc/rules/accurate_where.hpp>
#include <gradc/rules/batch_special_values.hpp>
#include <gradc/rules/rule.hpp>
#include <gradc/rules/subnormal_batch.hpp>
#include <gradc/rules/widened.hpp>

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
    GRADC_ALWAYS_INLINE inline static T eval(const T& a) { return exponential(a); }
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
    GRADC_ALWAYS_INLINE inline static T eval(const T& a) {
        return power_of_two(a);
    }
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
    GRADC_ALWAYS_INLINE inline static T eval(const T& a) {
        return keep_zero_sign(a, on_convertible_lanes(a, [](const T& b) GRADC_ALWAYS_INLINE { return exponential_minus_one(b); }));
    }
    template <class T>
    GRADC_ALWAYS_INLINE inline static T partial(arg_t<0>, const T& a, const T& y) {
        using K = scalar_t<T>;
        return accurate_where<T, on_duals::choose>([&]() GRADC_ALWAYS_INLINE { return y >= K(-0.5); },
                                                   [&]() GRADC_ALWAYS_INLINE { return T(y + K(1)); },
                                                   [&]() GRADC_ALWAYS_INLINE { return T(exponential(a)); });
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
    GRADC_ALWAYS_INLINE inline static T eval(const T& a) { return logarithm<log_base::e>(a); }
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
    GRADC_ALWAYS_INLINE inline static T eval(const T& a) { return logarithm<log_base::two>(a); }
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
    GRADC_ALWAYS_INLINE inline static T eval(const T& a) { return logarithm<log_base::ten>(a); }
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
    GRADC_ALWAYS_INLINE inline static T eval(const T& a) {
        using std::log1p;
        return keep_zero_sign(a, T(log1p(a)));
    }
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
    GRADC_ALWAYS_INLINE inline static T eval(const T& a) { using std::sqrt; return sqrt(a); }
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
    GRADC_ALWAYS_INLINE inline static T eval(const T& a) { return cube_root(a); }
    template <class T>
    GRADC_ALWAYS_INLINE inline static T partial(arg_t<0>, const T&, const T& y) {
        using K = scalar_t<T>;
        return K(1) / (K(3) * y * y);
    }
    /// \endcond
};

/// a^b with C's special values (C11 F.10.4.4, which PyTorch follows) on SIMD batches
/// too. xsimd 8.1's batch pow gets them wrong: 0 for pow(±0, b) whatever b (so pow(0, 0)
/// was 0 and pow(0, -1) was 0), NaN for pow(±inf, 0), pow(nan, 0), pow(±1, ±inf) and
/// pow(-inf, 0.5), the wrong sign for a negative base and an even exponent beyond 2⁵³,
/// and results off by orders of magnitude for subnormal bases. Here the batch pow only
/// ever sees a positive normal base; signs, zeros, infinities and NaN are set by the C
/// rules. Real scalars use the C library's pow, except at the exponents 1, 2, -1 and 1/2,
/// which every path rounds once (tensors go through these same scalar and batch paths).
template <class T>
T power(const T& a, const T& b) {
    using std::pow;
    if constexpr (std::is_floating_point_v<T>) {
        // The exponents 1, 2, -1 and 1/2 rounded once, as on batches (below), so that
        // scalars, batches and tensors agree bit for bit; the C library's pow is an ulp
        // off for about one base in a thousand at 2, -1 and 1/2. pow(±0, 1/2) is +0 and
        // pow(-inf, 1/2) is +inf, where sqrt gives -0 and NaN.
        using std::sqrt;
        if (b == T(1)) return a;
        if (b == T(2)) return a * a;
        if (b == T(-1)) return T(1) / a;
        if (b == T(0.5)) return a == T(0) ? T(0) : a == -std::numeric_limits<T>::infinity() ? -a : T(sqrt(a));
        return pow(a, b);
    } else if constexpr (!simd_batch<T>) {
        return pow(a, b);
    } else {
        using std::abs;
        using std::isnan;
        using std::max;
        using std::min;
        using std::sqrt;
        using std::trunc;
        using K = scalar_t<T>;
        const K inf = std::numeric_limits<K>::infinity();
        const K minus_one = -1;  // x * -1, not -x: xsimd's -0 is 0 - 0 = +0
        const T m = abs(a);
        // Integer and odd-integer exponents; from 2^digits on every number is an even
        // integer. trunc sees only finite values (some xsimd trunc kernels convert to int).
        constexpr int digits = std::numeric_limits<K>::digits;
        const K two_to_digits = digits == 53 ? K(9007199254740992.0) : K(16777216.0);
        const auto big = abs(b) >= two_to_digits;
        const T small_b = if_else<T>(abs(b) < two_to_digits, b, K(0));
        const auto integer = logical_or(big, small_b == trunc(small_b));
        const auto odd_integer =
            logical_and(logical_not(big), logical_and(small_b == trunc(small_b), trunc(small_b * K(0.5)) * K(2) != small_b));
        const auto negative = logical_or(a < K(0), K(1) / a < K(0));  // also -0
        // The exponents 1, 2, -1 and 1/2: |a|, |a|², 1/|a| and √|a|, each rounded once, as
        // on scalars (exp(b·log a) is an ulp or more off, so that pow(x, 1.0) - x was not
        // 0 on batches). A batch whose every lane has one of them, as with a literal
        // exponent, skips exp(b·log a) altogether.
        const auto exact = logical_or(logical_or(b == K(1), b == K(2)), logical_or(b == K(-1), b == K(0.5)));
        const auto rounded_once = [&] {
            return T(if_else<T>(b == K(1), m, if_else<T>(b == K(2), m * m, if_else<T>(b == K(-1), K(1) / m, sqrt(m)))));
        };
        T t(K(0));  // b·log2|a| where the lanes go through the logarithm
        const auto through_logarithm = [&] {
            // |a|^b = 2^(b·log2|a|) for a finite nonzero base, where xsimd's own pow computes
            // e^(b·log|a|), with three changes. Base 2: log2 is exact at a power of two, so
            // are 2^1024 (+inf; e^(1024·ln 2), ln 2 rounded down, was finite) and the ties
            // half way between subnormals (2^-1075 rounds to 0), and the float batches that
            // compute pow in double round such a tie once. The logarithm is right at a
            // subnormal base (subnormal_batch.hpp). And the argument of exp2 is never NaN
            // and stays within ±2000 (beyond which the result is 0 or inf anyway): xsimd
            // converts it to an integer, which is undefined for NaN and out-of-range values
            // (UBSan reports it). The lanes whose argument was NaN or infinite are all set
            // by the rules below.
            const auto ordinary = logical_not(logical_or(logical_or(a == K(0), m == inf), isnan(a)));
            const T log2_m = logarithm<log_base::two>(if_else<T>(ordinary, m, K(1)));
            t = b * log2_m;
            const T bounded = if_else<T>(isnan(t), K(0), min(max(t, T(K(-2000))), T(K(2000))));
            // A subnormal result is computed 2^digits larger and scaled down (exactly, so
            // that it is rounded once); `power_of_two` is right up to the largest number.
            constexpr K min_exponent = std::numeric_limits<K>::min_exponent - 1;  // -1022, -126
            const auto subnormal_result = bounded < min_exponent;
            const T shift = if_else<T>(subnormal_result, T(K(digits)), K(0));
            return T(power_of_two(T(bounded + shift)) * if_else<T>(subnormal_result, K(1) / two_to_digits, K(1)));
        };
        T regular;
        if (all(exact)) {  // xsimd::all and xsimd::any, by argument-dependent lookup
            regular = rounded_once();
        } else {
            regular = through_logarithm();
            if (any(exact)) regular = if_else<T>(exact, rounded_once(), regular);
        }
        // ±0 and ±inf: 0 or inf by the sign of b (swapped for inf).
        const auto zero_or_inf = logical_or(a == K(0), m == inf);
        T r = if_else<T>(zero_or_inf, if_else<T>(logical_xor(b < K(0), m == inf), inf, K(0)), regular);
        // A negative base: the sign of an odd integer power, NaN for a finite non-integer b.
        r = if_else<T>(logical_and(negative, odd_integer), r * minus_one, r);
        const auto finite_negative = logical_and(a < K(0), m != inf);
        r = if_else<T>(logical_and(finite_negative, logical_and(logical_not(integer), abs(b) != inf)),
                       std::numeric_limits<K>::quiet_NaN(), r);
        r = if_else<T>(logical_and(m < K(1), b == -inf), inf, r);
        r = if_else<T>(logical_and(m > K(1), b == -inf), K(0), r);
        r = if_else<T>(logical_and(m < K(1), b == inf), K(0), r);
        r = if_else<T>(logical_and(m > K(1), b == inf), inf, r);
        r = if_else<T>(logical_or(isnan(a), isnan(b)), a + b, r);  // NaN, unless one of the rules below
        r = if_else<T>(logical_and(a == K(-1), abs(b) == inf), K(1), r);
        r = if_else<T>(logical_or(a == K(1), b == K(0)), K(1), r);
        if constexpr (std::is_same_v<K, float>) {
            // 2^t loses the rounding of t = b·log2|a| times |t|·ln 2: in float, 114 ulps
            // near the largest float. Lanes with |t| > 8 (results beyond 2^±8) are computed
            // in double and rounded once (rules/widened.hpp); the others are within 5 ulps.
            // Only a batch with such a lane pays for the two double pows (3.4 times the
            // float pow, docs/benchmark-history.md, "Batch pow").
            const auto far = abs(t) > K(8);
            if (any(far)) r = if_else<T>(far, widened_to_double<T>::apply([](const auto& x, const auto& y) { return power(x, y); }, a, b), r);
        }
        return r;
    }
}

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
    GRADC_ALWAYS_INLINE inline static T eval(const T& a, const T& b) { return power(a, b); }
    template <class T>
    GRADC_ALWAYS_INLINE inline static T partial(arg_t<0>, const T& a, const T& b, const T&) {
        using K = scalar_t<T>;
        using std::isnan;
        const auto forced_zero = logical_and(b == K(0), logical_or(a == K(0), isnan(a)));
        return if_else<T>(forced_zero, K(0), b * power(kept_branch_operand(forced_zero, a, 1.0), b - K(1)));
    }
    template <class T>
    GRADC_ALWAYS_INLINE inline static T partial(arg_t<1>, const T& a, const T& b, const T& y) {
        using K = scalar_t<T>;
        const auto forced_zero = logical_and(a == K(0), b >= K(0));
        return if_else<T>(forced_zero, K(0), y * logarithm<log_base::e>(kept_branch_operand(forced_zero, a, 1.0)));
    }
    /// \endcond
};

}  // namespace gradc::rules
