#pragma once
/// \file
/// An array's entries in another array's shape: `gradc::reshape_as(x, like)` reads x's
/// entries in row-major order as an array of like's shape (like's values are not read,
/// and it has no derivative). The two must hold as many entries: checked when the
/// expression is built where both are fixed, else when the kernel runs. A copy; the
/// adjoint hands ȳ back to x entry by entry, the tangent reads ẋ so.

#include <array>
#include <cstddef>
#include <string_view>
#include <tuple>

#include <gradc/rules/arrays/signature.hpp>
#include <gradc/rules/rule.hpp>

namespace gradc::rules::arrays {

/// x in the shape of `like` (operands x, like).
struct reshaped_as {
    /// \cond INTERNAL
    static constexpr bool run_time_extents = true;
    static constexpr std::string_view name = "reshape_as";
    static constexpr std::array<std::string_view, 2> adjoint_text{"ȳ's entries, in x's shape", ""};
    template <std::size_t N>
    static constexpr dims result_shape(const std::array<dims, N>& s) {
        if constexpr (N != 2) {
            return invalid_dims;
        } else {
            if (!s[0].valid() || !s[1].valid()) return invalid_dims;
            if (!s[0].is_dynamic() && !s[1].is_dynamic() && s[0].size() != s[1].size()) return invalid_dims;
            return s[1];
        }
    }
    template <class S, class T>
    static void value(S ext, T* __restrict y, const T* x, const T*) {
        for (std::size_t i = 0, n = std::get<0>(ext.all).size(); i < n; ++i) y[i] = x[i];
    }
    template <class S, class T>
    static void adjoint(arg_t<0>, S ext, const T* yb, T* __restrict xb, const T*, const T*, const T*) {
        for (std::size_t i = 0, n = std::get<0>(ext.all).size(); i < n; ++i) xb[i] += yb[i];
    }
    template <class S, class T>
    static void tangent(arg_t<0>, S ext, T* __restrict yd, const T* xd, const T*, const T*, const T*) {
        for (std::size_t i = 0, n = std::get<0>(ext.all).size(); i < n; ++i) yd[i] += xd[i];
    }
    /// `like` gives the shape alone: no derivative.
    template <class S, class T>
    static void adjoint(arg_t<1>, S, const T*, T* __restrict, const T*, const T*, const T*) {}
    template <class S, class T>
    static void tangent(arg_t<1>, S, T* __restrict, const T*, const T*, const T*, const T*) {}
    /// \endcond
};

}  // namespace gradc::rules::arrays

namespace gradc::rules {
/// like's values are not read: no derivative reaches it. x's entries are copied: linear.
template <>
inline constexpr bool is_differentiable_operand<arrays::reshaped_as, 1> = false;
template <>
inline constexpr affinity affine_in<arrays::reshaped_as, 0> = affinity::linear;
}  // namespace gradc::rules
