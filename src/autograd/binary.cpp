// The binary functions of the rule table on tensors, and the arithmetic operators.
#include <gradc/autograd/elementwise.hpp>

#include "elementwise.hpp"

namespace gradc {

namespace r = rules;
using detail::binary_op;

Tensor add(const Tensor& a, const Tensor& b, double alpha) {
    return binary_op<r::add>(a, alpha == 1 ? b : binary_op<r::mul>(b, Tensor(alpha)));
}
Tensor sub(const Tensor& a, const Tensor& b, double alpha) {
    return binary_op<r::sub>(a, alpha == 1 ? b : binary_op<r::mul>(b, Tensor(alpha)));
}
Tensor mul(const Tensor& a, const Tensor& b) { return binary_op<r::mul>(a, b); }
Tensor div(const Tensor& a, const Tensor& b) { return binary_op<r::div>(a, b); }
Tensor pow(const Tensor& a, double b) { return binary_op<r::pow>(a, Tensor(b)); }
Tensor pow(double a, const Tensor& b) { return binary_op<r::pow>(Tensor(a), b); }

// One function per entry of GRADC_BINARY_PRIMITIVES (rules/list.hpp).
#define GRADC_DEFINE_BINARY(rule, op) \
    Tensor op(const Tensor& a, const Tensor& b) { return binary_op<r::rule>(a, b); }
GRADC_BINARY_PRIMITIVES(GRADC_DEFINE_BINARY)
#undef GRADC_DEFINE_BINARY

Tensor operator+(const Tensor& a, const Tensor& b) { return binary_op<r::add>(a, b); }
Tensor operator-(const Tensor& a, const Tensor& b) { return binary_op<r::sub>(a, b); }
Tensor operator*(const Tensor& a, const Tensor& b) { return binary_op<r::mul>(a, b); }
Tensor operator/(const Tensor& a, const Tensor& b) { return binary_op<r::div>(a, b); }
Tensor operator+(const Tensor& a, double b) { return binary_op<r::add>(a, Tensor(b)); }
Tensor operator-(const Tensor& a, double b) { return binary_op<r::sub>(a, Tensor(b)); }
Tensor operator*(const Tensor& a, double b) { return binary_op<r::mul>(a, Tensor(b)); }
Tensor operator/(const Tensor& a, double b) { return binary_op<r::div>(a, Tensor(b)); }
Tensor operator+(double a, const Tensor& b) { return binary_op<r::add>(Tensor(a), b); }
Tensor operator-(double a, const Tensor& b) { return binary_op<r::sub>(Tensor(a), b); }
Tensor operator*(double a, const Tensor& b) { return binary_op<r::mul>(Tensor(a), b); }
Tensor operator/(double a, const Tensor& b) { return binary_op<r::div>(Tensor(a), b); }

namespace kernels {

ScalarType float_type(ScalarType t) {
    return is_differentiable_type(t) ? t : get_default_dtype();
}

ScalarType result_type(const Tensor& a, const Tensor& b) {
    const bool wa = a.unsafeGetTensorImpl()->wrapped_number, wb = b.unsafeGetTensorImpl()->wrapped_number;
    ScalarType r;
    if (wa == wb) {
        r = promote_types(a.dtype(), b.dtype());
    } else {
        // A wrapped number only lifts the category: real → complex, integer → floating.
        const ScalarType d = wa ? b.dtype() : a.dtype();
        const ScalarType w = wa ? a.dtype() : b.dtype();
        r = d;
        if (is_complex(w) && !is_complex(d)) r = to_complex_type(float_type(d));
        else if (is_differentiable_type(w) && !is_differentiable_type(d)) r = get_default_dtype();
    }
    return float_type(r);
}

}  // namespace kernels
}  // namespace gradc
