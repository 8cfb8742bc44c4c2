#pragma once
/// \file
/// What the rule table needs to know about a value type `T` beyond what the math layer
/// knows (gradc/math/value_traits.hpp: the scalar type, batches, `if_else`): dual numbers,
/// whose comparisons look at their value, and tensors of the dynamic mode, whose
/// discarded branches need a harmless operand.

#include <type_traits>

#include <gradc/always_inline.hpp>
#include <gradc/math/value_traits.hpp>

// Rules and their helpers are forced inline: Note [Forced inlining] (gradc/always_inline.hpp).

namespace gradc::rules {

using math::if_else;
using math::logical_and;
using math::logical_not;
using math::logical_or;
using math::logical_xor;
using math::scalar_of;
using math::scalar_t;
using math::simd_batch;

/// A dual number (rules/dual.hpp) of numbers or of SIMD batches: its comparisons look at
/// its value, giving a bool or a batch of bools, so a rule can choose a form lane by lane
/// on it as on its inner type.
template <class T>
concept ordered_dual = requires { typename T::inner_type; } &&
                       (std::is_floating_point_v<typename T::inner_type> || simd_batch<typename T::inner_type>);
/// A dual number of numbers (not of batches).
template <class T>
concept dual_of_number = ordered_dual<T> && std::is_floating_point_v<typename T::inner_type>;

/// A tensor of the dynamic mode, whose operations are recorded for backward; the rules'
/// other value types (scalars, batches, duals) are not.
template <class T>
concept dynamic_tensor = requires(const T& t) { t.requires_grad(); };

/// `a`, or `safe` where `discarded`: the operand of a branch that `if_else` discards
/// there. Only tensors need it. A tensor's backward runs through both operands of a
/// `select`, the discarded one with a zero gradient, so a discarded branch evaluated at its
/// singularity (log 0, 0⁻¹) turns that zero into 0·inf = NaN in a second derivative, where
/// the first derivative was a convention of the rule. PyTorch 1.13 gives that NaN; the
/// "Autograd mechanics" notes ("Gradients for non-differentiable functions") ask for a
/// value wherever the function is defined. Scalars, batches and duals select values, so
/// for them `a` is returned as it is, at no cost.
template <class C, class T>
T kept_branch_operand(const C& discarded, const T& a, double safe) {
    if constexpr (dynamic_tensor<T>) {
        return if_else<T>(discarded, safe, a);
    } else {
        return a;
    }
}

}  // namespace gradc::rules
