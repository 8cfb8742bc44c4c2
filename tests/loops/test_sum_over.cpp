// (Variables are taken apart with std::get, not structured bindings: clang 14 cannot
// capture those in the loops' lambdas.)
// Loops whose count is known when the kernel runs (include/gradc/loops/):
//  - sum_over and concat_over with counts from extents (gradc::size, rows, cols) and from
//    plain integers, against closed forms and finite differences; n = 0;
//  - the counter as an index (x[k], row, col, W(k, j), segment) and as a number;
//  - nested loops, an inner body using the outer counter;
//  - in a kernel of fixed extents every call works (FD, JVP, VJP duality, batch, float,
//    Hessian, map-reduce, gradcheck), and equals the same sum unrolled by sum_over<K>;
//  - one kernel type for every n; indices out of range and bad counts throw gradc::Error;
//  - calls from several threads at once.
#include <array>
#include <cmath>
#include <cstddef>
#include <string>
#include <thread>
#include <tuple>
#include <type_traits>
#include <vector>

#include <catch2/catch.hpp>

#include <gradc/check.hpp>
#include <gradc/gradc.hpp>

#include "sample_values.hpp"

#include "../arrays/array_check.hpp"

using gradc::dynamic_extent;

namespace {

using sample::values;

/// The message of the gradc::Error f throws ("" if none).
template <class F>
std::string error_of(F f) {
    try {
        f();
    } catch (const gradc::Error& e) {
        return e.what();
    }
    return "";
}

double total(const std::vector<double>& v) {
    double s = 0;
    for (double e : v) s += e;
    return s;
}

/// Central differences of f (a function of a vector) at v, entry i.
template <class F>
double central(F f, std::vector<double> v, std::size_t i) {
    const double h = 1e-6 * std::max(1.0, std::abs(v[i]));
    v[i] += h;
    const double up = f(v);
    v[i] -= 2 * h;
    return (up - f(v)) / (2 * h);
}

}  // namespace

TEST_CASE("sum_over a run-time count: value and gradient against the closed form", "[loops]") {
    const auto variables_1 = gradc::variables(gradc::vec<dynamic_extent>, gradc::mat<dynamic_extent, dynamic_extent>);
    const auto x = std::get<0>(variables_1);
    const auto W = std::get<1>(variables_1);
    // Σ_k x_k² · Σ_j W(k, j), and k itself as a number: Σ_k k·x_k.
    const auto k = gradc::compile(gradc::sum_over(gradc::size(x), [&](auto i) { return x[i] * x[i] * sum(row(W, i)); }) +
                                  gradc::sum_over(gradc::rows(W), [&](auto i) { return i * x[i]; }));
    for (std::size_t n : {1, 3, 8}) {
        const std::size_t c = 2 + n % 3;
        const auto xv = values(n, 1), wv = values(n * c, 2);
        double expected = 0;
        std::vector<double> gx(n), gw(n * c);
        for (std::size_t r = 0; r < n; ++r) {
            double s = 0;
            for (std::size_t j = 0; j < c; ++j) s += wv[r * c + j];
            expected += xv[r] * xv[r] * s + double(r) * xv[r];
            gx[r] = 2 * xv[r] * s + double(r);
            for (std::size_t j = 0; j < c; ++j) gw[r * c + j] = xv[r] * xv[r];
        }
        const auto g = k.gradient(xv, gradc::mat_view(wv, n, c));
        CHECK(g.value == Approx(expected).epsilon(1e-14));
        for (std::size_t r = 0; r < n; ++r) CHECK(std::get<0>(g.gradient)[r] == Approx(gx[r]).epsilon(1e-14));
        REQUIRE(std::get<1>(g.gradient).rows == n);
        for (std::size_t e = 0; e < n * c; ++e) CHECK(std::get<1>(g.gradient).data[e] == Approx(gw[e]).epsilon(1e-14));
    }
}

