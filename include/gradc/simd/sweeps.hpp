#pragma once
/// The batch calls: a kernel's lowered programs run on xsimd batches, one point per lane,
/// over N points (see tail.hpp for how the last partial batch is handled).

#include <array>
#include <cstddef>
#include <utility>

#include <gradc/rules/value_traits.hpp>
#include <gradc/simd/config.hpp>
#include <gradc/simd/tail.hpp>

namespace gradc::simd::detail {

/// Output values at every point.
template <class A, class Kernel, class T>
void value_points(const Kernel& k, std::size_t n, const std::array<const T*, Kernel::arity>& in,
                  const std::array<T*, Kernel::output_count>& out) {
    using P = typename Kernel::program;
    using B = xsimd::batch<T, A>;
    run_batches<A>(n, in, out, [&](const std::array<B, Kernel::arity>& x) {
        typename P::template values<B> v;
        P::primal(k.literals(), x.data(), v);
        return [&]<std::size_t... m>(std::index_sequence<m...>) {
            return std::array<B, Kernel::output_count>{v[P::output_nodes[m]]...};
        }(std::make_index_sequence<Kernel::output_count>{});
    });
}

/// Value (out[0]) and gradient (out[1 + j]) of a one-output kernel at every point.
template <class A, class Kernel, class T>
void gradient_points(const Kernel& k, std::size_t n, const std::array<const T*, Kernel::arity>& in,
                     const std::array<T*, 1 + Kernel::wrt_count>& out) {
    using P = typename Kernel::program;
    using B = xsimd::batch<T, A>;
    run_batches<A>(n, in, out, [&](const std::array<B, Kernel::arity>& x) {
        typename P::template values<B> v;
        const auto lin = P::linearize(k.literals(), x.data(), v);
        std::array<B, 1 + Kernel::wrt_count> y;
        y[0] = v[P::output_nodes[0]];
        const B one(T(1));
        P::adjoint(lin, &one, y.data() + 1);
        return y;
    });
}

/// Values (out[m]) and tangents (out[M + m]) at every point, for input tangents given
/// after the inputs (in[arity + j], one per wrt variable).
template <class A, class Kernel, class T>
void jvp_points(const Kernel& k, std::size_t n, const std::array<const T*, Kernel::arity + Kernel::wrt_count>& in,
                const std::array<T*, 2 * Kernel::output_count>& out) {
    using P = typename Kernel::program;
    using B = xsimd::batch<T, A>;
    constexpr std::size_t M = Kernel::output_count;
    run_batches<A>(n, in, out, [&](const std::array<B, Kernel::arity + Kernel::wrt_count>& x) {
        typename P::template values<B> v;
        const auto lin = P::linearize(k.literals(), x.data(), v);
        std::array<B, 2 * M> y;
        [&]<std::size_t... m>(std::index_sequence<m...>) {
            ((y[m] = v[P::output_nodes[m]]), ...);
        }(std::make_index_sequence<M>{});
        P::tangent(lin, x.data() + Kernel::arity, y.data() + M);
        return y;
    });
}

}  // namespace gradc::simd::detail
