#pragma once
/// \file
/// The forms a local partial derivative may take. Most partials are values (`cos(a)`),
/// but three structural forms let the sweeps skip work and avoid `0 * inf = NaN`:
///  - `one` / `minus_one` for linear operations (`d(a+b)/da = 1`): no multiplication;
///  - `gate{c}`: 1 where `c` holds, 0 elsewhere, applied as a selection, so that an
///    infinite or NaN incoming derivative on the unselected branch stays out
///    (`where`, `relu`), exactly as PyTorch's `where(c, grad, 0)` backward.
/// `scale(p, g)` is the one place that multiplies an incoming derivative by a partial;
/// both the tangent and the adjoint sweeps, and the dynamic engine, call it.

#include <gradc/rules/value_traits.hpp>

namespace gradc::rules {

/// The partial 1 (`d(a+b)/da`): applied without a multiplication.
struct one_t {};
/// The partial -1 (`d(a-b)/db`): applied as a negation.
struct minus_one_t {};
/// The partial 1, as a value a rule returns.
inline constexpr one_t one{};
/// The partial -1, as a value a rule returns.
inline constexpr minus_one_t minus_one{};

/// The partial [c]: 1 where the condition holds, 0 elsewhere, applied as a selection so
/// that an infinite or NaN derivative on the unselected side stays out.
template <class C>
struct gate {
    C condition;  ///< Where the partial is 1 (a `bool`, a batch of booleans or a bool tensor).
};
/// Deduces the condition's type: `gate{a > 0}`.
template <class C>
gate(C) -> gate<C>;

/// `scale(p, g)`: the incoming derivative `g` times the partial `p`, for each form of
/// partial (one, minus one, a gate, a value). The one multiplication of every sweep.
/// @{
template <class G>
constexpr G scale(one_t, const G& g) {
    return g;
}

template <class G>
constexpr G scale(minus_one_t, const G& g) {
    return -g;
}

template <class C, class G>
constexpr G scale(const gate<C>& p, const G& g) {
    return if_else(p.condition, g, scalar_t<G>(0));
}

template <class P, class G>
constexpr G scale(const P& p, const G& g) {
    return p * g;
}

/// Index of an operand, used to ask a rule for one partial: `Rule::partial(arg<1>, ...)`.
template <int I>
struct arg_t {
    static constexpr int value = I;  ///< The operand's index.
};
/// `arg<I>`: the tag that asks for the partial with respect to operand I.
template <int I>
inline constexpr arg_t<I> arg{};

/// @}
}  // namespace gradc::rules
