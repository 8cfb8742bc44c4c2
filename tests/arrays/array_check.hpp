#pragma once
// The table-driven checks of array kernels: for an expression over array variables,
// its scalar form f = Σ sin(e) (or sin(e) for a scalar e) is compiled with every
// variable wrt, and at the given point
//  - the gradient equals central finite differences, entry by entry;
//  - the JVP along each unit vector equals that gradient entry;
//  - for an array e, the JVP and VJP of e itself are dual: ⟨w, J v⟩ = ⟨Jᵀ w, v⟩;
//  - the batch gradient at 7 points (a partial batch) equals the one-point gradient;
//  - the float kernel agrees with the double one.

#include <array>
#include <cmath>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <vector>

#include <catch2/catch.hpp>

#include <gradc/gradc.hpp>

namespace array_check {

/// Deterministic values in [lo, hi): a fixed sequence, so failures reproduce.
inline double value_at(std::size_t k, double lo, double hi) {
    const double u = std::fmod(0.6180339887498949 * double(k + 1) + 0.1234, 1.0);
    return lo + (hi - lo) * u;
}

template <std::size_t N>
std::array<double, N> filled(double lo, double hi, std::size_t seed) {
    std::array<double, N> a;
    for (std::size_t i = 0; i < N; ++i) a[i] = value_at(seed * 37 + i, lo, hi);
    return a;
}

template <class E>
auto scalar_form(const E& e) {
    if constexpr (E::shape.is_scalar()) {
        return sin(e);
    } else {
        return sum(sin(e));
    }
}

template <class T>
    requires std::is_arithmetic_v<T>
T* entries(T& v) {
    return &v;
}
template <class T, std::size_t N>
T* entries(std::array<T, N>& v) {
    return v.data();
}
template <class T>
    requires std::is_arithmetic_v<T>
const T* entries(const T& v) {
    return &v;
}
template <class T, std::size_t N>
const T* entries(const std::array<T, N>& v) {
    return v.data();
}
template <class V>
constexpr std::size_t size_of = 1;
template <std::size_t N>
constexpr std::size_t size_of<std::array<double, N>> = N;

template <class V>
struct as_float {
    using type = float;
};
template <std::size_t N>
struct as_float<std::array<double, N>> {
    using type = std::array<float, N>;
};
template <class V>
typename as_float<V>::type to_float(const V& v) {
    typename as_float<V>::type f{};
    for (std::size_t i = 0; i < size_of<V>; ++i) entries(f)[i] = float(entries(v)[i]);
    return f;
}

inline void close(double got, double expected, double rel, double abs) {
    INFO("got " << got << ", expected " << expected);
    CHECK(std::abs(got - expected) <= abs + rel * std::abs(expected));
}

template <class V>
void fill(V& v, std::size_t seed) {
    for (std::size_t i = 0; i < size_of<V>; ++i) entries(v)[i] = value_at(seed * 17 + i, -1.0, 1.0);
}
template <class V>
void shift(V& v, double by) {
    for (std::size_t i = 0; i < size_of<V>; ++i) entries(v)[i] += by;
}
template <class V>
double dot_entries(const V& a, const V& b) {
    double s = 0;
    for (std::size_t i = 0; i < size_of<V>; ++i) s += entries(a)[i] * entries(b)[i];
    return s;
}

template <class E, class... Args>
void check_expression(const E& e, const Args&... args) {
    const auto k = gradc::compile(scalar_form(e));
    const auto r = k.gradient(args...);
    const std::tuple<Args...> x0{args...};
    // Finite differences and the JVP along each unit vector.
    [&]<std::size_t... j>(std::index_sequence<j...>) {
        auto check_variable = [&]<std::size_t J>(std::integral_constant<std::size_t, J>) {
            using V = std::tuple_element_t<J, std::tuple<Args...>>;
            for (std::size_t i = 0; i < size_of<V>; ++i) {
                auto plus = x0, minus = x0;
                const double x = entries(std::get<J>(x0))[i];
                const double h = 1e-6 * std::max(1.0, std::abs(x));
                entries(std::get<J>(plus))[i] += h;
                entries(std::get<J>(minus))[i] -= h;
                const double fd = (std::apply(k, plus) - std::apply(k, minus)) / (2 * h);
                const double g = entries(std::get<J>(r.gradient))[i];
                INFO("variable " << J << " entry " << i);
                close(g, fd, 1e-6, 1e-7);
                std::tuple<Args...> t{};
                entries(std::get<J>(t))[i] = 1.0;
                const auto jv = k.jvp(x0, t);
                close(jv.tangent, g, 1e-12, 1e-14);
                close(jv.value, r.value, 1e-14, 1e-15);  // the compiler may contract a*b+c differently per call
            }
        };
        (check_variable(std::integral_constant<std::size_t, j>{}), ...);
    }(std::index_sequence_for<Args...>{});

    // JVP/VJP duality of e itself.
    if constexpr (!E::shape.is_scalar()) {
        const auto ke = gradc::compile(e);
        std::tuple<Args...> v{};
        std::size_t seed = 3;
        std::apply([&](auto&... t) { ((fill(t, seed++)), ...); }, v);
        const auto w = filled<E::shape.size()>(-1.0, 1.0, 11);
        const auto jv = ke.jvp(x0, v);
        const auto vj = ke.vjp(x0, w);
        double lhs = 0, rhs = 0;
        for (std::size_t i = 0; i < E::shape.size(); ++i) lhs += w[i] * jv.tangent[i];
        [&]<std::size_t... j>(std::index_sequence<j...>) {
            ((rhs += dot_entries(std::get<j>(vj.gradient), std::get<j>(v))), ...);
        }(std::index_sequence_for<Args...>{});
        close(lhs, rhs, 1e-12, 1e-13);
        for (std::size_t i = 0; i < E::shape.size(); ++i) close(vj.value[i], ke(args...)[i], 1e-14, 1e-15);
    }

    // Batch at 7 points (entry i of variable j per point p: the point's values shifted).
    constexpr std::size_t n = 7;
    std::vector<std::vector<double>> in;
    std::vector<std::tuple<Args...>> points(n, x0);
    for (std::size_t p = 0; p < n; ++p)
        std::apply([&](auto&... t) { ((shift(t, 0.01 * double(p))), ...); }, points[p]);
    [&]<std::size_t... j>(std::index_sequence<j...>) {
        auto add = [&]<std::size_t J>(std::integral_constant<std::size_t, J>) {
            using V = std::tuple_element_t<J, std::tuple<Args...>>;
            for (std::size_t i = 0; i < size_of<V>; ++i) {
                in.emplace_back(n);
                for (std::size_t p = 0; p < n; ++p) in.back()[p] = entries(std::get<J>(points[p]))[i];
            }
        };
        (add(std::integral_constant<std::size_t, j>{}), ...);
    }(std::index_sequence_for<Args...>{});
    std::vector<double> values(n);
    std::vector<std::vector<double>> grad(in.size(), std::vector<double>(n));
    k.gradient_batch(in, values, grad);
    for (std::size_t p = 0; p < n; ++p) {
        const auto rp = std::apply([&](const auto&... a) { return k.gradient(a...); }, points[p]);
        close(values[p], rp.value, 1e-13, 1e-14);
        std::size_t row = 0;
        [&]<std::size_t... j>(std::index_sequence<j...>) {
            auto cmp = [&]<std::size_t J>(std::integral_constant<std::size_t, J>) {
                using V = std::tuple_element_t<J, std::tuple<Args...>>;
                for (std::size_t i = 0; i < size_of<V>; ++i) close(grad[row++][p], entries(std::get<J>(rp.gradient))[i], 1e-12, 1e-13);
            };
            (cmp(std::integral_constant<std::size_t, j>{}), ...);
        }(std::index_sequence_for<Args...>{});
    }

    // Float against double.
    const auto rf = k.gradient(to_float(args)...);
    close(double(rf.value), r.value, 1e-4, 1e-4);
}

/// n points of a 3-vector variable, structure of arrays (3 spans of n values).
struct points {
    std::size_t n;
    std::vector<std::vector<double>> x;
};

inline points make_points(std::size_t n) {
    points p{n, std::vector<std::vector<double>>(3, std::vector<double>(n))};
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t e = 0; e < 3; ++e) p.x[e][i] = std::sin(0.37 * double(i) + double(e));
    return p;
}

}  // namespace array_check
