#pragma once
/// \file
/// The rule table: every differentiable primitive, in one Hana list. Table-driven tests
/// iterate over it, so a primitive added here is tested (or the tests fail to compile).
///
/// `all` is built from the lists of rules/list.hpp (the primitives called by name) plus
/// the arithmetic operations and `where`, so the list and the table cannot disagree.

#include <boost/hana/tuple.hpp>
#include <boost/hana/type.hpp>

#include <gradc/rules/arithmetic.hpp>
#include <gradc/rules/exponential.hpp>
#include <gradc/rules/hyperbolic.hpp>
#include <gradc/rules/list.hpp>
#include <gradc/rules/piecewise.hpp>
#include <gradc/rules/special.hpp>
#include <gradc/rules/trigonometric.hpp>

namespace gradc::rules {

#define GRADC_RULE_TABLE_ENTRY(rule, tensor_op) , rule
/// Every rule, as a `boost::hana::tuple_t` of the rule types: the arithmetic operations,
/// `where` and the primitives of rules/list.hpp. Iterate it with `boost::hana::for_each`.
inline constexpr auto all = boost::hana::tuple_t<add, sub, mul, div, neg, where GRADC_UNARY_PRIMITIVES(
    GRADC_RULE_TABLE_ENTRY) GRADC_BINARY_PRIMITIVES(GRADC_RULE_TABLE_ENTRY)>;
#undef GRADC_RULE_TABLE_ENTRY

// Each list entry names its own rule (the identifier and `name` agree) and has the
// arity of its list.
#define GRADC_RULE_CHECK_UNARY(rule, tensor_op) \
    static_assert(rule::name == #rule && rule::arity == 1, "gradc: GRADC_UNARY_PRIMITIVES lists " #rule " wrongly");
#define GRADC_RULE_CHECK_BINARY(rule, tensor_op) \
    static_assert(rule::name == #rule && rule::arity == 2, "gradc: GRADC_BINARY_PRIMITIVES lists " #rule " wrongly");
GRADC_UNARY_PRIMITIVES(GRADC_RULE_CHECK_UNARY)
GRADC_BINARY_PRIMITIVES(GRADC_RULE_CHECK_BINARY)
#undef GRADC_RULE_CHECK_UNARY
#undef GRADC_RULE_CHECK_BINARY

}  // namespace gradc::rules
