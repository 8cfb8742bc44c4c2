// Map-reduce of array kernels sweeps an edge whose partial is the same at every point
// once, on the summed adjoint it starts from (lower/array_map_reduce_split.hpp): the
// split chosen for the Gaussian-mixture pattern Q·(x − μ), and sums equal to the per-point
// gradients summed in a loop for kernels where deferred and per-point edges meet.
#include <cmath>
#include <limits>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "array_check.hpp"

using array_check::close;
using array_check::filled;
using array_check::make_points;

namespace {

/// The split map-reduce uses for kernel K whose last variable is the data.
template <class K>
struct split_of {
    using P = typename K::program;
    static constexpr std::array<bool, K::arity> data = [] {
        std::array<bool, K::arity> d{};
        d[K::arity - 1] = true;
        return d;
    }();
    static constexpr auto varying = P::analysis::template depending_on<data>;
    using type = gradc::lower::array_map_reduce_split<P, varying>;
};

/// Entry e of a parameter or a gradient: a scalar variable's is a number.
template <class G>
double entry(const G& g, std::size_t e) {
    if constexpr (std::is_arithmetic_v<G>) {
        return g;
    } else {
        return g[e];
    }
}
template <class G>
constexpr std::size_t entries() {
    if constexpr (std::is_arithmetic_v<G>) {
        return 1;
    } else {
        return std::tuple_size_v<G>;
    }
}

/// Σᵢ of the one-point gradient (θ = two wrt variables, x the data) against map_reduce,
/// on 1, 7, 8, 1001 and 20003 points (partial batches, several leaves, two threads).
template <class K, class A, class B>
void check_sums(const K& k, const A& a, const B& b) {
    constexpr std::size_t NA = entries<A>(), NB = entries<B>();
    for (std::size_t n : {1, 7, 8, 1001, 20003}) {
        const auto p = make_points(n);
        double value = 0;
        std::array<double, NA> ga{};
        std::array<double, NB> gb{};
        for (std::size_t i = 0; i < n; ++i) {
            const auto r = k.gradient(a, b, std::array<double, 3>{p.x[0][i], p.x[1][i], p.x[2][i]});
            value += r.value;
            for (std::size_t e = 0; e < NA; ++e) ga[e] += entry(std::get<0>(r.gradient), e);
            for (std::size_t e = 0; e < NB; ++e) gb[e] += entry(std::get<1>(r.gradient), e);
        }
        const auto m = k.map_reduce(p.x, a, b);
        const auto m2 = k.map_reduce(p.x, a, b, gradc::threads{2});
        close(m.value, value, 1e-12, 1e-12);
        for (std::size_t e = 0; e < NA; ++e) close(entry(std::get<0>(m.gradient), e), ga[e], 1e-12, 1e-11);
        for (std::size_t e = 0; e < NB; ++e) close(entry(std::get<1>(m.gradient), e), gb[e], 1e-12, 1e-11);
        CHECK(std::get<0>(m2.gradient) == std::get<0>(m.gradient));  // the sum tree does not depend on threads
        CHECK(std::get<1>(m2.gradient) == std::get<1>(m.gradient));
        close(k.map_reduce_value(p.x, a, b), value, 1e-12, 1e-12);
    }
}

}  // namespace

TEST_CASE("map_reduce defers the triangular product's edge to x - mu and the edge on to mu",
          "[arrays][batch][map_reduce]") {
    auto [q, mu, x] = gradc::variables(gradc::vec<6>, gradc::vec<3>, gradc::vec<3>);
    const auto Q = lower_triangular<3>(concat(exp(segment<0, 3>(q)), segment<3, 3>(q)));
    const auto f = sum(segment<0, 3>(q)) - 0.5 * squared_norm(Q * (x - mu));
    const auto k = gradc::compile(f, gradc::wrt(q, mu));
    using split = split_of<decltype(k)>;
    using P = split::P;
    using S = split::type;
    constexpr auto& plan = S::plan;
    constexpr std::size_t size = P::L.shape.size();
    std::size_t deferred = 0, boundary = 0, sum_only_varying = 0, summed_varying = 0, per_point = 0;
    for (std::size_t e = 0; e < plan.deferred.size(); ++e) deferred += plan.deferred[e];
    for (std::size_t n = 0; n < size; ++n) {
        boundary += plan.boundary[n];
        sum_only_varying += plan.sum_only[n] && split::varying[n] && P::L.live[n] && !P::L.is_input[n];
        summed_varying += plan.summed[n] && split::varying[n];
        per_point += plan.per_point_nodes[n];
    }
    CHECK(plan.has_deferred);
    // Q·v → v (v̄ = Qᵀ·Σȳ), v → μ (μ̄ = -Σv̄), and the output's difference to Σ log-diag
    // (computed once; the partial is 1).
    CHECK(deferred == 3);
    CHECK(boundary == 2);        // Q·v and the output: their adjoints summed after each point
    CHECK(sum_only_varying == 1);  // v = x − μ: its adjoint only needed summed,
    CHECK(summed_varying == 0);    // and only the last sweep writes it (Qᵀ·Σȳ)
    // Per point: Q·v, ‖·‖², its scaling, and the output's difference.
    CHECK(per_point == 4);
    CHECK(S::count<true> == 3 + 1);
    check_sums(k, filled<6>(-0.5, 0.5, 7), filled<3>(-1, 1, 8));
}

