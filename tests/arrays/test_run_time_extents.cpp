// Kernels whose extents are known only when they are called (gradc::dynamic_extent):
//  - one compiled kernel at several sizes gives what a fixed-extent kernel of each size
//    gives, value, gradient, jvp and vjp, bit for bit (the same loops in the same order);
//  - partly fixed shapes (mat<dynamic_extent, 3>), matrix results (gradc::matrix_value),
//    empty vectors;
//  - every argument form: std::vector, std::span, std::array, gradc::mat_view, Eigen
//    matrices in either storage order and Maps, floats for a double call;
//  - extents that do not fit throw gradc::Error naming the call, the operation and the
//    extents;
//  - calls from several threads at once, at different sizes, on one kernel.
#include <array>
#include <cmath>
#include <cstddef>
#include <span>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <Eigen/Dense>
#include <catch2/catch.hpp>

#include <gradc/gradc.hpp>

#include "error_message.hpp"
#include "sample_values.hpp"

using gradc::dynamic_extent;

namespace {

using sample::error_of;
using sample::fixed;
using sample::values;


/// The layer sum(tanh(W x + b)) at R×C: run-time kernel against the fixed one.
template <std::size_t R, std::size_t C, class Dynamic>
void check_layer(const Dynamic& k) {
    auto [W, b, x] = gradc::variables(gradc::mat<R, C>, gradc::vec<R>, gradc::vec<C>);
    const auto kf = gradc::compile(sum(tanh(W * x + b)), gradc::wrt(W, b, x));
    const auto w = values(R * C, 1), bv = values(R, 2), xv = values(C, 3);
    const auto gd = k.gradient(gradc::mat_view(w, R, C), bv, xv);
    const auto gf = kf.gradient(fixed<R * C>(w), fixed<R>(bv), fixed<C>(xv));
    CHECK(gd.value == gf.value);
    const auto& [dW, db, dx] = gd.gradient;
    const auto& [fW, fb, fx] = gf.gradient;
    REQUIRE(dW.rows == R);
    REQUIRE(dW.cols == C);
    CHECK(std::vector<double>(fW.begin(), fW.end()) == dW.data);
    CHECK(std::vector<double>(fb.begin(), fb.end()) == db);
    CHECK(std::vector<double>(fx.begin(), fx.end()) == dx);
    CHECK(k(gradc::mat_view(w, R, C), bv, xv) == kf(fixed<R * C>(w), fixed<R>(bv), fixed<C>(xv)));
}


}  // namespace

TEST_CASE("one run-time-extent layer kernel equals the fixed kernel of every size", "[arrays][run_time]") {
    auto [W, b, x] = gradc::variables(gradc::mat<dynamic_extent, dynamic_extent>, gradc::vec<dynamic_extent>,
                                      gradc::vec<dynamic_extent>);
    const auto k = gradc::compile(sum(tanh(W * x + b)), gradc::wrt(W, b, x));
    check_layer<1, 1>(k);
    check_layer<2, 3>(k);
    check_layer<7, 5>(k);
    check_layer<16, 16>(k);
    check_layer<64, 64>(k);
    check_layer<3, 40>(k);
}

