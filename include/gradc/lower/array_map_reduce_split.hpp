#pragma once
/// \file
/// How map-reduce splits an array kernel's adjoint sweep between the points and one
/// sweep at the end (simd/array_map_reduce.hpp), the scalar split of
/// lower/map_reduce_split.hpp for array nodes.
///
/// The adjoint is linear in its seeds. An edge whose partial is the same at every point
/// (the rule is affine in that operand, `rules::affine_in`, and its other operands do
/// not vary with the data; or the partial is a structural ±1), leading to a node whose
/// adjoint is only needed summed over the points, is *deferred*: it is swept once, on
/// the sum over the points of the adjoint it starts from. In the Gaussian mixture objective, `Q_k·(x − μ_k)` has Q_k
/// computed once per call, so the edge to `x − μ_k` (x̄ += Q_kᵀ·ȳ, a triangular
/// product) is swept once on Σȳ instead of at every point, and the edge on to μ_k with
/// it; per point only ȳ is summed.
///
/// A node's adjoint is only needed summed (it is *sum-only*) when it does not vary with
/// the data (it is computed once, and its edges are swept once, as before), or when it
/// does and every edge it sweeps is deferred. Per point, the sweep runs the edges that
/// are not deferred of the nodes that are not sum-only; the adjoints of sum-only nodes
/// are summed across the points in place, and those of the nodes a deferred edge starts
/// from (the *boundary*) are added to sums after each point. A copy of an equal
/// subexpression (lower/equal_copies.hpp) passes its adjoint on where it is whole: per
/// point, or in the last sweep when it is sum-only.

#include <array>
#include <cstddef>
#include <utility>

#include <gradc/lower/array_describe.hpp>
#include <gradc/lower/flat.hpp>
#include <gradc/lower/map_reduce_nodes.hpp>
#include <gradc/rules/rule.hpp>

namespace gradc::lower {

/// Per operand of a node: whether it depends on the flagged nodes (a condition: when any
/// of its operands does), and whether the partial with respect to it is the same at every
/// point once the other operands are (the rule is affine in it), or always (the
/// structural ±1 of add, sub and neg, lower/map_reduce_nodes.hpp).
template <class Node>
struct array_operand_traits {
    template <std::size_t N>
    static constexpr std::array<bool, 1> depending(const std::array<bool, N>&) {
        return {false};
    }
    static constexpr std::array<bool, 1> affine{false};
    static constexpr std::array<bool, 1> constant_partial{false};
};
template <class R, class... O>
struct array_operand_traits<apply<R, O...>> {
    template <std::size_t N>
    static constexpr std::array<bool, sizeof...(O)> depending(const std::array<bool, N>& dep) {
        return {operand_depends<O>::on(dep)...};
    }
    static constexpr std::array<bool, sizeof...(O)> affine = [] {
        std::array<bool, sizeof...(O)> a{};
        [&]<int... K>(std::integer_sequence<int, K...>) {
            ((a[K] = rules::affine_in<R, K> != rules::affinity::none), ...);
        }(std::make_integer_sequence<int, int(sizeof...(O))>{});
        return a;
    }();
    static constexpr std::array<bool, sizeof...(O)> constant_partial = [] {
        std::array<bool, sizeof...(O)> c{};
        if constexpr (array_node_traits<apply<R, O...>>::elementwise) {
            [&]<int... K>(std::integer_sequence<int, K...>) {
                ((c[K] = has_constant_partial<R, K, O...>()), ...);
            }(std::make_integer_sequence<int, int(sizeof...(O))>{});
        }
        return c;
    }();
};

/// The split, per node and per operand slot (operand k of node n at
/// `operand_begin[n] + k`, as in lower/array_first_writes.hpp).
template <std::size_t N, std::size_t E>
struct array_split_plan {
    std::array<bool, E> deferred{};      // swept once, on sums
    std::array<bool, E> per_point{};     // the edges the per-point sweep may run
    std::array<bool, E> once{};          // the last sweep's: deferred, and a fixed node's
    std::array<bool, N> sum_only{};      // its adjoint is only needed summed over points
    std::array<bool, N> per_point_nodes{};  // varying, not sum-only: swept per point
    std::array<bool, N> summed{};        // live, not an input, sum-only, written per point:
                                         // summed in place (the others' adjoints start at
                                         // 0 in the last sweep)
    std::array<bool, N> boundary{};      // a per-point node a deferred edge starts from
    bool has_deferred = false;
};

template <class Program, node_mask Varying, class Flat = typename Program::flat_type>
struct array_map_reduce_split;

template <class Program, node_mask Varying, class... Nodes>
struct array_map_reduce_split<Program, Varying, flat<Nodes...>> {
    static constexpr std::size_t size = sizeof...(Nodes);
    using first_writes = typename Program::first_writes;
    static constexpr std::size_t slots = first_writes::operand_count;

