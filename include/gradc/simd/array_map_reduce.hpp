#pragma once
/// \file
/// Map-reduce for array kernels: Σᵢ f(θ, xᵢ) and its gradient with respect to θ, where
/// θ (the wrt variables: scalars, vectors, matrices) is broadcast to every lane and the
/// data xᵢ are one span per entry. The nodes that do not depend on the data (the
/// inverse Cholesky factors of a mixture model, built from θ alone) are evaluated once
/// per call; per batch of points only the others are, and the adjoint sweep over their
/// edges adds into θ's adjoints and into the adjoints of the nodes computed once, which
/// are summed over points like θ's. The edges of the nodes computed once are then swept
/// once, on those sums (the same split as the scalar map-reduce, docs/static.md). So are
/// the edges whose partials do not change from point to point, on the summed adjoints
/// they start from (lower/array_map_reduce_split.hpp). Per-point gradients are never
/// stored. Points are summed in leaves of `points_per_chunk`, and the leaves along the fixed tree of parallel/reduce.hpp: the result does not depend on
/// the number of threads. The last partial batch repeats its last point in the unused
/// lanes with weight 0 (simd/tail.hpp says why).

#include <algorithm>
#include <array>
#include <cstddef>
#include <span>
#include <tuple>
#include <utility>

#include <gradc/lower/array_arguments.hpp>
#include <gradc/lower/array_map_reduce_split.hpp>
#include <gradc/lower/data_variables.hpp>
#include <gradc/lower/array_program.hpp>
#include <gradc/lower/array_results.hpp>
#include <gradc/lower/array_workspace.hpp>
#include <gradc/parallel/reduce.hpp>
#include <gradc/simd/arguments.hpp>
#include <gradc/simd/array_map_reduce_inputs.hpp>
#include <gradc/simd/config.hpp>
#include <gradc/simd/tail.hpp>

