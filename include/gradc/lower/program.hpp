#pragma once
/// Step 4 of lowering: the straight-line programs, generic in the value type T.
///
///  - `primal`: every node's value, in order, into a fixed array (one slot per node);
///  - `linearize`: the primal of a derivative program, which also stores the partials of
///    the nodes whose rule computes value and partials together (sin/cos, erf/erfc);
///  - `tangent`: forward sweep over the edges (JVP), from input tangents to outputs;
///  - `adjoint`: backward sweep over the edges (VJP), from output weights to inputs;
///  - the map-reduce split (`primal_invariant`, `primal_varying`, `adjoint_varying`,
///    `adjoint_once`): Σ over points with parameters fixed, for simd/map_reduce.hpp.
/// Each sweep computes an edge's local partial from the values where it needs it, and
/// may carry several directions at once (a Jacobian is one sweep).
/// Every index is a compile-time constant: the code is a pack expansion over the node
/// and edge lists (in a braced list, which orders it and has no nesting limit), with no
/// loop, branch on structure, tape, heap or virtual call left at run time. Run on
/// double, float, xsimd batches or any type the rules accept.

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <utility>

#include <initializer_list>
#include <tuple>

#include <gradc/lower/activity.hpp>
#include <gradc/lower/flat.hpp>
#include <gradc/rules/partial.hpp>
#include <gradc/rules/rule.hpp>
#include <gradc/rules/value_traits.hpp>

/// Sweeps and their steps are forced inline: the batch loop must see one straight-line
/// body (values in registers); left to its heuristics, the compiler kept large kernels'
/// sweeps out of line and sent every node's value through memory.
#define GRADC_INLINE [[gnu::always_inline]] inline
#define GRADC_INLINE_LAMBDA __attribute__((always_inline))

