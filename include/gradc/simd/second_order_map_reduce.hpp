#pragma once
/// \file
/// map_reduce_hessian: Σᵢ f(θ, xᵢ), its θ-gradient and θ-Hessian, split as the
/// first-order map-reduce (map_reduce.hpp, lower/map_reduce_split.hpp) but on dual
/// numbers whose W tangents are the unit vectors of θ (forward over reverse,
/// lower/second_order.hpp). Every shortcut of the split carries over, because on duals:
///  - a node that depends on θ alone has the same value *and* the same θ-tangents at
///    every point: it is evaluated once, on duals, and broadcast;
///  - the dual adjoint sweep is still linear in its seeds: an edge applies ā ← ā + p·ā'
///    with the dual product, linear in ā' for a fixed dual partial p; an edge whose
///    partial (value and tangents) is the same at every point is swept once on the summed
///    dual adjoints, so the Hessian, the adjoints' tangents, is summed through the same
///    boundary slots as the gradient;
///  - the value's affine tail Σ g(uᵢ) = g(Σuᵢ) + (N - 1)·g(0) is an identity of the dual
///    ring too; only the value of the frontier is summed (the gradient and the Hessian
///    come from the adjoints).
/// What is left per point is the varying part of the dual program and its per-point
/// edges; the sums are the boundary adjoints' values and tangents.

#include <algorithm>
#include <array>
#include <cstddef>
#include <utility>

#include <gradc/lower/map_reduce_split.hpp>
#include <gradc/lower/results.hpp>
#include <gradc/lower/second_order.hpp>
#include <gradc/parallel/reduce.hpp>
#include <gradc/rules/dual.hpp>
#include <gradc/simd/config.hpp>
#include <gradc/simd/map_reduce.hpp>
#include <gradc/simd/tail.hpp>

namespace gradc::simd::detail {

/// One map_reduce_hessian call, in the steps of the first-order `reduction`: the
/// parameters as duals and the invariant nodes evaluated once (constructor); the value's
/// frontier and the dual boundary adjoints summed over the points (`sum_points`); then,
/// once, the value's tail and the deferred edges on the summed dual adjoints (`result`).
/// `Directions` tangents: the W unit vectors of θ for the Hessian, or one, the vector of
/// ones, for the diagonal of a Hessian that is diagonal by structure (H·1,
/// lower/hessian_structure.hpp).
template <class A, class Kernel, class T, std::size_t Directions = Kernel::wrt_count>
class hessian_reduction {
    using P = typename Kernel::program;
    using B = xsimd::batch<T, A>;
    static constexpr std::size_t W = Kernel::wrt_count;
    static constexpr std::size_t Dirs = Directions;
    static_assert(Dirs == W || Dirs == 1, "gradc internal: a map-reduce Hessian carries W directions or one");
    using D = dual<B, Dirs>;   // one batch of points
    using DS = dual<T, Dirs>;  // the parts evaluated once
    using layout = data_layout<Kernel>;
    using split = lower::map_reduce_split<P, data_mask<Kernel>>;
    static constexpr std::size_t L = B::size;
    static constexpr std::size_t S = P::live.live_count;
    static constexpr std::size_t arity = Kernel::arity;

