#pragma once
/// \file
/// A while loop's condition (loops/while_loop.hpp): its body is where(condition(c), f(c),
/// c), whose condition the loop tests after each step (loops/chained_loop.hpp).

#include <cstddef>
#include <type_traits>

#include <xsimd/xsimd.hpp>

#include <gradc/expr/pack.hpp>
#include <gradc/lower/flat.hpp>
#include <gradc/rules/piecewise.hpp>

namespace gradc::loops {

/// \cond INTERNAL

/// The condition of a while loop's body, where(condition, f(c), c): its flat graph's
/// last node (void for another node).
template <class Node>
struct step_condition {
    using type = void;
};
template <class C, class A, class B>
struct step_condition<graphs::apply<rules::where, C, A, B>> {
    using type = C;
};
template <class Flat>
struct last_node;
template <class... Nodes>
struct last_node<lower::flat<Nodes...>> {
    using type = expr::pack_element<sizeof...(Nodes) - 1, Nodes...>;
};

/// Whether a condition holds: a bool, or on some lane of a batch of them.
template <class C>
bool holds_somewhere(const C& c) {
    if constexpr (std::is_same_v<C, bool>) {
        return c;
    } else {
        return xsimd::any(c);
    }
}

/// \endcond

}  // namespace gradc::loops
