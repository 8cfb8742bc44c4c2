#pragma once
/// \file
/// Where a flat graph's variables are: a short table carried by the graph, so that
/// looking a variable up does not search the graph's nodes.
///
/// Why: merging a graph into another looks each of its payload-free nodes up in the other
/// (expr/graph.hpp), and that search is a constant expression over every node, which g++
/// evaluates slowly. The nodes looked up are nearly always variables: `sin(e) * y + x`
/// looks up y and x, a leaf `x * c + y` of a tree x and y. Building a 1,000-node chain
/// spent about 10 of its 20 front-end seconds in those searches (docs/static.md,
/// "Compile time"). A variable's position is now read from the table, which lists the
/// variables of one set (one `variables` call); other keys are still searched.

#include <array>
#include <cstddef>
#include <utility>

#include <gradc/expr/pack.hpp>

namespace gradc::graphs {

/// A key's position when the graph has no node for it (any value ≥ the graph's size is
/// read as "absent").
inline constexpr std::size_t absent = static_cast<std::size_t>(-1);

/// Which set a variable key belongs to (`family`: void for a key that is not a variable)
/// and its index in the set. Specialised for the variable types in expr/nodes.hpp.
template <class Key>
struct input_family {
    using family = void;
    enum : std::size_t { index = 0 };
};
/// The name of one set of variables: the set size and tag of `variables<N>()`, or the
/// set type of `variables(shape...)`.
template <class... Tags>
struct family {};

/// The variables of Family in a graph: Pairs is (variable index, node position) pairs.
/// Family void: the graph has no variable yet. Family `mixed_families`: variables of two
/// sets met (compile() refuses such a kernel); every lookup then searches the nodes.
template <class Family, std::size_t... Pairs>
struct input_index {
    using family_type = Family;
    /// Position of variable I of Family, or `absent`.
    static consteval std::size_t position(std::size_t i) {
        const std::array<std::size_t, sizeof...(Pairs) + 2> pairs{Pairs..., absent, absent};
        for (std::size_t k = 0; k + 2 < pairs.size(); k += 2)
            if (pairs[k] == i) return pairs[k + 1];
        return absent;
    }
};
struct mixed_families {};
using no_inputs = input_index<void>;

/// The table of a graph made of G1 and the new nodes of G2: Positions::at<p>() is where
/// node p of G2 went.
template <class Index1, class Index2, class Positions>
struct merge_index;

/// Same set (the general case).
template <class F1, std::size_t... P1, class F2, std::size_t... P2, class Positions>
struct merge_index<input_index<F1, P1...>, input_index<F2, P2...>, Positions> {
    /// G1's pairs, then G2's variables that G1 lacks, moved; the count of entries last.
    /// Every entry is written (lower/steps.hpp, `edge_step`, says why a table that is a
    /// template argument must be).
    static consteval std::array<std::size_t, sizeof...(P1) + sizeof...(P2) + 1> joined() {
        constexpr std::size_t n1 = sizeof...(P1), n2 = sizeof...(P2);
        const std::array<std::size_t, n2 + 1> second{P2..., absent};
        std::array<std::size_t, n1 + n2 + 1> r{P1...};
        for (std::size_t k = n1; k < r.size(); ++k) r[k] = absent;
        std::size_t count = n1;
        for (std::size_t k = 0; k + 1 < n2; k += 2) {
            if (input_index<F1, P1...>::position(second[k]) != absent) continue;
            r[count++] = second[k];
            r[count++] = Positions::value(second[k + 1]);
        }
        r[n1 + n2] = count;
        return r;
    }
    using table = expr::numbers<joined()>;
    template <class Seq>
    struct build;
    template <std::size_t... K>
    struct build<std::index_sequence<K...>> {
        using type = input_index<F1, table::template at<K>()...>;
    };
    using type = typename build<std::make_index_sequence<table::template at<sizeof...(P1) + sizeof...(P2)>()>>::type;
};

/// Merging two tables of different sets: every later lookup searches.
template <class F1, std::size_t... P1, class F2, std::size_t... P2, class Positions>
    requires(!__is_same(F1, F2) && !__is_same(F1, void) && !__is_same(F2, void))
struct merge_index<input_index<F1, P1...>, input_index<F2, P2...>, Positions> {
    using type = input_index<mixed_families>;
};
/// Merging into a graph without variables: G2's table, moved.
template <std::size_t... P1, class F2, std::size_t... P2, class Positions>
    requires(!__is_same(F2, void))
struct merge_index<input_index<void, P1...>, input_index<F2, P2...>, Positions> {
    using type = typename merge_index<input_index<F2>, input_index<F2, P2...>, Positions>::type;
};
/// Merging a graph without variables: G1's table.
template <class F1, std::size_t... P1, std::size_t... P2, class Positions>
struct merge_index<input_index<F1, P1...>, input_index<void, P2...>, Positions> {
    using type = input_index<F1, P1...>;
};

}  // namespace gradc::graphs
