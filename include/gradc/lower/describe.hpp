#pragma once
/// \file
/// Step 3 of lowering: a plain constexpr description of each flat node (its kind, its
/// operands' positions, which operands carry a derivative), so that the analyses after
/// it are ordinary constexpr loops instead of template recursion.

#include <array>
#include <cstddef>

#include <gradc/lower/flat.hpp>
#include <gradc/rules/rule.hpp>

namespace gradc::lower {

enum class node_kind { variable, literal, primitive };

inline constexpr std::size_t no_node = static_cast<std::size_t>(-1);

struct node_desc {
    node_kind kind = node_kind::literal;
    std::size_t variable = 0;  // the variable's index, for kind == variable
    std::size_t arity = 0;
    std::array<std::size_t, 3> operand{no_node, no_node, no_node};  // no_node: a condition
    std::array<bool, 3> differentiable{false, false, false};
    rules::reads_t reads{};  // what the rule's partials read (a primitive's)
    std::array<bool, 3> affine{false, false, false};  // rules::affine_in, per operand
    bool piecewise_constant = false;                   // rules::piecewise_constant_partials
};

template <class Operand>
inline constexpr std::size_t operand_node = no_node;  // a test
template <std::size_t I>
inline constexpr std::size_t operand_node<ref<I>> = I;

template <class Node>
struct describe;

template <std::size_t J>
struct describe<input<J>> {
    static constexpr node_desc value{node_kind::variable, J, 0, {no_node, no_node, no_node}, {false, false, false}};
};

template <std::size_t L>
struct describe<constant<L>> {
    static constexpr node_desc value{};
};

template <class Tag>
struct describe<named<Tag>> {
    static constexpr node_desc value{};
};

template <class R, class... Operands>
struct describe<apply<R, Operands...>> {
    static constexpr node_desc value = [] {
        node_desc d{node_kind::primitive, 0, sizeof...(Operands), {no_node, no_node, no_node}, {false, false, false},
                    R::reads};
        std::size_t k = 0;
        ((d.operand[k++] = operand_node<Operands>), ...);
        [&]<int... K>(std::integer_sequence<int, K...>) {
            ((d.differentiable[K] = rules::is_differentiable_operand<R, K> && operand_node<Operands> != no_node), ...);
            ((d.affine[K] = rules::affine_in<R, K> != rules::affinity::none), ...);
        }(std::make_integer_sequence<int, sizeof...(Operands)>{});
        d.piecewise_constant = rules::piecewise_constant_partials<R>;
        return d;
    }();
};

template <class Flat>
struct descriptions_of;
template <class... Nodes>
struct descriptions_of<flat<Nodes...>> {
    static constexpr std::array<node_desc, sizeof...(Nodes)> value{describe<Nodes>::value...};
};

template <class Flat>
inline constexpr auto descriptions = descriptions_of<Flat>::value;

template <class Node>
struct rule_of;
template <class R, class... Operands>
struct rule_of<apply<R, Operands...>> {
    using type = R;
};

}  // namespace gradc::lower
