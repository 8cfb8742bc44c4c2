#pragma once
/// \file
/// `gradc::to_string(kernel)`: the lowered programs as readable text.
/// \verbatim
///   v<i>   value of node i                 x<j>  argument j
///   dv<i>  tangent of node i (JVP sweep)   dx<j> tangent of wrt variable j
///   bv<i>  adjoint of node i (VJP sweep)   w<m>  weight of output m
///   dbv<i> tangent of bv<i> (second order)  D[p] tangent of a partial p
/// \endverbatim
/// Each derivative line is one edge: `dv3 += v0 * dv2` adds the partial of node 3 with
/// respect to its operand node 2 (here `v0`), times node 2's tangent. A node that computes
/// what an earlier one does (a copy of a subexpression with literals, lower/equal_copies.hpp)
/// passes its adjoint on in one line, `bv2 += bv7`, instead of its edges. For a kernel with
/// one output, the second-order program (hessian, hvp) follows: the adjoint sweep on dual
/// numbers, each edge with its product rule.

#include <array>
#include <cctype>
#include <charconv>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

#include <gradc/expr/loop_counter.hpp>
#include <gradc/lower/kernel.hpp>

namespace gradc {

namespace detail {

inline std::string node_name(std::string_view prefix, std::size_t i) { return std::string(prefix) + std::to_string(i); }

template <class V>
std::string number_text(V value) {
    char buf[64];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
    return ec == std::errc{} ? std::string(buf, end) : std::string("?");
}

/// Replace the standalone identifiers a, b, c, y in a partial's text.
inline std::string substitute(std::string_view text, const std::array<std::string, 4>& names) {
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char ch = text[i];
        const bool alone = (i == 0 || !std::isalnum(static_cast<unsigned char>(text[i - 1]))) &&
                           (i + 1 == text.size() || !std::isalnum(static_cast<unsigned char>(text[i + 1])));
        const auto slot = std::string_view("abcy").find(ch);
        if (alone && slot != std::string_view::npos) {
            out += names[slot];
        } else {
            out += ch;
        }
    }
    return out;
}

/// True when text needs no parentheses before "* derivative": no operator outside
/// parentheses (a leading unary minus is fine).
inline bool is_single_term(std::string_view text) {
    int depth = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char ch = text[i];
        if (ch == '(' || ch == '[') ++depth;
        if (ch == ')' || ch == ']') --depth;
        if (depth == 0 && i > 0 && std::string_view(" +-*/?:").find(ch) != std::string_view::npos) return false;
    }
    return true;
}

template <class Operand>
struct operand_text;

template <std::size_t I>
struct operand_text<lower::ref<I>> {
    static std::string get() { return node_name("v", I); }
};

template <class Op, class... Operands>
struct operand_text<lower::test<Op, Operands...>> {
    static std::string get() {
        const std::array<std::string, sizeof...(Operands)> parts{operand_text<Operands>::get()...};
        if constexpr (sizeof...(Operands) == 1) {
            return std::string(Op::symbol) + parts[0];
        } else {
            return "(" + parts[0] + " " + std::string(Op::symbol) + " " + parts[1] + ")";
        }
    }
};

template <class Node>
struct node_text;

template <std::size_t J>
struct node_text<lower::input<J>> {
    template <class Literals>
    static std::string get(const Literals&) { return node_name("x", J); }
};

template <std::size_t L>
struct node_text<lower::constant<L>> {
    template <class Literals>
    static std::string get(const Literals& literals) { return number_text(literals[L]); }
};

template <class Tag>
struct node_text<lower::named<Tag>> {
    template <class Literals>
    static std::string get(const Literals&) { return number_text(graphs::named_value<Tag>()); }
};

/// A loop's counter: "k" (the step's index when the body runs).
template <class Tag>
struct node_text<lower::named<expr::loop_counter<Tag>>> {
    template <class Literals>
    static std::string get(const Literals&) { return "k (loop index)"; }
};

template <class R, class... Operands>
struct node_text<lower::apply<R, Operands...>> {
    /// Names of the operands, then the node's own value (for a, b, c and y).
    static std::array<std::string, 4> names(std::size_t self) {
        std::array<std::string, 4> n;
        std::size_t k = 0;
        ((n[k++] = operand_text<Operands>::get()), ...);
        n[3] = node_name("v", self);
        return n;
    }

    template <class Literals>
    static std::string get(const Literals&) {
        std::string s = std::string(R::name) + "(";
        std::size_t k = 0;
        ((s += (k++ ? ", " : "") + operand_text<Operands>::get()), ...);
        return s + ")";
    }
};

