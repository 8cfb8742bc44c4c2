#pragma once
/// \file
/// Map-reduce for likelihood-style sums: Σᵢ f(θ, xᵢ) and its gradient with respect to θ.
///
/// The kernel's wrt variables are the shared parameters θ; its other variables are the
/// per-point data xᵢ, in variable order. One batch of points is evaluated per step with θ
/// broadcast to every lane, and the value and the θ-adjoints are summed in registers, so
/// no per-point gradient is stored.

#include <algorithm>
#include <array>
#include <cstddef>
#include <utility>

#include <gradc/lower/data_variables.hpp>
#include <gradc/lower/map_reduce_split.hpp>
#include <gradc/lower/results.hpp>
#include <gradc/parallel/reduce.hpp>
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
    static constexpr const std::array<bool, arity>& is_parameter = lower::is_wrt_variable<Kernel>;
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

/// One map-reduce call, in named steps: the parameters broadcast and the invariant nodes
/// evaluated once (constructor); the value's frontier and the boundary adjoints summed
/// over full batches of points and the last partial batch (`sum_points`); then, once, the
/// value's tail applied to the summed frontier (`value`) and the deferred edges swept on
/// the summed boundary adjoints (`gradient`). What is summed and what is swept once is
/// lower/map_reduce_split.hpp's plan.
template <class A, class Kernel, class T>
class reduction {
    using P = typename Kernel::program;
    using B = xsimd::batch<T, A>;
    using layout = data_layout<Kernel>;
    using split = lower::map_reduce_split<P, data_mask<Kernel>>;
    static constexpr std::size_t L = B::size;
    static constexpr std::size_t S = P::live.live_count;
    static constexpr std::size_t R = accumulators;
    static constexpr std::size_t arity = Kernel::arity;

    struct sums {
        B value;
        std::array<B, S> boundary;
    };
    /// One block's sums, added into doubles.
    struct block_sums {
        double value = 0;
        std::array<double, S> boundary{};
    };

public:
    reduction(const Kernel& k, const std::array<const T*, layout::data_count>& data,
              const std::array<T, Kernel::wrt_count>& theta)
        : k_(k), data_(data) {
        // Nodes that depend on the parameters alone are the same at every point: they are
        // evaluated once, in batches for the per-point sweep and in scalars for the sweep
        // of the deferred edges.
        parameters_.fill(B(T(0)));
        for (std::size_t v = 0; v < arity; ++v) {
            if (!layout::is_parameter[v]) continue;
            parameters_[v] = B(theta[layout::position[v]]);
            scalar_parameters_[v] = theta[layout::position[v]];
        }
        invariant_values_.fill(B(T(0)));
        split::primal_invariant(k_.literals(), parameters_.data(), invariant_values_);
        split::primal_invariant(k_.literals(), scalar_parameters_.data(), scalar_invariant_values_);
    }

    /// Sums over the n points: per block of at most `block` batches, per-lane partial
    /// sums added into double totals; the blocks (and the last partial batch, a block of
    /// its own) combined pairwise along a tree fixed by n (parallel/reduce.hpp), on
    /// `threads` threads with the same result for any number of them.
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
                for (std::size_t k = 0; k < S; ++k) r.boundary[k] += c.boundary[k];
                return r;
            });
        total_ = total.value;
        total_boundary_ = total.boundary;
    }

    /// Σ f over the points: the summed frontier carried through the value's tail.
    T value() const {
        const T total = static_cast<T>(total_);
        if constexpr (split::plan.frontier == P::output_nodes[0]) {
            return total;
        } else if constexpr (split::plan.tail_offset) {
            // Σ g(uᵢ) = g(Σuᵢ) + (N - 1)·g(0) for g affine.
            const T offset = tail_at(T(0));
            return tail_at(total) + (static_cast<T>(count_) - T(1)) * offset;
        } else {
            return tail_at(total);
        }
    }

    /// The θ-gradient: the deferred edges swept once on the summed boundary adjoints.
    std::array<T, Kernel::wrt_count> gradient() const {
        typename P::template derivatives<T> boundary{};
        for (std::size_t b = 0; b < S; ++b) {
            if (split::plan.counted[b]) boundary[b] = static_cast<T>(count_) * counted_[b];
            else if (split::plan.boundary[b]) boundary[b] = static_cast<T>(total_boundary_[b]);
        }
        std::array<T, Kernel::wrt_count> g{};
        split::adjoint_once(typename P::template linearization<T>{scalar_invariant_values_, P::forward_of(k_.bound())}, boundary, g.data());
        return g;
    }

