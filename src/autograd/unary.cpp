// The unary functions of the rule table on tensors.
#include <gradc/autograd/elementwise.hpp>

#include "elementwise.hpp"

namespace gradc {

namespace r = rules;
using detail::unary_op;

Tensor neg(const Tensor& a) { return unary_op<r::neg>(a); }
Tensor exp(const Tensor& a) { return unary_op<r::exp>(a); }
Tensor exp2(const Tensor& a) { return unary_op<r::exp2>(a); }
Tensor expm1(const Tensor& a) { return unary_op<r::expm1>(a); }
Tensor log(const Tensor& a) { return unary_op<r::log>(a); }
Tensor log2(const Tensor& a) { return unary_op<r::log2>(a); }
Tensor log10(const Tensor& a) { return unary_op<r::log10>(a); }
Tensor log1p(const Tensor& a) { return unary_op<r::log1p>(a); }
Tensor sqrt(const Tensor& a) { return unary_op<r::sqrt>(a); }
Tensor cbrt(const Tensor& a) { return unary_op<r::cbrt>(a); }
Tensor sin(const Tensor& a) { return unary_op<r::sin>(a); }
Tensor cos(const Tensor& a) { return unary_op<r::cos>(a); }
Tensor tan(const Tensor& a) { return unary_op<r::tan>(a); }
Tensor asin(const Tensor& a) { return unary_op<r::asin>(a); }
Tensor acos(const Tensor& a) { return unary_op<r::acos>(a); }
Tensor atan(const Tensor& a) { return unary_op<r::atan>(a); }
Tensor sinh(const Tensor& a) { return unary_op<r::sinh>(a); }
Tensor cosh(const Tensor& a) { return unary_op<r::cosh>(a); }
Tensor tanh(const Tensor& a) { return unary_op<r::tanh>(a); }
Tensor sigmoid(const Tensor& a) { return unary_op<r::sigmoid>(a); }
Tensor softplus(const Tensor& a) { return unary_op<r::softplus>(a); }
Tensor erf(const Tensor& a) { return unary_op<r::erf>(a); }
Tensor erfc(const Tensor& a) { return unary_op<r::erfc>(a); }
Tensor relu(const Tensor& a) { return unary_op<r::relu>(a); }
Tensor square(const Tensor& a) { return mul(a, a); }

Tensor operator-(const Tensor& a) { return neg(a); }

}  // namespace gradc
