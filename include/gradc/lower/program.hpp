#pragma once
/// Step 4 of lowering: the straight-line programs, generic in the value type T.
///
///  - `primal`: every node's value, in order, into a fixed array (one slot per node);
///  - `tangent`: forward sweep over the edges (JVP), from input tangents to outputs;
///  - `adjoint`: backward sweep over the edges (VJP), from output weights to inputs.
/// Each sweep computes an edge's local partial from the values where it needs it, and
/// may carry several directions at once (a Jacobian is one sweep).
/// Every index is a compile-time constant: the code is a pack expansion over the node
/// and edge lists (in a braced list, which orders it and has no nesting limit), with no loop, branch on structure, tape, heap or virtual call left
/// at run time. Run on double, float, xsimd batches or any type the rules accept.

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>

#include <initializer_list>
#include <tuple>

#include <gradc/lower/activity.hpp>
#include <gradc/lower/flat.hpp>
#include <gradc/rules/partial.hpp>
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

template <std::size_t I, std::size_t K, class Literals, class T, std::size_t N>
void evaluate(input<K>, const Literals&, const T* x, std::array<T, N>& v) {
    v[I] = x[K];
}

template <std::size_t I, std::size_t L, class Literals, class T, std::size_t N>
void evaluate(constant<L>, const Literals& literals, const T*, std::array<T, N>& v) {
    v[I] = T(rules::scalar_t<T>(literals[L]));
}

template <std::size_t I, class R, class... Operands, class Literals, class T, std::size_t N>
void evaluate(apply<R, Operands...>, const Literals&, const T*, std::array<T, N>& v) {
    v[I] = R::eval(operand_value<Operands>::get(v)...);
}

/// Evaluates node I only when Do (the varying part of a split primal).
template <std::size_t I, bool Do, class Node, class Literals, class T, std::size_t N>
GRADC_INLINE void evaluate_when(Node node, const Literals& literals, const T* x, std::array<T, N>& v) {
    if constexpr (Do) evaluate<I>(node, literals, x, v);
}

