// Second order on one point: k.hessian and k.hvp against closed forms (Black-Scholes
// gamma, vanna, volga; the normal log-density in (μ, σ)), against central differences of
// the compiled gradient, hvp = H·v, symmetry, float and double, wrt subsets, and the
// conventions at non-differentiable points.
#include <array>
#include <cmath>
#include <numbers>

#include <catch2/catch.hpp>

#include <gradc/check.hpp>
#include <gradc/gradc.hpp>

namespace {

template <class E>
auto normal_cdf(const E& d) {
    return 0.5 * erfc(-d * (std::numbers::sqrt2 / 2));
}

template <class S, class K, class R, class Sigma, class T>
auto black_scholes_call(const S& s, const K& k, const R& r, const Sigma& sigma, const T& t) {
    const auto vs = sigma * sqrt(t);
    const auto d1 = (log(s / k) + (r + 0.5 * sigma * sigma) * t) / vs;
    const auto d2 = d1 - vs;
    return s * normal_cdf(d1) - k * exp(-r * t) * normal_cdf(d2);
}

double phi(double x) { return std::exp(-0.5 * x * x) / std::sqrt(2 * std::numbers::pi); }

/// Central differences of the compiled gradient (the checker's), step 1e-6.
template <class K>
auto fd_hessian(const K& k, const std::array<double, K::arity>& x) {
    return gradc::check::detail::numerical_hessian(k, x, 1e-6);
}

}  // namespace

TEST_CASE("the Black-Scholes Hessian has the closed-form Greeks", "[second_order][hessian]") {
    auto [s, K, r, sigma, t] = gradc::variables<5>();
    const auto k = gradc::compile(black_scholes_call(s, K, r, sigma, t));
    const double S = 100, X = 95, R = 0.02, V = 0.25, T = 1.5;
    const auto h = k.hessian(S, X, R, V, T);
    const double d1 = (std::log(S / X) + (R + 0.5 * V * V) * T) / (V * std::sqrt(T)), d2 = d1 - V * std::sqrt(T);
    const double gamma = phi(d1) / (S * V * std::sqrt(T));
    const double vanna = -phi(d1) * d2 / V;
    const double volga = S * phi(d1) * std::sqrt(T) * d1 * d2 / V;
    const double delta = 0.5 * std::erfc(-d1 / std::sqrt(2.0));
    CHECK(h.value == Approx(k(S, X, R, V, T)).epsilon(1e-15));
    CHECK(h.gradient[0] == Approx(delta).epsilon(1e-13));
    CHECK(h.hessian[0][0] == Approx(gamma).epsilon(1e-12));
    CHECK(h.hessian[0][3] == Approx(vanna).epsilon(1e-12));
    CHECK(h.hessian[3][0] == h.hessian[0][3]);
    CHECK(h.hessian[3][3] == Approx(volga).epsilon(1e-12));
    // Every entry against differences of the gradient.
    const auto num = fd_hessian(k, std::array{S, X, R, V, T});
    for (std::size_t i = 0; i < 5; ++i)
        for (std::size_t j = 0; j < 5; ++j) {
            INFO(i << ", " << j);
            CHECK(h.hessian[i][j] == Approx(num[i][j]).epsilon(1e-5).margin(1e-6));
            CHECK(h.hessian[i][j] == h.hessian[j][i]);
        }
}

TEST_CASE("a wrt subset gives the Hessian in wrt order", "[second_order][hessian]") {
    auto [s, K, r, sigma, t] = gradc::variables<5>();
    const auto f = black_scholes_call(s, K, r, sigma, t);
    const auto full = gradc::compile(f).hessian(100.0, 95.0, 0.02, 0.25, 1.5);
    const auto kw = gradc::compile(f, gradc::wrt(sigma, s));
    static_assert(decltype(kw)::wrt_count == 2);
    const auto h = kw.hessian(100.0, 95.0, 0.02, 0.25, 1.5);
    CHECK(h.hessian[0][0] == Approx(full.hessian[3][3]).epsilon(1e-14));  // volga
    CHECK(h.hessian[0][1] == Approx(full.hessian[3][0]).epsilon(1e-14));  // vanna
    CHECK(h.hessian[1][1] == Approx(full.hessian[0][0]).epsilon(1e-14));  // gamma
    CHECK(h.gradient[1] == Approx(full.gradient[0]).epsilon(1e-14));
}

