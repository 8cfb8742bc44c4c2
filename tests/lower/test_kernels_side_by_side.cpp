// Kernels whose sweep tables differ only in where their edges sit, compiled in one
// translation unit. g++ 12 named such tables (class-type template arguments) by their
// written entries without positions, so the second kernel ran the first one's adjoint
// sweep and returned stale slots (lower/steps.hpp, `edge_step`). The differential tester
// found it with these two expressions in one generated file; each alone was right.

#include <array>
#include <cmath>

#include <catch2/catch.hpp>

#include <gradc/gradc.hpp>

#include <approx.hpp>

namespace {

// Closed forms at a point where x4 > x1, so where(x4 <= x1, x2, x4) is x4.
constexpr std::array<double, 5> point{0.039671400546967862, 0.21034306938416236, -2.731790171620736,
                                      1.8229593739729628, 1.8227528742126839};

double atan_expm1_derivative(double t) {
    const double e = std::expm1(t);
    return std::exp(t) / (1 + e * e);
}

}  // namespace

TEST_CASE("a kernel's gradient does not depend on the kernels compiled before it", "[lower]") {
    const auto [x0, x1, x2, x3, x4] = gradc::variables<5>();
    // The first kernel's tables hold the same edges as the second's, one node earlier.
    const auto first = gradc::compile(acosh(pow(where(x4 <= x4, x2, x4), -1.0)));
    const auto second = gradc::compile(atan(expm1(where(x4 <= x1, x2, x4))));

    // The first kernel's gradient and JVP instantiate its sweeps before the second's.
    const std::array<double, 5> positive{0.1, 0.2, 0.3, 0.4, 0.5};  // where picks x2 = 0.3: acosh(1/0.3)
    const auto g1 = first.gradient(positive);
    const double u = 1 / 0.3;
    const double d_first = -1 / (0.3 * 0.3) / (std::sqrt(u - 1) * std::sqrt(u + 1));
    CHECK_THAT(g1.gradient[2], gradc::test::is_close_to(d_first, 1e-14));
    CHECK(g1.gradient[4] == 0);
    CHECK_THAT(first.jvp(positive, positive).tangent, gradc::test::is_close_to(d_first * 0.3, 1e-14));

    const auto g2 = second.gradient(point);
    CHECK_THAT(g2.value, gradc::test::is_close_to(std::atan(std::expm1(point[4])), 1e-15));
    CHECK(g2.gradient[0] == 0);
    CHECK(g2.gradient[1] == 0);
    CHECK(g2.gradient[2] == 0);
    CHECK(g2.gradient[3] == 0);
    CHECK_THAT(g2.gradient[4], gradc::test::is_close_to(atan_expm1_derivative(point[4]), 1e-14));
    const std::array<double, 5> tangent{1, 1, 1, 1, 1};
    CHECK_THAT(second.jvp(point, tangent).tangent, gradc::test::is_close_to(atan_expm1_derivative(point[4]), 1e-14));
}
