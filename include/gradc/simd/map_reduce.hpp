#pragma once
/// Map-reduce for likelihood-style sums: Σᵢ f(θ, xᵢ) and its gradient with respect to θ.
///
/// The kernel's wrt variables are the shared parameters θ; its other variables are the
/// per-point data xᵢ, in variable order. One batch of points is evaluated per step with θ
/// broadcast to every lane, and the value and the θ-adjoints are summed in registers, so
/// no per-point gradient is stored. The sum is blocked (per-lane partial sums over at most
/// `block` batches, then added into a double total) to keep the rounding error of a
/// million-term sum near that of pairwise summation, in float as in double.

#include <algorithm>
#include <array>
#include <cstddef>
#include <utility>

#include <gradc/lower/map_reduce_split.hpp>
#include <gradc/lower/results.hpp>
#include <gradc/simd/config.hpp>
#include <gradc/simd/tail.hpp>

namespace gradc::simd::detail {

/// Which variables of a kernel are data (not wrt), and where each variable comes from.
template <class Kernel>
struct data_layout {
    static constexpr std::size_t arity = Kernel::arity;
    static constexpr std::size_t parameter_count = Kernel::wrt_count;
    static constexpr std::size_t data_count = arity - parameter_count;
    /// For variable v: its position among the parameters (wrt order) or among the data.
    static constexpr std::array<std::size_t, arity> position = [] {
        std::array<std::size_t, arity> p{};
        std::size_t d = 0;
        for (std::size_t v = 0; v < arity; ++v) {
            bool is_parameter = false;
            for (std::size_t j = 0; j < parameter_count; ++j) {
                if (Kernel::wrt_variables[j] == v) {
                    p[v] = j;
                    is_parameter = true;
                }
            }
            if (!is_parameter) p[v] = d++;
        }
        return p;
    }();
    static constexpr std::array<bool, arity> is_parameter = [] {
        std::array<bool, arity> p{};
        for (std::size_t j = 0; j < parameter_count; ++j) p[Kernel::wrt_variables[j]] = true;
        return p;
    }();
};

inline constexpr std::size_t block = 256;

/// The kernel's data variables (those not in wrt), as the map-reduce split takes them.
template <class Kernel>
inline constexpr lower::variable_mask<Kernel::arity> data_mask = [] {
    lower::variable_mask<Kernel::arity> m;
    for (std::size_t v = 0; v < Kernel::arity; ++v) m.varying[v] = !data_layout<Kernel>::is_parameter[v];
    return m;
}();

/// Independent accumulator sets per loop step: each batch's sums go to its own set, so
/// that consecutive additions do not wait on each other (an addition's latency is several
/// cycles; a kernel this short would otherwise run at that latency).
inline constexpr std::size_t accumulators = 2;

template <class A, class Kernel, class T>
gradient_result<T, Kernel::wrt_count> reduce_points(const Kernel& k, std::size_t n,
                                                    const std::array<const T*, data_layout<Kernel>::data_count>& data,
                                                    const std::array<T, Kernel::wrt_count>& theta) {
    using P = typename Kernel::program;
    using B = xsimd::batch<T, A>;
    using layout = data_layout<Kernel>;
    constexpr std::size_t L = B::size;
    constexpr std::size_t W = Kernel::wrt_count;
    using split = lower::map_reduce_split<P, data_mask<Kernel>>;
    constexpr std::size_t S = P::live.live_count;
    constexpr std::size_t R = accumulators;

    // Nodes that depend on the parameters alone are the same at every point: they are
    // evaluated once (in the batch values, for the per-point sweep, and in scalars, for
    // the sweep of the deferred edges). Per point, the frontier of the value and the
    // adjoints of the boundary slots are summed (lower/map_reduce_split.hpp).
    std::array<B, Kernel::arity> x;
    x.fill(B(T(0)));
    std::array<T, Kernel::arity> xs{};
    for (std::size_t v = 0; v < Kernel::arity; ++v) {
        if (!layout::is_parameter[v]) continue;
        x[v] = B(theta[layout::position[v]]);
        xs[v] = theta[layout::position[v]];
    }
    typename P::template values<B> vb;
    vb.fill(B(T(0)));
    split::primal_invariant(k.literals(), x.data(), vb);

    struct sums {
        B value;
        std::array<B, S> boundary;
    };
    auto zero = [] {
        sums z;
        z.value = B(T(0));
        z.boundary.fill(B(T(0)));
        return z;
    };
    // The value and the boundary adjoints of one batch, added into `s`; `keep` drops the
    // padding lanes of the partial batch (a selection, so that padding never reaches the
    // sum). Boundary slots that hold only a seed are counted, not summed.
    const B one(T(1));
    auto accumulate = [&](const std::array<B, Kernel::arity>& xb, sums& s, auto keep) {
        typename P::template values<B> v = vb;
        const auto lin = split::primal_varying(k.literals(), xb.data(), v);
        typename P::template derivatives<B> a;
        split::adjoint_varying(lin, &one, a);
        s.value += keep(v[split::plan.frontier]);
        for (std::size_t b = 0; b < S; ++b)
            if (split::plan.boundary[b] && !split::plan.seed_only[b]) s.boundary[b] += keep(a[b]);
    };
    auto all = [](const B& b) { return b; };

    double total = 0;
    std::array<double, S> total_boundary{};
    auto flush = [&](const std::array<sums, R>& s) {
        sums t = s[0];
        for (std::size_t r = 1; r < R; ++r) {
            t.value += s[r].value;
            for (std::size_t b = 0; b < S; ++b) t.boundary[b] += s[r].boundary[b];
        }
        total += static_cast<double>(xsimd::hadd(t.value));
        for (std::size_t b = 0; b < S; ++b)
            if (split::plan.boundary[b] && !split::plan.seed_only[b]) total_boundary[b] += static_cast<double>(xsimd::hadd(t.boundary[b]));
    };
    auto load = [&](std::size_t i) {
        std::array<B, Kernel::arity> xb = x;
        for (std::size_t v = 0; v < Kernel::arity; ++v)
            if (!layout::is_parameter[v]) xb[v] = B::load_unaligned(data[layout::position[v]] + i);
        return xb;
    };

    const std::size_t full = n - n % L;
    std::size_t i = 0;
    while (i < full) {
        const std::size_t end = std::min(full, i + block * L);
        std::array<sums, R> s;
        s.fill(zero());
        for (; i + R * L <= end; i += R * L)
            [&]<std::size_t... r>(std::index_sequence<r...>) {
                (accumulate(load(i + r * L), s[r], all), ...);
            }(std::make_index_sequence<R>{});
        for (; i < end; i += L) accumulate(load(i), s[0], all);
        flush(s);
    }
    if (i < n) {
        const std::size_t m = n - i;
        alignas(A::alignment()) T buffer[L];
        std::array<B, Kernel::arity> xb = x;
        for (std::size_t v = 0; v < Kernel::arity; ++v) {
            if (layout::is_parameter[v]) continue;
            const T* src = data[layout::position[v]] + i;
            for (std::size_t l = 0; l < L; ++l) buffer[l] = src[std::min(l, m - 1)];
            xb[v] = B::load_aligned(buffer);
        }
        const auto real = first_lanes<A, T>(m);
        std::array<sums, R> s;
        s.fill(zero());
        accumulate(xb, s[0], [&](const B& b) { return xsimd::select(real, b, B(T(0))); });
        flush(s);
    }

    // Once, in scalars: the value's tail applied to the summed frontier, and the deferred
    // edges swept on the summed boundary adjoints.
    typename P::template values<T> vs{};
    split::primal_invariant(k.literals(), xs.data(), vs);
    const T count = static_cast<T>(n);
    T value = static_cast<T>(total);
    if constexpr (split::plan.frontier != P::output_nodes[0]) {
        if constexpr (split::plan.tail_offset) {
            // Σ g(uᵢ) = g(Σuᵢ) + (N - 1)·g(0) for g affine.
            vs[split::plan.frontier] = T(0);
            split::primal_tail(k.literals(), xs.data(), vs);
            const T offset = vs[P::output_nodes[0]];
            vs[split::plan.frontier] = value;
            split::primal_tail(k.literals(), xs.data(), vs);
            value = vs[P::output_nodes[0]] + (count - T(1)) * offset;
        } else {
            vs[split::plan.frontier] = value;
            split::primal_tail(k.literals(), xs.data(), vs);
            value = vs[P::output_nodes[0]];
        }
    }
    typename P::template derivatives<T> boundary{};
    for (std::size_t b = 0; b < S; ++b) {
        if (split::plan.seed_only[b]) boundary[b] = count;  // the seed, 1 at every point
        else if (split::plan.boundary[b]) boundary[b] = static_cast<T>(total_boundary[b]);
    }
    gradient_result<T, W> r{value, {}};
    split::adjoint_once(typename P::template linearization<T>{vs}, boundary, r.gradient.data());
    return r;
}

}  // namespace gradc::simd::detail
