#pragma once
/// \file
/// erf and erfc of xsimd batches, each with the e^(-a²) its derivative needs.
///
/// xsimd 8 evaluates erf(a) and erfc(a) as e^(-a²) times a rational function on most of
/// their range, and the derivative of either is ±2/√π·e^(-a²): returning the exponential
/// it computes saves one `exp` per erf/erfc node of a gradient (Black-Scholes has two).
/// `error_function_batch` follows xsimd's own (`arch/generic/xsimd_generic_math.hpp`, the
/// same branches and polynomials, called from xsimd, not copied), except in the double
/// tail |a| ≥ 2.2, where xsimd's rational function is up to 5.6·10⁷ ulps off and
/// `erfc_tail` (erfc_tail.hpp) computes erfc from the same e^(-a²) to 3–4 ulps. The
/// value alone (`math::erf`) calls it too, so a value alone and the fused value and
/// partial agree bit for bit (tests/rules/test_fused.cpp checks it); the value alone
/// skips e^(-a²) when every lane is near 0, as xsimd does. Another xsimd major version
/// falls back to two separate calls (and xsimd's tail).
///
/// Where else xsimd 8.1's erf and erfc differ from C's, mended after the fact:
///  - both were NaN for |a| beyond about 1e38 (their rational tail overflows): beyond 30
///    erf is ±1 and erfc 0 or 2 in float and double (`error_function_tail`);
///  - float erfc was 3 ulps low near 0, erfc(±0) = 1 - 2⁻²³ instead of 1 (so the float
///    batch derivative of asin(erfc(x)) at 0 was finite where the scalar's is -inf).

#include <cmath>
#include <type_traits>
#include <utility>

#include <gradc/math/erfc_tail.hpp>
#include <gradc/math/exponential.hpp>
#include <gradc/math/square_rounding.hpp>
#include <gradc/math/value_traits.hpp>
#include <gradc/math/xsimd.hpp>

namespace gradc::math {

/// Which error function a batch form computes.
enum class error_function { erf, erfc };

/// erf and erfc of a batch with e^(-a²): one xsimd evaluation for both.
template <error_function F, class T, class A>
struct error_function_batch {
    using B = xsimd::batch<T, A>;  ///< The batch type.

    /// Whether the forms below keep every lane from xsimd's integer conversion themselves
    /// (`on_convertible_lanes` then calls them directly): with xsimd 8 they call xsimd's exp only on batches
    /// whose lanes are all small, and `math::exp`, which keeps NaN, infinite and huge
    /// lanes from xsimd's integer conversion itself, everywhere else; what a huge lane
    /// gives is replaced by `error_function_tail`. Another xsimd's erf and erfc convert.
    static constexpr bool keeps_lanes_from_conversion = XSIMD_VERSION_MAJOR == 8;

    /// {erf(a) or erfc(a), e^(-a²)}.
    static std::pair<B, B> apply(const B& a) {
#if XSIMD_VERSION_MAJOR == 8
        if constexpr (F == error_function::erf) {
            return erf(a);
        } else {
            return erfc(a);
        }
#else
        return {F == error_function::erf ? xsimd::erf(a) : xsimd::erfc(a), gaussian(a)};
#endif
    }

    /// e^(-a²), subnormal results included; for float batches corrected for the rounding of a² (e^(-hi)·(1 - lo) with
    /// hi + lo = a² exactly, `detail::square_rounding`), with results below float's
    /// smallest normal from the batch `math::exp`'s edge path. xsimd's float exp(-a·a) lost the
    /// rounding of a² times a² (20 ulps at a = 4, 58 in erfc's tail) and flushed results
    /// below float's smallest normal (|a| > 9.3) to 0, where the scalar rule gives the
    /// subnormal. The scalar float `gaussian` computes e^(-a²) in double (error_function.hpp).
    static B gaussian(const B& a) {
        if constexpr (std::is_same_v<T, double>) {
            // xsimd's exp gives 0 where e^(-a²) is subnormal (|a| > 26.6); `math::exp`'s
            // edge path keeps those lanes, here and in the fused erf/erfc below.
            return math::exp(B(-(a * a)));
        } else {
            const B x = xsimd::abs(a);
            const B hi = x * x;
            const B g = math::exp(B(-hi));
            const B r = g - g * detail::square_rounding(x, hi);  // e^(-hi - lo) = e^(-hi)·(1 - lo) + O(lo²)
            // Where a² overflows, the correction is inf or NaN and g is 0: keep the 0.
            return xsimd::select(g == B(0.0f), g, r);
        }
    }