/// What the printer needs of one node: its primal text, and the text of each operand's
/// partial with the operands' names filled in. Made by one pack expansion over the
/// nodes; the lines are then written by plain loops over the program's edges.
struct node_texts {
    std::string primal;
    std::array<std::string, 3> partial;
};

template <std::size_t I, class Node, class Literals>
node_texts texts_of(Node, const Literals& literals) {
    node_texts t{node_text<Node>::get(literals), {}};
    if constexpr (requires { typename lower::rule_of<Node>::type; }) {
        using R = typename lower::rule_of<Node>::type;
        for (std::size_t k = 0; k < R::partial_text.size(); ++k)
            t.partial[k] = substitute(R::partial_text[k], node_text<Node>::names(I));
    }
    return t;
}

template <class Flat>
struct all_texts;
template <class... Nodes>
struct all_texts<lower::flat<Nodes...>> {
    template <class Literals>
    static std::array<node_texts, sizeof...(Nodes)> get(const Literals& literals) {
        return [&]<std::size_t... I>(std::index_sequence<I...>) {
            return std::array<node_texts, sizeof...(Nodes)>{texts_of<I>(Nodes{}, literals)...};
        }(std::index_sequence_for<Nodes...>{});
    }
};

/// `partial * derivative`, simplified for the structural partials 1, -1 and gates.
inline std::string edge_term(const std::string& p, std::string_view derivative) {
    if (p == "1") return std::string(derivative);
    if (p == "-1") return "-" + std::string(derivative);
    const bool simple = is_single_term(p);
    return (simple ? p : "(" + p + ")") + " * " + std::string(derivative);
}

/// The line of a copy that passes its adjoint (prefix "bv", or "dbv" on duals) to the
/// node `target` names, written at the copy's first edge of the reverse sweep (edge r).
template <std::size_t E, std::size_t N>
std::string passed_on(const std::array<lower::edge, E>& edges, std::size_t r, const std::array<std::size_t, N>& target,
                      std::string_view prefix) {
    const std::size_t n = edges[r].node;
    if (r + 1 < E && edges[r + 1].node == n) return "";
    return "  " + node_name(prefix, target[n]) + " += " + node_name(prefix, n) + "   (v" + std::to_string(n) +
           " computes what v" + std::to_string(target[n]) + " does)\n";
}

template <class Program, class Literals>
std::string print_program(const Literals& literals) {
    constexpr auto& live = Program::live;
    constexpr auto& edges = Program::plan.edges;
    const auto texts = all_texts<typename Program::nodes>::get(literals);
    auto partial = [&](const lower::edge& e) -> const std::string& { return texts[e.node].partial[e.operand]; };
    std::string s = "primal:\n";
    for (std::size_t i = 0; i < Program::size; ++i) s += "  " + node_name("v", i) + " = " + texts[i].primal + "\n";
    for (std::size_t m = 0; m < Program::output_count; ++m)
        s += "  " + node_name("y", m) + " = " + node_name("v", Program::output_nodes[m]) + "\n";

    s += "tangent (JVP):\n";
    for (std::size_t j = 0; j < Program::wrt_count; ++j) {
        const std::size_t n = Program::wrt_nodes[j];
        if (n != lower::no_node && live.live[n]) s += "  " + node_name("dv", n) + " = " + node_name("dx", j) + "\n";
    }
    for (const lower::edge& e : edges)
        s += "  " + node_name("dv", e.node) + (e.tangent_first ? " = " : " += ") +
             edge_term(partial(e), node_name("dv", e.child)) + "\n";
    for (std::size_t m = 0; m < Program::output_count; ++m) {
        const std::size_t n = Program::output_nodes[m];
        s += "  " + node_name("dy", m) + " = " + (live.live[n] ? node_name("dv", n) : std::string("0")) + "\n";
    }

    s += "adjoint (VJP):\n";
    const auto target = Program::copy_targets(literals);
    // The sweep the kernel runs (lower/program.hpp, `forward_of`): where copies pass their
    // adjoints on, its first writes are `copy_writes`, and its zeroed slots start at 0.
    const bool copies = Program::forward_of(literals) != nullptr;
    for (std::size_t i = 0; i < Program::size; ++i)
        if (copies && Program::copies.zeroed[i]) s += "  " + node_name("bv", i) + " = 0\n";
    for (std::size_t m = 0; m < Program::output_count; ++m) {
        const std::size_t n = Program::output_nodes[m];
        if (live.live[n])
            s += "  " + node_name("bv", n) +
                 ((copies ? Program::copy_writes.seed_first[m] : Program::plan.seed_first[m]) ? " = " : " += ") +
                 node_name("w", m) + "\n";
    }
    for (std::size_t r = edges.size(); r-- > 0;) {
        const lower::edge& e = edges[r];
        if (target[e.node] != lower::no_node) {
            s += passed_on(edges, r, target, "bv");
            continue;
        }
        s += "  " + node_name("bv", e.child) + ((copies ? Program::copy_writes.edge_first[r] : e.adjoint_first) ? " = " : " += ") +
             edge_term(partial(e), node_name("bv", e.node)) + "\n";
    }
    for (std::size_t j = 0; j < Program::wrt_count; ++j) {
        const std::size_t n = Program::wrt_nodes[j];
        s += "  " + node_name("gx", Program::wrt_variables[j]) + " = " +
             (n != lower::no_node && live.live[n] ? node_name("bv", n) : std::string("0")) + "\n";
    }
    return s;
}

