#pragma once
/// \file
/// The map-reduce programs of a lowered program: Σᵢ f(θ, xᵢ) over many points where the
/// variables marked in a `variable_mask` (the data x) change from point to point and the
/// others (the parameters θ) do not. Linearity does most of the work:
///  - nodes that depend on θ alone (invariant) are evaluated once per call;
///  - a division by an invariant node is a multiplication by its reciprocal, which the
///    compiler hoists out of the loop (rules' `eval_fixed`);
///  - the adjoint is linear in its seeds: an edge whose partial is the same at every
///    point, into a node whose adjoint is only needed summed, is swept once, on the sum
///    over all points of the adjoint it carries (a *deferred* edge); the per-point sweep
///    does the others and sums the adjoints that deferred edges start from (boundary);
///  - a boundary adjoint that is the same at every point (the seed, and what only
///    partials the same at every point carry from it) is counted, not summed;
///  - copies of an equal subexpression (lower/equal_copies.hpp) pass their adjoints on
///    where they are whole: in the per-point sweep, or in the sweep on sums when their
///    adjoints are only needed summed; nothing they receive is counted;
///  - the value: from the output down, an affine operation of one varying operand with
///    invariant others (`- log σ`, `-0.5 * ...`) is applied once to the sum of that
///    operand: Σ g(uᵢ) = g(Σuᵢ) + (N-1)·g(0) for affine g; only the frontier node u is
///    summed per point.
/// simd/map_reduce.hpp runs these programs over batches of points, and
/// simd/second_order_map_reduce.hpp runs them on dual numbers for map_reduce_hessian
/// (each shortcut holds on duals too; that file says why).

#include <array>
#include <cstddef>
#include <initializer_list>
#include <utility>

#include <gradc/lower/map_reduce_nodes.hpp>
#include <gradc/lower/program.hpp>
#include <gradc/rules/value_traits.hpp>

namespace gradc::lower {

/// Per node and operand: whether the operand reads only invariant nodes.
template <std::size_t N, class... Nodes>
constexpr std::array<std::array<bool, 3>, sizeof...(Nodes)> operands_read_only_of(flat<Nodes...>,
                                                                                  const std::array<bool, N>& invariant) {
    return {operands_read_only<Nodes>::in(invariant)...};
}

/// The map-reduce split of program P for the mask Mask. A primary template whose
/// member functions deduce the nodes, for the reason `program` is (lower/program.hpp).
template <class P, auto Mask>
struct map_reduce_split_of {
    using nodes = typename P::nodes;
    static constexpr std::size_t size = P::size;
    static constexpr std::size_t edge_count = P::edge_count;
    static constexpr auto& desc = P::desc;
    static constexpr auto& live = P::live;
    static constexpr auto& edges = P::plan.edges;
    static constexpr auto& classes = structural_copies<nodes>::classes;

    static constexpr std::array<bool, size> invariant = invariant_nodes<Mask>(nodes{});
    static constexpr std::array<operand_traits, size> traits = operand_traits_of_nodes(nodes{});
    /// Per node and operand: whether the operand reads only invariant nodes.
    static constexpr std::array<std::array<bool, 3>, size> operand_invariant = operands_read_only_of(nodes{}, invariant);

    struct plan_type {
        std::array<bool, edge_count> deferred{};       // swept once, on sums
        std::array<bool, edge_count> per_point{};      // the others
        std::array<bool, size> sum_only{};             // a node's adjoint is only needed summed
        first_writes<edge_count, size, P::output_count> writes{};  // of the per-point sweep
        first_writes<edge_count, size, P::output_count> copy_writes{};  // ... when copies pass adjoints on
        std::array<bool, live.live_count> unwritten{};  // boundary slots the plain per-point sweep does not write
        std::array<bool, live.live_count> boundary{};  // slots summed over the points
        std::array<bool, live.live_count> counted{};   // boundary slot the same at every point
        std::array<bool, size> tail{};                 // applied once to the summed frontier
        std::size_t frontier = 0;                      // node whose value is summed per point
        bool tail_offset = false;                      // the tail adds a constant: (N-1)·g(0)
    };

