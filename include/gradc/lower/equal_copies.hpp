#pragma once
/// \file
/// Copies of one subexpression that holds a literal. `const auto t = cbrt(where(x0 <= -2.0,
/// x3, x5));` used twice is two nodes of the flat graph: expr/graph.hpp merges equal
/// subtrees by type, and a subtree that carries a literal is never merged, since its type
/// cannot tell the same object from an equal one holding another value (`x*2.0 + x*3.0`).
/// Both nodes compute the same value, but a reverse sweep over two nodes is not one over a
/// single node: where an infinite partial meets an adjoint of 0, the copy that gets 0
/// gives 0·∞ = NaN, and the single node that sums its adjoints first (as the dynamic
/// mode's one tensor does, "Autograd mechanics", "Gradients for non-differentiable
/// functions") gives ∞; elsewhere the two orders round differently.
///
/// So copies are found in two steps, and then swept as one node:
///  - at compile time, nodes of equal *structure* (lower/node_structure.hpp): the same
///    rule, and operand trees alike, whose references name the same node or nodes of
///    equal structure, any literal counting as equal to any other;
///  - at run time, when a kernel is built from its literal values (`canonical`): nodes of
///    equal structure whose literals are equal bit for bit, operands first, are the same
///    computation; each node's canonical node is the first of its equals;
///  - the adjoint sweep (lower/program.hpp, with the plan and forward table of
///    lower/copy_plan.hpp) adds a copy's adjoint to the first live node
///    equal to it and skips the copy's own edges (`forward_slots`; its slots and its
///    operands' are zeroed first and only added to, since whether an edge runs is known
///    only at run time);
///  - an array program's primal (lower/array_steps.hpp) gives a copy its target's value
///    instead of computing it again, where the target runs before it in the same sweep:
///    a subexpression with a run-time index or segment used twice runs once. Scalar
///    programs compute each copy's value, and tangents run each copy's own edges: the
///    copies' values are equal.
/// A kernel without literals, or whose literal-holding nodes all differ in structure,
/// gets empty tables and the sweeps it had.

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>

#include <gradc/lower/describe.hpp>
#include <gradc/lower/flat.hpp>
#include <gradc/lower/node_structure.hpp>

