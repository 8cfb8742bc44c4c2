#pragma once
/// \file
/// How a node's operands' flat graphs are merged into the node's graph, and in which
/// order (Note [Merge order]).
///
/// Note [Merge order]
/// Merging a graph G2 into a graph G1 relocates every node of G2 (each becomes a new
/// type, renumbered and with its literals shifted), while the first graph merged into
/// the empty graph is taken as it is. Merged in the order written, `t0 + (t1 + (t2 +
/// ...))` (a C++ fold `(terms + ...)`, or any formula built from the back of a list)
/// relocates the whole right-hand side at every level: time and memory grow with the
/// square of the nodes (docs/architecture.md, "Compile time"). So an operand whose graph is
/// large (more than `graph_run_length` nodes) and larger than the first operand's is
/// merged first and the others after it: each merge relocates only the smaller
/// operands, as in a merge of the smaller into the larger set, and building a graph
/// costs in proportion to its nodes. Small operands keep the written order, so small
/// programs print as written. The order decides where the operands' nodes and literals
/// sit in the node's graph; the node's literal values are joined in the same order
/// (`join_literal_values_in`).

#include <array>
#include <cstddef>
#include <utility>

#include <gradc/expr/graph.hpp>
#include <gradc/expr/pack.hpp>

namespace gradc::expr {

/// \cond INTERNAL
template <class... T>
struct type_list {};

/// The order in which operands whose graphs have Sizes... nodes are merged: entry p is
/// the operand merged p-th (Note [Merge order]). Templated on numbers only, so nothing
/// is named with an operand's type.
template <std::size_t... Sizes>
consteval std::array<std::size_t, sizeof...(Sizes)> merge_order() {
    constexpr std::size_t n = sizeof...(Sizes);
    const std::array<std::size_t, n> size{Sizes...};
    std::size_t largest = 0;
    for (std::size_t k = 1; k < n; ++k)
        if (size[k] > size[largest]) largest = k;
    const bool first_is_largest = largest == 0 || size[largest] <= graphs::graph_run_length;
    std::array<std::size_t, n> order{};
    std::size_t p = 0;
    if (!first_is_largest) order[p++] = largest;
    for (std::size_t k = 0; k < n; ++k)
        if (first_is_largest || k != largest) order[p++] = k;
    return order;
}

/// The flat form of an operand inside a graph whose positions table is P: a reference
/// to the operand's node (the last of its own graph), or a condition's test relocated.
template <class A, class P>
struct operand_form {
    using type = graphs::ref<P::template at<A::graph::size - 1>()>;
};
template <class A, class P>
    requires(A::is_condition)
struct operand_form<A, P> {
    using type = typename graphs::relocate_operand<typename A::test, P>::type;
};

/// The operands' graphs merged in the order given, and each operand's flat form in the
/// result, in the same order.
template <class G, class Forms, class... Operands>
struct merge_operands {
    using graph = G;
    using forms = Forms;
};
template <class G, class... F, class A, class... Rest>
struct merge_operands<G, type_list<F...>, A, Rest...> {
    using merged = graphs::merge<G, typename A::graph>;
    using next = merge_operands<typename merged::type,
                                type_list<F..., typename operand_form<A, typename merged::positions>::type>, Rest...>;
    using graph = typename next::graph;
    using forms = typename next::forms;
};

/// The operands Args... merged by Note [Merge order]: `graph`, and `forms` in the order
/// written. The first specialization is the common case (the order written), with no
/// permutation to instantiate.
template <bool AsWritten, class Order, class Seq, class... Args>
struct ordered_merge {
    using merged = merge_operands<graphs::empty_graph, type_list<>, Args...>;
    using graph = typename merged::graph;
    using forms = typename merged::forms;
};

/// Forms listed in merge order, put back in the order written.
template <class Order, class Seq, class Forms>
struct forms_as_written;
template <class Order, std::size_t... K, class... F>
struct forms_as_written<Order, std::index_sequence<K...>, type_list<F...>> {
    using type = type_list<pack_element<Order::template at<K>(), F...>...>;
};

/// Where each operand sits in the merge order (the inverse permutation).
template <std::size_t N>
consteval std::array<std::size_t, N> merge_positions(const std::array<std::size_t, N>& order) {
    std::array<std::size_t, N> position{};
    for (std::size_t p = 0; p < N; ++p) position[order[p]] = p;
    return position;
}

template <class Order, std::size_t... K, class... Args>
struct ordered_merge<false, Order, std::index_sequence<K...>, Args...> {
    using merged = merge_operands<graphs::empty_graph, type_list<>, pack_element<Order::template at<K>(), Args...>...>;
    using graph = typename merged::graph;
    using positions = numbers<merge_positions<sizeof...(K)>({Order::template at<K>()...})>;
    using forms = typename forms_as_written<positions, std::index_sequence<K...>, typename merged::forms>::type;
};

/// The operands' graphs merged for a node or condition over Args... (merge_order moves
/// at most the largest operand to the front, so the order is the written one exactly
/// when the first operand stays first).
template <class... Args>
using operands_merged =
    ordered_merge<merge_order<Args::graph::size...>()[0] == 0, numbers<merge_order<Args::graph::size...>()>,
                  std::make_index_sequence<sizeof...(Args)>, Args...>;

/// Note [Literal copies]
/// Every node holds the literal values of its whole subtree, so a formula built as a
/// chain of statements (`h = c + x * h;` a thousand times, a Horner polynomial) holds
/// values in the square of its literals across its locals, and building it copies as
/// many. Inlined, those copies gave the optimizer millions of scalars to split out of
/// arrays (clang's scalar replacement of aggregates took two thirds of the compile time
/// of a 2,000-node Horner polynomial, docs/architecture.md, "Compile time"). A join of more
/// than `inline_literal_limit` values therefore runs out of line, where the arrays stay
/// in memory; smaller joins, every kernel of ordinary size, are inlined as before. The
/// join runs once, when the expression is built, never when a kernel is called.
inline constexpr std::size_t inline_literal_limit = 128;

/// The operands' literal values (parts, in the order written) joined in the merge order
/// of operands whose graphs have Sizes... nodes: the node's literals in graph order.
template <std::size_t... Sizes, std::size_t... L>
constexpr std::array<double, (L + ... + 0)> join_in_merge_order(const std::array<double, L>&... parts) {
    static_assert(sizeof...(Sizes) == sizeof...(L), "one graph size per operand");
    constexpr auto order = merge_order<Sizes...>();
    const double* data[] = {parts.data()...};
    constexpr std::size_t count[] = {L...};
    std::array<double, (L + ... + 0)> joined{};
    std::size_t k = 0;
    for (std::size_t p = 0; p < order.size(); ++p)
        for (std::size_t i = 0; i < count[order[p]]; ++i) joined[k++] = data[order[p]][i];
    return joined;
}

/// The same join, never inlined (Note [Literal copies]).
template <std::size_t... Sizes, std::size_t... L>
[[gnu::noinline]] constexpr std::array<double, (L + ... + 0)> join_in_merge_order_out_of_line(
    const std::array<double, L>&... parts) {
    return join_in_merge_order<Sizes...>(parts...);
}

/// A node's literal values from its operands' (Note [Merge order], Note [Literal copies]).
template <std::size_t... Sizes, std::size_t... L>
constexpr std::array<double, (L + ... + 0)> join_literal_values_in(const std::array<double, L>&... parts) {
    if constexpr ((L + ... + 0) > inline_literal_limit) {
        return join_in_merge_order_out_of_line<Sizes...>(parts...);
    } else {
        return join_in_merge_order<Sizes...>(parts...);
    }
}
/// \endcond

}  // namespace gradc::expr
