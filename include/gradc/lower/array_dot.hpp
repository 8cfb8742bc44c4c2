#pragma once
/// \file
/// `gradc::to_dot(k)` for an array kernel: the picture of lower/dot.hpp with one node per
/// array node whatever its size, as `to_string` prints one line per node
/// (lower/array_print.hpp). Each node shows its shape; an adjoint edge of an elementwise
/// node is labelled with the rule's partial (applied entry by entry), one of an array
/// operation with the product it adds (`ȳ·xᵀ`).

#include <algorithm>
#include <array>
#include <cstddef>
#include <string>
#include <utility>

#include <gradc/lower/array_kernel.hpp>
#include <gradc/lower/array_print.hpp>
#include <gradc/lower/dot.hpp>

namespace gradc {

namespace detail {

template <class Program>
struct array_dot {
    static constexpr auto& L = Program::L;
    using printer = array_printer<Program>;

    template <std::size_t I, class Node, class Literals>
    static void node(Node, const Literals& literals, std::string& out) {
        using traits = lower::array_node_traits<Node>;
        std::string label;
        if constexpr (traits::kind == lower::node_kind::variable) {
            label = printer::value_name(I) + ": " + shape_text(L.shape[I]);
        } else if constexpr (traits::kind == lower::node_kind::literal) {
            label = node_name("v", I) + " = " + node_text<Node>::get(literals);
        } else {
            label = node_name("v", I) + " = " + apply_text(Node{}) + "\n" + shape_text(L.shape[I]);
            dot_data_edges<I>(Node{}, out);
        }
        const bool wrt = traits::kind == lower::node_kind::variable &&
                         std::ranges::find(Program::wrt_variables, traits::variable) != Program::wrt_variables.end();
        out = dot_node(node_name("v", I), label, traits::kind, wrt, L.live[I]) + out;
    }

    template <class R, class... O>
    static std::string apply_text(lower::apply<R, O...>) {
        std::string text = std::string(R::name) + "(";
        std::size_t k = 0;
        ((text += (k++ ? ", " : "") + printer::template operand<O>(false)), ...);
        return text + ")";
    }

    /// Node I's adjoint edges; a copy of an equal subexpression whose target is known
    /// (lower/equal_copies.hpp) has one edge to it instead.
    template <std::size_t I, class Node, std::size_t N>
    static void adjoint_edges(Node, const std::array<std::size_t, N>& target, std::string& out) {
        if constexpr (lower::array_node_traits<Node>::kind == lower::node_kind::primitive) {
            if constexpr (L.live[I]) {
                if (target[I] != lower::no_node) {
                    out += dot_adjoint_edge(node_name("v", I), node_name("v", target[I]), "1 (the same value)");
                } else {
                    apply_adjoint_edges<I>(Node{}, out);
                }
            }
        }
    }

    template <std::size_t I, class R, class... O>
    static void apply_adjoint_edges(lower::apply<R, O...>, std::string& out) {
        using node = lower::apply<R, O...>;
        constexpr auto operands = lower::array_node_traits<node>::operands;
        for (std::size_t k = sizeof...(O); k-- > 0;) {
            if (!Program::analysis::template swept<I, node>(k)) continue;
            std::string label;
            if constexpr (lower::array_node_traits<node>::elementwise) {
                std::array<std::string, 4> names;
                std::size_t j = 0;
                ((names[j++] = printer::template operand<O>(false)), ...);
                names[3] = printer::value_name(I);
                label = substitute(R::partial_text[k], names);
            } else {
                label = std::string(R::adjoint_text[R::adjoint_text.size() == 1 ? 0 : k]);
            }
            out += dot_adjoint_edge(node_name("v", I), node_name("v", operands[k]), label);
        }
    }
};

}  // namespace detail

/// The array kernel's primal graph with its adjoint edges, in Graphviz's DOT language.
template <class Program, std::size_t Literals>
std::string to_dot(const lower::array_kernel<Program, Literals>& k) {
    using draw = detail::array_dot<Program>;
    std::string title = "array kernel: " + std::to_string(Program::arity) + " variable(s), " +
                        std::to_string(Program::output_count) + " output(s), derivatives with respect to";
    for (std::size_t j : Program::wrt_variables) title += " x" + std::to_string(j);
    std::string body = "  // primal nodes, data edges (operand -> operation), outputs\n";
    [&]<class... Nodes>(lower::flat<Nodes...>*) {
        [&]<std::size_t... I>(std::index_sequence<I...>) {
            ((body += [&] {
                 std::string part;
                 draw::template node<I>(Nodes{}, k.literals(), part);
                 return part;
             }()),
             ...);
        }(std::index_sequence_for<Nodes...>{});
        for (std::size_t m = 0; m < Program::output_count; ++m)
            body += detail::dot_output(m, Program::output_node(m), Program::L.live[Program::output_node(m)]);
        body += "  // adjoint edges: operation -> operand, labelled with the local partial or the product it adds\n";
        const auto target = Program::copy_targets(k.literals());
        [&]<std::size_t... I>(std::index_sequence<I...>) {
            constexpr std::size_t n = sizeof...(Nodes);
            (draw::template adjoint_edges<n - 1 - I>(expr::pack_element<n - 1 - I, Nodes...>{}, target, body), ...);
        }(std::index_sequence_for<Nodes...>{});
    }(static_cast<typename Program::flat_type*>(nullptr));
    return detail::dot_graph(title, body);
}

}  // namespace gradc
