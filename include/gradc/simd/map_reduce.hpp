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

template <class A, class Kernel, class T>
gradient_result<T, Kernel::wrt_count> reduce_points(const Kernel& k, std::size_t n,
                                                    const std::array<const T*, data_layout<Kernel>::data_count>& data,
                                                    const std::array<T, Kernel::wrt_count>& theta) {
    using P = typename Kernel::program;
    using B = xsimd::batch<T, A>;
    using layout = data_layout<Kernel>;
    constexpr std::size_t L = B::size;
    constexpr std::size_t W = Kernel::wrt_count;

    std::array<B, Kernel::arity> x;
    for (std::size_t v = 0; v < Kernel::arity; ++v)
        if (layout::is_parameter[v]) x[v] = B(theta[layout::position[v]]);

    // The value and gradient of one batch, added into (sv, sg); `keep` drops the padding
    // lanes of the partial batch (a selection, so that padding never reaches the sum).
    auto accumulate = [&](B& sv, std::array<B, W>& sg, auto keep) {
        typename P::template values<B> v;
        P::primal(k.literals(), x.data(), v);
        const auto lin = P::linearize(v);
        std::array<B, W> g;
        const B one(T(1));
        P::adjoint(lin, &one, g.data());
        sv += keep(v[P::output_nodes[0]]);
        for (std::size_t j = 0; j < W; ++j) sg[j] += keep(g[j]);
    };
    auto all = [](const B& b) { return b; };

    double total = 0;
    std::array<double, W> total_gradient{};
    auto flush = [&](const B& sv, const std::array<B, W>& sg) {
        total += static_cast<double>(xsimd::hadd(sv));
        for (std::size_t j = 0; j < W; ++j) total_gradient[j] += static_cast<double>(xsimd::hadd(sg[j]));
    };

    const std::size_t full = n - n % L;
    std::size_t i = 0;
    while (i < full) {
        const std::size_t end = std::min(full, i + block * L);
        B sv(T(0));
        std::array<B, W> sg;
        sg.fill(B(T(0)));
        for (; i < end; i += L) {
            for (std::size_t v = 0; v < Kernel::arity; ++v)
                if (!layout::is_parameter[v]) x[v] = B::load_unaligned(data[layout::position[v]] + i);
            accumulate(sv, sg, all);
        }
        flush(sv, sg);
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
        std::array<B, W> sg;
        sg.fill(B(T(0)));
        accumulate(sv, sg, [&](const B& b) { return xsimd::select(real, b, B(T(0))); });
        flush(sv, sg);
    }
    gradient_result<T, W> r{static_cast<T>(total), {}};
    for (std::size_t j = 0; j < W; ++j) r.gradient[j] = static_cast<T>(total_gradient[j]);
    return r;
}

}  // namespace gradc::simd::detail
