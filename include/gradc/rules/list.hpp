#pragma once
/// \file
/// The names of the rule table's primitives, as X-macro lists, for the code that must
/// declare a named function per primitive (C++ declares a function only from a name, not
/// from a type or a Hana list): `X(rule, tensor_op)` gives the rule (a type of
/// gradc::rules, and the function's name in the static mode) and the name of its tensor
/// operation in the dynamic mode (the same, except max → maximum and min → minimum, as in
/// LibTorch). expr/functions.hpp, autograd/elementwise.hpp and src/autograd/unary.cpp and
/// binary.cpp expand them into one-line declarations and definitions; rules/table.hpp
/// builds `rules::all` from them. The arithmetic operations (add, sub, mul, div, neg) and
/// `where` are operators or take extra forms (C++ scalars, alpha, a condition) and are
/// written by hand. This header is light (no rule definitions, no Hana) so that
/// autograd/elementwise.hpp can include it; docs/architecture.md, "The rule table", says
/// why the lists exist beside `rules::all`.

// clang-format off
/// The one-operand primitives with a function of the same name in both modes.
#define GRADC_UNARY_PRIMITIVES(X) \
    X(exp, exp) X(exp2, exp2) X(expm1, expm1) X(log, log) X(log2, log2) X(log10, log10) \
    X(log1p, log1p) X(sqrt, sqrt) X(cbrt, cbrt) \
    X(sin, sin) X(cos, cos) X(tan, tan) X(asin, asin) X(acos, acos) X(atan, atan) \
    X(sinh, sinh) X(cosh, cosh) X(tanh, tanh) X(asinh, asinh) X(acosh, acosh) X(atanh, atanh) \
    X(sigmoid, sigmoid) X(softplus, softplus) X(logit, logit) \
    X(erf, erf) X(erfc, erfc) X(erfinv, erfinv) X(abs, abs) X(relu, relu)

/// The two-operand primitives with a function in both modes (tensor name second).
#define GRADC_BINARY_PRIMITIVES(X) \
    X(pow, pow) X(atan2, atan2) X(hypot, hypot) X(max, maximum) X(min, minimum)
// clang-format on

namespace gradc::rules {

#define GRADC_RULE_DECLARE(rule, tensor_op) struct rule;
GRADC_UNARY_PRIMITIVES(GRADC_RULE_DECLARE)
GRADC_BINARY_PRIMITIVES(GRADC_RULE_DECLARE)
#undef GRADC_RULE_DECLARE
struct add;
struct sub;
struct mul;
struct div;
struct neg;
struct where;

}  // namespace gradc::rules
