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

/// What identifies rule R: R itself, or the type it names as `identity_type`. A loop's
/// rule names one without its body (loops/loop_rule.hpp): the body is its f's result,
/// fixed by f's type, and in nested loops the body type's name passes the 256 Ki
/// characters that g++ lets a constant expression loop over.
template <class R>
consteval std::uint64_t rule_identity() {
    if constexpr (requires { typename R::identity_type; }) {
        return type_identity<typename R::identity_type>();
    } else {
        return type_identity<R>();
    }
}

/// A hash h extended by v (the shapes below, and the table of `structural_classes`).
constexpr std::uint64_t mix_hash(std::uint64_t h, std::uint64_t v) {
    return (h ^ (v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2))) * 0xff51afd7ed558ccdull;
}

/// References kept per node; a node whose operand tree names more nodes (a condition of
/// many terms) is never taken for a copy, which is what every node was before.
inline constexpr std::size_t max_structure_refs = 8;

/// What makes two nodes compute alike, apart from their literals' values: the shape of
/// its operand tree (its rule, and in pre-order each test's operation and number of
/// operands and where the references are, hashed) and the nodes the references name.
/// Shapes are compared by their 64-bit hashes, as rules are by type_identity. Kept small:
/// the compiler evaluates an array of these, one per node, and its cost grows with the
/// entries' size (a tree of 2,049 nodes took 2.4 s of clang's time with the operand tree
/// kept token by token).
struct node_structure {
    node_kind kind = node_kind::variable;  ///< Variable, literal or primitive.
    bool constant = false;                 ///< A literal node (not a named constant).
    bool too_large = false;                ///< Its operand tree names more nodes than are kept.
    bool wide = false;                     ///< More operands than are kept, all references: `wide_refs`.
    std::uint32_t count = 0;               ///< References (kept here unless wide).
    std::uint64_t shape = 0;               ///< A primitive's rule and operand tree, hashed.
    std::array<std::uint32_t, max_structure_refs> refs{};  ///< The nodes its references name, in pre-order.
    /// Appends a reference, or marks the structure too large.
    constexpr void add_ref(std::size_t node) {
        shape = mix_hash(shape, 1);  // a reference's place in the tree
        if (count == refs.size()) {
            too_large = true;
        } else {
            refs[count++] = static_cast<std::uint32_t>(node);
        }
    }
    /// Appends an operand: a reference to `node`, or (node is no_node) the condition
    /// whose structure is `test`.
    constexpr void add_operand(std::size_t node, const node_structure& test) {
        if (node != no_node) return add_ref(node);
        shape = mix_hash(shape, test.shape);
        too_large = too_large || test.too_large;
        for (std::size_t k = 0; k < test.count; ++k) {
            if (count == refs.size()) {
                too_large = true;
                break;
            }
            refs[count++] = test.refs[k];
        }
    }
};

/// \cond INTERNAL
// Variable templates and one function per node, not a class per node and operand: the
// compilers instantiate these for every node of every program that holds a literal.

/// An operand's structure when it is a condition (empty for a reference).
template <class Operand>
inline constexpr node_structure condition_structure{};
template <class Op, class... O>
inline constexpr node_structure condition_structure<test<Op, O...>> = [] {
    node_structure s{node_kind::primitive};
    s.shape = mix_hash(type_identity<Op>(), sizeof...(O));
    (s.add_operand(operand_node<O>, condition_structure<O>), ...);
    return s;
}();

/// A literal node's number among the kernel's literals (no_node for any other node).
template <class Node>
inline constexpr std::size_t literal_number = no_node;
template <std::size_t L>
inline constexpr std::size_t literal_number<constant<L>> = L;

/// A primitive's structure. One with more operands than are kept, all of them
/// references (a loop's: its variables, literals, init and parts), is `wide`: its
/// references are read from `wide_refs`, so that two copies of a loop are found too.
template <class R, class... O>
constexpr node_structure primitive_structure() {
    node_structure s{node_kind::primitive};
    s.shape = rule_identity<R>();
    if constexpr (sizeof...(O) > max_structure_refs) {
        // Only here: every primitive of every program with a literal comes through, and
        // most have one to three operands.
        constexpr std::array<std::size_t, sizeof...(O)> operands{operand_node<O>...};
        constexpr bool all_references = [&] {
            for (std::size_t node : operands)
                if (node == no_node) return false;
            return true;
        }();
        if constexpr (all_references) {
            s.wide = true;
            s.count = static_cast<std::uint32_t>(sizeof...(O));
            for (std::size_t k = 0; k < sizeof...(O); ++k) s.shape = mix_hash(s.shape, 1);
            return s;
        }
    }
    (s.add_operand(operand_node<O>, condition_structure<O>), ...);
    return s;
}

