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

#include "gmm_objective.hpp"

constexpr std::size_t d = 10, K = 5, P = d * (d + 1) / 2;

// The compiled objective: examples/gmm_objective.hpp (the kernels are a few lines there).
const gmm_model<d, K> model;

// ---- the same objective in the dynamic mode (the referee) -----------------------------

gmm_result dynamic_objective(const std::vector<std::vector<double>>& points, const std::array<double, K>& a,
                             const std::array<double, K * d>& mu, const std::array<double, K * P>& q) {
    using gradc::Tensor;
    const std::int64_t n = std::int64_t(points[0].size()), D = d, KK = K, PP = P;
    std::vector<double> xs(std::size_t(n) * d);
    for (std::size_t i = 0; i < std::size_t(n); ++i)
        for (std::size_t j = 0; j < d; ++j) xs[i * d + j] = points[j][i];
    const auto opts = gradc::TensorOptions().dtype(gradc::kDouble);
    Tensor X = gradc::from_vector(xs, {n, D}, opts);
    Tensor A = gradc::from_vector(std::vector<double>(a.begin(), a.end()), {KK}, opts.requires_grad(true));
    Tensor M = gradc::from_vector(std::vector<double>(mu.begin(), mu.end()), {KK, D}, opts.requires_grad(true));
    Tensor Q = gradc::from_vector(std::vector<double>(q.begin(), q.end()), {KK, PP}, opts.requires_grad(true));
    // Q_k as d×d from [exp(diag), lower, 0] by an index map (0 above the diagonal).
    Tensor diag = gradc::narrow(Q, 1, 0, D);
    Tensor packed = gradc::cat({gradc::exp(diag), gradc::narrow(Q, 1, D, PP - D), gradc::zeros({KK, 1}, opts)}, 1);
    std::vector<double> map(d * d, double(P));
    for (std::size_t r = 0; r < d; ++r) {
        map[r * d + r] = double(r);
        for (std::size_t c = 0; c < r; ++c) map[r * d + c] = double(d + c * (2 * d - c - 1) / 2 + (r - c - 1));
    }
    Tensor index = gradc::from_vector(map, {D * D}, gradc::TensorOptions().dtype(gradc::kLong));
    Tensor L = gradc::index_select(packed, 1, index).reshape({1, KK, D, D});
    Tensor centred = X.reshape({n, 1, 1, D}) - M.reshape({1, KK, 1, D});  // [n, K, 1, d]
    Tensor Lx = (L * centred).sum({3});                                    // [n, K, d]
    Tensor main = A.reshape({1, KK}) + diag.sum({1}).reshape({1, KK}) - 0.5 * (Lx * Lx).sum({2});
    const double nu = double(d) + 1;
    const double c = nu * double(d) * (-0.5 * std::log(2.0)) - log_gamma_distrib(0.5 * nu, double(d));
    Tensor prior_t = 0.5 * ((gradc::exp(diag) * gradc::exp(diag)).sum() + (gradc::narrow(Q, 1, D, PP - D).square()).sum());
    Tensor f = gradc::logsumexp(main, {1}).sum() - double(n) * gradc::logsumexp(A, {0}) + prior_t +
               (-double(n) * double(d) * 0.5 * std::log(2 * std::numbers::pi) - double(K) * c);
    f.backward();
    gmm_result r;
    r.value = f.item<double>();
    for (const Tensor& g : {A.grad(), M.grad(), Q.grad()}) {
        const Tensor flat = g.reshape({-1});
        for (std::int64_t i = 0; i < flat.numel(); ++i) r.gradient.push_back(flat[i].item<double>());
    }
    return r;
}

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
    const gmm_result t = dynamic_objective(points, a, mu, q);
    double worst = std::abs(s.value - t.value) / std::abs(t.value);
    for (std::size_t i = 0; i < s.gradient.size(); ++i)
        worst = std::max(worst, std::abs(s.gradient[i] - t.gradient[i]) / std::max(1.0, std::abs(t.gradient[i])));
    std::printf("GMM d=%zu K=%zu n=%zu: objective %.12g (dynamic %.12g), %zu gradient entries, largest relative "
                "difference %.2e\n",
                d, K, n, s.value, t.value, s.gradient.size(), worst);
    return worst < 1e-10 ? 0 : 1;
}