    /// Whether every lane of a double batch is ordinary for erf and erfc: |a| < 26.5, so
    /// e^(-a²) is a normal number from xsimd's exp, no lane is NaN, infinite or in the far
    /// tail, and `apply_ordinary` gives every lane what `apply` gives it. One comparison
    /// per batch; float batches are never taken as ordinary (their forms differ).
    static bool ordinary(const B& a) {
#if XSIMD_VERSION_MAJOR == 8
        if constexpr (std::is_same_v<T, double>) return xsimd::all(xsimd::abs(a) < B(26.5));
#endif
        (void)a;
        return false;
    }

    /// `apply` on a batch that `ordinary` accepts: xsimd's exp without the range checks of
    /// `math::exp` (equal to it on such lanes).
    static std::pair<B, B> apply_ordinary(const B& a) {
#if XSIMD_VERSION_MAJOR == 8
        if constexpr (F == error_function::erf) {
            return erf<true, true>(a);
        } else {
            return erfc<true, true>(a);
        }
#else
        return apply(a);
#endif
    }

    /// erf(a) or erfc(a) alone: the same value as `apply`'s, without e^(-a²) in batches
    /// whose lanes are all near 0.
    static B value(const B& a) {
#if XSIMD_VERSION_MAJOR == 8
        if constexpr (F == error_function::erf) {
            return erf<false>(a).first;
        } else {
            return erfc<false>(a).first;
        }
#else
        return F == error_function::erf ? xsimd::erf(a) : xsimd::erfc(a);
#endif
    }

#if XSIMD_VERSION_MAJOR == 8
    using kernel = xsimd::kernel::detail::erf_kernel<B>;

    static B infinity_to(const B& x, const B& to, const B& r) {
#ifndef XSIMD_NO_INFINITIES
        return xsimd::select(xsimd::isinf(x), to, r);
#else
        (void)x;
        (void)to;
        return r;
#endif
    }

    /// e^(-xx) where the caller wants it, 0 where it only wants the value: in a batch of
    /// small lanes the value does not need it (xsimd skips it there too).
    template <bool Gaussian>
    static B gaussian_if(const B& xx) {
        if constexpr (Gaussian) return xsimd::exp(-xx);
        else return B(T(0));
    }

    /// e^(-xx) of lanes that are not all small: xsimd's on an ordinary batch, else the
    /// batch `math::exp`, which keeps subnormal results and NaN and huge lanes.
    template <bool Ordinary>
    static B gaussian_of_square(const B& xx) {
        if constexpr (Ordinary) return xsimd::exp(-xx);
        else return math::exp(B(-xx));
    }

    template <bool Gaussian = true, bool Ordinary = false>
    static std::pair<B, B> erfc(const B& self) {
        const B x = xsimd::abs(self);
        const auto negative = self < B(T(0));
        if constexpr (std::is_same_v<T, double>) {
            const B xx = x * x;
            const auto small = x < B(0.65);
            B r(0.);
            if (xsimd::any(small)) {
                r = B(1.) - x * kernel::erf1(xx);
                if (xsimd::all(small)) return {xsimd::select(negative, B(2.) - r, r), gaussian_if<Gaussian>(xx)};
            }
            const B g = gaussian_of_square<Ordinary>(xx);  // subnormal lanes kept, as `gaussian`
            const auto medium_or_small = x < B(2.2);
            const auto medium = medium_or_small && !small;
            if (xsimd::any(medium)) {
                r = xsimd::select(small, r, g * kernel::erfc2(x));
                if (xsimd::all(small || medium)) return {xsimd::select(negative, B(2.) - r, r), g};
            }
            r = xsimd::select(medium_or_small, r, erfc_tail(x, xx, g));
            r = infinity_to(x, B(0.), r);
            return {xsimd::select(negative, B(2.) - r, r), g};
        } else {
            const B g = gaussian(x);
            const auto small = x < B(2.f / 3.f);
            B z = x / (B(1.) + x);
            B r(0.);
            if (xsimd::any(small)) {
                r = kernel::erfc3(z);
                if (xsimd::all(small)) return {xsimd::select(negative, B(2.) - r, r), g};
            }
            z -= B(0.4f);
            r = xsimd::select(small, r, g * kernel::erfc2(z));
            r = infinity_to(x, B(0.), r);
            return {xsimd::select(negative, B(2.) - r, r), g};
        }
    }

