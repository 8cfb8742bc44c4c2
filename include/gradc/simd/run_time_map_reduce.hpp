#pragma once
/// \file
/// Map-reduce for a kernel with run-time extents: Σᵢ f(θ, xᵢ) and its gradient with
/// respect to θ, as a fixed kernel's map-reduce computes them (simd/array_map_reduce.hpp),
/// with the extents read from θ and the data at each call (simd/run_time_map_reduce_inputs.hpp).
///
///     auto r = k.map_reduce(xs, theta...);        {value, gradient}, as k.gradient returns them
///     double s = k.map_reduce_value(xs, theta...);
///
/// The same split: the nodes that do not depend on the data are evaluated once per call;
/// per batch of points only the others are, and their adjoint sweep skips the deferred
/// edges (lower/array_map_reduce_split.hpp), whose sums are swept once at the end. The
/// split is decided at compile time from the graph, as for fixed extents; only the
/// offsets of the nodes' arrays (the run-time layout, computed once per call) and the
/// counts of the summed adjoints are known at run time. The points run in SIMD batches,
/// every node's loops with their run-time bounds on batches of points; loops over
/// counters (`sum_over`, `concat_over`) step once per batch of points. Points are summed
/// in leaves of `points_per_chunk` along the fixed tree of parallel/reduce.hpp, so the
/// result does not depend on the number of threads.

#include <algorithm>
#include <array>
#include <cstddef>
#include <tuple>
#include <utility>
#include <vector>

#include <gradc/lower/array_map_reduce_split.hpp>
#include <gradc/lower/array_results.hpp>
#include <gradc/lower/array_steps.hpp>
#include <gradc/lower/run_time_workspace.hpp>
#include <gradc/parallel/reduce.hpp>
#include <gradc/parallel/threads.hpp>
#include <gradc/simd/call_options.hpp>
#include <gradc/simd/config.hpp>
#include <gradc/simd/run_time_map_reduce_inputs.hpp>
#include <gradc/simd/tail.hpp>

