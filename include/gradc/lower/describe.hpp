#pragma once
/// Step 2 of lowering: a plain constexpr description of each node of the order (its
/// kind, its operands' positions, which operands carry a derivative), so that the
/// analyses after it are ordinary constexpr loops instead of template recursion.

#include <array>
#include <cstddef>

#include <gradc/lower/order.hpp>

namespace gradc::lower {

enum class node_kind { variable, literal, primitive };

inline constexpr std::size_t no_node = static_cast<std::size_t>(-1);

struct node_desc {
    node_kind kind = node_kind::literal;
    std::size_t variable = 0;  // the variable's index, for kind == variable
    std::size_t arity = 0;
    std::array<std::size_t, 3> operand{no_node, no_node, no_node};  // no_node: a condition
    std::array<bool, 3> differentiable{false, false, false};
};

/// Position in Order of operand K of the occurrence Occ (no_node for a condition).
template <class Order, class Occ, std::size_t K>
constexpr std::size_t operand_index() {
    using E = typename Occ::expr;
    using Operand = typename operands_of<E>::template at<K>;
    if constexpr (expr::is_condition<Operand>) {
        return no_node;
    } else {
        using Path = typename child_path<typename Occ::path, K>::type;
        return Order::template index_of<key_t<Operand, Path>>;
    }
}

template <class E>
struct rule_of;
template <class R, class... A>
struct rule_of<expr::node<R, A...>> {
    using type = R;
};

template <class Order, class Occ>
constexpr node_desc describe() {
    using E = typename Occ::expr;
    node_desc d;
    if constexpr (expr::is_variable<E>) {
        d.kind = node_kind::variable;
        d.variable = E::index;
    } else if constexpr (expr::is_literal<E>) {
        d.kind = node_kind::literal;
    } else {
        using R = typename rule_of<E>::type;
        d.kind = node_kind::primitive;
        d.arity = operands_of<E>::count;
        [&]<std::size_t... K>(std::index_sequence<K...>) {
            ((d.operand[K] = operand_index<Order, Occ, K>()), ...);
            ((d.differentiable[K] = rules::is_differentiable_operand<R, static_cast<int>(K)>), ...);
        }(std::make_index_sequence<operands_of<E>::count>{});
    }
    return d;
}

template <class Order>
inline constexpr auto descriptions = []<std::size_t... I>(std::index_sequence<I...>) {
    return std::array<node_desc, sizeof...(I)>{describe<Order, typename Order::template at<I>>()...};
}(std::make_index_sequence<Order::size>{});

}  // namespace gradc::lower
