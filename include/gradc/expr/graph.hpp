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
/// levels exceeded the compilers' template depth (docs/static.md, "Compile time").
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

using expr::first_true;
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

/// Position of Key among the keys of Entries (their count if absent), by search.
template <class Key, class... Entries>
struct search_key : std::integral_constant<std::size_t, first_true<sizeof...(Entries)>({__is_same(Key, typename Entries::key)...})> {};

/// Position of Key among Entries, or their count when absent: read from the table of
/// variables when Key is a variable of the set it lists (expr/input_index.hpp says why),
/// else searched; void (a node that carries a literal) is never merged, so never found.
template <class Key, class Index, class... Entries>
struct find_key : search_key<Key, Entries...> {};
template <class Index, class... Entries>
struct find_key<void, Index, Entries...> : std::integral_constant<std::size_t, sizeof...(Entries)> {};
template <class Key, class Family, std::size_t... Pairs, class... Entries>
    requires(!__is_same(Family, void) && __is_same(typename input_family<Key>::family, Family))
struct find_key<Key, input_index<Family, Pairs...>, Entries...>
    : std::integral_constant<std::size_t, std::size_t(input_index<Family, Pairs...>::position(input_family<Key>::index) <
                                                                  sizeof...(Entries)
                                                              ? input_index<Family, Pairs...>::position(input_family<Key>::index)
                                                              : sizeof...(Entries))> {};

/// A flat graph: its literals' count, where its variables are, and its nodes in order.
template <std::size_t Literals, class Index, class... Entries>
struct graph {
    enum : std::size_t { size = sizeof...(Entries), literals = Literals };
    using index = Index;  ///< Where its variables are (expr/input_index.hpp).
    /// Position of the node standing for the payload-free type Key (size if absent, and
    /// for void: a node that carries a literal is never merged).
    template <class Key>
    using position_of = std::integral_constant<std::size_t, find_key<Key, Index, Entries...>::value>;
};
/// The graph with no node.
using empty_graph = graph<0, no_inputs>;

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

template <class G1, class G2, class Found = std::index_sequence<>>
struct merge_impl;

/// Found: for each node of G2, its position in G1 (G1::size when absent).
template <std::size_t L1, class I1, class... E1, std::size_t L2, class I2, class... E2, std::size_t... Found>
struct merge_impl<graph<L1, I1, E1...>, graph<L2, I2, E2...>, std::index_sequence<Found...>> {
    enum : std::size_t { added = count_new<sizeof...(E1), Found...>() };
    using positions = numbers<merged_positions<sizeof...(E1), Found...>()>;
    using added_nodes = numbers<new_nodes<added, sizeof...(E1), Found...>()>;

    template <class Seq>
    struct build;
    template <std::size_t... K>
    struct build<std::index_sequence<K...>> {
        using type = graph<L1 + L2, typename merge_index<I1, I2, positions>::type, E1...,
                           typename relocate_entry<pack_element<added_nodes::template at<K>(), E2...>, positions,
                                                   L1>::type...>;
    };
    using type = typename build<std::make_index_sequence<added>>::type;
};

/// G1 followed by the nodes of G2 that G1 lacks; `positions::at<p>()` is where node p of
/// G2 is now.
template <class G1, class G2>
struct merge;
template <std::size_t L1, class I1, class... E1, std::size_t L2, class I2, class... E2>
struct merge<graph<L1, I1, E1...>, graph<L2, I2, E2...>> {
    using impl = merge_impl<graph<L1, I1, E1...>, graph<L2, I2, E2...>,
                            std::index_sequence<graph<L1, I1, E1...>::template position_of<typename E2::key>::value...>>;
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
template <std::size_t L2, class I2, class... E2>
struct merge<empty_graph, graph<L2, I2, E2...>> {
    using type = graph<L2, I2, E2...>;
    using positions = same_positions;
};

}  // namespace gradc::graphs
