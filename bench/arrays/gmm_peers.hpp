#pragma once
// The GMM benchmark's systems other than gradc static, each in its own file so that
// LibTorch's headers are compiled once: d = 10, K = 5.
#include <array>
#include <cstddef>
#include <vector>

inline constexpr std::size_t gmm_d = 10, gmm_K = 5, gmm_P = gmm_d * (gmm_d + 1) / 2;

using gmm_point_set = std::vector<std::vector<double>>;  // d spans of n values
struct gmm_parameters {
    std::array<double, gmm_K> alphas;
    std::array<double, gmm_K * gmm_d> means;
    std::array<double, gmm_K * gmm_P> icf;
};

/// The objective; with grad, also the gradient (alphas, means, icf, flattened).
double gmm_dynamic(const gmm_point_set& x, const gmm_parameters& p, std::vector<double>* grad);
#ifdef GRADC_BENCH_LIBTORCH
double gmm_libtorch(const gmm_point_set& x, const gmm_parameters& p, std::vector<double>* grad);
#endif
