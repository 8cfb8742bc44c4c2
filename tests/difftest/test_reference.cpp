// The differential tester's long-double reference (harness.hpp, second_order.hpp): the
// differences it trusts, and the points it must not use them at.

#include <cmath>
#include <limits>

#include <approx.hpp>
#include <catch2/catch.hpp>

#include "harness.hpp"

namespace {

using gradc::difftest::point_count;

// Generated expressions' spelling: reference.hpp's functions by a using-directive. The
// condition x0 == -x0 holds at x0 = ±0 alone, where the program takes the branch 2·x0·x1
// that no neighbour takes: its derivative there is 2·x1, the differences' x1 + 1.
const auto isolated_branch = [](const auto& x0, const auto& x1) {
    using namespace gradc::difftest::reference;
    return where(x0 == -x0, 2.0 * x0 * x1, x0 * x1 + x0);
};

gradc::difftest::results at_points(double a0, double a1, double b0, double b1) {
    gradc::difftest::results r;
    r.arity = 2;
    r.inputs.assign(point_count * 2, 0.0);
    for (std::size_t p = 0; p < point_count; ++p) {
        r.inputs[2 * p] = p == 0 ? a0 : b0;
        r.inputs[2 * p + 1] = p == 0 ? a1 : b1;
    }
    return r;
}

}  // namespace

TEST_CASE("the reference takes no differences at a point whose branches no neighbour takes", "[difftest]") {
    auto r = at_points(-0.0, 0.3, 0.7, 0.3);
    gradc::difftest::reference_derivatives<2>(isolated_branch, r);
    CHECK(std::isnan(r.reference_grad[0]));  // d/dx0 at x0 = -0: another branch's
    // d/dx1 there moves x1 alone, which keeps the branch: 2·x0 = 0, as the program's.
    CHECK(r.reference_grad[1] == 0);
    // Elsewhere the differences stand, and equal the closed form.
    CHECK_THAT(double(r.reference_grad[2]), gradc::test::is_close_to(1.3, 1e-8));
    CHECK_THAT(double(r.reference_grad[3]), gradc::test::is_close_to(0.7, 1e-8));
}

TEST_CASE("a point at a kink is told, where the derivative is a convention", "[difftest]") {
    // hypot(abs(x1), x0) is smooth in x1, with ∂²/∂x1² = 1/|x0| at x1 = 0; through abs'(0) = 0
    // every mode gives 0 there (found by a run of seed 31): the harness compares no
    // differences at such a point (term_scale.hpp, `at_kink`).
    using scaled = gradc::difftest::reference::term_scale<2>;
    const auto f = [](const auto& x0, const auto& x1) {
        using namespace gradc::difftest::reference;
        return hypot(abs(x1), x0);
    };
    using gradc::difftest::reference::at_kink;
    at_kink = false;
    (void)f(scaled::variable(-2.794852322622194L, 0), scaled::variable(0, 1));
    CHECK(at_kink);
    at_kink = false;
    (void)f(scaled::variable(-2.0L, 0), scaled::variable(0.5L, 1));
    CHECK(!at_kink);
    // A tie of max between a literal and a constant carries no derivative: no kink.
    (void)maximum(scaled(1.0L), scaled(1.0L));  // the type's own, found by argument-dependent lookup
    CHECK(!at_kink);
    // Beside the kink the second differences stand: ∂²/∂x1² = x0²/h³.
    std::vector<long double> hess;
    gradc::difftest::reference_hessian<2>(f, std::vector<double>{-2.0, 0.5}, 1, hess);
    CHECK_THAT(double(hess[1 * 2 + 1]), gradc::test::is_close_to(4.0 / std::pow(std::hypot(2.0, 0.5), 3), 1e-6));
}

TEST_CASE("the reference's second differences are trusted only to a tenth of the harness's tolerance", "[difftest]") {
    // From the 10^4 run: ∂²/∂x0∂x1 at x0 = 2.25e-4 with a step of 1e-4 in x0 inside log10; the
    // central differences with steps h and h/2 differ by 3.4 % (the exact entry,
    // 0.00214979016092394617 by mpmath, is the static mode's).
    const auto f = [](const auto& x0, const auto& x1, const auto& x2) {
        using namespace gradc::difftest::reference;
        return erf(atan2(atan(x2), cosh(x1)) * log10(where(x2 > -1.0, x0, x0)));
    };
    const std::vector<double> inputs{0.00022534445111375718, 0.054611712130105308, 700};
    std::vector<long double> hess;
    gradc::difftest::reference_hessian<3>(f, inputs, 1, hess);
    const long double exact = 0.00214979016092394617L;
    const long double entry = hess[0 * 3 + 1];
    INFO("second difference " << double(entry));
    CHECK((std::isnan(entry) || std::fabs(entry - exact) <= 1e-6L + 1e-4L * exact));
    // Where the steps fit, an entry is still given: ∂²/∂x0∂x1 of x0·x1 is 1.
    const auto product = [](const auto& x0, const auto& x1) { return x0 * x1; };
    gradc::difftest::reference_hessian<2>(product, std::vector<double>{0.5, 2.0}, 1, hess);
    CHECK_THAT(double(hess[1]), gradc::test::is_close_to(1.0, 1e-8));
}

