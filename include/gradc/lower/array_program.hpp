#pragma once
/// \file
/// The programs of an array kernel, generic in the value type T (a number, or a SIMD
/// batch holding one point per lane):
///  - `primal`: every node's values, in order;
///  - `adjoint`: from the outputs' weights back to the wrt variables (VJP), each node's
///    operands' adjoints accumulated in place by the node's operation;
///  - `tangent`: from the wrt variables' tangents forward to the outputs (JVP).
/// A node is one step whatever its size: an array operation (rules/arrays/) runs its
/// loops, a scalar rule runs over the node's entries with scalar operands broadcast. So
/// a program has one step per node, and compile time grows with the number of nodes,
/// not with their sizes. Derivatives of live nodes start at zero and are added to.

#include <array>
#include <cstddef>
#include <utility>

#include <gradc/lower/array_describe.hpp>
#include <gradc/lower/array_first_writes.hpp>
#include <gradc/lower/array_steps.hpp>
#include <gradc/lower/steps.hpp>
#include <gradc/rules/partial.hpp>
#include <gradc/rules/value_traits.hpp>

namespace gradc::lower {

template <class Set, class Flat, class Outputs, class Wrt>
struct array_program;

template <class Set, class... Nodes, std::size_t... O, std::size_t... J>
struct array_program<Set, flat<Nodes...>, std::index_sequence<O...>, std::index_sequence<J...>>
    : array_analysis<Set, flat<Nodes...>, std::index_sequence<O...>, std::index_sequence<J...>> {
    using analysis = array_analysis<Set, flat<Nodes...>, std::index_sequence<O...>, std::index_sequence<J...>>;
    using steps = array_steps<analysis>;
    using first_writes = array_first_writes<analysis, flat<Nodes...>>;
    using set = Set;
    using flat_type = flat<Nodes...>;
    static constexpr auto& L = analysis::layout;
    static constexpr std::size_t arity = Set::size;
    static constexpr std::size_t output_count = sizeof...(O);
    static constexpr std::size_t wrt_count = sizeof...(J);

    template <class T>
    using values = std::array<T, L.value_size == 0 ? 1 : L.value_size>;
    template <class T>
    using derivatives = std::array<T, L.derivative_size == 0 ? 1 : L.derivative_size>;

    /// Every node: the default part of the primal and adjoint below.
    static constexpr std::array<bool, sizeof...(Nodes)> all_nodes = [] {
        std::array<bool, sizeof...(Nodes)> a{};
        a.fill(true);
        return a;
    }();
    /// Every operand edge (operand k of node n at first_writes::operand_begin[n] + k):
    /// the default edges of the adjoint below.
    static constexpr std::array<bool, first_writes::operand_count> all_edges = [] {
        std::array<bool, first_writes::operand_count> a{};
        a.fill(true);
        return a;
    }();

    /// The values of the nodes in Part (every node by default), in order. Map-reduce
    /// evaluates the nodes that do not depend on the data once (simd/array_map_reduce.hpp).
    template <node_mask Part = all_nodes, class T>
    GRADC_ALWAYS_INLINE inline static void primal(const array_frame<T, arity>& f) {
        [&]<std::size_t... I>(std::index_sequence<I...>) GRADC_ALWAYS_INLINE {
            (void)std::initializer_list<int>{(evaluate_if<I, Part[I], copies_within<Part>[I]>(Nodes{}, f), 0)...};
        }(std::index_sequence_for<Nodes...>{});
    }

    /// Adds to the wrt variables' adjoints (d.wrt, not cleared here) the weights w[m]
    /// (an array of the output's size) swept back from the outputs. Only the edges of the
    /// nodes in Part that are in Edges are swept, and only the adjoints of Part are
    /// cleared first; without seeds (w null) the sweep starts from the adjoints already in
    /// d (map-reduce's last sweep, lower/array_map_reduce_split.hpp). The copies in
    /// Forwards pass their adjoints on in this sweep (every copy, by default).
    template <node_mask Part = all_nodes, bool Clear = true, node_mask Edges = all_edges, node_mask Forwards = analysis::copies.member,
              class T>
    GRADC_ALWAYS_INLINE inline static void adjoint(const array_frame<T, arity>& f, const derivative_frame<T>& d,
                                     const T* const* w) {
        constexpr auto& plan = first_writes::template plan<Part, Edges>;
        if constexpr (Clear) {
            [&]<std::size_t... n>(std::index_sequence<n...>) GRADC_ALWAYS_INLINE {
                (clear_node<n, plan.clear[n]>(d), ...);
            }(std::index_sequence_for<Nodes...>{});
        }
        if (w != nullptr) {
            [&]<std::size_t... m>(std::index_sequence<m...>) GRADC_ALWAYS_INLINE {
                (void)std::initializer_list<int>{(seed<output_node(m), Clear && plan.seed_assigns[m]>(d, w[m]), 0)...};
            }(std::make_index_sequence<output_count>{});
        }
        // Last node first (lower/steps.hpp, `sweep_in_reverse`, says why two ways).
#ifdef GRADC_HAS_TYPE_PACK_ELEMENT
        constexpr std::size_t n = sizeof...(Nodes);
        [&]<std::size_t... R>(std::index_sequence<R...>) GRADC_ALWAYS_INLINE {
            (void)std::initializer_list<int>{
                (steps::template adjoint_node<n - 1 - R, Part[n - 1 - R], assign_of<Part, Clear, Edges, n - 1 - R>(),
                                              edges_of<Edges, n - 1 - R>(), Forwards[n - 1 - R]>(
                     pack_element<n - 1 - R, Nodes...>{}, f, d),
                 0)...};
        }(std::make_index_sequence<n>{});
#else
        [&]<std::size_t... I>(std::index_sequence<I...>) GRADC_ALWAYS_INLINE {
            (steps::template adjoint_node<I, Part[I], assign_of<Part, Clear, Edges, I>(), edges_of<Edges, I>(),
                                          Forwards[I]>(Nodes{}, f, d) = ... = step::in_reverse{});
        }(std::index_sequence_for<Nodes...>{});
#endif
    }

    /// The outputs' tangents out[m] for the wrt variables' tangents d.wrt.
    template <class T>
    GRADC_ALWAYS_INLINE inline static void tangent(const array_frame<T, arity>& f, const derivative_frame<T>& d, T* const* out) {
        if constexpr (L.has_dynamic) {
            for (std::size_t k = 0; k < d.run->derivative_size; ++k) d.nodes[k] = T(rules::scalar_t<T>(0));
        } else {
            for (std::size_t k = 0; k < L.derivative_size; ++k) d.nodes[k] = T(rules::scalar_t<T>(0));
        }
        [&]<std::size_t... I>(std::index_sequence<I...>) GRADC_ALWAYS_INLINE {
            (void)std::initializer_list<int>{(steps::template tangent_node<I>(Nodes{}, f, d), 0)...};
        }(std::index_sequence_for<Nodes...>{});
        [&]<std::size_t... m>(std::index_sequence<m...>) GRADC_ALWAYS_INLINE {
            (void)std::initializer_list<int>{(read_tangent<output_node(m)>(d, out[m]), 0)...};
        }(std::make_index_sequence<output_count>{});
    }

    /// The tangents of the nodes in Part (cleared first), from the tangents of the nodes
    /// they read: the wrt variables' in d.wrt, the other nodes' already in d. A loop's
    /// step sweeps only its varying nodes (loops/loop_rule.hpp).
    template <node_mask Part, class T>
    GRADC_ALWAYS_INLINE inline static void tangent_part(const array_frame<T, arity>& f, const derivative_frame<T>& d) {
        clear<Part>(d);
        [&]<std::size_t... I>(std::index_sequence<I...>) GRADC_ALWAYS_INLINE {
            (void)std::initializer_list<int>{(tangent_if<I, Part[I]>(Nodes{}, f, d), 0)...};
        }(std::index_sequence_for<Nodes...>{});
    }

    static constexpr std::size_t output_node(std::size_t m) { return analysis::output_nodes[m]; }

    /// Per node, the node a copy passes its adjoint to given these literal values, or
    /// no_node; and the forward table: per copy, that node (lower/equal_copies.hpp), whose
    /// value the copy takes and to whose adjoint it adds its own. A node, not an offset:
    /// a node of extents known only at run time has its offsets in the call's layout.
    template <class Literals>
    static constexpr std::array<std::size_t, sizeof...(Nodes)> copy_targets(const Literals& literals) {
        return lower::copy_targets<flat_type>(analysis::copies, L.live, literals);
    }
    template <class Literals>
    static constexpr std::array<std::size_t, analysis::copies.count> forward_offsets(const Literals& literals) {
        constexpr auto node_numbers = [] {
            std::array<std::size_t, sizeof...(Nodes)> n{};
            for (std::size_t i = 0; i < n.size(); ++i) n[i] = i;
            return n;
        }();
        return forward_table<analysis::copies.count>(analysis::copies, copy_targets(literals), node_numbers);
    }

    /// Per node: whether it is a copy all of whose equals are nodes of Part, so that its
    /// target, when it has one, has run in a primal over Part before it.
    template <node_mask Part>
    static constexpr std::array<bool, sizeof...(Nodes)> copies_within = [] {
        constexpr auto& classes = structural_copies<flat_type>::classes;
        std::array<bool, sizeof...(Nodes)> outside{}, within{};
        for (std::size_t n = 0; n < sizeof...(Nodes); ++n)
            if (analysis::copies.member[n] && !Part[n]) outside[classes[n]] = true;
        for (std::size_t n = 0; n < sizeof...(Nodes); ++n)
            within[n] = analysis::copies.copy[n] != no_node && Part[n] && !outside[classes[n]];
        return within;
    }();

    /// Clears the adjoints of the live nodes of Part (not the wrt variables': the caller's).
    /// One constant range per node, so the stores are inlined (a loop over the nodes
    /// became a call to memset per node, measured at a quarter of a map-reduce step).
    template <node_mask Part = all_nodes, class T>
    GRADC_ALWAYS_INLINE inline static void clear(const derivative_frame<T>& d) {
        [&]<std::size_t... n>(std::index_sequence<n...>) GRADC_ALWAYS_INLINE {
            (clear_node<n, Part[n]>(d), ...);
        }(std::index_sequence_for<Nodes...>{});
    }

private:
    template <std::size_t N, bool In, class T>
    GRADC_ALWAYS_INLINE inline static void clear_node(const derivative_frame<T>& d) {
        if constexpr (In && L.live[N] && !L.is_input[N]) {
            T* a = steps::template derivative_of<N>(d);
            for (std::size_t e = 0, entries = steps::template size_of<N>(d); e < entries; ++e) a[e] = T(rules::scalar_t<T>(0));
        }
    }

    template <std::size_t I, bool In, bool TakesCopy, class Node, class T>
    GRADC_ALWAYS_INLINE inline static void evaluate_if(Node node, const array_frame<T, arity>& f) {
        if constexpr (In) steps::template evaluate<I, TakesCopy>(node, f);
    }

    template <std::size_t I, bool In, class Node, class T>
    GRADC_ALWAYS_INLINE inline static void tangent_if(Node node, const array_frame<T, arity>& f,
                                                      const derivative_frame<T>& d) {
        if constexpr (In) steps::template tangent_node<I>(node, f, d);
    }

    template <std::size_t N, bool Assign, class T>
    static void seed(const derivative_frame<T>& d, const T* w) {
        if constexpr (L.live[N]) {
            T* a = steps::template derivative_of<N>(d);
            for (std::size_t e = 0, entries = steps::template size_of<N>(d); e < entries; ++e) {
                if constexpr (Assign) {
                    a[e] = w[e];
                } else {
                    a[e] += w[e];
                }
            }
        }
    }

    /// Which of node I's operand edges assign (their child's first write) in the sweep of
    /// Part; none in a sweep that does not clear (map-reduce's last sweep adds to sums).
    template <node_mask Part, bool Clear, node_mask Edges, std::size_t I>
    static constexpr auto assign_of() {
        constexpr std::size_t a = first_writes::arity[I];
        std::array<bool, a == 0 ? 1 : a> f{};
        if constexpr (Clear)
            for (std::size_t k = 0; k < a; ++k)
                f[k] = first_writes::template plan<Part, Edges>.assign[first_writes::operand_begin[I] + k];
        return f;
    }
    /// Node I's operand edges that are in Edges.
    template <node_mask Edges, std::size_t I>
    static constexpr auto edges_of() {
        constexpr std::size_t a = first_writes::arity[I];
        std::array<bool, a == 0 ? 1 : a> on{};
        for (std::size_t k = 0; k < a; ++k) on[k] = Edges[first_writes::operand_begin[I] + k];
        return on;
    }
    template <std::size_t N, class T>
    static void read_tangent(const derivative_frame<T>& d, T* out) {
        for (std::size_t e = 0, entries = steps::template size_of<N>(d); e < entries; ++e) {
            if constexpr (L.live[N]) {
                out[e] = steps::template derivative_of<N>(d)[e];
            } else {
                out[e] = T(rules::scalar_t<T>(0));
            }
        }
    }
};

}  // namespace gradc::lower
