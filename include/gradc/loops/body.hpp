#pragma once
/// \file
/// A loop's body as a program of its own. `gradc::sum_over(n, f)` calls f once, with
/// the loop's counter, and lowers the expression it returns like a kernel's output
/// (lower/merge_outputs.hpp, lower/array_program.hpp): one program, run n times. What
/// the body reads from outside becomes the loop node's operands, in this order:
///  1. the variables it uses (ascending), which are also its wrt variables: its adjoint
///     adds to theirs;
///  2. the counters of enclosing loops it uses (nested loops), read as numbers;
///  3. its literals, in graph order: the body's program reads them from its own array,
///     filled from these operands when the loop runs;
///  4. a chained loop's init, then the carries of enclosing chained loops the body reads
///     (outer carries, read as variables, their adjoints handed back to the enclosing
///     step), then the parts hoisted out of it;
///  5. the count's source (a literal n, or the array whose extent n is).
/// The parts of the body that depend neither on the counter nor on the carry (a chained
/// loop's, loops/loop.hpp) are hoisted out (`hoisted` below). A chained loop's carry is
/// read by the body's programs as one more variable, after the kernel's.

#include <algorithm>
#include <array>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include <gradc/expr/loop_carry.hpp>
#include <gradc/expr/loop_counter.hpp>
#include <gradc/lower/array_program.hpp>
#include <gradc/lower/array_set.hpp>
#include <gradc/lower/merge_outputs.hpp>

namespace gradc::loops {

/// \cond INTERNAL

/// Of a flat node: the tag of the loop counter it is and of the loop whose carry it is
/// (void for another node), and the variable it is (no_node for another node).
template <class Node>
struct node_facts {
    using counter_tag = void;
    using carry_tag = void;
    using carry_expression = void;  ///< The carry leaf an outer carry is, as an expression.
    static constexpr std::size_t variable = lower::no_node;
};
template <class Tag>
struct node_facts<graphs::named<expr::loop_counter<Tag>>> {
    using counter_tag = Tag;
    using carry_tag = void;
    using carry_expression = void;
    static constexpr std::size_t variable = lower::no_node;
};
template <class Tag, std::size_t R, std::size_t C, rules::arrays::shape_kind K>
struct node_facts<graphs::named<expr::loop_carry<Tag, R, C, K>>> {
    using counter_tag = void;
    using carry_tag = Tag;
    using carry_expression = expr::loop_carry<Tag, R, C, K>;
    static constexpr std::size_t variable = lower::no_node;
};
template <std::size_t J>
struct node_facts<graphs::input<J>> {
    using counter_tag = void;
    using carry_tag = void;
    using carry_expression = void;
    static constexpr std::size_t variable = J;
};

/// The nodes an operand reads: a node, or a condition's operands.
template <class Operand>
struct operand_reads {
    template <std::size_t N>
    static constexpr void into(std::array<bool, N>&) {}
};
template <std::size_t I>
struct operand_reads<graphs::ref<I>> {
    template <std::size_t N>
    static constexpr void into(std::array<bool, N>& r) {
        r[I] = true;
    }
};
template <class Op, class... O>
struct operand_reads<graphs::test<Op, O...>> {
    template <std::size_t N>
    static constexpr void into(std::array<bool, N>& r) {
        (operand_reads<O>::into(r), ...);
    }
};
/// The nodes a node reads.
template <class Node>
struct node_reads {
    template <std::size_t N>
    static constexpr std::array<bool, N> of() {
        return {};
    }
    static constexpr bool is_apply = false;
};
template <class R, class... O>
struct node_reads<graphs::apply<R, O...>> {
    template <std::size_t N>
    static constexpr std::array<bool, N> of() {
        std::array<bool, N> r{};
        (operand_reads<O>::into(r), ...);
        return r;
    }
    static constexpr bool is_apply = true;
};

/// A carry node's shape (another node's: unused).
template <class Node>
constexpr rules::arrays::dims carry_shape_of() {
    if constexpr (std::is_void_v<typename node_facts<Node>::carry_expression>) {
        return {};
    } else {
        return node_facts<Node>::carry_expression::shape;
    }
}

template <class Tag, class Flat>
struct body_nodes;

/// What the body of the loop whose counter has tag Tag reads from outside, and how its
/// steps split (see the file's comment).
template <class Tag, class... Nodes>
struct body_nodes<Tag, lower::flat<Nodes...>> {
    static constexpr std::size_t size = sizeof...(Nodes);
    using mask = std::array<bool, size>;
    static constexpr std::array<mask, size> reads{node_reads<Nodes>::template of<size>()...};
    static constexpr mask own{std::is_same_v<typename node_facts<Nodes>::counter_tag, Tag>...};
    static constexpr mask outer{(!std::is_void_v<typename node_facts<Nodes>::counter_tag> &&
                                 !std::is_same_v<typename node_facts<Nodes>::counter_tag, Tag>)...};
    /// The number of nodes in m.
    static constexpr std::size_t count_in(const mask& m) {
        std::size_t c = 0;
        for (bool b : m) c += b ? 1 : 0;
        return c;
    }
    /// The nodes in M, ascending.
    template <const mask& M>
    static constexpr std::array<std::size_t, count_in(M)> nodes_in() {
        std::array<std::size_t, count_in(M)> found{};
        std::size_t k = 0;
        for (std::size_t n = 0; n < size; ++n)
            if (M[n]) found[k++] = n;
        return found;
    }

