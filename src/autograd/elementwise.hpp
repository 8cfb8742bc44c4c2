#pragma once
// Elementwise operations from the rule table, with autograd: the forward kernel comes
// from `Rule::eval` (kernels/map.hpp), the backward formula is `Rule::partial`
// instantiated on Tensor and applied through `autograd::chain`, and the JVP is
// Σᵢ partialᵢ·tangentᵢ with the same partials (no conjugate: the table's complex rules are
// holomorphic, so d f = f'(z)·dz).

#include <string_view>

#include <gradc/autograd/chain.hpp>
#include <gradc/autograd/function.hpp>

#include "kernels/map.hpp"

namespace gradc::detail {

/// Whether the partial text of an operand mentions the variable `var` (a, b, c or y) as a
/// whole identifier. The rule table writes each partial both as code and as this text;
/// reading the text tells which tensors the backward formula needs, so only those are
/// saved (saving more would make harmless in-place updates fail the version check).
/// A mismatch between text and code shows up as an undefined saved tensor in the
/// table-driven tests.
constexpr bool mentions(std::string_view text, char var) {
    auto ident = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; };
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] != var) continue;
        const bool starts = i == 0 || !ident(text[i - 1]);
        const bool ends = i + 1 == text.size() || !ident(text[i + 1]);
        if (starts && ends) return true;
    }
    return false;
}

template <class Rule>
constexpr bool any_partial_mentions(char var) {
    for (auto t : Rule::partial_text)
        if (mentions(t, var)) return true;
    return false;
}

/// y = Rule(a), recorded with backward  grad · conj(Rule::partial(a, y)) and JVP
/// Rule::partial(a, y) · tangent.
template <class Rule>
Tensor unary_op(const Tensor& a) {
    check_defined(a, Rule::name.data());
    Tensor y = kernels::map1<Rule>(a, Rule::name.data());
    if (!autograd::should_record({&a})) return y;
    constexpr bool need_a = any_partial_mentions<Rule>('a');
    constexpr bool need_y = any_partial_mentions<Rule>('y');
    return autograd::record1(Rule::name, {a}, y, {need_a ? a : Tensor(), need_y ? y : Tensor()},
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
    constexpr bool need_a = any_partial_mentions<Rule>('a');
    constexpr bool need_b = any_partial_mentions<Rule>('b');
    constexpr bool need_y = any_partial_mentions<Rule>('y');
    return autograd::record1(Rule::name, {a, b}, y, {need_a ? a : Tensor(), need_b ? b : Tensor(), need_y ? y : Tensor()},
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