namespace gradc::simd::detail {

/// What a leaf of points sums: the value, the wrt variables' adjoints, and the summed
/// adjoints of the split (S entries, packed: the summing tree keeps two sums per level
/// on the stack, so they hold no other entry of the nodes evaluated per point).
template <class T, std::size_t W, std::size_t S = 0>
struct array_sums {
    T value{};
    std::array<T, W == 0 ? 1 : W> gradient{};
    std::array<T, S == 0 ? 1 : S> nodes{};
};

/// With Gradient false, the value alone: no adjoint is swept (`map_reduce_value`).
template <class A, bool Gradient = true, class Kernel, class Data, class Theta>
auto array_map_reduce(const Kernel& k, const Data& data, const Theta& theta, int threads) {
    using T = span_list_value_t<Data>;
    using B = xsimd::batch<T, A>;
    constexpr std::size_t L = B::size;
    constexpr std::size_t W = Kernel::wrt_entries;
    constexpr std::size_t arity = Kernel::arity;
    const array_map_reduce_inputs<Kernel, T, B> in("map_reduce", data, theta);
    using inputs = array_map_reduce_inputs<Kernel, T, B>;
    static constexpr const auto& is_parameter = inputs::is_parameter;
    static constexpr const auto& data_offset = inputs::data_offset;
    static constexpr const auto& parameter_offset = inputs::parameter_offset;
    static constexpr std::size_t D = inputs::D;
    const std::size_t n = in.n;
    const auto& d_in = in.data;
    const auto& parameters = in.parameters;

    // The split: nodes that vary with the data, and the others, evaluated once here.
    using P = typename Kernel::program;
    constexpr auto& lay = P::L;
    static constexpr std::array<bool, arity> data_variables = [] {
        std::array<bool, arity> v{};
        for (std::size_t j = 0; j < arity; ++j) v[j] = !is_parameter[j];
        return v;
    }();
    static constexpr auto varying = P::analysis::template depending_on<data_variables>;
    static constexpr auto fixed = [] {
        auto f = varying;
        for (auto& b : f) b = !b;
        return f;
    }();
    // The adjoints summed over the points: the sum-only nodes' (summed in place, SN
    // entries) and the boundary's (added to sums after each point, SB entries).
    using split = lower::array_map_reduce_split<P, varying>;
    static constexpr auto& plan = split::plan;
    static constexpr std::size_t SN = split::template count<false>, SB = split::template count<true>;
    static constexpr std::size_t S = SN + SB;
    static constexpr const auto& summed_adjoints = split::template offsets<false>;
    static constexpr const auto& boundary_adjoints = split::template offsets<true>;
    std::array<T, W == 0 ? 1 : W> theta_values{};
    for (std::size_t e = 0; e < W; ++e) theta_values[e] = parameters[e].get(0);
    std::array<const T*, arity> theta_args{};
    for (std::size_t v = 0; v < arity; ++v)
        if (is_parameter[v]) theta_args[v] = theta_values.data() + parameter_offset[v];
    // The values computed once, and the adjoints of the last sweep, stay in the calling
    // thread's lease until that sweep.
    lower::workspace_lease once_lease = k.lease();
    lower::node_storage<typename Kernel::plan, T, Gradient> once_storage(once_lease);
    const T* once = once_storage.values();
    const lower::array_frame<T, arity> once_frame{theta_args.data(), once_storage.values(), k.literals().data(), k.forwards()};
    P::template primal<fixed>(once_frame);

    // The points [begin, end) summed in batch lanes, then across lanes: the value, the
    // wrt variables' adjoints, and the adjoints of the nodes computed once.
    auto leaf = [&](std::size_t c) {
        const std::size_t begin = c * points_per_chunk, end = std::min(n, begin + points_per_chunk);
        std::array<B, D == 0 ? 1 : D> x;
        const std::array<const B*, arity> args = in.arguments(x);
        lower::workspace_lease lease = k.lease();  // one claim per leaf of points_per_chunk points
        lower::node_storage<typename Kernel::plan, B, true> storage(lease);
        B* values = storage.values();
        B* adjoints = storage.derivatives();
        for (std::size_t node = 0; node < lay.shape.size(); ++node) {
            if (!fixed[node] || lay.is_input[node]) continue;
            for (std::size_t e = 0; e < lay.stored(node); ++e)
                values[lay.value_offset[node] + e] = B(once[lay.value_offset[node] + e]);
        }
        array_sums<B, W, SB> s;
        s.value = B(T(0));
        for (auto& g : s.gradient) g = B(T(0));
        for (auto& b : s.nodes) b = B(T(0));
        const auto g = wrt_pointers<Kernel>(s.gradient.data());
        const lower::array_frame<B, arity> frame{args.data(), values, k.literals().data(), k.forwards()};
        const lower::derivative_frame<B> d{g.data(), adjoints};
        P::clear(d);
        const B one(T(1));
        auto step = [&](const B& weight) {
            P::template primal<varying>(frame);
            if constexpr (Gradient) {
                const B* w = &weight;
                P::template adjoint<plan.per_point_nodes, true, plan.per_point, split::forwarding(false)>(frame, d, &w);
                // Unrolled, so that the offsets are constants (rolled, this loop read its
                // table at every entry: 7 % of the GMM's gradient).
#pragma GCC unroll 64
                for (std::size_t e = 0; e < SB; ++e) s.nodes[e] += adjoints[boundary_adjoints[e]];
            } else {
                (void)weight;
            }
            return P::steps::template value_of<P::output_node(0)>(frame)[0];
        };
        std::size_t i = begin;
        for (; i + L <= end; i += L) {
            for (std::size_t e = 0; e < D; ++e) x[e] = B::load_unaligned(d_in[e] + i);
            s.value += step(one);
        }
        if (i < end) {
            const std::size_t m = end - i;
            for (std::size_t e = 0; e < D; ++e) x[e] = load_padded<A>(d_in[e] + i, m);
            const auto real = first_lanes<A, T>(m);
            s.value += xsimd::select(real, step(xsimd::select(real, one, B(T(0)))), B(T(0)));
        }
        array_sums<T, W, S> r;
        r.value = xsimd::hadd(s.value);
        if constexpr (Gradient) {
            for (std::size_t e = 0; e < W; ++e) r.gradient[e] = xsimd::hadd(s.gradient[e]);
            for (std::size_t e = 0; e < SN; ++e) r.nodes[e] = xsimd::hadd(adjoints[summed_adjoints[e]]);
            for (std::size_t e = 0; e < SB; ++e) r.nodes[SN + e] = xsimd::hadd(s.nodes[e]);
        }
        return r;
    };
    const std::size_t leaves = (n + points_per_chunk - 1) / points_per_chunk;
    array_sums<T, W, S> total;
    if (leaves > 0) {
        total = parallel::tree_reduce<array_sums<T, W, S>>(
            leaves, threads, leaf, [](const auto& a, const auto& b) {
                array_sums<T, W, S> r;
                r.value = a.value + b.value;
                for (std::size_t e = 0; e < W; ++e) r.gradient[e] = a.gradient[e] + b.gradient[e];
                for (std::size_t e = 0; e < S; ++e) r.nodes[e] = a.nodes[e] + b.nodes[e];
                return r;
            });
        if constexpr (Gradient) {
            // The edges of the nodes computed once and the deferred edges (plan.once),
            // swept once on the summed adjoints; the adjoints not summed start at 0. A
            // deferred edge's partial reads only operands computed once, but an
            // elementwise rule is handed every operand: those that vary read zeros.
            const auto g = wrt_pointers<Kernel>(total.gradient.data());
            T* adjoints = once_storage.derivatives();
            std::fill_n(adjoints, lay.derivative_size, T(0));
            for (std::size_t e = 0; e < SN; ++e) adjoints[summed_adjoints[e]] = total.nodes[e];
            for (std::size_t e = 0; e < SB; ++e) adjoints[boundary_adjoints[e]] = total.nodes[SN + e];
            T* values = once_storage.values();
            for (std::size_t node = 0; node < lay.shape.size(); ++node)
                if (varying[node] && !lay.is_input[node])
                    std::fill_n(values + lay.value_offset[node], lay.stored(node), T(0));
            std::array<T, D == 0 ? 1 : D> zero_data{};
            std::array<const T*, arity> last_args = theta_args;
            for (std::size_t v = 0; v < arity; ++v)
                if (!is_parameter[v]) last_args[v] = zero_data.data() + data_offset[v];
            const lower::array_frame<T, arity> last_frame{last_args.data(), values, k.literals().data(), k.forwards()};
            P::template adjoint<P::all_nodes, false, plan.once, split::forwarding(true)>(
                last_frame, lower::derivative_frame<T>{g.data(), adjoints}, static_cast<const T* const*>(nullptr));
        }
    }
    if constexpr (!Gradient) {
        return total.value;
    } else {
        array_gradient_result<T, typename Kernel::template gradient_tuple<T>> result{};
        result.value = total.value;
        std::array<T*, Kernel::wrt_count == 0 ? 1 : Kernel::wrt_count> out{};
        [&]<std::size_t... j>(std::index_sequence<j...>) {
            ((out[j] = lower::entries_of(std::get<j>(result.gradient))), ...);
        }(std::make_index_sequence<Kernel::wrt_count>{});
        std::size_t at = 0;
        for (std::size_t j = 0; j < Kernel::wrt_count; ++j)
            for (std::size_t e = 0; e < Kernel::wrt_shape(j).size(); ++e) out[j][e] = total.gradient[at++];
        return result;
    }
}

}  // namespace gradc::simd::detail
