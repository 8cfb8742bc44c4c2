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

#include "../gradc_kernels.hpp"

namespace scaling {

using bench::loglik_kernel;

inline auto calibration_kernel() {
    auto [s, k, t, r, v] = gradc::variables<5>();
    return gradc::compile(bench::black_scholes_price(s, k, t, r, v), gradc::wrt(r, v));
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
