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
struct node;
template <class Op, class... Args>
struct condition;

/// True when a subtree carries no run-time value: two such subtrees of equal type are
/// the same computation and the lowering pass merges them.
template <class E>
inline constexpr bool is_payload_free = true;  // variables
template <class V>
inline constexpr bool is_payload_free<literal<V>> = false;
template <class R, class... A>
inline constexpr bool is_payload_free<node<R, A...>> = (is_payload_free<A> && ...);
template <class Op, class... A>
inline constexpr bool is_payload_free<condition<Op, A...>> = (is_payload_free<A> && ...);


/// Operands are stored only when some carry a literal: a payload-free subtree is an
/// empty object, so sharing it many times (x*x, (x*x)*(x*x), ...) costs no memory.
/// Stored operands are plain members of an aggregate, not a tuple: building an
/// expression then instantiates no constructor per node, which matters for compile time
/// (each function whose signature names a deep expression type costs mangling time).
template <bool Stored, class... Args>
struct operands {};
template <class A>
struct operands<true, A> {
    A a;
};
template <class A, class B>
struct operands<true, A, B> {
    A a;
    B b;
};
template <class A, class B, class C>
struct operands<true, A, B, C> {
    A a;
    B b;
    C c;
};

template <std::size_t K, class E>
constexpr const auto& operand(const E& e) {
    if constexpr (K == 0) {
        return e.a;
    } else if constexpr (K == 1) {
        return e.b;
    } else {
        return e.c;
    }
}

template <class Rule, class... Args>
struct node : operands<!(is_payload_free<Args> && ...), Args...> {};

template <class Op, class... Args>
struct condition : operands<!(is_payload_free<Args> && ...), Args...> {};

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

/// The expression type of an operand: itself, or a literal for a number.
template <class A>
using expression_of_t = std::conditional_t<Expression<A> || Condition<A>, A, literal<A>>;

template <class Rule, class... A>
constexpr auto make_node(const A&... a) {
    // Brace-initialised in place: no helper function per operand type (see operands).
    using N = node<Rule, expression_of_t<A>...>;
    if constexpr (is_payload_free<N>) {
        return N{};
    } else {
        return N{{expression_of_t<A>{a}...}};
    }
}

template <class Op, class... A>
constexpr auto make_condition(const A&... a) {
    using C = condition<Op, std::remove_cvref_t<A>...>;
    if constexpr (is_payload_free<C>) {
        return C{};
    } else {
        return C{{a...}};
    }
}

}  // namespace gradc::expr
