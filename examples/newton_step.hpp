#pragma once
// One Newton step on two parameters, θ ← θ - H⁻¹g, for the examples that fit a
// distribution with map_reduce_hessian (newton_mle.cpp, mpi_fit.cpp). Returns |step|₁.
#include <array>
#include <cmath>

template <class HessianResult>
double newton_step(const HessianResult& h, std::array<double, 2>& theta) {
    const auto& H = h.hessian;
    const auto& g = h.gradient;
    const double det = H[0][0] * H[1][1] - H[0][1] * H[1][0];
    const double d0 = (H[1][1] * g[0] - H[0][1] * g[1]) / det;
    const double d1 = (H[0][0] * g[1] - H[1][0] * g[0]) / det;
    theta[0] -= d0;
    theta[1] -= d1;
    return std::abs(d0) + std::abs(d1);
}
