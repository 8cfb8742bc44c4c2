#pragma once
// The Gaussian mixture model objective of ADBench ("A benchmark of selected algorithmic
// differentiation tools on some problems in computer vision and machine learning",
// Srajer, Kukelova, Fitzgibbon 2018, section "Gaussian mixture model fitting") as ONE
// gradc kernel for every number of dimensions d, components K and points n: the
// variables have extents known only at run time (gradc::dynamic_extent), the sums over
// points and components are loops whose counts are read from them (gradc::sum_over,
// gradc::concat_over), and d enters only as literals (the segments of a component's
// packed parameters). Used by examples/gmm_run_time.cpp and by the benchmark
// (bench/arrays/run_time_extents.cpp); examples/gmm_objective.hpp is the same objective
// with d and K fixed at compile time.
//
// Parameters: alphas (K), means (K×d), icf (K × d(d+1)/2: per component the d
// log-diagonal entries of the inverse Cholesky factor Q, then its strict lower part
// column by column); points X (n×d, one row per point). The objective:
//   f = -n·d/2·log 2π + Σ_i log Σ_k exp(α_k + Σ_j icf_kj[diag] - ½‖Q_k (x_i - μ_k)‖²)
//       - n·log Σ_k exp(α_k) + Σ_k ½(‖exp(diag_k)‖² + ‖lower_k‖²) - K·C(d).
#include <cmath>
#include <cstddef>
#include <numbers>
#include <span>
#include <tuple>
#include <vector>

#include <gradc/gradc.hpp>

#include "gmm_log_gamma.hpp"
#include "gmm_run_time_parts.hpp"

/// The name of the objective's variable set. A `gradc::variables` call names its set by
/// a lambda's type unless given a name; a header names it, so that the kernel's type has
/// linkage (g++ warns about a class in a header with members of a type without).
struct gmm_run_time_variables;

/// The kernel of the objective without its constant terms, for d dimensions: its
/// gradient with respect to alphas, means and icf.
struct gmm_run_time_objective {
    static constexpr auto vars = gradc::variables<gmm_run_time_variables>(
        gradc::vec<gradc::dynamic_extent>, gradc::mat<gradc::dynamic_extent, gradc::dynamic_extent>,
        gradc::mat<gradc::dynamic_extent, gradc::dynamic_extent>, gradc::mat<gradc::dynamic_extent, gradc::dynamic_extent>);

    static auto kernel(std::size_t d) {
        const auto alphas = std::get<0>(vars);
        const auto means = std::get<1>(vars);
        const auto icf = std::get<2>(vars);
        const auto X = std::get<3>(vars);
        const std::size_t P = d * (d + 1) / 2;
        const auto K = gradc::size(alphas);
        // Per component, built from the parameters alone: computed once per call (a
        // loop's part that does not depend on its counter is hoisted out of it,
        // docs/static.md, "Loops with counts known at run time"), then read per point.
        const auto parts = gmm_component_parts(alphas, icf, d);  // examples/gmm_run_time_parts.hpp
        const auto packed = parts.first;  // Q_k's packed values, K·P of them
        const auto constants = parts.second;
        const auto data_term = gradc::sum_over(gradc::rows(X), [=](auto i) {
            return log_sum_exp(gradc::concat_over(K, [=](auto k) {
                const auto Q = gradc::lower_triangular(gradc::segment(packed, k * P, P));
                return constants[k] - 0.5 * squared_norm(Q * (row(X, i) - row(means, k)));
            }));
        });
        const auto prior = gradc::sum_over(gradc::rows(icf), [=](auto k) {
            return 0.5 * (squared_norm(exp(gradc::segment(row(icf, k), 0, d))) +
                          squared_norm(gradc::segment(row(icf, k), d, P - d)));
        });
        // n·log Σ exp(α), n read from X's rows: a body that does not depend on its
        // counter runs once and is counted n times.
        const auto normaliser = gradc::sum_over(gradc::rows(X), [=](auto) { return log_sum_exp(alphas); });
        return gradc::compile(data_term - normaliser + prior, gradc::wrt(alphas, means, icf));
    }
};

/// The kernel for d dimensions (one type for every d).
inline auto gmm_run_time_kernel(std::size_t d) { return gmm_run_time_objective::kernel(d); }

/// The compiled objective at run-time d, K and n: one kernel type for every size.
class gmm_run_time_model {
public:
    using kernel_type = decltype(gmm_run_time_kernel(1));

    explicit gmm_run_time_model(std::size_t d) : d_(d), kernel_(gmm_run_time_kernel(d)) {}

    struct result {
        double value;
        std::vector<double> gradient;  // alphas, means, icf, each flattened row-major
    };

    /// The objective (X: n×d row-major; means K×d; icf K×d(d+1)/2).
    double objective(std::span<const double> X, std::span<const double> alphas, std::span<const double> means,
                     std::span<const double> icf) const {
        const std::size_t K = alphas.size(), n = X.size() / d_;
        return kernel_.value(alphas, gradc::mat_view(means, K, d_), gradc::mat_view(icf, K, P()), gradc::mat_view(X, n, d_)) +
               constant_terms(n, K);
    }

    /// The objective and its gradient with respect to alphas, means and icf.
    result objective_and_gradient(std::span<const double> X, std::span<const double> alphas,
                                  std::span<const double> means, std::span<const double> icf) const {
        const std::size_t K = alphas.size(), n = X.size() / d_;
        const auto g = kernel_.gradient(alphas, gradc::mat_view(means, K, d_), gradc::mat_view(icf, K, P()),
                                        gradc::mat_view(X, n, d_));
        result r{g.value + constant_terms(n, K), {}};
        const auto& [ga, gm, gq] = g.gradient;
        r.gradient.insert(r.gradient.end(), ga.begin(), ga.end());
        r.gradient.insert(r.gradient.end(), gm.data.begin(), gm.data.end());
        r.gradient.insert(r.gradient.end(), gq.data.begin(), gq.data.end());
        return r;
    }

    std::size_t dimensions() const { return d_; }
    const kernel_type& kernel() const { return kernel_; }

private:
    std::size_t P() const { return d_ * (d_ + 1) / 2; }
    double constant_terms(std::size_t n, std::size_t K) const {
        const double d = double(d_), nu = d + 1;
        const double c = nu * d * (-0.5 * std::log(2.0)) - log_gamma_distrib(0.5 * nu, d);
        return -double(n) * d * 0.5 * std::log(2 * std::numbers::pi) - double(K) * c;
    }

    std::size_t d_;
    kernel_type kernel_;
};
