// The Jacobian and the second-order calls of kernels whose extents are known only when
// they are called (lower/run_time_derivatives.hpp):
//  - jacobian, hessian, hessian_diagonal and hvp of one run-time kernel equal a fixed
//    kernel's of each size bit for bit (built without FMA contraction, as the other
//    run-time tests: the same sweeps in the same order);
//  - the Jacobian by rows (fewer outputs than wrt entries) and by columns, with two
//    outputs and a matrix output;
//  - a kernel whose loop counts come from the arguments: its Hessian against central
//    differences of its gradient, hvp against H·v;
//  - empty vectors, `m[i][j]` on gradc::matrix_value, and extents that do not fit.
#include <array>
#include <cmath>
#include <cstddef>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include <catch2/catch.hpp>

#include <gradc/check.hpp>
#include <gradc/gradc.hpp>

#include "error_message.hpp"
#include "sample_values.hpp"

using gradc::dynamic_extent;

namespace {

using sample::error_of;
using sample::fixed;
using sample::values;


template <class Flat>
std::vector<double> as_vector(const Flat& f) {
    return std::vector<double>(f.begin(), f.end());
}

/// f(W, b, x) = sum(tanh(W x + b)) + ½‖x‖² at R×C, run-time kernel against the fixed one.
template <std::size_t R, std::size_t C, class Dynamic>
void check_second_order(const Dynamic& k) {
    auto [W, b, x] = gradc::variables(gradc::mat<R, C>, gradc::vec<R>, gradc::vec<C>);
    const auto kf = gradc::compile(sum(tanh(W * x + b)) + 0.5 * squared_norm(x), gradc::wrt(W, b, x));
    const auto w = values(R * C, 1), bv = values(R, 2), xv = values(C, 3);
    const auto wm = gradc::mat_view(w, R, C);
    constexpr std::size_t N = R * C + R + C;

    const auto hd = k.hessian(wm, bv, xv);
    const auto hf = kf.hessian(fixed<R * C>(w), fixed<R>(bv), fixed<C>(xv));
    CHECK(hd.value == hf.value);
    REQUIRE(hd.hessian.rows == N);
    REQUIRE(hd.hessian.cols == N);
    for (std::size_t i = 0; i < N; ++i)
        for (std::size_t j = 0; j < N; ++j) REQUIRE(hd.hessian[i][j] == hf.hessian[i][j]);
    CHECK(std::get<0>(hd.gradient).data == as_vector(std::get<0>(hf.gradient)));
    CHECK(std::get<2>(hd.gradient) == as_vector(std::get<2>(hf.gradient)));

    const auto dd = k.hessian_diagonal(wm, bv, xv);
    const auto df = kf.hessian_diagonal(fixed<R * C>(w), fixed<R>(bv), fixed<C>(xv));
    CHECK(std::get<0>(dd.diagonal).data == as_vector(std::get<0>(df.diagonal)));
    CHECK(std::get<1>(dd.diagonal) == as_vector(std::get<1>(df.diagonal)));
    CHECK(std::get<2>(dd.diagonal) == as_vector(std::get<2>(df.diagonal)));

    const auto vw = values(R * C, 4), vb = values(R, 5), vx = values(C, 6);
    const auto pd = k.hvp(std::make_tuple(wm, bv, xv), std::make_tuple(gradc::mat_view(vw, R, C), vb, vx));
    const auto pf = kf.hvp(std::make_tuple(fixed<R * C>(w), fixed<R>(bv), fixed<C>(xv)),
                           std::make_tuple(fixed<R * C>(vw), fixed<R>(vb), fixed<C>(vx)));
    CHECK(pd.value == pf.value);
    CHECK(std::get<0>(pd.hvp).data == as_vector(std::get<0>(pf.hvp)));
    CHECK(std::get<1>(pd.hvp) == as_vector(std::get<1>(pf.hvp)));
    CHECK(std::get<2>(pd.hvp) == as_vector(std::get<2>(pf.hvp)));
    // H·v from the Hessian's own entries.
    std::vector<double> v(vw);
    v.insert(v.end(), vb.begin(), vb.end());
    v.insert(v.end(), vx.begin(), vx.end());
    for (std::size_t i = 0; i < R; ++i) {
        double hv = 0;
        for (std::size_t j = 0; j < N; ++j) hv += hd.hessian[R * C + i][j] * v[j];
        CHECK(std::get<1>(pd.hvp)[i] == Approx(hv).epsilon(1e-12).margin(1e-14));
    }
}


}  // namespace

TEST_CASE("run-time Hessians, their diagonals and hvp equal the fixed kernel's of every size", "[arrays][run_time]") {
    auto [W, b, x] = gradc::variables(gradc::mat<dynamic_extent, dynamic_extent>, gradc::vec<dynamic_extent>,
                                      gradc::vec<dynamic_extent>);
    const auto k = gradc::compile(sum(tanh(W * x + b)) + 0.5 * squared_norm(x), gradc::wrt(W, b, x));
    check_second_order<1, 1>(k);
    check_second_order<2, 3>(k);  // 11 wrt entries: two sweeps of eight directions
    check_second_order<4, 4>(k);  // 24: three whole sweeps
    check_second_order<3, 7>(k);
}