TEST_CASE("concat_over: scalar and vector parts, log_sum_exp over them, n = 0", "[loops]") {
    const auto variables_2 = gradc::variables(gradc::vec<dynamic_extent>, gradc::mat<dynamic_extent, dynamic_extent>,
                                      gradc::vec<dynamic_extent>);
    const auto a = std::get<0>(variables_2);
    const auto M = std::get<1>(variables_2);
    const auto y = std::get<2>(variables_2);
    // Parts of one entry: a_k + dot(row(M, k), y); parts of two: (a_k, a_k²).
    const auto parts = gradc::concat_over(gradc::size(a), [&](auto k) { return a[k] + dot(row(M, k), y); });
    const auto k1 = gradc::compile(log_sum_exp(parts));
    const auto kv = gradc::compile(parts);
    const auto k2 = gradc::compile(gradc::concat_over(gradc::rows(M), [&](auto k) { return concat(a[k], a[k] * a[k]); }));
    const std::size_t K = 4, d = 3;
    const auto av = values(K, 1), mv = values(K * d, 2), yv = values(d, 3);
    std::vector<double> z(K);
    for (std::size_t k = 0; k < K; ++k) {
        z[k] = av[k];
        for (std::size_t j = 0; j < d; ++j) z[k] += mv[k * d + j] * yv[j];
    }
    const auto zk = kv(av, gradc::mat_view(mv, K, d), yv);
    REQUIRE(zk.size() == K);
    for (std::size_t k = 0; k < K; ++k) CHECK(zk[k] == Approx(z[k]).epsilon(1e-15));
    double m = z[0], s = 0;
    for (double v : z) m = std::max(m, v);
    for (double v : z) s += std::exp(v - m);
    const auto g = k1.gradient(av, gradc::mat_view(mv, K, d), yv);
    CHECK(g.value == Approx(m + std::log(s)).epsilon(1e-14));
    // ∂/∂a_k = softmax(z)_k; ∂/∂y = Σ_k softmax_k row(M, k).
    for (std::size_t k = 0; k < K; ++k) CHECK(std::get<0>(g.gradient)[k] == Approx(std::exp(z[k] - m) / s).epsilon(1e-13));
    for (std::size_t j = 0; j < d; ++j) {
        double e = 0;
        for (std::size_t k = 0; k < K; ++k) e += std::exp(z[k] - m) / s * mv[k * d + j];
        CHECK(std::get<2>(g.gradient)[j] == Approx(e).epsilon(1e-13));
    }
    const auto two = k2(av, gradc::mat_view(mv, K, d), yv);
    REQUIRE(two.size() == 2 * K);
    for (std::size_t k = 0; k < K; ++k) {
        CHECK(two[2 * k] == av[k]);
        CHECK(two[2 * k + 1] == av[k] * av[k]);
    }
    // n = 0: an empty vector, and a sum of nothing is 0.
    const std::vector<double> none;
    CHECK(kv(none, gradc::mat_view(none, 0, d), yv).empty());
    const auto ks = gradc::compile(gradc::sum_over(gradc::size(a), [&](auto k) { return exp(a[k]); }) + sum(y));
    CHECK(ks(none, gradc::mat_view(none, 0, d), yv) == Approx(yv[0] + yv[1] + yv[2]));
}