namespace gradc::lower {

/// Value of an operand: node I's value, or a condition evaluated from node values
/// (bool for scalars, a batch of bools for SIMD batches).
template <class Operand>
struct operand_value;

template <std::size_t I>
struct operand_value<ref<I>> {
    template <class Values>
    static const auto& get(const Values& v) {
        return v[I];
    }
};

template <class Op, class... Operands>
struct operand_value<test<Op, Operands...>> {
    template <class Values>
    static auto get(const Values& v) {
        return Op::eval(operand_value<Operands>::get(v)...);
    }
};

/// The steps of the programs, as free functions templated on one node or edge: their
/// names stay short (the whole node list appears only in the few sweep drivers), which
/// keeps mangling, and so compile time, linear in the number of nodes.
namespace step {

/// How a node is evaluated in a primal: its rule's `eval` (plain); its
/// `eval_with_partials`, storing the partials too (fused); its `eval_fixed` for an
/// operand that is the same at every point (fixed); or not at all (skip).
enum class evaluation { plain, fused, fixed, skip };

/// Where a fused node's partials go, packed in one number (a cheap template argument):
/// (first slot << 3) | mask, bit k of mask set when operand k's partial is stored, at
/// the first slot plus the number of stored operands before k; 0 when none is.
inline constexpr std::size_t no_slots = 0;
template <std::size_t Slots, std::size_t K>
inline constexpr std::size_t slot_of =
    ((Slots >> K) & 1u) != 0 ? (Slots >> 3) + std::popcount(Slots & 7u & ((std::size_t{1} << K) - 1)) : no_node;

template <std::size_t I, evaluation How, std::size_t Slots, std::size_t K, class Literals, class T,
          std::size_t N>
void evaluate(input<K>, const Literals&, const T* x, std::array<T, N>& v) {
    if constexpr (How != evaluation::skip) v[I] = x[K];
}

template <std::size_t I, evaluation How, std::size_t Slots, std::size_t L, class Literals, class T,
          std::size_t N>
void evaluate(constant<L>, const Literals& literals, const T*, std::array<T, N>& v) {
    if constexpr (How != evaluation::skip) v[I] = T(rules::scalar_t<T>(literals[L]));
}

template <std::size_t Slot, class T, std::size_t N>
GRADC_INLINE void store_partial(const T& p, std::array<T, N>& v) {
    if constexpr (Slot != no_node) v[Slot] = p;
}

/// A primitive: fused, the value into v[I] and the partial with respect to operand k
/// into slot_of<Slots, k> for every swept operand (the others are dropped); fixed (operand 1
/// the same at every point, in map-reduce), the rule's `eval_fixed(arg<1>, ...)` when it
/// has one (a/b as a·(1/b), the reciprocal then hoisted out of the loop).
template <std::size_t I, evaluation How, std::size_t Slots, class R, class... Operands, class Literals,
          class T, std::size_t N>
void evaluate(apply<R, Operands...>, const Literals&, const T*, std::array<T, N>& v) {
    if constexpr (How == evaluation::fused) {
        const auto r = R::eval_with_partials(operand_value<Operands>::get(v)...);
        v[I] = r.value;
        [&]<std::size_t... K>(std::index_sequence<K...>) GRADC_INLINE_LAMBDA {
            (store_partial<slot_of<Slots, K>>(r.partial[K], v), ...);
        }(std::make_index_sequence<sizeof...(Operands)>{});
    } else if constexpr (How == evaluation::fixed &&
                         requires { R::eval_fixed(rules::arg<1>, operand_value<Operands>::get(v)...); }) {
        v[I] = R::eval_fixed(rules::arg<1>, operand_value<Operands>::get(v)...);
    } else if constexpr (How != evaluation::skip) {
        v[I] = R::eval(operand_value<Operands>::get(v)...);
    }
}

/// Node I's rule has `eval_with_partials` for the value type T (rules/rule.hpp).
template <class Node, class T>
inline constexpr bool fusable = false;
template <class R, std::size_t... J, class T>
inline constexpr bool fusable<apply<R, ref<J>...>, T> = rules::fused_rule<R, T>;

/// Partial of node I (a primitive) with respect to its operand K: read from slot Slot
/// when the primal stored it there (a fused node), else computed from the values.
template <std::size_t I, int K, std::size_t Slot, class R, class... Operands, class T, std::size_t N>
auto partial(apply<R, Operands...>, const std::array<T, N>& v) {
    if constexpr (Slot != no_node) {
        return v[Slot];
    } else {
        return R::partial(rules::arg<K>, operand_value<Operands>::get(v)..., v[I]);
    }
}

/// partial * d, for a derivative d that is one value or a vector of them (one per
/// direction of a multi-direction sweep).
template <class P, class D>
D times(const P& partial, const D& d) {
    if constexpr (requires { typename D::value_type; std::tuple_size<D>::value; }) {
        D r;
        for (std::size_t k = 0; k < d.size(); ++k) r[k] = rules::scale(partial, d[k]);
        return r;
    } else {
        return rules::scale(partial, d);
    }
}

template <class D>
void accumulate(D& to, const D& term) {
    if constexpr (requires { std::tuple_size<D>::value; }) {
        for (std::size_t k = 0; k < to.size(); ++k) to[k] += term[k];
    } else {
        to += term;
    }
}

/// d[To] (=|+=) partial * d[From]: one edge of a sweep, To and From being slots.
template <std::size_t To, std::size_t From, bool First, class P, class D, std::size_t N>
void propagate(const P& partial, std::array<D, N>& d) {
    if constexpr (First) {
        d[To] = times(partial, d[From]);
    } else {
        accumulate(d[To], times(partial, d[From]));
    }
}

}  // namespace step

/// Whether every node an operand reads (through tests too) is marked in `marked`.
template <class Operand>
struct reads_only;
template <std::size_t I>
struct reads_only<ref<I>> {
    template <std::size_t N>
    static constexpr bool in(const std::array<bool, N>& marked) {
        return marked[I];
    }
};
template <class Op, class... Operands>
struct reads_only<test<Op, Operands...>> {
    template <std::size_t N>
    static constexpr bool in(const std::array<bool, N>& marked) {
        return (reads_only<Operands>::in(marked) && ...);
    }
};

/// Whether a node is the same for every point when the variables in the bit mask
/// `varying` change from point to point (everything it depends on is fixed).
template <class Node>
struct invariant_node;
template <std::size_t J>
struct invariant_node<input<J>> {
    template <std::size_t N>
    static constexpr bool given(std::uint64_t varying, const std::array<bool, N>&) {
        return ((varying >> J) & 1u) == 0;
    }
};
template <std::size_t L>
struct invariant_node<constant<L>> {
    template <std::size_t N>
    static constexpr bool given(std::uint64_t, const std::array<bool, N>&) {
        return true;
    }
};
template <class R, class... Operands>
struct invariant_node<apply<R, Operands...>> {
    template <std::size_t N>
    static constexpr bool given(std::uint64_t, const std::array<bool, N>& invariant) {
        return (reads_only<Operands>::in(invariant) && ...);
    }
};

/// What the map-reduce split needs to know of a node's operands, apart from the values:
///  - `affine[k]`: the rule is affine in operand k (rules::affine_in), so the partial
///    with respect to k reads only the other operands; `linear[k]`: with no constant term;
///  - `constant_partial[k]`: that partial is the structural 1 or -1 (add, sub, neg);
///  - `reads_only`: whether every node operand k reads is marked (a test reads several).
template <class Operand>
struct probe_type {
    using type = double;  // a ref: a value
};
template <class Op, class... Operands>
struct probe_type<test<Op, Operands...>> {
    using type = bool;  // a test: a condition
};

template <class R, int K, class... Operands>
constexpr bool has_constant_partial() {
    if constexpr (!rules::is_differentiable_operand<R, K>) {
        return false;
    } else {
        using P = decltype(R::partial(rules::arg<K>, std::declval<const typename probe_type<Operands>::type&>()...,
                                      std::declval<const double&>()));
        return std::is_same_v<P, rules::one_t> || std::is_same_v<P, rules::minus_one_t>;
    }
}

struct operand_traits {
    std::array<bool, 3> affine{};
    std::array<bool, 3> linear{};
    std::array<bool, 3> constant_partial{};
};

template <class Node>
struct operand_traits_of {
    static constexpr operand_traits value{};
};
template <class R, class... Operands>
struct operand_traits_of<apply<R, Operands...>> {
    static constexpr operand_traits value = [] {
        operand_traits t;
        [&]<int... K>(std::integer_sequence<int, K...>) {
            ((t.affine[K] = rules::affine_in<R, K> != rules::affinity::none), ...);
            ((t.linear[K] = rules::affine_in<R, K> == rules::affinity::linear), ...);
            ((t.constant_partial[K] = has_constant_partial<R, K, Operands...>()), ...);
        }(std::make_integer_sequence<int, sizeof...(Operands)>{});
        return t;
    }();
};

/// Per operand of a node: whether it reads only nodes marked in `marked`.
template <class Node>
struct operands_read_only {
    template <std::size_t N>
    static constexpr std::array<bool, 3> in(const std::array<bool, N>&) {
        return {true, true, true};
    }
};
template <class R, class... Operands>
struct operands_read_only<apply<R, Operands...>> {
    template <std::size_t N>
    static constexpr std::array<bool, 3> in(const std::array<bool, N>& marked) {
        std::array<bool, 3> r{true, true, true};
        std::size_t k = 0;
        ((r[k++] = reads_only<Operands>::in(marked)), ...);
        return r;
    }
};

template <class Flat, class OutputNodes, class Wrt>
struct program;

template <class Flat, std::size_t... O, std::size_t... J>
struct program<Flat, std::index_sequence<O...>, std::index_sequence<J...>> {
    using nodes = Flat;
    static constexpr std::size_t size = Flat::size;
    static constexpr std::size_t output_count = sizeof...(O);
    static constexpr std::size_t wrt_count = sizeof...(J);
    static constexpr auto desc = descriptions<Flat>;
    static constexpr std::array<std::size_t, output_count> output_nodes{O...};
    static constexpr std::array<std::size_t, wrt_count> wrt_variables{J...};
    static constexpr auto live = find_live(desc, output_nodes, wrt_variables);
    static constexpr std::size_t edge_count = live.edge_count;
    static constexpr auto plan = plan_sweeps<edge_count>(desc, live, output_nodes);
    static constexpr std::size_t edge_slots = edge_count > 0 ? edge_count : 1;