TEST_CASE("reductions, products and prefix sums with run-time extents", "[arrays][run_time]") {
    auto [A, x, y] = gradc::variables(gradc::mat<dynamic_extent, dynamic_extent>, gradc::vec<dynamic_extent>,
                                      gradc::vec<dynamic_extent>);
    auto f = [](const auto& A_, const auto& x_, const auto& y_) {
        return log_sum_exp(A_ * x_) + dot(x_, y_) * mean(x_) + squared_norm(cumsum(y_)) + max(y_) - min(x_) +
               sum(softmax(y_) * y_) + sum(matmul(transpose(A_), A_)) + sum(outer(x_, y_));
    };
    const auto k = gradc::compile(f(A, x, y));
    auto [Af, xf, yf] = gradc::variables(gradc::mat<4, 6>, gradc::vec<6>, gradc::vec<6>);
    const auto kf = gradc::compile(f(Af, xf, yf));
    const auto a = values(24, 4), xv = values(6, 5), yv = values(6, 6);
    const auto gd = k.gradient(gradc::mat_view(a, 4, 6), xv, yv);
    const auto gf = kf.gradient(fixed<24>(a), fixed<6>(xv), fixed<6>(yv));
    CHECK(gd.value == gf.value);
    CHECK(std::get<0>(gd.gradient).data == std::vector<double>(std::get<0>(gf.gradient).begin(), std::get<0>(gf.gradient).end()));
    CHECK(std::get<1>(gd.gradient) == std::vector<double>(std::get<1>(gf.gradient).begin(), std::get<1>(gf.gradient).end()));
    CHECK(std::get<2>(gd.gradient) == std::vector<double>(std::get<2>(gf.gradient).begin(), std::get<2>(gf.gradient).end()));

    // Central differences, at another size, for the whole gradient of x.
    const auto a2 = values(15, 7), x2 = values(5, 8), y2 = values(5, 9);
    const auto g2 = k.gradient(gradc::mat_view(a2, 3, 5), x2, y2);
    for (std::size_t i = 0; i < 5; ++i) {
        auto up = x2, down = x2;
        const double h = 1e-6;
        up[i] += h;
        down[i] -= h;
        const double fd = (k(gradc::mat_view(a2, 3, 5), up, y2) - k(gradc::mat_view(a2, 3, 5), down, y2)) / (2 * h);
        CHECK(std::get<1>(g2.gradient)[i] == Approx(fd).epsilon(1e-6).margin(1e-8));
    }
}

TEST_CASE("jvp and vjp with run-time extents, and a matrix result", "[arrays][run_time]") {
    auto [a, b] = gradc::variables(gradc::vec<dynamic_extent>, gradc::vec<dynamic_extent>);
    const auto k = gradc::compile(outer(exp(a), b), gradc::wrt(a, b));
    const auto av = values(3, 1), bv = values(4, 2), da = values(3, 3), db = values(4, 4), w = values(12, 5);
    const gradc::matrix_value<double> v = k(av, bv);
    REQUIRE(v.rows == 3);
    REQUIRE(v.cols == 4);
    for (std::size_t r = 0; r < 3; ++r)
        for (std::size_t c = 0; c < 4; ++c) CHECK(v(r, c) == std::exp(av[r]) * bv[c]);

    auto [af, bf] = gradc::variables(gradc::vec<3>, gradc::vec<4>);
    const auto kf = gradc::compile(outer(exp(af), bf), gradc::wrt(af, bf));
    const auto jd = k.jvp(std::tie(av, bv), std::tie(da, db));
    const auto jf = kf.jvp(std::make_tuple(fixed<3>(av), fixed<4>(bv)), std::make_tuple(fixed<3>(da), fixed<4>(db)));
    CHECK(jd.tangent.data == std::vector<double>(jf.tangent.begin(), jf.tangent.end()));
    CHECK(jd.value.data == v.data);
    const auto vd = k.vjp(std::tie(av, bv), w);
    const auto vf = kf.vjp(std::make_tuple(fixed<3>(av), fixed<4>(bv)), fixed<12>(w));
    CHECK(std::get<0>(vd.gradient) == std::vector<double>(std::get<0>(vf.gradient).begin(), std::get<0>(vf.gradient).end()));
    CHECK(std::get<1>(vd.gradient) == std::vector<double>(std::get<1>(vf.gradient).begin(), std::get<1>(vf.gradient).end()));
    // Duality: ⟨w, J·t⟩ = ⟨Jᵀ·w, t⟩.
    double lhs = 0, rhs = 0;
    for (std::size_t e = 0; e < 12; ++e) lhs += w[e] * jd.tangent.data[e];
    for (std::size_t i = 0; i < 3; ++i) rhs += std::get<0>(vd.gradient)[i] * da[i];
    for (std::size_t i = 0; i < 4; ++i) rhs += std::get<1>(vd.gradient)[i] * db[i];
    CHECK(lhs == Approx(rhs).epsilon(1e-13));

    // The weights and tangents must have the output's and the variables' extents.
    CHECK_THROWS_AS(k.vjp(std::tie(av, bv), values(11, 5)), gradc::Error);
    CHECK_THROWS_AS(k.jvp(std::tie(av, bv), std::make_tuple(values(2, 3), db)), gradc::Error);
}

