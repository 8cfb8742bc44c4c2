#pragma once
/// \file
/// `widened_to_double` (gradc/rules/widened.hpp) for xsimd float batches: the lanes are
/// widened to two double batches of the same architecture, f runs on each, and each
/// result is rounded to float once. Rounding a double result to float keeps float's
/// special values (overflow to ±inf, subnormal results, NaN), and for a², 1/a and √a it
/// is bit for bit the float operation (53 ≥ 2·24 + 2 bits: no double rounding).

#include <cstddef>
#include <utility>

#include <gradc/rules/widened.hpp>
#include <gradc/simd/config.hpp>

namespace gradc::rules {

/// Float batches of architecture A computed in two double batches of A.
template <class A>
struct widened_to_double<xsimd::batch<float, A>> {
    using B = xsimd::batch<float, A>;   ///< The float batch.
    using D = xsimd::batch<double, A>;  ///< Half of it in double.
    static_assert(2 * D::size == B::size, "gradc: a float batch holds two double batches");

    /// f(a...) lane by lane in double, rounded to float.
    template <class F, class... Bs>
    static B apply(F f, const Bs&... a) {
        alignas(64) double wide[sizeof...(Bs)][B::size];
        std::size_t k = 0;
        (widen(a, wide[k++]), ...);
        alignas(64) float narrow[B::size];
        for (std::size_t half = 0; half < 2; ++half) {
            alignas(64) double result[D::size];
            const D r = [&]<std::size_t... I>(std::index_sequence<I...>) {
                return D(f(D::load_aligned(wide[I] + half * D::size)...));
            }(std::index_sequence_for<Bs...>{});
            r.store_aligned(result);
            for (std::size_t i = 0; i < D::size; ++i) narrow[half * D::size + i] = float(result[i]);
        }
        return B::load_aligned(narrow);
    }

private:
    static void widen(const B& a, double* wide) {
        alignas(64) float lanes[B::size];
        a.store_aligned(lanes);
        for (std::size_t i = 0; i < B::size; ++i) wide[i] = double(lanes[i]);
    }
};

}  // namespace gradc::rules
