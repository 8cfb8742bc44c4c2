#pragma once
/// \file
/// Second order, forward over reverse: the gradient program run on dual numbers
/// (rules/dual.hpp). Each input carries its tangents, one per direction; the primal is
/// evaluated once, on duals, and so is the adjoint sweep, whose every local partial is a
/// dual too. The gradient's tangents are then Hessian-vector products:
///  - Hessian: W directions, the unit vectors of the wrt variables; gradient entry i's
///    tangent j is ∂²f/∂wᵢ∂wⱼ. Its upper triangle (i ≤ j, row-major) is kept;
///  - hvp: one direction v; the gradient's tangent is H·v.
/// Activity carries over: the adjoint has slots for the live nodes only, as in the
/// gradient program. What each call costs is in docs/static.md, "Second order".

#include <array>
#include <cstddef>

#include <gradc/rules/dual.hpp>
#include <gradc/rules/value_traits.hpp>

namespace gradc::lower {

// The second-order programs are flattened: everything they call is inlined into one
// straight-line body, the steps (which lower/steps.hpp leaves to the compiler's
// heuristics) and the math functions included. On duals the body is a few times larger
// than a gradient's, and g++ otherwise left steps and tanh out of line, passing duals of
// batches through memory (4x slower than the gradient, measured on the mlp kernel).

/// Entries of the upper triangle of a W×W symmetric matrix.
constexpr std::size_t triangle_size(std::size_t w) { return w * (w + 1) / 2; }

/// Position of entry (i, j), i ≤ j, in the row-major upper triangle.
constexpr std::size_t triangle_index(std::size_t w, std::size_t i, std::size_t j) {
    return i * w - i * (i - 1) / 2 + (j - i);
}

/// The inputs x as duals with D directions, with tangent `tangent(j, d)` for the wrt
/// variable j in direction d and zero for the other variables.
template <std::size_t D, std::size_t Arity, std::size_t W, class T, class Tangent>
[[gnu::always_inline]] inline std::array<dual<T, D>, Arity> dual_inputs(const T* x, const std::array<std::size_t, W>& wrt_variables,
                                          Tangent tangent) {
    std::array<dual<T, D>, Arity> xd;
    for (std::size_t i = 0; i < Arity; ++i) xd[i] = dual<T, D>(x[i]);
    for (std::size_t j = 0; j < W; ++j)
        for (std::size_t d = 0; d < D; ++d) xd[wrt_variables[j]].tangent[d] = tangent(j, d);
    return xd;
}

/// Value, gradient and the upper triangle of the Hessian at x, from the gradient program
/// `gradient_at(const dual* x, dual* value, dual* grad)` of a kernel.
template <std::size_t Arity, std::size_t W, class T, class GradientAt>
[[gnu::flatten]] inline void hessian_from_duals(const T* x, const std::array<std::size_t, W>& wrt_variables, GradientAt gradient_at,
                        T* value, T* grad, T* upper) {
    using K = rules::scalar_t<T>;
    const auto xd = dual_inputs<W, Arity>(x, wrt_variables,
                                          [](std::size_t j, std::size_t d) { return T(K(j == d ? 1 : 0)); });
    dual<T, W> y;
    std::array<dual<T, W>, W> g;
    gradient_at(xd.data(), &y, g.data());
    *value = y.value;
    std::size_t at = 0;
    for (std::size_t i = 0; i < W; ++i) {
        grad[i] = g[i].value;
        for (std::size_t j = i; j < W; ++j) upper[at++] = g[i].tangent[j];
    }
}

/// Value, gradient and H·v at x.
template <std::size_t Arity, std::size_t W, class T, class GradientAt>
[[gnu::flatten]] inline void hvp_from_duals(const T* x, const T* v, const std::array<std::size_t, W>& wrt_variables, GradientAt gradient_at,
                    T* value, T* grad, T* hv) {
    const auto xd = dual_inputs<1, Arity>(x, wrt_variables, [&](std::size_t j, std::size_t) { return v[j]; });
    dual<T, 1> y;
    std::array<dual<T, 1>, W> g;
    gradient_at(xd.data(), &y, g.data());
    *value = y.value;
    for (std::size_t i = 0; i < W; ++i) {
        grad[i] = g[i].value;
        hv[i] = g[i].tangent[0];
    }
}

/// The full symmetric matrix from its upper triangle.
template <class T, std::size_t W>
std::array<std::array<T, W>, W> symmetric_from_upper(const T* upper) {
    std::array<std::array<T, W>, W> h;
    std::size_t at = 0;
    for (std::size_t i = 0; i < W; ++i)
        for (std::size_t j = i; j < W; ++j) h[i][j] = h[j][i] = upper[at++];
    return h;
}

}  // namespace gradc::lower