private:
    static constexpr auto every_lane = [](const B& b) { return b; };

    static std::array<sums, R> zero_sums() {
        sums z;
        z.value = B(T(0));
        z.boundary.fill(B(T(0)));
        std::array<sums, R> s;
        s.fill(z);
        return s;
    }

    /// The boundary adjoints that are the same at every point (the seed, and what only
    /// partials that are the same at every point carry from it: `counted` in the split's
    /// plan), from the first point on scalars: their sums are the number of points times
    /// these, with no addition per point.
    void counted_adjoints_at_first_point() {
        std::array<T, arity> x = scalar_parameters_;
        for (std::size_t v = 0; v < arity; ++v)
            if (!layout::is_parameter[v]) x[v] = data_[layout::position[v]][0];
        const auto a = split::adjoints_at_point(k_.bound(), x.data(), scalar_invariant_values_);
        for (std::size_t b = 0; b < S; ++b)
            if (split::plan.counted[b]) counted_[b] = a[b];
    }

    /// The value and the boundary adjoints of one batch, added into `s`; `keep` drops
    /// the padding lanes of the partial batch (a selection, so that padding never reaches
    /// the sum). Boundary slots that are the same at every point are counted, not summed.
    template <class Keep>
    GRADC_ALWAYS_INLINE inline void add_batch(const std::array<B, arity>& x, sums& s, Keep keep) const {
        typename P::template values<B> v = invariant_values_;
        const auto lin = split::primal_varying(k_.bound(), x.data(), v);
        typename P::template derivatives<B> a;
        const B one(T(1));
        split::adjoint_varying(lin, &one, a);
        s.value += keep(v[split::plan.frontier]);
        for (std::size_t b = 0; b < S; ++b)
            if (split::plan.boundary[b] && !split::plan.counted[b]) s.boundary[b] += keep(a[b]);
    }

    GRADC_ALWAYS_INLINE inline std::array<B, arity> load(std::size_t i) const {
        std::array<B, arity> x = parameters_;
        for (std::size_t v = 0; v < arity; ++v)
            if (!layout::is_parameter[v]) x[v] = B::load_unaligned(data_[layout::position[v]] + i);
        return x;
    }

    /// The full batches of points [i, end), R accumulator sets in turn.
    block_sums sum_block(std::size_t i, std::size_t end) const {
        std::array<sums, R> s = zero_sums();
        for (; i + R * L <= end; i += R * L)
            [&]<std::size_t... r>(std::index_sequence<r...>) {
                (add_batch(load(i + r * L), s[r], every_lane), ...);
            }(std::make_index_sequence<R>{});
        for (; i < end; i += L) add_batch(load(i), s[0], every_lane);
        return flush(s);
    }

    /// The last m < L points, padded by repeating the last one and masked out of the sums.
    block_sums sum_last_batch(std::size_t i, std::size_t m) const {
        std::array<B, arity> x = parameters_;
        for (std::size_t v = 0; v < arity; ++v)
            if (!layout::is_parameter[v]) x[v] = load_padded<A>(data_[layout::position[v]] + i, m);
        const auto real = first_lanes<A, T>(m);
        std::array<sums, R> s = zero_sums();
        add_batch(x, s[0], [&](const B& b) { return xsimd::select(real, b, B(T(0))); });
        return flush(s);
    }

    static block_sums flush(const std::array<sums, R>& s) {
        sums t = s[0];
        for (std::size_t r = 1; r < R; ++r) {
            t.value += s[r].value;
            for (std::size_t b = 0; b < S; ++b) t.boundary[b] += s[r].boundary[b];
        }
        block_sums out;
        out.value = static_cast<double>(xsimd::hadd(t.value));
        for (std::size_t b = 0; b < S; ++b)
            out.boundary[b] = split::plan.boundary[b] && !split::plan.counted[b] ? static_cast<double>(xsimd::hadd(t.boundary[b])) : 0.0;
        return out;
    }

    /// The value's tail (the nodes between the summed frontier and the output) at a
    /// given frontier value.
    T tail_at(T frontier) const {
        typename P::template values<T> v = scalar_invariant_values_;
        v[split::plan.frontier] = frontier;
        split::primal_tail(k_.literals(), scalar_parameters_.data(), v);
        return v[P::output_nodes[0]];
    }

    const Kernel& k_;
    const std::array<const T*, layout::data_count>& data_;
    std::array<B, arity> parameters_;
    std::array<T, arity> scalar_parameters_{};
    typename P::template values<B> invariant_values_;
    typename P::template values<T> scalar_invariant_values_{};
    std::size_t count_ = 0;
    double total_ = 0;
    std::array<double, S> total_boundary_{};
    std::array<T, S> counted_{};
};

template <class A, class Kernel, class T>
gradient_result<T, Kernel::wrt_count> reduce_points(const Kernel& k, std::size_t n,
                                                    const std::array<const T*, data_layout<Kernel>::data_count>& data,
                                                    const std::array<T, Kernel::wrt_count>& theta, int threads = 1) {
    reduction<A, Kernel, T> r(k, data, theta);
    r.sum_points(n, threads);
    return {r.value(), r.gradient()};
}

}  // namespace gradc::simd::detail