TEST_CASE("nested loops: the inner body uses the outer counter", "[loops]") {
    const auto variables_3 = gradc::variables(gradc::vec<dynamic_extent>, gradc::mat<dynamic_extent, dynamic_extent>,
                                      gradc::vec<dynamic_extent>);
    const auto x = std::get<0>(variables_3);
    const auto W = std::get<1>(variables_3);
    const auto y = std::get<2>(variables_3);
    // Σ_i Σ_j sin(W(i, j)·x_i·y_j) + Σ_i x_i·col(W, 0)_i
    const auto e = gradc::sum_over(gradc::rows(W), [&](auto i) {
        return gradc::sum_over(gradc::cols(W), [&](auto j) { return sin(W(i, j) * x[i] * y[j]); });
    }) + gradc::sum_over(gradc::size(x), [&](auto i) { return x[i] * col(W, 0)[i]; });
    const auto k = gradc::compile(e);
    const std::size_t R = 3, C = 4;
    const auto xv = values(R, 1), wv = values(R * C, 2), yv = values(C, 3);
    auto f = [&](const std::vector<double>& x0, const std::vector<double>& w0, const std::vector<double>& y0) {
        double s = 0;
        for (std::size_t i = 0; i < R; ++i) {
            for (std::size_t j = 0; j < C; ++j) s += std::sin(w0[i * C + j] * x0[i] * y0[j]);
            s += x0[i] * w0[i * C];
        }
        return s;
    };
    const auto g = k.gradient(xv, gradc::mat_view(wv, R, C), yv);
    CHECK(g.value == Approx(f(xv, wv, yv)).epsilon(1e-14));
    for (std::size_t i = 0; i < R; ++i)
        CHECK(std::get<0>(g.gradient)[i] == Approx(central([&](const auto& v) { return f(v, wv, yv); }, xv, i)).epsilon(1e-7));
    for (std::size_t i = 0; i < R * C; ++i)
        CHECK(std::get<1>(g.gradient).data[i] ==
              Approx(central([&](const auto& v) { return f(xv, v, yv); }, wv, i)).epsilon(1e-7));
    for (std::size_t j = 0; j < C; ++j)
        CHECK(std::get<2>(g.gradient)[j] == Approx(central([&](const auto& v) { return f(xv, wv, v); }, yv, j)).epsilon(1e-7));
    // JVP and VJP agree with the gradient.
    const auto dx = values(R, 4), dw = values(R * C, 5), dy = values(C, 6);
    const auto jv = k.jvp(std::make_tuple(xv, gradc::mat_view(wv, R, C), yv), std::make_tuple(dx, gradc::mat_view(dw, R, C), dy));
    double expected = 0;
    for (std::size_t i = 0; i < R; ++i) expected += std::get<0>(g.gradient)[i] * dx[i];
    for (std::size_t i = 0; i < R * C; ++i) expected += std::get<1>(g.gradient).data[i] * dw[i];
    for (std::size_t j = 0; j < C; ++j) expected += std::get<2>(g.gradient)[j] * dy[j];
    CHECK(jv.tangent == Approx(expected).epsilon(1e-13));
    const auto vj = k.vjp(std::make_tuple(xv, gradc::mat_view(wv, R, C), yv), std::vector<double>{2.0});
    for (std::size_t j = 0; j < C; ++j) CHECK(std::get<2>(vj.gradient)[j] == Approx(2 * std::get<2>(g.gradient)[j]).epsilon(1e-14));
}

