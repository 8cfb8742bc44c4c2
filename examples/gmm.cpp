// The Gaussian mixture model objective of ADBench ("A benchmark of selected algorithmic
// differentiation tools on some problems in computer vision and machine learning",
// Srajer, Kukelova, Fitzgibbon 2018, section "Gaussian mixture model fitting") with
// d = 10 dimensions and K = 5 components, its gradient by a compiled array kernel
// (map-reduce over the points), checked against the same objective in the dynamic mode.
//
// Parameters: alphas (K), means (K×d), icf (K × d(d+1)/2: per component the d
// log-diagonal entries of the inverse Cholesky factor Q, then its strict lower part
// column by column). The objective, for n points x_i, with Wishart prior (γ, m):
//   f = -n·d/2·log 2π + Σ_i log Σ_k exp(α_k + Σ_j icf_kj[diag] - ½‖Q_k (x_i - μ_k)‖²)
//       - n·log Σ_k exp(α_k) + Σ_k (½γ²(‖exp(diag_k)‖² + ‖lower_k‖²) - m·Σ diag_k) - K·C(d, γ, m).
#include <array>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <vector>

#include <gradc/autograd.hpp>
#include <gradc/gradc.hpp>

constexpr std::size_t d = 10, K = 5, P = d * (d + 1) / 2;

// ---- the compiled objective ---------------------------------------------------------

auto [alphas, means, icf, x] = gradc::variables(gradc::vec<K>, gradc::mat<K, d>, gradc::mat<K, P>, gradc::vec<d>);

/// Q_k: exp of the packed diagonal, then the strict lower part, as a d×d matrix.
auto inverse_cholesky(auto k) {
    const auto packed = row(icf, k);
    return gradc::lower_triangular<d>(concat(exp(gradc::segment<0, d>(packed)), gradc::segment<d, P - d>(packed)));
}

/// One point's term: log Σ_k exp(α_k + Σ log-diag_k - ½‖Q_k (x - μ_k)‖²).
const auto point_term = log_sum_exp(gradc::concat_over<K>([](auto k) {
    return alphas[k] + sum(gradc::segment<0, d>(row(icf, k))) - 0.5 * squared_norm(inverse_cholesky(k) * (x - row(means, k)));
}));

/// The terms without points: the Wishart prior and the alphas' normalisation per point
/// (multiplied by n at run time), over the same variables (x unused).
const auto prior = gradc::sum_over<K>([](auto k) {
    const auto packed = row(icf, k);
    return 0.5 * (squared_norm(exp(gradc::segment<0, d>(packed))) + squared_norm(gradc::segment<d, P - d>(packed)));
});
const auto normaliser = log_sum_exp(alphas);

const auto point_kernel = gradc::compile(point_term, gradc::wrt(alphas, means, icf));
const auto prior_kernel = gradc::compile(prior, gradc::wrt(alphas, means, icf));
const auto normaliser_kernel = gradc::compile(normaliser, gradc::wrt(alphas, means, icf));

/// log of the multivariate gamma function Γ_p(a) (ADBench's log_gamma_distrib).
double log_gamma_distrib(double a, double p) {
    double r = 0.25 * p * (p - 1) * std::log(std::numbers::pi);
    for (int j = 1; j <= int(p); ++j) r += std::lgamma(a + 0.5 * (1 - j));
    return r;
}

struct gmm_result {
    double value;
    std::vector<double> gradient;  // alphas, means, icf, flattened row-major
};

/// The objective and its gradient; γ = 1, m = 0 as in the benchmark.
gmm_result compiled_objective(const std::vector<std::vector<double>>& points, const std::array<double, K>& a,
                              const std::array<double, K * d>& mu, const std::array<double, K * P>& q) {
    const double n = double(points[0].size()), gamma = 1, m = 0;
    const auto data = point_kernel.map_reduce(points, a, mu, q);
    const std::array<double, d> unused{};
    const auto pr = prior_kernel.gradient(a, mu, q, unused);
    const auto nz = normaliser_kernel.gradient(a, mu, q, unused);
    const double nu = double(d) + m + 1;
    const double c = nu * double(d) * (std::log(gamma) - 0.5 * std::log(2.0)) - log_gamma_distrib(0.5 * nu, double(d));
    gmm_result r;
    r.value = -n * double(d) * 0.5 * std::log(2 * std::numbers::pi) + data.value - n * nz.value +
              gamma * gamma * pr.value - double(K) * c;
    auto add = [&](const auto& g1, const auto& g2, const auto& g3) {
        for (std::size_t i = 0; i < g1.size(); ++i) r.gradient.push_back(g1[i] - n * g2[i] + gamma * gamma * g3[i]);
    };
    add(std::get<0>(data.gradient), std::get<0>(nz.gradient), std::get<0>(pr.gradient));
    add(std::get<1>(data.gradient), std::get<1>(nz.gradient), std::get<1>(pr.gradient));
    add(std::get<2>(data.gradient), std::get<2>(nz.gradient), std::get<2>(pr.gradient));
    return r;
}

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

    const gmm_result s = compiled_objective(points, a, mu, q);
    const gmm_result t = dynamic_objective(points, a, mu, q);
    double worst = std::abs(s.value - t.value) / std::abs(t.value);
    for (std::size_t i = 0; i < s.gradient.size(); ++i)
        worst = std::max(worst, std::abs(s.gradient[i] - t.gradient[i]) / std::max(1.0, std::abs(t.gradient[i])));
    std::printf("GMM d=%zu K=%zu n=%zu: objective %.12g (dynamic %.12g), %zu gradient entries, largest relative "
                "difference %.2e\n",
                d, K, n, s.value, t.value, s.gradient.size(), worst);
    return worst < 1e-10 ? 0 : 1;
}
