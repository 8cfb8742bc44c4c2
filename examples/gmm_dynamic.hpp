#pragma once
// The Gaussian mixture model objective of ADBench (examples/gmm_objective.hpp gives the
// formula) in gradc's dynamic mode, for any d, K and n: the referee of the compiled
// kernels in examples/gmm.cpp and examples/gmm_run_time.cpp.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <cstdint>
#include <numbers>
#include <vector>

#include <gradc/autograd.hpp>

#include "gmm_log_gamma.hpp"

struct gmm_dynamic_result {
    double value;
    std::vector<double> gradient;  // alphas, means, icf, each flattened row-major
};

/// The objective and its gradient: xs the n×d points row-major, a (K), mu (K×d), q (K×d(d+1)/2).
inline gmm_dynamic_result gmm_dynamic_objective(std::size_t d, const std::vector<double>& xs,
                                                const std::vector<double>& a, const std::vector<double>& mu,
                                                const std::vector<double>& q) {
    using gradc::Tensor;
    const std::size_t K = a.size(), P = d * (d + 1) / 2;
    const std::int64_t n = std::int64_t(xs.size() / d), D = std::int64_t(d), KK = std::int64_t(K), PP = std::int64_t(P);
    const auto opts = gradc::TensorOptions().dtype(gradc::kDouble);
    Tensor X = gradc::from_vector(xs, {n, D}, opts);
    Tensor A = gradc::from_vector(a, {KK}, opts.requires_grad(true));
    Tensor M = gradc::from_vector(mu, {KK, D}, opts.requires_grad(true));
    Tensor Q = gradc::from_vector(q, {KK, PP}, opts.requires_grad(true));
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
    Tensor prior = 0.5 * ((gradc::exp(diag) * gradc::exp(diag)).sum() + (gradc::narrow(Q, 1, D, PP - D).square()).sum());
    Tensor f = gradc::logsumexp(main, {1}).sum() - double(n) * gradc::logsumexp(A, {0}) + prior +
               (-double(n) * double(d) * 0.5 * std::log(2 * std::numbers::pi) - double(K) * c);
    f.backward();
    gmm_dynamic_result r{f.item<double>(), {}};
    for (const Tensor& g : {A.grad(), M.grad(), Q.grad()}) {
        const Tensor flat = g.reshape({-1});
        for (std::int64_t i = 0; i < flat.numel(); ++i) r.gradient.push_back(flat[i].item<double>());
    }
    return r;
}

/// A compiled objective's value and gradient against the referee's: prints the line the
/// examples print and returns the largest relative difference (infinite when the
/// gradients' sizes differ).
inline double gmm_compare(std::size_t d, std::size_t K, std::size_t n, double value, const std::vector<double>& gradient,
                          const gmm_dynamic_result& t) {
    if (gradient.size() != t.gradient.size()) return std::numeric_limits<double>::infinity();
    double worst = std::abs(value - t.value) / std::abs(t.value);
    for (std::size_t i = 0; i < gradient.size(); ++i)
        worst = std::max(worst, std::abs(gradient[i] - t.gradient[i]) / std::max(1.0, std::abs(t.gradient[i])));
    std::printf("GMM d=%zu K=%zu n=%zu: objective %.12g (dynamic %.12g), %zu gradient entries, largest relative "
                "difference %.2e\n",
                d, K, n, value, t.value, gradient.size(), worst);
    return worst;
}
