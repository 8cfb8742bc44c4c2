#pragma once
/// \file
/// Functions on array expressions, found by argument-dependent lookup: products
/// (`matvec`, `matmul`, `dot`, `outer`, `transpose`, `hadamard`), reductions (`sum`,
/// `mean`, `squared_norm`, `max`, `min`, `log_sum_exp`) and `softmax`; prefix sums and
/// factorisations (expr/array_factorisations.hpp); parts (`row`, `last_row`,
/// `col`, `segment`, `diag`, `lower_triangular`) and wholes (`concat`, `stack`,
/// `reshape_as`); and the
/// compile-time loop `gradc::sum_over<K>`. Each checks its operands' shapes first and
/// says in words what it needs; the operations themselves are in rules/arrays/.

#include <cstddef>
#include <type_traits>
#include <utility>

#include <gradc/expr/array_factorisations.hpp>
#include <gradc/expr/functions.hpp>
#include <gradc/expr/loop_counter.hpp>
#include <gradc/expr/nodes.hpp>
#include <gradc/expr/operators.hpp>
#include <gradc/expr/shape_errors.hpp>
#include <gradc/rules/arithmetic.hpp>
#include <gradc/rules/arrays/access.hpp>
#include <gradc/rules/arrays/building.hpp>
#include <gradc/rules/arrays/last_part.hpp>
#include <gradc/rules/arrays/reshape.hpp>
#include <gradc/rules/arrays/products.hpp>
#include <gradc/rules/arrays/reductions.hpp>