TEST_CASE("partly fixed shapes and a fixed result from run-time operands", "[arrays][run_time]") {
    auto [W, x, c] = gradc::variables(gradc::mat<dynamic_extent, 3>, gradc::vec<3>, gradc::vec<dynamic_extent>);
    const auto k = gradc::compile(sum(sin(W * x) * c) + sum(x * x), gradc::wrt(W, x, c));
    const auto w = values(15, 1), xv = values(3, 2), cv = values(5, 3);
    const auto g = k.gradient(gradc::mat_view(w, 5, 3), xv, cv);
    auto [Wf, xf, cf] = gradc::variables(gradc::mat<5, 3>, gradc::vec<3>, gradc::vec<5>);
    const auto kf = gradc::compile(sum(sin(Wf * xf) * cf) + sum(xf * xf), gradc::wrt(Wf, xf, cf));
    const auto gf = kf.gradient(fixed<15>(w), fixed<3>(xv), fixed<5>(cv));
    CHECK(g.value == gf.value);
    CHECK(std::get<0>(g.gradient).data == std::vector<double>(std::get<0>(gf.gradient).begin(), std::get<0>(gf.gradient).end()));
    // x keeps its fixed extent: its gradient is a std::array.
    const std::array<double, 3>& gx = std::get<1>(g.gradient);
    CHECK(gx == std::get<1>(gf.gradient));
    // A matrix of 2 columns for mat<dynamic_extent, 3>.
    CHECK_THROWS_AS(k(gradc::mat_view(values(10, 1), 5, 2), xv, cv), gradc::Error);
}

TEST_CASE("empty vectors with run-time extents", "[arrays][run_time]") {
    auto [x, y] = gradc::variables(gradc::vec<dynamic_extent>, gradc::vec<dynamic_extent>);
    const auto k = gradc::compile(sum(x * y) + dot(x, x) + squared_norm(cumsum(y)));
    const std::vector<double> none;
    const auto g = k.gradient(none, none);
    CHECK(g.value == 0.0);
    CHECK(std::get<0>(g.gradient).empty());
    CHECK(std::get<1>(g.gradient).empty());
    // max of no entries has no value: refused, naming the operation.
    const auto kmax = gradc::compile(max(x) + sum(y));
    try {
        (void)kmax(none, none);
        FAIL("max of an empty vector did not throw");
    } catch (const gradc::Error& e) {
        CHECK_THAT(e.what(), Catch::Contains("max got a vector of 0"));
    }
}

TEST_CASE("argument forms for run-time extents", "[arrays][run_time]") {
    auto [A, x] = gradc::variables(gradc::mat<dynamic_extent, dynamic_extent>, gradc::vec<dynamic_extent>);
    const auto k = gradc::compile(sum(sin(A * x)));
    const auto a = values(6, 1), xv = values(3, 2);
    const double expected = k(gradc::mat_view(a, 2, 3), xv);

    Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> rm(2, 3);
    Eigen::MatrixXd cm(2, 3);  // column-major: copied
    for (int r = 0; r < 2; ++r)
        for (int c = 0; c < 3; ++c) rm(r, c) = cm(r, c) = a[std::size_t(r * 3 + c)];
    const Eigen::VectorXd ex = Eigen::Map<const Eigen::VectorXd>(xv.data(), 3);
    CHECK(k(rm, ex) == expected);
    CHECK(k(cm, xv) == expected);
    CHECK(k(Eigen::Map<const Eigen::MatrixXd>(cm.data(), 2, 3), std::span<const double>(xv)) == expected);
    CHECK(k(gradc::mat_view(std::span<const double>(a), 2, 3), std::array<double, 3>{xv[0], xv[1], xv[2]}) == expected);
    const std::vector<float> af(a.begin(), a.end()), xf(xv.begin(), xv.end());
    CHECK(k(gradc::mat_view(af, 2, 3), xf) == Approx(expected).epsilon(1e-4).margin(1e-6));  // a float call
    CHECK_THROWS_AS(gradc::mat_view(a, 4, 2), gradc::Error);
}

