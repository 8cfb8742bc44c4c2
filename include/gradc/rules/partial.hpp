#pragma once
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

struct one_t {};
struct minus_one_t {};
inline constexpr one_t one{};
inline constexpr minus_one_t minus_one{};

template <class C>
struct gate {
    C condition;
};
template <class C>
gate(C) -> gate<C>;

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
    static constexpr int value = I;
};
template <int I>
inline constexpr arg_t<I> arg{};

}  // namespace gradc::rules
