// Partials that once cancelled: tanh' = 1 - y², sigmoid' = y(1 - y), expm1' = y + 1 had
// no correct digit where y rounds to ±1 (or -1), asin', acos' and atanh' lost digits near
// ±1 through 1 - a·a. Each is checked against its closed form in long double, on double
// scalars and on SIMD batches of points on both sides of the switch between the rule's
// two forms (include/gradc/rules/accurate_where.hpp), a batch mixing both.

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numbers>
#include <vector>

#include <approx.hpp>
#include <gradc/rules.hpp>
#include <gradc/simd/config.hpp>
#include <gradc/math.hpp>

#include "../difftest/reference.hpp"

GRADC_SIMD_DIAGNOSTICS_PUSH

namespace {

namespace r = gradc::rules;
using batch = xsimd::batch<double>;

/// The partial of R at a, as a scalar and in every lane of a batch whose other lanes hold
/// `others`, within `ulps` of `exact` (relative).
template <class R>
void check_partial(double a, long double exact, double others) {
    INFO(R::name << "'(" << a << ")");
    const double rtol = 8 * std::numeric_limits<double>::epsilon();
    const double scalar = r::scale(R::partial(r::arg<0>, a, R::eval(a)), 1.0);
    CHECK(gradc::test::close(scalar, double(exact), rtol, 0));
    for (std::size_t lane = 0; lane < batch::size; ++lane) {
        alignas(64) double lanes[batch::size];
        for (auto& x : lanes) x = others;
        lanes[lane] = a;
        const batch x = batch::load_aligned(lanes);
        const batch p = r::scale(R::partial(r::arg<0>, x, R::eval(x)), batch(1.0));
        CHECK(gradc::test::close(p.get(lane), double(exact), rtol, 0));
    }
}

/// How many floats (or doubles) lie between a and b, for a and b of the same sign.
int ulps_apart(float a, float b) {
    std::int32_t ia, ib;
    std::memcpy(&ia, &a, 4);
    std::memcpy(&ib, &b, 4);
    return std::abs(ia - ib);
}

std::int64_t ulps_apart(double a, double b) {
    std::int64_t ia, ib;
    std::memcpy(&ia, &a, 8);
    std::memcpy(&ib, &b, 8);
    return ia > ib ? ia - ib : ib - ia;
}

}  // namespace

TEST_CASE("tanh' is accurate where tanh rounds to ±1", "[rules][accuracy]") {
    // Both sides of the double batches' switch from 1 - y² to 4s(1 - s), s = 1/(1 + e^(2|a|)),
    // at |a| = 0.625, in batches whose other lanes are near 0 or far from it.
    for (double a : {-30.0, -19.5, -13.0, -0.6, -0.2, 0.0, 0.3, 0.55, 0.624, 0.625, 0.7, 2.0, 13.0, 20.0, 300.0}) {
        const long double c = std::cosh((long double)a);
        check_partial<r::tanh>(a, 1 / (c * c), 0.1);
        check_partial<r::tanh>(a, 1 / (c * c), -3.0);
    }
    // 1 - y² was exactly 0 here (tanh(20) rounds to 1); the derivative is 1.7e-17.
    CHECK(r::tanh::partial(r::arg<0>, 20.0, r::tanh::eval(20.0)) > 1.6e-17);
    // Where cosh² (scalars) or e^(2|a|) (batches) overflows, the derivative was 0; it is
    // normal up to |a| ≈ 355.58 and subnormal up to 372: now within a few of its ulps.
    for (double a : {354.5, 355.5, -360.0, 370.0}) {
        INFO("tanh'(" << a << ")");
        const long double c = std::cosh((long double)a);
        const double exact = double(1 / (c * c));
        const double tolerance = std::max(4 * std::numeric_limits<double>::denorm_min(), 8e-16 * exact);
        CHECK(exact > 0);
        CHECK(std::fabs(r::tanh::partial(r::arg<0>, a, r::tanh::eval(a)) - exact) <= tolerance);
        const batch x(a);
        const batch d = r::tanh::partial(r::arg<0>, x, r::tanh::eval(x));
        CHECK(std::fabs(d.get(0) - exact) <= tolerance);
        CHECK(r::tanh::eval_with_partials(x).partial[0].get(0) == d.get(0));
    }
}

