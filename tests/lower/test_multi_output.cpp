// Kernels with several outputs: Jacobian, VJP and JVP agree with each other and with
// finite differences; ⟨v, J u⟩ = ⟨Jᵀ v, u⟩.

#include <cmath>

#include <approx.hpp>
#include <gradc/gradc.hpp>

using gradc::test::is_close_to;

namespace {

auto make_kernel() {
    auto [x, y, z] = gradc::variables<3>();
    return gradc::compile(sin(x) * y, exp(z - x) + x * y * z, hypot(x, z), y);
}

}  // namespace

TEST_CASE("jacobian matches finite differences", "[lower][multi]") {
    auto k = make_kernel();
    STATIC_REQUIRE(decltype(k)::output_count == 4);
    const std::array<double, 3> x{0.4, -1.2, 0.9};
    const auto J = k.jacobian(x);
    for (std::size_t j = 0; j < 3; ++j) {
        for (std::size_t m = 0; m < 4; ++m) {
            const double fd = gradc::test::central_difference(
                [&](double v) {
                    auto p = x;
                    p[j] = v;
                    return k.value(p)[m];
                },
                x[j]);
            INFO("output " << m << ", variable " << j);
            CHECK_THAT(J.jacobian[m][j], is_close_to(fd, 1e-8, 1e-10));
        }
    }
    CHECK(J.value == k.value(x));
    CHECK(J.jacobian[3] == std::array{0.0, 1.0, 0.0});
}

TEST_CASE("vjp and jvp are the transpose of each other: <v, J u> = <J^T v, u>", "[lower][multi]") {
    auto k = make_kernel();
    const std::array<double, 3> x{-0.3, 0.8, 1.7};
    const std::array<std::array<double, 3>, 3> us{{{1, 0, 0}, {0.3, -1.1, 2.0}, {-0.5, 0.25, 0.75}}};
    const std::array<std::array<double, 4>, 3> vs{{{1, 0, 0, 0}, {0.2, -0.7, 1.3, 0.9}, {-1, 2, 0.5, -0.25}}};
    for (const auto& u : us) {
        for (const auto& v : vs) {
            const auto Ju = k.jvp(x, u).tangent;
            const auto vJ = k.vjp(x, v).gradient;
            double lhs = 0, rhs = 0;
            for (std::size_t m = 0; m < 4; ++m) lhs += v[m] * Ju[m];
            for (std::size_t j = 0; j < 3; ++j) rhs += vJ[j] * u[j];
            CHECK_THAT(lhs, is_close_to(rhs, 1e-14, 1e-14));
        }
    }
}

TEST_CASE("jacobian by forward sweeps when outputs outnumber variables", "[lower][multi]") {
    auto [x] = gradc::variables<1>();
    auto k = gradc::compile(sin(x), cos(x), x * x, exp(x));
    const auto J = k.jacobian(0.6);
    CHECK_THAT(J.jacobian[0][0], is_close_to(std::cos(0.6)));
    CHECK_THAT(J.jacobian[1][0], is_close_to(-std::sin(0.6)));
    CHECK_THAT(J.jacobian[2][0], is_close_to(1.2));
    CHECK_THAT(J.jacobian[3][0], is_close_to(std::exp(0.6)));
}

TEST_CASE("an output used twice, and an output that is an operand of another", "[lower][multi]") {
    auto [x, y] = gradc::variables<2>();
    auto s = x * y;
    auto k = gradc::compile(s, s, sin(s));
    const auto r = k.vjp(std::array{2.0, 3.0}, std::array{1.0, 2.0, 0.5});
    // d/dx [1*s + 2*s + 0.5*sin(s)] = (3 + 0.5 cos(s)) * y
    CHECK_THAT(r.gradient[0], is_close_to((3 + 0.5 * std::cos(6.0)) * 3));
    CHECK_THAT(r.gradient[1], is_close_to((3 + 0.5 * std::cos(6.0)) * 2));
}

TEST_CASE("multi-output with wrt", "[lower][multi][wrt]") {
    auto [x, y] = gradc::variables<2>();
    auto k = gradc::compile(x * y, x + y, gradc::wrt(y));
    const auto J = k.jacobian(2.0, 5.0);
    CHECK(J.jacobian[0] == std::array{2.0});
    CHECK(J.jacobian[1] == std::array{1.0});
}