TEST_CASE("segment and lower_triangular with extents read when the kernel runs", "[loops]") {
    const auto variables_4 = gradc::variables(gradc::vec<dynamic_extent>, gradc::vec<dynamic_extent>);
    const auto v = std::get<0>(variables_4);
    const auto x = std::get<1>(variables_4);
    // L x with L packed in the first d(d+1)/2 entries of v, read at offset 1.
    const std::size_t d = 3, P = d * (d + 1) / 2;
    const auto k = gradc::compile(squared_norm(gradc::lower_triangular(gradc::segment(v, 1, P)) * x) +
                                  sum(gradc::segment(v, 0, 1)));
    const auto vv = values(P + 2, 1), xv = values(d, 2);
    // The packed order: the diagonal first, then the strict lower part column by column.
    const double* p = vv.data() + 1;
    const double L[3][3] = {{p[0], 0, 0}, {p[3], p[1], 0}, {p[4], p[5], p[2]}};
    auto f = [&](const double (*l)[3]) {
        double s = 0;
        for (std::size_t r = 0; r < d; ++r) {
            double y = 0;
            for (std::size_t c = 0; c < d; ++c) y += l[r][c] * xv[c];
            s += y * y;
        }
        return s;
    };
    CHECK(k(vv, xv) == Approx(f(L) + vv[0]).epsilon(1e-14));
    const auto g = k.gradient(vv, xv);
    CHECK(std::get<0>(g.gradient)[0] == 1.0);
    CHECK(std::get<0>(g.gradient)[P + 1] == 0.0);  // not read
    for (std::size_t i = 1; i <= P; ++i)
        CHECK(std::get<0>(g.gradient)[i] ==
              Approx(central([&](const auto& w) { return k(w, xv); }, vv, i)).epsilon(1e-7));
    // segment past the end, and a length that is not triangular, throw when called.
    const auto short_v = values(P, 1);
    CHECK_THAT(error_of([&] { (void)k(short_v, xv); }), Catch::Contains("segment"));
    const auto kt = gradc::compile(sum(gradc::lower_triangular(v)));
    CHECK(kt(values(6, 1), xv) == Approx(total(values(6, 1))));  // d = 3
    CHECK_THAT(error_of([&] { (void)kt(values(5, 1), xv); }), Catch::Contains("lower_triangular got a vector of 5"));
    // An offset or length out of range of a fixed vector: when the node is built.
    const auto variables_5 = gradc::variables(gradc::vec<4>);
    const auto w = std::get<0>(variables_5);
    CHECK_THAT(error_of([&] { (void)gradc::segment(w, 2, 3); }), Catch::Contains("offset"));
    CHECK_THAT(error_of([&] { (void)gradc::segment(w, 0, 5); }), Catch::Contains("got n = 5"));
}

TEST_CASE("a loop in a kernel of fixed extents: every call", "[loops]") {
    const auto variables_6 = gradc::variables(gradc::vec<4>, gradc::mat<4, 3>);
    const auto x = std::get<0>(variables_6);
    const auto W = std::get<1>(variables_6);
    auto body = [&](auto k) { return x[k] * sum(tanh(row(W, k) * x[k])); };
    const auto looped = gradc::sum_over(4, body);
    // FD, JVP, VJP duality, batch and float (tests/arrays/array_check.hpp).
    array_check::check_expression(looped, array_check::filled<4>(-1, 1, 1), array_check::filled<12>(-1, 1, 2));
    array_check::check_expression(gradc::concat_over(gradc::rows(W), body), array_check::filled<4>(-1, 1, 3),
                                  array_check::filled<12>(-1, 1, 4));
    // The same sum unrolled at compile time.
    const auto k = gradc::compile(looped);
    CHECK(gradc::check::gradcheck(
        k, std::vector{std::tuple{array_check::filled<4>(-1, 1, 7), array_check::filled<12>(-1, 1, 8)}}));
    const auto ku = gradc::compile(gradc::sum_over<4>(body));
    const auto xv = array_check::filled<4>(-1, 1, 5);
    const auto wv = array_check::filled<12>(-1, 1, 6);
    const auto h = k.hessian(xv, wv), hu = ku.hessian(xv, wv);
    CHECK(h.value == Approx(hu.value).epsilon(1e-15));
    for (std::size_t i = 0; i < 16; ++i)
        for (std::size_t j = 0; j < 16; ++j) CHECK(h.hessian[i][j] == Approx(hu.hessian[i][j]).epsilon(1e-13).margin(1e-15));
    // map-reduce over points x with W a parameter: the sum of one-point gradients.
    const auto km = gradc::compile(looped, gradc::wrt(W));
    const auto pts = array_check::make_points(37);
    std::vector<std::vector<double>> xs = pts.x;
    xs.push_back(pts.x[0]);
    const auto m = km.map_reduce(xs, wv, gradc::threads{2});
    double value = 0;
    std::array<double, 12> gw{};
    for (std::size_t p = 0; p < 37; ++p) {
        const auto r = km.gradient(std::array<double, 4>{xs[0][p], xs[1][p], xs[2][p], xs[3][p]}, wv);
        value += r.value;
        for (std::size_t e = 0; e < 12; ++e) gw[e] += std::get<0>(r.gradient)[e];
    }
    CHECK(m.value == Approx(value).epsilon(1e-13));
    for (std::size_t e = 0; e < 12; ++e) CHECK(std::get<0>(m.gradient)[e] == Approx(gw[e]).epsilon(1e-12).margin(1e-14));
}

