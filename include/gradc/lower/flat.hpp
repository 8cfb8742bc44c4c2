#pragma once
/// The flat program: the nodes the walk (order.hpp) lists, as small types.
///
/// An expression type names its whole subtree; a flat node names only its rule and
/// the positions of its operands. Everything after the walk (the analyses, the
/// programs, the printer) is templated on the flat list alone, so the size of the
/// types the compiler instantiates, and of the symbols it mangles, grows with the
/// number of nodes, not with the size or depth of the expression tree. Literal values
/// live in an array held by the kernel: `constant<L>` is entry L.

#include <array>
#include <cstddef>
#include <utility>

#include <gradc/expr/nodes.hpp>
#include <gradc/lower/type_at.hpp>

namespace gradc::lower {

/// Operand: the value of node I.
template <std::size_t I>
struct ref {};
/// Operand: a condition, Op applied to operands (refs or tests).
template <class Op, class... Operands>
struct test {};

/// Node: variable J (argument J of the kernel).
template <std::size_t J>
struct input {};
/// Node: entry L of the kernel's literal array.
template <std::size_t L>
struct constant {};
/// Node: a primitive of the rule table applied to operands (refs, or a test for where).
template <class Rule, class... Operands>
struct apply {};

template <class... Nodes>
struct flat {
    static constexpr std::size_t size = sizeof...(Nodes);
    template <std::size_t I>
    using at = type_at<I, Nodes...>;
};

template <class E>
struct operand_count {
    static constexpr std::size_t value = 0;
};
template <class R, class... A>
struct operand_count<expr::node<R, A...>> {
    static constexpr std::size_t value = sizeof...(A);
};
template <class Op, class... A>
struct operand_count<expr::condition<Op, A...>> {
    static constexpr std::size_t value = sizeof...(A);
};

/// The literal values of some outputs, in the order of their `constant<L>` nodes: the
/// order of the walk (operands first), which visits every literal exactly once (only
/// payload-free subtrees are skipped when met again, and they hold no literal).
template <class E>
void collect_literals(const E& e, double*& out) {
    if constexpr (expr::is_literal<E>) {
        *out++ = static_cast<double>(e.value);
    } else if constexpr (!expr::is_payload_free<E>) {
        // Members named directly rather than through hana::for_each or a lambda: one
        // function per payload node type, and one instantiation level per tree level.
        constexpr std::size_t count = operand_count<E>::value;
        if constexpr (count >= 1) collect_literals(e.a, out);
        if constexpr (count >= 2) collect_literals(e.b, out);
        if constexpr (count >= 3) collect_literals(e.c, out);
    }
}

}  // namespace gradc::lower