TEST_CASE("double batch tanh is xsimd's, within an ulp, its sign and special values as C's", "[rules][accuracy]") {
    // The batch value is xsimd's tanh (computed by gradc/math/hyperbolic_tangent.hpp from
    // xsimd's pieces, so that its derivative shares the exponential). Against long double:
    for (double a = -25; a <= 25; a += 0.00390625 * 3.1) {
        INFO("tanh(" << a << ")");
        const double exact = double(std::tanh((long double)a));
        const batch y = r::tanh::eval(batch(a));
        CHECK(ulps_apart(y.get(0), exact) <= 1);
        CHECK(y.get(0) == xsimd::tanh(batch(a)).get(0));
    }
    const double inf = std::numeric_limits<double>::infinity();
    for (double a : {0.0, -0.0, 1e-310, -1e-310, 0.5, -0.5, 19.0, 20.0, 1e300, -1e300, inf, -inf}) {
        INFO("tanh(" << a << ")");
        const double y = r::tanh::eval(batch(a)).get(0);
        CHECK(y == std::tanh(a));
        CHECK(std::signbit(y) == std::signbit(a));
    }
    CHECK(std::isnan(r::tanh::eval(batch(std::nan(""))).get(0)));
    CHECK(std::isnan(r::tanh::partial(r::arg<0>, batch(std::nan("")), batch(std::nan(""))).get(0)));
    CHECK(r::tanh::partial(r::arg<0>, batch(inf), batch(1.0)).get(0) == 0);
    CHECK(r::tanh::partial(r::arg<0>, batch(-0.0), batch(-0.0)).get(0) == 1);
}

TEST_CASE("double batch tanh with its derivative equals value and partial on every lane", "[rules][accuracy]") {
    // The fused form (what a gradient runs) evaluates both of tanh's forms on every lane and
    // keeps NaN, infinite and huge lanes without clamping them: each lane, whatever its
    // neighbours, must be `eval` and `partial` of that lane bit for bit.
    const double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
    const std::vector<double> special{nan, inf, -inf, 1e300, -1e300, 1e20, 710.0, -355.5, 354.5,
                                      0.0, -0.0, 1e-310, -1e-310, 0.3, -0.624, 0.625, 0.7, -20.0};
    for (std::size_t start = 0; start < special.size(); ++start) {
        alignas(64) double lanes[batch::size];
        for (std::size_t lane = 0; lane < batch::size; ++lane) lanes[lane] = special[(start + lane) % special.size()];
        const batch x = batch::load_aligned(lanes);
        const auto fused = r::tanh::eval_with_partials(x);
        for (std::size_t lane = 0; lane < batch::size; ++lane) {
            const double a = lanes[lane];
            INFO("tanh(" << a << ") in lane " << lane);
            const double y = r::tanh::eval(batch(a)).get(0);
            const double d = r::tanh::partial(r::arg<0>, batch(a), batch(y)).get(0);
            const double fy = fused.value.get(lane), fd = fused.partial[0].get(lane);
            if (std::isnan(a)) {
                CHECK((std::isnan(fy) && std::isnan(fd)));
                continue;
            }
            CHECK(std::bit_cast<std::uint64_t>(fy) == std::bit_cast<std::uint64_t>(y));
            CHECK(std::bit_cast<std::uint64_t>(fd) == std::bit_cast<std::uint64_t>(d));
            // C's value where it is exact (±1 far out, a itself near 0): the rest is xsimd's, above.
            if (std::fabs(a) >= 20 || std::fabs(a) < 1e-300) CHECK(fy == std::tanh(a));
        }
    }
}

