#pragma once
// Forward-mode AD inside the dynamic mode (not installed): where tangents live
// (forward_ad.cpp) and how operations propagate them (forward_propagate.cpp).

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string_view>
#include <vector>

#include <gradc/autograd/formula.hpp>
#include <gradc/autograd/node.hpp>
#include <gradc/autograd/tensor.hpp>

namespace gradc::autograd::forward_ad::detail {

/// The active level's id, 0 when none is active.
std::uint64_t active_level();

/// The tangent of `t` at the active level, undefined when it has none. A view without a
/// tangent of its own whose base has one gets the same view of the base's tangent.
Tensor tangent_of(const Tensor& t);
/// Whether one of `tensors` has a tangent; one atomic load when no level is active.
bool any_tangent(TensorRefs tensors);
bool any_tangent(std::initializer_list<const Tensor*> tensors);

/// Gives `t` the tangent `tangent` (same shape and dtype), copied into t's layout when
/// laid out differently. Replaces any tangent `t` had.
void set_tangent(const Tensor& t, const Tensor& tangent);
/// After an in-place operation on `self` whose new tangent is `tangent` (undefined:
/// zero): self's tangent takes its values in place, so that views and the base see them
/// (a view's base gets a zero tangent first if it had none).
void assign_inplace(const Tensor& self, const Tensor& tangent);
/// The same after an in-place operation wrote `result` into `self`.
void update_inplace(const Tensor& self, const Tensor& result);
/// Puts back the tangent a saved variable remembered for `t` (saved outputs and hooked
/// saved tensors are new aliases when unpacked), if its level is still active.
void restore_saved(const Tensor& t, const Tensor& tangent, std::uint64_t level);

/// An alias of `t` (same storage and version counter, not a view) with t's history and
/// no tangent.
Tensor history_alias(const Tensor& t);

/// A backward formula as the fallback sees it: gradients of the inputs (or of a
/// broadcast shape, summed back like the engine does) from gradients of the outputs;
/// `needed[i]` tells whether input i's gradient is wanted.
using Vjp = std::function<tensor_list(const tensor_list& grads, const std::vector<bool>& needed)>;

/// The tangents of `outputs` of operation `op` from those of `inputs` (undefined where
/// an output gets none), each conformed to its output's shape and dtype: by `jvp` when
/// given, otherwise by transposing `vjp`. Call only when any_tangent(inputs).
tensor_list output_tangents(std::string_view op, const tensor_list& inputs, const tensor_list& outputs,
                            const JvpFormula& jvp, const Vjp& vjp);

/// J·u from a backward formula (the double-vjp trick): with dummy output gradients g,
/// J·u = ∂/∂g Σᵢ Re⟨vjp(g)ᵢ, uᵢ⟩, since the vjp is the adjoint of J under Re⟨·,·⟩ (the
/// conjugate Wirtinger convention makes this hold for complex tensors too).
tensor_list jvp_by_transposition(std::string_view op, const tensor_list& inputs, const tensor_list& outputs,
                                 const tensor_list& tangents, const Vjp& vjp);

/// Whether forward_ad::detail::ForceFallback is alive on this thread.
bool fallback_forced();

/// The backward formula the JVP falls back on (by transposition, `jvp_by_transposition`):
/// a copy of `formula` when the operation has no JVP formula or the fallback is forced,
/// else none. Taken before the backward node takes the formula.
BackwardFormula jvp_fallback(const BackwardFormula& formula, const JvpFormula& jvp);

/// The second half of record() when an input has a tangent, after it built the backward
/// node (`node`, null when nothing requires grad): gives the outputs their tangents, from
/// `jvp` or from `fallback`, and the node's saved tensors theirs (for forward over
/// reverse).
void propagate_tangents(const std::shared_ptr<Node>& node, std::string_view op, const tensor_list& inputs,
                        const tensor_list& outputs, const tensor_list& saved, const BackwardFormula& fallback,
                        const JvpFormula& jvp);

}  // namespace gradc::autograd::forward_ad::detail