    /// The loop's own carry (a chained loop's, loops/loop.hpp).
    static constexpr mask carry{std::is_same_v<typename node_facts<Nodes>::carry_tag, Tag>...};
    /// The carries of enclosing chained loops that the body reads (outer carries): each
    /// is read as one more variable, an operand of the loop and of its parts.
    static constexpr mask outer_carry{(!std::is_void_v<typename node_facts<Nodes>::carry_tag> &&
                                       !std::is_same_v<typename node_facts<Nodes>::carry_tag, Tag>)...};
    static constexpr std::size_t outer_carry_count = count_in(outer_carry);
    /// Their nodes, ascending.
    static constexpr auto outer_carry_nodes = nodes_in<outer_carry>();
    static constexpr mask is_apply{node_reads<Nodes>::is_apply...};
    static constexpr std::size_t variable_count = ((node_facts<Nodes>::variable != lower::no_node ? 1 : 0) + ... + 0);
    /// The variables used, ascending.
    static constexpr std::array<std::size_t, variable_count> variables = [] {
        std::array<std::size_t, variable_count> v{};
        std::size_t k = 0;
        for (std::size_t j : {node_facts<Nodes>::variable...})
            if (j != lower::no_node) v[k++] = j;
        std::sort(v.begin(), v.end());
        return v;
    }();

    /// Every node that the nodes of `from` read, directly or not, and those nodes; the
    /// reads of the nodes in `stop` are not followed.
    static constexpr mask closure(mask from, const mask& stop = {}) {
        for (std::size_t n = size; n-- > 0;)
            if (from[n] && !stop[n])
                for (std::size_t c = 0; c < n; ++c) from[c] = from[c] || reads[n][c];
        return from;
    }
    /// Per node: the variable it is, or no_node.
    static constexpr std::array<std::size_t, size> variable_of{node_facts<Nodes>::variable...};
    /// Whether the nodes of `m` include variable v's.
    static constexpr bool holds_variable(const mask& m, std::size_t v) {
        for (std::size_t n = 0; n < size; ++n)
            if (m[n] && variable_of[n] == v) return true;
        return false;
    }
    static constexpr mask only(std::size_t n) {
        mask m{};
        m[n] = true;
        return m;
    }

    /// The node of the loop's own counter, or no_node when the body does not use it.
    static constexpr std::size_t own_node = [] {
        for (std::size_t i = 0; i < size; ++i)
            if (own[i]) return i;
        return lower::no_node;
    }();

    /// The body's result node (the last: lower::lowered lists an output's node last).
    static constexpr std::size_t output = size - 1;
    /// The nodes that depend on the loop's counter or carry: they run at every step.
    static constexpr mask depends = [] {
        mask d{};
        for (std::size_t n = 0; n < size; ++n) {
            d[n] = own[n] || carry[n];
            for (std::size_t c = 0; c < n; ++c) d[n] = d[n] || (reads[n][c] && d[c]);
        }
        return d;
    }();
    /// Whether the result depends on the counter; when not, every step is the same and
    /// nothing is hoisted (each step runs the whole body).
    static constexpr bool result_varies = depends[output];
    static constexpr mask varying = result_varies ? depends : closure(only(output));
    /// The nodes hoisted out of the loop: computed once, in the enclosing program (each a
    /// `body_part`, loops/body_part.hpp), where they do not depend on the counter:
    /// operations read by a step's nodes.
    static constexpr mask hoisted = [] {
        mask h{};
        for (std::size_t n = 0; n < size; ++n)
            if (varying[n])
                for (std::size_t c = 0; c < n; ++c) h[c] = h[c] || (reads[n][c] && !varying[c] && is_apply[c]);
        return h;
    }();
    static constexpr std::size_t hoisted_count = count_in(hoisted);
    static constexpr auto hoisted_nodes = nodes_in<hoisted>();
    /// What one step reads: the varying nodes, the hoisted ones, and the leaves they read.
    static constexpr mask step_reads = closure(only(output), hoisted);
    /// Once per run of the loop: the leaves a step reads (literals, counters).
    static constexpr mask once = [] {
        mask m{};
        for (std::size_t n = 0; n < size; ++n) m[n] = step_reads[n] && !varying[n] && !hoisted[n];
        return m;
    }();