TEST_CASE("float batch tanh is xsimd's, and its derivative within a few ulps", "[rules][accuracy]") {
    using float_batch = xsimd::batch<float>;
    for (float a = -12; a <= 12; a += 0.0123f) {
        INFO("tanh(" << a << ")");
        const float_batch x(a);
        const float_batch y = r::tanh::eval(x);
        CHECK(y.get(0) == xsimd::tanh(x).get(0));
        const long double c = std::cosh((long double)a);
        const float exact = float(1 / (c * c));
        CHECK(ulps_apart(r::tanh::partial(r::arg<0>, x, y).get(0), exact) <= 4);
    }
    // e^(2|a|) overflows float beyond 44.4; the derivative is normal up to 45 and subnormal
    // up to 52.
    for (float a : {44.5f, -45.5f, 50.0f}) {
        INFO("tanh'(" << a << ")");
        const long double c = std::cosh((long double)a);
        const float exact = float(1 / (c * c));
        const float_batch x(a);
        const float_batch d = r::tanh::partial(r::arg<0>, x, r::tanh::eval(x));
        CHECK(exact > 0);
        CHECK(std::fabs(d.get(0) - exact) <= std::max(4 * std::numeric_limits<float>::denorm_min(), 5e-7f * exact));
        CHECK(r::tanh::eval_with_partials(x).partial[0].get(0) == d.get(0));
    }
}

TEST_CASE("sigmoid' is accurate where sigmoid rounds to 1", "[rules][accuracy]") {
    for (double a : {-700.0, -30.0, -1.0, 0.0, 0.5, 3.0, 20.0, 37.0, 40.0, 700.0}) {
        const long double e = std::exp(-std::fabs((long double)a));
        check_partial<r::sigmoid>(a, e / ((1 + e) * (1 + e)), -0.25);
    }
}

TEST_CASE("expm1' is accurate where expm1 rounds to -1", "[rules][accuracy]") {
    for (double a : {-700.0, -40.0, -38.0, -5.0, -0.7, -0.69, 0.0, 1.0, 30.0})
        check_partial<r::expm1>(a, std::exp((long double)a), 0.5);
}

TEST_CASE("asin', acos' and atanh' are accurate near ±1", "[rules][accuracy]") {
    for (double a : {-1 + 1e-15, -0.999999, 0.5, 1 - 1e-12, 1 - 1.1102230246251565e-16}) {
        const long double one_minus_a2 = (1 - (long double)a) * (1 + (long double)a);
        check_partial<r::asin>(a, 1 / std::sqrt(one_minus_a2), 0.25);
        check_partial<r::acos>(a, -1 / std::sqrt(one_minus_a2), 0.25);
        check_partial<r::atanh>(a, 1 / one_minus_a2, 0.25);
    }
}

TEST_CASE("asinh' is 1/|a| where a² overflows, and 0 at ±inf", "[rules][accuracy]") {
    // 1/sqrt(a² + 1) was 0 beyond |a| ≈ 1.3e154 (the differential tester: asinh(cosh(x))
    // had derivative 0 at x = 700). Long double holds a² up to 1e4932.
    for (double a : {-1.7e308, -1e300, -1.5e154, -2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0, 1e10, 1.3e154, 1e200, 1e300}) {
        const long double x = a;
        check_partial<r::asinh>(a, 1 / std::sqrt(x * x + 1), 0.5);
    }
    const double inf = std::numeric_limits<double>::infinity();
    check_partial<r::asinh>(inf, 0, 0.5);
    check_partial<r::asinh>(-inf, 0, 0.5);
    CHECK(std::isnan(r::asinh::partial(r::arg<0>, std::nan(""), 0.0)));
    // float: a² overflows from 1.8e19.
    for (float a : {2.0f, 1e20f, -3e38f})
        CHECK(gradc::test::close(r::asinh::partial(r::arg<0>, a, 0.0f), 1 / std::sqrt((long double)a * a + 1), 4e-7, 0));
}

