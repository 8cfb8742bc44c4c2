#pragma once
/// \file
/// `gradc::to_dot(kernel)`: a compiled kernel as a Graphviz picture (DOT syntax). The same
/// nodes and partials as `gradc::to_string(kernel)` (lower/print.hpp), drawn instead of
/// listed:
///
///   - primal nodes, named as in the printed programs: variables `v0 = x0` (ellipses; the
///     variables derivatives are taken with respect to filled blue, the others grey),
///     literals (plain numbers), operations `v3 = mul(v0, v2)` (boxes), outputs `y0`
///     (double circles); the nodes the adjoint sweep does not touch are grey;
///   - data edges, solid, from each operand to the operation that reads it; a condition
///     (`where(x < 0.5, ...)`) is a diamond of its own, with dotted edges;
///   - adjoint edges, dashed and red, in the reverse direction: from an operation back to
///     each operand its adjoint flows to, labelled with the local partial (the rule
///     table's `partial_text`, with the operands' names filled in), and from each output
///     to its node, labelled with the output's weight `w0`. Exactly the edges of the
///     printed adjoint program: an edge to an operand that needs no derivative is absent.
///
/// Render with `dot -Tsvg kernel.dot -o kernel.svg` (docs/static.md, "Pictures").

#include <algorithm>
#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gradc/graphviz.hpp>
#include <gradc/lower/kernel.hpp>
#include <gradc/lower/print.hpp>