    /// An edge's partial is the same at every point: its node is invariant, or the
    /// partial is a structural ±1, or the rule is affine in that operand and every other
    /// operand is invariant.
    static constexpr bool partial_invariant(const edge& e) {
        if (invariant[e.node]) return true;
        const operand_traits& t = traits[e.node];
        if (t.constant_partial[e.operand]) return true;
        if (!t.affine[e.operand]) return false;
        for (std::size_t k = 0; k < desc[e.node].arity; ++k)
            if (k != e.operand && !operand_invariant[e.node][k]) return false;
        return true;
    }

    static constexpr plan_type plan = [] {
        plan_type p;
        // A node's adjoint is only needed summed when it is invariant or all the edges to
        // its operands are deferred; nodes come after their operands, so one pass.
        std::array<bool, size> sum_only{};
        std::size_t e = 0;
        for (std::size_t i = 0; i < size; ++i) {
            bool all_deferred = true;
            for (; e < edge_count && edges[e].node == i; ++e) {
                p.deferred[e] = partial_invariant(edges[e]) && sum_only[edges[e].child];
                all_deferred = all_deferred && p.deferred[e];
            }
            sum_only[i] = invariant[i] || (desc[i].kind == node_kind::primitive && all_deferred);
        }
        p.sum_only = sum_only;
        std::array<bool, size> has_deferred{};
        for (std::size_t r = 0; r < edge_count; ++r) {
            p.per_point[r] = !p.deferred[r];
            if (p.deferred[r]) has_deferred[edges[r].node] = true;
        }
        p.writes = find_first_writes(edges, p.per_point, live, P::output_nodes, std::array<bool, size>{});
        p.copy_writes = find_first_writes(edges, p.per_point, live, P::output_nodes, P::copies.zeroed);
        // A node's per-point adjoint is the same at every point when it is a seed (1 at
        // every point) and every per-point edge into it has a partial that is the same at
        // every point, from a node whose adjoint is too. Edges come in node order, so in
        // reverse every edge into a node is seen before the edges out of it.
        std::array<bool, size> reached{}, varies = P::copies.zeroed;
        for (std::size_t m = 0; m < P::output_count; ++m) reached[P::output_nodes[m]] = true;
        for (std::size_t r = edge_count; r-- > 0;) {
            if (!p.per_point[r]) continue;
            const edge& ed = edges[r];
            const bool same = reached[ed.node] && !varies[ed.node];
            reached[ed.child] = true;
            if (!same || !partial_invariant(ed)) varies[ed.child] = true;
        }
        for (std::size_t i = 0; i < size; ++i) {
            const bool written = p.writes.written[i] || p.copy_writes.written[i];
            if (!live.live[i] || !written || !(sum_only[i] || has_deferred[i])) continue;
            p.boundary[live.slot[i]] = true;
            p.counted[live.slot[i]] = reached[i] && !varies[i];
            p.unwritten[live.slot[i]] = !p.writes.written[i];
        }
        // The value: follow the output down through affine operations of one varying
        // operand (the others invariant).
        std::size_t n = P::output_nodes[0];
        while (!invariant[n] && desc[n].kind == node_kind::primitive) {
            std::size_t next = no_node;
            bool others_invariant = true;
            for (std::size_t k = 0; k < desc[n].arity; ++k) {
                if (operand_invariant[n][k]) continue;
                if (next != no_node || desc[n].operand[k] == no_node || !traits[n].affine[k]) others_invariant = false;
                next = desc[n].operand[k];
            }
            if (!others_invariant || next == no_node) break;
            p.tail[n] = true;
            std::size_t k = 0;
            while (desc[n].operand[k] != next) ++k;
            p.tail_offset = p.tail_offset || !traits[n].linear[k];
            n = next;
        }
        p.frontier = n;
        return p;
    }();

    /// How the split primal evaluates node I: in the invariant part (once) or the varying
    /// part (per point, fused when its partials are swept, a division by an invariant as
    /// a product with the reciprocal), or, for the value's tail, once on the sums.
    enum class part { invariant, varying, tail };

