#pragma once
/// Step 1 of lowering: the walk. A depth-first walk of the outputs lists every unique
/// node after its operands and writes it as a flat node (flat.hpp) that refers to its
/// operands by position.
///
/// A payload-free subtree is identified by its type: met again, it is not walked again
/// but referred to (common-subexpression elimination by type, and a walk linear in the
/// number of unique nodes even when a subtree is shared many times). A subtree that
/// carries a literal is new at each occurrence, so `x*2.0 + x*3.0` keeps two products.
/// Conditions (the first operand of `where`) are walked for their operands but are not
/// nodes: they become `test` operands, with no value slot and no derivative.
///
/// Written as class-template metafunctions with pack expansions, not as Hana algorithms
/// on tuples of occurrence types: with hana::contains/append and keys that carried the
/// subtree type and its path, ordering a 123-node kernel took 10 s and a 300-node chain
/// was dominated by hashing those keys; here each lookup is one expansion of a builtin
/// type comparison over the nodes listed so far.

#include <array>
#include <cstddef>
#include <type_traits>
#include <utility>

#include <gradc/expr/nodes.hpp>
#include <gradc/lower/flat.hpp>
#include <gradc/lower/type_at.hpp>

namespace gradc::lower {

/// A listed node: Key is the payload-free expression type it stands for (void for a
/// node that carries a literal, which is never looked up), Node its flat form.
template <class Key, class Node>
struct entry {
    using key = Key;
    using node = Node;
};

template <class... T>
struct type_list {};

/// The walk's state: the nodes listed so far and the number of literals among them.
template <std::size_t Literals, class... Entries>
struct walk_state {
    static constexpr std::size_t size = sizeof...(Entries);
    static constexpr std::size_t literals = Literals;

    /// Position of the node listed for the payload-free type E (size if none). The
    /// builtin comparison instantiates nothing per pair of types.
    template <class E>
    static constexpr std::size_t find = first_true(std::array<bool, sizeof...(Entries)>{__is_same(E, typename Entries::key)...});

    template <class Key, class Node>
    using append = walk_state<Literals, Entries..., entry<Key, Node>>;
    using append_literal = walk_state<Literals + 1, Entries..., entry<void, constant<Literals>>>;
    using flat_type = flat<typename Entries::node...>;
};

/// True when E is payload-free and already listed in S.
template <class E, class S>
inline constexpr bool is_listed = expr::is_payload_free<E> && (S::template find<E> < S::size);

/// Walks one node. Two instantiation levels per tree level (walk, then walk_operands
/// for its first operand), so expressions hundreds of levels deep stay within the
/// compilers' default template depth.
template <class E, class S, bool Listed = is_listed<E, S>>
struct walk;

template <class E, class S>
struct walk<E, S, true> {
    using state = S;
    static constexpr std::size_t index = S::template find<E>;
};

/// Walks operands A... in order; gives the state after them and their flat operands.
template <class S, class Done, class... A>
struct walk_operands {
    using state = S;
    using operands = Done;
};

template <class S, class... Done, class A, class... Rest>
struct walk_operands<S, type_list<Done...>, A, Rest...> {
    using first = walk<A, S>;
    using rest = walk_operands<typename first::state, type_list<Done..., ref<first::index>>, Rest...>;
    using state = typename rest::state;
    using operands = typename rest::operands;
};

template <class S, class... Done, class Op, class... B, class... Rest>
struct walk_operands<S, type_list<Done...>, expr::condition<Op, B...>, Rest...> {
    using first = walk_operands<S, type_list<>, B...>;
    template <class L>
    struct as_test;
    template <class... O>
    struct as_test<type_list<O...>> {
        using type = test<Op, O...>;
    };
    using rest = walk_operands<typename first::state,
                               type_list<Done..., typename as_test<typename first::operands>::type>, Rest...>;
    using state = typename rest::state;
    using operands = typename rest::operands;
};

template <std::size_t I, std::size_t N, class S>
struct walk<expr::variable<I, N>, S, false> {
    using state = typename S::template append<expr::variable<I, N>, input<I>>;
    static constexpr std::size_t index = S::size;
};

template <class V, class S>
struct walk<expr::literal<V>, S, false> {
    using state = typename S::append_literal;
    static constexpr std::size_t index = S::size;
};

template <class R, class... A, class S>
struct walk<expr::node<R, A...>, S, false> {
    using E = expr::node<R, A...>;
    using w = walk_operands<S, type_list<>, A...>;
    template <class L>
    struct as_apply;
    template <class... O>
    struct as_apply<type_list<O...>> {
        using type = apply<R, O...>;
    };
    using key = std::conditional_t<expr::is_payload_free<E>, E, void>;
    using state = typename w::state::template append<key, typename as_apply<typename w::operands>::type>;
    static constexpr std::size_t index = w::state::size;
};

/// Walks the outputs in order; gives the final state and each output's node.
template <class S, class Indices, class... Outs>
struct walk_outputs {
    using state = S;
    using output_nodes = Indices;
};

template <class S, std::size_t... I, class Out, class... Rest>
struct walk_outputs<S, std::index_sequence<I...>, Out, Rest...> {
    using w = walk<Out, S>;
    using rest = walk_outputs<typename w::state, std::index_sequence<I..., w::index>, Rest...>;
    using state = typename rest::state;
    using output_nodes = typename rest::output_nodes;
};

/// The lowering of outputs Outs...: the flat program, each output's node, and the
/// number of literals.
template <class... Outs>
struct lowered {
    using w = walk_outputs<walk_state<0>, std::index_sequence<>, Outs...>;
    using flat_type = typename w::state::flat_type;
    using output_nodes = typename w::output_nodes;
    static constexpr std::size_t literal_count = w::state::literals;
};

}  // namespace gradc::lower