namespace gradc::simd::detail {

/// What a leaf of points sums: the value, θ's adjoints, and the summed adjoints of the split.
template <class T>
struct run_time_sums {
    T value{};
    std::vector<T> gradient;
    std::vector<T> nodes;
};

/// With Gradient false, the value alone (`map_reduce_value`).
template <class A, bool Gradient, class Kernel, class Data, class Theta>
auto run_time_map_reduce(const Kernel& k, const char* call, const Data& data, const Theta& theta, int threads) {
    using T = data_lane_t<Data>;
    using B = xsimd::batch<T, A>;
    using P = typename Kernel::program;
    constexpr std::size_t L = B::size, arity = Kernel::arity;
    const run_time_map_reduce_inputs<Kernel, T> in(call, data, theta);
    const auto rl = Kernel::dynamic_calls::layout_of(call, in.extents, k.literals().data());
    const lower::run_time_view view = rl.view();
    const std::size_t n = in.n, D = in.data.size(), W = in.theta.size();
    const auto ctx = k.run_time_context();

    // The split, as for fixed extents.
    static constexpr std::array<bool, arity> data_variables = [] {
        std::array<bool, arity> v{};
        for (std::size_t j = 0; j < arity; ++j) v[j] = !lower::is_wrt_variable<Kernel>[j];
        return v;
    }();
    static constexpr auto varying = P::analysis::template depending_on<data_variables>;
    static constexpr auto fixed = [] {
        auto f = varying;
        for (auto& b : f) b = !b;
        return f;
    }();
    using split = lower::array_map_reduce_split<P, varying>;
    static constexpr auto& plan = split::plan;
    // Where the summed adjoints and the boundary's are, at this call's extents.
    std::vector<std::size_t> summed, boundary;
    for (std::size_t node = 0; node < rl.shape.size(); ++node) {
        for (std::size_t e = 0; e < rl.shape[node].size(); ++e) {
            if (plan.summed[node]) summed.push_back(rl.derivative_offset[node] + e);
            if (plan.boundary[node]) boundary.push_back(rl.derivative_offset[node] + e);
        }
    }
    const std::size_t SN = summed.size(), SB = boundary.size();

    // The nodes computed once, from θ; their adjoints, summed, are swept once at the end.
    std::array<const T*, arity> theta_args{};
    for (std::size_t v = 0; v < arity; ++v)
        if (!data_variables[v]) theta_args[v] = in.theta.data() + in.offset[v];
    lower::growing_lease once_lease(ctx.workspace);
    lower::run_time_storage<T, Gradient> once_storage(once_lease, view.value_size, view.derivative_size);
    T* once = once_storage.values();
    std::fill_n(once, view.value_size, T(0));  // the varying nodes' stay 0 for the last sweep
    const lower::array_frame<T, arity> once_frame{theta_args.data(), once, k.literals().data(), k.forwards(), &view};
    P::template primal<fixed>(once_frame);
    std::vector<B> theta_batches(W);
    for (std::size_t e = 0; e < W; ++e) theta_batches[e] = B(in.theta[e]);
    std::array<std::size_t, Kernel::wrt_count == 0 ? 1 : Kernel::wrt_count> wrt_offset{};
    for (std::size_t j = 1; j < Kernel::wrt_count; ++j) wrt_offset[j] = wrt_offset[j - 1] + in.wrt_sizes[j - 1];

    auto leaf = [&](std::size_t c) {
        const std::size_t begin = c * points_per_chunk, end = std::min(n, begin + points_per_chunk);
        // Kept per thread: a leaf runs to its end on one thread.
        thread_local std::vector<B> x, g, node_sums;
        x.resize(D);
        g.assign(W, B(T(0)));
        node_sums.assign(SB, B(T(0)));
        std::array<const B*, arity> args{};
        for (std::size_t v = 0; v < arity; ++v)
            args[v] = data_variables[v] ? x.data() + in.offset[v] : theta_batches.data() + in.offset[v];
        std::array<B*, Kernel::wrt_count == 0 ? 1 : Kernel::wrt_count> gp{};
        for (std::size_t j = 0; j < Kernel::wrt_count; ++j) gp[j] = g.data() + wrt_offset[j];
        lower::growing_lease lease(ctx.workspace);  // one claim per leaf
        lower::run_time_storage<B, Gradient> storage(lease, view.value_size, view.derivative_size);
        B* values = storage.values();
        B* adjoints = storage.derivatives();
        for (std::size_t e = 0; e < view.value_size; ++e) values[e] = B(once[e]);
        const lower::array_frame<B, arity> frame{args.data(), values, k.literals().data(), k.forwards(), &view};
        const lower::derivative_frame<B> d{gp.data(), adjoints, &view};
        if constexpr (Gradient) P::clear(d);
        const B one(T(1));
        B value(T(0));
        auto step = [&](const B& weight) {
            P::template primal<varying>(frame);
            if constexpr (Gradient) {
                const B* w = &weight;
                P::template adjoint<plan.per_point_nodes, true, plan.per_point, split::forwarding(false)>(frame, d, &w);
                for (std::size_t e = 0; e < SB; ++e) node_sums[e] += adjoints[boundary[e]];
            } else {
                (void)weight;
            }
            return P::steps::template value_of<P::output_node(0)>(frame)[0];
        };
        std::size_t i = begin;
        for (; i + L <= end; i += L) {
            for (std::size_t e = 0; e < D; ++e) x[e] = B::load_unaligned(in.data[e] + i);
            value += step(one);
        }
        if (i < end) {
            const std::size_t m = end - i;
            for (std::size_t e = 0; e < D; ++e) x[e] = load_padded<A>(in.data[e] + i, m);
            const auto real = first_lanes<A, T>(m);
            value += xsimd::select(real, step(xsimd::select(real, one, B(T(0)))), B(T(0)));
        }
        run_time_sums<T> r{xsimd::hadd(value), {}, {}};
        if constexpr (Gradient) {
            r.gradient.resize(W);
            r.nodes.resize(SN + SB);
            for (std::size_t e = 0; e < W; ++e) r.gradient[e] = xsimd::hadd(g[e]);
            for (std::size_t e = 0; e < SN; ++e) r.nodes[e] = xsimd::hadd(adjoints[summed[e]]);
            for (std::size_t e = 0; e < SB; ++e) r.nodes[SN + e] = xsimd::hadd(node_sums[e]);
        }
        return r;
    };
    const std::size_t leaves = (n + points_per_chunk - 1) / points_per_chunk;
    run_time_sums<T> total{T(0), std::vector<T>(Gradient ? W : 0, T(0)), std::vector<T>(Gradient ? SN + SB : 0, T(0))};
    if (leaves > 0) {
        total = parallel::tree_reduce<run_time_sums<T>>(leaves, threads, leaf, [](const auto& a, const auto& b) {
            run_time_sums<T> r = a;
            r.value += b.value;
            for (std::size_t e = 0; e < r.gradient.size(); ++e) r.gradient[e] += b.gradient[e];
            for (std::size_t e = 0; e < r.nodes.size(); ++e) r.nodes[e] += b.nodes[e];
            return r;
        });
        if constexpr (Gradient) {
            // The edges of the nodes computed once and the deferred edges, swept once on
            // the summed adjoints (simd/array_map_reduce.hpp says why the data read zeros).
            std::array<T*, Kernel::wrt_count == 0 ? 1 : Kernel::wrt_count> out{};
            for (std::size_t j = 0; j < Kernel::wrt_count; ++j) out[j] = total.gradient.data() + wrt_offset[j];
            T* adjoints = once_storage.derivatives();
            std::fill_n(adjoints, view.derivative_size, T(0));
            for (std::size_t e = 0; e < SN; ++e) adjoints[summed[e]] = total.nodes[e];
            for (std::size_t e = 0; e < SB; ++e) adjoints[boundary[e]] = total.nodes[SN + e];
            const std::vector<T> zero_data(D, T(0));
            std::array<const T*, arity> last_args = theta_args;
            for (std::size_t v = 0; v < arity; ++v)
                if (data_variables[v]) last_args[v] = zero_data.data() + in.offset[v];
            const lower::array_frame<T, arity> last_frame{last_args.data(), once, k.literals().data(), k.forwards(),
                                                          &view};
            P::template adjoint<P::all_nodes, false, plan.once, split::forwarding(true)>(
                last_frame, lower::derivative_frame<T>{out.data(), adjoints, &view}, static_cast<const T* const*>(nullptr));
        }
    }
    if constexpr (!Gradient) {
        return total.value;
    } else {
        array_gradient_result<T, typename Kernel::template gradient_tuple<T>> result{};
        result.value = total.value;
        [&]<std::size_t... j>(std::index_sequence<j...>) {
            ((lower::shape_to(std::get<j>(result.gradient), in.extents[Kernel::wrt_variables[j]]),
              std::copy_n(total.gradient.data() + wrt_offset[j], in.wrt_sizes[j],
                          lower::entries_of(std::get<j>(result.gradient)))),
             ...);
        }(std::make_index_sequence<Kernel::wrt_count>{});
        return result;
    }
}

}  // namespace gradc::simd::detail