namespace gradc::lower {

/// What the run-time comparison reads, for the M primitives that share their structural
/// class with another node (the compared nodes) and their R references in all: the
/// nodes grouped by class, each class in node order.
template <std::size_t M, std::size_t R>
struct copy_comparisons {
    std::array<std::size_t, M> node{};           ///< The compared nodes, by class.
    std::array<std::size_t, M> class_start{};    ///< Position (in `node`) of the first of its class.
    std::array<std::size_t, M> by_order{};       ///< Positions in `node`, in node order.
    std::array<std::size_t, M + 1> first_ref{};  ///< node[p]'s references: ref[first_ref[p] .. first_ref[p + 1]).
    std::array<std::size_t, R> ref{};            ///< The node each reference names.
    std::array<std::size_t, R> literal{};        ///< The literal a referenced constant holds, else no_node.
};

/// Per structural class, its number of primitives (indexed by the class's first node).
/// The analyses here index raw pointers, not std::array (lower/node_structure.hpp,
/// `structural_classes`, says why).
template <std::size_t N>
constexpr std::array<std::size_t, N> class_members(const std::array<node_structure, N>& structures,
                                                   const std::array<std::size_t, N>& classes) {
    std::array<std::size_t, N> members{};
    const node_structure* s = structures.data();
    const std::size_t* cls = classes.data();
    std::size_t* m = members.data();
    for (std::size_t i = 0; i < N; ++i)
        if (s[i].kind == node_kind::primitive) ++m[cls[i]];
    return members;
}

/// Counts of the compared nodes and of their references.
template <std::size_t N>
constexpr std::array<std::size_t, 2> comparison_sizes(const std::array<node_structure, N>& structures,
                                                      const std::array<std::size_t, N>& classes) {
    const auto members_storage = class_members(structures, classes);
    const node_structure* s = structures.data();
    const std::size_t* cls = classes.data();
    const std::size_t* members = members_storage.data();
    std::size_t compared = 0, refs = 0;
    for (std::size_t i = 0; i < N; ++i) {
        if (s[i].kind != node_kind::primitive || members[cls[i]] < 2) continue;
        ++compared;
        refs += s[i].count;
    }
    return {compared, refs};
}

/// The comparison tables of M compared nodes with R references in all.
template <std::size_t M, std::size_t R, std::size_t N>
constexpr copy_comparisons<M, R> plan_comparisons(const std::array<node_structure, N>& structures,
                                                  const std::array<const std::uint32_t*, N>& wide,
                                                  const std::array<std::size_t, N>& classes,
                                                  const std::array<std::size_t, N>& literals) {
    copy_comparisons<M, R> c;
    const auto members_storage = class_members(structures, classes);
    std::array<std::size_t, N> start_storage{}, placed_storage{};
    const node_structure* s = structures.data();
    const std::size_t* cls = classes.data();
    const std::size_t* literal_of = literals.data();
    const std::size_t* members = members_storage.data();
    std::size_t* start = start_storage.data();
    std::size_t* placed = placed_storage.data();
    std::size_t* node = c.node.data();
    std::size_t* class_start = c.class_start.data();
    std::size_t* by_order = c.by_order.data();
    std::size_t next = 0;  // classes laid out in the order of their first node
    for (std::size_t i = 0; i < N; ++i)
        if (s[i].kind == node_kind::primitive && cls[i] == i && members[i] >= 2) start[i] = next, next += members[i];
    std::size_t order = 0;
    for (std::size_t i = 0; i < N; ++i) {
        if (s[i].kind != node_kind::primitive || members[cls[i]] < 2) continue;
        const std::size_t p = start[cls[i]] + placed[cls[i]]++;
        node[p] = i;
        class_start[p] = start[cls[i]];
        by_order[order++] = p;
    }
    std::size_t* first_ref = c.first_ref.data();
    std::size_t* ref = c.ref.data();
    std::size_t* literal = c.literal.data();
    std::size_t r = 0;
    for (std::size_t p = 0; p < M; ++p) {
        first_ref[p] = r;
        const node_structure& n = s[node[p]];
        const std::uint32_t* refs = refs_of(s, wide.data(), node[p]);
        for (std::size_t k = 0; k < n.count; ++k, ++r) {
            ref[r] = refs[k];
            literal[r] = literal_of[refs[k]];
        }
    }
    first_ref[M] = r;
    return c;
}

/// Whether compared nodes a and b (positions in `node`) are the same computation: each
/// pair of references names one node, two constants of bit-equal values (so 0.0 and -0.0
/// differ, and a NaN equals itself), or two nodes with one canonical node.
template <std::size_t M, std::size_t R, std::size_t N, class Literals>
constexpr bool same_computation(const copy_comparisons<M, R>& c, const std::array<std::size_t, N>& canon,
                                const Literals& literals, std::size_t a, std::size_t b) {
    for (std::size_t k = 0; k < c.first_ref[a + 1] - c.first_ref[a]; ++k) {
        const std::size_t ra = c.first_ref[a] + k, rb = c.first_ref[b] + k;
        if (c.ref[ra] == c.ref[rb]) continue;
        if (c.literal[ra] != no_node) {
            if (std::bit_cast<std::uint64_t>(double(literals[c.literal[ra]])) !=
                std::bit_cast<std::uint64_t>(double(literals[c.literal[rb]])))
                return false;
        } else if (canon[c.ref[ra]] != canon[c.ref[rb]]) {
            return false;
        }
    }
    return true;
}

/// The copies of a flat program: its nodes' structures and classes (compile time), and
/// each node's canonical node for given literal values (run time).
template <class Flat>
struct structural_copies;
/// The copies of the flat program of Nodes.
template <class... Nodes>
struct structural_copies<flat<Nodes...>> {
    static constexpr std::size_t size = sizeof...(Nodes);  ///< Nodes.
    /// Each node's literal number (no_node but for a literal node).
    static constexpr std::array<std::size_t, size> literal_of{literal_number<Nodes>...};
    /// A program without literals has no copies, and its structures are not looked at. (A
    /// loop, not a fold: clang limits a fold's expansion to 256 terms.)
    static constexpr bool has_literals = [] {
        for (const std::size_t l : literal_of)
            if (l != no_node) return true;
        return false;
    }();
    /// Every node's structure (for a program with literals only).
    static constexpr auto structures = [] {
        if constexpr (has_literals) {
            return std::array<node_structure, size>{structure_of<Nodes>...};
        } else {
            return std::array<node_structure, 0>{};
        }
    }();
    /// The wide nodes' references (lower/node_structure.hpp), null for the others.
    static constexpr auto wide = [] {
        if constexpr (has_literals) {
            return std::array<const std::uint32_t*, size>{wide_refs_of<Nodes>()...};
        } else {
            return std::array<const std::uint32_t*, 0>{};
        }
    }();
    /// Per node, the first node of equal structure (itself if none).
    static constexpr std::array<std::size_t, size> classes = [] {
        if constexpr (has_literals) {
            return structural_classes(structures, wide);
        } else {
            std::array<std::size_t, size> cls{};
            for (std::size_t i = 0; i < size; ++i) cls[i] = i;
            return cls;
        }
    }();
    /// Compared nodes and their references.
    static constexpr std::array<std::size_t, 2> sizes = [] {
        if constexpr (has_literals) {
            return comparison_sizes(structures, classes);
        } else {
            return std::array<std::size_t, 2>{};
        }
    }();
    /// What `canonical` reads at run time.
    static constexpr copy_comparisons<sizes[0], sizes[1]> comparisons = [] {
        if constexpr (sizes[0] > 0) {
            return plan_comparisons<sizes[0], sizes[1]>(structures, wide, classes, literal_of);
        } else {
            return copy_comparisons<0, 0>{};
        }
    }();
    /// Nodes that share their structural class with another node (the compared ones).
    static constexpr std::size_t compared_count = sizes[0];

