#pragma once
/// Hyperbolic functions and the logistic family (sigmoid, softplus).

#include <cmath>

#include <gradc/rules/rule.hpp>

namespace gradc::rules {

/// sinh(a);  d/da = cosh(a).
struct sinh {
    static constexpr std::string_view name = "sinh";
    static constexpr int arity = 1;
    static constexpr std::array<std::string_view, 1> partial_text{"cosh(a)"};
    static constexpr reads_t reads{.a = true};
    static constexpr test_domain domain = test_domain::everywhere;
    static constexpr bool complex_form = true;
    template <class T>
    static T eval(const T& a) { using std::sinh; return sinh(a); }
    template <class T>
    static T partial(arg_t<0>, const T& a, const T&) { using std::cosh; return cosh(a); }
};

/// cosh(a);  d/da = sinh(a).
struct cosh {
    static constexpr std::string_view name = "cosh";
    static constexpr int arity = 1;
    static constexpr std::array<std::string_view, 1> partial_text{"sinh(a)"};
    static constexpr reads_t reads{.a = true};
    static constexpr test_domain domain = test_domain::everywhere;
    static constexpr bool complex_form = true;
    template <class T>
    static T eval(const T& a) { using std::cosh; return cosh(a); }
    template <class T>
    static T partial(arg_t<0>, const T& a, const T&) { using std::sinh; return sinh(a); }
};

/// tanh(a);  d/da = 1 - y².
struct tanh {
    static constexpr std::string_view name = "tanh";
    static constexpr int arity = 1;
    static constexpr std::array<std::string_view, 1> partial_text{"1-y*y"};
    static constexpr reads_t reads{.y = true};
    static constexpr test_domain domain = test_domain::everywhere;
    static constexpr bool complex_form = true;
    template <class T>
    static T eval(const T& a) { using std::tanh; return tanh(a); }
    template <class T>
    static T partial(arg_t<0>, const T&, const T& y) { return scalar_t<T>(1) - y * y; }
};

/// sigmoid(a) = 1/(1 + e^-a);  d/da = y(1 - y).
struct sigmoid {
    static constexpr std::string_view name = "sigmoid";
    static constexpr int arity = 1;
    static constexpr std::array<std::string_view, 1> partial_text{"y*(1-y)"};
    static constexpr reads_t reads{.y = true};
    static constexpr test_domain domain = test_domain::everywhere;
    static constexpr bool complex_form = true;
    template <class T>
    static T eval(const T& a) {
        using std::exp;
        using K = scalar_t<T>;
        return K(1) / (K(1) + exp(-a));
    }
    template <class T>
    static T partial(arg_t<0>, const T&, const T& y) { return y * (scalar_t<T>(1) - y); }
};

/// softplus(a) = log(1 + e^a), evaluated as max(a, 0) + log1p(e^-|a|) so that it
/// neither overflows for large a nor loses digits for very negative a;
/// d/da = sigmoid(a).
struct softplus {
    static constexpr std::string_view name = "softplus";
    static constexpr int arity = 1;
    static constexpr std::array<std::string_view, 1> partial_text{"1/(1+exp(-a))"};
    static constexpr reads_t reads{.a = true};
    static constexpr test_domain domain = test_domain::everywhere;
    template <class T>
    static T eval(const T& a) {
        using std::abs;
        using std::exp;
        using std::log1p;
        using K = scalar_t<T>;
        return if_else<T>(a > K(0), a, K(0)) + log1p(exp(-abs(a)));
    }
    template <class T>
    static T partial(arg_t<0>, const T& a, const T&) { return sigmoid::eval(a); }
};

}  // namespace gradc::rules