/// A node's structure: a variable's or a named constant's is empty (those are merged by
/// type already).
template <class Node>
inline constexpr node_structure structure_of{};
template <std::size_t L>
inline constexpr node_structure structure_of<constant<L>>{node_kind::literal, true};
template <class R, class... O>
inline constexpr node_structure structure_of<apply<R, O...>> = primitive_structure<R, O...>();

/// A wide node's references: its operands' nodes.
template <class Node>
inline constexpr std::array<std::uint32_t, 0> wide_refs{};
template <class R, class... O>
inline constexpr std::array<std::uint32_t, sizeof...(O)> wide_refs<apply<R, O...>>{
    static_cast<std::uint32_t>(operand_node<O>)...};
/// A node's references: a wide node's from `wide_refs`, null for another (its structure
/// keeps them).
template <class Node>
constexpr const std::uint32_t* wide_refs_of() {
    if constexpr (structure_of<Node>.wide) {
        return wide_refs<Node>.data();
    } else {
        return nullptr;
    }
}
/// \endcond

/// Node i's references, of structures s whose wide nodes' references are `wide`.
constexpr const std::uint32_t* refs_of(const node_structure* s, const std::uint32_t* const* wide, std::size_t i) {
    return s[i].wide ? wide[i] : s[i].refs.data();
}

/// Per node, the first node of equal structure (itself if none). Only nodes that hold a
/// literal can have another: payload-free subtrees of one type are one node already.
/// Found through a table hashed on the shape and the operands' classes, so the search
/// costs the compiler time in proportion to the nodes. (The loops index raw pointers:
/// g++'s constant evaluator pays for every call of std::array's operator[], and for a
/// tree of 2,049 nodes these calls were four fifths of the function's 1.2 s.)
template <std::size_t N>
constexpr std::array<std::size_t, N> structural_classes(const std::array<node_structure, N>& structures,
                                                        const std::array<const std::uint32_t*, N>& wide_storage) {
    constexpr std::size_t buckets = std::bit_ceil(2 * N + 1);
    std::array<std::size_t, buckets> table_storage{};
    std::array<std::size_t, N> classes{};
    std::array<bool, N> holds_storage{};
    const node_structure* s = structures.data();
    std::size_t* table = table_storage.data();
    std::size_t* cls = classes.data();
    bool* holds = holds_storage.data();  // holds a literal
    const std::uint32_t* const* wide = wide_storage.data();
    for (std::size_t b = 0; b < buckets; ++b) table[b] = no_node;
    std::size_t first_constant = no_node;
    for (std::size_t i = 0; i < N; ++i) {
        cls[i] = i;
        const node_structure& n = s[i];
        if (n.constant) {
            holds[i] = true;
            if (first_constant == no_node) first_constant = i;
            cls[i] = first_constant;
            continue;
        }
        if (n.kind != node_kind::primitive) continue;
        const std::uint32_t* refs = refs_of(s, wide, i);
        std::uint64_t h = n.shape;
        for (std::size_t k = 0; k < n.count; ++k) {
            holds[i] = holds[i] || holds[refs[k]];
            h = mix_hash(h, cls[refs[k]]);
        }
        if (!holds[i] || n.too_large) continue;
        std::size_t b = h & (buckets - 1);
        for (; table[b] != no_node; b = (b + 1) & (buckets - 1)) {
            // The same shape, and references to nodes of one class each.
            const node_structure& m = s[table[b]];
            const std::uint32_t* m_refs = refs_of(s, wide, table[b]);
            bool same = m.shape == n.shape && m.count == n.count;
            for (std::size_t k = 0; same && k < n.count; ++k) same = cls[refs[k]] == cls[m_refs[k]];
            if (same) {
                cls[i] = table[b];
                break;
            }
        }
        if (cls[i] == i) table[b] = i;
    }
    return classes;
}

}  // namespace gradc::lower
