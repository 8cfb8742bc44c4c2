#pragma once
/// \file
/// A partial that has a cheap form, accurate on most of the domain, and a dearer form
/// accurate everywhere (tanh' = 1 - y² cancels where |y| → 1; 1/cosh²(a) does not).
/// `accurate_where<T>(cheap_is_accurate, cheap, dear)` gives the cheap form where it is
/// accurate and calls `dear()` only when some lane needs it: a scalar branches, an xsimd
/// batch evaluates `dear()` only if some lane fails the test, so kernels whose points stay
/// where the cheap form holds pay one comparison per node. Dual numbers of those (second
/// order) choose the same way when the rule says that the cheap form's derivative is as
/// accurate as the form (`on_duals::choose`): 1 - y² differentiates to -2y·y', exact
/// where |y| <= 1/2; y(1 - y) differentiates to y'(1 - 2y), which cancels near y = 1/2,
/// so sigmoid's duals keep the dear form. Other value types (complex numbers, tensors,
/// whose comparison is not defined or not worth a second kernel) take the dear form,
/// which must therefore hold everywhere and be valid for them.

#include <type_traits>

#include <gradc/rules/value_traits.hpp>

namespace gradc::rules {

/// Whether dual numbers choose between the two forms by their value (`choose`) or always
/// take the dear form (`dear`).
enum class on_duals { choose, dear };

/// `cheap_is_accurate()` is the lane-wise condition (called for scalars, batches and, with
/// `on_duals::choose`, their duals only); `cheap()` and `dear()` compute the two forms.
template <class T, on_duals Duals = on_duals::dear, class Test, class Cheap, class Dear>
GRADC_ALWAYS_INLINE inline T accurate_where(const Test& cheap_is_accurate, const Cheap& cheap, const Dear& dear) {
    constexpr bool duals_choose = Duals == on_duals::choose;
    if constexpr (std::is_floating_point_v<T> || (duals_choose && dual_of_number<T>)) {
        return cheap_is_accurate() ? T(cheap()) : T(dear());
    } else if constexpr (simd_batch<T> || (duals_choose && ordered_dual<T>)) {
        const auto good = cheap_is_accurate();
        if (all(good)) return cheap();  // xsimd::all, found by argument-dependent lookup
        return select(good, T(cheap()), T(dear()));  // xsimd's, or the dual's (rules/dual.hpp)
    } else {
        return dear();
    }
}

}  // namespace gradc::rules