TEST_CASE("map_reduce of a Gaussian log-likelihood through cholesky, solve and log_det",
          "[arrays][batch][map_reduce][decompositions]") {
    // S and its factor are computed once per call; per point, a triangular solve of x − μ.
    auto [S, mu, x] = gradc::variables(gradc::mat<3, 3>, gradc::vec<3>, gradc::vec<3>);
    const auto v = x - mu;
    const auto f = -0.5 * log_det(S) - 0.5 * squared_norm(solve(cholesky(S), v)) + 0.1 * sum(cumsum(v));
    const auto k = gradc::compile(f, gradc::wrt(S, mu));
    check_sums(k, std::array<double, 9>{2, 0.3, -0.2, 0.3, 1.5, 0.1, -0.2, 0.1, 1.2}, filled<3>(-1, 1, 4));
}

TEST_CASE("a node whose adjoint is summed may also receive per-point edges", "[arrays][batch][map_reduce]") {
    // v = x − μ reaches the output through W·v (deferred: W is a parameter) and through
    // v·v (per point: the partial is 2v): its summed adjoint holds both.
    auto [W, mu, x] = gradc::variables(gradc::mat<2, 3>, gradc::vec<3>, gradc::vec<3>);
    const auto v = x - mu;
    const auto k = gradc::compile(log_sum_exp(W * v) + 0.25 * sum(v * v), gradc::wrt(W, mu));
    CHECK(split_of<decltype(k)>::type::plan.has_deferred);
    check_sums(k, filled<6>(-1, 1, 3), filled<3>(-1, 1, 4));
}

TEST_CASE("deferred edges through broadcast scalars, dot, where and a linear output", "[arrays][batch][map_reduce]") {
    auto [a, mu, x] = gradc::variables(gradc::vec<3>, gradc::scalar, gradc::vec<3>);
    SECTION("dot with a parameter vector, a broadcast scalar subtracted, a condition on the data") {
        const auto v = x - mu;  // a vector minus a broadcast scalar: μ̄ = -Σ of v̄'s entries
        const auto k = gradc::compile(tanh(dot(a, v)) + where(x[gradc::index<0>] > 0.0, 2.0 * mu, sum(v)),
                                      gradc::wrt(a, mu));
        CHECK(split_of<decltype(k)>::type::plan.has_deferred);
        check_sums(k, filled<3>(-1, 1, 5), 0.3);
    }
    SECTION("an output whose adjoint is summed: the kernel is affine in the parameters") {
        const auto k = gradc::compile(dot(a, x) - 3.0 * sum(x - mu), gradc::wrt(a, mu));
        using S = split_of<decltype(k)>::type;
        CHECK(S::plan.has_deferred);
        check_sums(k, filled<3>(-1, 1, 6), -0.7);
    }
}

TEST_CASE("a parameter added to values that vary is summed once; without such edges, no split",
          "[arrays][batch][map_reduce]") {
    auto [W, b, x] = gradc::variables(gradc::mat<4, 3>, gradc::vec<4>, gradc::vec<3>);
    const auto k = gradc::compile(sum(tanh(W * x + b)), gradc::wrt(W, b));
    // b enters through add, whose partial is 1 whatever the other operand: b̄ = Σȳ.
    CHECK(split_of<decltype(k)>::type::plan.has_deferred);
    check_sums(k, filled<12>(-1, 1, 1), filled<4>(-1, 1, 2));
    // W·x's partials are x and W: x varies, and x is data. Nothing to defer.
    const auto k2 = gradc::compile(sum(tanh(W * x)), gradc::wrt(W));
    CHECK_FALSE(split_of<decltype(k2)>::type::plan.has_deferred);
}

