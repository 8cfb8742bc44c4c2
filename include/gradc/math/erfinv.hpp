#pragma once
/// \file
/// The inverse error function, erfinv(a) = y with erf(y) = a, on float, double, long
/// double and xsimd batches of float and double, with C-like special values:
/// erfinv(±1) = ±inf, erfinv(a) = NaN for |a| > 1 and for NaN, erfinv(±0) = ±0.
///
/// The approximation is M. Giles, "Approximating the erfinv function" (GPU Computing
/// Gems Jade Edition, 2010), double-precision version: with w = -log((1 - a)(1 + a)), a
/// polynomial p in w (w < 6.25), in √w (w < 16) or in √w again (beyond), and
/// erfinv(a) ≈ p·a. The published coefficients are used as published. Measured against
/// a long-double reference (tests/rules/test_accuracy.cpp), the polynomials alone are
/// within 5 ulps; one Newton step on erf (|a| ≤ ½) or erfc (|a| > ½, where 1 - |a| is
/// exact and erf(y) - a would lose the digits of 1 - a) brings the double scalar within
/// 2 ulps.
/// `inverse_gaussian(y)` = e^(y²) is the factor of its derivative, √π/2·e^(y²).

#include <cmath>
#include <cstddef>
#include <limits>
#include <numbers>
#include <type_traits>

#include <gradc/always_inline.hpp>
#include <gradc/math/exponential.hpp>
#include <gradc/math/square_rounding.hpp>
#include <gradc/math/value_traits.hpp>
#include <gradc/math/widened.hpp>
#include <gradc/math/xsimd.hpp>

