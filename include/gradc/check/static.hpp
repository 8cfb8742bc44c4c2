#pragma once
/// \file
/// Checking compiled static kernels.
///
///  - `gradc::check::gradcheck(kernel, points, opts)`: the kernel's gradient, JVP, VJP and
///    Jacobian programs against central differences of its value program, at every point,
///    in scalar execution and in batch execution (`value_batch`, `gradient_batch`,
///    `jvp_batch`; the points are repeated to fill whole SIMD batches and a tail, so every
///    lane is checked);
///  - `gradc::check::cross(expr, points)`: the same expression evaluated by the dynamic
///    engine (each rule of `gradc::rules` mapped to the tensor operation of the same name)
///    against the compiled kernel's value and gradient.
/// Reports name the point, the variable and the output that disagree. Options are
/// `gradc::autograd::GradcheckOptions` (eps, atol, rtol, raise_exception are used).

#include <array>
#include <cmath>
#include <cstddef>
#include <span>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <gradc/autograd/creation.hpp>
#include <gradc/autograd/elementwise.hpp>
#include <gradc/autograd/engine.hpp>
#include <gradc/check/options.hpp>
#include <gradc/check/report.hpp>
#include <gradc/fused/dynamic_expression.hpp>
#include <gradc/gradc.hpp>
#include <gradc/rules/table.hpp>

namespace gradc::check {


/// Checks every derivative program of the compiled kernel `k` at `points` against central
/// differences of its value program, in scalar and in batch execution.
template <class K>
bool gradcheck(const K& k, const std::vector<std::array<double, K::arity>>& points, const Options& opt = {}) {
    constexpr std::size_t N = K::arity, M = K::output_count, W = K::wrt_count;
    using point = std::array<double, N>;
    detail::Report rep("gradc::check::gradcheck");
    // Numerical Jacobians, num[p][m][j].
    std::vector<std::array<std::array<double, W>, M>> num(points.size());
    for (std::size_t p = 0; p < points.size(); ++p) {
        for (std::size_t j = 0; j < W; ++j) {
            point xp = points[p], xm = points[p];
            xp[K::wrt_variables[j]] += opt.eps;
            xm[K::wrt_variables[j]] -= opt.eps;
            const auto fp = detail::values(k, xp), fm = detail::values(k, xm);
            for (std::size_t m = 0; m < M; ++m) num[p][m][j] = (fp[m] - fm[m]) / (2 * opt.eps);
        }
    }
    const auto where = [](std::size_t m, std::size_t j) {
        return detail::out(m) + ", " + detail::var(K::wrt_variables[j]);
    };
    // Scalar execution.
    for (std::size_t p = 0; p < points.size(); ++p) {
        const point& x = points[p];
        const auto f = detail::values(k, x);
        if constexpr (M == 1) {
            const auto g = k.gradient(x);
            rep.compare(g.value, f[0], opt, "gradient (value)", p, x, detail::out(0));
            for (std::size_t j = 0; j < W; ++j) rep.compare(g.gradient[j], num[p][0][j], opt, "gradient", p, x, where(0, j));
        }
        for (std::size_t j = 0; j < W; ++j) {
            std::array<double, W> dx{};
            dx[j] = 1;
            const auto t = k.jvp(x, dx);
            for (std::size_t m = 0; m < M; ++m) {
                if constexpr (M == 1) {
                    rep.compare(t.tangent, num[p][0][j], opt, "jvp", p, x, where(m, j));
                } else {
                    rep.compare(t.tangent[m], num[p][m][j], opt, "jvp", p, x, where(m, j));
                }
            }
        }
        for (std::size_t m = 0; m < M; ++m) {
            std::array<double, M> w{};
            w[m] = 1;
            const auto r = k.vjp(x, w);
            for (std::size_t j = 0; j < W; ++j) rep.compare(r.gradient[j], num[p][m][j], opt, "vjp", p, x, where(m, j));
        }
        const auto jac = k.jacobian(x);
        for (std::size_t m = 0; m < M; ++m)
            for (std::size_t j = 0; j < W; ++j) rep.compare(jac.jacobian[m][j], num[p][m][j], opt, "jacobian", p, x, where(m, j));
    }
    // Batch execution: the points repeated to fill two whole SIMD batches and a tail, so
    // every lane (and the tail path) computes every point at least once where possible.
    if (!points.empty()) {
        const std::size_t lanes = simd::batch<double>::size;
        const std::size_t n = std::max(points.size(), 2 * lanes + lanes / 2 + 1);
        std::vector<std::vector<double>> in(N, std::vector<double>(n));
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t v = 0; v < N; ++v) in[v][i] = points[i % points.size()][v];
        std::array<std::span<const double>, N> in_spans;
        for (std::size_t v = 0; v < N; ++v) in_spans[v] = in[v];
        std::vector<std::vector<double>> vals(M, std::vector<double>(n)), tan(M, std::vector<double>(n));
        std::array<std::span<double>, M> val_spans, tan_spans;
        for (std::size_t m = 0; m < M; ++m) {
            val_spans[m] = vals[m];
            tan_spans[m] = tan[m];
        }
        const auto lane = [&](const char* call, std::size_t i) {
            return std::string(call) + " (lane " + std::to_string(i % lanes) + " of batch point " + std::to_string(i) + ")";
        };
        k.value_batch(in_spans, val_spans);
        for (std::size_t i = 0; i < n; ++i) {
            const std::size_t p = i % points.size();
            const auto f = detail::values(k, points[p]);
            for (std::size_t m = 0; m < M; ++m) rep.compare(vals[m][i], f[m], opt, lane("value_batch", i), p, points[p], detail::out(m));
        }
        if constexpr (M == 1) {
            std::vector<std::vector<double>> g(W, std::vector<double>(n));
            std::array<std::span<double>, W> g_spans;
            for (std::size_t j = 0; j < W; ++j) g_spans[j] = g[j];
            k.gradient_batch(in_spans, std::span<double>(vals[0]), g_spans);
            for (std::size_t i = 0; i < n; ++i)
                for (std::size_t j = 0; j < W; ++j)
                    rep.compare(g[j][i], num[i % points.size()][0][j], opt, lane("gradient_batch", i), i % points.size(),
                                points[i % points.size()], where(0, j));
        }
        std::vector<std::vector<double>> dx(W, std::vector<double>(n));
        std::array<std::span<const double>, W> dx_spans;
        for (std::size_t j = 0; j < W; ++j) dx_spans[j] = dx[j];
        for (std::size_t j = 0; j < W; ++j) {
            for (std::size_t q = 0; q < W; ++q) std::fill(dx[q].begin(), dx[q].end(), q == j ? 1.0 : 0.0);
            k.jvp_batch(in_spans, dx_spans, val_spans, tan_spans);
            for (std::size_t i = 0; i < n; ++i)
                for (std::size_t m = 0; m < M; ++m)
                    rep.compare(tan[m][i], num[i % points.size()][m][j], opt, lane("jvp_batch", i), i % points.size(),
                                points[i % points.size()], where(m, j));
        }
    }
    return rep.finish(opt);
}

