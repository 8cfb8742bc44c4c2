#pragma once
/// \file
/// The error functions.

#include <cmath>
#include <limits>
#include <numbers>
#include <type_traits>
#include <utility>

#include <gradc/rules/batch_special_values.hpp>
#include <gradc/rules/rule.hpp>

// Each rule's members are the Rule concept's, documented once in rules/rule.hpp; the API
// reference hides them per rule (the INTERNAL sections) instead of repeating them.
namespace gradc::rules {

/// a·a - hi, exactly, for hi = a·a rounded: one fused multiply-add where the hardware has
/// it for scalars; otherwise, and always on batches (xsimd 8.1's batch fma is a multiply
/// and an add, not fused, on AVX-512 too), Dekker's product of Veltkamp's halves of a:
/// each half has at most half the significand, so ah², 2·ah·al and al² are exact.
template <class T>
GRADC_RULE_INLINE T square_rounding(const T& a, const T& hi) {
#ifdef FP_FAST_FMA
    if constexpr (std::is_same_v<T, double>) return std::fma(a, a, -hi);
#endif
#ifdef FP_FAST_FMAF
    if constexpr (std::is_same_v<T, float>) return std::fma(a, a, -hi);
#endif
    using K = scalar_t<T>;
    const K split = std::numeric_limits<K>::digits == 53 ? K(134217729.0) : K(4097.0);  // 2^27 + 1, 2^12 + 1
    const T c = split * a;
    const T ah = c - (c - a);
    const T al = a - ah;
    return ((ah * ah - hi) + K(2) * ah * al) + al * al;
}

/// e^(-a²) to about an ulp, given hi = a·a rounded and e_hi = e^(-hi). The rounding of a·a,
/// lo = a·a - hi, is otherwise a relative error of e^(-a²) as large as 2⁻⁵³·a²: 500 ulps
/// at a = 26 for erf' and erfc'. e^(-hi - lo) is e_hi·(1 - lo) to second order in lo. On
/// batches, xsimd's exp gives 0 where e^(-hi) is subnormal (|a| > 26.6), though
/// 2/√π·e^(-a²) is still normal just beyond: those lanes come from `exponential`, which
/// computes them. Duals and tensors (second derivatives, the dynamic mode) take e_hi as
/// it is.
template <class T>
GRADC_RULE_INLINE T gaussian_corrected(const T& a, const T& hi, T e_hi) {
    using K = scalar_t<T>;
    // Beyond, e^(-hi) is 0 (and a·a - hi is NaN at an infinite a): no correction.
    const K zero_beyond = std::numeric_limits<K>::digits == 53 ? K(746) : K(104);
    if constexpr (simd_batch<T>) {
        const K edge = std::numeric_limits<K>::digits == 53 ? K(708.3) : K(87.3);
        const auto beyond = hi > edge;
        if (any(beyond)) [[unlikely]]  // xsimd::any, by argument-dependent lookup
            e_hi = if_else<T>(beyond, exponential(T(-hi)), e_hi);
        return if_else<T>(hi < zero_beyond, e_hi - e_hi * square_rounding(a, hi), e_hi);
    } else if constexpr (std::is_floating_point_v<T>) {
        return hi < zero_beyond ? e_hi - e_hi * square_rounding(a, hi) : e_hi;
    } else {
        (void)a;
        (void)hi;
        return e_hi;
    }
}

/// e^(-a²), from xsimd's exp on batches as `with_gaussian` computes it (so a partial
/// alone and the fused value-and-partial agree bit for bit), corrected as above, with NaN
/// and large lanes of double batches kept from xsimd's integer conversion
/// (batch_integer_conversion.hpp).
template <class T>
GRADC_RULE_INLINE T gaussian(const T& a) {
    return on_convertible_lanes(a, [](const T& b) GRADC_LAMBDA_INLINE {
        using std::exp;
        const T hi = b * b;
        return gaussian_corrected(b, hi, T(exp(-hi)));
    });
}

/// Which error function `with_gaussian` computes.
enum class error_function { erf, erfc };

/// {erf(a), e^(-a²)} or {erfc(a), e^(-a²)}: the function and the Gaussian factor of its
/// derivative, for `eval_with_partials`. Computed separately here; SIMD batches compute
/// both in one go (gradc/simd/math.hpp: xsimd's erf and erfc evaluate e^(-a²) on their
/// way, and the specialisation there returns it).
template <error_function F, class T>
struct with_gaussian {
    static_assert(!requires { typename T::arch_type; },
                  "gradc: erf/erfc on SIMD batches needs <gradc/simd/math.hpp> (included by <gradc/gradc.hpp> "
                  "through the kernel) before the rule is used");
    /// {erf(a) or erfc(a), e^(-a²)}.
    static std::pair<T, T> apply(const T& a) {
        using std::erf;
        using std::erfc;
        using std::exp;
        const T hi = a * a;
        const T g = gaussian_corrected(a, hi, T(exp(-hi)));
        if constexpr (F == error_function::erf) {
            return {erf(a), g};
        } else {
            return {erfc(a), g};
        }
    }
};

/// erf(a);  d/da = 2/sqrt(pi)·e^(-a²).
struct erf {
    /// \cond INTERNAL
    static constexpr std::string_view name = "erf";
    static constexpr int arity = 1;
    static constexpr std::array<std::string_view, 1> partial_text{"2/sqrt(pi)*exp(-a*a)"};
    static constexpr reads_t reads{.a = true};
    static constexpr test_domain domain = test_domain::everywhere;
    template <class T>
    GRADC_RULE_INLINE static T eval(const T& a) {
        return error_function_tail<false>(a, on_convertible_lanes(a, [](const T& b) GRADC_LAMBDA_INLINE { using std::erf; return T(erf(b)); }));
    }
    template <class T>
    GRADC_RULE_INLINE static T partial(arg_t<0>, const T& a, const T&) {
        using K = scalar_t<T>;
        return K(std::numbers::inv_sqrtpi * 2) * gaussian(a);
    }
    template <class T>
    GRADC_RULE_INLINE static value_and_partials<T, 1> eval_with_partials(const T& a) {
        const auto [y, g] = on_convertible_lanes(a, [](const T& b) GRADC_LAMBDA_INLINE { return with_gaussian<error_function::erf, T>::apply(b); });
        return {error_function_tail<false>(a, y), {scalar_t<T>(std::numbers::inv_sqrtpi * 2) * g}};
    }
    /// \endcond
};

/// erfc(a) = 1 - erf(a), accurate for large a;  d/da = -2/sqrt(pi)·e^(-a²).
struct erfc {
    /// \cond INTERNAL
    static constexpr std::string_view name = "erfc";
    static constexpr int arity = 1;
    static constexpr std::array<std::string_view, 1> partial_text{"-2/sqrt(pi)*exp(-a*a)"};
    static constexpr reads_t reads{.a = true};
    static constexpr test_domain domain = test_domain::everywhere;
    template <class T>
    GRADC_RULE_INLINE static T eval(const T& a) {
        const T r = on_convertible_lanes(a, [](const T& b) GRADC_LAMBDA_INLINE { using std::erfc; return T(erfc(b)); });
        return error_function_tail<true>(a, erfc_near_zero(a, r));
    }
    template <class T>
    GRADC_RULE_INLINE static T partial(arg_t<0>, const T& a, const T&) {
        using K = scalar_t<T>;
        return K(-std::numbers::inv_sqrtpi * 2) * gaussian(a);
    }
    template <class T>
    GRADC_RULE_INLINE static value_and_partials<T, 1> eval_with_partials(const T& a) {
        const auto [y, g] = on_convertible_lanes(a, [](const T& b) GRADC_LAMBDA_INLINE { return with_gaussian<error_function::erfc, T>::apply(b); });
        return {error_function_tail<true>(a, erfc_near_zero(a, y)), {scalar_t<T>(-std::numbers::inv_sqrtpi * 2) * g}};
    }
    /// \endcond
};

}  // namespace gradc::rules
