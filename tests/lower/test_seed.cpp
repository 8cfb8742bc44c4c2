// The worked example of the tutorial reverse-mode implementation (its dependency-counting
// example): v5 = sin(x1) + x1*x2 at (0.5, 0.5).

#include <cmath>

#include <approx.hpp>
#include <gradc/gradc.hpp>

using gradc::test::is_close_to;

TEST_CASE("tutorial example: value and gradient at (0.5, 0.5)", "[lower][tutorial]") {
    auto [x1, x2] = gradc::variables<2>();
    auto k = gradc::compile(sin(x1) + x1 * x2);
    CHECK_THAT(k(0.5, 0.5), is_close_to(std::sin(0.5) + 0.25));
    const auto r = k.gradient(0.5, 0.5);
    CHECK_THAT(r.value, is_close_to(std::sin(0.5) + 0.25));
    CHECK_THAT(r.gradient[0], is_close_to(1.37758256, 0, 5e-9));
    CHECK_THAT(r.gradient[1], is_close_to(0.5));
    CHECK_THAT(r.gradient[0], is_close_to(std::cos(0.5) + 0.5));
}

TEST_CASE("tutorial example: JVP along each axis equals the gradient entry", "[lower][tutorial]") {
    auto [x1, x2] = gradc::variables<2>();
    auto k = gradc::compile(sin(x1) + x1 * x2);
    const auto g = k.gradient(0.5, 0.5).gradient;
    const auto t0 = k.jvp(std::array{0.5, 0.5}, std::array{1.0, 0.0});
    const auto t1 = k.jvp(std::array{0.5, 0.5}, std::array{0.0, 1.0});
    CHECK(t0.tangent == g[0]);
    CHECK(t1.tangent == g[1]);
    CHECK_THAT(t0.value, is_close_to(std::sin(0.5) + 0.25));
    // The JVP is linear in the tangent.
    const auto t = k.jvp(std::array{0.5, 0.5}, std::array{2.0, -3.0});
    CHECK_THAT(t.tangent, is_close_to(2 * g[0] - 3 * g[1]));
}

TEST_CASE("tutorial example at many points against the closed form", "[lower][tutorial]") {
    auto [x1, x2] = gradc::variables<2>();
    auto k = gradc::compile(sin(x1) + x1 * x2);
    for (double a = -3; a <= 3; a += 0.37) {
        for (double b = -2; b <= 2; b += 0.53) {
            const auto r = k.gradient(a, b);
            CHECK_THAT(r.value, is_close_to(std::sin(a) + a * b, 1e-15, 1e-15));
            CHECK_THAT(r.gradient[0], is_close_to(std::cos(a) + b, 1e-15, 1e-15));
            CHECK_THAT(r.gradient[1], is_close_to(a, 1e-15, 1e-15));
        }
    }
}
