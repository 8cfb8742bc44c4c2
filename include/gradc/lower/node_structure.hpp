#pragma once
/// \file
/// The structure of a flat program's nodes, for finding the copies of a subexpression
/// that holds literals (lower/equal_copies.hpp says why): what a node computes apart from
/// its literals' values (its rule, and its operand tree with the nodes it names), and per
/// node the first node of equal structure, found at compile time in time proportional to
/// the nodes.

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

#include <gradc/lower/describe.hpp>
#include <gradc/lower/flat.hpp>

namespace gradc::lower {

/// A type's identity as a number: a hash of the name the compiler gives it (a rule's own
/// `name` does not tell `element<0, 1>` from `element<1, 0>`; comparing addresses of a
/// variable per type is not evaluated at compile time by g++ under its sanitizers).
template <class T>
consteval std::uint64_t type_identity() {
    std::uint64_t h = 14695981039346656037ull;  // FNV-1a
    for (const char c : std::string_view(__PRETTY_FUNCTION__)) {
        h ^= static_cast<unsigned char>(c);
        h *= 1099511628211ull;
    }
    return h;
}

/// One token of a node's operand tree, in pre-order: a reference to a node, or a test
/// (its operation's identity and its number of operands).
struct structure_token {
    std::uint64_t test = 0;      ///< A test's operation (type_identity), 0 for a reference.
    std::uint32_t node = 0;      ///< The node a reference names.
    std::uint32_t operands = 0;  ///< A test's number of operands.
};

/// Tokens kept per node; a node with a larger operand tree (a condition of many terms)
/// is never taken for a copy, which is what every node was before.
inline constexpr std::size_t max_structure_tokens = 12;

/// What makes two nodes compute alike, apart from their literals' values.
struct node_structure {
    node_kind kind = node_kind::variable;  ///< Variable, literal or primitive.
    bool constant = false;                 ///< A literal node (not a named constant).
    bool too_large = false;                ///< Its operand tree has more tokens than are kept.
    std::uint32_t count = 0;               ///< Tokens kept.
    std::uint64_t rule = 0;                ///< A primitive's rule (type_identity).
    std::array<structure_token, max_structure_tokens> tokens{};  ///< Its operand tree, in pre-order.
    /// Appends a token, or marks the structure too large.
    constexpr void add(structure_token t) {
        if (count == tokens.size()) {
            too_large = true;
        } else {
            tokens[count++] = t;
        }
    }
};

/// \cond INTERNAL
template <class Operand>
struct operand_structure;
template <std::size_t I>
struct operand_structure<ref<I>> {
    static constexpr void add(node_structure& s) { s.add({0, static_cast<std::uint32_t>(I), 0}); }
};
template <class Op, class... O>
struct operand_structure<test<Op, O...>> {
    static constexpr void add(node_structure& s) {
        s.add({type_identity<Op>(), 0, static_cast<std::uint32_t>(sizeof...(O))});
        (operand_structure<O>::add(s), ...);
    }
};

/// A literal node's number among the kernel's literals (no_node for any other node).
template <class Node>
struct literal_number : std::integral_constant<std::size_t, no_node> {};
template <std::size_t L>
struct literal_number<constant<L>> : std::integral_constant<std::size_t, L> {};

template <class Node>
struct structure_of {
    static constexpr node_structure value{};  // a variable or a named constant: merged by type already
};
template <std::size_t L>
struct structure_of<constant<L>> {
    static constexpr node_structure value{node_kind::literal, true};
};
template <class R, class... O>
struct structure_of<apply<R, O...>> {
    static constexpr node_structure value = [] {
        node_structure s{node_kind::primitive};
        s.rule = type_identity<R>();
        (operand_structure<O>::add(s), ...);
        return s;
    }();
};
/// \endcond

/// A hash h extended by v (the table of `structural_classes`).
constexpr std::uint64_t mix_hash(std::uint64_t h, std::uint64_t v) {
    return (h ^ (v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2))) * 0xff51afd7ed558ccdull;
}

/// Nodes a and b compute alike, given the classes of the nodes before them.
template <std::size_t N>
constexpr bool same_structure(const std::array<node_structure, N>& s, const std::array<std::size_t, N>& cls,
                              std::size_t a, std::size_t b) {
    if (s[a].rule != s[b].rule || s[a].count != s[b].count) return false;
    for (std::size_t k = 0; k < s[a].count; ++k) {
        const structure_token &x = s[a].tokens[k], &y = s[b].tokens[k];
        if (x.test != y.test || x.operands != y.operands) return false;
        if (x.test == 0 && cls[x.node] != cls[y.node]) return false;
    }
    return true;
}

/// Per node, the first node of equal structure (itself if none). Only nodes that hold a
/// literal can have another: payload-free subtrees of one type are one node already.
/// Found through a table hashed on the rule and the operands' classes, so the search
/// costs the compiler time in proportion to the nodes.
template <std::size_t N>
constexpr std::array<std::size_t, N> structural_classes(const std::array<node_structure, N>& s) {
    constexpr std::size_t buckets = std::bit_ceil(2 * N + 1);
    std::array<std::size_t, buckets> table{};
    table.fill(no_node);
    std::array<std::size_t, N> cls{};
    std::array<bool, N> holds{};
    std::size_t first_constant = no_node;
    for (std::size_t i = 0; i < N; ++i) {
        cls[i] = i;
        if (s[i].constant) {
            holds[i] = true;
            if (first_constant == no_node) first_constant = i;
            cls[i] = first_constant;
            continue;
        }
        if (s[i].kind != node_kind::primitive) continue;
        std::uint64_t h = s[i].rule;
        for (std::size_t k = 0; k < s[i].count; ++k) {
            const structure_token& t = s[i].tokens[k];
            if (t.test == 0) holds[i] = holds[i] || holds[t.node];
            h = mix_hash(h, t.test == 0 ? cls[t.node] : t.test + t.operands);
        }
        if (!holds[i] || s[i].too_large) continue;
        std::size_t b = h & (buckets - 1);
        for (; table[b] != no_node; b = (b + 1) & (buckets - 1)) {
            if (same_structure(s, cls, i, table[b])) {
                cls[i] = table[b];
                break;
            }
        }
        if (cls[i] == i) table[b] = i;
    }
    return cls;
}

}  // namespace gradc::lower