    /// Node of each wrt variable, or no_node when the outputs do not use it.
    static constexpr std::array<std::size_t, wrt_count> wrt_nodes = [] {
        std::array<std::size_t, wrt_count> n{};
        for (std::size_t j = 0; j < wrt_count; ++j) {
            n[j] = no_node;
            for (std::size_t i = 0; i < size; ++i)
                if (desc[i].kind == node_kind::variable && desc[i].variable == wrt_variables[j]) n[j] = i;
        }
        return n;
    }();

    // ---- fused partials ------------------------------------------------------------
    // A live node whose rule has `eval_with_partials` on T is evaluated by it in the
    // primal of a derivative program: the partials of its swept edges are stored after
    // the node values (one slot each) and the sweeps read them there instead of
    // computing them again (sin and cos share one sincos; rules/rule.hpp).

    struct fused_plan {
        std::array<std::size_t, edge_slots> slot{};                  // per edge, or no_node
        std::array<std::size_t, size> node_slots{};                  // per node (step::slot_of)
        std::array<bool, size> fused{};                              // evaluated fused
        std::size_t count = 0;
    };

    template <class T>
    static constexpr fused_plan fused = [] {
        std::array<bool, size> can{};
        [&]<std::size_t... I>(std::index_sequence<I...>) {
            (void)std::initializer_list<int>{(can[I] = step::fusable<typename Flat::template at<I>, T>, 0)...};
        }(std::make_index_sequence<size>{});
        fused_plan p;
        for (std::size_t e = 0; e < edge_count; ++e) {
            const edge& ed = plan.edges[e];
            p.slot[e] = no_node;
            if (!can[ed.node]) continue;
            p.slot[e] = size + p.count++;
            if (p.node_slots[ed.node] == step::no_slots) p.node_slots[ed.node] = p.slot[e] << 3;
            p.node_slots[ed.node] |= std::size_t{1} << ed.operand;
            p.fused[ed.node] = true;
        }
        return p;
    }();

