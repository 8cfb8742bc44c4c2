#pragma once
/// \file
/// cumsum: the prefix sums yᵢ = Σ_{j≤i} xⱼ of a vector (torch.cumsum along its one
/// dimension). Linear: its tangent is the prefix sums of ẋ, and its adjoint the suffix
/// sums x̄ⱼ += Σ_{i≥j} ȳᵢ, each one pass of n additions rather than the n² of the
/// triangular matrix it applies.

#include <array>
#include <cstddef>
#include <string_view>

#include <gradc/rules/arrays/loops.hpp>
#include <gradc/rules/arrays/signature.hpp>

// Each operation's members are the array-operation contract's, documented once in
// rules/arrays/signature.hpp; the API reference hides them per operation (the INTERNAL
// sections) instead of repeating them.
namespace gradc::rules::arrays {

/// yᵢ = x₀ + … + xᵢ of a vector x.
struct cumsum {
    /// \cond INTERNAL
    static constexpr std::string_view name = "cumsum";
    static constexpr bool run_time_extents = true;
    static constexpr std::array<std::string_view, 1> adjoint_text{"suffix sums of ȳ"};
    template <std::size_t N>
    static constexpr dims result_shape(const std::array<dims, N>& operands) {
        return shape_with_arity<1>(operands, [](const auto& s) { return s[0].is_vector() ? s[0] : invalid_dims; });
    }
    template <class S, class T>
    static void value(S ext, T* __restrict y, const T* x) {
        [[maybe_unused]] const auto& [Y, X] = ext.all;
        if (std::size_t(X.rows) == 0) return;
        T s = x[0];
        y[0] = s;
        for (std::size_t i = 1; i < X.rows; ++i) y[i] = s += x[i];
    }
    template <class S, class T>
    static void adjoint(arg_t<0>, S ext, const T* yb, T* __restrict xb, const T*, const T*) {
        [[maybe_unused]] const auto& [Y, X] = ext.all;
        T s = zero_of<T>();
        for (std::size_t i = X.rows; i-- > 0;) xb[i] += s += yb[i];
    }
    template <class S, class T>
    static void tangent(arg_t<0>, S ext, T* __restrict yd, const T* xd, const T*, const T*) {
        [[maybe_unused]] const auto& [Y, X] = ext.all;
        T s = zero_of<T>();
        for (std::size_t i = 0; i < X.rows; ++i) yd[i] += s += xd[i];
    }
    /// \endcond
};

}  // namespace gradc::rules::arrays

namespace gradc::rules {
/// Prefix sums are linear in their operand.
template <>
inline constexpr affinity affine_in<arrays::cumsum, 0> = affinity::linear;
}  // namespace gradc::rules
