#pragma once
/// \file
/// A program's batch form for calls that broadcast some variables (`gradc::broadcast(x)`:
/// one value for every point). The nodes that read only broadcast variables and literals
/// (invariant nodes, lower/map_reduce_nodes.hpp) have the same value at every point:
/// `prepare` evaluates them once per call, with the partials of their edges, and the loop
/// over points starts each batch from those values and evaluates the other nodes. Note
/// [Hoisted broadcast work]:
///  - What is computed once is what each lane computed before, on the same operands: every
///    result is the one the call gives with the broadcast value copied into a span (to
///    the rounding of contractions, which differ between any two instantiations).
///  - Each batch copies in the invariant primitives and inputs, and the partials stored
///    for their edges (copies the compiler drops where nothing reads them, and keeps in
///    registers across the loop where it can); literals are evaluated per batch as
///    before, since a splat of a constant costs what a copy would.
///  - A partial is stored only where the rule returns a value of the lane type; the
///    structural partials (1, -1, a gate: rules/partial.hpp) are cheaper applied than
///    loaded.
///  - Only programs of one piece are hoisted (lower/program.hpp, `piece_threshold`): a
///    program of several pieces runs as it did.
/// The derivative sweeps are the program's, with the invariant nodes' edges reading their
/// stored partials (as fused partials are read, lower/steps.hpp `apply_edge`).

#include <array>
#include <cstddef>
#include <initializer_list>
#include <type_traits>
#include <utility>

#include <gradc/lower/map_reduce_nodes.hpp>
#include <gradc/lower/program.hpp>

namespace gradc::lower {

/// The type an operand has on lanes T: T for a node, the condition's type for a test.
template <class Operand, class T>
using operand_on = std::remove_cvref_t<decltype(operand_value<Operand>::get(std::declval<const std::array<T, 1>&>()))>;

/// Whether a rule's partial with respect to operand K is a value of type T (not one of
/// the structural forms), so that it can be stored in a slot.
template <class R, int K, class T, class... Operands>
constexpr bool partial_is_value() {
    if constexpr (!rules::is_differentiable_operand<R, K>) {
        return false;
    } else {
        using P = decltype(R::partial(rules::arg<K>, std::declval<const operand_on<Operands, T>&>()...,
                                      std::declval<const T&>()));
        return std::is_same_v<std::remove_cvref_t<P>, T>;
    }
}

/// Per operand of a node: whether its partial on T can be stored.
template <class Node, class T>
inline constexpr std::array<bool, 3> storable_partials{};
template <class R, class... Operands, class T>
inline constexpr std::array<bool, 3> storable_partials<apply<R, Operands...>, T> = [] {
    std::array<bool, 3> s{};
    [&]<int... K>(std::integer_sequence<int, K...>) {
        ((s[K] = partial_is_value<R, K, T, Operands...>()), ...);
    }(std::make_integer_sequence<int, sizeof...(Operands)>{});
    return s;
}();

template <class T, class... Nodes>
constexpr std::array<std::array<bool, 3>, sizeof...(Nodes)> storable_partials_of(flat<Nodes...>) {
    return {storable_partials<Nodes, T>...};
}

namespace step {

/// Node I's partial with respect to operand K into v[Slot] (nothing when Slot is no_node).
template <std::size_t I, int K, std::size_t Slot, class R, class... Operands, class T, std::size_t N>
inline void store_partial_of(std::array<T, N>& v) {
    if constexpr (Slot != no_node) v[Slot] = R::partial(rules::arg<K>, operand_value<Operands>::get(v)..., v[I]);
}

/// The partials of node I that `Slots` gives a slot (an input or a literal has none).
template <std::size_t I, partial_slots Slots, class Node, class T, std::size_t N>
inline void store_partials(Node, std::array<T, N>&) {}
template <std::size_t I, partial_slots Slots, class R, class... Operands, class T, std::size_t N>
inline void store_partials(apply<R, Operands...>, std::array<T, N>& v) {
    [&]<int... K>(std::integer_sequence<int, K...>) {
        (store_partial_of<I, K, Slots.slot[K], R, Operands...>(v), ...);
    }(std::make_integer_sequence<int, sizeof...(Operands)>{});
}

}  // namespace step

/// Program P run with the variables Mask does not mark varying broadcast.
template <class P, auto Mask>
struct hoisted_program {
    using nodes = typename P::nodes;
    static constexpr std::size_t size = P::size;
    static constexpr std::array<bool, size> invariant = invariant_nodes<Mask>(nodes{});

    /// Whether there is work to hoist: an invariant primitive, in a program of one piece.
    static constexpr bool pays = [] {
        if (P::pieces != 1) return false;
        for (std::size_t i = 0; i < size; ++i)
            if (invariant[i] && P::desc[i].kind == node_kind::primitive) return true;
        return false;
    }();

    /// Per edge, where its partial is read from: the fused slot, the slot `prepare`
    /// stores an invariant node's partial in, or no_node (computed by the sweep).
    struct partial_plan {
        std::array<std::size_t, P::edge_count> slot{};
        std::array<step::partial_slots, size> node_slots{};  // the stored ones, per node
        std::size_t count = 0;
    };
    template <class T>
    static constexpr partial_plan partials = [] {
        constexpr auto& fused = P::template fused<T>;
        constexpr auto storable = storable_partials_of<T>(nodes{});
        partial_plan p;
        // Every entry written: node_slots[I] is a template argument (lower/steps.hpp,
        // `edge_step`, says why).
        for (step::partial_slots& n : p.node_slots) n.slot = {no_node, no_node, no_node};
        for (std::size_t e = 0; e < P::edge_count; ++e) {
            const edge& ed = P::plan.edges[e];
            p.slot[e] = fused.slot[e];
            if (p.slot[e] != no_node || !invariant[ed.node] || !storable[ed.node][ed.operand]) continue;
            p.slot[e] = size + fused.count + p.count++;
            p.node_slots[ed.node].slot[ed.operand] = p.slot[e];
        }
        return p;
    }();

