#pragma once
/// Running a forward-mode peer (a number type carrying K directional derivatives) over
/// the benchmark's problems: each point seeded with the K unit directions, one pass.

#include <array>
#include <cstddef>
#include <utility>

#include "bench.hpp"

namespace bench {

/// Traits: `variable(value, j, K)` seeds direction j, `constant(value)`, `value(y)`,
/// `derivative(y, j)`.
template <class Traits, std::size_t K, class F>
void forward_points(const problem& p, F f) {
    for (std::size_t i = 0; i < p.n; ++i) {
        const auto y = [&]<std::size_t... j>(std::index_sequence<j...>) {
            return f(Traits::variable(p.in[j][i], j)...);
        }(std::make_index_sequence<K>{});
        p.out[0][i] = Traits::value(y);
        for (std::size_t j = 0; j < K; ++j) p.out[1 + j][i] = Traits::derivative(y, j);
    }
}

/// Σ log N(xᵢ; μ, σ) with derivatives in (μ, σ) only: two directions. The data enter as
/// doubles, not as constants of the peer's type (which would carry two zero derivatives).
template <class Traits>
void forward_loglik(const problem& p) {
    using S = typename Traits::S;
    const S mu = Traits::variable(loglik_mu, 0);
    const S sigma = Traits::variable(loglik_sigma, 1);
    S sum = Traits::constant(0.0);
    for (std::size_t i = 0; i < p.n; ++i) sum += formula::normal_logpdf<double, S>(p.in[0][i], mu, sigma);
    p.out[0][0] = Traits::value(sum);
    p.out[1][0] = Traits::derivative(sum, 0);
    p.out[2][0] = Traits::derivative(sum, 1);
}

/// Registers the five kernels of a forward-mode peer; Traits is a template on the
/// number of directions.
template <template <std::size_t> class Traits>
void register_forward(registry& r, const char* name) {
    auto& impl = r[name];
    impl["seed"] = [](const problem& p) {
        forward_points<Traits<2>, 2>(p, [](const auto&... a) { return formula::seed(a...); });
    };
    impl["normal_logpdf"] = [](const problem& p) {
        forward_points<Traits<3>, 3>(p, [](const auto&... a) { return formula::normal_logpdf(a...); });
    };
    impl["black_scholes"] = [](const problem& p) {
        forward_points<Traits<5>, 5>(p, [](const auto&... a) { return formula::black_scholes(a...); });
    };
    impl["mlp"] = [](const problem& p) {
        forward_points<Traits<4>, 4>(p, [](const auto&... a) { return formula::mlp(a...); });
    };
    impl["loglik"] = [](const problem& p) { forward_loglik<Traits<2>>(p); };
}

}  // namespace bench
