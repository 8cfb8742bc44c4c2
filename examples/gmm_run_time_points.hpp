#pragma once
// The ADBench Gaussian mixture objective (examples/gmm_run_time_objective.hpp states it)
// with d and K read at run time, summed over the points by a map-reduce: one kernel for
// the term of one point, whose data x is a vector of run-time length given as d spans of
// n values, and one-point kernels for the prior and the normaliser, as the kernels fixed
// at d and K do (examples/gmm_objective.hpp). The map-reduce computes what depends on the
// parameters alone once per call (Q_k's packed entries, the constants α_k + Σ log-diag)
// and runs the rest on SIMD batches of points; the loop over the components steps once
// per batch. Used by examples/gmm_run_time.cpp and bench/arrays/gmm_run_time.cpp.
#include <cmath>
#include <cstddef>
#include <numbers>
#include <span>
#include <tuple>
#include <vector>

#include <gradc/gradc.hpp>

#include "gmm_log_gamma.hpp"
#include "gmm_run_time_parts.hpp"

/// The name of the variable set of the point kernels (linkage: see gmm_run_time_variables).
struct gmm_point_variables;

/// The kernels for d dimensions (one type for every d): variables alphas (K), means
/// (K×d), icf (K × d(d+1)/2), x (d, the data).
struct gmm_point_kernels {
    static constexpr auto vars = gradc::variables<gmm_point_variables>(
        gradc::vec<gradc::dynamic_extent>, gradc::mat<gradc::dynamic_extent, gradc::dynamic_extent>,
        gradc::mat<gradc::dynamic_extent, gradc::dynamic_extent>, gradc::vec<gradc::dynamic_extent>);

    static auto point_term(std::size_t d) {
        const auto alphas = std::get<0>(vars);
        const auto means = std::get<1>(vars);
        const auto icf = std::get<2>(vars);
        const auto x = std::get<3>(vars);
        const std::size_t P = d * (d + 1) / 2;
        const auto K = gradc::size(alphas);
        const auto parts = gmm_component_parts(alphas, icf, d);  // examples/gmm_run_time_parts.hpp
        const auto packed = parts.first;
        const auto constants = parts.second;
        return log_sum_exp(gradc::concat_over(K, [=](auto k) {
            const auto Q = gradc::lower_triangular(gradc::segment(packed, k * P, P));
            return constants[k] - 0.5 * squared_norm(Q * (x - row(means, k)));
        }));
    }
    static auto prior(std::size_t d) {
        const auto icf = std::get<2>(vars);
        const std::size_t P = d * (d + 1) / 2;
        return gradc::sum_over(gradc::rows(icf), [=](auto k) {
            return 0.5 * (squared_norm(exp(gradc::segment(row(icf, k), 0, d))) +
                          squared_norm(gradc::segment(row(icf, k), d, P - d)));
        });
    }
    static auto normaliser() { return log_sum_exp(std::get<0>(vars)); }
    static auto wrt_parameters(const auto& e) {
        return gradc::compile(e, gradc::wrt(std::get<0>(vars), std::get<1>(vars), std::get<2>(vars)));
    }
};

/// The objective at run-time d, K and n, summed over the points by a map-reduce.
class gmm_run_time_points_model {
public:
    explicit gmm_run_time_points_model(std::size_t d)
        : d_(d),
          point_(gmm_point_kernels::wrt_parameters(gmm_point_kernels::point_term(d))),
          prior_(gmm_point_kernels::wrt_parameters(gmm_point_kernels::prior(d))),
          normaliser_(gmm_point_kernels::wrt_parameters(gmm_point_kernels::normaliser())) {}

    struct result {
        double value;
        std::vector<double> gradient;  // alphas, means, icf, each flattened row-major
    };

    /// The objective (points: d spans of n values; means K×d; icf K×d(d+1)/2, row-major).
    template <class Points, class... Options>
    double objective(const Points& points, std::span<const double> alphas, std::span<const double> means,
                     std::span<const double> icf, const Options&... options) const {
        const std::size_t K = alphas.size(), n = points.empty() ? 0 : std::size(points[0]);
        const auto mu = gradc::mat_view(means, K, d_);
        const auto q = gradc::mat_view(icf, K, P());
        const std::vector<double> none;
        return point_.map_reduce_value(points, alphas, mu, q, options...) - double(n) * normaliser_(alphas, mu, q, none) +
               prior_(alphas, mu, q, none) + constant_terms(n, K);
    }

    /// The objective and its gradient with respect to alphas, means and icf.
    template <class Points, class... Options>
    result objective_and_gradient(const Points& points, std::span<const double> alphas,
                                  std::span<const double> means, std::span<const double> icf,
                                  const Options&... options) const {
        const std::size_t K = alphas.size(), n = points.empty() ? 0 : std::size(points[0]);
        const auto mu = gradc::mat_view(means, K, d_);
        const auto q = gradc::mat_view(icf, K, P());
        const std::vector<double> none;
        const auto data = point_.map_reduce(points, alphas, mu, q, options...);
        const auto pr = prior_.gradient(alphas, mu, q, none);
        const auto nz = normaliser_.gradient(alphas, mu, q, none);
        result r{data.value - double(n) * nz.value + pr.value + constant_terms(n, K), {}};
        auto add = [&](const auto& g1, const auto& g2, const auto& g3) {
            for (std::size_t i = 0; i < g1.size(); ++i) r.gradient.push_back(g1[i] - double(n) * g2[i] + g3[i]);
        };
        add(std::get<0>(data.gradient), std::get<0>(nz.gradient), std::get<0>(pr.gradient));
        add(std::get<1>(data.gradient).data, std::get<1>(nz.gradient).data, std::get<1>(pr.gradient).data);
        add(std::get<2>(data.gradient).data, std::get<2>(nz.gradient).data, std::get<2>(pr.gradient).data);
        return r;
    }

private:
    std::size_t P() const { return d_ * (d_ + 1) / 2; }
    double constant_terms(std::size_t n, std::size_t K) const {
        const double d = double(d_), nu = d + 1;
        const double c = nu * d * (-0.5 * std::log(2.0)) - log_gamma_distrib(0.5 * nu, d);
        return -double(n) * d * 0.5 * std::log(2 * std::numbers::pi) - double(K) * c;
    }

    using point_kernel = decltype(gmm_point_kernels::wrt_parameters(gmm_point_kernels::point_term(1)));
    using prior_kernel = decltype(gmm_point_kernels::wrt_parameters(gmm_point_kernels::prior(1)));
    using normaliser_kernel = decltype(gmm_point_kernels::wrt_parameters(gmm_point_kernels::normaliser()));
    std::size_t d_;
    point_kernel point_;
    prior_kernel prior_;
    normaliser_kernel normaliser_;
};