/// Partial of node I (a primitive) with respect to its operand K.
template <std::size_t I, int K, class R, class... Operands, class T, std::size_t N>
auto partial(apply<R, Operands...>, const std::array<T, N>& v) {
    return R::partial(rules::arg<K>, operand_value<Operands>::get(v)..., v[I]);
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

    template <class T>
    using values = std::array<T, size>;
    template <class T>
    using derivatives = std::array<T, live.live_count>;

    // ---- primal ------------------------------------------------------------------

    /// Values of all nodes at x, given the kernel's literal values.
    template <class T, class Literals>
    GRADC_INLINE static void primal(const Literals& literals, const T* x, values<T>& v) {
        [&]<std::size_t... I>(std::index_sequence<I...>) GRADC_INLINE_LAMBDA {
            (void)std::initializer_list<int>{(step::evaluate<I>(typename Flat::template at<I>{}, literals, x, v), 0)...};
        }(std::make_index_sequence<size>{});
    }

    // ---- linearize -----------------------------------------------------------------

    /// What the sweeps need from the primal: the values; each sweep computes every
    /// edge's partial once from them. (A sweep may carry several directions at once, so
    /// a Jacobian computes each partial once in all.)
    template <class T>
    struct linearization {
        const values<T>& v;
    };

    template <class T>
    static linearization<T> linearize(const values<T>& v) {
        return {v};
    }

    // ---- map-reduce split ------------------------------------------------------------
    // Over many points where the variables of the bit mask Varying change and the others
    // (parameters) do not: evaluate the invariant nodes once, the varying ones per point;
    // sweep the varying edges per point, sum the adjoints that reach invariant nodes, and
    // sweep the invariant edges once on those sums (the adjoint is linear in its seeds).

    template <std::uint64_t Varying>
    static constexpr std::array<bool, size> invariant = [] {
        std::array<bool, size> inv{};
        [&]<std::size_t... I>(std::index_sequence<I...>) {
            (void)std::initializer_list<int>{
                (inv[I] = invariant_node<typename Flat::template at<I>>::given(Varying, inv), 0)...};
        }(std::make_index_sequence<size>{});
        return inv;
    }();

    /// First writes of the per-point sweep, and the slots it leaves an adjoint in that
    /// belong to invariant nodes (the boundary whose sums the invariant sweep starts from).
    template <std::uint64_t Varying>
    struct split_plan {
        std::array<bool, output_count> seed_first{};
        std::array<bool, (edge_count > 0 ? edge_count : 1)> first{};
        std::array<bool, live.live_count> boundary{};
    };

    template <std::uint64_t Varying>
    static constexpr split_plan<Varying> split = [] {
        split_plan<Varying> p;
        std::array<bool, size> written{};
        for (std::size_t m = 0; m < output_count; ++m) {
            const std::size_t n = output_nodes[m];
            if (!live.live[n]) continue;
            p.seed_first[m] = !written[n];
            written[n] = true;
        }
        for (std::size_t r = edge_count; r-- > 0;) {
            const edge& e = plan.edges[r];
            if (invariant<Varying>[e.node]) continue;
            p.first[r] = !written[e.child];
            written[e.child] = true;
        }
        for (std::size_t i = 0; i < size; ++i)
            if (live.live[i] && written[i] && invariant<Varying>[i]) p.boundary[live.slot[i]] = true;
        return p;
    }();

    /// The invariant nodes' values (once per call).
    template <std::uint64_t Varying, class T, class Literals>
    GRADC_INLINE static void primal_invariant(const Literals& literals, const T* x, values<T>& v) {
        [&]<std::size_t... I>(std::index_sequence<I...>) GRADC_INLINE_LAMBDA {
            (void)std::initializer_list<int>{
                (step::evaluate_when<I, invariant<Varying>[I]>(typename Flat::template at<I>{}, literals, x, v), 0)...};
        }(std::make_index_sequence<size>{});
    }

    /// The varying nodes' values (per point), after primal_invariant filled the rest.
    template <std::uint64_t Varying, class T, class Literals>
    GRADC_INLINE static void primal_varying(const Literals& literals, const T* x, values<T>& v) {
        [&]<std::size_t... I>(std::index_sequence<I...>) GRADC_INLINE_LAMBDA {
            (void)std::initializer_list<int>{
                (step::evaluate_when<I, !invariant<Varying>[I]>(typename Flat::template at<I>{}, literals, x, v), 0)...};
        }(std::make_index_sequence<size>{});
    }

    /// Per point: seeds, then the varying edges; the boundary slots of `a` then hold this
    /// point's adjoints of the invariant nodes (the other slots are scratch).
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

    /// Once: the invariant edges, from the summed boundary adjoints (zero elsewhere).
    template <std::uint64_t Varying, class T>
    static void adjoint_invariant(const linearization<T>& lin, derivatives<T> a, T* grad) {
        [&]<std::size_t... r>(std::index_sequence<r...>) {
            constexpr std::size_t last = edge_count - 1;
            (void)std::initializer_list<int>{(invariant_step<Varying, last - r>(lin, a), 0)...};
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
        if constexpr (!invariant<Varying>[ed.node]) {
            step::propagate<live.slot[ed.child], live.slot[ed.node], split<Varying>.first[e]>(
                step::partial<ed.node, static_cast<int>(ed.operand)>(typename Flat::template at<ed.node>{}, lin.v), a);
        }
    }

    template <std::uint64_t Varying, std::size_t e, class T>
    static void invariant_step(const linearization<T>& lin, derivatives<T>& a) {
        constexpr edge ed = plan.edges[e];
        if constexpr (invariant<Varying>[ed.node]) {
            step::propagate<live.slot[ed.child], live.slot[ed.node], false>(
                step::partial<ed.node, static_cast<int>(ed.operand)>(typename Flat::template at<ed.node>{}, lin.v), a);
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
                     step::partial<plan.edges[e].node, static_cast<int>(plan.edges[e].operand)>(
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
                     step::partial<plan.edges[last - r].node, static_cast<int>(plan.edges[last - r].operand)>(
                         typename Flat::template at<plan.edges[last - r].node>{}, lin.v),
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