    /// Per node, the first node that computes the same given these literal values (itself
    /// if none): nodes of one structural class are compared in node order, operands first,
    /// each with the first of every group of equals found so far, through a table hashed
    /// on its class and its references (literal bits, or the referenced node's canonical
    /// node), so that building a kernel costs time in proportion to its nodes, not to the
    /// square of a class's size (512 leaves of one class took 0.7 ms).
    template <class Literals>
    static constexpr std::array<std::size_t, size> canonical(const Literals& literals) {
        std::array<std::size_t, size> canon{};
        for (std::size_t i = 0; i < size; ++i) canon[i] = i;
        if constexpr (compared_count > 0) {
            constexpr auto& c = comparisons;
            constexpr std::size_t buckets = std::bit_ceil(2 * compared_count);
            std::array<std::uint32_t, buckets> table{};  // a position in `node` + 1; 0 for none
            for (std::size_t k = 0; k < compared_count; ++k) {
                const std::size_t p = c.by_order[k];
                std::uint64_t h = c.class_start[p];
                for (std::size_t r = c.first_ref[p]; r < c.first_ref[p + 1]; ++r)
                    h = mix_hash(h, c.literal[r] != no_node ? std::bit_cast<std::uint64_t>(double(literals[c.literal[r]]))
                                                            : canon[c.ref[r]]);
                std::size_t b = h & (buckets - 1);
                for (; table[b] != 0; b = (b + 1) & (buckets - 1)) {
                    const std::size_t q = table[b] - 1;
                    if (c.class_start[q] == c.class_start[p] && same_computation(c, canon, literals, q, p)) {
                        canon[c.node[p]] = canon[c.node[q]];
                        break;
                    }
                }
                if (table[b] == 0) table[b] = static_cast<std::uint32_t>(p + 1);
            }
        }
        return canon;
    }
};

}  // namespace gradc::lower