TEST_CASE("the Hessian of the normal log-density in (mu, sigma) is the closed form", "[second_order][hessian]") {
    auto [x, mu, sigma] = gradc::variables<3>();
    const auto z = (x - mu) / sigma;
    const auto k = gradc::compile(-log(sigma) - 0.5 * z * z - 0.5 * std::log(2 * std::numbers::pi), gradc::wrt(mu, sigma));
    for (const auto& p : {std::array{0.3, 1.1, 0.8}, std::array{-2.0, 0.5, 2.5}, std::array{4.0, 4.0, 0.3}}) {
        const double X = p[0], M = p[1], S = p[2], d = X - M;
        const auto h = k.hessian(p);
        CHECK(h.hessian[0][0] == Approx(-1 / (S * S)).epsilon(1e-14));
        CHECK(h.hessian[0][1] == Approx(-2 * d / (S * S * S)).epsilon(1e-14).margin(1e-300));
        CHECK(h.hessian[1][1] == Approx(1 / (S * S) - 3 * d * d / (S * S * S * S)).epsilon(1e-13));
    }
}

TEST_CASE("hvp equals the Hessian times v, and carries the gradient", "[second_order][hvp]") {
    auto [a, b, c] = gradc::variables<3>();
    const auto k = gradc::compile(sin(a * b) * exp(c) + pow(a, b) / hypot(b, c) + atan2(c, a) * tanh(b));
    const std::array x{0.7, 1.3, -0.4};
    const std::array v{0.5, -2.0, 1.5};
    const auto h = k.hessian(x);
    const auto r = k.hvp(x, v);
    const auto g = k.gradient(x);
    CHECK(r.value == Approx(g.value).epsilon(1e-15));
    for (std::size_t i = 0; i < 3; ++i) {
        double hv = 0;
        for (std::size_t j = 0; j < 3; ++j) hv += h.hessian[i][j] * v[j];
        CHECK(r.hvp[i] == Approx(hv).epsilon(1e-13));
        CHECK(r.gradient[i] == Approx(g.gradient[i]).epsilon(1e-15));
        CHECK(h.gradient[i] == Approx(g.gradient[i]).epsilon(1e-15));
    }
    const auto num = fd_hessian(k, x);
    for (std::size_t i = 0; i < 3; ++i)
        for (std::size_t j = 0; j < 3; ++j) CHECK(h.hessian[i][j] == Approx(num[i][j]).epsilon(1e-6).margin(1e-7));
}

TEST_CASE("float kernels compute the Hessian in float", "[second_order][hessian][float]") {
    auto [x, y] = gradc::variables<2>();
    const auto k = gradc::compile(exp(x * y) + x * x * y);
    const auto hf = k.hessian(0.5f, 0.25f);
    const auto hd = k.hessian(0.5, 0.25);
    static_assert(std::is_same_v<decltype(hf.value), float>);
    for (std::size_t i = 0; i < 2; ++i)
        for (std::size_t j = 0; j < 2; ++j) CHECK(hf.hessian[i][j] == Approx(hd.hessian[i][j]).epsilon(1e-6));
    const auto r = k.hvp(std::array{0.5f, 0.25f}, std::array{1.0f, -1.0f});
    CHECK(r.hvp[0] == Approx(hd.hessian[0][0] - hd.hessian[0][1]).epsilon(1e-6));
}

