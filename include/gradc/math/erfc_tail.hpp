#pragma once
/// \file
/// erfc of double SIMD batches in its tail, |a| ≥ 2.2, where xsimd 8.1 evaluates e^(-a²)
/// times a rational function that is 3.5·10⁴ ulps off at 2.2, 1.4·10³ at 6 and 5.6·10⁷ at
/// 26.5 (measured against long double; the C library is within 2 ulps). `erfc_tail`
/// computes e^(-x²)/(x·√π)·h(1/x) with x = |a|: h a polynomial of degree 20 interpolated
/// in Chebyshev points (tools/erfc_tail_coefficients.py, 2.5·10⁻¹⁷ relative), and e^(-x²)
/// corrected for the rounding of x² (otherwise a relative error of 2⁻⁵³·x², 340 ulps at
/// 26): 3–4 ulps in all. The batch erf and erfc (error_function_batch.hpp) use it in their tail branch
/// instead of xsimd's rational function.

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <numbers>

#include <gradc/math/square_rounding.hpp>
#include <gradc/math/value_traits.hpp>
#include <gradc/math/xsimd.hpp>

namespace gradc::math {

namespace detail {

/// erfc(x) = e^(-x²)/(x·√π)·h(u) for 2.2 ≤ x ≤ 28, u = t·scale + offset ∈ [-1, 1],
/// t = 1/x; h's coefficients in powers of u (tools/erfc_tail_coefficients.py).
inline constexpr double erfc_tail_u_scale = 4.775193798449612;
inline constexpr double erfc_tail_u_offset = -1.1705426356589148;
inline constexpr std::array<double, 21> erfc_tail_coefficients{
    0.9723248418910385,
    -0.04372383390377983,
    -0.013291730344184838,
    0.003581077641233904,
    -7.260095226029699e-05,
    -0.00020332511225196426,
    6.188431562284373e-05,
    -2.1611469198286252e-06,
    -5.074499905599641e-06,
    2.094849804884818e-06,
    -2.60533342368609e-07,
    -1.4118883697877224e-07,
    9.521643082459319e-08,
    -2.5154483799333696e-08,
    -1.248699877742156e-09,
    4.512769804187832e-09,
    -2.185687095912876e-09,
    2.927876075429546e-10,
    2.298190398474979e-10,
    -1.0958765611602684e-10,
    1.0918929774977013e-11,
};

}  // namespace detail

/// erfc(x) of a double batch for x ≥ 2.2 (lanes below give garbage, to be discarded),
/// given xx = x·x and g = e^(-xx) as the batch `math::exp` computes it: with its
/// subnormal values where x > 26.6 (xsimd's exp gives 0 there, and erfc is not 0 until
/// 27.3).
template <class B>
GRADC_ALWAYS_INLINE inline B erfc_tail(const B& x, const B& xx, const B& g) {
    using K = scalar_t<B>;
    const B gaussian = g - g * detail::square_rounding(x, xx);  // e^(-xx - lo) = e^(-xx)·(1 - lo) + O(lo²)
    const B t = K(1) / x;
    const B u = t * K(detail::erfc_tail_u_scale) + K(detail::erfc_tail_u_offset);
    // Horner's rule: Estrin's scheme (a chain of 6 multiply-adds instead of 20) measured
    // no faster in the Black-Scholes benchmark, whose two erfc overlap the rest anyway.
    constexpr auto& c = detail::erfc_tail_coefficients;
    B h(K(c.back()));
    for (std::size_t k = c.size() - 1; k-- > 0;) h = h * u + K(c[k]);
    return gaussian * (h * (t * K(std::numbers::inv_sqrtpi)));
}

}  // namespace gradc::math
