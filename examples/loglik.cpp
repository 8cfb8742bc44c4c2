// The normal log-likelihood of a million data points and its gradient with respect to
// μ and σ, by one vectorised map-reduce call; checked against the closed form.
//
//   ℓ(μ, σ) = Σᵢ log N(xᵢ; μ, σ) = -Σᵢ zᵢ²/2 - n log σ - n log(2π)/2,  zᵢ = (xᵢ - μ)/σ
//   ∂ℓ/∂μ = Σᵢ zᵢ/σ,   ∂ℓ/∂σ = (Σᵢ zᵢ² - n)/σ

#include <array>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <random>
#include <span>
#include <vector>

#include <gradc/gradc.hpp>
#include <gradc/simd.hpp>

int main() {
    // x is data (one entry per point); μ and σ are the parameters, hence wrt(mu, sigma).
    auto [x, mu, sigma] = gradc::variables<3>();
    const double half_log_2pi = 0.5 * std::log(2 * std::numbers::pi);
    const auto z = (x - mu) / sigma;
    const auto logpdf = gradc::compile(-0.5 * (z * z) - log(sigma) - half_log_2pi, gradc::wrt(mu, sigma));

    std::vector<double> data(1'000'000);
    std::mt19937_64 rng(2026);
    std::normal_distribution<double> normal(3.0, 1.5);
    for (double& e : data) e = normal(rng);

    const double m = 2.9, s = 1.6;
    const std::array<std::span<const double>, 1> points{data};
    const auto r = logpdf.map_reduce(points, std::array{m, s});

    double sz = 0, szz = 0;
    for (double e : data) {
        sz += (e - m) / s;
        szz += (e - m) / s * ((e - m) / s);
    }
    const double n = double(data.size());
    const double value = -0.5 * szz - n * std::log(s) - n * half_log_2pi;
    const double d_mu = sz / s, d_sigma = (szz - n) / s;

    std::printf("log-likelihood  %.10f   closed form %.10f\n", r.value, value);
    std::printf("d/d mu          %.10f   closed form %.10f\n", r.gradient[0], d_mu);
    std::printf("d/d sigma       %.10f   closed form %.10f\n", r.gradient[1], d_sigma);

    auto close = [](double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b)); };
    if (!close(r.value, value) || !close(r.gradient[0], d_mu) || !close(r.gradient[1], d_sigma)) {
        std::puts("MISMATCH with the closed form");
        return 1;
    }
    std::puts("matches the closed form");
    return 0;
}
