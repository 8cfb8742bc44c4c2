#pragma once
/// \file
/// Float batches computed in double, where float's own batch functions are not accurate
/// enough (the lanes of float `pow` far from 1): `widened_to_double(f, a...)` widens the
/// lanes of the float batches `a...` to two double batches of the same architecture,
/// calls f on each, and rounds each result to float once. Rounding a double result to
/// float keeps float's special values (overflow to ±inf, subnormal results, NaN), and for
/// a², 1/a and √a it is bit for bit the float operation (53 ≥ 2·24 + 2 bits: no double
/// rounding).

#include <cstddef>
#include <utility>

#include <gradc/math/xsimd.hpp>

namespace gradc::math {

namespace detail {

/// The lanes of `a` as doubles, into `wide`.
template <class A>
void widen(const xsimd::batch<float, A>& a, double* wide) {
    using B = xsimd::batch<float, A>;
    alignas(64) float lanes[B::size];
    a.store_aligned(lanes);
    for (std::size_t i = 0; i < B::size; ++i) wide[i] = double(lanes[i]);
}

}  // namespace detail

/// f(a...) lane by lane in double, rounded to float.
template <class F, class A, class... Bs>
xsimd::batch<float, A> widened_to_double(F f, const xsimd::batch<float, A>& first, const Bs&... rest) {
    using B = xsimd::batch<float, A>;
    using D = xsimd::batch<double, A>;
    static_assert(2 * D::size == B::size, "gradc: a float batch holds two double batches");
    constexpr std::size_t count = 1 + sizeof...(Bs);
    alignas(64) double wide[count][B::size];
    std::size_t k = 0;
    detail::widen(first, wide[k++]);
    (detail::widen(rest, wide[k++]), ...);
    alignas(64) float narrow[B::size];
    for (std::size_t half = 0; half < 2; ++half) {
        alignas(64) double result[D::size];
        const D r = [&]<std::size_t... I>(std::index_sequence<I...>) {
            return D(f(D::load_aligned(wide[I] + half * D::size)...));
        }(std::make_index_sequence<count>{});
        r.store_aligned(result);
        for (std::size_t i = 0; i < D::size; ++i) narrow[half * D::size + i] = float(result[i]);
    }
    return B::load_aligned(narrow);
}

}  // namespace gradc::math
