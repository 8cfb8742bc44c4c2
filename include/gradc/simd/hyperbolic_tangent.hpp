#pragma once
/// \file
/// tanh of a double batch, with its derivative from the same exponential
/// (`rules::hyperbolic_tangent`, rules/hyperbolic.hpp says what the rule needs).
///
/// The value is xsimd's tanh bit for bit, with NaN and huge lanes kept from its integer
/// conversion as before (`on_convertible_lanes`): where |a| < 0.625 a rational function
/// of a², elsewhere 1 - 2s with s = 1/(1 + e^(2|a|)). The derivative is 1 - y² near 0,
/// which does not cancel there (y² < 0.31), and 4s(1 - s) = 1/cosh²(a) elsewhere, from
/// the same s, with no cancellation as tanh rounds to ±1. In a gradient the derivative costs
/// three multiplications after the value, where the rule had computed cosh(a) and a
/// reciprocal after xsimd's tanh (docs/benchmarks.md, "tanh and its derivative from one
/// exponential"). Float batches keep xsimd's tanh and the rule's generic partial.

#include <type_traits>
#include <utility>

#include <gradc/rules/batch_integer_conversion.hpp>
#include <gradc/rules/hyperbolic.hpp>
#include <gradc/simd/config.hpp>

namespace gradc::rules {

namespace detail {

/// Below this |a| xsimd's rational function, from it on the exponential (xsimd's split).
inline constexpr double tanh_rational_limit = 0.625;

}  // namespace detail

/// tanh of a double batch and its derivative, sharing xsimd's exponential (the file
/// comment says how).
template <class A>
struct hyperbolic_tangent<xsimd::batch<double, A>> {
    using B = xsimd::batch<double, A>;  ///< The batch type.

    // The helpers take m = |b| of a lane clamped to ±1500 by `on_convertible_lanes`.

    /// tanh(m) for m < 0.625 (other lanes: garbage, to be discarded): xsimd's own
    /// rational function (called, not copied; another xsimd major version: its tanh).
    GRADC_RULE_INLINE static B near_zero(const B& m) {
#if XSIMD_VERSION_MAJOR == 8
        return xsimd::kernel::detail::tanh_kernel<B>::tanh(m);
#else
        return xsimd::tanh(m);
#endif
    }

    /// s = 1/(1 + e^(2m)), as xsimd's tanh computes it; tanh(m) = 1 - 2s.
    GRADC_RULE_INLINE static B reciprocal_term(const B& m) { return B(1.0) / (B(1.0) + xsimd::exp(m + m)); }

    /// tanh(m) = 1 - 2s, as xsimd's tanh computes it.
    GRADC_RULE_INLINE static B far_from_zero(const B& s) { return xsimd::fma(B(-2.0), s, B(1.0)); }

    /// 1/cosh²(m) = 4s(1 - s). 0 where e^(2m) overflows (m > 354.9), as the scalar
    /// 1/cosh² is where cosh² does (m > 355.4): a branch for the subnormal values between
    /// 355 and 372 made the mlp benchmark's gradient 10 % slower (docs/benchmarks.md).
    GRADC_RULE_INLINE static B derivative_far_from_zero(const B& s) { return B(4.0) * s * (B(1.0) - s); }

    /// tanh(a).
    GRADC_RULE_INLINE static B value(const B& a) {
        return on_convertible_lanes(a, [](const B& b) GRADC_LAMBDA_INLINE {
            const B m = xsimd::abs(b);
            const auto small = m < B(detail::tanh_rational_limit);
            if (xsimd::all(small)) return xsimd::copysign(near_zero(m), b);
            const B far = far_from_zero(reciprocal_term(m));
            if (!xsimd::any(small)) return xsimd::copysign(far, b);
            return xsimd::copysign(xsimd::select(small, near_zero(m), far), b);
        });
    }

    /// d tanh/da given y = tanh(a) as `value` computes it.
    GRADC_RULE_INLINE static B derivative(const B& a, const B& y) {
        return on_convertible_lanes(a, [&y](const B& b) GRADC_LAMBDA_INLINE {
            const B m = xsimd::abs(b);
            const auto small = m < B(detail::tanh_rational_limit);
            const B cheap = B(1.0) - y * y;
            if (xsimd::all(small)) return cheap;
            return xsimd::select(small, cheap, derivative_far_from_zero(reciprocal_term(m)));
        });
    }

    /// {tanh(a), d tanh/da}: equal to `value` and `derivative`, with one exponential.
    GRADC_RULE_INLINE static value_and_partials<B, 1> with_derivative(const B& a) {
        const auto [y, d] = on_convertible_lanes(a, [](const B& b) GRADC_LAMBDA_INLINE {
            const B m = xsimd::abs(b);
            const auto small = m < B(detail::tanh_rational_limit);
            if (xsimd::all(small)) {
                const B y_near = xsimd::copysign(near_zero(m), b);
                return std::pair<B, B>{y_near, B(1.0) - y_near * y_near};
            }
            const B s = reciprocal_term(m);
            const B far = far_from_zero(s);
            if (!xsimd::any(small)) return std::pair<B, B>{xsimd::copysign(far, b), derivative_far_from_zero(s)};
            const B y_mixed = xsimd::copysign(xsimd::select(small, near_zero(m), far), b);
            return std::pair<B, B>{y_mixed, xsimd::select(small, B(1.0) - y_mixed * y_mixed, derivative_far_from_zero(s))};
        });
        return {y, {d}};
    }
};

}  // namespace gradc::rules
