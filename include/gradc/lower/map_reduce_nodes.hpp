#pragma once
/// \file
/// What the map-reduce split (map_reduce_split.hpp) needs to know of each node, apart
/// from its value: which nodes its operands read, and how its rule depends on them.

#include <array>
#include <cstddef>
#include <initializer_list>
#include <type_traits>
#include <utility>

#include <gradc/lower/flat.hpp>
#include <gradc/rules/partial.hpp>
#include <gradc/rules/rule.hpp>

namespace gradc::lower {

/// The variables that change from point to point in a map-reduce (the data); the others
/// (the parameters θ) are the same at every point. Any number of variables.
template <std::size_t Arity>
struct variable_mask {
    std::array<bool, Arity> varying{};
};

/// Whether every node an operand reads (through tests too) is marked in `marked`.
template <class Operand>
struct reads_only;
template <std::size_t I>
struct reads_only<ref<I>> {
    template <std::size_t N>
    static constexpr bool in(const std::array<bool, N>& marked) {
        return marked[I];
    }
};
template <class Op, class... Operands>
struct reads_only<test<Op, Operands...>> {
    template <std::size_t N>
    static constexpr bool in(const std::array<bool, N>& marked) {
        return (reads_only<Operands>::in(marked) && ...);
    }
};

/// Whether a node is the same for every point when the variables marked in `mask`
/// change from point to point (everything it depends on is fixed).
template <class Node>
struct invariant_node;
template <std::size_t J>
struct invariant_node<input<J>> {
    template <std::size_t A, std::size_t N>
    static constexpr bool given(const variable_mask<A>& mask, const std::array<bool, N>&) {
        return !mask.varying[J];
    }
};
template <std::size_t L>
struct invariant_node<constant<L>> {
    template <std::size_t A, std::size_t N>
    static constexpr bool given(const variable_mask<A>&, const std::array<bool, N>&) {
        return true;
    }
};
template <class Tag>
struct invariant_node<named<Tag>> {
    template <std::size_t A, std::size_t N>
    static constexpr bool given(const variable_mask<A>&, const std::array<bool, N>&) {
        return true;
    }
};
template <class R, class... Operands>
struct invariant_node<apply<R, Operands...>> {
    template <std::size_t A, std::size_t N>
    static constexpr bool given(const variable_mask<A>&, const std::array<bool, N>& invariant) {
        return (reads_only<Operands>::in(invariant) && ...);
    }
};

/// What the map-reduce split needs to know of a node's operands, apart from the values:
///  - `affine[k]`: the rule is affine in operand k (rules::affine_in), so the partial
///    with respect to k reads only the other operands; `linear[k]`: with no constant term;
///  - `constant_partial[k]`: that partial is the structural 1 or -1 (add, sub, neg);
///  - `reads_only`: whether every node operand k reads is marked (a test reads several).
template <class Operand>
struct probe_type {
    using type = double;  // a ref: a value
};
template <class Op, class... Operands>
struct probe_type<test<Op, Operands...>> {
    using type = bool;  // a test: a condition
};

template <class R, int K, class... Operands>
constexpr bool has_constant_partial() {
    if constexpr (!rules::is_differentiable_operand<R, K>) {
        return false;
    } else {
        using P = decltype(R::partial(rules::arg<K>, std::declval<const typename probe_type<Operands>::type&>()...,
                                      std::declval<const double&>()));
        return std::is_same_v<P, rules::one_t> || std::is_same_v<P, rules::minus_one_t>;
    }
}

struct operand_traits {
    std::array<bool, 3> affine{};
    std::array<bool, 3> linear{};
    std::array<bool, 3> constant_partial{};
};

template <class Node>
struct operand_traits_of {
    static constexpr operand_traits value{};
};
template <class R, class... Operands>
struct operand_traits_of<apply<R, Operands...>> {
    static constexpr operand_traits value = [] {
        operand_traits t;
        [&]<int... K>(std::integer_sequence<int, K...>) {
            ((t.affine[K] = rules::affine_in<R, K> != rules::affinity::none), ...);
            ((t.linear[K] = rules::affine_in<R, K> == rules::affinity::linear), ...);
            ((t.constant_partial[K] = has_constant_partial<R, K, Operands...>()), ...);
        }(std::make_integer_sequence<int, sizeof...(Operands)>{});
        return t;
    }();
};

/// Per operand of a node: whether it reads only nodes marked in `marked`.
template <class Node>
struct operands_read_only {
    template <std::size_t N>
    static constexpr std::array<bool, 3> in(const std::array<bool, N>&) {
        return {true, true, true};
    }
};
template <class R, class... Operands>
struct operands_read_only<apply<R, Operands...>> {
    template <std::size_t N>
    static constexpr std::array<bool, 3> in(const std::array<bool, N>& marked) {
        std::array<bool, 3> r{true, true, true};
        std::size_t k = 0;
        ((r[k++] = reads_only<Operands>::in(marked)), ...);
        return r;
    }
};

/// Per node of a flat program: whether it is invariant (reads only the variables Mask
/// holds fixed, or constants): the same at every point of a map-reduce or of a batch
/// call whose fixed variables are broadcast.
template <auto Mask, class... Nodes>
constexpr std::array<bool, sizeof...(Nodes)> invariant_nodes(flat<Nodes...>) {
    std::array<bool, sizeof...(Nodes)> inv{};
    std::size_t i = 0;
    (void)std::initializer_list<int>{(inv[i] = invariant_node<Nodes>::given(Mask, inv), ++i, 0)...};
    return inv;
}
/// Per node of a flat program: its operands' traits.
template <class... Nodes>
constexpr std::array<operand_traits, sizeof...(Nodes)> operand_traits_of_nodes(flat<Nodes...>) {
    return {operand_traits_of<Nodes>::value...};
}

}  // namespace gradc::lower
