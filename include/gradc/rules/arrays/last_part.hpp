#pragma once
/// \file
/// The last row of a matrix (or the last entry of a vector), and all rows but the first,
/// whatever their extents: how an emitting loop's final carry and, when it emits its
/// carries, its ys are read from the states it keeps (loops/emit.hpp), whose count of
/// rows may be known only when the kernel runs. A selection like
/// `row(W, i)` (rules/arrays/indexed_access.hpp) with i the last row: read in place, the
/// adjoint adds ȳ to the entries read, the tangent reads the same entries of ẋ.

#include <array>
#include <cstddef>
#include <string_view>

#include <gradc/error.hpp>
#include <gradc/rules/arrays/indexed_access.hpp>

namespace gradc::rules::arrays {

/// The last row of a matrix as a vector, or the last entry of a vector (one operand).
struct last_row_of : indexed_selection<last_row_of> {
    /// \cond INTERNAL
    static constexpr bool contiguous = true;
    static constexpr std::string_view name = "last_row";
    template <std::size_t N>
    static constexpr dims result_shape(const std::array<dims, N>& s) {
        if constexpr (N != 1) {
            return invalid_dims;
        } else if (s[0].is_matrix()) {
            return vector_dims(s[0].cols);
        } else {
            return s[0].is_vector() ? scalar_dims : invalid_dims;
        }
    }
    template <class E>
    static void check(const E& X) {
        if (X.rows == 0) throw Error("gradc kernel: last_row(W): got W with no rows, expected one at least");
    }
    template <class E>
    static std::size_t base(const E& X) {
        return (std::size_t(X.rows) - 1) * std::size_t(X.cols);
    }
    template <class E>
    static std::size_t step(const E&) {
        return 1;
    }
    /// \endcond
};

/// All rows of a matrix but the first (all entries of a vector but the first; one operand).
struct rows_after_first : indexed_selection<rows_after_first> {
    /// \cond INTERNAL
    static constexpr bool contiguous = true;
    static constexpr std::string_view name = "rows_after_first";
    template <std::size_t N>
    static constexpr dims result_shape(const std::array<dims, N>& s) {
        if constexpr (N != 1) {
            return invalid_dims;
        } else {
            if (!s[0].valid() || s[0].is_scalar() || s[0].rows == 0) return invalid_dims;
            const std::size_t rows = s[0].rows == dynamic_extent ? dynamic_extent : s[0].rows - 1;
            return s[0].is_matrix() ? matrix_dims(rows, s[0].cols) : vector_dims(rows);
        }
    }
    template <class E>
    static void check(const E& X) {
        if (X.rows == 0) throw Error("gradc kernel: rows_after_first(W): got W with no rows, expected one at least");
    }
    template <class E>
    static std::size_t base(const E& X) {
        return std::size_t(X.cols);
    }
    template <class E>
    static std::size_t step(const E&) {
        return 1;
    }
    /// \endcond
};

}  // namespace gradc::rules::arrays
