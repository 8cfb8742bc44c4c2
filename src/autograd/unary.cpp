// The unary functions of the rule table on tensors: one per entry of rules/list.hpp.
#include <gradc/autograd/elementwise.hpp>

#include "elementwise.hpp"

namespace gradc {

namespace r = rules;
using detail::unary_op;

Tensor neg(const Tensor& a) { return unary_op<r::neg>(a); }

#define GRADC_DEFINE_UNARY(rule, op) \
    Tensor op(const Tensor& a) { return unary_op<r::rule>(a); }
GRADC_UNARY_PRIMITIVES(GRADC_DEFINE_UNARY)
#undef GRADC_DEFINE_UNARY

Tensor square(const Tensor& a) { return mul(a, a); }

Tensor operator-(const Tensor& a) { return neg(a); }

}  // namespace gradc