    /// The enclosing loops' counters among the nodes of a mask, in node order.
    template <const mask& M>
    static constexpr std::size_t counter_count = [] {
        std::size_t c = 0;
        for (std::size_t n = 0; n < size; ++n) c += M[n] && outer[n] ? 1 : 0;
        return c;
    }();
    template <const mask& M>
    static constexpr std::array<std::size_t, counter_count<M>> counters_in = [] {
        std::array<std::size_t, counter_count<M>> c{};
        std::size_t k = 0;
        for (std::size_t n = 0; n < size; ++n)
            if (M[n] && outer[n]) c[k++] = n;
        return c;
    }();
    /// The outer carries as expressions (their leaves): operands of a loop node or a body part.
    template <class Sequence>
    struct outer_carries_tuple;
    template <std::size_t... i>
    struct outer_carries_tuple<std::index_sequence<i...>> {
        using type = std::tuple<
            typename node_facts<expr::pack_element<outer_carry_nodes[i], Nodes...>>::carry_expression...>;
    };
    using outer_carries = typename outer_carries_tuple<std::make_index_sequence<outer_carry_count>>::type;
    /// Their shapes.
    static constexpr std::array<rules::arrays::dims, outer_carry_count> outer_carry_shapes = [] {
        const std::array<rules::arrays::dims, size> all{carry_shape_of<Nodes>()...};
        std::array<rules::arrays::dims, outer_carry_count> s{};
        for (std::size_t j = 0; j < outer_carry_count; ++j) s[j] = all[outer_carry_nodes[j]];
        return s;
    }();

    /// Those counters as expressions: operands of a loop node or a body part.
    template <const auto& Counters, class Sequence>
    struct counters_tuple;
    template <const auto& Counters, std::size_t... i>
    struct counters_tuple<Counters, std::index_sequence<i...>> {
        using type = std::tuple<
            expr::loop_counter<typename node_facts<expr::pack_element<Counters[i], Nodes...>>::counter_tag>...>;
    };
    template <const mask& M>
    using counters_of =
        typename counters_tuple<counters_in<M>, std::make_index_sequence<counter_count<M>>>::type;

    /// The nodes a hoisted node needs (its subtree).
    template <std::size_t H>
    static constexpr mask subtree = closure(only(H));
};

template <std::size_t N, const std::array<std::size_t, N>& V>
constexpr auto sequence_of() {
    return []<std::size_t... i>(std::index_sequence<i...>) { return std::index_sequence<V[i]...>{}; }(
        std::make_index_sequence<N>{});
}

/// The sequence v..., First + h... (declared only: read by decltype).
template <std::size_t First, std::size_t... v, std::size_t... h>
std::index_sequence<v..., (First + h)...> joined_sequence(std::index_sequence<v...>, std::index_sequence<h...>);

/// The variable set Set with one more variable per entry of Extra (their shapes), after its own.
template <class Set, const auto& Extra, class Sequence>
struct extended_set;
template <class Name, rules::arrays::dims... S, const auto& Extra, std::size_t... h>
struct extended_set<expr::variable_set<Name, S...>, Extra, std::index_sequence<h...>> {
    using type = expr::variable_set<Name, S..., Extra[h]...>;
};
/// The flat list with node i replaced by variable First + Rank[i] where Rank[i] is not no_node.
template <class Flat, std::size_t First, const auto& Rank, class Sequence>
struct replaced_by_variables;
template <class... Nodes, std::size_t First, const auto& Rank, std::size_t... i>
struct replaced_by_variables<lower::flat<Nodes...>, First, Rank, std::index_sequence<i...>> {
    using type = lower::flat<std::conditional_t<Rank[i] == lower::no_node, Nodes, graphs::input<First + Rank[i]>>...>;
};

/// The body's program: the expression Body lowered as one output, differentiated with
/// respect to the variables it uses. Two of them when parts are hoisted:
///  - `program`, the body as written: the hoisted parts (loops/body_part.hpp) run its
///    subtrees;
///  - `step_program`, the steps': each hoisted node is read as one more variable
///    (number arity + h, after the kernel's), so a step reads the hoisted operand's
///    values where they are and adds its adjoint to the hoisted operand's directly, with
///    nothing copied in or out per run of the loop (the copies were 40 % of a GMM's
///    map-reduce over points). The nodes keep their places; the hoisted ones' subtrees
///    stay in the list, unread.
/// A chained loop's (Carry, a loop_carry type, not void) reads its carry as variable
/// number arity in both, also a wrt variable; the carries of enclosing chained loops
/// that the body reads follow it (outer carries, wrt variables too: their adjoints go
/// back to the enclosing loop's step), then the hoisted ones.
/// Set is the variable set when the body uses no kernel variable (its carry alone).
template <class Body, class Tag, class Carry = void, class FallbackSet = void>
struct body_program {
    using lowered = lower::lowered<Body>;
    using flat_type = typename lowered::flat_type;
    using own_set = typename lower::array_set_of<typename lowered::merged::graph>::type;
    using nodes = body_nodes<Tag, flat_type>;
    /// A body that reads no kernel variable takes FallbackSet (a chained loop's init's),
    /// or none (an empty set) when it reads an outer carry: its variables are its carries.
    using set = std::conditional_t<
        !std::is_void_v<own_set>, own_set,
        std::conditional_t<!std::is_void_v<FallbackSet> || nodes::outer_carry_count == 0, FallbackSet,
                           expr::variable_set<body_nodes<Tag, flat_type>>>>;
    using wrt = decltype(sequence_of<nodes::variable_count, nodes::variables>());
    static constexpr std::size_t literal_count = lowered::literal_count;
    static constexpr std::size_t carry_count = std::is_void_v<Carry> ? 0 : 1;
    /// The carries the programs read as variables: the loop's own, then the outer ones.
    static constexpr std::size_t carries = carry_count + nodes::outer_carry_count;

