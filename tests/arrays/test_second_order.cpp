// Hessians and Hessian-vector products of array kernels (forward over reverse on dual
// numbers): against central differences of the gradient, symmetric, H·v against the
// Hessian, the diagonal alone against the Hessian's, for products, reductions, parts and
// branches.
#include "array_check.hpp"

using array_check::close;
using array_check::filled;

namespace {

template <class G, std::size_t W>
void copy_entries(const G& g, std::array<double, W>& to, std::size_t& at) {
    for (std::size_t e = 0; e < array_check::size_of<G>; ++e) to[at++] = array_check::entries(g)[e];
}

/// The Hessian of k against differences of its gradient, with every variable wrt.
template <class K, class... Args>
void check_hessian(const K& k, const Args&... args) {
    constexpr std::size_t W = K::wrt_entries;
    const auto h = k.hessian(args...);
    const std::tuple<Args...> x0{args...};
    auto flat_gradient = [&](const std::tuple<Args...>& x) {
        const auto r = std::apply([&](const auto&... a) { return k.gradient(a...); }, x);
        std::array<double, W> g;
        std::size_t at = 0;
        std::apply([&](const auto&... gj) { ((copy_entries(gj, g, at)), ...); }, r.gradient);
        return g;
    };
    const auto g0 = flat_gradient(x0);
    std::size_t column = 0;
    [&]<std::size_t... j>(std::index_sequence<j...>) {
        auto by_variable = [&]<std::size_t J>(std::integral_constant<std::size_t, J>) {
            using V = std::tuple_element_t<J, std::tuple<Args...>>;
            for (std::size_t e = 0; e < array_check::size_of<V>; ++e, ++column) {
                auto up = x0, down = x0;
                const double step = 1e-5;
                array_check::entries(std::get<J>(up))[e] += step;
                array_check::entries(std::get<J>(down))[e] -= step;
                const auto gu = flat_gradient(up), gd = flat_gradient(down);
                for (std::size_t i = 0; i < W; ++i) {
                    INFO("row " << i << " column " << column);
                    close(h.hessian[i][column], (gu[i] - gd[i]) / (2 * step), 1e-6, 1e-7);
                    close(h.hessian[i][column], h.hessian[column][i], 1e-12, 1e-14);
                }
            }
        };
        (by_variable(std::integral_constant<std::size_t, j>{}), ...);
    }(std::index_sequence_for<Args...>{});
    for (std::size_t i = 0; i < W; ++i) {
        std::size_t at = 0;
        std::array<double, W> g;
        std::apply([&](const auto&... gj) { ((copy_entries(gj, g, at)), ...); }, h.gradient);
        close(g[i], g0[i], 1e-14, 1e-15);
    }
    // The diagonal alone: the Hessian's diagonal entries, value and gradient.
    const auto hd = k.hessian_diagonal(args...);
    CHECK(hd.value == h.value);
    {
        std::array<double, W> d{}, g{}, hg{};
        std::size_t at = 0;
        std::apply([&](const auto&... dj) { ((copy_entries(dj, d, at)), ...); }, hd.diagonal);
        at = 0;
        std::apply([&](const auto&... gj) { ((copy_entries(gj, g, at)), ...); }, hd.gradient);
        at = 0;
        std::apply([&](const auto&... gj) { ((copy_entries(gj, hg, at)), ...); }, h.gradient);
        for (std::size_t i = 0; i < W; ++i) {
            CHECK(d[i] == h.hessian[i][i]);
            CHECK(g[i] == hg[i]);
        }
    }
    // H·v for v = the point's own entries.
    const auto hv = k.hvp(x0, x0);
    std::array<double, W> v{}, got{};
    std::size_t at = 0;
    std::apply([&](const auto&... a) { ((copy_entries(a, v, at)), ...); }, x0);
    at = 0;
    std::apply([&](const auto&... a) { ((copy_entries(a, got, at)), ...); }, hv.hvp);
    for (std::size_t i = 0; i < W; ++i) {
        double expected = 0;
        for (std::size_t c = 0; c < W; ++c) expected += h.hessian[i][c] * v[c];
        close(got[i], expected, 1e-12, 1e-13);
    }
}

}  // namespace

TEST_CASE("array Hessians against differences of the gradient", "[arrays][second_order]") {
    auto [W, b, x, p] = gradc::variables(gradc::mat<3, 4>, gradc::vec<3>, gradc::vec<4>, gradc::vec<6>);
    const auto wv = filled<12>(-1, 1, 1);
    const auto bv = filled<3>(-1, 1, 2);
    const auto xv = filled<4>(-1, 1, 3);
    const auto pv = filled<6>(-1, 1, 4);
    check_hessian(gradc::compile(log_sum_exp(tanh(W * x + b)) * squared_norm(p)), wv, bv, xv, pv);
    check_hessian(gradc::compile(squared_norm(lower_triangular<3>(p) * segment<0, 3>(x)) + dot(softmax(b), b)), wv, bv,
                  xv, pv);
    check_hessian(gradc::compile(sum(where(b > 0.0, exp(b), b * b)) * max(x) + mean(hadamard(W, W)) * sum(outer(b, x))),
                  wv, bv, xv, pv);
    check_hessian(gradc::compile(gradc::sum_over<3>([W = W, x = x, b = b](auto k) { return exp(dot(row(W, k), x)) * b[k]; })), wv, bv,
                  xv, pv);
}

TEST_CASE("Hessians through cumsum, cholesky, solve and log_det", "[arrays][second_order][decompositions]") {
    auto [A, b] = gradc::variables(gradc::mat<3, 3>, gradc::vec<3>);
    // Not symmetric, its symmetric part positive definite; a zero leading entry is no
    // use here (cholesky needs a positive one), so solve's pivoting is covered below.
    const std::array<double, 9> av{4, 1.3, 0.5, 0.9, 3, 0.2, 0.4, 0.35, 2};
    const auto bv = filled<3>(-1, 1, 5);
    check_hessian(gradc::compile(log_det(A) + dot(solve(A, b), cumsum(b)) + sum(sin(cholesky(A)))), av, bv);
    // A row swap at the first pivot: the Hessian of the pivoted elimination.
    const std::array<double, 9> swapped{0.1, 2, 1, 1, 1, 1, 2, 1, 0.5};
    check_hessian(gradc::compile(squared_norm(solve(A, b)) + sum(cumsum(solve(A, b * b)))), swapped, bv);
}
