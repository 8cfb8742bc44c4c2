#pragma once
/// \file
/// The batch calls: a kernel's one-point programs (`value_at`, `gradient_at`, `jvp_at`)
/// run on xsimd batches, one point per lane, over N points (see tail.hpp for how the
/// last partial batch is handled, and how points are split over threads). The inputs
/// `in` are pointers to K spans, or a call's checked read arguments with some of them
/// broadcast (`point_inputs`, simd/point_inputs.hpp).

#include <array>
#include <cstddef>

#include <gradc/simd/config.hpp>
#include <gradc/simd/point_inputs.hpp>
#include <gradc/simd/tail.hpp>

namespace gradc::simd::detail {

/// Output values at every point.
template <class A, class Kernel, class In, class T>
void value_points(const Kernel& k, std::size_t n, const In& in,
                  const std::array<T*, Kernel::output_count>& out, int threads = 1) {
    using B = xsimd::batch<T, A>;
    run_points<A>(n, in, out, [&](const std::array<B, Kernel::arity>& x) {
        std::array<B, Kernel::output_count> y;
        k.value_at(x.data(), y.data());
        return y;
    }, threads);
}

/// Value (out[0]) and gradient (out[1 + j]) of a one-output kernel at every point.
template <class A, class Kernel, class In, class T>
void gradient_points(const Kernel& k, std::size_t n, const In& in,
                     const std::array<T*, 1 + Kernel::wrt_count>& out, int threads = 1) {
    using B = xsimd::batch<T, A>;
    run_points<A>(n, in, out, [&](const std::array<B, Kernel::arity>& x) {
        std::array<B, 1 + Kernel::wrt_count> y;
        k.gradient_at(x.data(), y.data(), y.data() + 1);
        return y;
    }, threads);
}

/// Values (out[m]) and tangents (out[M + m]) at every point, for input tangents given
/// after the inputs (in[arity + j], one per wrt variable).
template <class A, class Kernel, class In, class T>
void jvp_points(const Kernel& k, std::size_t n, const In& in,
                const std::array<T*, 2 * Kernel::output_count>& out, int threads = 1) {
    using B = xsimd::batch<T, A>;
    run_points<A>(n, in, out, [&](const std::array<B, Kernel::arity + Kernel::wrt_count>& x) {
        std::array<B, 2 * Kernel::output_count> y;
        k.jvp_at(x.data(), x.data() + Kernel::arity, y.data(), y.data() + Kernel::output_count);
        return y;
    }, threads);
}

/// Vector-Jacobian products at every point: out[j] = Σₘ w_m·∂f_m/∂(wrt variable j), the
/// weights given after the inputs (in[arity + m], one per output).
template <class A, class Kernel, class In, class T>
void vjp_points(const Kernel& k, std::size_t n, const In& in,
                const std::array<T*, Kernel::wrt_count>& out, int threads = 1) {
    using B = xsimd::batch<T, A>;
    run_points<A>(n, in, out, [&](const std::array<B, Kernel::arity + Kernel::output_count>& x) {
        std::array<B, Kernel::wrt_count> g;
        k.vjp_at(x.data(), x.data() + Kernel::arity, g.data());
        return g;
    }, threads);
}

}  // namespace gradc::simd::detail
