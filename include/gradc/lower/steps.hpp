#pragma once
/// \file
/// The steps the lowered programs are made of: evaluating one node, and applying one
/// edge (its local partial times a derivative) to a derivative slot. Every program
/// (primal, tangent, adjoint, and the map-reduce parts) is a pack expansion of these over
/// the nodes.
///
/// Each step is a free function templated on one flat node (a short type such as
/// `apply<rules::mul, ref<3>, ref<5>>`) and on numbers: its name stays short, so the
/// compilers' cost of naming it does not grow with the kernel (expr/pack.hpp says why).

#include <array>
#include <bit>
#include <cstddef>
#include <initializer_list>
#include <tuple>
#include <utility>

#include <gradc/always_inline.hpp>
#include <gradc/lower/describe.hpp>
#include <gradc/lower/flat.hpp>
#include <gradc/rules/dual.hpp>
#include <gradc/rules/partial.hpp>
#include <gradc/rules/rule.hpp>
#include <gradc/rules/value_traits.hpp>


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

namespace step {

/// How a node is evaluated in a primal: its rule's `eval` (plain); its
/// `eval_with_partials`, storing the partials too (fused); its `eval_fixed` for an
/// operand that is the same at every point (fixed); or not at all (skip).
enum class evaluation { plain, fused, fixed, skip };

/// Where a fused node's partials go: `slot[k]` for operand k, or no_node when that
/// partial is not stored.
struct partial_slots {
    std::array<std::size_t, 3> slot{no_node, no_node, no_node};
};

/// Which operands of a node carry tangents, for a program run on dual numbers
/// (rules/dual.hpp): an operand that depends on no wrt variable has zero tangents, and
/// its terms are skipped. Every other value type ignores it.
struct operand_activity {
    std::array<bool, 3> carries{true, true, true};
};

template <std::size_t I, evaluation How, partial_slots Slots, operand_activity Active = operand_activity{},
          std::size_t J, class Literals, class T, std::size_t N>
inline void evaluate(input<J>, const Literals&, const T* x, std::array<T, N>& v) {
    if constexpr (How != evaluation::skip) v[I] = x[J];
}

template <std::size_t I, evaluation How, partial_slots Slots, operand_activity Active = operand_activity{},
          std::size_t L, class Literals, class T, std::size_t N>
inline void evaluate(constant<L>, const Literals& literals, const T*, std::array<T, N>& v) {
    if constexpr (How != evaluation::skip) v[I] = T(rules::scalar_t<T>(literals[L]));
}

template <std::size_t Slot, class T, std::size_t N>
inline void store_partial(const T& p, std::array<T, N>& v) {
    if constexpr (Slot != no_node) v[Slot] = p;
}

template <std::size_t I, evaluation How, partial_slots Slots, operand_activity Active = operand_activity{},
          class Tag, class Literals, class T, std::size_t N>
inline void evaluate(named<Tag>, const Literals&, const T*, std::array<T, N>& v) {
    if constexpr (How != evaluation::skip) v[I] = T(rules::scalar_t<T>(graphs::named_value<Tag>()));
}

/// A primitive: fused, the value into v[I] and the partial with respect to operand k
/// into Slots.slot[k] for every swept operand (the others are dropped); fixed (operand 1
/// the same at every point, in map-reduce), the rule's `eval_fixed(arg<1>, ...)` when it
/// has one (a/b as a·(1/b), the reciprocal then hoisted out of the loop). Always inline:
/// each instance is one node of one program, and left to g++'s limits a program with
/// several tanh or erfc nodes called the last of them out of line at every point (and
/// the dual ones of an HVP, whose [[gnu::flatten]] did not reach them).
template <std::size_t I, evaluation How, partial_slots Slots, operand_activity Active = operand_activity{}, class R,
          class... Operands, class Literals, class T, std::size_t N>
GRADC_ALWAYS_INLINE inline void evaluate(apply<R, Operands...>, const Literals&, const T*, std::array<T, N>& v) {
    if constexpr (How == evaluation::fused) {
        const auto r = R::eval_with_partials(operand_value<Operands>::get(v)...);
        v[I] = r.value;
        [&]<std::size_t... K>(std::index_sequence<K...>) {
            (store_partial<Slots.slot[K]>(r.partial[K], v), ...);
        }(std::make_index_sequence<sizeof...(Operands)>{});
    } else if constexpr (How == evaluation::fixed &&
                         requires { R::eval_fixed(rules::arg<1>, operand_value<Operands>::get(v)...); }) {
        v[I] = R::eval_fixed(rules::arg<1>, operand_value<Operands>::get(v)...);
    } else if constexpr (How != evaluation::skip) {
        if constexpr (dual_numbers::is_dual<T> && R::arity == 1) {
            // On dual numbers: the rule's value and partials (rules/dual.hpp says why).
            v[I] = dual_numbers::apply_rule<R, Active.carries[0]>(operand_value<Operands>::get(v)...);
        } else if constexpr (dual_numbers::is_dual<T> && R::arity == 2) {
            v[I] = dual_numbers::apply_rule<R, Active.carries[0], Active.carries[1]>(operand_value<Operands>::get(v)...);
        } else {
            v[I] = R::eval(operand_value<Operands>::get(v)...);
        }
    }
}

/// The node's rule has `eval_with_partials` for the value type T (rules/rule.hpp).
template <class Node, class T>
inline constexpr bool fusable = false;
template <class R, std::size_t... J, class T>
inline constexpr bool fusable<apply<R, ref<J>...>, T> = rules::fused_rule<R, T>;

/// The values of dual numbers, seen as an array of values (for `operand_value`).
template <class Duals>
struct values_of_duals {
    const Duals& v;
    const auto& operator[](std::size_t i) const { return v[i].value; }
};

/// partial * d, for a derivative d that is one value or a vector of them (one per
/// direction of a multi-direction sweep).
template <class P, class D>
inline D times(const P& partial, const D& d) {
    if constexpr (requires { typename D::value_type; std::tuple_size<D>::value; }) {
        D r;
        for (std::size_t k = 0; k < d.size(); ++k) r[k] = rules::scale(partial, d[k]);
        return r;
    } else {
        return rules::scale(partial, d);
    }
}

template <class D>
inline void accumulate(D& to, const D& term) {
    if constexpr (requires { std::tuple_size<D>::value; }) {
        for (std::size_t k = 0; k < to.size(); ++k) to[k] += term[k];
    } else {
        to += term;
    }
}

/// to (=|+=) term, with First: the first write to the slot (so it is assigned, not
/// added). Templated on First and the derivative type only: one function for every edge.
template <bool First, class D>
inline void assign_or_add(D& to, const D& term) {
    if constexpr (First) {
        to = term;
    } else {
        accumulate(to, term);
    }
}

/// A wrt variable's tangent into its slot (nothing when its node carries none).
template <std::size_t Slot, class D, std::size_t S>
inline void load(const D& value, std::array<D, S>& d) {
    if constexpr (Slot != no_node) d[Slot] = value;
}

/// An output's weight into its adjoint slot.
template <std::size_t Slot, bool First, class D, std::size_t S>
inline void seed(const D& weight, std::array<D, S>& d) {
    if constexpr (Slot != no_node) assign_or_add<First>(d[Slot], weight);
}

template <class D>
D zero() {
    if constexpr (requires { std::tuple_size<D>::value; }) {
        D z;
        z.fill(zero<typename D::value_type>());
        return z;
    } else {
        return D(rules::scalar_t<D>(0));
    }
}

/// The tangent or adjoint in a slot, or 0 for a node that carries none.
template <std::size_t Slot, class D, std::size_t S>
inline D derivative_or_zero(const std::array<D, S>& d) {
    if constexpr (Slot != no_node) {
        return d[Slot];
    } else {
        return zero<D>();
    }
}

/// One edge of a node, as a sweep applies it: d[to] (=|+=) partial_k · d[from].
///
/// Edges and node sweeps are template arguments, and g++ 12 names a class-type template
/// argument by the elements its constant evaluator wrote, without their positions: two
/// tables of one type that differ only in where their written entries sit got one name,
/// and so one instantiation, in a translation unit that held both (a kernel then ran
/// another kernel's sweep and returned stale slots). So every entry says where it is
/// (`position`, `node`), and `describe_sweep` writes every entry of every table.
struct edge_step {
    int position = -1;             // k-th edge the node's sweep applies
    bool on = false;               // swept in this program
    int operand = 0;               // k
    std::size_t to = 0, from = 0;  // derivative slots
    bool first = false;            // first write to `to`
    std::size_t partial_slot = no_node;  // where a fused primal stored the partial
    bool partial_constant = false;       // the partial reads no value that carries tangents
};

/// The edges of one node in the order a sweep applies them (operands in order for the
/// tangent, reversed for the adjoint). An adjoint sweep's copy of an equal subexpression
/// (lower/equal_copies.hpp) looks up its entry `copy - 1` in the kernel's forward table:
/// when a slot is there, the copy's adjoint (in `slot`) is added to it, if the sweep
/// `forwards` (a map-reduce's sweep of deferred edges does not: its per-point sweep did),
/// and the copy's edges are skipped. The copy fields are 0 for every other node, so that
/// they add nothing to the names the compilers give a sweep table (trailing zeros are
/// left out of a class-type template argument's mangled name).
struct node_sweep {
    std::size_t node = no_node;  // the node these are the edges of
    std::array<edge_step, 3> edges{};
    std::size_t copy = 0;  // 1 + the entry in the forward table, for a copy; 0 for any other node
    bool forwards = false;
    std::size_t slot = 0;  // the copy's adjoint slot
    // 1 + the slot of the one node the copy can pass its adjoint to, when its class has one
    // live node before it, else 0. The forward table then says only whether it passes it
    // on: a slot known at compile time, where an index read at run time would keep every
    // adjoint of the sweep in memory (on batches, a load and a store per node).
    std::size_t sole_target = 0;
};

/// The one function that applies an edge, d[to] (=|+=) partial · d[from]: every sweep of
/// every program calls it, for the edges it sweeps only. The partial is read from the
/// slot where a fused primal stored it, else computed from the values; on dual numbers, a
/// partial that reads no value carrying tangents (the constant factor of a product, the
/// partials of a linear function) is computed on the values alone, and scales the
/// adjoint's tangents without a product rule. All of it is written out here rather than
/// in helpers per edge: each would be one more function per edge for the compiler to
/// instantiate and inline; with the calls for edges a sweep skips, they were a third of
/// the functions of a large kernel (docs/architecture.md, "Compile time").
template <std::size_t I, edge_step E, class R, class... Operands, class V, class D, std::size_t S>
inline void apply_edge(apply<R, Operands...>, const V& v, std::array<D, S>& d) {
    static_assert(E.on, "gradc: apply_edge called for an edge the sweep does not apply");
    if constexpr (E.partial_slot != no_node) {
        assign_or_add<E.first>(d[E.to], times(v[E.partial_slot], d[E.from]));
    } else if constexpr (E.partial_constant && dual_numbers::is_dual<typename V::value_type>) {
        const values_of_duals<V> values{v};
        assign_or_add<E.first>(d[E.to], times(R::partial(rules::arg<E.operand>, operand_value<Operands>::get(values)...,
                                                         v[I].value),
                                              d[E.from]));
    } else {
        assign_or_add<E.first>(d[E.to], times(R::partial(rules::arg<E.operand>, operand_value<Operands>::get(v)..., v[I]),
                                              d[E.from]));
    }
}

template <class Node>
inline constexpr bool is_primitive = false;
template <class R, class... Operands>
inline constexpr bool is_primitive<apply<R, Operands...>> = true;

struct in_reverse;

/// The edges of node I (none for an input or a constant). Returns an `in_reverse` so
/// that the adjoint can run it in a reverse fold (below).
template <std::size_t I, node_sweep Sweep, class Node, class V, class D, std::size_t S>
inline in_reverse sweep_node(Node node, const V& v, std::array<D, S>& d, const std::size_t* forward);

/// Evaluation in reverse order: a right fold over `=` (the right operand of an
/// assignment is sequenced before the left, for overloaded operators too since C++17),
/// so `(step<I>() = ... = in_reverse{})` runs the last node's step first, with no lookup
/// of the node type at a computed position (which costs g++ a search of the list).
struct in_reverse {
    constexpr in_reverse operator=(in_reverse) const { return {}; }
};

/// `forward`: the kernel's forward table (lower/equal_copies.hpp), read by copies only.
template <std::size_t I, node_sweep Sweep, class Node, class V, class D, std::size_t S>
inline in_reverse sweep_node(Node node, const V& v, std::array<D, S>& d, const std::size_t* forward) {
    if constexpr (Sweep.copy != 0) {
        if (const std::size_t to = forward[Sweep.copy - 1]; to != no_node) {
            if constexpr (Sweep.forwards && Sweep.sole_target != 0) {
                accumulate(d[Sweep.sole_target - 1], d[Sweep.slot]);
            } else if constexpr (Sweep.forwards) {
                accumulate(d[to], d[Sweep.slot]);
            }
            return {};
        }
    }
    if constexpr (is_primitive<Node>) {
        if constexpr (Sweep.edges[0].on) apply_edge<I, Sweep.edges[0]>(node, v, d);
        if constexpr (Sweep.edges[1].on) apply_edge<I, Sweep.edges[1]>(node, v, d);
        if constexpr (Sweep.edges[2].on) apply_edge<I, Sweep.edges[2]>(node, v, d);
    }
    return {};
}

/// Every node's edges, last node first: the adjoint sweeps. Clang indexes the node list
/// with its builtin (a braced list has no length limit; clang allows 256 terms in a
/// fold); g++, which has no such builtin but no fold limit either, runs a right fold over
/// `=`, whose right operand is evaluated first.
template <auto Sweep, class... Nodes, class V, class D, std::size_t S>
GRADC_ALWAYS_INLINE inline void sweep_in_reverse(const V& v, std::array<D, S>& d, const std::size_t* forward) {
#ifdef GRADC_HAS_TYPE_PACK_ELEMENT
    constexpr std::size_t n = sizeof...(Nodes);
    [&]<std::size_t... R>(std::index_sequence<R...>) GRADC_ALWAYS_INLINE {
        (void)std::initializer_list<int>{
            (sweep_node<n - 1 - R, Sweep[n - 1 - R]>(pack_element<n - 1 - R, Nodes...>{}, v, d, forward), 0)...};
    }(std::make_index_sequence<n>{});
#else
    [&]<std::size_t... I>(std::index_sequence<I...>) GRADC_ALWAYS_INLINE {
        (sweep_node<I, Sweep[I]>(Nodes{}, v, d, forward) = ... = in_reverse{});
    }(std::index_sequence_for<Nodes...>{});
#endif
}

}  // namespace step
}  // namespace gradc::lower
