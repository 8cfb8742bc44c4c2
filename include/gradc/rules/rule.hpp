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

}  // namespace gradc::rules