TEST_CASE("float batch erfc is 1 at ±0 and within 3 ulps near 0", "[rules][accuracy]") {
    // xsimd's float erfc was 1 - 2⁻²³ at ±0 (so asin(erfc(x)) had a finite derivative at 0
    // on batches, -inf on scalars) and 3–5 ulps low below |a| = 1/2.
    using fb = xsimd::batch<float>;
    for (float zero : {0.0f, -0.0f}) {
        CHECK(r::erfc::eval(fb(zero)).get(0) == 1.0f);
        CHECK(r::erfc::eval_with_partials(fb(zero)).value.get(0) == 1.0f);
        CHECK(std::isinf(r::asin::partial(r::arg<0>, r::erfc::eval(fb(zero)), fb(0.0f)).get(0)));
    }
    int worst = 0;
    for (int i = -2000; i <= 2000; ++i) {
        const float a = 0.7f * float(i) / 2000;  // across the switch at 1/2
        const float exact = float(std::erfc(double(a)));
        worst = std::max(worst, ulps_apart(r::erfc::eval(fb(a)).get(0), exact));
        worst = std::max(worst, ulps_apart(r::erfc::eval_with_partials(fb(a)).value.get(0), exact));
    }
    CHECK(worst <= 6);  // 3 below 1/2 (1 - erf), xsimd's own 6 above
    worst = 0;
    for (int i = -2000; i <= 2000; ++i) {
        const float a = 0.5f * float(i) / 2001;
        worst = std::max(worst, ulps_apart(r::erfc::eval(fb(a)).get(0), float(std::erfc(double(a)))));
    }
    CHECK(worst <= 3);
}

TEST_CASE("double batch erf and erfc are within a few ulps in their tail", "[rules][accuracy]") {
    // xsimd's double erfc beyond 2.2 was 3.5e4 ulps off at 2.2 and 5.6e7 at 26.5 (the
    // differential tester: batch and scalar gradients through erfc 6e-9 apart); gradc
    // computes that tail itself (gradc/math/erfc_tail.hpp). Each batch holds 8 points
    // spread over the range, so lanes of both branches meet in one batch.
    std::int64_t worst_erfc = 0, worst_below = 0, worst_erf = 0, worst_negative = 0;
    double worst_at = 0;
    constexpr int count = 40000;
    for (int i = 0; i < count; i += int(batch::size)) {
        alignas(64) double lanes[batch::size];
        for (std::size_t lane = 0; lane < batch::size; ++lane)  // 1.5 … 27.3, lanes far apart
            lanes[lane] = 1.5 + 25.8 * double((i + lane * (count / batch::size)) % count) / count;
        const batch x = batch::load_aligned(lanes);
        const batch c = r::erfc::eval(x), e = r::erf::eval(x), cn = r::erfc::eval(-x);
        const auto fused = r::erfc::eval_with_partials(x);
        for (std::size_t lane = 0; lane < batch::size; ++lane) {
            const long double a = lanes[lane];
            const double exact = double(std::erfc(a));
            if (a < 2.2L) {
                worst_below = std::max(worst_below, ulps_apart(c.get(lane), exact));
            } else if (ulps_apart(c.get(lane), exact) > worst_erfc) {
                worst_erfc = ulps_apart(c.get(lane), exact);
                worst_at = lanes[lane];
            }
            CHECK(fused.value.get(lane) == c.get(lane));  // the value alone and the fused one
            worst_erf = std::max(worst_erf, ulps_apart(e.get(lane), double(std::erf(a))));
            worst_negative = std::max(worst_negative, ulps_apart(cn.get(lane), double(std::erfc(-a))));
        }
    }
    INFO("erfc worst at " << worst_at);
    CHECK(worst_erfc <= 6);       // 3–4 measured
    CHECK(worst_below <= 41);     // xsimd's own branch below 2.2
    CHECK(worst_erf <= 2);        // 1 measured
    CHECK(worst_negative <= 2);   // 2 - erfc(|a|)
    // Subnormal results up to where erfc rounds to 0, and the limits.
    CHECK(r::erfc::eval(batch(27.2)).get(0) > 0);
    CHECK(r::erfc::eval(batch(27.3)).get(0) == 0);
    CHECK(r::erfc::eval(batch(std::numeric_limits<double>::infinity())).get(0) == 0);
    CHECK(r::erfc::eval(batch(-std::numeric_limits<double>::infinity())).get(0) == 2);
    CHECK(std::isnan(r::erfc::eval(batch(std::nan(""))).get(0)));
    // The derivatives ±2/√π·e^(-a²) are subnormal from 26.6 on: xsimd's exp gave 0 there,
    // in the fused call and in the partial alone; now both equal the scalar's (within the
    // few ulps of the rounding of a², which is a large share of a subnormal's bits).
    for (double a : {26.65, 26.7, 26.9, 27.2, -27.0}) {
        INFO("erf'(" << a << ")");
        const double scalar = r::erf::partial(r::arg<0>, a, 0.0);
        const double alone = r::erf::partial(r::arg<0>, batch(a), batch(0.0)).get(0);
        CHECK(alone > 0);
        CHECK(std::fabs(alone - scalar) <= 1e-3 * scalar);
        CHECK(r::erf::eval_with_partials(batch(a)).partial[0].get(0) == alone);
        CHECK(r::erfc::eval_with_partials(batch(a)).partial[0].get(0) == -alone);
    }
}