    /// Node values, the fused partials, then the stored partials.
    template <class T>
    using values = std::array<T, size + P::template fused<T>.count + partials<T>.count>;

    /// The slots each batch takes from `prepare`: invariant primitives and inputs, and
    /// in a derivative program the partials of invariant nodes (fused or stored).
    template <class T, bool Derivative>
    static constexpr auto carried = [] {
        constexpr auto& fused = P::template fused<T>;
        std::array<std::size_t, size + fused.count + partials<T>.count> c{};
        std::size_t k = 0;
        for (std::size_t i = 0; i < size; ++i) {
            if (!invariant[i]) continue;
            if (P::desc[i].kind == node_kind::primitive || P::desc[i].kind == node_kind::variable) c[k++] = i;
            if (Derivative && fused.fused[i])
                for (const std::size_t s : fused.node_slots[i].slot)
                    if (s != no_node) c[k++] = s;
        }
        if (Derivative)
            for (std::size_t s = 0; s < partials<T>.count; ++s) c[k++] = size + fused.count + s;
        return std::pair{c, k};
    }();

    /// How each node is evaluated: once per call (Once) or per batch; fused in a
    /// derivative program where P fuses it. Literals are evaluated per batch, not carried.
    template <class T, bool Once, bool Derivative>
    static constexpr std::array<step::evaluation, size> evaluation = [] {
        std::array<step::evaluation, size> how{};
        for (std::size_t i = 0; i < size; ++i) {
            const bool literal = P::desc[i].kind != node_kind::primitive && P::desc[i].kind != node_kind::variable;
            const bool here = Once ? invariant[i] : !invariant[i] || literal;
            how[i] = !here                                               ? step::evaluation::skip
                     : Derivative && P::template fused<T>.fused[i] ? step::evaluation::fused
                                                                   : step::evaluation::plain;
        }
        return how;
    }();

    /// Once per call: the invariant nodes' values at x (whose varying entries are not
    /// read), and for a derivative program their partials.
    template <bool Derivative, class T, class Literals>
    GRADC_ALWAYS_INLINE inline static void prepare(const Literals& literals, const T* x, values<T>& v) {
        P::template evaluate_by<evaluation<T, true, Derivative>>(literals, x, v);
        if constexpr (Derivative) {
            [&]<class... N, std::size_t... I>(flat<N...>, std::index_sequence<I...>) GRADC_ALWAYS_INLINE {
                (void)std::initializer_list<int>{(step::store_partials<I, partials<T>.node_slots[I]>(N{}, v), 0)...};
            }(nodes{}, std::make_index_sequence<size>{});
        }
    }

    /// Per batch: what `prepare` computed (`once`), then the other nodes at x.
    template <bool Derivative, class T, class Literals>
    GRADC_ALWAYS_INLINE inline static void evaluate(const Literals& literals, const T* x, const values<T>& once, values<T>& v) {
        constexpr auto& c = carried<T, Derivative>;
        [&]<std::size_t... k>(std::index_sequence<k...>) GRADC_ALWAYS_INLINE {
            (void)std::initializer_list<int>{((v[c.first[k]] = once[c.first[k]]), 0)...};
        }(std::make_index_sequence<c.second>{});
        P::template evaluate_by<evaluation<T, false, Derivative>>(literals, x, v);
    }

    // ---- the sweeps: P's, reading the stored partials ------------------------------

    template <class T>
    static constexpr auto tangent_sweep = describe_sweep<size>(false, P::plan.edges, P::all_edges, P::edge_tangent_first,
                                                               partials<T>.slot, P::live.slot, P::desc, P::activity);
    template <class T>
    static constexpr auto adjoint_sweep = describe_sweep<size>(true, P::plan.edges, P::all_edges, P::edge_adjoint_first,
                                                               partials<T>.slot, P::live.slot, P::desc, P::activity);
    template <class T>
    static constexpr auto copy_adjoint_sweep =
        with_copies(describe_sweep<size>(true, P::plan.edges, P::all_edges, P::copy_writes.edge_first, partials<T>.slot,
                                         P::live.slot, P::desc, P::activity),
                    P::copies, P::live.slot, P::copies.member);

    /// Output tangents `out[m]` for input tangents `dx[j]`, at the values v.
    template <class T, class D>
    GRADC_ALWAYS_INLINE inline static void tangent(const values<T>& v, const D* dx, D* out) {
        P::template tangent_by<tangent_sweep<T>>(v, dx, out);
    }

    /// Input adjoints `grad[j]` for output weights `w[m]`, at the values v; `forward` is
    /// the kernel's forward table of copies (P::forward_of).
    template <class T, class D>
    GRADC_ALWAYS_INLINE inline static void adjoint(const values<T>& v, const std::size_t* forward, const D* w, D* grad) {
        if constexpr (P::copies.count > 0) {
            if (forward != nullptr) return P::template sweep_back_by<copy_adjoint_sweep<T>, true>(v, forward, w, grad);
        }
        P::template sweep_back_by<adjoint_sweep<T>, false>(v, forward, w, grad);
    }
};

}  // namespace gradc::lower
