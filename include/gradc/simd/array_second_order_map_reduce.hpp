#pragma once
/// \file
/// The second-order map-reduces of an array kernel with one scalar output, summed over the
/// points as `map_reduce` sums (simd/array_map_reduce.hpp): in leaves of
/// `points_per_chunk` points along the fixed tree of parallel/reduce.hpp, so the result
/// does not depend on the number of threads.
///  - Hessian: Σ f, Σ ∇θ f and Σ ∇²θ f, from the one-point calls' dual sweeps
///    (lower/array_second_order.hpp) run on duals of SIMD batches;
///  - its diagonal alone, from the same sweeps (array programs have no structural
///    shortcut for a diagonal Hessian yet: the cost is the Hessian's);
///  - Gauss–Newton, for a residual r: Σ r², Jᵀr and JᵀJ, from the gradient program alone.
/// No split here: every node is evaluated per batch of points. The sums of a leaf are
/// allocated once per leaf (W(W+1)/2 of them for a Hessian, too many for a worker
/// thread's stack when W is large). The last partial batch's unused lanes repeat its last
/// point and are masked out by a select, not by a zero weight: a NaN there stays out.

#include <algorithm>
#include <array>
#include <cstddef>
#include <vector>

#include <gradc/parallel/reduce.hpp>
#include <gradc/simd/array_map_reduce_inputs.hpp>
#include <gradc/simd/config.hpp>
#include <gradc/simd/tail.hpp>

namespace gradc::simd::detail {

/// What a second-order map-reduce sums.
enum class second_order_sum { hessian, diagonal, gauss_newton };

/// The sums: the value (Σ f, or Σ r²), W first-order entries (the gradient, or Jᵀr) and the
/// second-order entries (the upper triangle row by row, or the diagonal).
template <class T>
struct second_order_sums {
    T value{};
    std::vector<T> first;
    std::vector<T> second;
};

/// The position of (i, j), i ≤ j, in the upper triangle of a W×W matrix row by row.
constexpr std::size_t upper_triangle_index(std::size_t w, std::size_t i, std::size_t j) {
    return i * w - i * (i + 1) / 2 + j;
}

template <class A, second_order_sum What, class Kernel, class Data, class Theta>
auto array_second_order_map_reduce(const Kernel& k, const char* call, const Data& data, const Theta& theta, int threads) {
    using T = span_list_value_t<Data>;
    using B = xsimd::batch<T, A>;
    using inputs = array_map_reduce_inputs<Kernel, T, B>;
    constexpr std::size_t L = B::size, W = Kernel::wrt_entries, D = inputs::D;
    constexpr std::size_t H = What == second_order_sum::diagonal ? W : W * (W + 1) / 2;
    const inputs in(call, data, theta);

    auto leaf = [&](std::size_t c) {
        const std::size_t begin = c * points_per_chunk, end = std::min(in.n, begin + points_per_chunk);
        std::array<B, D == 0 ? 1 : D> x;
        const auto args = in.arguments(x);
        B value(T(0));
        std::vector<B> first(W, B(T(0))), second(H, B(T(0)));
        // One batch of points; `keep` masks the lanes of a partial batch.
        auto step = [&](const auto& keep) {
            std::array<B, W == 0 ? 1 : W> g;
            if constexpr (What == second_order_sum::gauss_newton) {
                B r;
                const auto gp = wrt_pointers<Kernel>(g.data());
                k.gradient_at(args.data(), &r, gp.data());
                r = keep(r);
                for (std::size_t i = 0; i < W; ++i) g[i] = keep(g[i]);
                value += r * r;
                for (std::size_t i = 0; i < W; ++i) {
                    first[i] += r * g[i];
                    for (std::size_t j = i; j < W; ++j) second[upper_triangle_index(W, i, j)] += g[i] * g[j];
                }
            } else {
                B v;
                k.unit_sweeps(args.data(), v, g, [&](std::size_t column, const std::array<B, W>& entries) {
                    if constexpr (What == second_order_sum::diagonal) {
                        second[column] += keep(entries[column]);
                    } else {
                        for (std::size_t i = 0; i <= column; ++i)
                            second[upper_triangle_index(W, i, column)] += keep(entries[i]);
                    }
                });
                value += keep(v);
                for (std::size_t i = 0; i < W; ++i) first[i] += keep(g[i]);
            }
        };
        std::size_t i = begin;
        for (; i + L <= end; i += L) {
            for (std::size_t e = 0; e < D; ++e) x[e] = B::load_unaligned(in.data[e] + i);
            step([](const B& b) { return b; });
        }
        if (i < end) {
            const std::size_t m = end - i;
            for (std::size_t e = 0; e < D; ++e) x[e] = load_padded<A>(in.data[e] + i, m);
            const auto real = first_lanes<A, T>(m);
            step([&](const B& b) { return xsimd::select(real, b, B(T(0))); });
        }
        second_order_sums<T> s{xsimd::hadd(value), std::vector<T>(W), std::vector<T>(H)};
        for (std::size_t e = 0; e < W; ++e) s.first[e] = xsimd::hadd(first[e]);
        for (std::size_t e = 0; e < H; ++e) s.second[e] = xsimd::hadd(second[e]);
        return s;
    };
    second_order_sums<T> total{T(0), std::vector<T>(W, T(0)), std::vector<T>(H, T(0))};
    const std::size_t leaves = (in.n + points_per_chunk - 1) / points_per_chunk;
    if (leaves > 0) {
        total = parallel::tree_reduce<second_order_sums<T>>(leaves, threads, leaf, [](const auto& a, const auto& b) {
            second_order_sums<T> r = a;
            r.value += b.value;
            for (std::size_t e = 0; e < r.first.size(); ++e) r.first[e] += b.first[e];
            for (std::size_t e = 0; e < r.second.size(); ++e) r.second[e] += b.second[e];
            return r;
        });
    }
    return total;
}

}  // namespace gradc::simd::detail