    /// Node values, then the fused partials (none for a type without fused rules).
    template <class T>
    using values = std::array<T, size + fused<T>.count>;
    template <class T>
    using derivatives = std::array<T, live.live_count>;

    // ---- primal ------------------------------------------------------------------

    /// Values of all nodes at x, given the kernel's literal values.
    template <class T, class Literals>
    GRADC_INLINE static void primal(const Literals& literals, const T* x, values<T>& v) {
        [&]<std::size_t... I>(std::index_sequence<I...>) GRADC_INLINE_LAMBDA {
            (void)std::initializer_list<int>{(step::evaluate<I, step::evaluation::plain, step::no_slots>(
                                                  typename Flat::template at<I>{}, literals, x, v),
                                              0)...};
        }(std::make_index_sequence<size>{});
    }

    // ---- linearize -----------------------------------------------------------------

    /// What the sweeps need from the primal: the values and the fused partials; each
    /// sweep computes every other edge's partial once from the values. (A sweep may carry
    /// several directions at once, so a Jacobian computes each partial once in all.)
    template <class T>
    struct linearization {
        const values<T>& v;
    };

    /// The primal of a derivative program: values at x, and the fused partials.
    template <class T, class Literals>
    GRADC_INLINE static linearization<T> linearize(const Literals& literals, const T* x, values<T>& v) {
        [&]<std::size_t... I>(std::index_sequence<I...>) GRADC_INLINE_LAMBDA {
            (void)std::initializer_list<int>{
                (step::evaluate<I, fused<T>.fused[I] ? step::evaluation::fused : step::evaluation::plain,
                                   fused<T>.node_slots[I]>(typename Flat::template at<I>{}, literals, x, v),
                 0)...};
        }(std::make_index_sequence<size>{});
        return {v};
    }

