#pragma once
/// \file
/// The logistic family: sigmoid, softplus and logit, built on `math::exp` and `math::log`
/// so that batches keep C's values at the edges.

#include <cmath>

#include <gradc/math/exponential.hpp>
#include <gradc/math/logarithm.hpp>
#include <gradc/math/value_traits.hpp>

namespace gradc::math {

/// sigmoid(a) = 1/(1 + e^-a).
template <class T>
GRADC_ALWAYS_INLINE inline T sigmoid(const T& a) {
    using K = scalar_t<T>;
    return K(1) / (K(1) + math::exp(T(-a)));
}

/// softplus(a) = log(1 + e^a), evaluated as max(a, 0) + log1p(e^-|a|) so that it neither
/// overflows for large a nor loses digits for very negative a.
template <class T>
GRADC_ALWAYS_INLINE inline T softplus(const T& a) {
    using std::abs;
    using std::log1p;
    using K = scalar_t<T>;
    return if_else<T>(a > K(0), a, K(0)) + log1p(math::exp(T(-abs(a))));
}

/// logit(a) = log(a/(1 - a)), the inverse of sigmoid: -inf at 0, +inf at 1, NaN outside [0, 1].
template <class T>
GRADC_ALWAYS_INLINE inline T logit(const T& a) {
    using K = scalar_t<T>;
    return math::log(T(a / (K(1) - a)));
}

}  // namespace gradc::math