// ---- cross-check with the dynamic engine ------------------------------------------------

/// The tensor operation of each rule of the rule table (`gradc::rule_tensor_op`: the
/// function of the same name; `max`/`min` are the elementwise `maximum`/`minimum`).
template <class R>
inline constexpr auto tensor_op = [](const auto&... x) { return rule_tensor_op<R>::apply(x...); };

namespace detail {

using autograd::fusion::flat_tensors;
using autograd::fusion::detail::node_tensor;
using autograd::fusion::detail::operand_tensor;

/// One pass of the cross-check over `outputs` (a tuple of expressions of one variable
/// set): the dynamic engine's value and reverse-mode gradient of each output against the
/// compiled kernel's value and Jacobian row.
template <class... Es>
bool cross_outputs(const std::tuple<Es...>& outputs,
                   const std::vector<std::array<double, expr::set_size_of<std::tuple_element_t<0, std::tuple<Es...>>>>>& points,
                   const Options& opt) {
    constexpr std::size_t N = expr::set_size_of<std::tuple_element_t<0, std::tuple<Es...>>>;
    constexpr std::size_t M = sizeof...(Es);
    const auto k = std::apply([](const auto&... e) { return gradc::compile(e...); }, outputs);
    Report rep("gradc::check::cross");
    for (std::size_t p = 0; p < points.size(); ++p) {
        const auto& x = points[p];
        std::array<double, M> value{};
        std::array<std::array<double, N>, M> jac{};
        if constexpr (M == 1) {
            const auto g = k.gradient(x);
            value[0] = g.value;
            jac[0] = g.gradient;
        } else {
            const auto J = k.jacobian(x);
            value = J.value;
            jac = J.jacobian;
        }
        tensor_list leaves;
        for (std::size_t v = 0; v < N; ++v) leaves.push_back(scalar_tensor(x[v], gradc::dtype(kFloat64).requires_grad(true)));
        using P = typename decltype(k)::program;
        const tensor_list nodes = flat_tensors<typename P::nodes>::get(leaves, k.literals());
        for (std::size_t m = 0; m < M; ++m) {
            const Tensor& y = nodes[P::output_nodes[m]];
            rep.compare(y.template item<double>(), value[m], opt, "dynamic value", p, x, out(m));
            tensor_list dy(N);
            if (y.requires_grad()) dy = autograd::grad({y}, leaves, {}, /*retain_graph=*/true, false, /*allow_unused=*/true);
            for (std::size_t v = 0; v < N; ++v) {
                const double d = dy[v].defined() ? dy[v].template item<double>() : 0.0;
                rep.compare(d, jac[m][v], opt, M == 1 ? "dynamic gradient" : "dynamic jacobian", p, x,
                            out(m) + ", " + var(v));
            }
        }
    }
    return rep.finish(opt);
}

}  // namespace detail

/// Evaluates `e` through the dynamic engine at each point and compares its value and its
/// gradient (reverse mode, `autograd::grad`) with the compiled kernel's.
template <expr::Expression E>
bool cross(const E& e, const std::vector<std::array<double, expr::set_size_of<E>>>& points, const Options& opt = {}) {
    return detail::cross_outputs(std::tuple<E>(e), points, opt);
}

/// Several outputs: `cross(std::tuple{f, g, h}, points)` compares every output's value and
/// every row of the Jacobian of the kernel `compile(f, g, h)` with the dynamic engine.
template <expr::Expression E0, expr::Expression... Es>
bool cross(const std::tuple<E0, Es...>& outputs, const std::vector<std::array<double, expr::set_size_of<E0>>>& points,
           const Options& opt = {}) {
    static_assert(((expr::set_size_of<Es> == expr::set_size_of<E0>) && ...),
                  "gradc::check::cross: the outputs use variables from different gradc::variables<N>() sets");
    return detail::cross_outputs(outputs, points, opt);
}

}  // namespace gradc::check
