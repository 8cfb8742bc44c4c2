#pragma once
/// \file
/// Named functions on expressions, found by argument-dependent lookup: `sin(x)`,
/// `pow(x, 2.5)`, `max(x, y)`, `where(x < y, a, b)`. Each builds one node of the
/// rule table; see include/gradc/rules/ for the math and the derivative conventions.

#include <gradc/expr/nodes.hpp>
#include <gradc/rules/table.hpp>

namespace gradc::expr {

// One function per entry of GRADC_UNARY_PRIMITIVES (rules/table.hpp): `exp(x)`, ...
#define GRADC_EXPR_UNARY(rule, tensor_op) \
    template <Expression A> constexpr auto rule(const A& a) { GRADC_RETURN_NODE1(rules::rule, a) }
GRADC_UNARY_PRIMITIVES(GRADC_EXPR_UNARY)
#undef GRADC_EXPR_UNARY

/// Two-operand functions take an expression on either side and a number on the other.
template <class A, class B>
concept BinaryOperands = (Expression<A> || Expression<B>) && Operand<A> && Operand<B>;

// One function per entry of GRADC_BINARY_PRIMITIVES, under the rule's name (`max`, not
// the tensor's `maximum`: on scalars the usual name is max).
#define GRADC_EXPR_BINARY(rule, tensor_op)                                 \
    template <class A, class B>                                            \
        requires BinaryOperands<A, B>                                      \
    constexpr auto rule(const A& a, const B& b) { GRADC_RETURN_NODE2(rules::rule, a, b) }
GRADC_BINARY_PRIMITIVES(GRADC_EXPR_BINARY)
#undef GRADC_EXPR_BINARY

/// where(c, a, b): a where the condition c holds, else b (lane by lane on batches).
/// `a` and `b` may be expressions or numbers.
template <class C, class A, class B>
    requires(Condition<C> || Expression<A> || Expression<B>)
constexpr auto where(const C& c, const A& a, const B& b) {
    static_assert(Condition<C>, "gradc::where(c, a, b): c must be a comparison of gradc expressions, "
                                "such as x < y, combined with &&, || or !");
    static_assert(Operand<A> && Operand<B>, "gradc::where(c, a, b): a and b must be gradc expressions "
                                            "or numbers (double, float or an integer type)");
    GRADC_RETURN_NODE3(rules::where, c, a, b)
}

/// select(c, a, b): another name for where.
template <class C, class A, class B>
    requires(Condition<C> || Expression<A> || Expression<B>)
constexpr auto select(const C& c, const A& a, const B& b) {
    return where(c, a, b);
}

}  // namespace gradc::expr

namespace gradc {
using expr::select;
using expr::where;
}  // namespace gradc