TEST_CASE("run-time Jacobians by rows and by columns equal the fixed kernel's", "[arrays][run_time]") {
    SECTION("one matrix output, more outputs than wrt entries: by columns") {
        auto [a, b] = gradc::variables(gradc::vec<dynamic_extent>, gradc::vec<dynamic_extent>);
        const auto k = gradc::compile(outer(exp(a), b), gradc::wrt(a, b));
        auto [af, bf] = gradc::variables(gradc::vec<3>, gradc::vec<4>);
        const auto kf = gradc::compile(outer(exp(af), bf), gradc::wrt(af, bf));
        const auto av = values(3, 1), bv = values(4, 2);
        const auto jd = k.jacobian(av, bv);
        const auto jf = kf.jacobian(fixed<3>(av), fixed<4>(bv));
        REQUIRE(jd.jacobian.rows == 12);
        REQUIRE(jd.jacobian.cols == 7);
        CHECK(jd.value.rows == 3);
        CHECK(jd.value.data == as_vector(jf.value));
        for (std::size_t i = 0; i < 12; ++i)
            for (std::size_t j = 0; j < 7; ++j) CHECK(jd.jacobian[i][j] == jf.jacobian[i][j]);
    }
    SECTION("two outputs, fewer output entries than wrt entries: by rows") {
        auto [M, x] = gradc::variables(gradc::mat<dynamic_extent, dynamic_extent>, gradc::vec<dynamic_extent>);
        const auto k = gradc::compile(sin(M * x), sum(x * x), gradc::wrt(M, x));
        auto [Mf, xf] = gradc::variables(gradc::mat<2, 5>, gradc::vec<5>);
        const auto kf = gradc::compile(sin(Mf * xf), sum(xf * xf), gradc::wrt(Mf, xf));
        const auto mv = values(10, 3), xv = values(5, 4);
        const auto jd = k.jacobian(gradc::mat_view(mv, 2, 5), xv);
        const auto jf = kf.jacobian(fixed<10>(mv), fixed<5>(xv));
        REQUIRE(jd.jacobian.rows == 3);
        REQUIRE(jd.jacobian.cols == 15);
        CHECK(std::get<0>(jd.value) == as_vector(std::get<0>(jf.value)));
        CHECK(std::get<1>(jd.value) == std::get<1>(jf.value));
        for (std::size_t i = 0; i < 3; ++i)
            for (std::size_t j = 0; j < 15; ++j) CHECK(jd.jacobian[i][j] == jf.jacobian[i][j]);
        // The row of sum(x·x) is 2x over x and 0 over M.
        for (std::size_t j = 0; j < 10; ++j) CHECK(jd.jacobian[2][j] == 0.0);
        for (std::size_t j = 0; j < 5; ++j) CHECK(jd.jacobian[2][10 + j] == 2 * xv[j]);
    }
}

TEST_CASE("the Hessian of a kernel whose loop counts come from the arguments", "[arrays][run_time][loops]") {
    // Σ_i log Σ_k exp(a_k · X(i, k)): rows and components both read from the arguments.
    const auto vars = gradc::variables(gradc::vec<dynamic_extent>, gradc::mat<dynamic_extent, dynamic_extent>);
    const auto a = std::get<0>(vars);
    const auto X = std::get<1>(vars);
    const auto f = gradc::sum_over(gradc::rows(X), [=](auto i) {
        return log_sum_exp(gradc::concat_over(gradc::size(a), [=](auto k) { return a[k] * X(i, k); }));
    });
    const auto k = gradc::compile(f, gradc::wrt(a));
    for (const std::size_t n : {std::size_t{3}, std::size_t{9}}) {
        const std::size_t rows = 5;
        const auto av = values(n, 7), xv = values(rows * n, 8), v = values(n, 9);
        const auto X_at = gradc::mat_view(xv, rows, n);
        const auto h = k.hessian(av, X_at);
        REQUIRE(h.hessian.rows == n);
        // Each column against central differences of the gradient.
        const double step = 1e-5;
        for (std::size_t j = 0; j < n; ++j) {
            auto up = av, down = av;
            up[j] += step;
            down[j] -= step;
            const auto gu = std::get<0>(k.gradient(up, X_at).gradient);
            const auto gd = std::get<0>(k.gradient(down, X_at).gradient);
            for (std::size_t i = 0; i < n; ++i) {
                CHECK(h.hessian[i][j] == Approx((gu[i] - gd[i]) / (2 * step)).epsilon(1e-7).margin(1e-9));
                CHECK(h.hessian[i][j] == h.hessian[j][i]);
            }
        }
        const auto p = k.hvp(std::tie(av, X_at), std::tie(v));
        const auto d = k.hessian_diagonal(av, X_at);
        for (std::size_t i = 0; i < n; ++i) {
            double hv = 0;
            for (std::size_t j = 0; j < n; ++j) hv += h.hessian[i][j] * v[j];
            CHECK(std::get<0>(p.hvp)[i] == Approx(hv).epsilon(1e-12).margin(1e-14));
            CHECK(std::get<0>(d.diagonal)[i] == h.hessian[i][i]);
            CHECK(std::get<0>(p.gradient)[i] == std::get<0>(h.gradient)[i]);
        }
        CHECK(p.value == h.value);
        CHECK(h.value == k(av, X_at));
    }
}