TEST_CASE("float erf and erfc: e^(-a²) within a few ulps, subnormal results included", "[rules][accuracy]") {
    // xsimd's float exp(-a·a) lost the rounding of a² times a² (64 ulps in the scalar rule's
    // partial too) and was 0 beyond |a| ≈ 9.3, where erfc and both partials are subnormal
    // floats: the batch erfc was 3.5e5 ulps off there and its partial 6.7e6. Scalars now
    // take e^(-a²) from double, batches correct it for a²'s rounding (gradc/math/error_function_batch.hpp)
    // and take its subnormal results from the batch exp's edge path. Batches hold 16 points spread over
    // [-10.5, 10.5], so lanes of every branch meet in one batch.
    using fb = xsimd::batch<float>;
    int worst_partial = 0, worst_scalar_partial = 0, worst_erfc = 0, worst_erf = 0;
    constexpr int count = 84000;
    for (int i = 0; i < count; i += int(fb::size)) {
        alignas(64) float lanes[fb::size];
        for (std::size_t lane = 0; lane < fb::size; ++lane)
            lanes[lane] = -10.5f + 21.0f * float((i + lane * (count / fb::size)) % count) / count;
        const fb x = fb::load_aligned(lanes);
        const fb c = r::erfc::eval(x), e = r::erf::eval(x);
        const fb dc = r::erfc::partial(r::arg<0>, x, c), de = r::erf::partial(r::arg<0>, x, e);
        const auto fused = r::erfc::eval_with_partials(x);
        for (std::size_t lane = 0; lane < fb::size; ++lane) {
            const long double a = lanes[lane];
            const long double g = 2 / std::sqrt(std::numbers::pi_v<long double>) * std::exp(-a * a);
            worst_partial = std::max({worst_partial, ulps_apart(dc.get(lane), float(-g)), ulps_apart(de.get(lane), float(g))});
            worst_scalar_partial = std::max(worst_scalar_partial, ulps_apart(r::erfc::partial(r::arg<0>, lanes[lane], 0.0f), float(-g)));
            worst_erfc = std::max(worst_erfc, ulps_apart(c.get(lane), float(std::erfc(a))));
            worst_erf = std::max(worst_erf, ulps_apart(e.get(lane), float(std::erf(a))));
            CHECK(fused.value.get(lane) == c.get(lane));  // the value alone and the fused one
            CHECK(fused.partial[0].get(lane) == dc.get(lane));
        }
    }
    CHECK(worst_partial <= 4);         // 3 measured
    CHECK(worst_scalar_partial <= 2);  // 2 measured (64 before)
    CHECK(worst_erfc <= 24);           // 17–19 measured at 7.9: xsimd's float polynomial
    CHECK(worst_erf <= 3);
    CHECK(r::erfc::eval(fb(10.0f)).get(0) > 0);  // 2.8e-45, the smallest float but one
    CHECK(r::erfc::partial(r::arg<0>, fb(-9.5f), fb(2.0f)).get(0) < 0);
    CHECK(std::isnan(r::erfc::partial(r::arg<0>, fb(std::nanf("")), fb(0.0f)).get(0)));
    CHECK(r::erf::partial(r::arg<0>, fb(std::numeric_limits<float>::infinity()), fb(1.0f)).get(0) == 0);
}

