#pragma once
/// \file
/// Products of arrays: matvec (A·x), matmul (A·B), dot (a·b), outer (a·bᵀ), and
/// transpose. Each adjoint is again a product (Aᵀ·ȳ, ȳ·xᵀ), added into the operand's
/// adjoint in place; a tangent is the product with one factor replaced by its tangent.

#include <array>
#include <cstddef>
#include <string_view>

#include <gradc/rules/arrays/loops.hpp>
#include <gradc/rules/arrays/signature.hpp>

// Each operation's members are the array-operation contract's, documented once in
// rules/arrays/signature.hpp; the API reference hides them per operation (the INTERNAL
// sections) instead of repeating them.
namespace gradc::rules::arrays {

/// y = A·x, A an R×C matrix, x a vector of C.
struct matvec {
    /// \cond INTERNAL
    static constexpr std::string_view name = "matvec";
    static constexpr bool run_time_extents = true;
    static constexpr std::array<std::string_view, 2> adjoint_text{"ȳ·xᵀ", "Aᵀ·ȳ"};
    template <std::size_t N>
    static constexpr dims result_shape(const std::array<dims, N>& operands) {
        return shape_with_arity<2>(operands, [](const auto& s) {
            if (!s[0].is_matrix() || !s[1].is_vector() || !extents_fit(s[0].cols, s[1].rows)) return invalid_dims;
            return vector_dims(s[0].rows);
        });
    }
    template <class S, class T>
    static void value(S ext, T* __restrict y, const T* a, const T* x) {
        [[maybe_unused]] const auto& [Y, A, X] = ext.all;
        for (std::size_t r = 0; r < A.rows; ++r) y[r] = dot_n(A.cols, a + r * A.cols, x);
    }
    template <class S, class T>
    static void adjoint(arg_t<0>, S ext, const T* yb, T* __restrict ab, const T*, const T*, const T* x) {
        [[maybe_unused]] const auto& [Y, A, X] = ext.all;
        for (std::size_t r = 0; r < A.rows; ++r) axpy_n(A.cols, ab + r * A.cols, yb[r], x);
    }
    template <class S, class T>
    static void adjoint(arg_t<1>, S ext, const T* yb, T* __restrict xb, const T*, const T* a, const T*) {
        [[maybe_unused]] const auto& [Y, A, X] = ext.all;
        if (along_rows<T>(A.cols)) {
            for (std::size_t r = 0; r < A.rows; ++r) axpy_n(A.cols, xb, yb[r], a + r * A.cols);
        } else {
            for (std::size_t c = 0; c < A.cols; ++c) xb[c] += dot_n(A.rows, a + c, yb, A.cols);
        }
    }
    template <class S, class T>
    static void tangent(arg_t<0>, S ext, T* __restrict yd, const T* ad, const T*, const T*, const T* x) {
        [[maybe_unused]] const auto& [Y, A, X] = ext.all;
        for (std::size_t r = 0; r < A.rows; ++r) yd[r] += dot_n(A.cols, ad + r * A.cols, x);
    }
    template <class S, class T>
    static void tangent(arg_t<1>, S ext, T* __restrict yd, const T* xd, const T*, const T* a, const T*) {
        [[maybe_unused]] const auto& [Y, A, X] = ext.all;
        for (std::size_t r = 0; r < A.rows; ++r) yd[r] += dot_n(A.cols, a + r * A.cols, xd);
    }
    /// \endcond
};

/// Y = A·B, A an R×K matrix, B a K×C matrix.
struct matmul {
    /// \cond INTERNAL
    static constexpr std::string_view name = "matmul";
    static constexpr bool run_time_extents = true;
    static constexpr std::array<std::string_view, 2> adjoint_text{"Ȳ·Bᵀ", "Aᵀ·Ȳ"};
    template <std::size_t N>
    static constexpr dims result_shape(const std::array<dims, N>& operands) {
        return shape_with_arity<2>(operands, [](const auto& s) {
            if (!s[0].is_matrix() || !s[1].is_matrix() || !extents_fit(s[0].cols, s[1].rows)) return invalid_dims;
            return matrix_dims(s[0].rows, s[1].cols);
        });
    }
    /// Row r of Y is Σₖ A(r,k)·B(k,:): rows of B, contiguous, scaled and added.
    template <class S, class T>
    static void value(S ext, T* __restrict y, const T* a, const T* b) {
        [[maybe_unused]] const auto& [Y, A, B] = ext.all;
        for (std::size_t i = 0; i < Y.size(); ++i) y[i] = zero_of<T>();
        for (std::size_t r = 0; r < A.rows; ++r)
            for (std::size_t k = 0; k < A.cols; ++k) axpy_n(B.cols, y + r * B.cols, a[r * A.cols + k], b + k * B.cols);
    }
    /// Ā(r,k) += Ȳ(r,:)·B(k,:).
    template <class S, class T>
    static void adjoint(arg_t<0>, S ext, const T* yb, T* __restrict ab, const T*, const T*, const T* b) {
        [[maybe_unused]] const auto& [Y, A, B] = ext.all;
        for (std::size_t r = 0; r < A.rows; ++r)
            for (std::size_t k = 0; k < A.cols; ++k) ab[r * A.cols + k] += dot_n(B.cols, yb + r * B.cols, b + k * B.cols);
    }
    /// B̄(k,:) += A(r,k)·Ȳ(r,:).
    template <class S, class T>
    static void adjoint(arg_t<1>, S ext, const T* yb, T* __restrict bb, const T*, const T* a, const T*) {
        [[maybe_unused]] const auto& [Y, A, B] = ext.all;
        for (std::size_t r = 0; r < A.rows; ++r)
            for (std::size_t k = 0; k < A.cols; ++k) axpy_n(B.cols, bb + k * B.cols, a[r * A.cols + k], yb + r * B.cols);
    }
    template <class S, class T>
    static void tangent(arg_t<0>, S ext, T* __restrict yd, const T* ad, const T*, const T*, const T* b) {
        [[maybe_unused]] const auto& [Y, A, B] = ext.all;
        for (std::size_t r = 0; r < A.rows; ++r)
            for (std::size_t k = 0; k < A.cols; ++k) axpy_n(B.cols, yd + r * B.cols, ad[r * A.cols + k], b + k * B.cols);
    }
    template <class S, class T>
    static void tangent(arg_t<1>, S ext, T* __restrict yd, const T* bd, const T*, const T* a, const T*) {
        [[maybe_unused]] const auto& [Y, A, B] = ext.all;
        for (std::size_t r = 0; r < A.rows; ++r)
            for (std::size_t k = 0; k < A.cols; ++k) axpy_n(B.cols, yd + r * B.cols, a[r * A.cols + k], bd + k * B.cols);
    }
    /// \endcond
};

/// Y = Aᵀ.
struct transpose {
    /// \cond INTERNAL
    static constexpr std::string_view name = "transpose";
    static constexpr bool run_time_extents = true;
    static constexpr std::array<std::string_view, 1> adjoint_text{"Ȳᵀ"};
    template <std::size_t N>
    static constexpr dims result_shape(const std::array<dims, N>& operands) {
        return shape_with_arity<1>(operands, [](const auto& s) {
            if (!s[0].is_matrix()) return invalid_dims;
            return matrix_dims(s[0].cols, s[0].rows);
        });
    }
    template <class S, class T>
    static void value(S ext, T* __restrict y, const T* a) {
        [[maybe_unused]] const auto& [Y, A] = ext.all;
        for (std::size_t r = 0; r < A.rows; ++r)
            for (std::size_t c = 0; c < A.cols; ++c) y[c * A.rows + r] = a[r * A.cols + c];
    }
    template <class S, class T>
    static void adjoint(arg_t<0>, S ext, const T* yb, T* __restrict ab, const T*, const T*) {
        [[maybe_unused]] const auto& [Y, A] = ext.all;
        for (std::size_t r = 0; r < A.rows; ++r)
            for (std::size_t c = 0; c < A.cols; ++c) ab[r * A.cols + c] += yb[c * A.rows + r];
    }
    template <class S, class T>
    static void tangent(arg_t<0>, S ext, T* __restrict yd, const T* ad, const T*, const T*) {
        [[maybe_unused]] const auto& [Y, A] = ext.all;
        for (std::size_t r = 0; r < A.rows; ++r)
            for (std::size_t c = 0; c < A.cols; ++c) yd[c * A.rows + r] += ad[r * A.cols + c];
    }
    /// \endcond
};

/// y = Σᵢ aᵢ·bᵢ, a and b vectors of one length.
struct dot {
    /// \cond INTERNAL
    static constexpr std::string_view name = "dot";
    static constexpr bool run_time_extents = true;
    static constexpr std::array<std::string_view, 2> adjoint_text{"ȳ·b", "ȳ·a"};
    template <std::size_t N>
    static constexpr dims result_shape(const std::array<dims, N>& operands) {
        return shape_with_arity<2>(operands, [](const auto& s) {
            if (!s[0].is_vector() || !shapes_fit(s[0], s[1])) return invalid_dims;
            return scalar_dims;
        });
    }
    template <class S, class T>
    static void value(S ext, T* __restrict y, const T* a, const T* b) {
        [[maybe_unused]] const auto& [Y, A, B] = ext.all;
        y[0] = dot_n(A.size(), a, b);
    }
    template <class S, class T>
    static void adjoint(arg_t<0>, S ext, const T* yb, T* __restrict ab, const T*, const T*, const T* b) {
        [[maybe_unused]] const auto& [Y, A, B] = ext.all;
        axpy_n(A.size(), ab, yb[0], b);
    }
    template <class S, class T>
    static void adjoint(arg_t<1>, S ext, const T* yb, T* __restrict bb, const T*, const T* a, const T*) {
        [[maybe_unused]] const auto& [Y, A, B] = ext.all;
        axpy_n(A.size(), bb, yb[0], a);
    }
    template <class S, class T>
    static void tangent(arg_t<0>, S ext, T* __restrict yd, const T* ad, const T*, const T*, const T* b) {
        [[maybe_unused]] const auto& [Y, A, B] = ext.all;
        yd[0] += dot_n(A.size(), ad, b);
    }
    template <class S, class T>
    static void tangent(arg_t<1>, S ext, T* __restrict yd, const T* bd, const T*, const T* a, const T*) {
        [[maybe_unused]] const auto& [Y, A, B] = ext.all;
        yd[0] += dot_n(A.size(), a, bd);
    }
    /// \endcond
};

/// Y = a·bᵀ, a vector of R and a vector of C: an R×C matrix.
struct outer {
    /// \cond INTERNAL
    static constexpr std::string_view name = "outer";
    static constexpr bool run_time_extents = true;
    static constexpr std::array<std::string_view, 2> adjoint_text{"Ȳ·b", "Ȳᵀ·a"};
    template <std::size_t N>
    static constexpr dims result_shape(const std::array<dims, N>& operands) {
        return shape_with_arity<2>(operands, [](const auto& s) {
            if (!s[0].is_vector() || !s[1].is_vector()) return invalid_dims;
            return matrix_dims(s[0].rows, s[1].rows);
        });
    }
    template <class S, class T>
    static void value(S ext, T* __restrict y, const T* a, const T* b) {
        [[maybe_unused]] const auto& [Y, A, B] = ext.all;
        for (std::size_t r = 0; r < A.rows; ++r)
            for (std::size_t c = 0; c < B.rows; ++c) y[r * B.rows + c] = a[r] * b[c];
    }
    template <class S, class T>
    static void adjoint(arg_t<0>, S ext, const T* yb, T* __restrict ab, const T*, const T*, const T* b) {
        [[maybe_unused]] const auto& [Y, A, B] = ext.all;
        for (std::size_t r = 0; r < A.rows; ++r) ab[r] += dot_n(B.rows, yb + r * B.rows, b);
    }
    template <class S, class T>
    static void adjoint(arg_t<1>, S ext, const T* yb, T* __restrict bb, const T*, const T* a, const T*) {
        [[maybe_unused]] const auto& [Y, A, B] = ext.all;
        for (std::size_t r = 0; r < A.rows; ++r) axpy_n(B.rows, bb, a[r], yb + r * B.rows);
    }
    template <class S, class T>
    static void tangent(arg_t<0>, S ext, T* __restrict yd, const T* ad, const T*, const T*, const T* b) {
        [[maybe_unused]] const auto& [Y, A, B] = ext.all;
        for (std::size_t r = 0; r < A.rows; ++r) axpy_n(B.rows, yd + r * B.rows, ad[r], b);
    }
    template <class S, class T>
    static void tangent(arg_t<1>, S ext, T* __restrict yd, const T* bd, const T*, const T* a, const T*) {
        [[maybe_unused]] const auto& [Y, A, B] = ext.all;
        for (std::size_t r = 0; r < A.rows; ++r) axpy_n(B.rows, yd + r * B.rows, a[r], bd);
    }
    /// \endcond
};

}  // namespace gradc::rules::arrays

namespace gradc::rules {
// Products are linear in each factor, transpose in its operand (map-reduce defers
// an edge whose partial does not change from point to point: lower/array_map_reduce_split.hpp).
template <int I> inline constexpr affinity affine_in<arrays::matvec, I> = affinity::linear;
template <int I> inline constexpr affinity affine_in<arrays::matmul, I> = affinity::linear;
template <int I> inline constexpr affinity affine_in<arrays::dot, I> = affinity::linear;
template <int I> inline constexpr affinity affine_in<arrays::outer, I> = affinity::linear;
template <> inline constexpr affinity affine_in<arrays::transpose, 0> = affinity::linear;
}  // namespace gradc::rules