namespace gradc::simd {

/// The map-reduces of a kernel with run-time extents (a base of gradc::array_kernel).
template <class Kernel>
class run_time_map_reduce_calls {
public:
    /// Σᵢ f(θ, xᵢ) and its gradient with respect to θ: `data` the per-point variables
    /// (simd/run_time_map_reduce_inputs.hpp), θ one argument per wrt variable; an
    /// optional last argument is a call option (`gradc::threads{n}`, an architecture).
    template <class Data, class... Theta>
    auto map_reduce(const Data& data, const Theta&... theta) const {
        return run<true>("map_reduce", data, theta...);
    }
    /// Σᵢ f(θ, xᵢ) alone, as map_reduce computes it.
    template <class Data, class... Theta>
    auto map_reduce_value(const Data& data, const Theta&... theta) const {
        return run<false>("map_reduce_value", data, theta...);
    }

private:
    using K = Kernel;
    template <bool Gradient, class Data, class... Theta>
    auto run(const char* call, const Data& data, const Theta&... theta) const {
        static_assert(K::output_count == 1 && K::output_shape(0).is_scalar(),
                      "gradc kernel: map_reduce() sums a kernel with one scalar output");
        static_assert(K::wrt_count < K::arity,
                      "gradc kernel: map_reduce() needs per-point data: compile the kernel with "
                      "gradc::wrt(parameters...) so that the variables not listed are the data");
        const K& self = static_cast<const K&>(*this);
        if constexpr (sizeof...(Theta) == K::wrt_count + 1) {
            auto all = std::tie(theta...);
            auto option = std::get<K::wrt_count>(all);
            return [&]<std::size_t... j>(std::index_sequence<j...>) {
                return detail::run_time_map_reduce<arch_of<decltype(option)>, Gradient>(
                    self, call, data, std::tie(std::get<j>(all)...), threads_of(option));
            }(std::make_index_sequence<K::wrt_count>{});
        } else {
            static_assert(sizeof...(Theta) == K::wrt_count,
                          "gradc kernel: map_reduce(data, theta...) takes one argument per wrt variable, in "
                          "wrt order (and optionally a call option last)");
            return detail::run_time_map_reduce<default_arch, Gradient>(self, call, data, std::tie(theta...),
                                                               get_num_threads());
        }
    }
};

}  // namespace gradc::simd
