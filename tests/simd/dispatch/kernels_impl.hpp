#pragma once
/// The kernels, and the scalar reference of kernels.hpp (compiled by the test only).

#include <cmath>
#include <numbers>

#include <gradc/gradc.hpp>
#include <gradc/simd.hpp>

#include "kernels.hpp"

GRADC_SIMD_DIAGNOSTICS_PUSH

namespace gradc_dispatch_test {

inline auto seed_kernel() {
    auto [x1, x2] = gradc::variables<2>();
    return gradc::compile(sin(x1) + x1 * x2);
}

inline auto black_scholes_kernel() {
    auto [s, k, t, r, v] = gradc::variables<5>();
    const auto vs = v * sqrt(t);
    const auto d1 = (log(s / k) + (r + 0.5 * (v * v)) * t) / vs;
    const auto d2 = d1 - vs;
    constexpr double c = -0.5 * std::numbers::sqrt2;
    return gradc::compile(s * (0.5 * erfc(d1 * c)) - k * exp(-(r * t)) * (0.5 * erfc(d2 * c)));
}

inline auto loglik_kernel() {
    auto [x, mu, sigma] = gradc::variables<3>();
    const auto z = (x - mu) / sigma;
    return gradc::compile(-0.5 * (z * z) - log(sigma), gradc::wrt(mu, sigma));
}

template <class T>
outputs<T> make_outputs(std::size_t n) {
    outputs<T> o;
    o.seed_value.assign(n, T(0));
    o.seed_jvp.assign(n, T(0));
    o.bs_value.assign(n, T(0));
    o.bs_value_only.assign(n, T(0));
    for (auto& g : o.seed_grad) g.assign(n, T(0));
    for (auto& g : o.bs_grad) g.assign(n, T(0));
    return o;
}

template <class T>
outputs<T> run_scalar(const inputs<T>& in) {
    auto o = make_outputs<T>(in.n);
    const auto seed = seed_kernel();
    const auto bs = black_scholes_kernel();
    const auto ll = loglik_kernel();
    double sum = 0, g0 = 0, g1 = 0;
    for (std::size_t i = 0; i < in.n; ++i) {
        const auto s = seed.gradient(std::array<T, 2>{in.x[0][i], in.x[1][i]});
        o.seed_value[i] = s.value;
        o.seed_grad[0][i] = s.gradient[0];
        o.seed_grad[1][i] = s.gradient[1];
        o.seed_jvp[i] = seed.jvp(std::array<T, 2>{in.x[0][i], in.x[1][i]},
                                 std::array<T, 2>{in.x[2][i], in.x[3][i]}).tangent;
        const auto b = bs.gradient(std::array<T, 5>{in.x[0][i], in.x[1][i], in.x[2][i], in.x[3][i], in.x[4][i]});
        o.bs_value[i] = o.bs_value_only[i] = b.value;
        for (std::size_t j = 0; j < 5; ++j) o.bs_grad[j][i] = b.gradient[j];
        const auto l = ll.gradient(std::array<T, 3>{in.x[0][i], T(1.25), T(0.75)});
        sum += l.value;
        g0 += l.gradient[0];
        g1 += l.gradient[1];
    }
    o.loglik = static_cast<T>(sum);
    o.loglik_grad = {static_cast<T>(g0), static_cast<T>(g1)};
    o.arch = "scalar";
    return o;
}

}  // namespace gradc_dispatch_test

GRADC_SIMD_DIAGNOSTICS_POP
