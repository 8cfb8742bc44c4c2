#pragma once
// The problem of Ceres Solver's tutorial ("Curve Fitting"): y = exp(m·x + c) from noisy
// points, by least squares over the residuals rᵢ = yᵢ - exp(m·xᵢ + c). Shared by
// examples/ceres_curve_fit.cpp, bench/ceres/ and tests/ceres/.

#include <cmath>
#include <random>
#include <vector>

// Ceres's way: the residual as a functor templated on its scalar type, differentiated
// with Jets (parameter blocks m and c of one each).
struct exponential_residual {
    double x, y;
    template <class T>
    bool operator()(const T* const m, const T* const c, T* residual) const {
        residual[0] = y - exp(m[0] * x + c[0]);
        return true;
    }
};

// The data as in the tutorial: m = 0.3, c = 0.1, 67 points x in [0, 5), Gaussian noise
// of 0.2, seeded.
struct curve_fit_points {
    static constexpr double true_m = 0.3, true_c = 0.1;
    std::vector<double> xs, ys;
    curve_fit_points() {
        std::mt19937_64 rng(2026);
        std::normal_distribution<double> noise(0.0, 0.2);
        for (int i = 0; i < 67; ++i) {
            xs.push_back(0.075 * i);
            ys.push_back(std::exp(true_m * xs.back() + true_c) + noise(rng));
        }
    }
};