    struct sums {
        B value;
        std::array<D, S> boundary;
    };
    /// One block's sums in doubles: per boundary slot, the value then its tangents.
    struct block_sums {
        double value = 0;
        std::array<std::array<double, 1 + Dirs>, S> boundary{};
    };

public:
    hessian_reduction(const Kernel& k, const std::array<const T*, layout::data_count>& data,
                      const std::array<T, W>& theta)
        : k_(k), data_(data) {
        // θⱼ carries the unit tangent j (with one direction, every θⱼ carries 1); the data
        // carry none. The invariant nodes are
        // evaluated once, on duals of batches for the per-point program and on duals of
        // scalars for the deferred edges and the value's tail.
        parameters_.fill(D(B(T(0))));
        scalar_parameters_.fill(DS(T(0)));
        for (std::size_t v = 0; v < arity; ++v) {
            if (!layout::is_parameter[v]) continue;
            const std::size_t j = layout::position[v];
            parameters_[v] = D(B(theta[j]));
            scalar_parameters_[v] = DS(theta[j]);
            const std::size_t direction = Dirs == 1 ? 0 : j;
            parameters_[v].tangent[direction] = B(T(1));
            scalar_parameters_[v].tangent[direction] = T(1);
        }
        invariant_values_.fill(D(B(T(0))));
        scalar_invariant_values_.fill(DS(T(0)));
        split::primal_invariant(k_.literals(), parameters_.data(), invariant_values_);
        split::primal_invariant(k_.literals(), scalar_parameters_.data(), scalar_invariant_values_);
    }

    /// Sums over the n points, blocked and combined along parallel/reduce.hpp's tree
    /// exactly as the first-order `reduction::sum_points`: the same result on any number
    /// of threads.
    void sum_points(std::size_t n, int threads = 1) {
        count_ = n;
        const parallel::point_leaves leaves{n, L, block};
        if (leaves.count() == 0) return;
        counted_adjoints_at_first_point();
        const block_sums total = parallel::reduce_points<block_sums>(
            leaves, threads, [&](std::size_t i, std::size_t end) { return sum_block(i, end); },
            [&](std::size_t i, std::size_t m) { return sum_last_batch(i, m); },
            [](const block_sums& a, const block_sums& c) {
                block_sums r = a;
                r.value += c.value;
                for (std::size_t s = 0; s < S; ++s)
                    for (std::size_t d = 0; d <= Dirs; ++d) r.boundary[s][d] += c.boundary[s][d];
                return r;
            });
        total_ = total.value;
        total_boundary_ = total.boundary;
    }

    /// Σ f, and the deferred edges swept once on the summed dual boundary adjoints: the
    /// gradient is their values, the Hessian their tangents (upper triangle mirrored, as
    /// the per-point `hessian`).
    hessian_result<T, W> result() const
        requires(Dirs == W)
    {
        const auto g = adjoints_once();
        hessian_result<T, W> r;
        r.value = value();
        std::array<T, lower::triangle_size(W)> upper;
        std::size_t at = 0;
        for (std::size_t i = 0; i < W; ++i) {
            r.gradient[i] = g[i].value;
            for (std::size_t j = i; j < W; ++j) upper[at++] = g[i].tangent[j];
        }
        r.hessian = lower::symmetric_from_upper<T, W>(upper.data());
        return r;
    }

    /// Σ f, its gradient and the diagonal of its Hessian: tangent i of gradient entry i,
    /// or with one direction (H·1 of a diagonal Hessian) its only tangent.
    hessian_diagonal_result<T, W> diagonal_result() const {
        const auto g = adjoints_once();
        hessian_diagonal_result<T, W> r;
        r.value = value();
        for (std::size_t i = 0; i < W; ++i) {
            r.gradient[i] = g[i].value;
            r.diagonal[i] = g[i].tangent[Dirs == 1 ? 0 : i];
        }
        return r;
    }

private:
    /// The θ-adjoints as duals: the deferred edges swept once on the summed dual boundary
    /// adjoints.
    std::array<DS, W> adjoints_once() const {
        typename P::template derivatives<DS> boundary;
        boundary.fill(DS(T(0)));
        for (std::size_t b = 0; b < S; ++b) {
            if (split::plan.counted[b]) {
                boundary[b].value = static_cast<T>(count_) * counted_[b].value;
                for (std::size_t d = 0; d < Dirs; ++d) boundary[b].tangent[d] = static_cast<T>(count_) * counted_[b].tangent[d];
            } else if (split::plan.boundary[b]) {
                boundary[b].value = static_cast<T>(total_boundary_[b][0]);
                for (std::size_t d = 0; d < Dirs; ++d) boundary[b].tangent[d] = static_cast<T>(total_boundary_[b][1 + d]);
            }
        }
        std::array<DS, W> g;
        split::adjoint_once(typename P::template linearization<DS>{scalar_invariant_values_, P::forward_of(k_.bound())}, boundary, g.data());
        return g;
    }