/// The second-order program: the primal and its tangents on duals (the tangent program
/// above, for every direction at once), then the adjoint on duals, edge by edge.
template <class Program, class Literals>
std::string print_second_order(const Literals& literals) {
    constexpr auto& live = Program::live;
    constexpr auto& edges = Program::plan.edges;
    const auto texts = all_texts<typename Program::nodes>::get(literals);
    std::string s = "second order (hessian: directions dx = unit vectors of the wrt variables; hvp: dx = v):\n";
    s += "  v, dv: the primal and the tangent program above, every direction at once\n";
    const auto target = Program::copy_targets(literals);
    // The sweep the kernel runs (lower/program.hpp, `forward_of`): where copies pass their
    // adjoints on, its first writes are `copy_writes`, and its zeroed slots start at 0.
    const bool copies = Program::forward_of(literals) != nullptr;
    for (std::size_t i = 0; i < Program::size; ++i)
        if (copies && Program::copies.zeroed[i]) s += "  " + node_name("bv", i) + " = 0, " + node_name("dbv", i) + " = 0\n";
    const std::size_t out = Program::output_nodes[0];
    if (live.live[out]) s += "  " + node_name("bv", out) + " = 1, " + node_name("dbv", out) + " = 0\n";
    for (std::size_t r = edges.size(); r-- > 0;) {
        const lower::edge& e = edges[r];
        if (target[e.node] != lower::no_node) {
            s += passed_on(edges, r, target, "dbv");
            continue;
        }
        const std::string& p = texts[e.node].partial[e.operand];
        const std::string bv = node_name("bv", e.node), dbv = node_name("dbv", e.node);
        std::string line =
            "  " + node_name("dbv", e.child) + ((copies ? Program::copy_writes.edge_first[r] : e.adjoint_first) ? " = " : " += ");
        const bool constant = p == "1" || p == "-1" || (!p.empty() && p.front() == '[');
        // D[p]: the tangent of the partial p, the rules' partials applied to the tangents
        // of what p reads (the tangent of a plain node value v<k> is dv<k>).
        const bool node_value = p.size() > 1 && p[0] == 'v' && p.find_first_not_of("0123456789", 1) == std::string::npos;
        const std::string dp = node_value ? "d" + p : "D[" + p + "]";
        line += constant ? edge_term(p, dbv) : dp + " * " + bv + " + " + edge_term(p, dbv);
        s += line + "\n";
    }
    for (std::size_t j = 0; j < Program::wrt_count; ++j) {
        const std::size_t n = Program::wrt_nodes[j];
        s += "  " + node_name("hx", Program::wrt_variables[j]) + " = " +
             (n != lower::no_node && live.live[n] ? node_name("dbv", n) : std::string("0")) +
             "   (row of the Hessian, or entry of H·v)\n";
    }
    return s;
}

}  // namespace detail

/// The lowered primal, tangent and adjoint programs of a kernel, one line per step, and
/// for a one-output kernel the second-order program.
template <class Program, std::size_t Arity, std::size_t Literals>
std::string to_string(const lower::kernel<Program, Arity, Literals>& k) {
    std::string head = "kernel: " + std::to_string(Arity) + " variable(s), " + std::to_string(Program::output_count) +
                       " output(s), derivatives with respect to";
    for (std::size_t j : Program::wrt_variables) head += " x" + std::to_string(j);
    head += "\n";
    // The bound literals: their values, and the forward table that decides the sweep.
    std::string text = head + detail::print_program<Program>(k.bound());
    if constexpr (Program::output_count == 1) text += detail::print_second_order<Program>(k.bound());
    return text;
}

}  // namespace gradc
