#pragma once
/// \file
/// The error functions.

#include <cmath>
#include <numbers>
#include <type_traits>
#include <utility>

#include <gradc/rules/batch_special_values.hpp>
#include <gradc/rules/error_function_batch.hpp>
#include <gradc/rules/rule.hpp>

// Each rule's members are the Rule concept's, documented once in rules/rule.hpp; the API
// reference hides them per rule (the INTERNAL sections) instead of repeating them.
namespace gradc::rules {

/// Which error function `with_gaussian` computes.
enum class error_function { erf, erfc };

template <error_function F, class T>
struct with_gaussian;

/// erf(a) or erfc(a) alone: on batches `with_gaussian`'s (gradc/simd/math.hpp), whose
/// tail is more accurate than xsimd's, so that `eval` equals the fused value.
template <error_function F, class T>
GRADC_ALWAYS_INLINE inline T error_function_value(const T& a) {
    if constexpr (simd_batch<T>) {
        return with_gaussian<F, T>::value(a);
    } else if constexpr (F == error_function::erf) {
        using std::erf;
        return T(erf(a));
    } else {
        using std::erfc;
        return T(erfc(a));
    }
}

/// e^(-a²), on batches as `with_gaussian` computes it (so a partial alone and the fused
/// value-and-partial agree bit for bit, subnormal results included; gradc/simd/math.hpp),
/// with NaN and large lanes of double batches kept from xsimd's integer conversion
/// (batch_integer_conversion.hpp); floats in double, where a² is exact.
template <class T>
GRADC_ALWAYS_INLINE inline T gaussian(const T& a) {
    if constexpr (simd_batch<T>) {
        using forms = with_gaussian<error_function::erf, T>;
        return on_convertible_lanes<forms::keeps_lanes_from_conversion>(a, [](const T& b) GRADC_ALWAYS_INLINE {
            return with_gaussian<error_function::erf, T>::gaussian(b);
        });
    } else if constexpr (std::is_same_v<T, float>) {
        return float(std::exp(-(double(a) * double(a))));  // as float batches: a² exact
    } else {
        return on_convertible_lanes(a, [](const T& b) GRADC_ALWAYS_INLINE { using std::exp; return T(exp(-(b * b))); });
    }
}

/// {erf(a), e^(-a²)} or {erfc(a), e^(-a²)}: the function and the Gaussian factor of its
/// derivative, for `eval_with_partials`. Computed separately here; SIMD batches compute
/// both in one go (gradc/simd/math.hpp: xsimd's erf and erfc evaluate e^(-a²) on their
/// way, and the specialisation there returns it).
template <error_function F, class T>
struct with_gaussian {
    static_assert(!requires { typename T::arch_type; },
                  "gradc: erf/erfc on SIMD batches needs <gradc/simd/math.hpp> (included by <gradc/gradc.hpp> "
                  "through the kernel) before the rule is used");
    /// A scalar's functions convert nothing (`on_convertible_lanes` leaves scalars alone).
    static constexpr bool keeps_lanes_from_conversion = false;
    /// {erf(a) or erfc(a), e^(-a²)}.
    static std::pair<T, T> apply(const T& a) {
        using std::erf;
        using std::erfc;
        if constexpr (F == error_function::erf) {
            return {erf(a), gaussian(a)};
        } else {
            return {erfc(a), gaussian(a)};
        }
    }
};

/// {erf(a) or erfc(a), e^(-a²)} for `eval_with_partials`, far tail included: a batch
/// whose lanes are all ordinary (`with_gaussian::ordinary`, one test) runs the plain forms
/// alone; any other takes every special case. The clamp and checks paid on every batch
/// cost the Black-Scholes gradient, two erfc nodes, about 10 % (docs/benchmark-history.md,
/// "Batch gradient: values and adjoints in registers again").
template <error_function F, class T>
GRADC_ALWAYS_INLINE inline std::pair<T, T> value_and_gaussian(const T& a) {
    using forms = with_gaussian<F, T>;
    if constexpr (simd_batch<T>) {
        if (forms::ordinary(a)) [[likely]]
            return forms::apply_ordinary(a);
    }
    const auto [y, g] = on_convertible_lanes<forms::keeps_lanes_from_conversion>(
        a, [](const T& b) GRADC_ALWAYS_INLINE { return forms::apply(b); });
    return {error_function_tail<F == error_function::erfc>(a, y), g};
}

/// erf(a);  d/da = 2/sqrt(pi)·e^(-a²).
struct erf {
    /// \cond INTERNAL
    static constexpr std::string_view name = "erf";
    static constexpr int arity = 1;
    static constexpr std::array<std::string_view, 1> partial_text{"2/sqrt(pi)*exp(-a*a)"};
    static constexpr reads_t reads{.a = true};
    static constexpr test_domain domain = test_domain::everywhere;
    template <class T>
    GRADC_ALWAYS_INLINE inline static T eval(const T& a) {
        return error_function_tail<false>(a, on_convertible_lanes<with_gaussian<error_function::erf, T>::keeps_lanes_from_conversion>(a, [](const T& b) GRADC_ALWAYS_INLINE { return error_function_value<error_function::erf>(b); }));
    }
    template <class T>
    GRADC_ALWAYS_INLINE inline static T partial(arg_t<0>, const T& a, const T&) {
        using K = scalar_t<T>;
        return K(std::numbers::inv_sqrtpi * 2) * gaussian(a);
    }
    template <class T>
    GRADC_ALWAYS_INLINE inline static value_and_partials<T, 1> eval_with_partials(const T& a) {
        const auto [y, g] = value_and_gaussian<error_function::erf>(a);
        return {y, {scalar_t<T>(std::numbers::inv_sqrtpi * 2) * g}};
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
    GRADC_ALWAYS_INLINE inline static T eval(const T& a) {
        const T r = on_convertible_lanes<with_gaussian<error_function::erfc, T>::keeps_lanes_from_conversion>(a, [](const T& b) GRADC_ALWAYS_INLINE { return error_function_value<error_function::erfc>(b); });
        return error_function_tail<true>(a, erfc_near_zero(a, r));
    }
    template <class T>
    GRADC_ALWAYS_INLINE inline static T partial(arg_t<0>, const T& a, const T&) {
        using K = scalar_t<T>;
        return K(-std::numbers::inv_sqrtpi * 2) * gaussian(a);
    }
    template <class T>
    GRADC_ALWAYS_INLINE inline static value_and_partials<T, 1> eval_with_partials(const T& a) {
        // erfc_near_zero (float, |a| < 1/2) and the far tail (|a| > 30) mend disjoint lanes.
        const auto [y, g] = value_and_gaussian<error_function::erfc>(a);
        return {erfc_near_zero(a, y), {scalar_t<T>(-std::numbers::inv_sqrtpi * 2) * g}};
    }
    /// \endcond
};

}  // namespace gradc::rules