namespace gradc::expr {

namespace arrays = rules::arrays;

// ---- products ----------------------------------------------------------------------

/// A·x for a mat<R, C> A and a vec<C> x: a vec<R> (the same as `a * x`).
template <Expression A, Expression X>
constexpr auto matvec(const A& a, const X& x) {
    static_assert((A::shape.is_matrix() && X::shape.is_vector() && extents_fit(A::shape.cols, X::shape.rows)) ||
                      shapes_are<A::shape, X::shape>::fine,
                  "gradc::matvec(A, x): A must be a mat<R, C> and x a vec<C> (shapes_are<...> below lists the shapes)");
    return a * x;  // the product operator, which also knows a packed lower-triangular A
}

/// A·B for a mat<R, K> and a mat<K, C>: a mat<R, C> (the same as `a * b`).
template <Expression A, Expression B>
constexpr auto matmul(const A& a, const B& b) {
    static_assert((A::shape.is_matrix() && B::shape.is_matrix() && extents_fit(A::shape.cols, B::shape.rows)) ||
                      shapes_are<A::shape, B::shape>::fine,
                  "gradc::matmul(A, B): A must be a mat<R, K> and B a mat<K, C> (shapes_are<...> below lists the shapes)");
    return make_node<arrays::matmul>(a, b);
}

/// Aᵀ of a matrix expression.
template <Expression A>
constexpr auto transpose(const A& a) {
    static_assert(A::shape.is_matrix() || shapes_are<A::shape>::fine,
                  "gradc::transpose(A): A must be a matrix; a vector has no orientation here (use dot or outer)");
    return make_node<arrays::transpose>(a);
}

/// Σᵢ aᵢ·bᵢ of two vectors of one length: a scalar.
template <Expression A, Expression B>
constexpr auto dot(const A& a, const B& b) {
    static_assert((A::shape.is_vector() && shapes_fit(A::shape, B::shape)) || shapes_are<A::shape, B::shape>::fine,
                  "gradc::dot(a, b): a and b must be vectors of one length (shapes_are<...> below lists the shapes)");
    return make_node<arrays::dot>(a, b);
}

/// a·bᵀ of a vec<R> and a vec<C>: a mat<R, C>.
template <Expression A, Expression B>
constexpr auto outer(const A& a, const B& b) {
    static_assert((A::shape.is_vector() && B::shape.is_vector()) || shapes_are<A::shape, B::shape>::fine,
                  "gradc::outer(a, b): a and b must be vectors (shapes_are<...> below lists the shapes)");
    return make_node<arrays::outer>(a, b);
}

/// The elementwise product of two arrays of one shape (`*` of two matrices is matmul).
template <Expression A, Expression B>
constexpr auto hadamard(const A& a, const B& b) {
    static_assert(shapes_fit(A::shape, B::shape) || shapes_are<A::shape, B::shape>::fine,
                  "gradc::hadamard(A, B): A and B must have one shape (shapes_are<...> below lists the shapes)");
    return make_node<rules::mul>(a, b);
}

// ---- reductions and softmax --------------------------------------------------------

#define GRADC_ARRAY_REDUCTION(function, op)                                                                  \
    template <Expression A>                                                                                  \
    constexpr auto function(const A& a) {                                                                    \
        static_assert(!A::shape.is_scalar() || shapes_are<A::shape>::fine,                                   \
                      "gradc::" #function "(x): x must be a vector or a matrix (it reduces all its entries)"); \
        return make_node<op>(a);                                                                             \
    }
GRADC_ARRAY_REDUCTION(sum, arrays::sum)
GRADC_ARRAY_REDUCTION(mean, arrays::mean)
GRADC_ARRAY_REDUCTION(squared_norm, arrays::squared_norm)
GRADC_ARRAY_REDUCTION(max, arrays::max_entry)
GRADC_ARRAY_REDUCTION(min, arrays::min_entry)
GRADC_ARRAY_REDUCTION(log_sum_exp, arrays::log_sum_exp)
#undef GRADC_ARRAY_REDUCTION

/// exp(xᵢ - m) / Σⱼ exp(xⱼ - m) over the entries of a vector (m the maximum, for stability).
template <Expression A>
constexpr auto softmax(const A& a) {
    static_assert(A::shape.is_vector() || shapes_are<A::shape>::fine, "gradc::softmax(x): x must be a vector");
    return make_node<arrays::softmax>(a);
}

// ---- parts -------------------------------------------------------------------------

/// Row I of a matrix, as a vector.
template <std::size_t I, Expression A>
constexpr auto row(const A& a) {
    static_assert((A::shape.is_matrix() && I < A::shape.rows) || shapes_are<A::shape>::fine,
                  "gradc::row<i>(W): W must be a matrix with more than i rows");
    return make_node<arrays::row_of<I>>(a);
}
/// Row K of a matrix, the index a `std::integral_constant` (`row(W, k)` inside `sum_over`).
template <Expression A, class I, I K>
constexpr auto row(const A& a, std::integral_constant<I, K>) {
    return row<std::size_t(K)>(a);
}

/// Row i of a matrix, i an integer checked now (gradc::Error if out of range) and read by
/// the kernel when it runs (expr/entry_access.hpp).
template <Expression A, runtime_index I>
auto row(const A& a, I i) {
    static_assert(A::shape.is_matrix() || shapes_are<A::shape>::fine, "gradc::row(W, i): W must be a matrix");
    if constexpr (A::shape.is_matrix()) {  // only the static_assert's message when it fails
        const std::size_t k = checked_index(i, A::shape.rows, "gradc::row(W, i)", "i", shape_words(A::shape));
        return make_node<arrays::row_at>(a, k);
    }
}

/// Row k of a matrix, k the counter of a loop whose count is known when the kernel runs
/// (`row(M, k)` inside `gradc::sum_over(n, f)`), or a scalar expression of counters
/// (`row(M, 2 * k + 1)`): checked then.
template <Expression A, class K>
    requires(is_loop_counter<K> || (Expression<K> && K::shape.is_scalar()))
auto row(const A& a, const K& k) {
    static_assert(A::shape.is_matrix() || shapes_are<A::shape>::fine, "gradc::row(W, k): W must be a matrix");
    if constexpr (A::shape.is_matrix()) return make_node<arrays::row_at>(a, k);
}

/// Column J of a matrix, as a vector.
template <std::size_t J, Expression A>
constexpr auto col(const A& a) {
    static_assert((A::shape.is_matrix() && J < A::shape.cols) || shapes_are<A::shape>::fine,
                  "gradc::col<j>(W): W must be a matrix with more than j columns");
    return make_node<arrays::col_of<J>>(a);
}
/// Column K of a matrix, the index a `std::integral_constant`.
template <Expression A, class J, J K>
constexpr auto col(const A& a, std::integral_constant<J, K>) {
    return col<std::size_t(K)>(a);
}

/// Column j of a matrix, j an integer checked now (gradc::Error if out of range) and read
/// by the kernel when it runs (expr/entry_access.hpp).
template <Expression A, runtime_index J>
auto col(const A& a, J j) {
    static_assert(A::shape.is_matrix() || shapes_are<A::shape>::fine, "gradc::col(W, j): W must be a matrix");
    if constexpr (A::shape.is_matrix()) {  // only the static_assert's message when it fails
        const std::size_t k = checked_index(j, A::shape.cols, "gradc::col(W, j)", "j", shape_words(A::shape));
        return make_node<arrays::col_at>(a, k);
    }
}

/// Column k of a matrix, k the counter of a loop whose count is known when the kernel
/// runs: checked then.
template <Expression A, class Tag>
auto col(const A& a, const loop_counter<Tag>& k) {
    static_assert(A::shape.is_matrix() || shapes_are<A::shape>::fine, "gradc::col(W, k): W must be a matrix");
    if constexpr (A::shape.is_matrix()) return make_node<arrays::col_at>(a, k);
}

/// Entries [Offset, Offset + Count) of a vector.
template <std::size_t Offset, std::size_t Count, Expression A>
constexpr auto segment(const A& a) {
    static_assert((A::shape.is_vector() && Count > 0 && Offset + Count <= A::shape.rows) ||
                      shapes_are<A::shape>::fine,
                  "gradc::segment<offset, n>(x): x must be a vector with at least offset + n entries, n > 0");
    return make_node<arrays::segment_of<Offset, Count>>(a);
}

/// A scalar expression: an index computed from loop counters (`k * m`) is one.
template <class E>
concept scalar_expression = Expression<E> && E::shape.is_scalar();

/// Entries [offset, offset + n) of a vector, offset and n plain integers (or offset a
/// loop's counter, or a scalar expression of counters such as `k * m`: an index, with no
/// derivative) read by the kernel when it runs: one compiled kernel for every offset
/// and n. The result's extent is run-time (`vec<dynamic_extent>`), so the kernel takes
/// the calls of run-time extents (docs/static.md, "Extents known at run time"). Checked
/// now against a fixed length (gradc::Error), else when the kernel runs.
template <Expression A, class O, class N>
    requires((run_time_index_operand<O> || scalar_expression<O>) && runtime_index<N>)
auto segment(const A& a, const O& offset, N n) {
    static_assert(A::shape.is_vector() || shapes_are<A::shape>::fine, "gradc::segment(x, offset, n): x must be a vector");
    if constexpr (A::shape.is_vector()) {
        const std::string of = shape_words(A::shape);
        const std::size_t count = checked_index(n, A::shape.rows == dynamic_extent ? dynamic_extent : A::shape.rows + 1,
                                                "gradc::segment(x, offset, n)", "n", of);
        if constexpr (runtime_index<O>) {
            const std::size_t start = checked_index(offset, A::shape.rows == dynamic_extent ? dynamic_extent
                                                                                             : A::shape.rows - count + 1,
                                                    "gradc::segment(x, offset, n)", "offset", of);
            return make_node<arrays::segment_at>(a, start, count);
        } else {
            return make_node<arrays::segment_at>(a, offset, count);
        }
    }
}

/// The diagonal of a matrix, as a vector of min(R, C) entries.
template <Expression A>
constexpr auto diag(const A& a) {
    static_assert(A::shape.is_matrix() || shapes_are<A::shape>::fine, "gradc::diag(W): W must be a matrix");
    return make_node<arrays::diag_of>(a);
}

/// The entry x[i] of a vector or W(i, j) of a matrix, indices fixed in the type.
template <std::size_t I, Expression A>
constexpr auto element(const A& a) {
    static_assert((A::shape.is_vector() && I < A::shape.rows) || shapes_are<A::shape>::fine,
                  "gradc: x[i] needs a vector x with more than i entries");
    return make_node<arrays::element<I, 0>>(a);
}
/// The entry W(I, J) of a matrix, indices fixed in the type.
template <std::size_t I, std::size_t J, Expression A>
constexpr auto element(const A& a) {
    static_assert((A::shape.is_matrix() && I < A::shape.rows && J < A::shape.cols) || shapes_are<A::shape>::fine,
                  "gradc: W(i, j) needs a matrix W with more than i rows and j columns");
    return make_node<arrays::element<I, J>>(a);
}

/// A d×d lower-triangular matrix from d(d+1)/2 packed values (rules/arrays/access.hpp
/// gives the order: the diagonal first, then the strict lower part column by column).
template <std::size_t D, Expression A>
constexpr auto lower_triangular(const A& a) {
    static_assert((A::shape.is_vector() && extents_fit(A::shape.rows, D * (D + 1) / 2)) || shapes_are<A::shape>::fine,
                  "gradc::lower_triangular<d>(v): v must be a vector of d(d+1)/2 entries");
    return make_node<arrays::lower_triangular_of<D>>(a);
}

/// The d×d lower-triangular matrix of a vector of d(d+1)/2 packed values, d deduced from
/// its length: at compile time for a fixed length, when the kernel runs for a run-time
/// one (gradc::Error there if the length is not triangular).
template <Expression A>
constexpr auto lower_triangular(const A& a) {
    static_assert(A::shape.is_vector() || shapes_are<A::shape>::fine,
                  "gradc::lower_triangular(v): v must be a vector of d(d+1)/2 entries");
    if constexpr (A::shape.is_vector()) {
        constexpr std::size_t d = A::shape.rows == dynamic_extent
                                      ? dynamic_extent
                                      : arrays::lower_triangular_of<dynamic_extent>::side_of(A::shape.rows);
        static_assert(A::shape.rows == dynamic_extent || d != dynamic_extent,
                      "gradc::lower_triangular(v): v's length is not d(d+1)/2 for any d");
        return make_node<arrays::lower_triangular_of<d>>(a);
    }
}

// ---- wholes ------------------------------------------------------------------------

/// Scalars and vectors end to end: one vector.
template <class... A>
    requires(Expression<A> && ...)
constexpr auto concat(const A&... a) {
    static_assert(((!A::shape.is_matrix()) && ...), "gradc::concat(a, b, ...): every part must be a vector or a scalar");
    return make_node<arrays::concat_parts>(a...);
}

/// x's entries, row-major, in the shape of `like` (whose values are not read; the two
/// hold as many entries: checked when built if both are fixed, else when the kernel runs).
template <Expression X, Expression Like>
constexpr auto reshape_as(const X& x, const Like& like) {
    return make_node<arrays::reshaped_as>(x, like);
}

/// The last row of a matrix as a vector (the last entry of a vector), whatever its number
/// of rows: the last of a loop's ys (JAX's `ys[-1]`). A matrix without rows throws
/// gradc::Error when the kernel runs.
template <Expression M>
constexpr auto last_row(const M& m) {
    static_assert(!M::shape.is_scalar(), "gradc::last_row(M): M must be a matrix or a vector");
    return make_node<arrays::last_row_of>(m);
}

/// Vectors of one length as the rows of a matrix.
template <class A0, class... A>
    requires(Expression<A0> && (Expression<A> && ...))
constexpr auto stack(const A0& a0, const A&... a) {
    static_assert((A0::shape.is_vector() && (shapes_fit(A::shape, A0::shape) && ...)) ||
                      shapes_are<A0::shape, A::shape...>::fine,
                  "gradc::stack(rows...): every row must be a vector of one length");
    return make_node<arrays::stack_rows>(a0, a...);
}

}  // namespace gradc::expr

namespace gradc {

/// A named constant: `const auto half = gradc::constant([] { return 0.5; });` (or a type
/// with a static `value`: `gradc::constant<my_tag>()`). Its value is part of its type,
/// so every subtree using it is one node however often it appears, where a literal 0.5
/// keeps each subtree around it apart (docs/static.md, "Named constants").
template <class F>
constexpr auto constant(F) {
    return expr::named_constant<F>{};
}
/// The named constant whose value is `Tag::value`.
template <class Tag>
constexpr auto constant() {
    return expr::named_constant<Tag>{};
}

/// `gradc::index<2>`: a compile-time index, for `x[gradc::index<2>]` and `W(gradc::index<1>, gradc::index<0>)`.
template <std::size_t I>
inline constexpr std::integral_constant<std::size_t, I> index{};

/// Σₖ f(k) for k = 0, …, K-1, with k a `std::integral_constant<std::size_t, k>`: the terms
/// are built once each at compile time (K structurally equal terms, indexed by k).
template <std::size_t K, class F>
constexpr auto sum_over(F&& f) {
    static_assert(K >= 1, "gradc::sum_over<K>(f): K must be at least 1");
    return [&]<std::size_t... k>(std::index_sequence<k...>) {
        return (f(std::integral_constant<std::size_t, k>{}) + ...);
    }(std::make_index_sequence<K>{});
}

/// concat(f(0), …, f(K-1)): K structurally equal scalar or vector terms end to end
/// (for example the K terms of a log-sum-exp over mixture components).
template <std::size_t K, class F>
constexpr auto concat_over(F&& f) {
    static_assert(K >= 1, "gradc::concat_over<K>(f): K must be at least 1");
    return [&]<std::size_t... k>(std::index_sequence<k...>) {
        return expr::concat(f(std::integral_constant<std::size_t, k>{})...);
    }(std::make_index_sequence<K>{});
}

using expr::cholesky;
using expr::col;
using expr::concat;
using expr::cumsum;
using expr::diag;
using expr::dot;
using expr::element;
using expr::hadamard;
using expr::last_row;
using expr::log_det;
using expr::log_sum_exp;
using expr::lower_triangular;
using expr::matmul;
using expr::matvec;
using expr::mean;
using expr::outer;
using expr::row;
using expr::reshape_as;
using expr::segment;
using expr::solve;
using expr::softmax;
using expr::squared_norm;
using expr::stack;
using expr::sum;
using expr::transpose;

}  // namespace gradc