    // ---- map-reduce split ------------------------------------------------------------
    // Σᵢ f(θ, xᵢ) over many points where the variables of the bit mask Varying change and
    // the others (parameters θ) do not. Linearity does most of the work:
    //  - nodes that depend on θ alone (invariant) are evaluated once per call;
    //  - a division by an invariant node is a multiplication by its reciprocal, which the
    //    compiler hoists out of the loop (rules' `eval_fixed`);
    //  - the adjoint is linear in its seeds: an edge whose partial is the same at every
    //    point, into a node whose adjoint is only needed summed, is swept once, on the sum
    //    over all points of the adjoint it carries (a *deferred* edge); the per-point sweep
    //    does the others and sums the adjoints that deferred edges start from (boundary);
    //  - the value: from the output down, an affine operation of one varying operand with
    //    invariant others (`- log σ`, `-0.5 * ...`) is applied once to the sum of that
    //    operand: Σ g(uᵢ) = g(Σuᵢ) + (N-1)·g(0) for affine g; only the frontier node u is
    //    summed per point.

    template <std::uint64_t Varying>
    static constexpr std::array<bool, size> invariant = [] {
        std::array<bool, size> inv{};
        [&]<std::size_t... I>(std::index_sequence<I...>) {
            (void)std::initializer_list<int>{
                (inv[I] = invariant_node<typename Flat::template at<I>>::given(Varying, inv), 0)...};
        }(std::make_index_sequence<size>{});
        return inv;
    }();

    static constexpr std::array<operand_traits, size> traits = [] {
        std::array<operand_traits, size> t{};
        [&]<std::size_t... I>(std::index_sequence<I...>) {
            (void)std::initializer_list<int>{(t[I] = operand_traits_of<typename Flat::template at<I>>::value, 0)...};
        }(std::make_index_sequence<size>{});
        return t;
    }();

    template <std::uint64_t Varying>
    static constexpr std::array<std::array<bool, 3>, size> operand_invariant = [] {
        std::array<std::array<bool, 3>, size> r{};
        [&]<std::size_t... I>(std::index_sequence<I...>) {
            (void)std::initializer_list<int>{
                (r[I] = operands_read_only<typename Flat::template at<I>>::in(invariant<Varying>), 0)...};
        }(std::make_index_sequence<size>{});
        return r;
    }();

    template <std::uint64_t Varying>
    struct split_plan {
        std::array<bool, edge_slots> deferred{};           // swept once, on sums
        std::array<bool, output_count> seed_first{};       // per-point sweep: first writes
        std::array<bool, edge_slots> first{};
        std::array<bool, live.live_count> boundary{};      // slots summed over the points
        std::array<bool, live.live_count> seed_only{};     // boundary slot holding only a seed
        std::array<bool, size> tail{};                     // applied once to the summed frontier
        std::size_t frontier = 0;                          // node whose value is summed per point
        bool tail_offset = false;                          // the tail adds a constant: (N-1)·g(0)
    };

