#pragma once
/// \file
/// The error functions (their values: gradc/math/error_function.hpp).

#include <numbers>

#include <gradc/math/erfinv.hpp>
#include <gradc/math/error_function.hpp>
#include <gradc/rules/rule.hpp>

// Each rule's members are the Rule concept's, documented once in rules/rule.hpp; the API
// reference hides them per rule (the INTERNAL sections) instead of repeating them.
namespace gradc::rules {

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
        return math::erf(a);
    }
    template <class T>
    GRADC_ALWAYS_INLINE inline static T partial(arg_t<0>, const T& a, const T&) {
        using K = scalar_t<T>;
        return K(std::numbers::inv_sqrtpi * 2) * math::gaussian(a);
    }
    template <class T>
    GRADC_ALWAYS_INLINE inline static value_and_partials<T, 1> eval_with_partials(const T& a) {
        const auto [y, g] = math::erf_with_gaussian(a);
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
        return math::erfc(a);
    }
    template <class T>
    GRADC_ALWAYS_INLINE inline static T partial(arg_t<0>, const T& a, const T&) {
        using K = scalar_t<T>;
        return K(-std::numbers::inv_sqrtpi * 2) * math::gaussian(a);
    }
    template <class T>
    GRADC_ALWAYS_INLINE inline static value_and_partials<T, 1> eval_with_partials(const T& a) {
        const auto [y, g] = math::erfc_with_gaussian(a);
        return {y, {scalar_t<T>(-std::numbers::inv_sqrtpi * 2) * g}};
    }
    /// \endcond
};

/// erfinv(a), the inverse of erf on (-1, 1) (gradc/math/erfinv.hpp: Giles's approximation;
/// doubles within 2 ulps, float within ½, batches within 5);  d/da = √π/2·e^(y²).
/// erfinv(±1) = ±inf with derivative +inf; NaN beyond |a| = 1, and so its derivative,
/// which reads y; erfinv(±0) = ±0. No complex form, as in PyTorch.
struct erfinv {
    /// \cond INTERNAL
    static constexpr std::string_view name = "erfinv";
    static constexpr int arity = 1;
    static constexpr std::array<std::string_view, 1> partial_text{"sqrt(pi)/2*exp(y*y)"};
    static constexpr reads_t reads{.y = true};
    static constexpr test_domain domain = test_domain::inside_unit;
    template <class T>
    GRADC_ALWAYS_INLINE inline static T eval(const T& a) {
        return math::erfinv(a);
    }
    template <class T>
    GRADC_ALWAYS_INLINE inline static T partial(arg_t<0>, const T&, const T& y) {
        using K = scalar_t<T>;
        return K(std::numbers::inv_sqrtpi / 2 * std::numbers::pi) * math::inverse_gaussian(y);
    }
    /// \endcond
};

}  // namespace gradc::rules