    /// The dual boundary adjoints that are the same at every point, from the first point
    /// on scalar duals (as `reduction::counted_adjoints_at_first_point`).
    void counted_adjoints_at_first_point() {
        std::array<DS, arity> x = scalar_parameters_;
        for (std::size_t v = 0; v < arity; ++v)
            if (!layout::is_parameter[v]) x[v] = DS(data_[layout::position[v]][0]);
        const auto a = split::adjoints_at_point(k_.bound(), x.data(), scalar_invariant_values_);
        for (std::size_t b = 0; b < S; ++b)
            if (split::plan.counted[b]) counted_[b] = a[b];
    }

    static sums zero_sums() {
        sums z;
        z.value = B(T(0));
        z.boundary.fill(D(B(T(0))));
        return z;
    }

    /// Node I's value from the invariant part, when it is invariant.
    template <std::size_t I>
    GRADC_ALWAYS_INLINE inline void copy_invariant(typename P::template values<D>& v) const {
        if constexpr (split::invariant[I]) v[I] = invariant_values_[I];
    }

    template <class Keep>
    GRADC_ALWAYS_INLINE inline void add_batch(const std::array<D, arity>& x, sums& s, Keep keep) const {
        // The invariant values are copied node by node, not as one array: the array of
        // duals of batches is W + 1 times that of the first-order map-reduce (16 KB for
        // 50 nodes and 4 parameters on AVX-512), and copied whole it was copied at
        // every batch, which cost more than the nodes hoisted (on that kernel 84 ns
        // per point against 72 copied node by node).
        typename P::template values<D> v;
        [&]<std::size_t... I>(std::index_sequence<I...>) GRADC_ALWAYS_INLINE {
            (copy_invariant<I>(v), ...);
        }(std::make_index_sequence<P::size>{});
        const auto lin = split::primal_varying(k_.bound(), x.data(), v);
        typename P::template derivatives<D> a;
        const D one(B(T(1)));
        split::adjoint_varying(lin, &one, a);
        s.value += keep(v[split::plan.frontier].value);
        for (std::size_t b = 0; b < S; ++b) {
            if (!split::plan.boundary[b] || split::plan.counted[b]) continue;
            s.boundary[b].value += keep(a[b].value);
            for (std::size_t d = 0; d < Dirs; ++d) s.boundary[b].tangent[d] += keep(a[b].tangent[d]);
        }
    }

    GRADC_ALWAYS_INLINE inline std::array<D, arity> load(std::size_t i) const {
        std::array<D, arity> x = parameters_;
        for (std::size_t v = 0; v < arity; ++v)
            if (!layout::is_parameter[v]) x[v] = D(B::load_unaligned(data_[layout::position[v]] + i));
        return x;
    }

    // Flattened as the kernel's own second-order programs (lower/second_order.hpp says
    // why): the dual program of a batch is one straight-line body.

    /// The full batches of points [i, end), into one set of sums. Unlike the first-order
    /// map-reduce (two sets, `accumulators`), each boundary slot is already W + 1
    /// independent sums, enough to hide the additions' latency; a second set only added
    /// register pressure (a 50-node kernel with four parameters: 72 ns per point with
    /// two sets, 66 with one; loglik the same within noise).
    [[gnu::flatten]] block_sums sum_block(std::size_t i, std::size_t end) const {
        sums s = zero_sums();
        for (; i < end; i += L) add_batch(load(i), s, [](const B& b) { return b; });
        return flush(s);
    }

