#pragma once
/// \file
/// Reading parts of an array, with indices fixed when the expression's type is built:
/// one entry (`x[i]`, `W(i, j)`), a row, a column, a segment of a vector, a diagonal,
/// and the lower-triangular matrix of packed values. Each is a selection: its adjoint
/// adds ȳ to the entries it read and its tangent reads the same entries of ẋ.
/// Out-of-range indices make the result shape invalid, and the expression functions
/// (expr/array_functions.hpp) turn that into a compile-time error that says so.

#include <array>
#include <cstddef>
#include <string_view>

#include <gradc/rules/arrays/signature.hpp>

// Each operation's members are the array-operation contract's, documented once in
// rules/arrays/signature.hpp; the API reference hides them per operation (the INTERNAL
// sections) instead of repeating them.
namespace gradc::rules::arrays {

/// A selection: y[k] = x[Map::source(k)] for every k of the result, with Map::source a
/// constexpr index map. value, adjoint and tangent are one loop each.
template <class Map>
struct selection {
    /// \cond INTERNAL
    static constexpr bool run_time_extents = true;
    static constexpr std::array<std::string_view, 1> adjoint_text{"ȳ scattered back"};
    template <class S, class T>
    static void value(S ext, T* __restrict y, const T* x) {
        [[maybe_unused]] const auto& [Y, X] = ext.all;
        for (std::size_t k = 0; k < Y.size(); ++k) y[k] = x[Map::source(X, k)];
    }
    template <class S, class T>
    static void adjoint(arg_t<0>, S ext, const T* yb, T* __restrict xb, const T*, const T*) {
        [[maybe_unused]] const auto& [Y, X] = ext.all;
        for (std::size_t k = 0; k < Y.size(); ++k) xb[Map::source(X, k)] += yb[k];
    }
    template <class S, class T>
    static void tangent(arg_t<0>, S ext, T* __restrict yd, const T* xd, const T*, const T*) {
        [[maybe_unused]] const auto& [Y, X] = ext.all;
        for (std::size_t k = 0; k < Y.size(); ++k) yd[k] += xd[Map::source(X, k)];
    }
    /// \endcond
};

/// Entry (R, C) of a matrix, or entry R of a vector (C = 0).
template <std::size_t R, std::size_t C>
struct element : selection<element<R, C>> {
    /// \cond INTERNAL
    static constexpr std::string_view name = "element";
    template <std::size_t N>
    static constexpr dims result_shape(const std::array<dims, N>& operands) {
        return shape_with_arity<1>(operands, [](const auto& s) {
            if (s[0].is_scalar() || R >= s[0].rows || C >= s[0].cols) return invalid_dims;
            return scalar_dims;
        });
    }
    template <class E>
    static constexpr std::size_t source(const E& X, std::size_t) {
        return R * X.cols + C;
    }
    /// \endcond
};

/// Row I of a matrix, as a vector.
template <std::size_t I>
struct row_of : selection<row_of<I>> {
    /// \cond INTERNAL
    static constexpr std::string_view name = "row";
    template <std::size_t N>
    static constexpr dims result_shape(const std::array<dims, N>& operands) {
        return shape_with_arity<1>(operands, [](const auto& s) {
            if (!s[0].is_matrix() || I >= s[0].rows) return invalid_dims;
            return vector_dims(s[0].cols);
        });
    }
    template <class E>
    static constexpr std::size_t source(const E& X, std::size_t k) {
        return I * X.cols + k;
    }
    /// \endcond
};

/// Column J of a matrix, as a vector.
template <std::size_t J>
struct col_of : selection<col_of<J>> {
    /// \cond INTERNAL
    static constexpr std::string_view name = "col";
    template <std::size_t N>
    static constexpr dims result_shape(const std::array<dims, N>& operands) {
        return shape_with_arity<1>(operands, [](const auto& s) {
            if (!s[0].is_matrix() || J >= s[0].cols) return invalid_dims;
            return vector_dims(s[0].rows);
        });
    }
    template <class E>
    static constexpr std::size_t source(const E& X, std::size_t k) {
        return k * X.cols + J;
    }
    /// \endcond
};

/// Entries [Offset, Offset + Count) of a vector.
template <std::size_t Offset, std::size_t Count>
struct segment_of : selection<segment_of<Offset, Count>> {
    /// \cond INTERNAL
    static constexpr std::string_view name = "segment";
    template <std::size_t N>
    static constexpr dims result_shape(const std::array<dims, N>& operands) {
        return shape_with_arity<1>(operands, [](const auto& s) {
            if (!s[0].is_vector() || Count == 0 || Offset + Count > s[0].rows) return invalid_dims;
            return vector_dims(Count);
        });
    }
    template <class E>
    static constexpr std::size_t source(const E&, std::size_t k) {
        return Offset + k;
    }
    /// \endcond
};

/// The diagonal of a matrix, min(R, C) entries.
struct diag_of : selection<diag_of> {
    /// \cond INTERNAL
    static constexpr std::string_view name = "diag";
    template <std::size_t N>
    static constexpr dims result_shape(const std::array<dims, N>& operands) {
        return shape_with_arity<1>(operands, [](const auto& s) {
            if (!s[0].is_matrix()) return invalid_dims;
            if (s[0].is_dynamic()) return vector_dims(dynamic_extent);  // min(R, C) known at the call
            return vector_dims(s[0].rows < s[0].cols ? s[0].rows : s[0].cols);
        });
    }
    template <class E>
    static constexpr std::size_t source(const E& X, std::size_t k) {
        return k * X.cols + k;
    }
    /// \endcond
};

/// A D×D lower-triangular matrix from D(D+1)/2 packed values: the D diagonal entries
/// first, then the strict lower part column by column — L(1,0), L(2,0), …, L(D-1,0),
/// L(2,1), … (the layout of the inverse Cholesky factors in ADBench's Gaussian mixture
/// model). The entries above the diagonal are 0 and have no source. With D =
/// dynamic_extent, d is deduced from the packed length d(d+1)/2 when the kernel is called.
template <std::size_t D>
struct lower_triangular_of {
    /// \cond INTERNAL
    static constexpr std::string_view name = "lower_triangular";
    static constexpr bool run_time_extents = true;
    static constexpr std::array<std::string_view, 1> adjoint_text{"L̄'s lower triangle packed"};
    static constexpr std::size_t packed = D == dynamic_extent ? dynamic_extent : D * (D + 1) / 2;
    /// The d with d(d+1)/2 = n, or dynamic_extent when there is none.
    static constexpr std::size_t side_of(std::size_t n) {
        std::size_t d = 0;
        while (d * (d + 1) / 2 < n) ++d;
        return d * (d + 1) / 2 == n ? d : dynamic_extent;
    }
    template <std::size_t N>
    static constexpr dims result_shape(const std::array<dims, N>& operands) {
        return shape_with_arity<1>(operands, [](const auto& s) {
            if (!s[0].is_vector() || !extents_fit(s[0].rows, packed)) return invalid_dims;
            if constexpr (D != dynamic_extent) {
                return matrix_dims(D, D);
            } else {
                if (s[0].rows == dynamic_extent) return matrix_dims(dynamic_extent, dynamic_extent);
                const std::size_t d = side_of(s[0].rows);
                return d == dynamic_extent || d == 0 ? invalid_dims : matrix_dims(d, d);
            }
        });
    }
    /// The side d: D, or the result's rows (a constant when they are).
    template <class E>
    static constexpr auto side(const E& Y) {
        if constexpr (D != dynamic_extent) {
            return fixed_extent<D>{};
        } else {
            return Y.rows;
        }
    }
    /// The packed position of L(r, c), r > c, for side d.
    static constexpr std::size_t strict(std::size_t r, std::size_t c, std::size_t d = D) {
        // Columns 0..c-1 hold (d-1) + (d-2) + ... + (d-c) entries.
        return d + c * (2 * d - c - 1) / 2 + (r - c - 1);
    }
    template <class S, class T>
    static void value(S ext, T* __restrict y, const T* x) {
        [[maybe_unused]] const auto& [Y, X] = ext.all;
        const auto d = side(Y);
        for (std::size_t r = 0; r < d; ++r) {
            for (std::size_t c = 0; c < d; ++c) {
                y[r * d + c] = r == c ? x[r] : r > c ? x[strict(r, c, d)] : T(scalar_t<T>(0));
            }
        }
    }
    template <class S, class T>
    static void adjoint(arg_t<0>, S ext, const T* yb, T* __restrict xb, const T*, const T*) {
        [[maybe_unused]] const auto& [Y, X] = ext.all;
        const auto d = side(Y);
        for (std::size_t r = 0; r < d; ++r) {
            xb[r] += yb[r * d + r];
            for (std::size_t c = 0; c < r; ++c) xb[strict(r, c, d)] += yb[r * d + c];
        }
    }
    template <class S, class T>
    static void tangent(arg_t<0>, S ext, T* __restrict yd, const T* xd, const T*, const T*) {
        [[maybe_unused]] const auto& [Y, X] = ext.all;
        const auto d = side(Y);
        for (std::size_t r = 0; r < d; ++r) {
            yd[r * d + r] += xd[r];
            for (std::size_t c = 0; c < r; ++c) yd[r * d + c] += xd[strict(r, c, d)];
        }
    }
    /// \endcond
};

}  // namespace gradc::rules::arrays

namespace gradc::rules {
// A selection is linear in the array it reads.
template <std::size_t R, std::size_t C>
inline constexpr affinity affine_in<arrays::element<R, C>, 0> = affinity::linear;
template <std::size_t I>
inline constexpr affinity affine_in<arrays::row_of<I>, 0> = affinity::linear;
template <std::size_t J>
inline constexpr affinity affine_in<arrays::col_of<J>, 0> = affinity::linear;
template <std::size_t Offset, std::size_t Count>
inline constexpr affinity affine_in<arrays::segment_of<Offset, Count>, 0> = affinity::linear;
template <> inline constexpr affinity affine_in<arrays::diag_of, 0> = affinity::linear;
template <std::size_t D>
inline constexpr affinity affine_in<arrays::lower_triangular_of<D>, 0> = affinity::linear;
}  // namespace gradc::rules
