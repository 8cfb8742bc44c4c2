#pragma once
// The log of the multivariate gamma function, for the constant term of the ADBench GMM
// objective (examples/gmm_objective.hpp, gmm_run_time_objective.hpp, gmm_dynamic.hpp).
#include <cmath>
#include <numbers>

/// log Γ_p(a) (ADBench's log_gamma_distrib).
inline double log_gamma_distrib(double a, double p) {
    double r = 0.25 * p * (p - 1) * std::log(std::numbers::pi);
    for (int j = 1; j <= int(p); ++j) r += std::lgamma(a + 0.5 * (1 - j));
    return r;
}
