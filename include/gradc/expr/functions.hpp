#pragma once
/// Named functions on expressions, found by argument-dependent lookup: `sin(x)`,
/// `pow(x, 2.5)`, `max(x, y)`, `where(x < y, a, b)`. Each builds one node of the
/// rule table; see include/gradc/rules/ for the math and the derivative conventions.

#include <gradc/expr/nodes.hpp>
#include <gradc/rules/table.hpp>

namespace gradc::expr {

// clang-format off
template <Expression A> constexpr auto sin(const A& a) { return make_node<rules::sin>(a); }
template <Expression A> constexpr auto cos(const A& a) { return make_node<rules::cos>(a); }
template <Expression A> constexpr auto tan(const A& a) { return make_node<rules::tan>(a); }
template <Expression A> constexpr auto asin(const A& a) { return make_node<rules::asin>(a); }
template <Expression A> constexpr auto acos(const A& a) { return make_node<rules::acos>(a); }
template <Expression A> constexpr auto atan(const A& a) { return make_node<rules::atan>(a); }
template <Expression A> constexpr auto sinh(const A& a) { return make_node<rules::sinh>(a); }
template <Expression A> constexpr auto cosh(const A& a) { return make_node<rules::cosh>(a); }
template <Expression A> constexpr auto tanh(const A& a) { return make_node<rules::tanh>(a); }
template <Expression A> constexpr auto exp(const A& a) { return make_node<rules::exp>(a); }
template <Expression A> constexpr auto exp2(const A& a) { return make_node<rules::exp2>(a); }
template <Expression A> constexpr auto expm1(const A& a) { return make_node<rules::expm1>(a); }
template <Expression A> constexpr auto log(const A& a) { return make_node<rules::log>(a); }
template <Expression A> constexpr auto log2(const A& a) { return make_node<rules::log2>(a); }
template <Expression A> constexpr auto log10(const A& a) { return make_node<rules::log10>(a); }
template <Expression A> constexpr auto log1p(const A& a) { return make_node<rules::log1p>(a); }
template <Expression A> constexpr auto sqrt(const A& a) { return make_node<rules::sqrt>(a); }
template <Expression A> constexpr auto cbrt(const A& a) { return make_node<rules::cbrt>(a); }
template <Expression A> constexpr auto abs(const A& a) { return make_node<rules::abs>(a); }
template <Expression A> constexpr auto relu(const A& a) { return make_node<rules::relu>(a); }
template <Expression A> constexpr auto sigmoid(const A& a) { return make_node<rules::sigmoid>(a); }
template <Expression A> constexpr auto softplus(const A& a) { return make_node<rules::softplus>(a); }
template <Expression A> constexpr auto erf(const A& a) { return make_node<rules::erf>(a); }
template <Expression A> constexpr auto erfc(const A& a) { return make_node<rules::erfc>(a); }
// clang-format on

/// Two-operand functions take an expression on either side and a number on the other.
template <class A, class B>
concept BinaryOperands = (Expression<A> || Expression<B>) && Operand<A> && Operand<B>;

// clang-format off
template <class A, class B> requires BinaryOperands<A, B> constexpr auto pow(const A& a, const B& b) { return make_node<rules::pow>(a, b); }
template <class A, class B> requires BinaryOperands<A, B> constexpr auto atan2(const A& a, const B& b) { return make_node<rules::atan2>(a, b); }
template <class A, class B> requires BinaryOperands<A, B> constexpr auto hypot(const A& a, const B& b) { return make_node<rules::hypot>(a, b); }
template <class A, class B> requires BinaryOperands<A, B> constexpr auto max(const A& a, const B& b) { return make_node<rules::max>(a, b); }
template <class A, class B> requires BinaryOperands<A, B> constexpr auto min(const A& a, const B& b) { return make_node<rules::min>(a, b); }
// clang-format on

/// where(c, a, b): a where the condition c holds, else b (lane by lane on batches).
/// `a` and `b` may be expressions or numbers.
template <class C, class A, class B>
    requires(Condition<C> || Expression<A> || Expression<B>)
constexpr auto where(const C& c, const A& a, const B& b) {
    static_assert(Condition<C>, "gradc::where(c, a, b): c must be a comparison of gradc expressions, "
                                "such as x < y, combined with &&, || or !");
    static_assert(Operand<A> && Operand<B>, "gradc::where(c, a, b): a and b must be gradc expressions "
                                            "or numbers (double, float or an integer type)");
    return make_node<rules::where>(c, a, b);
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
