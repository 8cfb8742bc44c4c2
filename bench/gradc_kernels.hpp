#pragma once
/// The benchmark's kernels as gradc expressions (the formulas of bench.hpp), shared by the
/// first-order benchmark (gradc.cpp) and the second-order one (second_order/).

#include <cmath>
#include <numbers>
#include <utility>

#include <gradc/gradc.hpp>

#include "bench.hpp"

namespace bench {
// Internal linkage: gradc.cpp is compiled once per architecture in portable builds.
// [[maybe_unused]]: not every file that includes this uses every kernel (flops.cpp has no
// loglik).
namespace {

auto seed_kernel() {
    auto [x1, x2] = gradc::variables<2>();
    return gradc::compile(sin(x1) + x1 * x2);
}

auto normal_kernel() {
    auto [x, mu, sigma] = gradc::variables<3>();
    const auto z = (x - mu) / sigma;
    return gradc::compile(-0.5 * (z * z) - log(sigma) - half_log_2pi);
}

[[maybe_unused]] auto loglik_kernel() {
    auto [x, mu, sigma] = gradc::variables<3>();
    const auto z = (x - mu) / sigma;
    return gradc::compile(-0.5 * (z * z) - log(sigma) - half_log_2pi, gradc::wrt(mu, sigma));
}

/// The Black-Scholes call price as a gradc expression of five variables.
template <class S, class K, class T, class R, class V>
auto black_scholes_price(const S& s, const K& k, const T& t, const R& r, const V& v) {
    const auto vs = v * sqrt(t);
    const auto d1 = (log(s / k) + (r + 0.5 * (v * v)) * t) / vs;
    const auto d2 = d1 - vs;
    constexpr double c = -0.5 * std::numbers::sqrt2;
    return s * (0.5 * erfc(d1 * c)) - k * exp(-(r * t)) * (0.5 * erfc(d2 * c));
}

auto black_scholes_kernel() {
    auto [s, k, t, r, v] = gradc::variables<5>();
    return gradc::compile(black_scholes_price(s, k, t, r, v));
}

template <int J, class X>
auto mlp_unit(const X& x) {
    const auto& [x0, x1, x2, x3] = x;
    return mlp_u(J) * tanh(mlp_w(0, J) * x0 + mlp_w(1, J) * x1 + mlp_w(2, J) * x2 + mlp_w(3, J) * x3);
}

auto mlp_kernel() {
    const auto x = gradc::variables<4>();
    return [&]<int... J>(std::integer_sequence<int, J...>) {
        return gradc::compile((mlp_unit<J>(x) + ...));
    }(std::make_integer_sequence<int, mlp_hidden>{});
}

}  // namespace
}  // namespace bench
