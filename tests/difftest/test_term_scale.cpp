// The differential tester's scale of a derivative's terms (term_scale.hpp): its values
// on closed forms, and that the comparisons it widens still report a wrong result.

#include <cmath>
#include <limits>

#include <approx.hpp>
#include <catch2/catch.hpp>

#include "harness.hpp"

namespace {

using scaled1 = gradc::difftest::reference::term_scale<1>;
using scaled2 = gradc::difftest::reference::term_scale<2>;

// The generated expressions' spelling: reference.hpp's functions by a using-directive.
const auto cancelling = [](const auto& x0) {
    using namespace gradc::difftest::reference;
    const auto t0 = (x0 / x0);
    const auto t1 = (x0 - 0.5);
    return t0 * t1;
};

}  // namespace

TEST_CASE("term_scale sums the magnitudes of the path products", "[difftest]") {
    using gradc::test::is_close_to;
    SECTION("(x / x)·(x - 0.5): terms of 1/|x| that cancel") {
        // ∂(x/x)/∂x = 1/x - x/x² (two terms of 1/|x|); times |x - 0.5|, plus |x/x|·1.
        for (const long double x : {1e-300L, -2.5L, 3.0L}) {
            const scaled1 y = cancelling(scaled1::variable(x, 0));
            CHECK_THAT(double(y.value), is_close_to(double(x - 0.5L), 1e-15, 0));
            CHECK_THAT(double(y.scale[0]), is_close_to(double(2 / std::fabs(x) * std::fabs(x - 0.5L) + 1), 1e-15, 0));
            // Forward mode forms the tangent of x/x's two terms (1/|x| each, 2/|x| summed).
            CHECK_THAT(double(y.peak[0]), is_close_to(double(std::max(2 / std::fabs(x), y.scale[0])), 1e-15, 0));
        }
    }
    SECTION("products, quotients and unary functions") {
        // f = sin(x0)·x1 / x0 at (2, 3): ∂f/∂x0 = x1 cos(x0)/x0 - x1 sin(x0)/x0², whose
        // terms' magnitudes add; ∂f/∂x1 = sin(x0)/x0 has one term.
        const scaled2 x0 = scaled2::variable(2, 0), x1 = scaled2::variable(3, 1);
        const scaled2 y = sin(x0) * x1 / x0;
        const long double c = std::fabs(std::cos(2.0L)), s = std::fabs(std::sin(2.0L));
        CHECK_THAT(double(y.scale[0]), is_close_to(double(3 * c / 2 + 3 * s / 4), 1e-15, 0));
        CHECK_THAT(double(y.scale[1]), is_close_to(double(s / 2), 1e-15, 0));
    }
    SECTION("the value's error bound") {
        // log(x) near x = 1: an operation's relative error in x becomes |1/log(x)| times
        // larger in the result: error = |log x| + |1/x|·|x| per unit of relative error.
        const scaled1 y = log(scaled1::variable(1 + 1e-6L, 0) * 1.0L);
        // x·1.0 errs by |x·1.0|; log multiplies that by 1/(x·1.0) and adds its own |log x|.
        CHECK_THAT(double(y.error), is_close_to(double(std::fabs(std::log(1 + 1e-6L)) + 1), 1e-12, 0));
    }
    SECTION("second order: the magnitudes of the terms a Hessian entry sums") {
        // sin(x0)·x1 at (2, 3): ∂²/∂x0² = -x1·sin(x0) (one term), ∂²/∂x0∂x1 = cos(x0), ∂²/∂x1² = 0.
        const scaled2 y = sin(scaled2::variable(2, 0)) * scaled2::variable(3, 1);
        const long double c = std::fabs(std::cos(2.0L)), s = std::fabs(std::sin(2.0L));
        CHECK_THAT(double(y.hess[0]), is_close_to(double(3 * s), 1e-15, 0));
        CHECK_THAT(double(y.hess[1]), is_close_to(double(c), 1e-15, 0));
        CHECK_THAT(double(y.hess[2]), is_close_to(double(c), 1e-15, 0));
        CHECK(y.hess[3] == 0);
        // atan2(x, x) is constant: its second derivative 0 is the sum of ∂²/∂a² = -2ab/d² and
        // ∂²/∂b² = 2ab/d² (d = a² + b²) at a = b = x, each 1/(2x²): terms of 1/x² that cancel.
        for (const long double x : {2.4e-4L, -3.0L}) {
            const scaled1 v = scaled1::variable(x, 0);
            const scaled1 z = atan2(v, v);
            CHECK_THAT(double(z.hess[0]), is_close_to(double(1 / (x * x)), 1e-15, 0));
        }
        // A product of two variables: ∂²(x0·x1)/∂x0∂x1 = 1, a single term each way.
        const scaled2 p = scaled2::variable(0.5, 0) * scaled2::variable(-4, 1);
        CHECK(p.hess[1] == 1);
        CHECK(p.hess[0] == 0);
    }
    SECTION("the closest call: a comparison decided by rounding") {
        using gradc::difftest::reference::closest_call;
        // log2(tan(atan2(x, x))) is 0 exactly, computed as ±1e-16 or 0 by each mode: its
        // comparison with 0 is decided by rounding (seed 31 took two branches in two modes).
        closest_call = std::numeric_limits<long double>::infinity();
        const scaled1 x = scaled1::variable(1.0707019737286751L, 0);
        (void)(log2(tan(atan2(x, x))) >= scaled1(0));
        CHECK(closest_call < 1e-9L);
        // Variables and literals carry no rounding: their comparisons are decided.
        closest_call = std::numeric_limits<long double>::infinity();
        (void)(x > scaled1(0.5L));
        (void)(maximum(x, x));
        CHECK(std::isinf(closest_call));
        // A computed operand far from the other side: its margin is large.
        (void)(exp(x) > scaled1(1));
        CHECK(closest_call > 0.1L);
    }
    SECTION("a literal exponent at a zero base adds no term") {
        const scaled1 y = pow(scaled1::variable(0, 0), scaled1(0.5L));
        CHECK(std::isinf(y.scale[0]));  // sqrt'(0): a singularity, not 0·inf
        CHECK(!std::isnan(y.scale[0]));
    }
}

