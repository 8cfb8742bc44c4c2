// Maximum-likelihood fit of a Student-t location and scale by Newton's method, with the
// summed log-likelihood, its gradient and its Hessian from one map-reduce call per step.
//
// 100,000 points are drawn from a Student-t with ν = 5 degrees of freedom, location
// μ = 2 and scale σ = 0.5. The degrees of freedom are known; the fit estimates μ and
// log σ (unconstrained). The log-density of one point, up to a constant, is
//     ℓ(μ, s; x) = -s - (ν + 1)/2 · log1p(((x - μ)·e^(-s))² / ν).
// Newton: θ ← θ - H⁻¹g with g and H the gradient and Hessian of Σℓ. The program checks
// that it converges in a handful of steps to within a few standard errors of the truth.
#include <array>
#include <cmath>
#include <cstdio>
#include <random>
#include <span>
#include <vector>

#include <gradc/gradc.hpp>

#include "newton_step.hpp"

int main() {
    constexpr double nu = 5, true_mu = 2, true_sigma = 0.5;
    constexpr std::size_t n = 100'000;
    std::mt19937_64 rng(2026);
    std::student_t_distribution<double> t(nu);
    std::vector<double> xs(n);
    for (auto& x : xs) x = true_mu + true_sigma * t(rng);

    auto [x, mu, s] = gradc::variables<3>();
    const auto z = (x - mu) * exp(-s);
    const auto k = gradc::compile(-s - 0.5 * (nu + 1) * log1p(z * z / nu), gradc::wrt(mu, s));

    // Start from the sample mean and log of the sample standard deviation.
    double mean = 0, sq = 0;
    for (double v : xs) mean += v;
    mean /= n;
    for (double v : xs) sq += (v - mean) * (v - mean);
    std::array<double, 2> theta{mean, std::log(std::sqrt(sq / n))};

    const std::array<std::span<const double>, 1> data{xs};
    int step = 0;
    double change = 1;
    for (; step < 20 && change > 1e-12; ++step) {
        const auto h = k.map_reduce_hessian(data, theta);  // Σℓ, its gradient and Hessian
        change = newton_step(h, theta);
        std::printf("step %d: log-likelihood %.6f, mu = %.8f, sigma = %.8f, |step| = %.3g\n", step + 1, h.value,
                    theta[0], std::exp(theta[1]), change);
    }
    const double fitted_mu = theta[0], fitted_sigma = std::exp(theta[1]);
    // Asymptotic standard errors of a Student-t fit: σ·sqrt((ν+3)/((ν+1)n)) for μ and
    // σ·sqrt((ν+3)/(2νn)) for σ.
    const double se_mu = true_sigma * std::sqrt((nu + 3) / ((nu + 1) * n));
    const double se_sigma = true_sigma * std::sqrt((nu + 3) / (2 * nu * n));
    std::printf("fit: mu = %.5f (true %.1f, standard error %.5f), sigma = %.5f (true %.1f, standard error %.5f)\n",
                fitted_mu, true_mu, se_mu, fitted_sigma, true_sigma, se_sigma);
    const bool converged = change <= 1e-12 && step <= 8;
    const bool close = std::abs(fitted_mu - true_mu) < 5 * se_mu && std::abs(fitted_sigma - true_sigma) < 5 * se_sigma;
    if (!converged) std::printf("FAILED: Newton did not converge in 8 steps\n");
    if (!close) std::printf("FAILED: the fit is more than 5 standard errors from the truth\n");
    return converged && close ? 0 : 1;
}
