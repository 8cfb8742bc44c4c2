#pragma once
/// \file
/// The shape of an array value: a scalar, a vector of N entries, or an R×C matrix stored
/// row-major. The array operations (this folder) compute their result's shape from their
/// operands'; the expressions (expr/shape.hpp) carry one per node. An extent may be
/// `dynamic_extent`, known only when a kernel is called: the same shape rules then run a
/// second time, on the arguments' extents, when the kernel is called (lower/run_time_layout.hpp).

#include <cstddef>

namespace gradc::rules::arrays {

/// An extent known only when the kernel is called (as std::dynamic_extent is for std::span).
inline constexpr std::size_t dynamic_extent = static_cast<std::size_t>(-1);

/// Whether two extents may be equal: equal, or one of them known only at run time (then
/// checked when the kernel is called).
constexpr bool extents_fit(std::size_t a, std::size_t b) { return a == b || a == dynamic_extent || b == dynamic_extent; }

/// What a shape is: a scalar, a vector, a matrix, or invalid (operands an operation does not take).
enum class shape_kind : unsigned char { scalar, vector, matrix, invalid };

/// rows × cols, row-major; a vector is rows × 1.
struct dims {
    std::size_t rows = 1;  ///< Rows (the length, for a vector).
    std::size_t cols = 1;  ///< Columns (1 for a vector).
    shape_kind kind = shape_kind::scalar;  ///< Scalar, vector, matrix or invalid.

    /// The number of entries. Meaningless for a shape with a run-time extent (ask
    /// is_dynamic() first): kept a plain product so that loops bounded by a fixed shape's
    /// size compile as they always did.
    constexpr std::size_t size() const { return rows * cols; }
    /// Whether an extent is known only at run time.
    constexpr bool is_dynamic() const { return rows == dynamic_extent || cols == dynamic_extent; }
    constexpr bool is_scalar() const { return kind == shape_kind::scalar; }  ///< Whether a scalar.
    constexpr bool is_vector() const { return kind == shape_kind::vector; }  ///< Whether a vector.
    constexpr bool is_matrix() const { return kind == shape_kind::matrix; }  ///< Whether a matrix.
    constexpr bool valid() const { return kind != shape_kind::invalid; }  ///< Whether not invalid.
    friend constexpr bool operator==(const dims&, const dims&) = default;
};

/// The shape of a scalar.
inline constexpr dims scalar_dims{};
/// The result shape of an operation given operands it does not take.
inline constexpr dims invalid_dims{0, 0, shape_kind::invalid};
/// The shape of a vector of `n` entries.
constexpr dims vector_dims(std::size_t n) { return {n, 1, shape_kind::vector}; }
/// The shape of an `r`×`c` matrix.
constexpr dims matrix_dims(std::size_t r, std::size_t c) { return {r, c, shape_kind::matrix}; }

/// Whether two shapes may be equal: one kind, and extents that fit.
constexpr bool shapes_fit(const dims& a, const dims& b) {
    return a.kind == b.kind && extents_fit(a.rows, b.rows) && extents_fit(a.cols, b.cols);
}
/// Of two shapes that fit, the one with more extents known at compile time (each
/// extent from whichever side knows it).
constexpr dims known_of(const dims& a, const dims& b) {
    return {a.rows == dynamic_extent ? b.rows : a.rows, a.cols == dynamic_extent ? b.cols : a.cols, a.kind};
}

/// The shape of an elementwise operation: the operands' common shape, where a scalar
/// stands for an array of any shape (scalar–array broadcasting); invalid when two
/// arrays differ (or, for extents known only at run time, cannot be equal).
template <std::size_t N>
constexpr dims broadcast(const dims (&s)[N]) {
    dims r = scalar_dims;
    for (const dims& d : s) {
        if (!d.valid()) return invalid_dims;
        if (d.is_scalar()) continue;
        if (r.is_scalar()) {
            r = d;
        } else if (!shapes_fit(r, d)) {
            return invalid_dims;
        } else {
            r = known_of(r, d);
        }
    }
    return r;
}

}  // namespace gradc::rules::arrays
