#pragma once
/// \file
/// The one place where the dynamic mode multiplies an incoming gradient by a local partial
/// derivative from the rule table. For complex tensors the "Autograd mechanics" notes use
/// the conjugate Wirtinger convention: the gradient flowing back through y = f(a) is grad ·
/// conj(∂f/∂a) for holomorphic f. Structural partials (one, minus_one, gates) are real and
/// need no conjugate.

#include <type_traits>

#include <gradc/autograd/elementwise.hpp>
#include <gradc/autograd/tensor.hpp>
#include <gradc/rules/partial.hpp>
#include <gradc/rules/value_traits.hpp>

namespace gradc::autograd {

/// grad · conj(partial) (just grad · partial for real tensors).
template <class P>
Tensor chain(const P& partial, const Tensor& grad) {
    if constexpr (std::is_same_v<P, Tensor>) {
        if (partial.is_complex()) return rules::scale(gradc::conj(partial), grad);
    }
    return rules::scale(partial, grad);
}

}  // namespace gradc::autograd