    static constexpr std::size_t arity = set::size;
    /// Per node: its rank among the carries (the own one 0, outer carry j carry_count + j),
    /// or no_node.
    static constexpr std::array<std::size_t, nodes::size> carry_rank = [] {
        std::array<std::size_t, nodes::size> r{};
        for (std::size_t n = 0; n < nodes::size; ++n) r[n] = nodes::carry[n] ? 0 : lower::no_node;
        for (std::size_t j = 0; j < nodes::outer_carry_count; ++j) r[nodes::outer_carry_nodes[j]] = carry_count + j;
        return r;
    }();
    static constexpr std::array<rules::arrays::dims, carries> carry_shapes = [] {
        std::array<rules::arrays::dims, carries> s{};
        if constexpr (carry_count == 1) s[0] = Carry::shape;
        for (std::size_t j = 0; j < nodes::outer_carry_count; ++j) s[carry_count + j] = nodes::outer_carry_shapes[j];
        return s;
    }();
    using program_set = typename extended_set<set, carry_shapes, std::make_index_sequence<carries>>::type;
    using program_flat_type =
        typename replaced_by_variables<flat_type, arity, carry_rank, std::make_index_sequence<nodes::size>>::type;
    using program_wrt = decltype(joined_sequence<arity>(wrt{}, std::make_index_sequence<carries>{}));
    using program = lower::array_program<program_set, program_flat_type, typename lowered::output_nodes, program_wrt>;
    static constexpr std::size_t output_node = program::output_node(0);
    static_assert(output_node == nodes::output, "gradc internal: a loop body's result is not its last node");

    /// Per node: its rank among the steps' extra variables (the carry, then the hoisted
    /// nodes), or no_node.
    static constexpr std::array<std::size_t, nodes::size> step_rank = [] {
        std::array<std::size_t, nodes::size> r = carry_rank;
        for (std::size_t h = 0; h < nodes::hoisted_count; ++h) r[nodes::hoisted_nodes[h]] = carries + h;
        return r;
    }();
    static constexpr std::array<rules::arrays::dims, carries + nodes::hoisted_count> step_shapes = [] {
        std::array<rules::arrays::dims, carries + nodes::hoisted_count> s{};
        for (std::size_t c = 0; c < carries; ++c) s[c] = carry_shapes[c];
        for (std::size_t h = 0; h < nodes::hoisted_count; ++h) s[carries + h] = program::L.shape[nodes::hoisted_nodes[h]];
        return s;
    }();
    using step_set =
        typename extended_set<set, step_shapes, std::make_index_sequence<carries + nodes::hoisted_count>>::type;
    using step_flat_type =
        typename replaced_by_variables<flat_type, arity, step_rank, std::make_index_sequence<nodes::size>>::type;
    using step_wrt = decltype(joined_sequence<arity>(wrt{}, std::make_index_sequence<carries + nodes::hoisted_count>{}));
    /// The steps' program (the body's own when nothing is hoisted: the same type).
    using step_program = lower::array_program<step_set, step_flat_type, typename lowered::output_nodes, step_wrt>;
};

/// \endcond

}  // namespace gradc::loops