    template <bool Gaussian = true, bool Ordinary = false>
    static std::pair<B, B> erf(const B& self) {
        const B x = xsimd::abs(self);
        if constexpr (std::is_same_v<T, double>) {
            const B xx = x * x;
            const auto small = x < B(0.65);
            B r(0.);
            if (xsimd::any(small)) {
                r = self * kernel::erf1(xx);
                if (xsimd::all(small)) return {r, gaussian_if<Gaussian>(xx)};
            }
            const B g = gaussian_of_square<Ordinary>(xx);  // subnormal lanes kept, as `gaussian`
            const auto medium_or_small = x < B(2.2);
            const auto medium = medium_or_small && !small;
            if (xsimd::any(medium)) {
                const B z = B(1.) - g * kernel::erfc2(x);
                r = xsimd::select(small, r, xsimd::select(self < B(0.), -z, z));
                if (xsimd::all(small || medium)) return {r, g};
            }
            B z = B(1.) - erfc_tail(x, xx, g);
            z = xsimd::select(self < B(0.), -z, z);
            z = infinity_to(self, xsimd::sign(self), z);
            return {xsimd::select(medium_or_small, r, z), g};
        } else {
            const B g = gaussian(x);
            const auto small = x < B(2.f / 3.f);
            B r(0.);
            if (xsimd::any(small)) {
                r = self * kernel::erf1(x * x);
                if (xsimd::all(small)) return {r, g};
            }
            B z = x / (B(1.) + x);
            z -= B(0.4f);
            B r2 = B(1.) - g * kernel::erfc2(z);
            r2 = xsimd::select(self < B(0.), -r2, r2);
            r = xsimd::select(small, r, r2);
            r = infinity_to(self, xsimd::sign(self), r);
            return {r, g};
        }
    }
#endif
};


/// erf(a) (Erfc = false) or erfc(a) (Erfc = true) of a batch given its result `r` that may
/// be NaN far in the tail: beyond |a| = 30 erf is ±1 and erfc is 0 or 2 in float and double.
template <bool Erfc, class T>
GRADC_ALWAYS_INLINE inline T error_function_tail(const T& a, const T& r) {
    using K = scalar_t<T>;
    const auto far = xsimd::abs(a) > K(30);
    if (!xsimd::any(far)) return r;
    const T tail = Erfc ? if_else<T>(a < K(0), T(K(2)), T(K(0))) : if_else<T>(a < K(0), T(K(-1)), T(K(1)));
    return if_else<T>(far, tail, r);
}

/// erfc(a) of a float batch given xsimd's result `r`: 1 - erf(a) for |a| < 1/2, as C
/// libraries do near 0. xsimd's float erfc there is a polynomial in a/(1+a) that is
/// 3–5 ulps low (1 - 2⁻²³ at 0); 1 - erf(a) loses at most one bit to cancellation, since
/// erfc ≥ 0.48 there, and measured 1–3 ulps against the double erfc rounded to float
/// (docs/reliability.md, "Accuracy of the rules"). Only batches with such a lane pay for the
/// erf. Double batches compute erfc near 0 as 1 - erf already.
template <class T>
GRADC_ALWAYS_INLINE inline T erfc_near_zero(const T& a, const T& r) {
    if constexpr (!std::is_same_v<scalar_t<T>, float>) {
        return r;
    } else {
        using K = scalar_t<T>;
        const auto near = xsimd::abs(a) < K(0.5);
        if (!xsimd::any(near)) return r;
        return if_else<T>(near, K(1) - xsimd::erf(a), r);
    }
}

}  // namespace gradc::math
