#pragma once
/// \file
/// The shape of an array value, fixed at compile time: a scalar, a vector of N entries,
/// or an R×C matrix stored row-major. The array operations (this folder) compute their
/// result's shape from their operands'; the expressions (expr/shape.hpp) carry one per
/// node.

#include <cstddef>

namespace gradc::rules::arrays {

/// What a shape is: a scalar, a vector, a matrix, or invalid (operands an operation does not take).
enum class shape_kind : unsigned char { scalar, vector, matrix, invalid };

/// rows × cols, row-major; a vector is rows × 1.
struct dims {
    std::size_t rows = 1;  ///< Rows (the length, for a vector).
    std::size_t cols = 1;  ///< Columns (1 for a vector).
    shape_kind kind = shape_kind::scalar;  ///< Scalar, vector, matrix or invalid.

    constexpr std::size_t size() const { return rows * cols; }  ///< The number of entries.
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

/// The shape of an elementwise operation: the operands' common shape, where a scalar
/// stands for an array of any shape (scalar–array broadcasting); invalid when two
/// arrays differ.
template <std::size_t N>
constexpr dims broadcast(const dims (&s)[N]) {
    dims r = scalar_dims;
    for (const dims& d : s) {
        if (!d.valid()) return invalid_dims;
        if (d.is_scalar()) continue;
        if (r.is_scalar()) {
            r = d;
        } else if (!(r == d)) {
            return invalid_dims;
        }
    }
    return r;
}

}  // namespace gradc::rules::arrays