TEST_CASE("the reference's differences still report a wrong gradient", "[difftest]") {
    const auto f = [](const auto& x0, const auto& x1) {
        using namespace gradc::difftest::reference;
        return sin(x0) * exp(x1) + where(x0 > 0.0, x0 * x1, -x0);
    };
    constexpr std::uint64_t seed = 42;
    gradc::difftest::results r = gradc::difftest::run_modes<2, gradc::difftest::first_order>(seed, f);
    const char* text = "sin(x0) * exp(x1) + where(x0 > 0.0, x0 * x1, -x0)";
    {
        gradc::difftest::runner clean;
        clean.compare(text, 2, seed, r, gradc::difftest::first_order);
        for (const auto& report : clean.reports()) FAIL_CHECK(report);
        CHECK(clean.mismatches() == 0);
    }
    std::size_t regular = point_count;
    for (std::size_t p = 0; p < point_count; ++p)
        if (std::fabs(r.inputs[2 * p]) > 0.1 && std::fabs(r.inputs[2 * p]) < 3 && std::fabs(r.inputs[2 * p + 1]) < 3 &&
            !std::isnan(r.reference_grad[2 * p]))
            regular = p;
    REQUIRE(regular < point_count);
    // The same error in every mode (and at the nearby points, scalar and batch, that tell
    // ill-conditioned points), so that only the differences can see it.
    auto wrong = r;
    for (auto* g : {&wrong.scalar_grad, &wrong.batch_grad, &wrong.dynamic_grad, &wrong.nearby_grad, &wrong.batch_nearby_grad})
        (*g)[2 * regular] *= 1 + 1e-2;
    gradc::difftest::runner out;
    out.compare(text, 2, seed, wrong, gradc::difftest::first_order);
    bool differences_saw_it = false;
    INFO("point " << regular << ": x = (" << r.inputs[2 * regular] << ", " << r.inputs[2 * regular + 1] << "), reference " << double(r.reference_grad[2 * regular]) << ", static " << r.scalar_grad[2 * regular] << ", " << out.reports().size() << " reports");
    for (const auto& report : out.reports())
        differences_saw_it = differences_saw_it || report.find("d/dx0: static scalar vs finite differences") != std::string::npos;
    CHECK(differences_saw_it);
}

TEST_CASE("erfinv's reference inverts erf to long double's precision, with C-like special values", "[difftest]") {
    // No C library has erfinv: reference.hpp bisects erf (erfc beyond ½). Values from
    // mpmath at 40 digits, for the doubles nearest the decimal arguments.
    using gradc::difftest::reference::erfinv;
    CHECK_THAT(double(erfinv(0.5L)), gradc::test::is_close_to(0.47693627620446987338, 1e-16, 0));
    CHECK_THAT(double(erfinv((long double)-0.9)), gradc::test::is_close_to(-1.1630871536766741628, 1e-16, 0));
    CHECK_THAT(double(erfinv((long double)1e-300)), gradc::test::is_close_to(8.8622692545275803581e-301, 1e-16, 0));
    CHECK_THAT(double(erfinv((long double)0.999999)), gradc::test::is_close_to(3.4589107372754987775, 1e-16, 0));
    CHECK_THAT(double(erfinv(1 - 0x1p-53L)), gradc::test::is_close_to(5.8635847487551679272, 1e-16, 0));
    // 1 - 2⁻⁶³ rounds to 1 in double; its erfinv, 6.5, is still a long double's.
    CHECK_THAT(double(std::erfc(erfinv(1 - 0x1p-63L))), gradc::test::is_close_to(0x1p-63, 1e-15, 0));
    for (long double x = -0.999L; x < 1; x += 0.0123L) {
        INFO("x = " << double(x));
        const long double y = erfinv(x);
        CHECK(std::fabs(std::erf(y) - x) <= 4 * std::numeric_limits<long double>::epsilon());
        const double xd = double(x);  // the double instance, against the long double at the same point
        CHECK(std::fabs(erfinv(xd) - double(erfinv((long double)xd))) <= 4e-16 * std::fabs(double(y)));
    }
    CHECK(erfinv(1.0L) == std::numeric_limits<long double>::infinity());
    CHECK(erfinv(-1.0L) == -std::numeric_limits<long double>::infinity());
    CHECK(std::isnan(erfinv(1.5L)));
    CHECK(std::isnan(erfinv(std::numeric_limits<long double>::quiet_NaN())));
    CHECK(std::signbit(erfinv(-0.0L)));
    // The term scale: y' = √π/2·e^(y²) and y'' = 2y·y'² at 0.5.
    using scaled = gradc::difftest::reference::term_scale<1>;
    const scaled s = erfinv(scaled::variable(0.5L, 0));
    CHECK_THAT(double(s.scale[0]), gradc::test::is_close_to(1.1125848189719496, 1e-15, 0));
    CHECK_THAT(double(s.hess[0]), gradc::test::is_close_to(2 * 0.47693627620446987 * 1.1125848189719496 * 1.1125848189719496, 1e-15, 0));
}