    /// The last m < L points, padded by repeating the last one and masked out of the sums.
    [[gnu::flatten]] block_sums sum_last_batch(std::size_t i, std::size_t m) const {
        std::array<D, arity> x = parameters_;
        for (std::size_t v = 0; v < arity; ++v)
            if (!layout::is_parameter[v]) x[v] = D(load_padded<A>(data_[layout::position[v]] + i, m));
        const auto real = first_lanes<A, T>(m);
        sums s = zero_sums();
        add_batch(x, s, [&](const B& b) { return xsimd::select(real, b, B(T(0))); });
        return flush(s);
    }

    static block_sums flush(const sums& s) {
        block_sums out;
        out.value = static_cast<double>(xsimd::hadd(s.value));
        for (std::size_t b = 0; b < S; ++b) {
            if (!split::plan.boundary[b] || split::plan.counted[b]) continue;
            out.boundary[b][0] = static_cast<double>(xsimd::hadd(s.boundary[b].value));
            for (std::size_t d = 0; d < Dirs; ++d)
                out.boundary[b][1 + d] = static_cast<double>(xsimd::hadd(s.boundary[b].tangent[d]));
        }
        return out;
    }

    /// Σ f: the summed frontier carried through the value's tail (as `reduction::value`).
    T value() const {
        const T total = static_cast<T>(total_);
        if constexpr (split::plan.frontier == P::output_nodes[0]) {
            return total;
        } else if constexpr (split::plan.tail_offset) {
            return tail_at(total) + (static_cast<T>(count_) - T(1)) * tail_at(T(0));
        } else {
            return tail_at(total);
        }
    }

    /// The value's tail at a given frontier value (only the values are read: the
    /// tangents of the tail are not needed).
    T tail_at(T frontier) const {
        typename P::template values<DS> v = scalar_invariant_values_;
        v[split::plan.frontier] = DS(frontier);
        split::primal_tail(k_.literals(), scalar_parameters_.data(), v);
        return v[P::output_nodes[0]].value;
    }

    const Kernel& k_;
    const std::array<const T*, layout::data_count>& data_;
    std::array<D, arity> parameters_;
    std::array<DS, arity> scalar_parameters_;
    typename P::template values<D> invariant_values_;
    typename P::template values<DS> scalar_invariant_values_;
    std::size_t count_ = 0;
    double total_ = 0;
    std::array<std::array<double, 1 + Dirs>, S> total_boundary_{};
    std::array<DS, S> counted_{};
};

/// Σᵢ f, Σᵢ ∇θ f and Σᵢ ∇²θ f over the points.
template <class A, class Kernel, class T>
hessian_result<T, Kernel::wrt_count> reduce_hessian(const Kernel& k, std::size_t n,
                                                    const std::array<const T*, data_layout<Kernel>::data_count>& data,
                                                    const std::array<T, Kernel::wrt_count>& theta, int threads = 1) {
    hessian_reduction<A, Kernel, T> r(k, data, theta);
    r.sum_points(n, threads);
    return r.result();
}

/// Σᵢ f, Σᵢ ∇θ f and the diagonal of Σᵢ ∇²θ f: one direction where the Hessian is
/// diagonal by structure, else the W of `reduce_hessian`.
template <class A, class Kernel, class T>
hessian_diagonal_result<T, Kernel::wrt_count> reduce_hessian_diagonal(
    const Kernel& k, std::size_t n, const std::array<const T*, data_layout<Kernel>::data_count>& data,
    const std::array<T, Kernel::wrt_count>& theta, int threads = 1) {
    constexpr std::size_t directions = Kernel::program::hessian_is_diagonal() ? 1 : Kernel::wrt_count;
    hessian_reduction<A, Kernel, T, directions> r(k, data, theta);
    r.sum_points(n, threads);
    return r.diagonal_result();
}

}  // namespace gradc::simd::detail