    template <part Part, class T>
    static constexpr std::array<step::evaluation, size> evaluation = [] {
        std::array<step::evaluation, size> how{};
        for (std::size_t i = 0; i < size; ++i) {
            how[i] = step::evaluation::skip;
            if (Part == part::invariant && invariant[i]) how[i] = step::evaluation::plain;
            if (Part == part::tail && plan.tail[i]) how[i] = step::evaluation::plain;
            if (Part == part::varying && !invariant[i]) {
                how[i] = step::evaluation::plain;
                if (P::template fused<T>.fused[i]) {
                    how[i] = step::evaluation::fused;
                } else if (desc[i].kind == node_kind::primitive && desc[i].arity == 2 && operand_invariant[i][1] &&
                           !operand_invariant[i][0]) {
                    how[i] = step::evaluation::fixed;
                }
            }
        }
        return how;
    }();

    // The sweeps and the primal carry the program's activity (which operands depend on a
    // wrt variable): on the dual numbers of map_reduce_hessian, terms of operands that
    // carry no tangents are skipped and constant partials scale without a product rule,
    // as in the kernel's own second-order program; other value types ignore it.
    // A copy and its target must pass and take the adjoint in one sweep: nodes of equal
    // structure read equally invariant operands by equal rules, so are alike here.
    static_assert(alike_in_class(P::copies, classes, plan.sum_only),
                  "gradc internal: copies of one subexpression split differently by map-reduce");

    /// The copies whose adjoints are passed on in the sweep on sums (`once`), or per point.
    static constexpr std::array<bool, size> forwarding(bool once) {
        std::array<bool, size> f{};
        for (std::size_t i = 0; i < size; ++i) f[i] = P::copies.copy[i] != no_node && plan.sum_only[i] == once;
        return f;
    }

    // Two of each sweep, as the kernel's own adjoint (lower/program.hpp): the plain one,
    // and the one where copies pass their adjoints on, for kernels some of whose copies do.
    template <class T>
    static constexpr auto per_point_sweep = describe_sweep<size>(true, edges, plan.per_point, plan.writes.edge_first,
                                                                 P::template fused<T>.slot, live.slot, desc, P::activity);
    template <class T>
    static constexpr auto copy_per_point_sweep =
        with_copies(describe_sweep<size>(true, edges, plan.per_point, plan.copy_writes.edge_first,
                                         P::template fused<T>.slot, live.slot, desc, P::activity),
                    P::copies, live.slot, forwarding(false));
    static constexpr auto no_partial_slots = [] {
        std::array<std::size_t, edge_count> s{};
        s.fill(no_node);
        return s;
    }();
    static constexpr auto deferred_sweep = describe_sweep<size>(true, edges, plan.deferred, std::array<bool, edge_count>{},
                                                                no_partial_slots, live.slot, desc, P::activity);
    static constexpr auto copy_deferred_sweep = with_copies(deferred_sweep, P::copies, live.slot, forwarding(true));
    /// The boundary slots the plain per-point sweep does not write (a copy's, written only
    /// where copies pass adjoints on): zeroed first, so that their sums are 0.
    static constexpr std::size_t unwritten_count = [] {
        std::size_t c = 0;
        for (bool u : plan.unwritten) c += u ? 1 : 0;
        return c;
    }();
    static constexpr auto unwritten_slots = [] {
        std::array<std::size_t, unwritten_count> z{};
        std::size_t k = 0;
        for (std::size_t b = 0; b < plan.unwritten.size(); ++b)
            if (plan.unwritten[b]) z[k++] = b;
        return z;
    }();

    template <part Part, class T, class Literals>
    GRADC_ALWAYS_INLINE inline static void primal_part(const Literals& literals, const T* x, typename P::template values<T>& v) {
        P::template evaluate_by<evaluation<Part, T>>(literals, x, v);
    }

    /// The invariant nodes' values (once per call).
    template <class T, class Literals>
    GRADC_ALWAYS_INLINE inline static void primal_invariant(const Literals& literals, const T* x, typename P::template values<T>& v) {
        primal_part<part::invariant>(literals, x, v);
    }

    /// The varying nodes' values and fused partials (per point), after primal_invariant
    /// filled the rest.
    template <class T, class Literals>
    GRADC_ALWAYS_INLINE inline static typename P::template linearization<T> primal_varying(const Literals& literals, const T* x,
                                                                            typename P::template values<T>& v) {
        primal_part<part::varying>(literals, x, v);
        return {v, P::forward_of(literals)};
    }