TEST_CASE("log_sum_exp keeps its exponentials for its derivatives, per point and computed once",
          "[arrays][batch][map_reduce]") {
    // log_sum_exp(a) depends on a parameter only (computed once, its kept values copied
    // into every batch), log_sum_exp(W·x) on the data (kept per point).
    auto [a, W, x] = gradc::variables(gradc::vec<3>, gradc::mat<4, 3>, gradc::vec<3>);
    const auto k = gradc::compile(log_sum_exp(a) * sum(x) + log_sum_exp(W * x), gradc::wrt(a, W));
    constexpr auto& L = decltype(k)::program::L;
    std::size_t kept = 0, stored = 0;
    for (std::size_t n = 0; n < L.shape.size(); ++n) {
        kept += L.saved[n];
        if (!L.is_input[n]) stored += L.stored(n);
    }
    CHECK(kept == (3 + 1) + (4 + 1));  // the exponentials and their sum, for each
    CHECK(L.value_size == stored);
    check_sums(k, filled<3>(-1, 1, 5), filled<12>(-1, 1, 6));
    // The adjoint is softmax: against the closed form at one point.
    const auto av = filled<3>(-1, 1, 5);
    const auto r = k.gradient(av, filled<12>(-1, 1, 6), std::array<double, 3>{0.5, -1, 2});
    const double s = std::exp(av[0]) + std::exp(av[1]) + std::exp(av[2]);
    for (std::size_t i = 0; i < 3; ++i) close(std::get<0>(r.gradient)[i], std::exp(av[i]) / s * 1.5, 1e-15, 1e-15);
}

TEST_CASE("copies of an array subexpression with a literal: one sum of adjoints, in one point and in map-reduce",
          "[arrays][batch][map_reduce][copies]") {
    auto [a, b, x] = gradc::variables(gradc::vec<3>, gradc::scalar, gradc::vec<3>);
    SECTION("copies that vary with the data: passed on at every point") {
        // t is two copies (it holds the literal 2.0); the first is read by a `where` that
        // may not take it, so where t's partial is infinite only the sum of both adjoints
        // gives the one-node derivative (lower/equal_copies.hpp).
        const auto t = cbrt(a * x * 2.0 + 3.0);
        const auto k = gradc::compile(sum(where(x > 0.5, t, a) + t * b), gradc::wrt(a, b));
        STATIC_REQUIRE(decltype(k)::program::analysis::copies.count == 3);  // (a·x)·2, + 3 and cbrt; a·x is one node
        check_sums(k, filled<3>(-1, 1, 11), 0.8);
        // Entry 0: x = 0.3 ≤ 0.5, so the where copy's adjoint is 0, the other's b = 1.5, and
        // cbrt'(0) = +∞: +∞, where two nodes would give 0·∞ = NaN. Entry 1: x = 0.9 takes t.
        const auto r = k.gradient(std::array{-5.0, 0.7, -0.4}, 1.5, std::array{0.3, 0.9, 2.0});
        CHECK(std::get<0>(r.gradient)[0] == std::numeric_limits<double>::infinity());
        const double t1 = std::cbrt(0.7 * 0.9 * 2.0 + 3.0);
        close(std::get<0>(r.gradient)[1], (1.0 + 1.5) * 2.0 * 0.9 / (3.0 * t1 * t1), 1e-14, 1e-14);
        const std::string text = gradc::to_string(k);
        CAPTURE(text);
        CHECK(text.find("computes what") != std::string::npos);
    }
    SECTION("copies that depend on the parameters alone: passed on in the sweep on sums") {
        const auto t = cbrt(a * 2.0);
        const auto k = gradc::compile(sum(t * x) + sum(where(a > 5.0, tanh(t), a)) * b, gradc::wrt(a, b));
        using S = split_of<decltype(k)>::type;
        using P = split_of<decltype(k)>::P;
        std::size_t swept_on_sums = 0;
        for (std::size_t n = 0; n < P::L.shape.size(); ++n)
            swept_on_sums += P::analysis::copies.copy[n] != gradc::lower::no_node && S::plan.sum_only[n];
        CHECK(swept_on_sums == 2);  // a·2 and cbrt
        check_sums(k, filled<3>(-1, 1, 12), 0.8);
        check_sums(k, filled<3>(5.5, 6.5, 13), -0.6);
    }
}
