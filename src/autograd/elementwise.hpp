#pragma once
// Elementwise operations from the rule table, with autograd: the forward kernel comes
// from `Rule::eval` (kernels/map.hpp), the backward formula is `Rule::partial`
// instantiated on Tensor and applied through `autograd::chain`, and the JVP is
// Σᵢ partialᵢ·tangentᵢ with the same partials (no conjugate: the table's complex rules are
// holomorphic, so d f = f'(z)·dz).

#include <type_traits>

#include <gradc/autograd/chain.hpp>
#include <gradc/autograd/function.hpp>

#include "kernels/map.hpp"

namespace gradc::detail {

/// abs of a complex tensor (the modulus; not holomorphic, so not from the rule): complex.cpp.
Tensor complex_abs(const Tensor& a);

/// y = Rule(a), recorded with backward  grad · conj(Rule::partial(a, y)) and JVP
/// Rule::partial(a, y) · tangent. The node saves the values `Rule::reads` names, and only
/// those: saving more would make harmless in-place updates fail the version check.
template <class Rule>
Tensor unary_op(const Tensor& a) {
    check_defined(a, Rule::name.data());
    if constexpr (std::is_same_v<Rule, rules::abs>) {
        if (a.is_complex()) return complex_abs(a);
    }
    Tensor y = kernels::map1<Rule>(a, Rule::name.data());
    if (!autograd::should_record({&a})) return y;
    constexpr rules::reads_t reads = Rule::reads;
    return autograd::record_single_output(Rule::name, {a}, y, {reads.a ? a : Tensor(), reads.y ? y : Tensor()},
                             [](const tensor_list& g, const autograd::BackwardContext& ctx) -> tensor_list {
                                 return {autograd::chain(Rule::partial(rules::arg<0>, ctx.saved[0], ctx.saved[1]), g[0])};
                             },
                             [](const tensor_list& t, const autograd::ForwardContext& ctx) -> tensor_list {
                                 return {rules::scale(Rule::partial(rules::arg<0>, ctx.inputs[0], ctx.outputs[0]), t[0])};
                             });
}

/// y = Rule(a, b) with broadcasting, recorded with the two partials of the rule; the
/// engine sums each gradient back to its input's shape.
template <class Rule>
Tensor binary_op(const Tensor& a, const Tensor& b) {
    check_defined(a, Rule::name.data());
    check_defined(b, Rule::name.data());
    Tensor y = kernels::map2<Rule>(a, b, Rule::name.data());
    if (!autograd::should_record({&a, &b})) return y;
    constexpr rules::reads_t reads = Rule::reads;
    return autograd::record_single_output(Rule::name, {a, b}, y, {reads.a ? a : Tensor(), reads.b ? b : Tensor(), reads.y ? y : Tensor()},
                             [](const tensor_list& g, const autograd::BackwardContext& ctx) -> tensor_list {
                                 const auto& s = ctx.saved;
                                 tensor_list out(2);
                                 if (ctx.needs(0)) out[0] = autograd::chain(Rule::partial(rules::arg<0>, s[0], s[1], s[2]), g[0]);
                                 if (ctx.needs(1)) out[1] = autograd::chain(Rule::partial(rules::arg<1>, s[0], s[1], s[2]), g[0]);
                                 return out;
                             },
                             [](const tensor_list& t, const autograd::ForwardContext& ctx) -> tensor_list {
                                 const Tensor &a = ctx.inputs[0], &b = ctx.inputs[1], &y = ctx.outputs[0];
                                 Tensor out;
                                 if (t[0].defined()) out = rules::scale(Rule::partial(rules::arg<0>, a, b, y), t[0]);
                                 if (t[1].defined()) {
                                     Tensor d = rules::scale(Rule::partial(rules::arg<1>, a, b, y), t[1]);
                                     out = out.defined() ? out + d : d;
                                 }
                                 return {out};
                             });
}

}  // namespace gradc::detail
