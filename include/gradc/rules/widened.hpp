#pragma once
/// \file
/// Float batches computed in double, where float's own batch functions are not accurate
/// enough: `widened_to_double<T>::apply(f, a...)` calls f on the lanes of the float
/// batches `a...` widened to double batches and rounds each result to float once. The
/// rule table names no SIMD library, so only the declaration is here; the definition
/// for xsimd batches is in gradc/simd/widened.hpp (included by gradc/simd/math.hpp).

namespace gradc::rules {

/// Primary template: a value type the widening is not defined for.
template <class T>
struct widened_to_double {
    static_assert(!requires { typename T::arch_type; },
                  "gradc: float batches computed in double need <gradc/simd/math.hpp> (included by "
                  "<gradc/gradc.hpp> through the kernel) before the rule is used");
};

}  // namespace gradc::rules
