#pragma once
/// \file
/// The flat form of an expression, built as the expression is built.
///
/// Every expression type carries `graph`: its unique nodes, operands first, each written
/// as a small flat node that names its rule and its operands' positions. A node's graph
/// is its operands' graphs merged (a payload-free subtree already present is not added
/// again: common-subexpression elimination by type) and then the node itself, last.
///
/// Why at construction: each `sin(e)` or `a * b` completes the new node's type while its
/// operands' graphs already exist, so building a graph never recurses into the
/// expression; the lowering reads the finished graph. A walk started from the finished
/// expression instead recurses once per level of nesting, and a chain of a few hundred
/// levels exceeded the compilers' template depth (docs/architecture.md, "Compile time").
///
/// Nothing here is a variable or a function instantiated on the expression: counts are
/// enumerators, tables are class-type template arguments (expr/pack.hpp says why).

#include <array>
#include <cstddef>
#include <type_traits>
#include <utility>

#include <gradc/expr/input_index.hpp>
#include <gradc/expr/pack.hpp>

/// The flat forms live in a namespace of their own, without the expression operators:
/// arithmetic on a graph's counts (enumerators) then finds no gradc operator by
/// argument-dependent lookup, which would instantiate concept checks on the graph types.
namespace gradc::graphs {

using expr::numbers;
using expr::pack_element;

// ---- flat nodes and operands ---------------------------------------------------------

/// Operand: the value of node I.
template <std::size_t I>
struct ref {};
/// Operand: a condition, Op applied to operands (refs or tests); it has no node.
template <class Op, class... Operands>
struct test {};

/// Node: variable J (argument J of the kernel).
template <std::size_t J>
struct input {};
/// Node: entry L of the literal values, numbered in graph order.
template <std::size_t L>
struct constant {};
/// Node: a named constant, its value `Tag{}()` or `Tag::value` known from its type (so
/// that, unlike a literal, it carries no payload and equal uses of it are merged).
template <class Tag>
struct named {};
/// The value of a named constant's tag: a captureless lambda returning it, or a type
/// with a static `value`.
template <class Tag>
constexpr double named_value() {
    if constexpr (requires { Tag::value; }) {
        return double(Tag::value);
    } else {
        return double(Tag{}());
    }
}
/// Node: a primitive of the rule table applied to operands.
template <class Rule, class... Operands>
struct apply {};

/// A node of a graph: Key is the payload-free expression type it stands for (looked up
/// to merge equal subtrees), or void for a node that carries a literal (never merged).
template <class Key, class Node>
struct entry {
    using key = Key;
    using node = Node;
};

/// What comes before a graph's first run of nodes: nothing.
struct no_nodes {
    enum : std::size_t { size = 0 };
};

/// Nodes in a graph's last run before a new node starts the next (see `graph`).
inline constexpr std::size_t graph_run_length = 64;

template <std::size_t Literals, class Index, class Before, class... Run>
struct graph;

/// A list of a graph's entries.
template <class... Entries>
struct entry_list {};

/// How a graph G is extended by the entries More: its last run Run continued, or
/// (Closed) a new run after the whole graph. A class, not `std::conditional_t`: naming
/// both graphs at every node cost g++ several times the time of building the one it
/// needs.
template <bool Closed, class G, std::size_t Literals, class Index, class Before, class Run, class More>
struct extension;
template <class G, std::size_t Literals, class Index, class Before, class... Run, class... More>
struct extension<false, G, Literals, Index, Before, entry_list<Run...>, entry_list<More...>> {
    using type = graph<Literals, Index, Before, Run..., More...>;
};
template <class G, std::size_t Literals, class Index, class Before, class... Run, class... More>
struct extension<true, G, Literals, Index, Before, entry_list<Run...>, entry_list<More...>> {
    using type = graph<Literals, Index, G, More...>;
};

/// The graph G followed by the nodes More, with AddedLiterals more literals and the
/// table of variables NewIndex. The only template that deduces a graph's nodes (its
/// last run, at most `graph_run_length` of them).
///
/// A free template, not a member of `graph`: g++ 12 substitutes a class's arguments
/// into the declaration of each of its member templates when it instantiates the class,
/// and each type named there, still dependent on the member's own parameters, is looked
/// up with a walk over all its arguments, the enclosing graph's included, down through
/// every node type below. The walks grew with the depth; as members, they took a fifth
/// of the instructions of building a 600-node chain (docs/architecture.md, "Compile time").
template <class G, std::size_t AddedLiterals, class NewIndex, class... More>
struct extend;
template <std::size_t L, class Index, class Before, class... Run, std::size_t AddedLiterals, class NewIndex, class... More>
struct extend<graph<L, Index, Before, Run...>, AddedLiterals, NewIndex, More...> {
    using type = typename extension<(sizeof...(Run) >= graph_run_length), graph<L, Index, Before, Run...>, L + AddedLiterals,
                                    NewIndex, Before, entry_list<Run...>, entry_list<More...>>::type;
};
template <class G, std::size_t AddedLiterals, class NewIndex, class... More>
using extended_t = typename extend<G, AddedLiterals, NewIndex, More...>::type;

/// Position of Key among the keys of a graph's nodes, or `absent`, found by the
/// compilers' own overload resolution rather than by instantiating a search
/// (Note [Key lookup]).
///
/// Note [Key lookup]
/// Merging a graph into another looks up each of its payload-free nodes among the
/// other's, to merge equal subtrees. A search written as templates (a step per run of
/// nodes, each expanding a comparison over the run) instantiates a class per run for
/// every key looked up, each with the run's nodes as its arguments: time and memory
/// grew with the square of the nodes (docs/architecture.md, "Compile time"). Instead, each
/// graph searched has a `key_table`: a class with one empty base `key_slot<Key,
/// position>` per node of its last run and the table of the graph before it as a
/// further base. A key's position is then deduced by overload resolution,
/// `key_position<Key>(table*)`, which the compilers answer from the class's bases
/// without instantiating anything per base or per run.
template <class Key, std::size_t I>
struct key_slot {};

template <class Graph, class Seq = void>
struct key_table {};  // no_nodes

template <std::size_t L, class Index, class Before, class... Run>
struct key_table<graph<L, Index, Before, Run...>, void>
    : key_table<graph<L, Index, Before, Run...>, std::index_sequence_for<Run...>> {};
template <std::size_t L, class Index, class Before, class... Run, std::size_t... I>
struct key_table<graph<L, Index, Before, Run...>, std::index_sequence<I...>>
    : key_table<Before>, key_slot<typename Run::key, Before::size + I>... {};

template <class Key, std::size_t I>
std::integral_constant<std::size_t, I> key_position(const key_slot<Key, I>*);  // declared only: used in decltype
template <class Key>
std::integral_constant<std::size_t, absent> key_position(const void*);

template <class Key, class Graph>
struct search_key : decltype(key_position<Key>(static_cast<const key_table<Graph>*>(nullptr))) {};

/// Position of Key in Graph, or its size when absent: read from the table of variables
/// (Index, the graph's) when Key is a variable of the set it lists
/// (expr/input_index.hpp says why), else searched; void (a node that carries a literal)
/// is never merged, so never found. The graph is passed whole, never as its nodes: a
/// template named with a graph's nodes costs memory in proportion to them, for every
/// such name (see `graph`).
template <class Key, class Index, class Graph>
struct find_key : std::integral_constant<std::size_t, search_key<Key, Graph>::value == absent ? Graph::size
                                                                                             : search_key<Key, Graph>::value> {};
template <class Index, class Graph>
struct find_key<void, Index, Graph> : std::integral_constant<std::size_t, Graph::size> {};
template <class Key, class Family, std::size_t... Pairs, class Graph>
    requires(!__is_same(Family, void) && __is_same(typename input_family<Key>::family, Family))
struct find_key<Key, input_index<Family, Pairs...>, Graph>
    : std::integral_constant<std::size_t, std::size_t(input_index<Family, Pairs...>::position(input_family<Key>::index) <
                                                                  Graph::size
                                                              ? input_index<Family, Pairs...>::position(input_family<Key>::index)
                                                              : Graph::size)> {};

/// A flat graph: its literals' count, where its variables are, and its nodes in order:
/// those of the graph Before (no_nodes for none), then Run.
///
/// Why in runs, and why extended only by `extend` and passed whole everywhere else:
/// every template named with a graph's nodes (a partial specialization that deduces
/// them, or a type that spells them out) makes g++ copy the node list, and the
/// copies stay until the end of the translation unit. A chain of 1,000 nodes builds
/// about 3,000 graphs on the way; when each held every node so far and was named with
/// them a dozen times, building them took 1.4 GB and 12 s before lowering began. Now a
/// graph names at most its last run of nodes, and a run that has `graph_run_length`
/// nodes is closed: the next node starts a new run after the whole graph (Before is
/// that graph), so building a chain costs the same for every node. A merge may add a
/// longer run at once (an operand's new nodes). `entries_t` lists every node, for the
/// lowering, once per kernel.
template <std::size_t Literals, class Index, class Before, class... Run>
struct graph {
    enum : std::size_t { size = Before::size + sizeof...(Run), literals = Literals };
    using index = Index;  ///< Where its variables are (expr/input_index.hpp).
};

/// Position in Graph of the node standing for the payload-free type Key (Graph's size
/// if absent, and for void: a node that carries a literal is never merged). Not a
/// member of `graph` (see `extend`).
template <class Key, class Graph>
using position_of = std::integral_constant<std::size_t, find_key<Key, typename Graph::index, Graph>::value>;

/// Every entry of Graph in order, as an entry_list (one level per run).
template <class Graph, class Later = entry_list<>>
struct all_entries {
    using type = Later;  // no_nodes
};
template <std::size_t L, class Index, class Before, class... Run, class... Later>
struct all_entries<graph<L, Index, Before, Run...>, entry_list<Later...>> {
    using type = typename all_entries<Before, entry_list<Run..., Later...>>::type;
};
template <class Graph>
using entries_t = typename all_entries<Graph>::type;

/// The graph with no node.
using empty_graph = graph<0, no_inputs, no_nodes>;

// ---- relocation: a graph's nodes moved into a larger graph --------------------------

/// Operand positions renumbered by the table Positions; literal numbers shifted.
template <class Operand, class Positions>
struct relocate_operand;
template <std::size_t I, class Positions>
struct relocate_operand<ref<I>, Positions> {
    using type = ref<Positions::template at<I>()>;
};
template <class Op, class... O, class Positions>
struct relocate_operand<test<Op, O...>, Positions> {
    using type = test<Op, typename relocate_operand<O, Positions>::type...>;
};

template <class Entry, class Positions, std::size_t LiteralShift>
struct relocate_entry;
template <class Key, std::size_t J, class Positions, std::size_t LiteralShift>
struct relocate_entry<entry<Key, input<J>>, Positions, LiteralShift> {
    using type = entry<Key, input<J>>;
};
template <class Key, std::size_t L, class Positions, std::size_t LiteralShift>
struct relocate_entry<entry<Key, constant<L>>, Positions, LiteralShift> {
    using type = entry<Key, constant<L + LiteralShift>>;
};
template <class Key, class Tag, class Positions, std::size_t LiteralShift>
struct relocate_entry<entry<Key, named<Tag>>, Positions, LiteralShift> {
    using type = entry<Key, named<Tag>>;
};
template <class Key, class R, class... O, class Positions, std::size_t LiteralShift>
struct relocate_entry<entry<Key, apply<R, O...>>, Positions, LiteralShift> {
    using type = entry<Key, apply<R, typename relocate_operand<O, Positions>::type...>>;
};

// ---- merging two graphs ---------------------------------------------------------------

/// Where each node of the second graph goes: its position in the first graph when
/// found there (Found[p] < N1), else after the first graph's nodes, in order.
template <std::size_t N1, std::size_t... Found>
consteval std::array<std::size_t, sizeof...(Found)> merged_positions() {
    const std::array<std::size_t, sizeof...(Found)> found{Found...};
    std::array<std::size_t, sizeof...(Found)> r{};
    std::size_t next = N1;
    for (std::size_t p = 0; p < found.size(); ++p) r[p] = found[p] < N1 ? found[p] : next++;
    return r;
}

/// How many nodes of the second graph are new (Found[p] ≥ N1). A loop, not a fold:
/// clang limits a fold's expansion to 256 terms.
template <std::size_t N1, std::size_t... Found>
consteval std::size_t count_new() {
    const std::array<std::size_t, sizeof...(Found)> found{Found...};
    std::size_t added = 0;
    for (std::size_t f : found) added += f >= N1 ? 1 : 0;
    return added;
}

/// The positions in the second graph of its new nodes, in order.
template <std::size_t Count, std::size_t N1, std::size_t... Found>
consteval std::array<std::size_t, Count> new_nodes() {
    const std::array<std::size_t, sizeof...(Found)> found{Found...};
    std::array<std::size_t, Count> r{};
    std::size_t k = 0;
    for (std::size_t p = 0; p < found.size(); ++p)
        if (found[p] >= N1) r[k++] = p;
    return r;
}

/// For each entry of E2 (the entries of the graph merged in), its position in G1
/// (G1::size when absent).
template <class G1, class E2>
struct positions_in;
template <class G1, class... E2>
struct positions_in<G1, entry_list<E2...>> {
    using type = std::index_sequence<find_key<typename E2::key, typename G1::index, G1>::value...>;
};

/// G1 itself when G2 adds neither nodes nor variables (a chain's `* y` after the first
/// level), else G1 extended; E2: G2's entries; Added: the positions in G2 of its new nodes.
template <bool Unchanged, class G1, class G2, class E2, class Index, class Positions, class Added>
struct merged_graph {
    using type = G1;
};
template <class G1, class G2, class... E2, class Index, class Positions, std::size_t... K>
struct merged_graph<false, G1, G2, entry_list<E2...>, Index, Positions, std::index_sequence<K...>> {
    using type = extended_t<G1, G2::literals, Index,
                            typename relocate_entry<pack_element<K, E2...>, Positions, G1::literals>::type...>;
};

/// The positions of a merge's added nodes (AddedNodes, a table) as a sequence. Not a
/// member of merge_impl, whose arguments are long (see `extend`).
template <class AddedNodes, class Seq>
struct positions_of_added;
template <class AddedNodes, std::size_t... K>
struct positions_of_added<AddedNodes, std::index_sequence<K...>> {
    using type = std::index_sequence<AddedNodes::template at<K>()...>;
};

template <class G1, class G2, class Found>
struct merge_impl;
template <class G1, class G2, std::size_t... Found>
struct merge_impl<G1, G2, std::index_sequence<Found...>> {
    enum : std::size_t { added = count_new<G1::size, Found...>() };
    using positions = numbers<merged_positions<G1::size, Found...>()>;
    using added_nodes = numbers<new_nodes<added, G1::size, Found...>()>;

    using index = typename merge_index<typename G1::index, typename G2::index, positions>::type;
    using type = typename merged_graph<added == 0 && G2::literals == 0 && __is_same(index, typename G1::index), G1, G2,
                                       entries_t<G2>, index, positions, typename positions_of_added<added_nodes, std::make_index_sequence<added>>::type>::type;
};

/// G1 followed by the nodes of G2 that G1 lacks; `positions::at<p>()` is where node p of
/// G2 is now.
template <class G1, class G2>
struct merge {
    using impl = merge_impl<G1, G2, typename positions_in<G1, entries_t<G2>>::type>;
    using type = typename impl::type;
    using positions = typename impl::positions;
};

/// Merging into the empty graph: the second graph as it is (the first operand of every
/// node; without this shortcut a chain would relocate its whole graph at every level).
struct same_positions {
    template <std::size_t I>
    static consteval std::size_t at() {
        return I;
    }
    static consteval std::size_t value(std::size_t i) { return i; }
};
template <class G2>
struct merge<empty_graph, G2> {
    using type = G2;
    using positions = same_positions;
};

}  // namespace gradc::graphs
