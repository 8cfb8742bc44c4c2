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
#include <cstdint>
#include <utility>

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

template <class Kernel>
inline constexpr std::uint64_t data_mask = [] {
    std::uint64_t m = 0;
    for (std::size_t v = 0; v < Kernel::arity; ++v)
        if (!data_layout<Kernel>::is_parameter[v]) m |= std::uint64_t{1} << v;
    return m;
}();

template <class A, class Kernel, class T>
gradient_result<T, Kernel::wrt_count> reduce_points(const Kernel& k, std::size_t n,
                                                    const std::array<const T*, data_layout<Kernel>::data_count>& data,
                                                    const std::array<T, Kernel::wrt_count>& theta) {
    using P = typename Kernel::program;
    using B = xsimd::batch<T, A>;
    using layout = data_layout<Kernel>;
    constexpr std::size_t L = B::size;
    constexpr std::size_t W = Kernel::wrt_count;
    constexpr std::uint64_t varying = data_mask<Kernel>;
    constexpr auto& split = P::template split<varying>;
    constexpr std::size_t S = P::live.live_count;
    static_assert(Kernel::arity <= 64, "gradc map_reduce: at most 64 variables");

    // Nodes that depend on the parameters alone are the same at every point: they are
    // evaluated once (in the batch values, for the per-point sweep, and in scalars, for
    // the parameter sweep), and the adjoint below them is swept once, on the sum over
    // all points of the adjoints reaching them (the boundary slots).
    std::array<B, Kernel::arity> x;
    std::array<T, Kernel::arity> xs{};
    for (std::size_t v = 0; v < Kernel::arity; ++v) {
        if (!layout::is_parameter[v]) continue;
        x[v] = B(theta[layout::position[v]]);
        xs[v] = theta[layout::position[v]];
    }
    typename P::template values<B> vb;
    P::template primal_invariant<varying>(k.literals(), x.data(), vb);

    // The value and the boundary adjoints of one batch, added into (sv, sa); `keep` drops
    // the padding lanes of the partial batch (a selection, so that padding never reaches
    // the sum).
    const B one(T(1));
    auto accumulate = [&](B& sv, std::array<B, S>& sa, auto keep) {
        P::template primal_varying<varying>(k.literals(), x.data(), vb);
        typename P::template derivatives<B> a;
        P::template adjoint_varying<varying>(P::linearize(vb), &one, a);
        sv += keep(vb[P::output_nodes[0]]);
        for (std::size_t s = 0; s < S; ++s)
            if (split.boundary[s]) sa[s] += keep(a[s]);
    };
    auto all = [](const B& b) { return b; };

    double total = 0;
    std::array<double, S> total_boundary{};
    auto flush = [&](const B& sv, const std::array<B, S>& sa) {
        total += static_cast<double>(xsimd::hadd(sv));
        for (std::size_t s = 0; s < S; ++s)
            if (split.boundary[s]) total_boundary[s] += static_cast<double>(xsimd::hadd(sa[s]));
    };
    auto zeros = [] {
        std::array<B, S> z;
        z.fill(B(T(0)));
        return z;
    };

    const std::size_t full = n - n % L;
    std::size_t i = 0;
    while (i < full) {
        const std::size_t end = std::min(full, i + block * L);
        B sv(T(0));
        std::array<B, S> sa = zeros();
        for (; i < end; i += L) {
            for (std::size_t v = 0; v < Kernel::arity; ++v)
                if (!layout::is_parameter[v]) x[v] = B::load_unaligned(data[layout::position[v]] + i);
            accumulate(sv, sa, all);
        }
        flush(sv, sa);
    }
    if (i < n) {
        const std::size_t m = n - i;
        alignas(A::alignment()) T buffer[L];
        for (std::size_t v = 0; v < Kernel::arity; ++v) {
            if (layout::is_parameter[v]) continue;
            const T* src = data[layout::position[v]] + i;
            for (std::size_t l = 0; l < L; ++l) buffer[l] = src[std::min(l, m - 1)];
            x[v] = B::load_aligned(buffer);
        }
        const auto real = first_lanes<A, T>(m);
        B sv(T(0));
        std::array<B, S> sa = zeros();
        accumulate(sv, sa, [&](const B& b) { return xsimd::select(real, b, B(T(0))); });
        flush(sv, sa);
    }

    typename P::template values<T> vs;
    P::template primal_invariant<varying>(k.literals(), xs.data(), vs);
    typename P::template derivatives<T> boundary;
    for (std::size_t s = 0; s < S; ++s) boundary[s] = static_cast<T>(total_boundary[s]);
    gradient_result<T, W> r{static_cast<T>(total), {}};
    P::template adjoint_invariant<varying>(P::linearize(vs), boundary, r.gradient.data());
    return r;
}

}  // namespace gradc::simd::detail
