#pragma once
/// \file
/// The second-order calls over arrays of points: the kernel's one-point Hessian and
/// Hessian-vector programs (`hessian_at`, `hvp_at`, forward over reverse on duals of
/// batches) run one point per lane; and the sums over points of the Gauss-Newton normal
/// equations. map_reduce_hessian is split as the first-order map-reduce, in
/// second_order_map_reduce.hpp.

#include <algorithm>
#include <array>
#include <cstddef>

#include <gradc/lower/second_order.hpp>
#include <gradc/simd/config.hpp>
#include <gradc/simd/map_reduce.hpp>
#include <gradc/simd/point_inputs.hpp>
#include <gradc/simd/tail.hpp>

namespace gradc::simd::detail {

/// Value (out[0]), gradient (out[1 + j]) and Hessian upper triangle (out[1 + W + t]) at
/// every point.
template <class A, class Kernel, class In, class T>
void hessian_points(const Kernel& k, std::size_t n, const In& in,
                    const std::array<T*, 1 + Kernel::wrt_count + lower::triangle_size(Kernel::wrt_count)>& out,
                    int threads = 1) {
    using B = xsimd::batch<T, A>;
    constexpr std::size_t W = Kernel::wrt_count;
    run_points<A>(n, in, out, [&](const std::array<B, Kernel::arity>& x) {
        std::array<B, 1 + W + lower::triangle_size(W)> y;
        k.hessian_at(x.data(), y.data(), y.data() + 1, y.data() + 1 + W);
        return y;
    }, threads);
}

/// Value (out[0]), gradient (out[1 + j]) and H·v (out[1 + W + j]) at every point, for
/// directions given after the inputs (in[arity + j], one per wrt variable).
template <class A, class Kernel, class In, class T>
void hvp_points(const Kernel& k, std::size_t n, const In& in,
                const std::array<T*, 1 + 2 * Kernel::wrt_count>& out, int threads = 1) {
    using B = xsimd::batch<T, A>;
    constexpr std::size_t W = Kernel::wrt_count;
    run_points<A>(n, in, out, [&](const std::array<B, Kernel::arity + W>& x) {
        std::array<B, 1 + 2 * W> y;
        k.hvp_at(x.data(), x.data() + Kernel::arity, y.data(), y.data() + 1, y.data() + 1 + W);
        return y;
    }, threads);
}

/// Σ over the n points of the M batches `per_batch(x)` returns, x holding the parameters
/// θ broadcast and one batch of points of each data variable. Blocked as the first-order
/// map-reduce: per-lane partial sums over at most `block` batches added into double
/// totals, the blocks (and the last partial batch, its padding lanes masked out) combined
/// along the tree of parallel/reduce.hpp: the same result on any number of threads.
template <class A, std::size_t M, class Kernel, class T, class PerBatch>
std::array<double, M> sum_over_points(std::size_t n, const std::array<const T*, data_layout<Kernel>::data_count>& data,
                                      const std::array<T, Kernel::wrt_count>& theta, PerBatch per_batch,
                                      int threads = 1) {
    using B = xsimd::batch<T, A>;
    using layout = data_layout<Kernel>;
    constexpr std::size_t L = B::size;
    std::array<B, Kernel::arity> parameters;
    for (std::size_t v = 0; v < Kernel::arity; ++v)
        parameters[v] = B(layout::is_parameter[v] ? theta[layout::position[v]] : T(0));
    const auto to_doubles = [](const std::array<B, M>& s) {
        std::array<double, M> total;
        for (std::size_t m = 0; m < M; ++m) total[m] = static_cast<double>(xsimd::hadd(s[m]));
        return total;
    };
    const parallel::point_leaves leaves{n, L, block};
    if (leaves.count() == 0) return {};
    const auto full_batches = [&](std::size_t begin, std::size_t end) {
        std::array<B, Kernel::arity> x = parameters;
        std::array<B, M> s;
        s.fill(B(T(0)));
        for (std::size_t i = begin; i < end; i += L) {
            for (std::size_t v = 0; v < Kernel::arity; ++v)
                if (!layout::is_parameter[v]) x[v] = B::load_unaligned(data[layout::position[v]] + i);
            const std::array<B, M> y = per_batch(x);
            for (std::size_t m = 0; m < M; ++m) s[m] += y[m];
        }
        return to_doubles(s);
    };
    const auto last_batch = [&](std::size_t begin, std::size_t m_left) {  // padded and masked
        std::array<B, Kernel::arity> x = parameters;
        for (std::size_t v = 0; v < Kernel::arity; ++v)
            if (!layout::is_parameter[v]) x[v] = load_padded<A>(data[layout::position[v]] + begin, m_left);
        const auto real = first_lanes<A, T>(m_left);
        const std::array<B, M> y = per_batch(x);
        std::array<B, M> s;
        for (std::size_t m = 0; m < M; ++m) s[m] = xsimd::select(real, y[m], B(T(0)));
        return to_doubles(s);
    };
    return parallel::reduce_points<std::array<double, M>>(
        leaves, threads, full_batches, last_batch, [](const std::array<double, M>& a, const std::array<double, M>& c) {
            std::array<double, M> r;
            for (std::size_t m = 0; m < M; ++m) r[m] = a[m] + c[m];
            return r;
        });
}

/// Sums laid out as [value, W first-order entries, the W×W upper triangle] into a value,
/// a vector and the full symmetric matrix.
template <class T, std::size_t W, std::size_t M>
void unpack_sums(const std::array<double, M>& s, T& value, std::array<T, W>& first,
                 std::array<std::array<T, W>, W>& second) {
    value = static_cast<T>(s[0]);
    std::array<T, lower::triangle_size(W)> upper;
    for (std::size_t j = 0; j < W; ++j) first[j] = static_cast<T>(s[1 + j]);
    for (std::size_t t = 0; t < upper.size(); ++t) upper[t] = static_cast<T>(s[1 + W + t]);
    second = lower::symmetric_from_upper<T, W>(upper.data());
}

/// Σᵢ rᵢ², Σᵢ rᵢ∇rᵢ and Σᵢ ∇rᵢ∇rᵢᵀ over the points, ∇ with respect to θ: one gradient
/// program per batch of points, and the products summed in registers.
template <class A, class Kernel, class T>
gauss_newton_result<T, Kernel::wrt_count> reduce_gauss_newton(
    const Kernel& k, std::size_t n, const std::array<const T*, data_layout<Kernel>::data_count>& data,
    const std::array<T, Kernel::wrt_count>& theta, int threads = 1) {
    using B = xsimd::batch<T, A>;
    constexpr std::size_t W = Kernel::wrt_count;
    constexpr std::size_t M = 1 + W + lower::triangle_size(W);
    const auto s = sum_over_points<A, M, Kernel>(n, data, theta, [&](const std::array<B, Kernel::arity>& x) {
        B r;
        std::array<B, W> g;
        k.gradient_at(x.data(), &r, g.data());
        std::array<B, M> y;
        y[0] = r * r;
        std::size_t at = 1 + W;
        for (std::size_t i = 0; i < W; ++i) {
            y[1 + i] = r * g[i];
            for (std::size_t j = i; j < W; ++j) y[at++] = g[i] * g[j];
        }
        return y;
    }, threads);
    gauss_newton_result<T, W> r;
    unpack_sums(s, r.value, r.jtr, r.jtj);
    return r;
}

}  // namespace gradc::simd::detail
