#pragma once
/// \file
/// Step 3 of lowering: which nodes carry derivatives, where they live, and the edges
/// the tangent and adjoint sweeps walk.
///
/// A node is *active* when it depends, through differentiable operands, on a variable
/// we differentiate with respect to (`wrt`), and it *reaches* an output when an output
/// depends on it through differentiable operands. Only nodes that are both (the *live*
/// nodes) get a tangent/adjoint slot, and only edges between live nodes are swept: a
/// derivative that was not asked for costs nothing. Each slot's first write is known
/// at compile time, so the sweeps assign it instead of adding to a zeroed slot.

#include <array>
#include <cstddef>

#include <gradc/lower/describe.hpp>

namespace gradc::lower {

struct edge {
    std::size_t node = 0;     // the primitive
    std::size_t operand = 0;  // which operand of it
    std::size_t child = 0;    // the operand's node
    bool tangent_first = false;  // first term of the node's tangent
    bool adjoint_first = false;  // first contribution to the child's adjoint
};

template <std::size_t N>
struct liveness {
    std::array<bool, N> active{};  // depends on a wrt variable (its tangent can be nonzero)
    std::array<bool, N> live{};
    std::array<std::size_t, N> slot{};  // slot of a live node in the tangent/adjoint arrays
    std::size_t live_count = 0;
    std::size_t edge_count = 0;
};

template <std::size_t N, std::size_t M, std::size_t W>
constexpr liveness<N> find_live(const std::array<node_desc, N>& d, const std::array<std::size_t, M>& outputs,
                                const std::array<std::size_t, W>& wrt) {
    std::array<bool, N> active{};
    for (std::size_t i = 0; i < N; ++i) {
        if (d[i].kind == node_kind::variable) {
            for (std::size_t j = 0; j < W; ++j) active[i] = active[i] || wrt[j] == d[i].variable;
        } else if (d[i].kind == node_kind::primitive) {
            for (std::size_t k = 0; k < d[i].arity; ++k)
                active[i] = active[i] || (d[i].differentiable[k] && active[d[i].operand[k]]);
        }
    }
    std::array<bool, N> reaches{};
    for (std::size_t m = 0; m < M; ++m) reaches[outputs[m]] = true;
    for (std::size_t i = N; i-- > 0;) {
        if (!reaches[i] || d[i].kind != node_kind::primitive) continue;
        for (std::size_t k = 0; k < d[i].arity; ++k)
            if (d[i].differentiable[k]) reaches[d[i].operand[k]] = true;
    }
    liveness<N> l;
    l.active = active;
    for (std::size_t i = 0; i < N; ++i) {
        l.live[i] = active[i] && reaches[i];
        if (!l.live[i]) continue;
        l.slot[i] = l.live_count++;
        if (d[i].kind != node_kind::primitive) continue;
        for (std::size_t k = 0; k < d[i].arity; ++k)
            if (d[i].differentiable[k] && active[d[i].operand[k]]) ++l.edge_count;
    }
    return l;
}

/// The first writes of a reverse sweep over some edges (`swept`): the output seeds are
/// written first, in output order, then the edges from last to first. A slot's first
/// write assigns, the others add: no slot is zeroed beforehand, except the slots of the
/// `zeroed` nodes (lower/equal_copies.hpp: whether some edges into them run is known only
/// at run time), which the sweep zeroes first and only adds to.
template <std::size_t E, std::size_t N, std::size_t M>
struct first_writes {
    std::array<bool, M> seed_first{};
    std::array<bool, E> edge_first{};
    std::array<bool, N> written{};          // the node's adjoint is written at all
    std::array<bool, N> written_by_edge{};  // ... by an edge, not only by a seed
};

template <std::size_t E, std::size_t N, std::size_t M>
constexpr first_writes<E, N, M> find_first_writes(const std::array<edge, E>& edges, const std::array<bool, E>& swept,
                                                  const liveness<N>& l, const std::array<std::size_t, M>& outputs,
                                                  const std::array<bool, N>& zeroed) {
    first_writes<E, N, M> f;
    f.written = zeroed;
    for (std::size_t m = 0; m < M; ++m) {
        if (!l.live[outputs[m]]) continue;
        f.seed_first[m] = !f.written[outputs[m]];
        f.written[outputs[m]] = true;
    }
    for (std::size_t r = E; r-- > 0;) {
        if (!swept[r]) continue;
        f.edge_first[r] = !f.written[edges[r].child];
        f.written[edges[r].child] = true;
        f.written_by_edge[edges[r].child] = true;
    }
    return f;
}

/// Every edge between live nodes, grouped by node in node order, operands in order; the
/// first write of each node's tangent, and the first writes of the full adjoint sweep.
template <std::size_t E, std::size_t M>
struct sweep_plan {
    std::array<edge, E> edges{};
    std::array<bool, M> seed_first{};  // output m's seed is the first write to its adjoint
};

template <std::size_t E, std::size_t N, std::size_t M>
constexpr sweep_plan<E, M> plan_sweeps(const std::array<node_desc, N>& d, const liveness<N>& l,
                                       const std::array<std::size_t, M>& outputs) {
    sweep_plan<E, M> p;
    std::size_t e = 0;
    for (std::size_t i = 0; i < N; ++i) {
        if (!l.live[i] || d[i].kind != node_kind::primitive) continue;
        bool first = true;
        for (std::size_t k = 0; k < d[i].arity; ++k) {
            const std::size_t c = d[i].operand[k];
            if (!d[i].differentiable[k] || !l.live[c]) continue;
            p.edges[e++] = edge{i, k, c, first, false};
            first = false;
        }
    }
    std::array<bool, E> all{};
    all.fill(true);
    const auto f = find_first_writes(p.edges, all, l, outputs, std::array<bool, N>{});
    p.seed_first = f.seed_first;
    for (std::size_t r = 0; r < E; ++r) p.edges[r].adjoint_first = f.edge_first[r];
    return p;
}

}  // namespace gradc::lower