TEST_CASE("the comparisons that term_scale widens still report a wrong result", "[difftest]") {
    // From the 10^4 run: at x1 = -1e-300 the JVP (-0.776, the tangent) and the gradient
    // contracted with it (0) differed by roundings of terms near 1e300.
    constexpr std::uint64_t seed = 2425951760644006765ULL;
    const char* text = "const auto t0 = (x1 / x1); const auto t1 = (x1 - 0.5); const auto t2 = (t0 * t1); return t2;";
    const auto f = [](const auto&, const auto& x1, const auto&) { return cancelling(x1); };
    gradc::difftest::results r = gradc::difftest::run_modes<3, gradc::difftest::first_order>(seed, f);
    bool cancels = false;
    for (std::size_t p = 0; p < gradc::difftest::point_count; ++p) cancels = cancels || r.inputs[p * 3 + 1] == -1e-300;
    REQUIRE(cancels);
    {
        gradc::difftest::runner clean;
        clean.compare(text, 3, seed, r, gradc::difftest::first_order);
        for (const auto& report : clean.reports()) FAIL_CHECK(report);
        CHECK(clean.mismatches() == 0);
    }
    // A JVP off by 1e-6 relative at a regular point (terms of the result's size there).
    std::size_t regular = gradc::difftest::point_count;
    for (std::size_t p = 0; p < gradc::difftest::point_count; ++p) {
        const double x1 = r.inputs[p * 3 + 1];
        if (std::fabs(x1) > 0.1 && std::fabs(x1) < 10 && std::isfinite(r.inputs[p * 3]) && std::isfinite(r.inputs[p * 3 + 2]) && r.tangent[p * 3 + 1] != 0) regular = p;
    }
    REQUIRE(regular < gradc::difftest::point_count);
    {
        auto wrong = r;
        wrong.jvp[regular] *= 1 + 1e-6;
        gradc::difftest::runner out;
        out.compare(text, 3, seed, wrong, gradc::difftest::first_order);
        REQUIRE(out.reports().size() == 1);
        CHECK_THAT(out.reports()[0], Catch::Contains("jvp vs gradient·tangent"));
    }
    {
        auto wrong = r;
        wrong.batch_grad[regular * 3 + 1] *= 1 + 1e-6;
        wrong.batch_value[regular] *= 1 + 1e-6;
        gradc::difftest::runner out;
        out.compare(text, 3, seed, wrong, gradc::difftest::first_order);
        REQUIRE(out.reports().size() == 1);
        CHECK_THAT(out.reports()[0], Catch::Contains("d/dx1: static batch vs static scalar"));
        CHECK_THAT(out.reports()[0], Catch::Contains("value: static batch vs static scalar"));
    }
    // An infinite JVP where forward mode's tangents stay inside double's range.
    {
        auto wrong = r;
        wrong.jvp[regular] = std::numeric_limits<double>::infinity();
        gradc::difftest::runner out;
        out.compare(text, 3, seed, wrong, gradc::difftest::first_order);
        CHECK(out.mismatches() == 1);
    }
}
