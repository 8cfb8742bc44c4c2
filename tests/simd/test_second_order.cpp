// Second order over arrays of points: hessian_batch and hvp_batch equal the scalar calls
// in every lane and in the tail (double and float), map_reduce_hessian equals the sum of
// per-point Hessians and the normal log-likelihood's closed form, and
// map_reduce_gauss_newton gives Σr², Jᵀr, JᵀJ and a Gauss-Newton fit that converges;
// tanh'' and expm1'' are their closed forms on numbers and batches.
#include <array>
#include <cmath>
#include <limits>
#include <random>
#include <span>
#include <stdexcept>
#include <vector>

#include <catch2/catch.hpp>

#include <approx.hpp>
#include <gradc/gradc.hpp>

namespace {

template <class T>
struct columns {
    std::vector<std::vector<T>> data;
    columns(std::size_t count, std::size_t n) : data(count, std::vector<T>(n)) {}
    template <std::size_t K>
    std::array<std::span<T>, K> spans() {
        std::array<std::span<T>, K> s;
        for (std::size_t j = 0; j < K; ++j) s[j] = data[j];
        return s;
    }
    template <std::size_t K>
    std::array<std::span<const T>, K> const_spans() const {
        std::array<std::span<const T>, K> s;
        for (std::size_t j = 0; j < K; ++j) s[j] = data[j];
        return s;
    }
};

template <class T>
void check_batch_equals_scalar(std::size_t n) {
    auto [a, b, c] = gradc::variables<3>();
    const auto k = gradc::compile(log(a) * sin(b * c) + sqrt(a * a + c * c) * erf(b), gradc::wrt(c, a));
    columns<T> in(3, n), v_in(2, n), grad(2, n), hess(3, n), hv(2, n);
    std::vector<T> values(n), values2(n);
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> u(0.2, 2.0);
    for (auto& col : in.data)
        for (auto& x : col) x = static_cast<T>(u(rng));
    for (auto& col : v_in.data)
        for (auto& x : col) x = static_cast<T>(u(rng) - 1.0);
    k.hessian_batch(in.template const_spans<3>(), std::span<T>(values), grad.template spans<2>(), hess.template spans<3>());
    columns<T> grad2(2, n);
    k.hvp_batch(in.template const_spans<3>(), v_in.template const_spans<2>(), std::span<T>(values2),
                grad2.template spans<2>(), hv.template spans<2>());
    // xsimd's log, sin and erf differ from the C library's by a few ulps.
    const double tol = std::is_same_v<T, float> ? 2e-5 : 1e-12;
    for (std::size_t i = 0; i < n; ++i) {
        INFO("point " << i << " of " << n);
        const auto h = k.hessian(std::array{in.data[0][i], in.data[1][i], in.data[2][i]});
        CHECK(values[i] == Approx(h.value).epsilon(tol).margin(tol));
        CHECK(values2[i] == Approx(h.value).epsilon(tol).margin(tol));
        std::size_t t = 0;
        for (std::size_t p = 0; p < 2; ++p) {
            CHECK(grad.data[p][i] == Approx(h.gradient[p]).epsilon(tol).margin(tol));
            CHECK(grad2.data[p][i] == Approx(h.gradient[p]).epsilon(tol).margin(tol));
            for (std::size_t q = p; q < 2; ++q) CHECK(hess.data[t++][i] == Approx(h.hessian[p][q]).epsilon(tol).margin(tol));
            const T expected = h.hessian[p][0] * v_in.data[0][i] + h.hessian[p][1] * v_in.data[1][i];
            CHECK(hv.data[p][i] == Approx(expected).epsilon(10 * tol).margin(10 * tol));
        }
    }
}

}  // namespace

TEST_CASE("hessian_batch and hvp_batch equal the scalar calls in every lane", "[second_order][batch]") {
    for (std::size_t n : {0u, 1u, 3u, 8u, 17u, 64u, 101u}) {
        check_batch_equals_scalar<double>(n);
        check_batch_equals_scalar<float>(n);
    }
}

