#pragma once
/// \file
/// What a primitive of the rule table is. A rule is a stateless type with
///  - `name`: the primitive's name, as printed in lowered programs;
///  - `arity`: the number of operands;
///  - `eval(a, ...)`: the value, generic in the value type `T`;
///  - `partial(arg<I>, a, ..., y)`: the local partial derivative with respect to
///    operand `I`, given the operands and the primitive's own result `y`;
///  - `partial_text[I]`: that partial written with `a`, `b`, `c` for the operands and
///    `y` for the result, used only to print lowered programs;
///  - `reads`: which of a, b, c and y the partials read (`reads_t`, below). The dynamic
///    mode saves exactly these tensors for the backward pass;
///  - `domain`: where finite differences of the rule are meaningful (`test_domain`,
///    below); the table-driven tests check the rule there.
/// Operands listed in `nondifferentiable` (the condition of `where`) have no partial.
/// Optional, declarative:
///  - `complex_form = true`: the rule is holomorphic and `eval`/`partial` are valid on
///    `std::complex` (the field operations, exp, log, the circular and hyperbolic
///    functions...). The dynamic mode then accepts complex tensors for it, and the tests
///    check it against complex finite differences. Without it, complex tensors are refused.
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
///  - `piecewise_constant_partials<R>`: every partial of R is constant wherever it is
///    differentiable (abs, relu, min, max: it only reads its operands to choose a
///    constant), so R adds nothing to a Hessian. `hessian_diagonal` uses it to see that
///    a Hessian is diagonal (lower/hessian_structure.hpp).

#include <array>
#include <cstddef>
#include <limits>
#include <string_view>

#include <gradc/rules/partial.hpp>

namespace gradc::rules {

/// The values a rule's partials read, as flags: operands a, b, c and the result y.
/// Written with designated initialisers, `reads_t{.a = true, .y = true}`. Declaring a
/// value that is not read costs a saved tensor; omitting one that is read is caught by
/// tests/rules/test_partials.cpp (the partial changes when the omitted value is NaN).
struct reads_t {
    bool a = false;  ///< The first operand.
    bool b = false;  ///< The second operand.
    bool c = false;  ///< The third operand.
    bool y = false;  ///< The rule's own result.
    /// Whether operand `i` (0 = a, 1 = b, 2 = c) is read.
    constexpr bool operand(int i) const { return i == 0 ? a : i == 1 ? b : c; }
};

/// Where a rule is tested: a set of points inside its domain and away from kinks and
/// poles, so that central differences approximate the derivative. Each value names an
/// open interval for every operand (`domain_interval`); the tests hold the concrete
/// points (tests/rules/domains.hpp) and check that they lie inside.
enum class test_domain {
    everywhere,       ///< (-inf, inf)
    positive,         ///< (0, inf): log, sqrt, pow
    above_minus_one,  ///< (-1, inf): log1p
    above_one,        ///< (1, inf): acosh
    inside_unit,      ///< (-1, 1): asin, acos, atanh
    probability,      ///< (0, 1): logit
    moderate,         ///< (-1.5, 1.5): tan (away from its poles), cbrt (away from 0 in the points)
};

/// An open interval (lo, hi); either end may be infinite.
struct interval {
    double lo;  ///< The lower end.
    double hi;  ///< The upper end.
};

/// The interval that `d` names, for every operand of a rule tested there.
constexpr interval domain_interval(test_domain d) {
    constexpr double inf = std::numeric_limits<double>::infinity();
    switch (d) {
        case test_domain::positive: return {0, inf};
        case test_domain::above_minus_one: return {-1, inf};
        case test_domain::above_one: return {1, inf};
        case test_domain::inside_unit: return {-1, 1};
        case test_domain::probability: return {0, 1};
        case test_domain::moderate: return {-1.5, 1.5};
        case test_domain::everywhere: break;
    }
    return {-inf, inf};
}

/// A primitive of the rule table: the members listed at the top of this header
/// (`name`, `arity` 1 to 3, `partial_text`, `reads`, `domain`; `eval` and `partial` are
/// checked where they are instantiated). docs/architecture.md, "Adding a primitive".
template <class R>
concept Rule = requires {
    { R::name } -> std::convertible_to<std::string_view>;
    { R::arity } -> std::convertible_to<int>;
    requires R::arity >= 1 && R::arity <= 3;
    { R::partial_text } -> std::convertible_to<std::array<std::string_view, R::arity>>;
    { R::reads } -> std::convertible_to<reads_t>;
    { R::domain } -> std::convertible_to<test_domain>;
};

/// R is holomorphic and defined on std::complex (the optional `complex_form`).
template <class R>
inline constexpr bool has_complex_form = requires {
    requires R::complex_form;
};

/// Operand I of rule R carries a derivative (true for every operand but a condition).
template <class R, int I>
inline constexpr bool is_differentiable_operand = true;

/// How R depends on operand I when the other operands are held fixed (see above).
enum class affinity { none, affine, linear };
/// Whether `R` is affine or linear in operand `I` (the optional `affine_in` above);
/// a rule specialises it for the operands it is affine in.
template <class R, int I>
inline constexpr affinity affine_in = affinity::none;

/// Whether every partial of `R` is piecewise constant (the optional trait above); a rule
/// specialises it.
template <class R>
inline constexpr bool piecewise_constant_partials = false;

/// What `eval_with_partials` returns: the value y and ∂y/∂a_k for every operand k.
template <class T, std::size_t N>
struct value_and_partials {
    T value;  ///< y, the rule's value.
    std::array<T, N> partial;  ///< ∂y/∂a_k for each operand k.
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
