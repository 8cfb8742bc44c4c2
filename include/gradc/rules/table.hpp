#pragma once
/// The rule table: every differentiable primitive, in one list. Table-driven tests
/// iterate over it, so a primitive added here is tested (or the tests fail to compile).

#include <boost/hana/tuple.hpp>
#include <boost/hana/type.hpp>

#include <gradc/rules/arithmetic.hpp>
#include <gradc/rules/exponential.hpp>
#include <gradc/rules/hyperbolic.hpp>
#include <gradc/rules/piecewise.hpp>
#include <gradc/rules/special.hpp>
#include <gradc/rules/trigonometric.hpp>

namespace gradc::rules {

inline constexpr auto all = boost::hana::tuple_t<
    add, sub, mul, div, neg,
    exp, exp2, expm1, log, log2, log10, log1p, sqrt, cbrt, pow,
    sin, cos, tan, asin, acos, atan, atan2, hypot,
    sinh, cosh, tanh, sigmoid, softplus,
    erf, erfc,
    abs, relu, max, min, where>;

}  // namespace gradc::rules