TEST_CASE("a wrong number of spans or a wrong length is an error before anything is written",
          "[second_order][batch][errors]") {
    auto [a, b] = gradc::variables<2>();
    const auto k = gradc::compile(a * b * b);
    std::vector<double> x(4, 1.0), y(4, 2.0), values(4, -1.0), g0(4, -1.0), g1(4, -1.0), h0(4, -1.0), h1(4, -1.0);
    const std::array<std::span<const double>, 2> in{x, y};
    const std::array<std::span<double>, 2> grad{g0, g1};
    const std::array<std::span<double>, 2> two_entries{h0, h1};  // needs 3 (upper triangle of 2×2)
    REQUIRE_THROWS_WITH(k.hessian_batch(in, std::span<double>(values), grad, two_entries),
                        Catch::Contains("hessian_batch") && Catch::Contains("`hess` has 2 spans, expected 3"));
    CHECK(values[0] == -1.0);
    CHECK(g0[0] == -1.0);
    std::vector<double> short_v(3);
    const std::array<std::span<const double>, 2> v_in{short_v, y};
    REQUIRE_THROWS_WITH(k.hvp_batch(in, v_in, std::span<double>(values), grad, grad),
                        Catch::Contains("hvp_batch") && Catch::Contains("`v_in[0]` has 3 entries, expected 4"));
    const auto kw = gradc::compile(a * b * b, gradc::wrt(b));
    const std::array<std::span<const double>, 1> data{x};
    REQUIRE_THROWS_WITH(kw.map_reduce_hessian(data, std::array{1.0, 2.0}),
                        Catch::Contains("map_reduce_hessian") && Catch::Contains("`theta` has 2 entries, expected 1"));
}

TEST_CASE("map_reduce_hessian sums the per-point Hessians and has the normal likelihood's closed form",
          "[second_order][map_reduce]") {
    auto [x, mu, sigma] = gradc::variables<3>();
    const auto z = (x - mu) / sigma;
    const auto k = gradc::compile(-log(sigma) - 0.5 * z * z, gradc::wrt(mu, sigma));
    std::mt19937 rng(11);
    std::normal_distribution<double> normal(1.5, 2.0);
    for (std::size_t n : {1u, 7u, 1000u, 4099u}) {
        std::vector<double> xs(n);
        for (auto& v : xs) v = normal(rng);
        const std::array<std::span<const double>, 1> data{xs};
        const double M = 1.4, S = 2.1;
        const auto h = k.map_reduce_hessian(data, std::array{M, S});
        double sum_d = 0, sum_d2 = 0, value = 0;
        std::array<std::array<double, 2>, 2> per_point{};
        for (double v : xs) {
            sum_d += v - M;
            sum_d2 += (v - M) * (v - M);
            const auto p = k.hessian(v, M, S);
            value += p.value;
            for (std::size_t i = 0; i < 2; ++i)
                for (std::size_t j = 0; j < 2; ++j) per_point[i][j] += p.hessian[i][j];
        }
        const double N = static_cast<double>(n);
        INFO("n = " << n);
        CHECK(h.value == Approx(value).epsilon(1e-12));
        CHECK(h.gradient[0] == Approx(sum_d / (S * S)).epsilon(1e-11).margin(1e-12));
        CHECK(h.gradient[1] == Approx(-N / S + sum_d2 / (S * S * S)).epsilon(1e-11).margin(1e-12));
        CHECK(h.hessian[0][0] == Approx(-N / (S * S)).epsilon(1e-12));
        CHECK(h.hessian[0][1] == Approx(-2 * sum_d / (S * S * S)).epsilon(1e-11).margin(1e-12));
        CHECK(h.hessian[1][0] == h.hessian[0][1]);
        CHECK(h.hessian[1][1] == Approx(N / (S * S) - 3 * sum_d2 / (S * S * S * S)).epsilon(1e-11));
        for (std::size_t i = 0; i < 2; ++i)
            for (std::size_t j = 0; j < 2; ++j) CHECK(h.hessian[i][j] == Approx(per_point[i][j]).epsilon(1e-11));
    }
}