    /// Per operand slot: whether the operand varies with the data.
    static constexpr std::array<bool, slots> operand_varies = [] {
        std::array<bool, slots> d{};
        std::size_t n = 0;
        auto take = [&](const auto& flags) {
            for (std::size_t k = 0; k < first_writes::arity[n]; ++k) d[first_writes::operand_begin[n] + k] = flags[k];
            ++n;
        };
        (take(array_operand_traits<Nodes>::depending(Varying.bits)), ...);
        return d;
    }();

    static constexpr array_split_plan<size, slots> plan = [] {
        constexpr auto& L = Program::L;
        constexpr std::array<std::size_t, size> arity{array_node_traits<Nodes>::arity...};
        constexpr std::array<bool, size> primitive{(array_node_traits<Nodes>::kind == node_kind::primitive)...};
        constexpr std::array<const std::size_t*, size> operands{array_node_traits<Nodes>::operands.data()...};
        constexpr std::array<const bool*, size> differentiable{array_node_traits<Nodes>::differentiable.data()...};
        constexpr std::array<const bool*, size> affine{array_operand_traits<Nodes>::affine.data()...};
        constexpr std::array<const bool*, size> constant{array_operand_traits<Nodes>::constant_partial.data()...};
        array_split_plan<size, slots> p;
        auto& sum_only = p.sum_only;
        // Nodes come after their operands, so one pass decides both flags.
        for (std::size_t n = 0; n < size; ++n) {
            if (!Varying[n] || !primitive[n]) {
                sum_only[n] = true;  // computed once, a wrt variable (the result), or data
                for (std::size_t k = 0; k < arity[n]; ++k) p.once[first_writes::operand_begin[n] + k] = true;
                continue;
            }
            bool all_deferred = true;
            for (std::size_t k = 0; k < arity[n]; ++k) {
                const std::size_t slot = first_writes::operand_begin[n] + k;
                p.per_point[slot] = true;
                const std::size_t c = operands[n][k];
                if (!L.live[n] || !differentiable[n][k] || !L.live[c]) continue;
                bool others_fixed = true;
                for (std::size_t j = 0; j < arity[n]; ++j)
                    others_fixed = others_fixed && (j == k || !operand_varies[first_writes::operand_begin[n] + j]);
                const bool deferred = ((affine[n][k] && others_fixed) || constant[n][k]) && sum_only[c];
                p.deferred[slot] = p.once[slot] = deferred;
                p.per_point[slot] = !deferred;
                p.has_deferred = p.has_deferred || deferred;
                p.boundary[n] = p.boundary[n] || deferred;
                all_deferred = all_deferred && deferred;
            }
            sum_only[n] = all_deferred;
            p.per_point_nodes[n] = !all_deferred;
            p.boundary[n] = p.boundary[n] && !all_deferred && L.live[n];
        }
        // A sum-only node's adjoint is written per point by a seed or an edge that is not
        // deferred from a per-point node; the others are only written in the last sweep.
        std::array<bool, size> written{};
        for (std::size_t m : Program::analysis::output_nodes) written[m] = true;
        for (std::size_t n = 0; n < size; ++n)
            if (p.per_point_nodes[n])
                for (std::size_t k = 0; k < arity[n]; ++k)
                    if (!p.deferred[first_writes::operand_begin[n] + k] && differentiable[n][k])
                        written[operands[n][k]] = true;
        for (std::size_t n = 0; n < size; ++n) p.summed[n] = sum_only[n] && L.live[n] && !L.is_input[n] && written[n];
        return p;
    }();

    // A copy and its target pass and take the adjoint in one sweep: nodes of equal
    // structure vary alike and read operands split alike, so are alike here.
    static_assert(alike_in_class(Program::analysis::copies, structural_copies<flat<Nodes...>>::classes, plan.sum_only),
                  "gradc internal: copies of one subexpression split differently by map-reduce");

    /// The copies that pass their adjoints on in the last sweep (`once`), or per point.
    static constexpr std::array<bool, size> forwarding(bool once) {
        std::array<bool, size> f{};
        for (std::size_t n = 0; n < size; ++n)
            f[n] = Program::analysis::copies.copy[n] != no_node && plan.sum_only[n] == once;
        return f;
    }

    /// Where the summed adjoints and the boundary adjoints are: derivative offsets, node
    /// by node, entry by entry.
    template <bool Boundary>
    static constexpr std::size_t count = [] {
        std::size_t c = 0;
        for (std::size_t n = 0; n < size; ++n)
            if (Boundary ? plan.boundary[n] : plan.summed[n]) c += Program::L.shape[n].size();
        return c;
    }();
    template <bool Boundary>
    static constexpr auto offsets = [] {
        std::array<std::size_t, count<Boundary> == 0 ? 1 : count<Boundary>> at{};
        std::size_t k = 0;
        for (std::size_t n = 0; n < size; ++n)
            if (Boundary ? plan.boundary[n] : plan.summed[n])
                for (std::size_t e = 0; e < Program::L.shape[n].size(); ++e) at[k++] = Program::L.derivative_offset[n] + e;
        return at;
    }();
};

}  // namespace gradc::lower
