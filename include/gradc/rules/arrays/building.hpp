#pragma once
/// \file
/// Building arrays from parts: `concat` puts vectors (and scalars) end to end into one
/// vector; `stack` puts vectors of one length as the rows of a matrix. Both copy, and
/// their adjoints hand each part its slice of ȳ.

#include <array>
#include <cstddef>
#include <string_view>

#include <gradc/rules/arrays/signature.hpp>

// Each operation's members are the array-operation contract's, documented once in
// rules/arrays/signature.hpp; the API reference hides them per operation (the INTERNAL
// sections) instead of repeating them.
namespace gradc::rules::arrays {

/// Where each part starts in the result: the sizes of the parts before it.
template <dims... In>
constexpr std::array<std::size_t, sizeof...(In)> part_offsets() {
    std::array<std::size_t, sizeof...(In)> o{};
    std::size_t at = 0, k = 0;
    ((o[k++] = at, at += In.size()), ...);
    return o;
}

/// The shape of part `k` of the pack `In`.
template <dims... In>
constexpr dims pack_in(std::size_t k) {
    constexpr std::array<dims, sizeof...(In)> s{In...};
    return s[k];
}

/// Parts laid end to end: value copies each in, adjoint and tangent copy slices.
struct parts_end_to_end {
    /// \cond INTERNAL
    template <dims Y, dims... In, class T, class... P>
    static void value(sig<Y, In...>, T* __restrict y, const P*... in) {
        constexpr auto offset = part_offsets<In...>();
        std::size_t k = 0;
        ((copy_part<In.size()>(y + offset[k++], in)), ...);
    }
    template <int K, dims Y, dims... In, class T, class... P>
    static void adjoint(arg_t<K>, sig<Y, In...>, const T* yb, T* __restrict kb, const T*, const P*...) {
        constexpr std::size_t at = part_offsets<In...>()[K];
        constexpr std::size_t n = pack_in<In...>(K).size();
        for (std::size_t i = 0; i < n; ++i) kb[i] += yb[at + i];
    }
    template <int K, dims Y, dims... In, class T, class... P>
    static void tangent(arg_t<K>, sig<Y, In...>, T* __restrict yd, const T* kd, const T*, const P*...) {
        constexpr std::size_t at = part_offsets<In...>()[K];
        constexpr std::size_t n = pack_in<In...>(K).size();
        for (std::size_t i = 0; i < n; ++i) yd[at + i] += kd[i];
    }

private:
    template <std::size_t N, class T>
    static void copy_part(T* to, const T* from) {
        for (std::size_t i = 0; i < N; ++i) to[i] = from[i];
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
            n += d.size();
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
        for (const dims& d : s)
            if (!d.is_vector() || d.rows != s[0].rows) return invalid_dims;
        return matrix_dims(N, s[0].rows);
    }
    /// \endcond
};

}  // namespace gradc::rules::arrays

namespace gradc::rules {
// Building an array from parts is linear in each part.
template <int I> inline constexpr affinity affine_in<arrays::concat_parts, I> = affinity::linear;
template <int I> inline constexpr affinity affine_in<arrays::stack_rows, I> = affinity::linear;
}  // namespace gradc::rules
