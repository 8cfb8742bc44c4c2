#pragma once
/// \file
/// A partial that has a cheap form, accurate on most of the domain, and a dearer form
/// accurate everywhere (tanh' = 1 - y² cancels where |y| → 1; 1/cosh²(a) does not).
/// `accurate_where<T>(cheap_is_accurate, cheap, dear)` gives the cheap form where it is
/// accurate and calls `dear()` only when some lane needs it: a scalar branches, an xsimd
/// batch evaluates `dear()` only if some lane fails the test, so kernels whose points stay
/// where the cheap form holds pay one comparison per node. Other value types (complex
/// numbers, tensors, whose comparison is not defined or not worth a second kernel) take
/// the dear form, which must therefore hold everywhere and be valid for them.

#include <type_traits>

#include <gradc/rules/value_traits.hpp>

namespace gradc::rules {

/// `cheap_is_accurate()` is the lane-wise condition (called for scalars and batches only);
/// `cheap()` and `dear()` compute the two forms.
template <class T, class Test, class Cheap, class Dear>
GRADC_RULE_INLINE T accurate_where(const Test& cheap_is_accurate, const Cheap& cheap, const Dear& dear) {
    if constexpr (std::is_floating_point_v<T>) {
        return cheap_is_accurate() ? T(cheap()) : T(dear());
    } else if constexpr (simd_batch<T>) {
        const auto good = cheap_is_accurate();
        if (all(good)) return cheap();  // xsimd::all, found by argument-dependent lookup
        return select(good, T(cheap()), T(dear()));
    } else {
        return dear();
    }
}

}  // namespace gradc::rules
