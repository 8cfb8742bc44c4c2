#pragma once
/// \file
/// Arithmetic and comparison operators on expressions. One side must be a gradc
/// expression; the other may be an expression or a number.

#include <gradc/expr/nodes.hpp>
#include <gradc/expr/shape_errors.hpp>
#include <gradc/rules/arithmetic.hpp>
#include <gradc/rules/arrays/products.hpp>
#include <gradc/rules/arrays/triangular.hpp>
#include <gradc/rules/compare.hpp>

namespace gradc::expr {

// clang-format off
#define GRADC_BINARY_OPERATOR(op, rule)                                                   \
    template <class A, class B> requires(Expression<A> || Expression<B>)                  \
    constexpr auto operator op(const A& a, const B& b) {                                  \
        static_assert(Operand<A> && Operand<B>, "gradc: an operand of '" #op "' is neither a " \
                      "gradc expression nor a number (double, float or an integer type)");     \
        if constexpr (Operand<A> && Operand<B>) { GRADC_RETURN_NODE2(rule, a, b) }      \
    }
GRADC_BINARY_OPERATOR(+, rules::add)
GRADC_BINARY_OPERATOR(-, rules::sub)
GRADC_BINARY_OPERATOR(/, rules::div)
#undef GRADC_BINARY_OPERATOR

/// A lower-triangular matrix made from packed values, and those values.
// How `lower_triangular<D>(v) * x` finds its packed values: machinery of operator*, left
// out of the API reference.
/// \cond INTERNAL
template <class A>
inline constexpr bool is_packed_lower = false;
template <std::size_t D, class V>
inline constexpr bool is_packed_lower<node<rules::arrays::lower_triangular_of<D>, V>> = true;
template <std::size_t D, class V>
constexpr V packed_operand(const node<rules::arrays::lower_triangular_of<D>, V>& l) {
    if constexpr (V::graph::literals == 0) {
        return V{};
    } else {
        // The node keeps its subtree's literals in graph order, its operand's first.
        V v{};
        for (std::size_t i = 0; i < V::graph::literals; ++i) v.literal_values[i] = l.literal_values[i];
        return v;
    }
}

/// \endcond
/// `*`: a product for matrix · vector and matrix · matrix (rules/arrays/products.hpp),
/// elementwise otherwise (a scalar beside an array, or two arrays of one shape).
template <class A, class B> requires(Expression<A> || Expression<B>)
constexpr auto operator*(const A& a, const B& b) {
    static_assert(Operand<A> && Operand<B>, "gradc: an operand of '*' is neither a "
                  "gradc expression nor a number (double, float or an integer type)");
    if constexpr (Operand<A> && Operand<B>) {
        constexpr dims sa = shape_of_operand<A>::value, sb = shape_of_operand<B>::value;
        if constexpr (sa.is_matrix() && sb.is_vector()) {
            static_assert(extents_fit(sa.cols, sb.rows) || shapes_are<sa, sb>::fine,
                          "gradc: mat<R, C> * vec<N> is a matrix-vector product and needs N == C "
                          "(shapes_are<...> below lists the shapes)");
            if constexpr (is_packed_lower<A>) {
                // lower_triangular<D>(v) * x: straight from the packed values (rules/arrays/triangular.hpp).
                return make_node<rules::arrays::packed_lower_matvec<sa.rows>>(packed_operand(a), b);
            } else {
                return make_node<rules::arrays::matvec>(a, b);
            }
        } else if constexpr (sa.is_matrix() && sb.is_matrix()) {
            static_assert(extents_fit(sa.cols, sb.rows) || shapes_are<sa, sb>::fine,
                          "gradc: mat<R, K> * mat<K2, C> is a matrix product and needs K == K2; the "
                          "elementwise product of two matrices is hadamard(A, B) "
                          "(shapes_are<...> below lists the shapes)");
            return make_node<rules::arrays::matmul>(a, b);
        } else {
            static_assert(!(sa.is_vector() && sb.is_matrix()) || shapes_are<sa, sb>::fine,
                          "gradc: vec * mat is not defined: write transpose(W) * x for Wᵀx, or dot(x, y)");
            GRADC_RETURN_NODE2(rules::mul, a, b)
        }
    }
}

#define GRADC_COMPARISON(op, cmp)                                                         \
    template <class A, class B> requires(Expression<A> || Expression<B>)                  \
    constexpr auto operator op(const A& a, const B& b) {                                  \
        static_assert(Operand<A> && Operand<B>, "gradc: an operand of '" #op "' is neither a " \
                      "gradc expression nor a number (double, float or an integer type)");     \
        if constexpr (Operand<A> && Operand<B>)                                           \
            return make_condition<cmp>(expression_of_t<A>{a}, expression_of_t<B>{b});       \
    }
GRADC_COMPARISON(<, rules::less)
GRADC_COMPARISON(<=, rules::less_equal)
GRADC_COMPARISON(>, rules::greater)
GRADC_COMPARISON(>=, rules::greater_equal)
GRADC_COMPARISON(==, rules::equal_to)
GRADC_COMPARISON(!=, rules::not_equal_to)
#undef GRADC_COMPARISON
// clang-format on

/// -a.
template <Expression A>
constexpr auto operator-(const A& a) {
    GRADC_RETURN_NODE1(rules::neg, a)
}

/// +a: a itself.
template <Expression A>
constexpr const A& operator+(const A& a) {
    return a;
}

/// Both conditions hold.
template <Condition A, Condition B>
constexpr auto operator&&(const A& a, const B& b) {
    return make_condition<rules::logical_and_op>(a, b);
}

/// Either condition holds.
template <Condition A, Condition B>
constexpr auto operator||(const A& a, const B& b) {
    return make_condition<rules::logical_or_op>(a, b);
}

/// The condition does not hold.
template <Condition A>
constexpr auto operator!(const A& a) {
    return make_condition<rules::logical_not_op>(a);
}

}  // namespace gradc::expr