namespace {

/// erfinv's long-double reference: tests/difftest/reference.hpp's bisection of erf,
/// written without gradc's approximation.
long double erfinv_exact(long double x) { return gradc::difftest::reference::erfinv(x); }

/// Error of `value` in ulps of T at the exact `reference` (a finite nonzero normal T).
template <class T>
double ulps_from(T value, long double reference) {
    const T r = T(reference);
    const long double ulp = (long double)std::nextafter(std::fabs(r), std::numeric_limits<T>::infinity()) - std::fabs(r);
    return double(std::fabs((long double)value - reference) / ulp);
}

/// The grid of the erfinv accuracy tests: 40,001 evenly spaced points of [-0.99999, 0.99999]
/// (every branch of Giles's approximation and both sides of the Newton step's switch at
/// ½), and ±(1 - 10^-k) and ±10^-k for k up to 16 in steps of 1/8 (the far tail up to
/// 1 - 2⁻⁵³, and the series below 2⁻²⁰).
std::vector<double> erfinv_grid() {
    std::vector<double> g;
    for (int i = -20000; i <= 20000; ++i) g.push_back(0.99999 * i / 20000);
    for (int k = 8; k <= 8 * 16; ++k)
        for (const double s : {-1.0, 1.0}) {
            g.push_back(s * (1 - std::pow(10.0, -k / 8.0)));
            g.push_back(s * std::pow(10.0, -k / 8.0));
        }
    g.push_back(1 - 0x1p-53);
    g.push_back(-(1 - 0x1p-53));
    return g;
}

}  // namespace

TEST_CASE("erfinv at known values, doubles and double batches", "[rules][accuracy][erfinv]") {
    // mpmath, 40 digits, at the doubles nearest the decimal arguments (erfinv of the
    // decimal 0.999999 is 3.4589107372795000; the double 0.999999 is 2.9e-17 below it).
    using gradc::math::erfinv;
    const struct { double x; long double y; } known[] = {
        {0.5, 0.476936276204469873381418353643L}, {-0.9, -1.16308715367667416284409543405L},
        {1e-300, 8.86226925452758035857125653426e-301L}, {0.999999, 3.45891073727549877753244880360L},
        {1 - 0x1p-53, 5.86358474875516792720766258583L}};
    for (const auto& [x, y] : known) {
        INFO("erfinv(" << x << ")");
        CHECK(ulps_from(erfinv(x), y) <= 2);
        CHECK(ulps_from(gradc::rules::erfinv::eval(x), y) <= 2);
        CHECK(ulps_from(erfinv(batch(x)).get(0), y) <= 5);
        if (std::fabs(float(x)) < 1) CHECK(ulps_from(erfinv(float(x)), erfinv_exact(float(x))) <= 0.5);
    }
    CHECK(erfinv(0.5) == 0.4769362762044699);
    CHECK(erfinv(-0.9) == -1.1630871536766743);
    CHECK_THAT(erfinv(1e-300), gradc::test::is_close_to(0.886226925452758e-300, 1e-15, 0));
}