TEST_CASE("second order at the kinks: the first-order conventions, with zero curvature", "[second_order][conventions]") {
    // abs, relu, max/min and where are piecewise linear in their operands: the second
    // derivative of the primitive itself is 0 everywhere, kinks included; the first
    // derivative keeps its convention (abs'(0) = 0, relu'(0) = 0, ties split evenly).
    auto [a, b] = gradc::variables<2>();
    const auto sq = [](const auto& e) { return e * e; };
    SECTION("abs") {
        const auto h = gradc::compile(abs(a) * b).hessian(0.0, 2.0);
        CHECK(h.gradient[0] == 0.0);
        CHECK(h.hessian[0][0] == 0.0);
        CHECK(h.hessian[0][1] == 0.0);  // d/db of sign(a)·b at a = 0: sign(0) = 0
        // |a|·|a| = a², but its second derivative at 0 is 2·abs'(0)² = 0 by the convention
        // (PyTorch's is 0 too); 2 elsewhere.
        const auto k2 = gradc::compile(sq(abs(a)));
        CHECK(k2.hessian(0.0, 0.0).hessian[0][0] == 0.0);
        CHECK(k2.hessian(-0.5, 0.0).hessian[0][0] == 2.0);
    }
    SECTION("relu") {
        const auto h = gradc::compile(relu(a) * b).hessian(0.0, 3.0);
        CHECK(h.gradient[0] == 0.0);
        CHECK(h.hessian[0][1] == 0.0);
        CHECK(gradc::compile(sq(relu(a))).hessian(1.5, 0.0).hessian[0][0] == 2.0);
        CHECK(gradc::compile(sq(relu(a))).hessian(-1.5, 0.0).hessian[0][0] == 0.0);
    }
    SECTION("max and min at a tie") {
        const auto h = gradc::compile(max(a, b) * a).hessian(1.0, 1.0);
        // d/da = 0.5·a + max = 1.5; d²/da² = 0.5 + 0.5 (the split derivative, twice).
        CHECK(h.gradient[0] == 1.5);
        CHECK(h.hessian[0][0] == 1.0);
        CHECK(h.hessian[0][1] == 0.5);
        CHECK(h.hessian[1][1] == 0.0);
        const auto m = gradc::compile(min(a, b) * b).hessian(2.0, 2.0);
        CHECK(m.hessian[1][1] == 1.0);
        CHECK(m.hessian[0][1] == 0.5);
    }
    SECTION("softplus at 0 keeps its slope 1/2 and curvature 1/4") {
        // Its stable form max(a, 0) + log1p(exp(-|a|)) has kinks; the rule's partial has none.
        const auto h = gradc::compile(softplus(a) * b).hessian(0.0, 1.0);
        CHECK(h.gradient[0] == Approx(0.5).epsilon(1e-15));
        CHECK(h.hessian[0][0] == Approx(0.25).epsilon(1e-15));
        CHECK(h.hessian[0][1] == Approx(0.5).epsilon(1e-15));
    }
    SECTION("where") {
        const auto k = gradc::compile(where(a > 0.0, a * a * b, -a * b));
        CHECK(k.hessian(0.5, 2.0).hessian[0][0] == 4.0);
        CHECK(k.hessian(-0.5, 2.0).hessian[0][0] == 0.0);
        CHECK(k.hessian(0.0, 2.0).hessian[0][1] == -1.0);  // a = 0 takes the second branch
    }
}

TEST_CASE("pow's second order keeps its conventions at b = 0 and a = 0", "[second_order][conventions]") {
    auto [a, b] = gradc::variables<2>();
    const auto k = gradc::compile(pow(a, b));
    // pow(a, 2): d²/da² = 2 everywhere, a = 0 included.
    CHECK(k.hessian(0.0, 2.0).hessian[0][0] == 2.0);
    CHECK(k.hessian(3.0, 2.0).hessian[0][0] == Approx(2.0).epsilon(1e-15));
    // pow(a, 0) is constant in a.
    CHECK(k.hessian(0.0, 0.0).hessian[0][0] == 0.0);
    // Mixed: d/db (b·a^(b-1)) = a^(b-1)·(1 + b·log a).
    const auto h = k.hessian(1.7, 2.5);
    CHECK(h.hessian[0][1] == Approx(std::pow(1.7, 1.5) * (1 + 2.5 * std::log(1.7))).epsilon(1e-14));
    CHECK(h.hessian[1][1] == Approx(std::pow(1.7, 2.5) * std::log(1.7) * std::log(1.7)).epsilon(1e-14));
}

TEST_CASE("dual numbers: every primitive's tangent is its rule's partial", "[second_order][dual]") {
    using D = gradc::dual<double, 2>;
    D x(0.6);
    x.tangent = {1.0, -2.0};
    const D y = sin(x) * exp(x) / (x + 1.0);
    const double v = 0.6;
    const double dy = (std::cos(v) * std::exp(v) + std::sin(v) * std::exp(v)) / (v + 1) -
                      std::sin(v) * std::exp(v) / ((v + 1) * (v + 1));
    CHECK(y.value == Approx(std::sin(v) * std::exp(v) / (v + 1)).epsilon(1e-15));
    CHECK(y.tangent[0] == Approx(dy).epsilon(1e-14));
    CHECK(y.tangent[1] == Approx(-2 * dy).epsilon(1e-14));
    // Conditions look at the value; constants have zero tangents.
    CHECK((x > 0.5));
    const D c(2.0);
    CHECK(c.tangent[0] == 0.0);
}
