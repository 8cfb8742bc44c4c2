#pragma once
/// The differential tester's second-order and float modes (harness.hpp's `check` runs
/// them when asked): the static kernel's Hessians on one point and in batches, the
/// dynamic mode's Hessian by double backward, long-double second differences, and the
/// static kernel on float.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <tuple>
#include <vector>

#include <gradc/autograd.hpp>
#include <gradc/gradc.hpp>

#include "reference.hpp"

namespace gradc::difftest {

/// ∂²f/∂xᵢ∂xⱼ by long-double second differences at every point, where f is smooth to
/// second order there: the central difference with steps h and h/2, and the one-sided
/// differences forward and backward (which differ where f'' jumps: relu(x)·x at 0),
/// agree; NaN elsewhere. Steps relative to max(1, |x|): 1e-4 (central, truncation
/// ~1e-8 f'''') and 1e-5 (one-sided, ~1e-5 f''').
template <std::size_t N, class F>
void reference_hessian(const F& f, const std::vector<double>& inputs, std::size_t points,
                       std::vector<long double>& hess) {
    using real = long double;
    hess.assign(points * N * N, std::numeric_limits<real>::quiet_NaN());
    for (std::size_t p = 0; p < points; ++p) {
        std::array<real, N> x;
        for (std::size_t j = 0; j < N; ++j) x[j] = inputs[p * N + j];
        reference::branches = {};
        const real fx = std::apply(f, x);
        const reference::branch_trace at_x = reference::branches;  // as in reference_derivatives
        bool same_branches = true;
        const auto at = [&](std::size_t i, real a, std::size_t j, real b) {
            auto y = x;
            y[i] += a;
            y[j] += b;
            reference::branches = {};
            const real v = std::apply(f, y);
            same_branches = same_branches && reference::branches == at_x;
            return v;
        };
        if (!std::isfinite(fx)) continue;
        for (std::size_t i = 0; i < N; ++i) {
            for (std::size_t j = i; j < N; ++j) {
                if (!std::isfinite(x[i]) || !std::isfinite(x[j]) || std::fabs(x[i]) > 1e6 || std::fabs(x[j]) > 1e6)
                    continue;
                const real si = std::max<real>(1, std::fabs(x[i])), sj = std::max<real>(1, std::fabs(x[j]));
                real largest = std::fabs(fx);
                same_branches = true;
                const auto central = [&](real s) {
                    const real a = s * si, b = s * sj;
                    const real pp = at(i, a, j, b), pm = at(i, a, j, -b), mp = at(i, -a, j, b), mm = at(i, -a, j, -b);
                    largest = std::max({largest, std::fabs(pp), std::fabs(pm), std::fabs(mp), std::fabs(mm)});
                    return (pp - pm - mp + mm) / (4 * a * b);
                };
                const auto one_sided = [&](real s) {
                    const real a = s * si, b = s * sj;
                    const real pp = at(i, a, j, b), p0 = at(i, a, j, 0), q0 = at(j, b, i, 0);
                    largest = std::max({largest, std::fabs(pp), std::fabs(p0), std::fabs(q0)});
                    return (pp - p0 - q0 + fx) / (a * b);
                };
                const real c1 = central(1e-4L), c2 = central(0.5e-4L);
                const real fw = one_sided(1e-5L), bw = one_sided(-1e-5L);
                // Trusted to a tenth of the tolerance the harness compares with (1e-5 +
                // 1e-3·|fd|): c1 and c2 differ by about 3/4 of c1's truncation error.
                const real tol = 1e-6L + 1e-4L * std::fabs(c2), tol1 = 1e-3L * (1 + std::fabs(c2));
                // f's own rounding over the central step: beyond gradcheck's tolerance the
                // difference says nothing.
                const real noise = 8 * std::numeric_limits<real>::epsilon() * largest / (0.25e-8L * si * sj);
                if (!same_branches || !std::isfinite(c1) || !std::isfinite(c2) || !std::isfinite(fw) || !std::isfinite(bw) ||
                    std::fabs(c1 - c2) > tol || std::fabs(fw - c2) > tol1 || std::fabs(bw - c2) > tol1 ||
                    noise > 1e-7L + 1e-5L * std::fabs(c2))
                    continue;
                hess[p * N * N + i * N + j] = hess[p * N * N + j * N + i] = c2;
            }
        }
    }
}

/// The dynamic mode's Hessian of the expression at every point: the gradients with
/// `create_graph`, then for each variable j the gradient of Σ ∂f/∂xⱼ (the points are
/// independent, so its entry at a point is row j of that point's Hessian).
template <std::size_t N, class F>
void dynamic_hessian(const F& f, const std::array<gradc::Tensor, N>& t, std::size_t points, std::vector<double>& hess) {
    hess.assign(points * N * N, 0.0);
    const gradc::Tensor y = std::apply(f, t);
    const gradc::tensor_list leaves(t.begin(), t.end());
    const gradc::tensor_list g = gradc::autograd::grad({y.sum()}, leaves, {}, true, true, true);
    for (std::size_t j = 0; j < N; ++j) {
        // An unused variable, or a gradient that depends on no variable (a linear term):
        // its row is zero.
        if (!g[j].defined() || !g[j].requires_grad()) continue;
        const gradc::tensor_list h = gradc::autograd::grad({g[j].sum()}, leaves, {}, true, false, true);
        for (std::size_t i = 0; i < N; ++i) {
            if (!h[i].defined()) continue;
            const gradc::Tensor c = h[i].contiguous();
            for (std::size_t p = 0; p < points; ++p) hess[p * N * N + j * N + i] = c.data_ptr<double>()[p];
        }
    }
}

}  // namespace gradc::difftest
