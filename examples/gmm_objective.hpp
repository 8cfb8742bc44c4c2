#pragma once
// The Gaussian mixture model objective of ADBench ("A benchmark of selected algorithmic
// differentiation tools on some problems in computer vision and machine learning",
// Srajer, Kukelova, Fitzgibbon 2018, section "Gaussian mixture model fitting") as gradc
// array kernels, for d dimensions and K components. Used by examples/gmm.cpp and by the
// benchmark (bench/arrays/).
//
// Parameters: alphas (K), means (K×d), icf (K × d(d+1)/2: per component the d
// log-diagonal entries of the inverse Cholesky factor Q, then its strict lower part
// column by column). The objective, for n points x_i, with Wishart prior (γ = 1, m = 0):
//   f = -n·d/2·log 2π + Σ_i log Σ_k exp(α_k + Σ_j icf_kj[diag] - ½‖Q_k (x_i - μ_k)‖²)
//       - n·log Σ_k exp(α_k) + Σ_k ½(‖exp(diag_k)‖² + ‖lower_k‖²) - K·C(d),
//   C(d) = ν·d·(-½ log 2) - log Γ_d(ν/2), ν = d + 1.
#include <array>
#include <cmath>
#include <numbers>
#include <tuple>
#include <vector>

#include <gradc/gradc.hpp>

#include "gmm_log_gamma.hpp"

struct gmm_result {
    double value;
    std::vector<double> gradient;  // alphas, means, icf, each flattened row-major
};

template <std::size_t d, std::size_t K>
struct gmm_model {
    static constexpr std::size_t P = d * (d + 1) / 2;
    static constexpr auto vars =
        gradc::variables(gradc::vec<K>, gradc::mat<K, d>, gradc::mat<K, P>, gradc::vec<d>);

    /// Q_k: exp of the packed diagonal, then the strict lower part, as a d×d matrix.
    template <class Index>
    static auto inverse_cholesky(Index k) {
        const auto packed = row(std::get<2>(vars), k);
        return gradc::lower_triangular<d>(concat(exp(gradc::segment<0, d>(packed)), gradc::segment<d, P - d>(packed)));
    }

    /// One point's term: log Σ_k exp(α_k + Σ log-diag_k - ½‖Q_k (x - μ_k)‖²).
    static auto point_term() {
        // Init-captures: clang 14 cannot capture structured bindings themselves.
        const auto& [alphas_, means_, icf_, x_] = vars;
        return log_sum_exp(gradc::concat_over<K>([alphas = alphas_, means = means_, icf = icf_, x = x_](auto k) {
            return alphas[k] + sum(gradc::segment<0, d>(row(icf, k))) -
                   0.5 * squared_norm(inverse_cholesky(k) * (x - row(means, k)));
        }));
    }

    /// The terms without points: the Wishart prior, and the alphas' normaliser (per point).
    static auto prior() {
        return gradc::sum_over<K>([icf = std::get<2>(vars)](auto k) {
            const auto packed = row(icf, k);
            return 0.5 * (squared_norm(exp(gradc::segment<0, d>(packed))) + squared_norm(gradc::segment<d, P - d>(packed)));
        });
    }
    static auto normaliser() { return log_sum_exp(std::get<0>(vars)); }

    static auto compile_wrt_parameters(const auto& e) {
        const auto& [alphas, means, icf, x] = vars;
        return gradc::compile(e, gradc::wrt(alphas, means, icf));
    }

    decltype(compile_wrt_parameters(point_term())) point_kernel = compile_wrt_parameters(point_term());
    decltype(compile_wrt_parameters(prior())) prior_kernel = compile_wrt_parameters(prior());
    decltype(compile_wrt_parameters(normaliser())) normaliser_kernel = compile_wrt_parameters(normaliser());

    static double constant_terms(double n) {
        const double nu = double(d) + 1;
        const double c = nu * double(d) * (-0.5 * std::log(2.0)) - log_gamma_distrib(0.5 * nu, double(d));
        return -n * double(d) * 0.5 * std::log(2 * std::numbers::pi) - double(K) * c;
    }

    /// The objective alone (points: d spans of n values).
    template <class... Options>
    double objective(const std::vector<std::vector<double>>& points, const std::array<double, K>& a,
                     const std::array<double, K * d>& mu, const std::array<double, K * P>& q,
                     const Options&... options) const {
        const double n = double(points[0].size());
        const std::array<double, d> unused{};
        return point_kernel.map_reduce_value(points, a, mu, q, options...) - n * normaliser_kernel(a, mu, q, unused) +
               prior_kernel(a, mu, q, unused) + constant_terms(n);
    }

    /// The objective and its gradient.
    template <class... Options>
    gmm_result objective_and_gradient(const std::vector<std::vector<double>>& points, const std::array<double, K>& a,
                                      const std::array<double, K * d>& mu, const std::array<double, K * P>& q,
                                      const Options&... options) const {
        const double n = double(points[0].size());
        const auto data = point_kernel.map_reduce(points, a, mu, q, options...);
        const std::array<double, d> unused{};
        const auto pr = prior_kernel.gradient(a, mu, q, unused);
        const auto nz = normaliser_kernel.gradient(a, mu, q, unused);
        gmm_result r;
        r.value = data.value - n * nz.value + pr.value + constant_terms(n);
        r.gradient.reserve(K + K * d + K * P);
        auto add = [&](const auto& g1, const auto& g2, const auto& g3) {
            for (std::size_t i = 0; i < g1.size(); ++i) r.gradient.push_back(g1[i] - n * g2[i] + g3[i]);
        };
        add(std::get<0>(data.gradient), std::get<0>(nz.gradient), std::get<0>(pr.gradient));
        add(std::get<1>(data.gradient), std::get<1>(nz.gradient), std::get<1>(pr.gradient));
        add(std::get<2>(data.gradient), std::get<2>(nz.gradient), std::get<2>(pr.gradient));
        return r;
    }
};
