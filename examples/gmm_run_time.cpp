// The Gaussian mixture model objective of ADBench ("A benchmark of selected algorithmic
// differentiation tools on some problems in computer vision and machine learning",
// Srajer, Kukelova, Fitzgibbon 2018, section "Gaussian mixture model fitting") with the
// number of dimensions d, of components K and of points n all chosen at run time, two
// ways, each compiled once for every size and checked at each size against the same
// objective in the dynamic mode (examples/gmm_dynamic.hpp):
//  - one kernel whose loops over the points and the components read their counts from
//    the arguments (examples/gmm_run_time_objective.hpp);
//  - a map-reduce over the points of the term of one point, with the prior and the
//    normaliser as one-point kernels (examples/gmm_run_time_points.hpp): the faster.
// examples/gmm.cpp is the objective with d and K fixed at compile time.
#include <cmath>
#include <cstdio>
#include <type_traits>
#include <vector>

#include <gradc/autograd.hpp>
#include <gradc/gradc.hpp>

#include "gmm_dynamic.hpp"
#include "gmm_run_time_objective.hpp"
#include "gmm_run_time_points.hpp"

int main() {
    // Computes in double, as numerical code does; gradc's default (LibTorch's) is float32.
    gradc::set_default_dtype(gradc::kFloat64);
    // One kernel type for every size: the sizes are the arguments'.
    static_assert(std::is_same_v<decltype(gmm_run_time_kernel(2)), decltype(gmm_run_time_kernel(64))>);
    const std::size_t sizes[][2] = {{2, 5}, {10, 5}, {20, 10}, {64, 5}};
    const std::size_t n = 200;
    double worst_of_all = 0;
    for (const auto& [d, K] : sizes) {
        const std::size_t P = d * (d + 1) / 2;
        std::vector<double> xs(n * d), a(K), mu(K * d), q(K * P);
        for (std::size_t i = 0; i < xs.size(); ++i) xs[i] = std::sin(0.731 * double(i)) * 2;
        for (std::size_t i = 0; i < K; ++i) a[i] = std::cos(double(i));
        for (std::size_t i = 0; i < K * d; ++i) mu[i] = std::sin(1.3 * double(i));
        for (std::size_t i = 0; i < K * P; ++i) q[i] = 0.3 * std::cos(0.7 * double(i)) / std::sqrt(double(d));

        const gmm_run_time_model model(d);
        const auto s = model.objective_and_gradient(xs, a, mu, q);
        if (std::abs(model.objective(xs, a, mu, q) - s.value) > 1e-12 * std::abs(s.value)) return 1;
        const auto t = gmm_dynamic_objective(d, xs, a, mu, q);  // examples/gmm_dynamic.hpp
        worst_of_all = std::max(worst_of_all, gmm_compare(d, K, n, s.value, s.gradient, t));

        // The map-reduce takes the points as d spans of n values (one per coordinate).
        std::vector<std::vector<double>> points(d, std::vector<double>(n));
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j < d; ++j) points[j][i] = xs[i * d + j];
        const gmm_run_time_points_model by_points(d);
        const auto m = by_points.objective_and_gradient(points, a, mu, q);
        if (std::abs(by_points.objective(points, a, mu, q) - m.value) > 1e-12 * std::abs(m.value)) return 1;
        worst_of_all = std::max(worst_of_all, gmm_compare(d, K, n, m.value, m.gradient, t));
    }
    return worst_of_all < 1e-10 ? 0 : 1;
}