TEST_CASE("extents that do not fit throw, naming the call, the operation and the extents", "[arrays][run_time]") {
    auto [A, x, b] = gradc::variables(gradc::mat<dynamic_extent, dynamic_extent>, gradc::vec<dynamic_extent>,
                                      gradc::vec<dynamic_extent>);
    const auto k = gradc::compile(sum(A * x + b) + dot(x, x));
    const auto a = values(6, 1);
    CHECK_THAT(error_of([&] { (void)k(gradc::mat_view(a, 2, 3), values(4, 1), values(2, 1)); }),
               Catch::Contains("gradc kernel value: matvec got a 2×3 matrix and a vector of 4"));
    CHECK_THAT(error_of([&] { (void)k.gradient(gradc::mat_view(a, 2, 3), values(3, 1), values(5, 1)); }),
               Catch::Contains("gradc kernel gradient: add got a vector of 2 and a vector of 5"));
    CHECK_THAT(error_of([&] { (void)k.gradient(gradc::mat_view(a, 3, 2), values(3, 1), values(3, 1)); }),
               Catch::Contains("matvec got a 3×2 matrix and a vector of 3"));
}

TEST_CASE("one run-time-extent kernel called from several threads at different sizes", "[arrays][run_time]") {
    auto [W, x] = gradc::variables(gradc::mat<dynamic_extent, dynamic_extent>, gradc::vec<dynamic_extent>);
    const auto k = gradc::compile(sum(tanh(W * x)), gradc::wrt(W, x));
    const std::size_t sizes[] = {3, 17, 40, 64};
    std::vector<double> expected(4);
    for (std::size_t t = 0; t < 4; ++t) {
        const std::size_t n = sizes[t];
        expected[t] = k.gradient(gradc::mat_view(values(n * n, t), n, n), values(n, t + 1)).value;
    }
    std::vector<int> ok(4, 0);
    std::vector<std::thread> threads;
    for (std::size_t t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            const std::size_t n = sizes[t];
            const auto w = values(n * n, t), xv = values(n, t + 1);
            bool same = true;
            for (int r = 0; r < 200; ++r) same = same && k.gradient(gradc::mat_view(w, n, n), xv).value == expected[t];
            ok[t] = same ? 1 : 0;
        });
    for (auto& th : threads) th.join();
    CHECK(ok == std::vector<int>{1, 1, 1, 1});
}

TEST_CASE("parts at fixed indices of arrays with run-time extents", "[arrays][run_time]") {
    auto parts = [](const auto& W, const auto& v) {
        return sum(gradc::row<1>(W) * gradc::col<0>(W)) + gradc::element<2, 1>(W) + sum(gradc::diag(W)) +
               sum(exp(gradc::segment<1, 2>(v))) + sum(gradc::lower_triangular<2>(gradc::segment<0, 3>(v)) * 0.5);
    };
    auto [W, v] = gradc::variables(gradc::mat<dynamic_extent, dynamic_extent>, gradc::vec<dynamic_extent>);
    const auto k = gradc::compile(parts(W, v));
    auto [Wf, vf] = gradc::variables(gradc::mat<3, 3>, gradc::vec<4>);
    const auto kf = gradc::compile(parts(Wf, vf));
    const auto w = values(9, 1), vv = values(4, 2);
    const auto g = k.gradient(gradc::mat_view(w, 3, 3), vv);
    const auto gf = kf.gradient(fixed<9>(w), fixed<4>(vv));
    CHECK(g.value == gf.value);
    CHECK(std::get<0>(g.gradient).data == std::vector<double>(std::get<0>(gf.gradient).begin(), std::get<0>(gf.gradient).end()));
    CHECK(std::get<1>(g.gradient) == std::vector<double>(std::get<1>(gf.gradient).begin(), std::get<1>(gf.gradient).end()));
    // Too few rows for row<1> and element<2, 1>: refused when called.
    CHECK_THAT(error_of([&] { (void)k(gradc::mat_view(values(3, 1), 1, 3), vv); }), Catch::Contains("row got a 1×3 matrix"));
    CHECK_THAT(error_of([&] { (void)k(gradc::mat_view(w, 3, 3), values(2, 1)); }), Catch::Contains("segment got a vector of 2"));
}

