#pragma once
/// \file
/// Per-step outputs of a loop: a body of `gradc::loop` or `gradc::scan` that returns
/// `gradc::emit(next, y)` makes the loop return `std::tuple{final_carry, ys}`, where ys
/// stacks every step's y (a vector for a scalar y, a matrix with one row per step for a
/// vector y), as JAX's `scan` returns its ys; `gradc::emit(next)` emits the carries. The loop then keeps its states
/// (loops/loop_states.hpp: c₀, …, c_n as the rows of a matrix); the final carry is the
/// last row, and ys is a loop over the steps (`stack_over`) whose step k calls the body
/// again with state k as its carry and keeps its y (loops/loop.hpp builds both). So y costs its own nodes once per
/// step, but the nodes it shares with next run twice (once in each loop), and the
/// states take (n + 1) × the carry's entries, whatever the reverse mode.

#include <tuple>
#include <type_traits>

#include <gradc/expr/loop_counter.hpp>
#include <gradc/expr/nodes.hpp>
#include <gradc/loops/chained_loop.hpp>

namespace gradc {

/// What a step of an emitting loop returns: its next carry and its output.
template <class Next, class Y>
struct emitted {
    Next next;  ///< The next carry.
    Y y;        ///< The step's output, stacked into the loop's ys.
};

/// What `gradc::emit(next)` emits: the next carry itself.
struct emitted_carry {};

/// A step's next carry and its output y (a scalar or a vector expression, or a number).
template <class Next, class Y>
auto emit(const Next& next, const Y& y) {
    static_assert(expr::Expression<Next>, "gradc::emit(next, y): next must be a gradc expression, the next carry");
    static_assert(expr::Operand<Y>, "gradc::emit(next, y): y must be a gradc expression or a number");
    return emitted<Next, expr::expression_of_t<Y>>{next, expr::expression_of_t<Y>{y}};
}

/// A step's next carry, also its output: ys holds the carries after each step, read from
/// the states the loop keeps, with nothing computed again (`gradc::emit(next, next)`
/// gives the same ys but runs next's nodes twice).
template <class Next>
auto emit(const Next& next) {
    static_assert(expr::Expression<Next>, "gradc::emit(next): next must be a gradc expression, the next carry");
    return emitted<Next, emitted_carry>{next, {}};
}

}  // namespace gradc

namespace gradc::loops {

/// \cond INTERNAL

template <class T>
inline constexpr bool is_emitted = false;
template <class Next, class Y>
inline constexpr bool is_emitted<emitted<Next, Y>> = true;

/// State k of kept states: entry k (a scalar carry's) or row k.
template <class States, class Tag>
auto state_at(const States& states, const expr::loop_counter<Tag>& k) {
    if constexpr (States::shape.is_matrix()) {
        return row(states, k);
    } else {
        return states[k];
    }
}

/// Whether an emitting step's y is a matrix (its carry, when it emits that, is not one).
template <class Body>
constexpr bool emits_matrix() {
    using Y = decltype(Body::y);
    if constexpr (std::is_same_v<Y, emitted_carry>) {
        return false;
    } else {
        return Y::shape.is_matrix();
    }
}

/// The checks of an emitting step's result, of type Body, for a carry of shape `carry`.
template <class Body>
constexpr bool emits_fitting(const dims& carry) {
    if constexpr (is_emitted<Body>) {
        using Next = decltype(Body::next);
        return !carry.is_matrix() && !emits_matrix<Body>() && carry_fits(Next::shape, carry);
    } else {
        return false;
    }
}

/// \endcond

}  // namespace gradc::loops
