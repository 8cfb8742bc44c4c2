#pragma once
/// The ADBench GMM (d = 10, K = 5; examples/gmm_objective.hpp) for the scaling benchmark:
/// its point term is an array kernel with three wrt variables (5 + 50 + 275 numbers), so
/// each MPI call sends 8·(1 + 330) bytes per rank and each point costs about 120 ns of
/// computation for the gradient: compute-bound.

#include <array>
#include <cstddef>
#include <random>

#include "../../examples/gmm_objective.hpp"

namespace scaling {

inline constexpr std::size_t gmm_d = 10, gmm_K = 5, gmm_P = gmm_d * (gmm_d + 1) / 2;
inline const std::vector<std::array<double, 2>> gmm_ranges(gmm_d, std::array<double, 2>{-2, 2});

/// Fixed parameters: weights, means and the packed inverse-covariance factors.
struct gmm_parameters {
    std::array<double, gmm_K> a;
    std::array<double, gmm_K * gmm_d> mu;
    std::array<double, gmm_K * gmm_P> q;
    gmm_parameters() {
        std::mt19937_64 rng(3);
        std::normal_distribution<double> normal;
        for (auto& v : a) v = normal(rng);
        for (auto& v : mu) v = normal(rng);
        for (auto& v : q) v = 0.1 * normal(rng);
    }
};

}  // namespace scaling