TEST_CASE("concat and stack with run-time extents", "[arrays][run_time]") {
    auto build = [](const auto& a, const auto& b, const auto& s) {
        return sum(sin(gradc::concat(a, s, b))) + sum(gradc::stack(a, b, a) * gradc::stack(b, a, b));
    };
    auto [a, b, s] = gradc::variables(gradc::vec<dynamic_extent>, gradc::vec<dynamic_extent>, gradc::scalar);
    const auto k = gradc::compile(build(a, b, s));
    auto [af, bf, sf] = gradc::variables(gradc::vec<3>, gradc::vec<3>, gradc::scalar);
    const auto kf = gradc::compile(build(af, bf, sf));
    const auto av = values(3, 1), bv = values(3, 2);
    const auto g = k.gradient(av, bv, 0.4);
    const auto gf = kf.gradient(fixed<3>(av), fixed<3>(bv), 0.4);
    CHECK(g.value == gf.value);
    CHECK(std::get<0>(g.gradient) == std::vector<double>(std::get<0>(gf.gradient).begin(), std::get<0>(gf.gradient).end()));
    CHECK(std::get<1>(g.gradient) == std::vector<double>(std::get<1>(gf.gradient).begin(), std::get<1>(gf.gradient).end()));
    CHECK(std::get<2>(g.gradient) == std::get<2>(gf.gradient));
    // stack needs rows of one length.
    CHECK_THROWS_AS(k(av, values(4, 2), 0.4), gradc::Error);
}

TEST_CASE("printed programs of a run-time-extent kernel name its extents", "[arrays][run_time]") {
    auto [W, x] = gradc::variables(gradc::mat<dynamic_extent, 3>, gradc::vec<3>);
    const auto k = gradc::compile(sum(tanh(W * x)));
    const std::string text = gradc::to_string(k);
    CHECK_THAT(text, Catch::Contains("mat<dynamic_extent, 3>"));
    CHECK_THAT(text, Catch::Contains("for e < its size"));
    CHECK_THAT(gradc::to_dot(k), Catch::Contains("mat<dynamic_extent, 3>"));
}

namespace {

/// sum(tanh(L(v)·x)) with L(v) the lower triangle packed in v, d×d: run-time against fixed.
template <std::size_t D, class Dynamic>
void check_triangular(const Dynamic& k) {
    constexpr std::size_t P = D * (D + 1) / 2;
    auto [v, x] = gradc::variables(gradc::vec<P>, gradc::vec<D>);
    const auto kf = gradc::compile(sum(tanh(gradc::lower_triangular(v) * x)));
    const auto vv = values(P, 1), xv = values(D, 2);
    const auto g = k.gradient(vv, xv);
    const auto gf = kf.gradient(fixed<P>(vv), fixed<D>(xv));
    CHECK(g.value == gf.value);
    CHECK(std::get<0>(g.gradient) == std::vector<double>(std::get<0>(gf.gradient).begin(), std::get<0>(gf.gradient).end()));
    CHECK(std::get<1>(g.gradient) == std::vector<double>(std::get<1>(gf.gradient).begin(), std::get<1>(gf.gradient).end()));
}

}  // namespace

TEST_CASE("the packed triangular product with run-time d equals the fixed one at every d", "[arrays][run_time]") {
    // The run-time product takes four rows at a time (rules/arrays/triangular.hpp): d from
    // 1 to 9 covers no group, whole groups and every remainder.
    auto [v, x] = gradc::variables(gradc::vec<dynamic_extent>, gradc::vec<dynamic_extent>);
    const auto k = gradc::compile(sum(tanh(gradc::lower_triangular(v) * x)));
    check_triangular<1>(k);
    check_triangular<2>(k);
    check_triangular<3>(k);
    check_triangular<4>(k);
    check_triangular<5>(k);
    check_triangular<6>(k);
    check_triangular<7>(k);
    check_triangular<8>(k);
    check_triangular<9>(k);
}
