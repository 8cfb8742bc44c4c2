#pragma once
/// \file
/// What the derivative calls of a compiled kernel return.

#include <array>
#include <cstddef>

namespace gradc {

/// `k.gradient(x...)`: the value and the gradient with respect to the wrt variables.
template <class T, std::size_t W>
struct gradient_result {
    T value;  ///< The value.
    std::array<T, W> gradient;  ///< ∂f/∂wⱼ for each wrt variable j.
};

/// `k.jvp(x, dx)`: the value(s) and the directional derivative(s) J·dx.
/// V is T for a kernel with one output, std::array<T, M> for M outputs.
template <class V>
struct jvp_result {
    V value;  ///< The value(s).
    V tangent;  ///< J·dx.
};

/// `k.vjp(x, w)`: the values and wᵀJ (one entry per wrt variable).
template <class T, std::size_t M, std::size_t W>
struct vjp_result {
    std::array<T, M> value;  ///< The values.
    std::array<T, W> gradient;  ///< wᵀJ.
};

/// `k.jacobian(x...)`: the values and J, with `jacobian[m][j]` = d output m / d wrt variable j.
template <class T, std::size_t M, std::size_t W>
struct jacobian_result {
    std::array<T, M> value;  ///< The values.
    std::array<std::array<T, W>, M> jacobian;  ///< J, one row per output.
};

/// `k.hessian(x...)`, `k.map_reduce_hessian(data, theta)`: the value, the gradient and
/// the Hessian with respect to the wrt variables, `hessian[i][j]` = ∂²f/∂wᵢ∂wⱼ (symmetric:
/// the upper triangle is computed and mirrored).
template <class T, std::size_t W>
struct hessian_result {
    T value;  ///< The value.
    std::array<T, W> gradient;  ///< The gradient.
    std::array<std::array<T, W>, W> hessian;  ///< H.
};

/// `k.hvp(x, v)`: the value, the gradient and the Hessian-vector product H·v.
template <class T, std::size_t W>
struct hvp_result {
    T value;  ///< The value.
    std::array<T, W> gradient;  ///< The gradient.
    std::array<T, W> hvp;  ///< H·v.
};

/// `k.hessian_diagonal(x...)` and `k.map_reduce_hessian_diagonal(data, theta)`: the value,
/// the gradient, and the Hessian's diagonal, ∂²f/∂wᵢ² in the place of ∂f/∂wᵢ.
template <class T, std::size_t W>
struct hessian_diagonal_result {
    T value;  ///< The value.
    std::array<T, W> gradient;  ///< The gradient.
    std::array<T, W> diagonal;  ///< ∂²f/∂wᵢ², H's diagonal.
};

/// `k.map_reduce_gauss_newton(data, theta)` for a kernel whose output is a residual rᵢ:
/// `value` = Σ rᵢ², `jtr` = Jᵀr = Σ rᵢ ∇rᵢ (half the gradient of the value) and `jtj` =
/// JᵀJ = Σ ∇rᵢ ∇rᵢᵀ (symmetric), the Gauss-Newton step being jtj⁻¹·jtr.
template <class T, std::size_t W>
struct gauss_newton_result {
    T value;  ///< Σ rᵢ².
    std::array<T, W> jtr;  ///< Jᵀr.
    std::array<std::array<T, W>, W> jtj;  ///< JᵀJ.
};

}  // namespace gradc