TEST_CASE("run-time second order with empty vectors, and extents that do not fit", "[arrays][run_time]") {
    auto [x] = gradc::variables(gradc::vec<dynamic_extent>);
    const auto k = gradc::compile(sum(sin(x)) + 2.0);
    const std::vector<double> none;
    const auto h = k.hessian(none);
    CHECK(h.value == 2.0);
    CHECK(h.hessian.rows == 0);
    CHECK(std::get<0>(h.gradient).empty());
    const auto j = k.jacobian(none);
    CHECK(j.value == 2.0);
    CHECK(j.jacobian.rows == 1);
    CHECK(j.jacobian.cols == 0);

    // sin'' = -sin on the diagonal, nothing off it.
    const auto xv = values(4, 1);
    const auto h4 = k.hessian(xv);
    for (std::size_t r = 0; r < 4; ++r)
        for (std::size_t c = 0; c < 4; ++c) CHECK(h4.hessian[r][c] == (r == c ? -std::sin(xv[r]) : 0.0));

    auto [A, y] = gradc::variables(gradc::mat<dynamic_extent, dynamic_extent>, gradc::vec<dynamic_extent>);
    const auto kp = gradc::compile(sum(tanh(A * y)), gradc::wrt(A, y));
    const auto av = values(6, 2), yv = values(3, 3);
    CHECK_THAT(error_of([&] { (void)kp.hessian(gradc::mat_view(av, 3, 2), yv); }),
               Catch::Contains("gradc kernel hessian: matvec got a 3×2 matrix and a vector of 3"));
    const auto fits = k.hvp(std::tie(xv), std::make_tuple(values(4, 2)));
    CHECK(std::get<0>(fits.hvp).size() == 4);
    CHECK_THROWS_AS(k.hvp(std::tie(xv), std::make_tuple(values(3, 2))), gradc::Error);
    CHECK_THROWS_AS(kp.jacobian(gradc::mat_view(av, 2, 3), values(4, 3)), gradc::Error);
}

TEST_CASE("gradcheck of kernels with run-time extents, matrix_value points", "[arrays][run_time][check]") {
    // A layer with a matrix output and a loop over run-time rows, each at points of two
    // sizes; matrices given as gradc::matrix_value, which every call also takes.
    auto [W, b, x] = gradc::variables(gradc::mat<dynamic_extent, dynamic_extent>, gradc::vec<dynamic_extent>,
                                      gradc::vec<dynamic_extent>);
    const auto layer = gradc::compile(outer(tanh(W * x + b), x), gradc::wrt(W, b, x));
    auto matrix = [](std::size_t rows, std::size_t cols, std::size_t seed) {
        return gradc::matrix_value<double>{rows, cols, values(rows * cols, seed)};
    };
    const std::vector<std::tuple<gradc::matrix_value<double>, std::vector<double>, std::vector<double>>> points{
        {matrix(2, 3, 1), values(2, 2), values(3, 3)}, {matrix(4, 1, 4), values(4, 5), values(1, 6)}};
    CHECK(gradc::check::gradcheck(layer, points));

    const auto vars = gradc::variables(gradc::vec<dynamic_extent>, gradc::mat<dynamic_extent, dynamic_extent>);
    const auto a = std::get<0>(vars);
    const auto X = std::get<1>(vars);
    const auto f = gradc::sum_over(gradc::rows(X), [=](auto i) { return log_sum_exp(a * row(X, i)); });
    const auto k = gradc::compile(f, gradc::wrt(a, X));
    const std::vector<std::tuple<std::vector<double>, gradc::matrix_value<double>>> loop_points{
        {values(3, 7), matrix(5, 3, 8)}, {values(6, 9), matrix(2, 6, 10)}};
    CHECK(gradc::check::gradcheck(k, loop_points));
    // A matrix_value argument reads as the mat_view of its data.
    const auto& [av, Xv] = loop_points[0];
    CHECK(k(av, Xv) == k(av, gradc::mat_view(Xv.data, Xv.rows, Xv.cols)));

    // A wrong derivative is caught: gradcheck compares against differences of the value,
    // so a kernel whose tangent disagrees with its value would fail; here the tolerance
    // is made impossible instead, and the report must say so.
    gradc::check::Options strict;
    strict.atol = 0;
    strict.rtol = 0;
    strict.raise_exception = false;
    CHECK_FALSE(gradc::check::gradcheck(k, loop_points, strict));
}