    template <std::uint64_t Varying>
    static constexpr split_plan<Varying> split = [] {
        constexpr auto& inv = invariant<Varying>;
        constexpr auto& oinv = operand_invariant<Varying>;
        split_plan<Varying> p;
        // An edge's partial is the same at every point: its node is invariant, or the
        // partial is a structural ±1, or the rule is affine in that operand and every
        // other operand is invariant.
        auto partial_invariant = [&](const edge& e) {
            if (inv[e.node]) return true;
            const operand_traits& t = traits[e.node];
            if (t.constant_partial[e.operand]) return true;
            if (!t.affine[e.operand]) return false;
            for (std::size_t k = 0; k < desc[e.node].arity; ++k)
                if (k != e.operand && !oinv[e.node][k]) return false;
            return true;
        };
        // A node's adjoint is only needed summed when it is invariant or all the edges to
        // its operands are deferred; nodes come after their operands, so one pass.
        std::array<bool, size> sum_only{};
        std::size_t e = 0;
        for (std::size_t i = 0; i < size; ++i) {
            bool all_deferred = true;
            for (; e < edge_count && plan.edges[e].node == i; ++e) {
                p.deferred[e] = partial_invariant(plan.edges[e]) && sum_only[plan.edges[e].child];
                all_deferred = all_deferred && p.deferred[e];
            }
            sum_only[i] = inv[i] || (desc[i].kind == node_kind::primitive && all_deferred);
        }
        // The per-point sweep: the output seeds, then the other edges backwards.
        std::array<bool, size> written{}, by_edge{};
        for (std::size_t m = 0; m < output_count; ++m) {
            const std::size_t n = output_nodes[m];
            if (!live.live[n]) continue;
            p.seed_first[m] = !written[n];
            written[n] = true;
        }
        std::array<bool, size> has_deferred{};
        for (std::size_t r = edge_count; r-- > 0;) {
            const edge& ed = plan.edges[r];
            if (p.deferred[r]) {
                has_deferred[ed.node] = true;
                continue;
            }
            p.first[r] = !written[ed.child];
            written[ed.child] = true;
            by_edge[ed.child] = true;
        }
        for (std::size_t i = 0; i < size; ++i) {
            if (!live.live[i] || !written[i] || !(sum_only[i] || has_deferred[i])) continue;
            p.boundary[live.slot[i]] = true;
            p.seed_only[live.slot[i]] = !by_edge[i];
        }
        // The value: follow the output down through affine operations of one varying
        // operand (the others invariant).
        std::size_t n = output_nodes[0];
        while (!inv[n] && desc[n].kind == node_kind::primitive) {
            std::size_t next = no_node;
            bool others_invariant = true;
            for (std::size_t k = 0; k < desc[n].arity; ++k) {
                if (oinv[n][k]) continue;
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

    template <std::uint64_t Varying, part Part, class T>
    static constexpr std::array<step::evaluation, size> split_evaluation = [] {
        std::array<step::evaluation, size> how{};
        for (std::size_t i = 0; i < size; ++i) {
            const bool inv = invariant<Varying>[i];
            how[i] = step::evaluation::skip;
            if (Part == part::invariant && inv) how[i] = step::evaluation::plain;
            if (Part == part::tail && split<Varying>.tail[i]) how[i] = step::evaluation::plain;
            if (Part == part::varying && !inv) {
                how[i] = step::evaluation::plain;
                if (fused<T>.fused[i]) {
                    how[i] = step::evaluation::fused;
                } else if (desc[i].kind == node_kind::primitive && desc[i].arity == 2 &&
                           operand_invariant<Varying>[i][1] && !operand_invariant<Varying>[i][0]) {
                    how[i] = step::evaluation::fixed;
                }
            }
        }
        return how;
    }();

    template <std::uint64_t Varying, part Part, class T, class Literals>
    GRADC_INLINE static void primal_part(const Literals& literals, const T* x, values<T>& v) {
        [&]<std::size_t... I>(std::index_sequence<I...>) GRADC_INLINE_LAMBDA {
            (void)std::initializer_list<int>{
                (step::evaluate<I, split_evaluation<Varying, Part, T>[I],
                                split_evaluation<Varying, Part, T>[I] == step::evaluation::fused ? fused<T>.node_slots[I]
                                                                                                : step::no_slots>(
                     typename Flat::template at<I>{}, literals, x, v),
                 0)...};
        }(std::make_index_sequence<size>{});
    }

    /// The invariant nodes' values (once per call).
    template <std::uint64_t Varying, class T, class Literals>
    GRADC_INLINE static void primal_invariant(const Literals& literals, const T* x, values<T>& v) {
        primal_part<Varying, part::invariant>(literals, x, v);
    }

    /// The varying nodes' values and fused partials (per point), after primal_invariant
    /// filled the rest.
    template <std::uint64_t Varying, class T, class Literals>
    GRADC_INLINE static linearization<T> primal_varying(const Literals& literals, const T* x, values<T>& v) {
        primal_part<Varying, part::varying>(literals, x, v);
        return {v};
    }

    /// The value's tail (once): the nodes between the summed frontier and the output.
    template <std::uint64_t Varying, class T, class Literals>
    static void primal_tail(const Literals& literals, const T* x, values<T>& v) {
        primal_part<Varying, part::tail>(literals, x, v);
    }

    /// Per point: seeds, then the edges not deferred; the boundary slots of `a` then hold
    /// this point's adjoints to be summed (the other slots are scratch).
    template <std::uint64_t Varying, class T>
    GRADC_INLINE static void adjoint_varying(const linearization<T>& lin, const T* w, derivatives<T>& a) {
        [&]<std::size_t... m>(std::index_sequence<m...>) GRADC_INLINE_LAMBDA {
            (void)std::initializer_list<int>{(split_seed<Varying, m>(w, a), 0)...};
        }(std::make_index_sequence<output_count>{});
        [&]<std::size_t... r>(std::index_sequence<r...>) GRADC_INLINE_LAMBDA {
            constexpr std::size_t last = edge_count - 1;
            (void)std::initializer_list<int>{(split_step<Varying, last - r>(lin, a), 0)...};
        }(std::make_index_sequence<edge_count>{});
    }

    /// Once: the deferred edges, from the summed boundary adjoints (zero elsewhere), with
    /// partials from the invariant values.
    template <std::uint64_t Varying, class T>
    static void adjoint_once(const linearization<T>& lin, derivatives<T> a, T* grad) {
        [&]<std::size_t... r>(std::index_sequence<r...>) {
            constexpr std::size_t last = edge_count - 1;
            (void)std::initializer_list<int>{(deferred_step<Varying, last - r>(lin, a), 0)...};
        }(std::make_index_sequence<edge_count>{});
        [&]<std::size_t... j>(std::index_sequence<j...>) {
            ((grad[j] = derivative_or_zero<wrt_nodes[j]>(a)), ...);
        }(std::make_index_sequence<wrt_count>{});
    }

    template <std::uint64_t Varying, std::size_t m, class T>
    GRADC_INLINE static void split_seed(const T* w, derivatives<T>& a) {
        constexpr std::size_t node = output_nodes[m];
        if constexpr (live.live[node]) {
            if constexpr (split<Varying>.seed_first[m]) {
                a[live.slot[node]] = w[m];
            } else {
                a[live.slot[node]] += w[m];
            }
        }
    }

    template <std::uint64_t Varying, std::size_t e, class T>
    GRADC_INLINE static void split_step(const linearization<T>& lin, derivatives<T>& a) {
        constexpr edge ed = plan.edges[e];
        if constexpr (!split<Varying>.deferred[e]) {
            step::propagate<live.slot[ed.child], live.slot[ed.node], split<Varying>.first[e]>(
                step::partial<ed.node, static_cast<int>(ed.operand), fused<T>.slot[e]>(
                    typename Flat::template at<ed.node>{}, lin.v),
                a);
        }
    }

    template <std::uint64_t Varying, std::size_t e, class T>
    static void deferred_step(const linearization<T>& lin, derivatives<T>& a) {
        constexpr edge ed = plan.edges[e];
        if constexpr (split<Varying>.deferred[e]) {
            step::propagate<live.slot[ed.child], live.slot[ed.node], false>(
                step::partial<ed.node, static_cast<int>(ed.operand), no_node>(typename Flat::template at<ed.node>{},
                                                                                     lin.v),
                a);
        }
    }

    // ---- tangent (forward) sweep -----------------------------------------------------

    /// Output tangents `out[m]` for input tangents `dx[j]` (one per wrt variable).
    /// D is T, or std::array<T, K> to sweep K directions at once.
    template <class T, class D>
    GRADC_INLINE static void tangent(const linearization<T>& lin, const D* dx, D* out) {
        std::array<D, live.live_count> t;
        [&]<std::size_t... j>(std::index_sequence<j...>) GRADC_INLINE_LAMBDA {
            (load_tangent<j>(dx, t), ...);
        }(std::make_index_sequence<wrt_count>{});
        [&]<std::size_t... e>(std::index_sequence<e...>) GRADC_INLINE_LAMBDA {
            (void)std::initializer_list<int>{
                (step::propagate<live.slot[plan.edges[e].node], live.slot[plan.edges[e].child],
                                 plan.edges[e].tangent_first>(
                     step::partial<plan.edges[e].node, static_cast<int>(plan.edges[e].operand), fused<T>.slot[e]>(
                         typename Flat::template at<plan.edges[e].node>{}, lin.v),
                     t),
                 0)...};
        }(std::make_index_sequence<edge_count>{});
        [&]<std::size_t... m>(std::index_sequence<m...>) GRADC_INLINE_LAMBDA {
            ((out[m] = derivative_or_zero<output_nodes[m]>(t)), ...);
        }(std::make_index_sequence<output_count>{});
    }

    template <std::size_t j, class D>
    GRADC_INLINE static void load_tangent(const D* dx, std::array<D, live.live_count>& t) {
        if constexpr (is_live(wrt_nodes[j])) t[live.slot[wrt_nodes[j]]] = dx[j];
    }

    static constexpr bool is_live(std::size_t node) { return node != no_node && live.live[node]; }

    /// The tangent or adjoint of a node, or 0 for a node that carries none.
    template <std::size_t node, class D>
    GRADC_INLINE static D derivative_or_zero(const std::array<D, live.live_count>& d) {
        if constexpr (is_live(node)) {
            return d[live.slot[node]];
        } else {
            return zero<D>();
        }
    }

    template <class D>
    static D zero() {
        if constexpr (requires { std::tuple_size<D>::value; }) {
            D z;
            z.fill(zero<typename D::value_type>());
            return z;
        } else {
            return D(rules::scalar_t<D>(0));
        }
    }

    // ---- adjoint (reverse) sweep -----------------------------------------------------

    /// Input adjoints `grad[j]` (one per wrt variable) for output weights `w[m]`.
    /// D is T, or std::array<T, K> to sweep K weight vectors at once.
    template <class T, class D>
    GRADC_INLINE static void adjoint(const linearization<T>& lin, const D* w, D* grad) {
        std::array<D, live.live_count> a;
        [&]<std::size_t... m>(std::index_sequence<m...>) GRADC_INLINE_LAMBDA {
            (seed<m>(w, a), ...);
        }(std::make_index_sequence<output_count>{});
        [&]<std::size_t... r>(std::index_sequence<r...>) GRADC_INLINE_LAMBDA {
            constexpr std::size_t last = edge_count - 1;
            (void)std::initializer_list<int>{
                (step::propagate<live.slot[plan.edges[last - r].child], live.slot[plan.edges[last - r].node],
                                 plan.edges[last - r].adjoint_first>(
                     step::partial<plan.edges[last - r].node, static_cast<int>(plan.edges[last - r].operand),
                                        fused<T>.slot[last - r]>(typename Flat::template at<plan.edges[last - r].node>{},
                                                                 lin.v),
                     a),
                 0)...};
        }(std::make_index_sequence<edge_count>{});
        [&]<std::size_t... j>(std::index_sequence<j...>) GRADC_INLINE_LAMBDA {
            ((grad[j] = derivative_or_zero<wrt_nodes[j]>(a)), ...);
        }(std::make_index_sequence<wrt_count>{});
    }

    template <std::size_t m, class D>
    GRADC_INLINE static void seed(const D* w, std::array<D, live.live_count>& a) {
        constexpr std::size_t node = output_nodes[m];
        if constexpr (live.live[node]) {
            if constexpr (plan.seed_first[m]) {
                a[live.slot[node]] = w[m];
            } else {
                step::accumulate(a[live.slot[node]], w[m]);
            }
        }
    }
};

}  // namespace gradc::lower
