#pragma once
/// \file
/// Which nodes of a program are copies of an equal subexpression and where each passes its
/// adjoint (lower/equal_copies.hpp says why copies are swept as one node): at compile time
/// the plan (which live nodes are copies, which slots a sweep zeroes), and when a kernel is
/// built from its literal values the forward table (per copy, its target's slot).

#include <array>
#include <cstddef>
#include <type_traits>

#include <gradc/lower/describe.hpp>
#include <gradc/lower/equal_copies.hpp>

namespace gradc::lower {

/// Which live nodes of a program are copies (a live node of its structural class comes
/// before them), their number in the forward table, and which adjoints a sweep must zero
/// and only add to.
template <std::size_t N>
struct copy_plan {
    std::array<bool, N> member{};       ///< Live, and its class has another live node.
    std::array<std::size_t, N> copy{};  ///< Its entry in the forward table, or no_node.
    std::array<bool, N> zeroed{};       ///< A member, or an operand a copy's skipped edge would write.
    /// For a copy with one live node of its class before it, that node (the only one it can
    /// pass its adjoint to), else no_node: its sweep adds at a slot known at compile time.
    std::array<std::size_t, N> sole_target{};
    std::size_t count = 0;              ///< Copies (entries of the forward table).
    std::size_t zeroed_count = 0;       ///< Zeroed nodes.
};

/// A node's operands as the copies' plan reads them, from a scalar program's node_desc or
/// an array program's node traits.
struct operand_view {
    bool primitive = false;                ///< A primitive (only those are copies).
    std::size_t arity = 0;                 ///< Its number of operands.
    const std::size_t* node = nullptr;     ///< Each operand's node (no_node for a condition).
    const bool* differentiable = nullptr;  ///< Whether each operand carries a derivative.
};

/// The copies of a program whose nodes have structural classes `cls`, operands `op` and
/// liveness `live`.
template <std::size_t N>
constexpr copy_plan<N> plan_copies(const std::array<std::size_t, N>& classes, const std::array<operand_view, N>& operands,
                                   const std::array<bool, N>& liveness) {
    copy_plan<N> p;
    std::array<std::size_t, N> live_members_storage{}, first_storage{}, seen_storage{};
    const std::size_t* cls = classes.data();
    const operand_view* op = operands.data();
    const bool* live = liveness.data();
    std::size_t* live_members = live_members_storage.data();
    std::size_t* first = first_storage.data();  // per class, its first live member
    std::size_t* seen = seen_storage.data();    // per class, its live members so far
    bool* member = p.member.data();
    bool* zeroed = p.zeroed.data();
    std::size_t* copy = p.copy.data();
    std::size_t* sole_target = p.sole_target.data();
    for (std::size_t i = 0; i < N; ++i)
        if (live[i] && op[i].primitive) ++live_members[cls[i]];
    for (std::size_t i = 0; i < N; ++i) {
        copy[i] = sole_target[i] = no_node;
        if (!live[i] || !op[i].primitive || live_members[cls[i]] < 2) continue;
        member[i] = zeroed[i] = true;
        if (seen[cls[i]] > 0) {
            copy[i] = p.count++;
            if (seen[cls[i]] == 1) sole_target[i] = first[cls[i]];
            for (std::size_t k = 0; k < op[i].arity; ++k)
                if (op[i].differentiable[k] && live[op[i].node[k]]) zeroed[op[i].node[k]] = true;
        } else {
            first[cls[i]] = i;
        }
        ++seen[cls[i]];
    }
    for (std::size_t i = 0; i < N; ++i) p.zeroed_count += zeroed[i] ? 1 : 0;
    return p;
}

/// A scalar program's operands (lower/describe.hpp) as operand views.
template <std::size_t N>
constexpr std::array<operand_view, N> operand_views(const std::array<node_desc, N>& d) {
    std::array<operand_view, N> v{};
    for (std::size_t i = 0; i < N; ++i)
        v[i] = {d[i].kind == node_kind::primitive, d[i].arity, d[i].operand.data(), d[i].differentiable.data()};
    return v;
}

/// Whether every live copy of a structural class has the same `flag` as the class's
/// first live node.
template <std::size_t N>
constexpr bool alike_in_class(const copy_plan<N>& p, const std::array<std::size_t, N>& cls,
                              const std::array<bool, N>& flag) {
    std::array<std::size_t, N> first{};
    first.fill(no_node);
    for (std::size_t i = 0; i < N; ++i) {
        if (!p.member[i]) continue;
        if (first[cls[i]] == no_node) first[cls[i]] = i;
        if (flag[i] != flag[first[cls[i]]]) return false;
    }
    return true;
}

/// The slots of the zeroed nodes, in node order.
template <std::size_t Z, std::size_t N>
constexpr std::array<std::size_t, Z> zeroed_slots(const std::array<bool, N>& zeroed, const std::array<std::size_t, N>& slot) {
    std::array<std::size_t, Z> z{};
    std::size_t k = 0;
    for (std::size_t i = 0; i < N; ++i)
        if (zeroed[i]) z[k++] = slot[i];
    return z;
}

/// Per node of the flat program Flat, the node a copy passes its adjoint to (the first
/// live node that computes the same, given these literal values), or no_node: not a copy,
/// or no live node before it computes the same, so it sweeps its own edges.
template <class Flat, std::size_t N, class Literals>
constexpr std::array<std::size_t, N> copy_targets(const copy_plan<N>& plan, const std::array<bool, N>& live,
                                                  const Literals& literals) {
    std::array<std::size_t, N> target{};
    target.fill(no_node);
    if (plan.count == 0) return target;
    using sc = structural_copies<Flat>;
    const auto canon = sc::canonical(literals);
    constexpr auto& c = sc::comparisons;
    // In node order, the first live node of each canonical node: a copy's target if it
    // comes before the copy (nodes of one canonical node are of one structural class).
    std::array<std::size_t, N> first_live{};
    first_live.fill(no_node);
    for (std::size_t k = 0; k < sc::compared_count; ++k) {
        const std::size_t i = c.node[c.by_order[k]];
        std::size_t& first = first_live[canon[i]];
        if (plan.copy[i] != no_node) target[i] = first;
        if (live[i] && first == no_node) first = i;
    }
    return target;
}

/// The forward table: per copy, in node order, where its target's adjoint is (`place`:
/// a scalar program's slots, an array program's offsets), or no_node.
template <std::size_t K, std::size_t N>
constexpr std::array<std::size_t, K> forward_table(const copy_plan<N>& plan, const std::array<std::size_t, N>& target,
                                                   const std::array<std::size_t, N>& place) {
    std::array<std::size_t, K> forward{};
    for (std::size_t i = 0; i < N; ++i)
        if (plan.copy[i] != no_node) forward[plan.copy[i]] = target[i] == no_node ? no_node : place[target[i]];
    return forward;
}

/// What a kernel binds to its program (lower/kernel.hpp): the literal values, and for each
/// copy of an equal subexpression the adjoint slot it passes its adjoint to, or no_node
/// (`forward_slots`, found from the values once).
template <std::size_t L, std::size_t K>
struct bound_literals {
    std::array<double, L> values{};        ///< The literal values, in graph order.
    std::array<std::size_t, K> forward{};  ///< Per copy, the slot its adjoint goes to, or no_node.
    bool forwards = false;                 ///< Some copy passes its adjoint on.
    /// Literal i.
    constexpr double operator[](std::size_t i) const { return values[i]; }
};
/// An array kernel's forward table of K copies (lower/array_kernel.hpp): an empty class
/// without copies, so that such a kernel is as large as its literals.
struct no_forward_table {
    /// No table.
    static constexpr const std::size_t* data() { return nullptr; }
};
/// The forward table's type for K copies.
template <std::size_t K>
using forward_table_of = std::conditional_t<K == 0, no_forward_table, std::array<std::size_t, K>>;

/// Without copies: the literal values alone (a kernel is as large as its literals).
template <std::size_t L>
struct bound_literals<L, 0> {
    std::array<double, L> values{};                                ///< The literal values, in graph order.
    static constexpr std::array<std::size_t, 0> forward{};        ///< No copy.
    static constexpr bool forwards = false;                        ///< No copy passes its adjoint on.
    /// Literal i.
    constexpr double operator[](std::size_t i) const { return values[i]; }
};

}  // namespace gradc::lower
