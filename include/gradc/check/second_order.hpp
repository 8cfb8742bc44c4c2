#pragma once
/// \file
/// `gradc::check::gradgradcheck(kernel, points, opts)`: the second-order programs of a
/// compiled one-output kernel against central differences of its (first-order, already
/// checked) gradient program, at every point:
///  - `hessian` (every entry, and exact symmetry);
///  - `hvp` along every unit vector and along one mixed direction;
///  - `hessian_batch` and `hvp_batch`, the points repeated to fill two whole SIMD batches
///    and a tail, so every lane is checked.
/// The report names the program, the point, the lane and the pair of variables that
/// disagree, like `gradc::check::gradcheck`'s.
///
/// `gradc::check::cross_hessian(expr, points)`: the compiled Hessian against the dynamic
/// engine's `autograd::functional::hessian` of the same expression (double backward
/// through the tensor operations of each rule).

#include <algorithm>
#include <array>
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include <gradc/autograd/functional.hpp>
#include <gradc/check/report.hpp>
#include <gradc/check/static.hpp>
#include <gradc/gradc.hpp>

namespace gradc::check {

namespace detail {

inline std::string pair(std::size_t i, std::size_t j) { return var(i) + ", " + var(j); }

/// Numerical Hessian at x: column j is the central difference of the gradient along w_j.
template <class K>
std::array<std::array<double, K::wrt_count>, K::wrt_count> numerical_hessian(const K& k,
                                                                             const std::array<double, K::arity>& x,
                                                                             double eps) {
    constexpr std::size_t W = K::wrt_count;
    std::array<std::array<double, W>, W> h{};
    for (std::size_t j = 0; j < W; ++j) {
        auto xp = x, xm = x;
        xp[K::wrt_variables[j]] += eps;
        xm[K::wrt_variables[j]] -= eps;
        const auto gp = k.gradient(xp).gradient, gm = k.gradient(xm).gradient;
        for (std::size_t i = 0; i < W; ++i) h[i][j] = (gp[i] - gm[i]) / (2 * eps);
    }
    return h;
}

/// A direction that mixes every wrt variable with distinct weights.
template <std::size_t W>
std::array<double, W> mixed_direction() {
    std::array<double, W> v;
    for (std::size_t j = 0; j < W; ++j) v[j] = (j % 2 ? -0.5 : 1.0) * (1.0 + 0.25 * static_cast<double>(j));
    return v;
}

}  // namespace detail

/// gradgradcheck of a compiled kernel at several points; true when every point passes.
template <class K>
bool gradgradcheck(const K& k, const std::vector<std::array<double, K::arity>>& points, const Options& opt = {}) {
    static_assert(K::output_count == 1, "gradc::check::gradgradcheck: the kernel must have one output");
    constexpr std::size_t N = K::arity, W = K::wrt_count;
    constexpr std::size_t H = lower::triangle_size(W);
    detail::Report rep("gradc::check::gradgradcheck");
    const auto where = [](std::size_t i, std::size_t j) {
        return detail::pair(K::wrt_variables[i], K::wrt_variables[j]);
    };
    const auto dir = detail::mixed_direction<W>();
    std::vector<std::array<std::array<double, W>, W>> num(points.size());
    for (std::size_t p = 0; p < points.size(); ++p) {
        const auto& x = points[p];
        num[p] = detail::numerical_hessian(k, x, opt.eps);
        const auto h = k.hessian(x);
        const auto g = k.gradient(x);
        rep.compare(h.value, g.value, opt, "hessian (value)", p, x, detail::out(0));
        for (std::size_t i = 0; i < W; ++i) {
            rep.compare(h.gradient[i], g.gradient[i], opt, "hessian (gradient)", p, x, detail::var(K::wrt_variables[i]));
            for (std::size_t j = 0; j < W; ++j) {
                rep.compare(h.hessian[i][j], num[p][i][j], opt, "hessian", p, x, where(i, j));
                if (h.hessian[i][j] != h.hessian[j][i] && !(std::isnan(h.hessian[i][j]) && std::isnan(h.hessian[j][i])))
                    rep.compare(h.hessian[i][j], h.hessian[j][i], Options{.atol = 0, .rtol = 0}, "hessian (symmetry)",
                                p, x, where(i, j));
            }
        }
        for (std::size_t j = 0; j <= W; ++j) {
            std::array<double, W> v{};
            if (j < W) v[j] = 1;
            else v = dir;
            const auto r = k.hvp(x, v);
            for (std::size_t i = 0; i < W; ++i) {
                double expected = 0;
                for (std::size_t q = 0; q < W; ++q) expected += num[p][i][q] * v[q];
                rep.compare(r.hvp[i], expected, opt, j < W ? "hvp (unit direction)" : "hvp (mixed direction)", p, x,
                            j < W ? where(i, j) : detail::var(K::wrt_variables[i]));
            }
        }
    }
    if (!points.empty()) {
        const std::size_t lanes = simd::batch<double>::size;
        const std::size_t n = std::max(points.size(), 2 * lanes + lanes / 2 + 1);
        const auto point_of = [&](std::size_t i) { return i % points.size(); };
        std::vector<std::vector<double>> in(N, std::vector<double>(n)), vin(W, std::vector<double>(n));
        for (std::size_t i = 0; i < n; ++i) {
            for (std::size_t v = 0; v < N; ++v) in[v][i] = points[point_of(i)][v];
            for (std::size_t j = 0; j < W; ++j) vin[j][i] = dir[j];
        }
        std::vector<double> values(n);
        std::vector<std::vector<double>> grad(W, std::vector<double>(n)), hess(H, std::vector<double>(n)),
            hv(W, std::vector<double>(n));
        std::array<std::span<const double>, N> in_s;
        std::array<std::span<const double>, W> vin_s;
        std::array<std::span<double>, W> grad_s, hv_s;
        std::array<std::span<double>, H> hess_s;
        for (std::size_t v = 0; v < N; ++v) in_s[v] = in[v];
        for (std::size_t j = 0; j < W; ++j) {
            vin_s[j] = vin[j];
            grad_s[j] = grad[j];
            hv_s[j] = hv[j];
        }
        for (std::size_t t = 0; t < H; ++t) hess_s[t] = hess[t];
        const auto lane = [&](const char* call, std::size_t i) {
            return std::string(call) + " (lane " + std::to_string(i % lanes) + " of batch point " + std::to_string(i) + ")";
        };
        k.hessian_batch(in_s, std::span<double>(values), grad_s, hess_s);
        for (std::size_t i = 0; i < n; ++i) {
            const std::size_t p = point_of(i);
            std::size_t t = 0;
            for (std::size_t a = 0; a < W; ++a)
                for (std::size_t b = a; b < W; ++b)
                    rep.compare(hess[t++][i], num[p][a][b], opt, lane("hessian_batch", i), p, points[p], where(a, b));
        }
        k.hvp_batch(in_s, vin_s, std::span<double>(values), grad_s, hv_s);
        for (std::size_t i = 0; i < n; ++i) {
            const std::size_t p = point_of(i);
            for (std::size_t a = 0; a < W; ++a) {
                double expected = 0;
                for (std::size_t q = 0; q < W; ++q) expected += num[p][a][q] * dir[q];
                rep.compare(hv[a][i], expected, opt, lane("hvp_batch", i), p, points[p], detail::var(K::wrt_variables[a]));
            }
        }
    }
    return rep.finish(opt);
}

/// Evaluates `e` through the dynamic engine at each point and compares the Hessian of
/// `autograd::functional::hessian` (reverse over reverse, with the graph of each
/// backward recorded) with the compiled kernel's forward-over-reverse Hessian.
template <expr::Expression E>
bool cross_hessian(const E& e, const std::vector<std::array<double, expr::set_size_of<E>>>& points,
                   const Options& opt = {}) {
    constexpr std::size_t N = expr::set_size_of<E>;
    const auto k = gradc::compile(e);
    using P = typename decltype(k)::program;
    detail::Report rep("gradc::check::cross_hessian");
    for (std::size_t p = 0; p < points.size(); ++p) {
        const auto& x = points[p];
        const auto h = k.hessian(x);
        tensor_list leaves;
        for (std::size_t v = 0; v < N; ++v) leaves.push_back(scalar_tensor(x[v], gradc::dtype(kFloat64)));
        const auto f = [&](const tensor_list& in) {
            return tensor_list{detail::flat_tensors<typename P::nodes>::get(in, k.literals())[P::output_nodes[0]]};
        };
        const auto dynamic = autograd::functional::hessian(f, leaves);
        for (std::size_t i = 0; i < N; ++i)
            for (std::size_t j = 0; j < N; ++j)
                rep.compare(h.hessian[i][j], dynamic[i][j].template item<double>(), opt, "hessian against the dynamic engine",
                            p, x, detail::pair(i, j));
    }
    return rep.finish(opt);
}

}  // namespace gradc::check
