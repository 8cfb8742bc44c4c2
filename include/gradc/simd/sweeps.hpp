#pragma once
/// \file
/// The batch calls: a kernel's one-point programs (`value_at`, `gradient_at`, `jvp_at`)
/// run on xsimd batches, one point per lane, over N points (see tail.hpp for how the
/// last partial batch is handled, and how points are split over threads). The inputs
/// `in` are pointers to K spans, or a call's checked read arguments with some of them
/// broadcast (`point_inputs`, simd/point_inputs.hpp). When some variables are broadcast,
/// the nodes that read only them are evaluated once per call (Note [Hoisted broadcast
/// work], lower/hoisted_program.hpp).

#include <array>
#include <cstddef>

#include <gradc/lower/hoisted_program.hpp>
#include <gradc/simd/config.hpp>
#include <gradc/simd/point_inputs.hpp>
#include <gradc/simd/tail.hpp>

namespace gradc::simd::detail {

/// Which of a kernel's variables a call's inputs give per point: all, for spans only.
template <std::size_t Arity, class In>
struct varying_variables {
    static constexpr bool some_broadcast = false;
};
template <std::size_t Arity, class T, std::size_t K, lower::node_mask<K> Mask>
struct varying_variables<Arity, point_inputs<T, K, Mask>> {
    static constexpr lower::variable_mask<Arity> mask = [] {
        lower::variable_mask<Arity> m;
        for (std::size_t j = 0; j < Arity; ++j) m.varying[j] = Mask[j];
        return m;
    }();
    static constexpr bool some_broadcast = [] {
        for (std::size_t j = 0; j < Arity; ++j)
            if (!Mask[j]) return true;
        return false;
    }();
};

/// The kernel's program with the call's broadcast variables hoisted.
template <class Kernel, class In>
using hoisted_for =
    lower::hoisted_program<typename Kernel::program, varying_variables<Kernel::arity, In>::mask>;

/// Whether a call with inputs In has work to hoist: a broadcast variable that some
/// primitive reads alone.
template <class Kernel, class In>
constexpr bool hoists() {
    if constexpr (varying_variables<Kernel::arity, In>::some_broadcast) {
        return hoisted_for<Kernel, In>::pays;
    } else {
        return false;
    }
}

/// The kernel's inputs for `prepare`: the broadcast values splatted, 0 where a variable
/// is given per point (`prepare` reads none of those).
template <class B, std::size_t Arity, class T, std::size_t K, lower::node_mask<K> Mask>
std::array<B, Arity> broadcast_inputs(const point_inputs<T, K, Mask>& in) {
    std::array<B, Arity> x;
    for (std::size_t j = 0; j < Arity; ++j)
        x[j] = Mask[j] ? B(T(0)) : B(in.fixed[point_inputs<T, K, Mask>::index[j]]);
    return x;
}

/// What each range of points starts from: the invariant nodes' values (and, for a
/// derivative program, partials) at the call's broadcast values, made by `prepare` in the
/// loop's frame (simd/tail.hpp, `with_state`, says why there).
template <class B, class H, bool Derivative, class Kernel, class In>
auto prepared(const Kernel& k, const In& in) {
    return [&k, &in] {
        typename H::template values<B> once{};
        H::template prepare<Derivative>(k.bound(), broadcast_inputs<B, Kernel::arity>(in).data(), once);
        return once;
    };
}

/// Output values at every point.
template <class A, class Kernel, class In, class T>
void value_points(const Kernel& k, std::size_t n, const In& in,
                  const std::array<T*, Kernel::output_count>& out, int threads = 1) {
    using B = xsimd::batch<T, A>;
    if constexpr (hoists<Kernel, In>()) {
        using H = hoisted_for<Kernel, In>;
        const auto body = [&](const std::array<B, Kernel::arity>& x, const auto& once) {
            typename H::template values<B> v;
            H::template evaluate<false>(k.bound(), x.data(), once, v);
            std::array<B, Kernel::output_count> y;
            for (std::size_t m = 0; m < Kernel::output_count; ++m) y[m] = v[Kernel::program::output_nodes[m]];
            return y;
        };
        run_points<A>(n, in, out, make_with_state(prepared<B, H, false>(k, in), body), threads);
    } else {
        run_points<A>(n, in, out, [&](const std::array<B, Kernel::arity>& x) {
            std::array<B, Kernel::output_count> y;
            k.value_at(x.data(), y.data());
            return y;
        }, threads);
    }
}

/// Value (out[0]) and gradient (out[1 + j]) of a one-output kernel at every point.
template <class A, class Kernel, class In, class T>
void gradient_points(const Kernel& k, std::size_t n, const In& in,
                     const std::array<T*, 1 + Kernel::wrt_count>& out, int threads = 1) {
    using B = xsimd::batch<T, A>;
    if constexpr (hoists<Kernel, In>()) {
        using H = hoisted_for<Kernel, In>;
        const std::size_t* forward = Kernel::program::forward_of(k.bound());
        const auto body = [&](const std::array<B, Kernel::arity>& x, const auto& once) {
            typename H::template values<B> v;
            H::template evaluate<true>(k.bound(), x.data(), once, v);
            std::array<B, 1 + Kernel::wrt_count> y;
            y[0] = v[Kernel::program::output_nodes[0]];
            const B one(T(1));
            H::adjoint(v, forward, &one, y.data() + 1);
            return y;
        };
        run_points<A>(n, in, out, make_with_state(prepared<B, H, true>(k, in), body), threads);
    } else {
        run_points<A>(n, in, out, [&](const std::array<B, Kernel::arity>& x) {
            std::array<B, 1 + Kernel::wrt_count> y;
            k.gradient_at(x.data(), y.data(), y.data() + 1);
            return y;
        }, threads);
    }
}

/// Values (out[m]) and tangents (out[M + m]) at every point, for input tangents given
/// after the inputs (in[arity + j], one per wrt variable).
template <class A, class Kernel, class In, class T>
void jvp_points(const Kernel& k, std::size_t n, const In& in,
                const std::array<T*, 2 * Kernel::output_count>& out, int threads = 1) {
    using B = xsimd::batch<T, A>;
    constexpr std::size_t M = Kernel::output_count;
    if constexpr (hoists<Kernel, In>()) {
        using H = hoisted_for<Kernel, In>;
        const auto body = [&](const std::array<B, Kernel::arity + Kernel::wrt_count>& x, const auto& once) {
            typename H::template values<B> v;
            H::template evaluate<true>(k.bound(), x.data(), once, v);
            std::array<B, 2 * M> y;
            for (std::size_t m = 0; m < M; ++m) y[m] = v[Kernel::program::output_nodes[m]];
            H::tangent(v, x.data() + Kernel::arity, y.data() + M);
            return y;
        };
        run_points<A>(n, in, out, make_with_state(prepared<B, H, true>(k, in), body), threads);
    } else {
        run_points<A>(n, in, out, [&](const std::array<B, Kernel::arity + Kernel::wrt_count>& x) {
            std::array<B, 2 * M> y;
            k.jvp_at(x.data(), x.data() + Kernel::arity, y.data(), y.data() + M);
            return y;
        }, threads);
    }
}

/// Vector-Jacobian products at every point: out[j] = Σₘ w_m·∂f_m/∂(wrt variable j), the
/// weights given after the inputs (in[arity + m], one per output).
template <class A, class Kernel, class In, class T>
void vjp_points(const Kernel& k, std::size_t n, const In& in,
                const std::array<T*, Kernel::wrt_count>& out, int threads = 1) {
    using B = xsimd::batch<T, A>;
    if constexpr (hoists<Kernel, In>()) {
        using H = hoisted_for<Kernel, In>;
        const std::size_t* forward = Kernel::program::forward_of(k.bound());
        const auto body = [&](const std::array<B, Kernel::arity + Kernel::output_count>& x, const auto& once) {
            typename H::template values<B> v;
            H::template evaluate<true>(k.bound(), x.data(), once, v);
            std::array<B, Kernel::wrt_count> g;
            H::adjoint(v, forward, x.data() + Kernel::arity, g.data());
            return g;
        };
        run_points<A>(n, in, out, make_with_state(prepared<B, H, true>(k, in), body), threads);
    } else {
        run_points<A>(n, in, out, [&](const std::array<B, Kernel::arity + Kernel::output_count>& x) {
            std::array<B, Kernel::wrt_count> g;
            k.vjp_at(x.data(), x.data() + Kernel::arity, g.data());
            return g;
        }, threads);
    }
}

/// Values (out[m]) and the Jacobian (out[M + m·W + j] = ∂f_m/∂(wrt variable j)) at every
/// point. Broadcast variables are splatted per batch and nothing is hoisted: the
/// Jacobian's sweeps carry M or W directions, which dominate its cost.
template <class A, class Kernel, class In, class T>
void jacobian_points(const Kernel& k, std::size_t n, const In& in,
                     const std::array<T*, Kernel::output_count * (1 + Kernel::wrt_count)>& out, int threads = 1) {
    using B = xsimd::batch<T, A>;
    constexpr std::size_t M = Kernel::output_count;
    run_points<A>(n, in, out, [&](const std::array<B, Kernel::arity>& x) {
        std::array<B, M * (1 + Kernel::wrt_count)> y;
        k.jacobian_at(x.data(), y.data(), y.data() + M);
        return y;
    }, threads);
}

}  // namespace gradc::simd::detail
