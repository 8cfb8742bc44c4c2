// The Gaussian mixture model objective of ADBench ("A benchmark of selected algorithmic
// differentiation tools on some problems in computer vision and machine learning",
// Srajer, Kukelova, Fitzgibbon 2018, section "Gaussian mixture model fitting") with
// d = 10 dimensions and K = 5 components, its gradient by compiled array kernels
// (examples/gmm_objective.hpp: map-reduce over the points), checked against the same
// objective in the dynamic mode.
#include <array>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <vector>

#include <gradc/autograd.hpp>
#include <gradc/gradc.hpp>

#include "gmm_dynamic.hpp"
#include "gmm_objective.hpp"

constexpr std::size_t d = 10, K = 5, P = d * (d + 1) / 2;

// The compiled objective: examples/gmm_objective.hpp (the kernels are a few lines there).
const gmm_model<d, K> model;

int main() {
    // Computes in double, as numerical code does; gradc's default (LibTorch's) is float32.
    gradc::set_default_dtype(gradc::kFloat64);
    const std::size_t n = 1000;
    std::vector<std::vector<double>> points(d, std::vector<double>(n));
    for (std::size_t j = 0; j < d; ++j)
        for (std::size_t i = 0; i < n; ++i) points[j][i] = std::sin(0.731 * double(i * d + j)) * 2;
    std::array<double, K> a;
    std::array<double, K * d> mu;
    std::array<double, K * P> q;
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = std::cos(double(i));
    for (std::size_t i = 0; i < mu.size(); ++i) mu[i] = std::sin(1.3 * double(i));
    for (std::size_t i = 0; i < q.size(); ++i) q[i] = 0.3 * std::cos(0.7 * double(i));

    const gmm_result s = model.objective_and_gradient(points, a, mu, q);
    if (std::abs(model.objective(points, a, mu, q) - s.value) > 1e-9 * std::abs(s.value)) return 1;
    // The referee (examples/gmm_dynamic.hpp) takes the points as rows of an n×d matrix.
    std::vector<double> xs(n * d);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < d; ++j) xs[i * d + j] = points[j][i];
    const auto t = gmm_dynamic_objective(d, xs, std::vector<double>(a.begin(), a.end()),
                                         std::vector<double>(mu.begin(), mu.end()), std::vector<double>(q.begin(), q.end()));
    return gmm_compare(d, K, n, s.value, s.gradient, t) < 1e-10 ? 0 : 1;
}
