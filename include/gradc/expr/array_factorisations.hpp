#pragma once
/// \file
/// Prefix sums and factorisations of array expressions, found by argument-dependent
/// lookup (expr/array_functions.hpp gathers them with the other array functions):
/// `cumsum`, `cholesky`, `solve`, `log_det`. The operations are in rules/arrays/.

#include <gradc/expr/nodes.hpp>
#include <gradc/expr/shape_errors.hpp>
#include <gradc/rules/arrays/cholesky.hpp>
#include <gradc/rules/arrays/lu.hpp>
#include <gradc/rules/arrays/prefix_sums.hpp>

namespace gradc::expr {

/// The prefix sums yᵢ = x₀ + … + xᵢ of a vector (torch.cumsum of a 1-D tensor).
template <Expression A>
constexpr auto cumsum(const A& a) {
    static_assert(A::shape.is_vector() || shapes_are<A::shape>::fine, "gradc::cumsum(x): x must be a vector");
    return make_node<rules::arrays::cumsum>(a);
}

/// The lower-triangular L with L·Lᵀ = ½(A + Aᵀ), for a square A whose symmetric part is
/// positive definite (NaN entries otherwise): rules/arrays/cholesky.hpp.
template <Expression A>
constexpr auto cholesky(const A& a) {
    static_assert((A::shape.is_matrix() && A::shape.rows == A::shape.cols) || shapes_are<A::shape>::fine,
                  "gradc::cholesky(A): A must be a square matrix, mat<n, n>");
    return make_node<rules::arrays::cholesky>(a);
}

/// X with A·X = B: A a mat<n, n>, B a vec<n> or a mat<n, m>, by LU with partial pivoting
/// (infinite or NaN entries for a singular A). Two nodes, A's factors and the
/// substitutions (rules/arrays/lu.hpp), so that an A computed once is factorised once.
template <Expression A, Expression B>
constexpr auto solve(const A& a, const B& b) {
    static_assert((A::shape.is_matrix() && A::shape.rows == A::shape.cols && !B::shape.is_scalar() &&
                   B::shape.rows == A::shape.rows) ||
                      shapes_are<A::shape, B::shape>::fine,
                  "gradc::solve(A, b): A must be a square mat<n, n> and b a vec<n> or a mat<n, m> (shapes_are<...> below "
                  "lists the shapes)");
    return make_node<rules::arrays::lu_solve>(make_node<rules::arrays::lu_factor>(a), b);
}

/// log det A of a symmetric positive-definite A, as 2·Σᵢ log Lᵢᵢ of its Cholesky factor
/// (so it reads ½(A + Aᵀ), and is NaN where that is not positive definite).
template <Expression A>
constexpr auto log_det(const A& a) {
    static_assert((A::shape.is_matrix() && A::shape.rows == A::shape.cols) || shapes_are<A::shape>::fine,
                  "gradc::log_det(A): A must be a square matrix, mat<n, n>");
    return 2.0 * sum(log(diag(cholesky(a))));
}

}  // namespace gradc::expr