TEST_CASE("one kernel type for every count; counts and indices checked", "[loops]") {
    const auto variables_7 = gradc::variables(gradc::vec<dynamic_extent>);
    const auto x = std::get<0>(variables_7);
    auto body = [&](auto k) { return exp(x[k]); };
    const auto e3 = gradc::sum_over(3, body), e5 = gradc::sum_over(5, body);
    STATIC_REQUIRE(std::is_same_v<decltype(e3), decltype(e5)>);
    const auto k3 = gradc::compile(e3), k5 = gradc::compile(e5);
    const auto xv = values(6, 1);
    double s3 = 0, s5 = 0;
    for (std::size_t i = 0; i < 5; ++i) (i < 3 ? s3 : s5) += std::exp(xv[i]);
    CHECK(k3(xv) == Approx(s3).epsilon(1e-15));
    CHECK(k5(xv) == Approx(s3 + s5).epsilon(1e-15));
    // x has 4 entries: k = 4 is out of range when the kernel runs.
    CHECK_THAT(error_of([&] { (void)k5(values(4, 1)); }), Catch::Contains("x[i]: got i = 4, expected 0 <= i < 4"));
    CHECK_THAT(error_of([&] { (void)gradc::sum_over(-1, body); }), Catch::Contains("gradc::sum_over(n, f): got n = -1"));
    // An index the loop does not make is checked as before, and row(M, k) by the kernel.
    const auto variables_8 = gradc::variables(gradc::mat<dynamic_extent, dynamic_extent>, gradc::vec<dynamic_extent>);
    const auto M = std::get<0>(variables_8);
    const auto v = std::get<1>(variables_8);
    const auto km = gradc::compile(gradc::sum_over(gradc::size(v), [&](auto k) { return v[k] * sum(row(M, k)); }));
    CHECK_THAT(error_of([&] { (void)km(gradc::mat_view(values(6, 1), 2, 3), values(3, 2)); }),
               Catch::Contains("row(W, i): got i = 2, expected 0 <= i < 2"));
    // Printed, the loop is one node.
    CHECK_THAT(gradc::to_string(km), Catch::Contains("sum_over"));
}

TEST_CASE("a kernel with loops called from several threads at once", "[loops]") {
    const auto variables_9 = gradc::variables(gradc::vec<dynamic_extent>, gradc::mat<dynamic_extent, dynamic_extent>);
    const auto x = std::get<0>(variables_9);
    const auto W = std::get<1>(variables_9);
    const auto k = gradc::compile(gradc::sum_over(gradc::rows(W), [&](auto i) {
        return log_sum_exp(gradc::concat_over(gradc::size(x), [&](auto j) { return W(i, j) * x[j]; }));
    }));
    std::vector<double> expected(4);
    for (std::size_t t = 0; t < 4; ++t) {
        const std::size_t n = 3 + 2 * t;
        expected[t] = k.gradient(values(n, t), gradc::mat_view(values(n * n, t + 1), n, n)).value;
    }
    std::vector<int> same(4, 0);
    std::vector<std::thread> threads;
    for (std::size_t t = 0; t < 4; ++t) {
        threads.emplace_back([&, t] {
            const std::size_t n = 3 + 2 * t;
            const auto xv = values(n, t), wv = values(n * n, t + 1);
            bool ok = true;
            for (int r = 0; r < 100; ++r) ok = ok && k.gradient(xv, gradc::mat_view(wv, n, n)).value == expected[t];
            same[t] = ok ? 1 : 0;
        });
    }
    for (auto& th : threads) th.join();
    for (int s : same) CHECK(s == 1);
}
