#pragma once
/// \file
/// The node types of an expression tree. An expression's type is its structure; only
/// literals carry a run-time value (their payload).
///  - `variable<I, N, Set>`: input I of a set of N scalar inputs made by one call of
///    `gradc::variables<N>()` (Set names the call);
///  - `array_variable<I, Set>`: input I of a set made by one call of
///    `gradc::variables(shape...)`: a scalar, vector or matrix;
///  - `literal<V>`: a constant captured by value (double, float or an integer type);
///  - `node<Rule, Args...>`: a primitive of the rule table applied to sub-expressions;
///  - `condition<Op, Args...>`: a comparison or logical connective, used only as the
///    first operand of `where`; it has no derivative.
/// Every expression carries its flat form, `graph` (expr/graph.hpp), built when its type
/// is, and a node or condition holds the values of the literals of its subtree, in graph
/// order, instead of its operands: the kernel copies them in one go, with no walk.

#include <algorithm>
#include <array>
#include <cstddef>
#include <type_traits>

#include <gradc/expr/entry_access.hpp>
#include <gradc/expr/graph.hpp>
#include <gradc/expr/loop_carry.hpp>  // its literal_values overload, found by the qualified call below
#include <gradc/expr/operand_merge.hpp>
#include <gradc/expr/pack.hpp>
#include <gradc/expr/shape.hpp>
#include <gradc/expr/shape_errors.hpp>
#include <gradc/rules/arrays/access.hpp>
#include <gradc/rules/rule.hpp>

namespace gradc::expr {

using graphs::apply;
using graphs::constant;
using graphs::entry;
using graphs::graph;
using graphs::input;
using graphs::merge;
using graphs::ref;

/// Scalar variable I of a set of N made by one `gradc::variables<N>()` call (Set tells calls apart).
template <std::size_t I, std::size_t N, class Set = void>
struct variable {
    static_assert(I < N, "gradc: variable index out of range of its set");
    static constexpr std::size_t index = I;  ///< Its position among the kernel's arguments.
    static constexpr std::size_t set_size = N;  ///< The number of variables of its set.
    static constexpr dims shape = scalar_dims;  ///< A scalar.
    using set = Set;  ///< The set it belongs to.
    static constexpr bool is_condition = false;  ///< A value, not a condition (see `Condition`).
    /// Its flat graph: one input node, listed as variable I of its set.
    using graph = graphs::graph<0, graphs::input_index<graphs::family<variable<0, N, Set>>, I, 0>, graphs::no_nodes,
                               entry<variable, input<I>>>;
};

/// The variables of one `gradc::variables(shape...)` call: Tag is unique to the call,
/// Shapes are the variables' shapes in order (a kernel takes one argument per shape,
/// used or not).
template <class Tag, dims... Shapes>
struct variable_set {
    static constexpr std::size_t size = sizeof...(Shapes);  ///< The number of variables.
    static constexpr std::array<dims, sizeof...(Shapes)> shapes{Shapes...};  ///< Their shapes.
};

/// Variable I of a `gradc::variables(shape...)` call: a scalar, vector or matrix of its shape.
template <std::size_t I, class Set>
struct array_variable : entry_access<array_variable<I, Set>> {
    static_assert(I < Set::size, "gradc: variable index out of range of its set");
    static constexpr std::size_t index = I;  ///< Its position among the kernel's arguments.
    static constexpr std::size_t set_size = Set::size;  ///< The number of variables of its set.
    static constexpr dims shape = Set::shapes[I];  ///< Its shape.
    using set = Set;  ///< The set it belongs to.
    static constexpr bool is_condition = false;  ///< A value, not a condition (see `Condition`).
    /// Its flat graph: one input node, listed as variable I of its set.
    using graph = graphs::graph<0, graphs::input_index<graphs::family<Set>, I, 0>, graphs::no_nodes,
                               entry<array_variable, input<I>>>;
};

}  // namespace gradc::expr

namespace gradc::graphs {
/// A variable's set and index, for the graphs' tables of variables (expr/input_index.hpp).
template <std::size_t I, std::size_t N, class Set>
struct input_family<expr::variable<I, N, Set>> {
    using family = graphs::family<expr::variable<0, N, Set>>;
    enum : std::size_t { index = I };
};
template <std::size_t I, class Set>
struct input_family<expr::array_variable<I, Set>> {
    using family = graphs::family<Set>;
    enum : std::size_t { index = I };
};
}  // namespace gradc::graphs