TEST_CASE("map_reduce_gauss_newton gives the normal equations and fits an exponential curve",
          "[second_order][gauss_newton]") {
    // Residual r(m, c; x, y) = exp(m·x + c) - y, the curve of Ceres's tutorial.
    auto [x, y, m, c] = gradc::variables<4>();
    const auto k = gradc::compile(exp(m * x + c) - y, gradc::wrt(m, c));
    const std::size_t n = 333;
    std::vector<double> xs(n), ys(n);
    std::mt19937 rng(3);
    std::normal_distribution<double> noise(0.0, 0.05);
    for (std::size_t i = 0; i < n; ++i) {
        xs[i] = 5.0 * static_cast<double>(i) / static_cast<double>(n);
        ys[i] = std::exp(0.3 * xs[i] + 0.1) + noise(rng);
    }
    const std::array<std::span<const double>, 2> data{xs, ys};
    std::array<double, 2> theta{0.0, 0.0};
    const auto first = k.map_reduce_gauss_newton(data, theta);
    double value = 0, jtr0 = 0, jtj01 = 0, jtj11 = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const auto g = k.gradient(xs[i], ys[i], theta[0], theta[1]);
        value += g.value * g.value;
        jtr0 += g.value * g.gradient[0];
        jtj01 += g.gradient[0] * g.gradient[1];
        jtj11 += g.gradient[1] * g.gradient[1];
    }
    CHECK(first.value == Approx(value).epsilon(1e-12));
    CHECK(first.jtr[0] == Approx(jtr0).epsilon(1e-12));
    CHECK(first.jtj[0][1] == Approx(jtj01).epsilon(1e-12));
    CHECK(first.jtj[1][0] == first.jtj[0][1]);
    CHECK(first.jtj[1][1] == Approx(jtj11).epsilon(1e-12));
    // Gauss-Newton: θ ← θ - (JᵀJ)⁻¹Jᵀr.
    int iterations = 0;
    for (; iterations < 30; ++iterations) {
        const auto g = k.map_reduce_gauss_newton(data, theta);
        const double det = g.jtj[0][0] * g.jtj[1][1] - g.jtj[0][1] * g.jtj[1][0];
        const double d0 = (g.jtj[1][1] * g.jtr[0] - g.jtj[0][1] * g.jtr[1]) / det;
        const double d1 = (g.jtj[0][0] * g.jtr[1] - g.jtj[1][0] * g.jtr[0]) / det;
        theta[0] -= d0;
        theta[1] -= d1;
        if (std::abs(d0) + std::abs(d1) < 1e-12) break;
    }
    CHECK(iterations < 30);
    CHECK(theta[0] == Approx(0.3).margin(0.01));
    CHECK(theta[1] == Approx(0.1).margin(0.03));
}

TEST_CASE("tanh's and expm1's second derivatives are the closed forms on numbers and batches, to a few ulps",
          "[second_order][batch][accuracy]") {
    // The partials on duals choose the cheap form (1 - y², y + 1) where it is accurate, as
    // first order does, and tanh's other form is 4e/(1 + e)² with e = e^(-2|a|): its
    // tangent keeps its digits where a form through e^(2|a|) lost them (at |a| = 300 the
    // tangent of 1/(1 + e^(2|a|)) underflowed to 0, where tanh'' is -2.1e-260).
    auto [x] = gradc::variables<1>();
    const auto k_tanh = gradc::compile(tanh(x));
    const auto k_expm1 = gradc::compile(expm1(x));
    std::vector<double> points;
    for (double a = -30; a <= 30; a += 0.0371) points.push_back(a);
    for (double a : {0.54930614433405, 0.5493061443341, 0.62, 0.63, 1e-10, -1e-300, 150.0, 200.0, 300.0, -300.0, 354.0})
        points.push_back(a);
    const std::size_t n = points.size();
    columns<double> in(1, n), grad(1, n), hess(1, n);
    in.data[0] = points;
    std::vector<double> values(n);
    const double rtol = 8 * std::numeric_limits<double>::epsilon();
    const auto check_second_derivative = [&](const char* name, const auto& k, auto exact_at) {
        k.hessian_batch(in.const_spans<1>(), std::span<double>(values), grad.spans<1>(), hess.spans<1>());
        for (std::size_t i = 0; i < n; ++i) {
            const double exact = double(exact_at(static_cast<long double>(points[i])));
            const double scalar = k.hessian(points[i]).hessian[0][0];
            INFO(name << "''(" << points[i] << "): scalar " << scalar << ", batch " << hess.data[0][i] << ", exact "
                      << exact);
            CHECK(gradc::test::close(scalar, exact, rtol, 0));
            CHECK(gradc::test::close(hess.data[0][i], exact, rtol, 0));
        }
    };
    check_second_derivative("tanh", k_tanh, [](long double a) {
        const long double sech = 1 / std::cosh(a);
        return -2 * std::tanh(a) * sech * sech;
    });
    check_second_derivative("expm1", k_expm1, [](long double a) { return std::exp(a); });
    // At the infinities tanh'' is 0, its limit (the form through cosh and sinh gave 0·inf = NaN).
    for (const double a : {INFINITY, -INFINITY}) {
        CHECK(k_tanh.hessian(a).hessian[0][0] == 0.0);
        CHECK(k_tanh.hessian(a).gradient[0] == 0.0);
    }
}
