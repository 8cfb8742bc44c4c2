#pragma once
/// The node types of an expression tree. An expression's type is its structure; only
/// literals carry a run-time value (their payload).
///  - `variable<I, N>`: input I of a set of N inputs made by `gradc::variables<N>()`;
///  - `literal<V>`: a constant captured by value (double, float or an integer type);
///  - `node<Rule, Args...>`: a primitive of the rule table applied to sub-expressions;
///  - `condition<Op, Args...>`: a comparison or logical connective, used only as the
///    first operand of `where`; it has no derivative.

#include <cstddef>
#include <type_traits>

#include <boost/hana/tuple.hpp>

#include <gradc/rules/rule.hpp>

namespace gradc::expr {

template <std::size_t I, std::size_t N>
struct variable {
    static_assert(I < N, "gradc: variable index out of range of its set");
    static constexpr std::size_t index = I;
    static constexpr std::size_t set_size = N;
};

template <class V>
struct literal {
    V value;
};

template <class Rule, class... Args>
struct node {
    boost::hana::tuple<Args...> args;
};

template <class Op, class... Args>
struct condition {
    boost::hana::tuple<Args...> args;
};

// ---- classification ------------------------------------------------------------

template <class E>
inline constexpr bool is_variable = false;
template <std::size_t I, std::size_t N>
inline constexpr bool is_variable<variable<I, N>> = true;

template <class E>
inline constexpr bool is_literal = false;
template <class V>
inline constexpr bool is_literal<literal<V>> = true;

template <class E>
inline constexpr bool is_node = false;
template <class R, class... A>
inline constexpr bool is_node<node<R, A...>> = true;

template <class E>
inline constexpr bool is_condition = false;
template <class Op, class... A>
inline constexpr bool is_condition<condition<Op, A...>> = true;

/// A value expression: something that evaluates to a number and can be differentiated.
template <class E>
concept Expression = is_variable<E> || is_literal<E> || is_node<E>;

/// A condition expression: a comparison of value expressions, or a logical combination.
template <class E>
concept Condition = is_condition<E>;

/// Something that may stand beside an expression in an operator: an expression or a
/// number (double, float or an integer type; bool is not a number here).
template <class A>
concept Operand = Expression<A> || (std::is_arithmetic_v<A> && !std::is_same_v<A, bool>);

/// True when a subtree carries no run-time value: two such subtrees of equal type are
/// the same computation and the lowering pass merges them.
template <class E>
inline constexpr bool is_payload_free = true;
template <class V>
inline constexpr bool is_payload_free<literal<V>> = false;
template <class R, class... A>
inline constexpr bool is_payload_free<node<R, A...>> = (is_payload_free<A> && ...);
template <class Op, class... A>
inline constexpr bool is_payload_free<condition<Op, A...>> = (is_payload_free<A> && ...);

/// Size of the variable set the expression's variables come from (0 if it has none);
/// `mixed_sets` when variables of different `variables<N>()` sets meet.
inline constexpr std::size_t mixed_sets = static_cast<std::size_t>(-1);

constexpr std::size_t merge_set_size(std::size_t a, std::size_t b) {
    if (a == 0) return b;
    if (b == 0 || a == b) return a;
    return mixed_sets;
}

template <class E>
inline constexpr std::size_t set_size_of = 0;
template <std::size_t I, std::size_t N>
inline constexpr std::size_t set_size_of<variable<I, N>> = N;
template <class R, class... A>
inline constexpr std::size_t set_size_of<node<R, A...>> = [] {
    std::size_t n = 0;
    ((n = merge_set_size(n, set_size_of<A>)), ...);
    return n;
}();
template <class Op, class... A>
inline constexpr std::size_t set_size_of<condition<Op, A...>> = set_size_of<node<Op, A...>>;

// ---- making nodes ----------------------------------------------------------------

/// An operand as an expression: numbers become literals (integers as themselves, so
/// that they print as written; they are converted to the kernel's value type on use).
template <Operand A>
constexpr auto as_expression(const A& a) {
    if constexpr (Expression<A>) {
        return a;
    } else {
        return literal<A>{a};
    }
}

template <class Rule, class... A>
constexpr auto make_node(const A&... a) {
    using N = node<Rule, decltype(as_expression(a))...>;
    return N{boost::hana::make_tuple(as_expression(a)...)};
}

template <class Op, class... A>
constexpr auto make_condition(const A&... a) {
    using C = condition<Op, std::remove_cvref_t<A>...>;
    return C{boost::hana::make_tuple(a...)};
}

}  // namespace gradc::expr