TEST_CASE("erfinv inverts erf and is within 2 ulps in double, ½ in float, 5 on batches", "[rules][accuracy][erfinv]") {
    // Measured on this grid against the bisection reference (AVX-512, g++ 12): double
    // scalars 1.53 ulps, double batches 3.4 (Giles's polynomials without the Newton
    // step), batch against scalar 4.0; floats (every 4099th float of (0, 1) too) 0.50 on
    // scalars and batches, the same float bit for bit. Over 3·10⁶ random points of
    // (-1, 1), magnitudes down to 1e-300 and up to 1 - 1e-16: 1.72, 4.67 and 5.0.
    using gradc::math::erfinv;
    using float_batch = xsimd::batch<float>;
    const std::vector<double> grid = erfinv_grid();
    double worst_scalar = 0, worst_batch = 0, worst_apart = 0, worst_float = 0, worst_float_batch = 0;
    std::size_t float_batches_differing = 0;
    for (std::size_t start = 0; start < grid.size(); start += batch::size) {
        alignas(64) double lanes[batch::size];
        for (std::size_t k = 0; k < batch::size; ++k) lanes[k] = grid[std::min(start + k, grid.size() - 1)];
        const batch yb = erfinv(batch::load_aligned(lanes));
        for (std::size_t k = 0; k < batch::size; ++k) {
            const double x = lanes[k];
            const long double exact = erfinv_exact(x);
            const double y = erfinv(x);
            INFO("erfinv(" << x << ")");
            worst_scalar = std::max(worst_scalar, ulps_from(y, exact));
            worst_batch = std::max(worst_batch, ulps_from(yb.get(k), exact));
            worst_apart = std::max(worst_apart, ulps_from(yb.get(k), (long double)y));
            // Round trip: erf(erfinv(x)) = x to the conditioning of erf (erf' ≤ 2/√π
            // times y's error, and erf's own rounding).
            CHECK(std::fabs(std::erf(y) - x) <= 2 * std::numeric_limits<double>::epsilon() * std::max(std::fabs(x), 0.1));
            if (std::fabs(x) > 0x1p-126 && std::fabs(x) < 1 - 0x1p-24) {
                const float xf = float(x);
                const long double exact_f = erfinv_exact((long double)xf);
                worst_float = std::max(worst_float, ulps_from(erfinv(xf), exact_f));
                const float in_batch = erfinv(float_batch(xf)).get(0);
                worst_float_batch = std::max(worst_float_batch, ulps_from(in_batch, exact_f));
                float_batches_differing += in_batch != erfinv(xf);
            }
        }
    }
    for (std::uint32_t bits = 0x00800000; bits < 0x3f800000; bits += 4099) {  // normal floats of (0, 1)
        const float x = std::bit_cast<float>(bits);
        const long double exact = erfinv_exact((long double)x);
        worst_float = std::max(worst_float, ulps_from(erfinv(x), exact));
        const float in_batch = erfinv(float_batch(x)).get(0);
        worst_float_batch = std::max(worst_float_batch, ulps_from(in_batch, exact));
        float_batches_differing += in_batch != erfinv(x);
    }
    CHECK(worst_scalar <= 2);
    CHECK(worst_batch <= 5);
    CHECK(worst_apart <= 5);
    CHECK(worst_float <= 0.5001);
    CHECK(worst_float_batch <= 0.5001);
    CHECK(float_batches_differing == 0);
}

TEST_CASE("erfinv's partial is √π/2·e^(y²) of its own value within a few ulps", "[rules][accuracy][erfinv]") {
    // The partial reads y: its error from y's own (2y² times y's relative error, 69 at
    // 1 - 2⁻⁵³) is the value's. Here it is checked against the closed form at the y it
    // is given, where e^(y²) has y²'s rounding put back (scalars and batches alike).
    namespace r = gradc::rules;
    for (const double x : erfinv_grid()) {
        const double y = r::erfinv::eval(x);
        const long double exact = std::sqrt(std::numbers::pi_v<long double>) / 2 * std::exp((long double)y * y);
        INFO("erfinv'(" << x << ") at y = " << y);
        CHECK(ulps_from(r::erfinv::partial(r::arg<0>, x, y), exact) <= 4);
        CHECK(ulps_from(r::erfinv::partial(r::arg<0>, batch(x), batch(y)).get(0), exact) <= 4);
    }
}