namespace gradc::math {

namespace detail {

// Giles's coefficients, highest degree first: w - 3.125 for w < 6.25 ...
inline constexpr double erfinv_central[] = {
    -3.6444120640178196996e-21, -1.685059138182016589e-19,  1.2858480715256400167e-18,
    1.115787767802518096e-17,   -1.333171662854620906e-16,  2.0972767875968561637e-17,
    6.6376381343583238325e-15,  -4.0545662729752068639e-14, -8.1519341976054721522e-14,
    2.6335093153082322977e-12,  -1.2975133253453532498e-11, -5.4154120542946279317e-11,
    1.051212273321532285e-09,   -4.1126339803469836976e-09, -2.9070369957882005086e-08,
    4.2347877827932403518e-07,  -1.3654692000834678645e-06, -1.3882523362786468719e-05,
    0.0001867342080340571352,   -0.00074070253416626697512, -0.0060336708714301490533,
    0.24015818242558961693,     1.6536545626831027356};
// ... √w - 3.25 for 6.25 <= w < 16 ...
inline constexpr double erfinv_middle[] = {
    2.2137376921775787049e-09,  9.0756561938885390979e-08, -2.7517406297064545428e-07,
    1.8239629214389227755e-08,  1.5027403968909827627e-06, -4.013867526981545969e-06,
    2.9234449089955446044e-06,  1.2475304481671778723e-05, -4.7318229009055733981e-05,
    6.8284851459573175448e-05,  2.4031110387097893999e-05, -0.0003550375203628474796,
    0.00095328937973738049703,  -0.0016882755560235047313, 0.0024914420961078508066,
    -0.0037512085075692412107,  0.005370914553590063617,   1.0052589676941592334,
    3.0838856104922207635};
// ... and √w - 5 for w >= 16 (up to w ≈ 36.7 at 1 - 2⁻⁵³).
inline constexpr double erfinv_tail[] = {
    -2.7109920616438573243e-11, -2.5556418169965252055e-10, 1.5076572693500548083e-09,
    -3.7894654401267369937e-09, 7.6157012080783393804e-09,  -1.4960026627149240478e-08,
    2.9147953450901080826e-08,  -6.7711997758452339498e-08, 2.2900482228026654717e-07,
    -9.9298272942317002539e-07, 4.5260625972231537039e-06,  -1.9681778105531670567e-05,
    7.5995277030017761139e-05,  -0.00021503011930044477347, -0.00013871931833623122026,
    1.0103004648645343977,      4.8499064014085844221};

/// Below this |a| the series √π/2·a·(1 + π/12·a²) is erfinv(a) to far below an ulp (the
/// next term is 7π²/480·a⁴ relative, under 2⁻⁸²): w would be a² there, which
/// -log((1 - a)(1 + a)) loses entirely, and a Newton step on a subnormal y would be
/// rounded to the subnormal grid. The series needs neither, and keeps ±0 and subnormals.
inline constexpr double erfinv_series_below = 0x1p-20;
/// √π/2 - 1, so that the series is a + a·(√π/2 - 1 + ...): a is exact, and the rounding
/// of the small correction costs a tenth of an ulp, where a·(√π/2) would round twice.
inline constexpr double erfinv_series_k1 = -0.11377307454724198635;
/// √π/2·π/12, the series' cubic coefficient.
inline constexpr double erfinv_series_k3 = 0.23201366653465449355;
/// √π/2 = 1/erf'(0).
inline constexpr double half_sqrt_pi = 0.88622692545275801365;

/// Horner's rule over coefficients c (highest degree first), with plain multiplications
/// and additions so that scalars and batches round alike and no FMA library call is made
/// where the target has no FMA instruction.
template <class T, std::size_t N>
GRADC_ALWAYS_INLINE inline T horner(const double (&c)[N], const T& w) {
    T p(c[0]);
    for (std::size_t i = 1; i < N; ++i) p = p * w + T(c[i]);
    return p;
}

/// Giles's approximation p(w)·a for 2⁻²⁰ <= a < 1 (a = |x|).
GRADC_ALWAYS_INLINE inline double erfinv_polynomial(double a) {
    // (1 - a)(1 + a) is accurate to about an ulp over all of [0, 1) (1 - a is exact from
    // ½ on), so w errs by about 2⁻⁵² absolute; p' is small enough there (about 0.24 at
    // w = 0) that this costs well under an ulp, and below 2⁻²⁰ the series takes over.
    const double w = -std::log((1 - a) * (1 + a));
    double p;
    if (w < 6.25) p = horner(erfinv_central, w - 3.125);
    else if (w < 16) p = horner(erfinv_middle, std::sqrt(w) - 3.25);
    else p = horner(erfinv_tail, std::sqrt(w) - 5);
    return p * a;
}

}  // namespace detail

/// erfinv(x) in double: Giles's approximation and one Newton step, within 2 ulps of the
/// true value (tests/rules/test_accuracy.cpp); ±1 → ±inf, |x| > 1 or NaN → NaN, ±0 → ±0,
/// tiny and subnormal x → √π/2·x rounded about once.
inline double erfinv(double x) {
    const double a = std::fabs(x);
    if (!(a < 1)) return a == 1 ? std::copysign(std::numeric_limits<double>::infinity(), x)
                                : std::numeric_limits<double>::quiet_NaN();
    double y;
    if (a < detail::erfinv_series_below) {
        y = a + a * (detail::erfinv_series_k1 + detail::erfinv_series_k3 * (a * a));
    } else {
        const double y0 = detail::erfinv_polynomial(a);
        // f(y) = erf(y) - a, f'(y) = 2/√π·e^(-y²). Beyond ½, f = (1 - a) - erfc(y): 1 - a is
        // exact there and erfc is accurate relative to itself, where erf(y) - a would
        // cancel to a few digits near 1. The polynomial's error is so small that the
        // step's own quadratic term is far below an ulp.
        const double f = a <= 0.5 ? std::erf(y0) - a : (1 - a) - std::erfc(y0);
        y = y0 - f * (detail::half_sqrt_pi * std::exp(y0 * y0));
    }
    return std::copysign(y, x);
}

/// erfinv(x) in float: the double value rounded once (correctly rounded but for a double
/// within 2 ulps of a float rounding boundary; tests/rules/test_accuracy.cpp measures it
/// over every float in (-1, 1)).
inline float erfinv(float x) { return static_cast<float>(erfinv(static_cast<double>(x))); }

/// erfinv(x) in long double, for references and accuracy measurements: the double value
/// refined by Newton steps on erfl/erfcl until a step no longer changes it (at most 6;
/// one or two do where the double value is already within a few of its ulps). Where |x|
/// rounds to 1 in double, the start is the tail's leading term √(-log(1 - |x|)).
inline long double erfinv(long double x) {
    const long double a = std::fabs(x);
    if (!(a < 1)) return a == 1 ? std::copysign(std::numeric_limits<long double>::infinity(), x)
                                : std::numeric_limits<long double>::quiet_NaN();
    if (a < 0x1p-40L) {  // the series' next term is 2⁻¹⁶⁰ relative
        const long double k1 = std::numbers::inv_sqrtpi_v<long double> * std::numbers::pi_v<long double> / 2 - 1;
        const long double k3 = std::numbers::pi_v<long double> / std::numbers::inv_sqrtpi_v<long double> / 24;
        return std::copysign(a + a * (k1 + k3 * (a * a)), x);
    }
    const double start = static_cast<double>(a);
    long double y = start < 1 ? static_cast<long double>(erfinv(start)) : std::sqrt(-std::log(1 - a));
    for (int step = 0; step < 6; ++step) {
        const long double f = a <= 0.5L ? std::erf(y) - a : (1 - a) - std::erfc(y);
        const long double next = y - f * (1 / (2 * std::numbers::inv_sqrtpi_v<long double>) * std::exp(y * y));
        if (next == y) break;
        y = next;
    }
    return std::copysign(y, x);
}

namespace kernel {

/// erfinv on a double batch: Giles's polynomials with xsimd's log and sqrt, each
/// evaluated only when a lane needs it (the central one alone up to |x| ≈ 0.998), and
/// the scalar's series below 2⁻²⁰ and special values. No Newton step: it needs erf and
/// erfc accurate to an ulp, and the batch erf and erfc are xsimd's rational functions,
/// 24 and 30 ulps off (gradc's own tail, erfc_tail.hpp, only from 2.2 on). So the batch
/// is within 5 ulps of the true value and of the scalar's (which takes the step), not
/// bit for bit; the series lanes and the special values are the scalar's bit for bit
/// (tests/rules/test_accuracy.cpp measures both).
template <class A>
inline xsimd::batch<double, A> erfinv(const xsimd::batch<double, A>& x, requires_arch<xsimd::generic>) {
    using B = xsimd::batch<double, A>;
    const B a = xsimd::abs(x);
    const auto inside = a < B(1);  // false at NaN
    // Lanes outside (-1, 1) run as ½ and are replaced at the end, so that no log sees a
    // negative number or 0 and no such lane asks for a branch.
    const B s = xsimd::select(inside, a, B(0.5));
    const B w = -xsimd::log((B(1) - s) * (B(1) + s));
    const auto central = w < B(6.25);
    B p(0.0);
    if (xsimd::any(central)) p = detail::horner(detail::erfinv_central, B(w - B(3.125)));
    if (!xsimd::all(central)) [[unlikely]] {
        const B r = xsimd::sqrt(w);
        const auto tail = w >= B(16);
        const auto middle = (!central) & (!tail);
        if (xsimd::any(middle)) p = xsimd::select(middle, detail::horner(detail::erfinv_middle, B(r - B(3.25))), p);
        if (xsimd::any(tail)) p = xsimd::select(tail, detail::horner(detail::erfinv_tail, B(r - B(5))), p);
    }
    B y = p * s;
    const auto series = s < B(detail::erfinv_series_below);
    if (xsimd::any(series))
        y = xsimd::select(series, s + s * (B(detail::erfinv_series_k1) + B(detail::erfinv_series_k3) * (s * s)), y);
    const B outside = xsimd::select(a == B(1), B(std::numeric_limits<double>::infinity()),
                                    B(std::numeric_limits<double>::quiet_NaN()));
    return xsimd::copysign(xsimd::select(inside, y, outside), x);
}

}  // namespace kernel

/// erfinv on a double batch (`kernel::erfinv`: within 5 ulps).
template <class A>
GRADC_ALWAYS_INLINE inline xsimd::batch<double, A> erfinv(const xsimd::batch<double, A>& x) {
    return kernel::erfinv(x, A{});
}

/// erfinv on a float batch: the lanes widened to two double batches, computed there and
/// rounded to float once, as the float scalar is. The double batch's few ulps are 2⁻²⁹
/// of a float ulp, so batch and scalar round to the same float but where a double lies
/// that close to a float rounding boundary (none in the test's grid of floats).
template <class A>
inline xsimd::batch<float, A> erfinv(const xsimd::batch<float, A>& x) {
    return widened_to_double([](const xsimd::batch<double, A>& d) { return math::erfinv(d); }, x);
}

/// e^(y²), the factor of erfinv's derivative: floats in double (y² exact there), doubles
/// and batches with the rounding error of y² put back, e^(y²) = e^s·e^(y² - s) ≈
/// e^s·(1 + e) with s = y·y and e = y² - s (`detail::square_rounding`): without it, the
/// error of y² (up to 2⁻⁵³·y², y² up to 34.4 in double) is multiplied into the derivative
/// (13 ulps at y = 2.05 on batches). Dual numbers and tensors (second order, the dynamic
/// mode) compute e^(y·y).
template <class T>
GRADC_ALWAYS_INLINE inline T inverse_gaussian(const T& y) {
    if constexpr (std::is_same_v<T, float>) {
        return float(std::exp(double(y) * double(y)));
    } else if constexpr (simd_batch<T> || std::is_same_v<T, double>) {
        using std::isfinite;
        using K = scalar_t<T>;
        const T s = y * y;
        const T e = detail::square_rounding(y, s);  // NaN at y = ±inf: dropped
        return math::exp(s) * (K(1) + if_else<T>(isfinite(s), e, T(K(0))));
    } else {
        return math::exp(T(y * y));
    }
}

}  // namespace gradc::math