namespace gradc {

namespace detail {

/// The nodes a condition reads (a test's operands are nodes or further tests).
template <class Operand>
struct condition_refs {
    static void add(std::vector<std::size_t>&) {}
};
template <std::size_t I>
struct condition_refs<lower::ref<I>> {
    static void add(std::vector<std::size_t>& refs) { refs.push_back(I); }
};
template <class Op, class... Operands>
struct condition_refs<lower::test<Op, Operands...>> {
    static void add(std::vector<std::size_t>& refs) { (condition_refs<Operands>::add(refs), ...); }
};

/// The data edge of operand `k` of node I: from the operand's node, or through a diamond
/// for a condition.
template <std::size_t I, class Operand>
void dot_data_edge(std::size_t k, std::string& out) {
    const std::string self = node_name("v", I);
    if constexpr (lower::operand_node<Operand> != lower::no_node) {
        out += "  " + node_name("v", lower::operand_node<Operand>) + " -> " + self + ";\n";
    } else {
        const std::string cond = "c" + std::to_string(I) + "_" + std::to_string(k);
        out += "  " + cond + " [shape=diamond, label=" + dot_quoted(operand_text<Operand>::get()) + "];\n";
        std::vector<std::size_t> refs;
        condition_refs<Operand>::add(refs);
        for (std::size_t r : refs) out += "  " + node_name("v", r) + " -> " + cond + " [style=dotted];\n";
        out += "  " + cond + " -> " + self + " [style=dotted, label=\"condition\"];\n";
    }
}

template <std::size_t I, class Node>
void dot_data_edges(Node, std::string&) {}  // variables and literals read nothing

template <std::size_t I, class R, class... Operands>
void dot_data_edges(lower::apply<R, Operands...>, std::string& out) {
    std::size_t k = 0;
    (dot_data_edge<I, Operands>(k++, out), ...);
}

template <class Flat>
struct dot_all_data_edges;
template <class... Nodes>
struct dot_all_data_edges<lower::flat<Nodes...>> {
    static void add(std::string& out) {
        [&]<std::size_t... I>(std::index_sequence<I...>) {
            (dot_data_edges<I>(Nodes{}, out), ...);
        }(std::index_sequence_for<Nodes...>{});
    }
};

/// One primal node: `id [label=..., shape=...]`, grey when the adjoint sweep skips it.
inline std::string dot_node(const std::string& id, const std::string& label, lower::node_kind kind, bool wrt, bool live) {
    std::string attrs = "label=" + dot_quoted(label);
    switch (kind) {
    case lower::node_kind::variable:
        attrs += std::string(", shape=ellipse, style=filled, fillcolor=") + (wrt ? "\"#d6e9f8\"" : "\"#eeeeee\"");
        break;
    case lower::node_kind::literal: attrs += ", shape=plaintext"; break;
    case lower::node_kind::primitive: attrs += ", shape=box, style=rounded"; break;
    }
    if (!live) attrs += ", color=gray, fontcolor=gray";
    return "  " + id + " [" + attrs + "];\n";
}

/// An adjoint edge: dashed and red, against the data flow, not used to rank the nodes.
inline std::string dot_adjoint_edge(const std::string& from, const std::string& to, const std::string& label) {
    return "  " + from + " -> " + to +
           " [style=dashed, color=\"#c0392b\", fontcolor=\"#c0392b\", constraint=false, label=" + dot_quoted(label) +
           "];\n";
}

/// The frame of a picture: the title on top, operands below the operations.
inline std::string dot_graph(const std::string& title, const std::string& body) {
    return "digraph kernel {\n"
           "  label=" + dot_quoted(title) + ";\n"
           "  labelloc=t;\n"
           "  rankdir=BT;\n"
           "  fontname=\"Helvetica\";\n"
           "  node [fontname=\"Helvetica\", fontsize=11];\n"
           "  edge [fontname=\"Helvetica\", fontsize=10];\n" +
           body + "}\n";
}

/// Output m: a double circle fed by its node, and its seed edge (weight w<m>) back.
inline std::string dot_output(std::size_t m, std::size_t node, bool live) {
    std::string out = "  " + node_name("y", m) + " [label=" + dot_quoted(node_name("y", m)) + ", shape=doublecircle];\n";
    out += "  " + node_name("v", node) + " -> " + node_name("y", m) + ";\n";
    if (live) out += dot_adjoint_edge(node_name("y", m), node_name("v", node), node_name("w", m));
    return out;
}

template <class Program, class Literals>
std::string dot_program(const Literals& literals) {
    constexpr auto& desc = Program::desc;
    constexpr auto& live = Program::live;
    const auto texts = all_texts<typename Program::nodes>::get(literals);
    std::string out = "  // primal nodes, data edges (operand -> operation), outputs\n";
    for (std::size_t i = 0; i < Program::size; ++i)
        out += dot_node(node_name("v", i), node_name("v", i) + " = " + texts[i].primal, desc[i].kind,
                        desc[i].kind == lower::node_kind::variable &&
                            std::ranges::find(Program::wrt_variables, desc[i].variable) != Program::wrt_variables.end(),
                        live.live[i]);
    dot_all_data_edges<typename Program::nodes>::add(out);
    for (std::size_t m = 0; m < Program::output_count; ++m)
        out += dot_output(m, Program::output_nodes[m], live.live[Program::output_nodes[m]]);
    out += "  // adjoint edges: operation -> operand, labelled with the local partial\n";
    constexpr auto& edges = Program::plan.edges;
    // A copy of an equal subexpression passes its adjoint on whole (lower/equal_copies.hpp).
    const auto target = Program::copy_targets(literals);
    for (std::size_t r = edges.size(); r-- > 0;) {
        const lower::edge& e = edges[r];
        if (target[e.node] == lower::no_node) {
            out += dot_adjoint_edge(node_name("v", e.node), node_name("v", e.child), texts[e.node].partial[e.operand]);
        } else if (r + 1 == edges.size() || edges[r + 1].node != e.node) {
            out += dot_adjoint_edge(node_name("v", e.node), node_name("v", target[e.node]), "1 (the same value)");
        }
    }
    return out;
}

}  // namespace detail

/// The kernel's primal graph with its adjoint edges and their partials, in Graphviz's DOT
/// language (`digraph kernel { ... }`), operands below the operations that read them.
template <class Program, std::size_t Arity, std::size_t Literals>
std::string to_dot(const lower::kernel<Program, Arity, Literals>& k) {
    std::string title = "kernel: " + std::to_string(Arity) + " variable(s), " + std::to_string(Program::output_count) +
                        " output(s), derivatives with respect to";
    for (std::size_t j : Program::wrt_variables) title += " x" + std::to_string(j);
    return detail::dot_graph(title, detail::dot_program<Program>(k.literals()));
}

}  // namespace gradc
