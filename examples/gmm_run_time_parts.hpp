#pragma once
// What the Gaussian mixture objective with run-time d and K builds from its parameters
// alone, per component k (examples/gmm_run_time_objective.hpp and gmm_run_time_points.hpp
// both read it): Q_k's packed entries (the d log-diagonal entries exponentiated, then the
// strict lower part), K·d(d+1)/2 of them end to end, and the constants
// α_k + Σ_j log-diag_kj. A kernel computes them once per call.
#include <cstddef>
#include <utility>

#include <gradc/gradc.hpp>

/// {packed factors, constants} for parameters alphas (K) and icf (K × d(d+1)/2).
template <class Alphas, class Icf>
auto gmm_component_parts(const Alphas& alphas, const Icf& icf, std::size_t d) {
    const std::size_t P = d * (d + 1) / 2;
    const auto K = gradc::size(alphas);
    const auto packed = gradc::concat_over(K, [=](auto k) {
        return concat(exp(gradc::segment(row(icf, k), 0, d)), gradc::segment(row(icf, k), d, P - d));
    });
    const auto constants =
        gradc::concat_over(K, [=](auto k) { return alphas[k] + sum(gradc::segment(row(icf, k), 0, d)); });
    return std::pair{packed, constants};
}
