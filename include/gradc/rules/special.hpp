#pragma once
/// The error functions.

#include <cmath>
#include <numbers>

#include <gradc/rules/rule.hpp>

namespace gradc::rules {

/// erf(a);  d/da = 2/sqrt(pi)·e^(-a²).
struct erf {
    static constexpr std::string_view name = "erf";
    static constexpr int arity = 1;
    static constexpr std::array<std::string_view, 1> partial_text{"2/sqrt(pi)*exp(-a*a)"};
    template <class T>
    static T eval(const T& a) { using std::erf; return erf(a); }
    template <class T>
    static T partial(arg_t<0>, const T& a, const T&) {
        using std::exp;
        using K = scalar_t<T>;
        return K(std::numbers::inv_sqrtpi * 2) * exp(-(a * a));
    }
};

/// erfc(a) = 1 - erf(a), accurate for large a;  d/da = -2/sqrt(pi)·e^(-a²).
struct erfc {
    static constexpr std::string_view name = "erfc";
    static constexpr int arity = 1;
    static constexpr std::array<std::string_view, 1> partial_text{"-2/sqrt(pi)*exp(-a*a)"};
    template <class T>
    static T eval(const T& a) { using std::erfc; return erfc(a); }
    template <class T>
    static T partial(arg_t<0>, const T& a, const T&) {
        using std::exp;
        using K = scalar_t<T>;
        return K(-std::numbers::inv_sqrtpi * 2) * exp(-(a * a));
    }
};

}  // namespace gradc::rules
