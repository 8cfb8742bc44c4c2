#pragma once
/// \file
/// The sweeps' tables: for each node of a program, the edges a sweep applies and how
/// (lower/steps.hpp, `node_sweep`), made from the analyses of lower/activity.hpp once per
/// program and sweep. Plain constexpr functions over the node descriptions.

#include <array>
#include <cstddef>

#include <gradc/lower/activity.hpp>
#include <gradc/lower/describe.hpp>
#include <gradc/lower/copy_plan.hpp>
#include <gradc/lower/steps.hpp>

namespace gradc::lower {

/// Which operands of each node carry tangents (depend on a wrt variable), for programs
/// run on dual numbers.
template <std::size_t N>
constexpr std::array<step::operand_activity, N> operand_activities(const std::array<node_desc, N>& d,
                                                                   const std::array<bool, N>& active) {
    std::array<step::operand_activity, N> a{};
    for (std::size_t i = 0; i < N; ++i)
        for (std::size_t k = 0; k < 3; ++k)
            a[i].carries[k] = k < d[i].arity && d[i].operand[k] != no_node && d[i].differentiable[k] && active[d[i].operand[k]];
    return a;
}

/// The partial of a node reads no value that carries tangents: neither an operand that
/// does, nor the node's own result (which does, whenever the node is swept).
constexpr bool partial_reads_no_tangent(const node_desc& d, const step::operand_activity& a) {
    return !d.reads.y && !(d.reads.a && a.carries[0]) && !(d.reads.b && a.carries[1]) && !(d.reads.c && a.carries[2]);
}

/// Which of a program's edges a sweep applies, the first writes among them, and where
/// fused partials are stored: the per-node sweep descriptions of one program.
template <std::size_t N, std::size_t E>
constexpr std::array<step::node_sweep, N> describe_sweep(bool adjoint, const std::array<edge, E>& edges,
                                                         const std::array<bool, E>& on, const std::array<bool, E>& first,
                                                         const std::array<std::size_t, E>& partial_slot,
                                                         const std::array<std::size_t, N>& slot,
                                                         const std::array<node_desc, N>& d = {},
                                                         const std::array<step::operand_activity, N>& activity = {}) {
    std::array<step::node_sweep, N> s{};
    for (std::size_t i = 0; i < N; ++i) {  // every entry written (lower/steps.hpp, `edge_step`, says why)
        s[i].node = i;
        for (std::size_t k = 0; k < s[i].edges.size(); ++k) s[i].edges[k].position = static_cast<int>(k);
    }
    std::array<std::size_t, N> count{};
    for (std::size_t e = 0; e < E; ++e) count[edges[e].node]++;
    std::array<std::size_t, N> filled{};
    for (std::size_t e = 0; e < E; ++e) {
        const edge& ed = edges[e];
        // The adjoint applies a node's edges in reverse operand order.
        const std::size_t at = adjoint ? count[ed.node] - 1 - filled[ed.node] : filled[ed.node];
        ++filled[ed.node];
        step::edge_step& st = s[ed.node].edges[at];  // its position is written above
        st.on = on[e];
        st.operand = static_cast<int>(ed.operand);
        st.to = adjoint ? slot[ed.child] : slot[ed.node];
        st.from = adjoint ? slot[ed.node] : slot[ed.child];
        st.first = first[e];
        st.partial_slot = partial_slot[e];
        st.partial_constant = d[ed.node].kind == node_kind::primitive && partial_reads_no_tangent(d[ed.node], activity[ed.node]);
    }
    return s;
}

/// The adjoint sweep's entries for the copies of equal subexpressions (lower/equal_copies.hpp):
/// each looks up its forward table entry, and adds its adjoint there where `forwards`
/// says this sweep is where its adjoint is whole (a map-reduce has two sweeps).
template <std::size_t N>
constexpr std::array<step::node_sweep, N> with_copies(std::array<step::node_sweep, N> s, const copy_plan<N>& c,
                                                      const std::array<std::size_t, N>& slot,
                                                      const std::array<bool, N>& forwards) {
    for (std::size_t i = 0; i < N; ++i) {
        if (c.copy[i] == no_node) continue;
        s[i].copy = c.copy[i] + 1;
        s[i].forwards = forwards[i];
        s[i].slot = slot[i];
        if (c.sole_target[i] != no_node) s[i].sole_target = slot[c.sole_target[i]] + 1;
    }
    return s;
}

}  // namespace gradc::lower
