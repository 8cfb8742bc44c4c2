#pragma once
/// \file
/// tanh of a batch, with its derivative from the same exponential (`tanh_batch`, called
/// by `math::tanh`, `math::tanh_derivative` and `math::tanh_with_derivative`).
///
/// The value is xsimd's tanh bit for bit, with NaN and huge lanes kept from its integer
/// conversion as before (`on_convertible_lanes`): where |a| < 0.625 a rational function
/// of a², elsewhere 1 - 2s with s = 1/(1 + e^(2|a|)). The derivative is 1 - y² near 0,
/// which does not cancel there (y² < 0.31), and 4s(1 - s) = 1/cosh²(a) elsewhere, from
/// the same s, with no cancellation as tanh rounds to ±1 (and 4e^(-2|a|) where e^(2|a|)
/// overflows, so that it is not 0 where it is a normal or subnormal number). In a
/// gradient the derivative costs three multiplications after the value, where the rule
/// had computed cosh(a) and a reciprocal after xsimd's tanh (docs/benchmark-history.md,
/// "tanh and its derivative from one exponential"). Float batches the same, with xsimd's
/// float rational function.

#include <cstdint>
#include <type_traits>
#include <utility>

#include <gradc/math/exponential.hpp>
#include <gradc/math/integer_conversion.hpp>
#include <gradc/math/value_traits.hpp>
#include <gradc/math/xsimd.hpp>

namespace gradc::math {

namespace detail {

/// Below this |a| xsimd's rational function, from it on the exponential (xsimd's split,
/// for float and double).
inline constexpr double tanh_rational_limit = 0.625;

}  // namespace detail

/// tanh of a batch and its derivative, sharing xsimd's exponential (the file comment
/// says how).
template <class T, class A>
struct tanh_batch {
    using B = xsimd::batch<T, A>;  ///< The batch type.

    /// Whether the forms below keep every lane from xsimd's integer conversion themselves
    /// (`on_convertible_lanes` then calls them directly): with xsimd 8 they assemble the
    /// exponential from its pieces with a defined conversion (`times_power_of_two`), so NaN
    /// stays NaN and exp's selects give huge and infinite lanes their limits. With another
    /// xsimd they call its exp, and double lanes are clamped to ±1500.
    static constexpr bool keeps_lanes_from_conversion = XSIMD_VERSION_MAJOR == 8;

    // The helpers below call xsimd's pieces (the double rational function's p and q, exp's reduction,
    // polynomial and scaling) with the operations of xsimd's own tanh_kernel::tanh and
    // exp, not those two functions (float's rational function, one short polynomial, is
    // called whole): g++ inlines a function that is not forced inline only
    // while the translation unit's growth budget lasts (--param inline-unit-growth), and it
    // left those two out of line in the mlp kernel's loops, where every call spills every
    // live batch (all vector registers are caller-saved). The pieces are small enough to
    // be inlined (docs/benchmark-history.md, "tanh's second derivative from one
    // exponential").

    /// tanh(m) for m < 0.625 (other lanes: garbage, to be discarded): xsimd's own
    /// rational function (called, not copied; another xsimd major version: its tanh).
    GRADC_ALWAYS_INLINE inline static B near_zero(const B& m) {
#if XSIMD_VERSION_MAJOR == 8
        using kernel = xsimd::kernel::detail::tanh_kernel<B>;
        if constexpr (std::is_same_v<T, double>) {
            const B z = m * m;
            return xsimd::fma(z * kernel::p(z) / kernel::q(z), m, m);
        } else {
            return kernel::tanh(m);
        }
#else
        return xsimd::tanh(m);
#endif
    }

    /// c·2^k for an integer-valued k, as xsimd's ldexp computes it (c times the double whose
    /// bits are (k + 1023) << 52), but with k + 1023 read from the low bits of
    /// k + 1.5·2⁵² + 1023 (exact for |k| < 2⁵¹): defined for every lane, where xsimd's int64
    /// conversion of a NaN or huge k is undefined behaviour (integer_conversion.hpp).
    /// So tanh needs no clamp (`keeps_lanes_from_conversion`): exp's selects replace those
    /// lanes' results.
    /// Float batches convert with a defined instruction and keep xsimd's ldexp.
    GRADC_ALWAYS_INLINE inline static B times_power_of_two(const B& c, const B& k) {
        if constexpr (std::is_same_v<T, double>) {
            using bits = xsimd::batch<std::uint64_t, A>;
            const bits biased = xsimd::bitwise_cast<bits>(k + B(0x1.8p52 + 1023));
            return c * xsimd::bitwise_cast<B>(biased << 52);
        } else {
            return xsimd::ldexp(c, xsimd::to_int(k));
        }
    }

