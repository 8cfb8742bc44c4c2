#pragma once
/// The scaling benchmark's map-reduce kernels and data: the normal log-likelihood (loglik,
/// memory-bound: two additions per point after the map-reduce split) and a Black-Scholes
/// calibration sum (compute-bound: Σ over options of the price, θ = (r, v) the rate and
/// volatility shared by all, the data s, k, t per option).

#include <array>
#include <cmath>
#include <numbers>
#include <random>
#include <vector>

#include <gradc/gradc.hpp>

namespace scaling {

inline auto loglik_kernel() {
    auto [x, mu, sigma] = gradc::variables<3>();
    const auto z = (x - mu) / sigma;
    return gradc::compile(-0.5 * (z * z) - log(sigma), gradc::wrt(mu, sigma));
}

inline auto calibration_kernel() {
    auto [s, k, t, r, v] = gradc::variables<5>();
    const auto vs = v * sqrt(t);
    const auto d1 = (log(s / k) + (r + 0.5 * (v * v)) * t) / vs;
    const auto d2 = d1 - vs;
    constexpr double c = -0.5 * std::numbers::sqrt2;
    return gradc::compile(s * (0.5 * erfc(d1 * c)) - k * exp(-(r * t)) * (0.5 * erfc(d2 * c)), gradc::wrt(r, v));
}

/// n points of each data variable, uniform in the given ranges, seeded.
inline std::vector<std::vector<double>> data(std::size_t n, const std::vector<std::array<double, 2>>& ranges,
                                             unsigned seed) {
    std::mt19937_64 rng(seed);
    std::vector<std::vector<double>> d;
    for (const auto& [lo, hi] : ranges) {
        std::uniform_real_distribution<double> u(lo, hi);
        d.emplace_back(n);
        for (auto& x : d.back()) x = u(rng);
    }
    return d;
}

inline const std::vector<std::array<double, 2>> loglik_ranges{{-3, 6}};
inline const std::vector<std::array<double, 2>> option_ranges{{80, 120}, {80, 120}, {0.25, 2}};
inline constexpr std::array<double, 2> loglik_theta{1.4, 2.1};
inline constexpr std::array<double, 2> option_theta{0.03, 0.25};

}  // namespace scaling
