#pragma once
/// \file
/// Shapes of expressions, fixed when the expression is built: a scalar, a vector of N
/// entries, or an R×C matrix (row-major), where an extent may be `gradc::dynamic_extent`
/// (given by the arguments when the kernel is called, and checked then). Every expression type has a member
/// `static constexpr dims shape`; a node's shape is computed from its operands' shapes
/// when its type is built (one constant per node, no walk), and a mistake — adding a
/// vec<3> to a vec<4>, multiplying a mat<4,3> by a vec<4> — fails there, with both
/// shapes in the message's instantiation context.

#include <cstddef>

#include <gradc/rules/arrays/dims.hpp>

namespace gradc::expr {

using rules::arrays::broadcast;
using rules::arrays::dynamic_extent;
using rules::arrays::extents_fit;
using rules::arrays::shapes_fit;
using rules::arrays::dims;
using rules::arrays::invalid_dims;
using rules::arrays::matrix_dims;
using rules::arrays::scalar_dims;
using rules::arrays::shape_kind;
using rules::arrays::vector_dims;

/// The shape tag a variable is made from: `gradc::vec<3>` is a `shape_tag<{3, 1, vector}>`.
template <dims D>
struct shape_tag {
    static constexpr dims value = D;  ///< The shape.
};

/// The shape of an operand: an expression's member, or a scalar for a number.
template <class E>
struct shape_of_operand {
    static constexpr dims value = scalar_dims;  ///< A number's: scalar.
};
/// An expression's shape.
template <class E>
    requires requires { E::shape; }
struct shape_of_operand<E> {
    static constexpr dims value = E::shape;  ///< The expression's shape.
};

}  // namespace gradc::expr

namespace gradc {

/// Shapes for `gradc::variables(gradc::scalar, gradc::vec<4>, gradc::mat<4, 3>)`.
inline constexpr expr::shape_tag<expr::scalar_dims> scalar{};
/// `vec<N>`: a vector of N entries.
template <std::size_t N>
inline constexpr expr::shape_tag<expr::vector_dims(N)> vec{};
/// An extent known only when a kernel is called: `vec<dynamic_extent>`,
/// `mat<dynamic_extent, 3>` (docs/static.md, "Extents known at run time").
inline constexpr std::size_t dynamic_extent = rules::arrays::dynamic_extent;
/// `mat<R, C>`: an R×C matrix, row-major.
template <std::size_t R, std::size_t C>
inline constexpr expr::shape_tag<expr::matrix_dims(R, C)> mat{};

}  // namespace gradc