    /// e^x as xsimd's exp computes it, from its range reduction, polynomial and scaling
    /// (called, not copied; another xsimd major version: its exp).
    GRADC_ALWAYS_INLINE inline static B exp_inline(const B& x) {
#if XSIMD_VERSION_MAJOR == 8
        namespace xsimd_detail = xsimd::kernel::detail;
        using reducer = xsimd_detail::exp_reduction<T, A, xsimd_detail::exp_tag>;
        B k, c;  // x = k·log 2 + r, and c = e^r
        if constexpr (std::is_same_v<T, double>) {
            B hi, lo, r;
            k = reducer::reduce(x, hi, lo, r);
            c = reducer::finalize(r, reducer::approx(r), hi, lo);
        } else {
            B r;
            k = reducer::reduce(x, r);
            c = reducer::approx(r);
        }
        c = xsimd::select(x <= reducer::minlog(), B(T(0)), times_power_of_two(c, k));
        return xsimd::select(x >= reducer::maxlog(), xsimd::constants::infinity<B>(), c);
#else
        return xsimd::exp(x);
#endif
    }

    /// s = 1/(1 + e^(2m)), as xsimd's tanh computes it; tanh(m) = 1 - 2s.
    GRADC_ALWAYS_INLINE inline static B reciprocal_term(const B& m) { return B(T(1)) / (B(T(1)) + exp_inline(m + m)); }

    /// tanh(m) = 1 - 2s, as xsimd's tanh computes it.
    GRADC_ALWAYS_INLINE inline static B far_from_zero(const B& s) { return xsimd::fma(B(T(-2)), s, B(T(1))); }

    /// 1/cosh²(m) = 4s(1 - s); where e^(2m) overflows or nearly (m beyond 354 in double,
    /// 44 in float), 4e^(-2m) from the batch `math::exp`'s edge path, which keeps its normal
    /// and subnormal values (4s(1 - s) would be 0 there). The test costs a comparison
    /// per batch, within the mlp benchmark's noise (docs/benchmark-history.md).
    GRADC_ALWAYS_INLINE inline static B derivative_far_from_zero(const B& m, const B& s) {
        const B d = B(T(4)) * s * (B(T(1)) - s);
        const auto underflowing = m > B(T(std::is_same_v<T, double> ? 354 : 44));
        if (xsimd::any(underflowing)) [[unlikely]]
            return xsimd::select(underflowing, B(T(4)) * math::exp(B(T(-2)) * m), d);
        return d;
    }

    /// ±tanh(m) with b's sign, from the lanes' tanh(m) away from zero (`far`) and, where
    /// `small`, near it: as xsimd's tanh assembles it.
    template <class Small>
    GRADC_ALWAYS_INLINE inline static B signed_value(const B& b, const B& m, const Small& small, const B& far) {
        if (!xsimd::any(small)) return xsimd::copysign(far, b);
        return xsimd::copysign(xsimd::select(small, near_zero(m), far), b);
    }

    /// tanh(a).
    GRADC_ALWAYS_INLINE inline static B value(const B& a) {
        return on_convertible_lanes<keeps_lanes_from_conversion>(a, [](const B& b) GRADC_ALWAYS_INLINE {
            const B m = xsimd::abs(b);
            const auto small = m < B(T(detail::tanh_rational_limit));
            if (xsimd::all(small)) return xsimd::copysign(near_zero(m), b);
            return signed_value(b, m, small, far_from_zero(reciprocal_term(m)));
        });
    }

    /// d tanh/da given y = tanh(a) as `value` computes it.
    GRADC_ALWAYS_INLINE inline static B derivative(const B& a, const B& y) {
        return on_convertible_lanes<keeps_lanes_from_conversion>(a, [&y](const B& b) GRADC_ALWAYS_INLINE {
            const B m = xsimd::abs(b);
            const auto small = m < B(T(detail::tanh_rational_limit));
            const B cheap = B(T(1)) - y * y;
            if (xsimd::all(small)) return cheap;
            return xsimd::select(small, cheap, derivative_far_from_zero(m, reciprocal_term(m)));
        });
    }

    /// {tanh(a), d tanh/da}: equal to `value` and `derivative`, with one exponential.
    GRADC_ALWAYS_INLINE inline static std::pair<B, B> with_derivative(const B& a) {
        const auto [y, d] = on_convertible_lanes<keeps_lanes_from_conversion>(a, [](const B& b) GRADC_ALWAYS_INLINE {
            const B m = xsimd::abs(b);
            const auto small = m < B(T(detail::tanh_rational_limit));
            // Both forms on every lane, then a select: branches on the lanes here split
            // the live ranges of every value a gradient keeps for its reverse sweep, and
            // g++ then kept them in memory (the mlp gradient: 110 instructions a point,
            // 35 of them loads and stores, against 86 and 17 without the branches).
            const B s = reciprocal_term(m);
            const B y_all = xsimd::copysign(xsimd::select(small, near_zero(m), far_from_zero(s)), b);
            return std::pair<B, B>{y_all, xsimd::select(small, B(T(1)) - y_all * y_all, derivative_far_from_zero(m, s))};
        });
        return {y, d};
    }
};

}  // namespace gradc::math