namespace gradc::expr {

using graphs::named_value;

/// A constant known by its type (`gradc::constant([] { return 0.5; })`): no payload, so a
/// subtree that uses it is merged with its equal uses (a literal `0.5` is kept apart,
/// and with it every subtree around it).
template <class Tag>
struct named_constant {
    static constexpr dims shape = scalar_dims;  ///< A scalar.
    static constexpr double value = named_value<Tag>();  ///< The constant's value.
    static constexpr bool is_condition = false;  ///< A value, not a condition (see `Condition`).
    using graph = graphs::graph<0, graphs::no_inputs, graphs::no_nodes, entry<named_constant, graphs::named<Tag>>>;  ///< One named node.
};

/// A number in an expression (`x * 2.0`): a payload, so each literal is its own node.
template <class V>
struct literal {
    V value;  ///< The number.
    static constexpr dims shape = scalar_dims;  ///< A scalar.
    static constexpr bool is_condition = false;  ///< A value, not a condition (see `Condition`).
    using graph = graphs::graph<1, graphs::no_inputs, graphs::no_nodes, entry<void, constant<0>>>;  ///< One constant node.
};

// The graph-building machinery of the node types (docs/architecture.md, "The flat graph
// ...") is never named in user code: left out of the API reference.
/// \cond INTERNAL
/// The literal values of a subtree, in graph order; nothing for a payload-free one, so
/// that sharing it many times (x*x, (x*x)*(x*x), ...) costs no memory.
template <std::size_t L>
struct literal_store {
    std::array<double, L> literal_values;
};
template <>
struct literal_store<0> {};

template <class Key, class Rule, class G, class Forms>
struct append_apply;
template <class Key, class Rule, class G, class... F>
struct append_apply<Key, Rule, G, type_list<F...>> {
    using type = graphs::extended_t<G, 0, typename G::index, entry<Key, apply<Rule, F...>>>;
};

/// The graph of node<Rule, Args...>: its operands' graphs, then itself (keyed by its
/// type when it carries no literal, so that an equal subtree met later is merged).
template <class Self, class Rule, class... Args>
struct node_graph {
    using operands = operands_merged<Args...>;
    using key = std::conditional_t<operands::graph::literals == 0, Self, void>;
    using type = typename append_apply<key, Rule, typename operands::graph, typename operands::forms>::type;
};

template <class Op, class Forms>
struct test_of;
template <class Op, class... F>
struct test_of<Op, type_list<F...>> {
    using type = graphs::test<Op, F...>;
};

/// \endcond
/// The shape of a node: an array operation's own (rules/arrays/), else the operands'
/// common shape (a scalar rule applied elementwise).
template <class Rule, class... Args>
constexpr dims node_shape() {
    if constexpr (requires { Rule::template result_shape<sizeof...(Args)>(std::array<dims, sizeof...(Args)>{}); }) {
        return Rule::template result_shape<sizeof...(Args)>(std::array<dims, sizeof...(Args)>{Args::shape...});
    } else {
        const dims s[] = {Args::shape...};
        return broadcast(s);
    }
}

/// The expression Rule(Args...): one node of the rule table (its type is its structure).
template <class Rule, class... Args>
struct node : literal_store<node_graph<node<Rule, Args...>, Rule, Args...>::type::literals>,
              entry_access_unless_scalar<node_shape<Rule, Args...>().is_scalar(), node<Rule, Args...>> {
    using graph = typename node_graph<node, Rule, Args...>::type;  ///< Its flat graph, operands first.
    static constexpr dims shape = node_shape<Rule, Args...>();  ///< Its shape.
    static constexpr bool is_condition = false;  ///< A value, not a condition (see `Condition`).
};

/// A condition Op(Args...) (`x < y`, `c && d`) for `where`: a test, not a value.
template <class Op, class... Args>
struct condition : literal_store<operands_merged<Args...>::graph::literals> {
    using operands = operands_merged<Args...>;  ///< The operands merged (Note [Merge order]).
    using graph = typename operands::graph;  ///< The operands' flat graph.
    using test = typename test_of<Op, typename operands::forms>::type;  ///< The test on it.
    static constexpr bool is_condition = true;  ///< A condition (see `Condition`).
    /// The operands' common shape.
    static constexpr dims shape = [] {
        const dims s[] = {Args::shape...};
        return broadcast(s);
    }();
};

/// True when a subtree carries no run-time value: two such subtrees of equal type are
/// the same computation and the lowering merges them.
template <class E>
inline constexpr bool is_payload_free = E::graph::literals == 0;

// ---- classification ------------------------------------------------------------

/// Whether E is a variable (scalar or array).
template <class E>
inline constexpr bool is_variable = false;
template <std::size_t I, std::size_t N, class Set>
inline constexpr bool is_variable<variable<I, N, Set>> = true;  ///< A scalar variable.
template <std::size_t I, class Set>
inline constexpr bool is_variable<array_variable<I, Set>> = true;  ///< An array variable.

/// A condition expression: a comparison of value expressions, or a logical combination.
/// Both concepts ask the type for members, not variable templates: a variable template
/// instantiated per node would be named with the node's long type. And every expression
/// type answers `is_condition`, true or false, rather than lacking a member: clang
/// writes out the message of every substitution failure in a constraint, the failing
/// type's name included, even when nobody reads it; asking a node of a chain for a
/// member it lacked cost a name as long as the chain at every level, and time that grew
/// with the square of the nodes (docs/architecture.md, "Compile time").
template <class E>
concept Condition = bool(E::is_condition);

/// A value expression: something that evaluates to a number and can be differentiated.
template <class E>
concept Expression = requires { typename E::graph; } && !Condition<E>;

/// Something that may stand beside an expression in an operator: an expression or a
/// number (double, float or an integer type; bool is not a number here).
template <class A>
concept Operand = Expression<A> || (std::is_arithmetic_v<A> && !std::is_same_v<A, bool>);

// ---- making nodes ----------------------------------------------------------------

/// The expression type of an operand: itself, or a literal for a number.
template <class A>
using expression_of_t = std::conditional_t<Expression<A> || Condition<A>, A, literal<A>>;

// How a node collects its operands' literal values: machinery of make_node, left out
// of the API reference.
/// \cond INTERNAL
/// The literal values an operand contributes to a node, in graph order. Overloads on
/// the literal store's size, not on the operand's type: no function per subtree.
template <std::size_t L>
constexpr const std::array<double, L>& literal_values(const literal_store<L>& s) {
    return s.literal_values;
}
constexpr std::array<double, 0> literal_values(const literal_store<0>&) { return {}; }
template <class V>
constexpr std::array<double, 1> literal_values(const literal<V>& l) {
    return {static_cast<double>(l.value)};
}
/// A number beside an expression in an operator: the literal it becomes.
template <class V>
    requires(std::is_arithmetic_v<V> && !std::is_same_v<V, bool>)
constexpr std::array<double, 1> literal_values(const V& v) {
    return {static_cast<double>(v)};
}
template <std::size_t I, std::size_t N, class Set>
constexpr std::array<double, 0> literal_values(const variable<I, N, Set>&) {
    return {};
}
template <std::size_t I, class Set>
constexpr std::array<double, 0> literal_values(const array_variable<I, Set>&) {
    return {};
}
template <class Tag>
constexpr std::array<double, 0> literal_values(const named_constant<Tag>&) {
    return {};
}

template <std::size_t... L>
constexpr std::array<double, (L + ... + 0)> join_literal_values(const std::array<double, L>&... parts) {
    std::array<double, (L + ... + 0)> joined{};
    std::size_t k = 0;
    ((k = std::copy(parts.begin(), parts.end(), joined.begin() + k) - joined.begin()), ...);
    return joined;
}

/// The body of make_node (which uses it too), for the scalar operators and functions to build their node in
/// their own body instead of calling make_node: every function templated on an
/// operand's type is named with that type, as long as the operand's whole subtree, and
/// the compilers mangle every such name (g++ in time that grows faster than its length),
/// so a call of make_node doubled the long names per node (docs/static.md, "Compile
/// time"). `GRADC_RETURN_NODE2(rules::add, a, b)` returns the node add(a, b). The
/// literal count is converted from its enumerator before it is compared: a comparison of
/// an enumerator is looked up among the operators, and in these bodies gradc's own
/// comparison operators are visible; clang wrote out the message of every one of them
/// that did not apply, with the operand's long type in it.
#define GRADC_NODE_OPERAND(a) ::gradc::expr::expression_of_t<std::remove_cvref_t<decltype(a)>>
#define GRADC_NODE_LITERALS(a) ::gradc::expr::literal_values(a)
#define GRADC_RETURN_NODE_OF(node_type, shapes_fit, join, literal_parts)                                         \
    static_assert(node_type::shape.valid() || shapes_fit,                                                    \
                  "gradc: the operands' shapes do not fit this operation (elementwise operations need "     \
                  "operands of one shape, or a scalar beside an array; shapes_are<...> below lists them)"); \
    if constexpr (std::size_t{node_type::graph::literals} == 0) {                                            \
        return node_type{};                                                                                  \
    } else {                                                                                                 \
        return node_type{{join literal_parts}, {}};                                                          \
    }
#define GRADC_NODE_SIZE(a) std::size_t{GRADC_NODE_OPERAND(a)::graph::size}
#define GRADC_RETURN_NODE1(Rule, a)                                                                  \
    using node_type = ::gradc::expr::node<Rule, GRADC_NODE_OPERAND(a)>;                              \
    GRADC_RETURN_NODE_OF(node_type, ::gradc::expr::shapes_are<GRADC_NODE_OPERAND(a)::shape>::fine, \
                         ::gradc::expr::join_literal_values_in<GRADC_NODE_SIZE(a)>, (GRADC_NODE_LITERALS(a)))
#define GRADC_RETURN_NODE2(Rule, a, b)                                                                \
    using node_type = ::gradc::expr::node<Rule, GRADC_NODE_OPERAND(a), GRADC_NODE_OPERAND(b)>;        \
    GRADC_RETURN_NODE_OF(node_type,                                                                   \
                         (::gradc::expr::shapes_are<GRADC_NODE_OPERAND(a)::shape,                     \
                                                    GRADC_NODE_OPERAND(b)::shape>::fine),             \
                         (::gradc::expr::join_literal_values_in<GRADC_NODE_SIZE(a), GRADC_NODE_SIZE(b)>),  \
                         (GRADC_NODE_LITERALS(a), GRADC_NODE_LITERALS(b)))
#define GRADC_RETURN_NODE3(Rule, a, b, c)                                                             \
    using node_type =                                                                                 \
        ::gradc::expr::node<Rule, GRADC_NODE_OPERAND(a), GRADC_NODE_OPERAND(b), GRADC_NODE_OPERAND(c)>; \
    GRADC_RETURN_NODE_OF(node_type,                                                                   \
                         (::gradc::expr::shapes_are<GRADC_NODE_OPERAND(a)::shape, GRADC_NODE_OPERAND(b)::shape, \
                                                    GRADC_NODE_OPERAND(c)::shape>::fine),             \
                         (::gradc::expr::join_literal_values_in<GRADC_NODE_SIZE(a), GRADC_NODE_SIZE(b),     \
                                                                GRADC_NODE_SIZE(c)>),                      \
                         (GRADC_NODE_LITERALS(a), GRADC_NODE_LITERALS(b), GRADC_NODE_LITERALS(c)))

template <class Rule, class... A>
constexpr auto make_node(const A&... a) {
    using node_type = node<Rule, expression_of_t<A>...>;
    GRADC_RETURN_NODE_OF(node_type, (shapes_are<expression_of_t<A>::shape...>::fine),
                         (join_literal_values_in<std::size_t{expression_of_t<A>::graph::size}...>),
                         (literal_values(a)...))
}

template <class Op, class... A>
constexpr auto make_condition(const A&... a) {
    using C = condition<Op, std::remove_cvref_t<A>...>;
    if constexpr (C::graph::literals == 0) {
        return C{};
    } else {
        return C{{join_literal_values_in<std::size_t{std::remove_cvref_t<A>::graph::size}...>(literal_values(a)...)}};
    }
}

/// \endcond
}  // namespace gradc::expr