    /// The value's tail (once): the nodes between the summed frontier and the output.
    template <class T, class Literals>
    static void primal_tail(const Literals& literals, const T* x, typename P::template values<T>& v) {
        primal_part<part::tail>(literals, x, v);
    }

    /// Per point: seeds, then the edges not deferred; the boundary slots of `a` then hold
    /// this point's adjoints to be summed (the other slots are scratch).
    template <class T>
    GRADC_ALWAYS_INLINE inline static void adjoint_varying(const typename P::template linearization<T>& lin, const T* w,
                                             typename P::template derivatives<T>& a) {
        if constexpr (P::copies.count > 0) {
            if (lin.forward != nullptr) {
                P::zero_copy_slots(a);
                return sweep_point<true>(lin, w, a);
            }
        }
        [&]<std::size_t... k>(std::index_sequence<k...>) GRADC_ALWAYS_INLINE {
            (void)std::initializer_list<int>{((a[unwritten_slots[k]] = step::zero<T>()), 0)...};
        }(std::make_index_sequence<unwritten_count>{});
        sweep_point<false>(lin, w, a);
    }

    /// The per-point sweep's table: the plain one, or where copies pass adjoints on.
    template <bool Copies, class T>
    static constexpr const auto& per_point_table() {
        if constexpr (Copies) {
            return copy_per_point_sweep<T>;
        } else {
            return per_point_sweep<T>;
        }
    }

    /// Seeds, then the per-point sweep, plain or where copies pass adjoints on (named with
    /// a flag, not with its table, as the kernel's own `sweep_back`).
    template <bool Copies, class T>
    GRADC_ALWAYS_INLINE inline static void sweep_point(const typename P::template linearization<T>& lin, const T* w,
                                         typename P::template derivatives<T>& a) {
        constexpr auto& seed_first = Copies ? plan.copy_writes.seed_first : plan.writes.seed_first;
        [&]<std::size_t... m>(std::index_sequence<m...>) GRADC_ALWAYS_INLINE {
            (void)std::initializer_list<int>{(step::seed<P::slot_or_none(P::output_nodes[m]), seed_first[m]>(w[m], a), 0)...};
        }(std::make_index_sequence<P::output_count>{});
        [&]<class... N>(flat<N...>) GRADC_ALWAYS_INLINE {
            step::sweep_in_reverse<per_point_table<Copies, T>(), N...>(lin.v, a, lin.forward);
        }(nodes{});
    }

    /// The per-point adjoints at one point x (the parameters and one point's data), after
    /// primal_invariant filled `v`: a slot that `plan.counted` marks holds the same at
    /// every point, so its sum is the number of points times this.
    template <class T, class Literals>
    static typename P::template derivatives<T> adjoints_at_point(const Literals& literals, const T* x,
                                                                 typename P::template values<T> v) {
        const auto lin = primal_varying(literals, x, v);
        typename P::template derivatives<T> a;
        a.fill(T(rules::scalar_t<T>(0)));
        const T one(rules::scalar_t<T>(1));
        adjoint_varying(lin, &one, a);
        return a;
    }

    /// Once: the deferred edges, from the summed boundary adjoints (zero elsewhere), with
    /// partials from the invariant values.
    template <class T>
    static void adjoint_once(const typename P::template linearization<T>& lin, typename P::template derivatives<T> a,
                             T* grad) {
        [&]<class... N>(flat<N...>) GRADC_ALWAYS_INLINE {
            if constexpr (P::copies.count > 0) {
                if (lin.forward != nullptr) return step::sweep_in_reverse<copy_deferred_sweep, N...>(lin.v, a, lin.forward);
            }
            step::sweep_in_reverse<deferred_sweep, N...>(lin.v, a, lin.forward);
        }(nodes{});
        [&]<std::size_t... j>(std::index_sequence<j...>) {
            (void)std::initializer_list<int>{((grad[j] = step::derivative_or_zero<P::slot_or_none(P::wrt_nodes[j])>(a)), 0)...};
        }(std::make_index_sequence<P::wrt_count>{});
    }
};

/// The map-reduce programs of program P with the variables marked in Mask as data.
template <class P, auto Mask>
using map_reduce_split = map_reduce_split_of<P, Mask>;

}  // namespace gradc::lower