TEST_CASE("erfinv's special values on scalars and batches, float and double", "[rules][accuracy][erfinv]") {
    const auto check = []<class T>(T) {
        using gradc::math::erfinv;
        using B = xsimd::batch<T>;
        constexpr T inf = std::numeric_limits<T>::infinity();
        const T nan = std::numeric_limits<T>::quiet_NaN(), tiny = std::numeric_limits<T>::denorm_min();
        const auto same_bits = [](T a, T b) { return std::isnan(b) ? std::isnan(a) : a == b && std::signbit(a) == std::signbit(b); };
        for (const T x : {T(1), T(-1), T(1.5), T(-1.5), inf, -inf, nan, T(0), T(-0.0), tiny, -tiny, tiny * 1000,
                          std::numeric_limits<T>::min(), std::numeric_limits<T>::min() / 3, T(0x1p-21), T(0.5), T(-0.75)}) {
            const T y = erfinv(x);
            INFO("erfinv(" << x << ") = " << y);
            CHECK(same_bits(gradc::rules::erfinv::eval(x), y));
            // Batches equal scalars bit for bit at the special values and in the series.
            if (std::isnan(y) || std::isinf(y) || std::fabs(x) < T(0x1p-20) || sizeof(T) == 4)
                CHECK(same_bits(erfinv(B(x)).get(0), y));
            if (std::fabs(x) == 1) CHECK(y == std::copysign(inf, x));
            if (std::fabs(x) > 1 || std::isnan(x)) CHECK(std::isnan(y));
            if (x == 0) CHECK(same_bits(y, x));
            // Subnormal and tiny x: √π/2·x·(1 + π/12·x²) correctly rounded (the series, one
            // rounding of its small term; the smallest subnormal gives itself).
            if (x != 0 && std::fabs(x) < T(0x1p-20)) {
                const long double exact = std::sqrt(std::numbers::pi_v<long double>) / 2 * (long double)x *
                                          (1 + std::numbers::pi_v<long double> / 12 * (long double)x * x);
                CHECK(std::fabs((long double)y - exact) <= (long double)tiny / 2 + std::fabs(exact) * std::numeric_limits<T>::epsilon() / 2);
            }
        }
        // The derivative: +inf at ±1, NaN beyond and at NaN.
        namespace r = gradc::rules;
        for (const T x : {T(1), T(-1)}) {
            CHECK(r::erfinv::partial(r::arg<0>, x, r::erfinv::eval(x)) == inf);
            CHECK(r::erfinv::partial(r::arg<0>, B(x), r::erfinv::eval(B(x))).get(0) == inf);
        }
        for (const T x : {T(1.5), T(-2), nan}) {
            CHECK(std::isnan(r::erfinv::partial(r::arg<0>, x, r::erfinv::eval(x))));
            CHECK(std::isnan(r::erfinv::partial(r::arg<0>, B(x), r::erfinv::eval(B(x))).get(0)));
        }
        CHECK(r::erfinv::partial(r::arg<0>, T(0), T(0)) == T(std::sqrt(std::numbers::pi) / 2));
    };
    check(0.0);
    check(0.0f);
    // A batch mixing every branch and special lane gives each lane its own value.
    alignas(64) double lanes[batch::size];
    const double mixed[] = {0.3, -0.999, 1 - 1e-12, std::nan(""), -1.0, 1e-310, 2.0, -0.0};
    for (std::size_t k = 0; k < batch::size; ++k) lanes[k] = mixed[k % 8];
    const batch y = gradc::math::erfinv(batch::load_aligned(lanes));
    for (std::size_t k = 0; k < batch::size; ++k) {
        INFO("lane " << k << ": erfinv(" << lanes[k] << ")");
        const double s = gradc::math::erfinv(lanes[k]);
        if (std::isnan(s)) CHECK(std::isnan(y.get(k)));
        else if (std::isinf(s)) CHECK(y.get(k) == s);
        else CHECK(std::fabs(y.get(k) - s) <= 5 * std::numeric_limits<double>::epsilon() * std::fabs(s));
        if (lanes[k] == 0) CHECK(std::signbit(y.get(k)));
    }
}

GRADC_SIMD_DIAGNOSTICS_POP
