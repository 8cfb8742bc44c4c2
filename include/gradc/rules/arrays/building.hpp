#pragma once
/// \file
/// Building arrays from parts: `concat` puts vectors (and scalars) end to end into one
/// vector; `stack` puts vectors of one length as the rows of a matrix. Both copy, and
/// their adjoints hand each part its slice of ȳ.

#include <array>
#include <cstddef>
#include <string_view>
#include <tuple>

#include <gradc/rules/arrays/signature.hpp>

// Each operation's members are the array-operation contract's, documented once in
// rules/arrays/signature.hpp; the API reference hides them per operation (the INTERNAL
// sections) instead of repeating them.
namespace gradc::rules::arrays {

/// The sizes of the parts (the operands) from an operation's extents.
template <class Y, class... In>
constexpr std::array<std::size_t, sizeof...(In)> part_sizes(const std::tuple<Y, In...>& all) {
    return std::apply([](const auto&, const auto&... part) { return std::array<std::size_t, sizeof...(In)>{std::size_t(part.size())...}; }, all);
}

/// Parts laid end to end: value copies each in, adjoint and tangent copy slices. The
/// parts' sizes are constants for fixed extents, so the offsets fold away.
struct parts_end_to_end {
    /// \cond INTERNAL
    static constexpr bool run_time_extents = true;
    template <class S, class T, class... P>
    static void value(S ext, T* __restrict y, const P*... in) {
        const auto sizes = part_sizes(ext.all);
        std::size_t at = 0, k = 0;
        ((copy_part(sizes[k], y + at, in), at += sizes[k], ++k), ...);
    }
    template <int K, class S, class T, class... P>
    static void adjoint(arg_t<K>, S ext, const T* yb, T* __restrict kb, const T*, const P*...) {
        const auto sizes = part_sizes(ext.all);
        std::size_t at = 0;
        for (std::size_t k = 0; k < std::size_t(K); ++k) at += sizes[k];
        for (std::size_t i = 0; i < sizes[K]; ++i) kb[i] += yb[at + i];
    }
    template <int K, class S, class T, class... P>
    static void tangent(arg_t<K>, S ext, T* __restrict yd, const T* kd, const T*, const P*...) {
        const auto sizes = part_sizes(ext.all);
        std::size_t at = 0;
        for (std::size_t k = 0; k < std::size_t(K); ++k) at += sizes[k];
        for (std::size_t i = 0; i < sizes[K]; ++i) yd[at + i] += kd[i];
    }

private:
    template <class T>
    static void copy_part(std::size_t n, T* to, const T* from) {
        for (std::size_t i = 0; i < n; ++i) to[i] = from[i];
    }
    /// \endcond
};

/// Vectors and scalars end to end: one vector.
struct concat_parts : parts_end_to_end {
    /// \cond INTERNAL
    static constexpr std::string_view name = "concat";
    static constexpr std::array<std::string_view, 1> adjoint_text{"ȳ's slice"};
    template <std::size_t N>
    static constexpr dims result_shape(const std::array<dims, N>& s) {
        std::size_t n = 0;
        for (const dims& d : s) {
            if (d.is_matrix() || !d.valid()) return invalid_dims;
            n = (n == dynamic_extent || d.is_dynamic()) ? dynamic_extent : n + d.size();
        }
        return N >= 1 ? vector_dims(n) : invalid_dims;
    }
    /// \endcond
};

/// Vectors of one length as the rows of a matrix.
struct stack_rows : parts_end_to_end {
    /// \cond INTERNAL
    static constexpr std::string_view name = "stack";
    static constexpr std::array<std::string_view, 1> adjoint_text{"Ȳ's row"};
    template <std::size_t N>
    static constexpr dims result_shape(const std::array<dims, N>& s) {
        if (N == 0) return invalid_dims;
        std::size_t length = dynamic_extent;
        for (const dims& d : s) {
            if (!d.is_vector() || !extents_fit(d.rows, length)) return invalid_dims;
            if (d.rows != dynamic_extent) length = d.rows;
        }
        return matrix_dims(N, length);
    }
    /// \endcond
};

}  // namespace gradc::rules::arrays

namespace gradc::rules {
// Building an array from parts is linear in each part.
template <int I> inline constexpr affinity affine_in<arrays::concat_parts, I> = affinity::linear;
template <int I> inline constexpr affinity affine_in<arrays::stack_rows, I> = affinity::linear;
}  // namespace gradc::rules
