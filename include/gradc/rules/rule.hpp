#pragma once
/// What a primitive of the rule table is. A rule is a stateless type with
///  - `name`: the primitive's name, as printed in lowered programs;
///  - `arity`: the number of operands;
///  - `eval(a, ...)`: the value, generic in the value type `T`;
///  - `partial(arg<I>, a, ..., y)`: the local partial derivative with respect to
///    operand `I`, given the operands and the primitive's own result `y`;
///  - `partial_text[I]`: that partial written with `a`, `b`, `c` for the operands and
///    `y` for the result, used only to print lowered programs.
/// Operands listed in `nondifferentiable` (the condition of `where`) have no partial.
///
/// Optional, for speed only (the lowering uses them when present; nothing else does):
///  - `eval_with_partials(a, ...)`: the value and every operand's partial in one go, as
///    a `value_and_partials<T, arity>`, for primitives whose value and partials share
///    work (sin and cos: one `sincos`; erfc: the e^(-a²) of its own evaluation). It must
///    return exactly `eval` and `partial` (tests/rules/test_fused.cpp checks it); the
///    primal of a gradient, JVP or VJP uses it for the nodes whose partials are swept.
///  - `affine_in<R, I>`: R is affine in operand I when the others are held fixed,
///    R(..., a_I, ...) = α·a_I + β with α (the partial) and β depending only on the other
///    operands, so that partial never reads a_I or y; `linear` when β = 0. Map-reduce
///    uses it to sum before applying such operations (docs/static.md, "Map-reduce: what
///    is computed once").
///  - `eval_fixed(arg<I>, a, ...)`: the value when operand I is the same at every point
///    of a map-reduce and the others are not (div: a·(1/b), the reciprocal hoisted).

#include <array>
#include <cstddef>
#include <string_view>

#include <gradc/rules/partial.hpp>

namespace gradc::rules {

template <class R>
concept Rule = requires {
    { R::name } -> std::convertible_to<std::string_view>;
    { R::arity } -> std::convertible_to<int>;
    requires R::arity >= 1 && R::arity <= 3;
    { R::partial_text } -> std::convertible_to<std::array<std::string_view, R::arity>>;
};

/// Operand I of rule R carries a derivative (true for every operand but a condition).
template <class R, int I>
inline constexpr bool is_differentiable_operand = true;

/// How R depends on operand I when the other operands are held fixed (see above).
enum class affinity { none, affine, linear };
template <class R, int I>
inline constexpr affinity affine_in = affinity::none;

/// What `eval_with_partials` returns: the value y and ∂y/∂a_k for every operand k.
template <class T, std::size_t N>
struct value_and_partials {
    T value;
    std::array<T, N> partial;
};

/// R has the fused `eval_with_partials` for operands of type T (every operand a value).
template <class R, class T>
concept fused_rule = requires(const T& a) {
    requires R::arity == 1;
    R::eval_with_partials(a);
} || requires(const T& a) {
    requires R::arity == 2;
    R::eval_with_partials(a, a);
};

}  // namespace gradc::rules
