#pragma once
/// \file
/// `gradc::to_string(k)` for an array kernel: its programs as loops, one line per node
/// whatever the node's size (`v3[e] = tanh(v2[e])  for e < 4`), so a kernel over large
/// arrays prints as short as its expression.
/// \verbatim
///   v<i>, x<j>    values of node i, argument j (x<j> is node i's value for an input)
///   bv<i>, bx<j>  their adjoints (VJP sweep); w<m> the weight of output m
/// \endverbatim
/// An elementwise line reads entry e of each operand (entry 0 of a scalar operand); an
/// array operation's adjoint line names the product it adds (`bv0 += ȳ·xᵀ`).

#include <cstddef>
#include <string>
#include <string_view>

#include <gradc/lower/array_kernel.hpp>
#include <gradc/lower/print.hpp>

namespace gradc {

namespace detail {

/// An extent as written in a shape: a number, or dynamic_extent.
inline std::string extent_text(std::size_t e) {
    return e == rules::arrays::dynamic_extent ? "dynamic_extent" : std::to_string(e);
}
inline std::string shape_text(const rules::arrays::dims& s) {
    if (s.is_scalar()) return "scalar";
    if (s.is_vector()) return "vec<" + extent_text(s.rows) + ">";
    return "mat<" + extent_text(s.rows) + ", " + extent_text(s.cols) + ">";
}
/// Whether a shape has more than one entry (a run-time extent counts as many).
inline bool many_entries(const rules::arrays::dims& s) { return s.is_dynamic() || s.size() > 1; }
/// A shape's number of entries, as a loop bound: a number, or its size at the call.
inline std::string entries_text(const rules::arrays::dims& s) {
    return s.is_dynamic() ? "its size" : std::to_string(s.size());
}

template <class Program>
struct array_printer {
    static constexpr auto& L = Program::L;

    static std::string value_name(std::size_t i) {
        return L.is_input[i] ? node_name("x", L.variable[i]) : node_name("v", i);
    }
    static std::string entry(std::size_t i, bool elementwise) {
        return value_name(i) + (elementwise && many_entries(L.shape[i]) ? "[e]" : "");
    }

    template <class Operand>
    static std::string operand(bool elementwise) {
        if constexpr (requires { lower::operand_node<Operand>; } && lower::operand_node<Operand> != lower::no_node) {
            return entry(lower::operand_node<Operand>, elementwise);
        } else {
            return operand_text<Operand>::get();
        }
    }

    template <std::size_t I, class Node, class Literals>
    static void primal_line(Node, const Literals& literals, std::string& out) {
        if constexpr (lower::array_node_traits<Node>::kind == lower::node_kind::literal) {
            out += "  v" + std::to_string(I) + " = " + node_text<Node>::get(literals) + "\n";
        } else if constexpr (lower::array_node_traits<Node>::kind == lower::node_kind::primitive) {
            print_apply<I>(Node{}, out);
        }
    }

    template <std::size_t I, class R, class... O>
    static void print_apply(lower::apply<R, O...>, std::string& out) {
        constexpr bool elementwise = lower::array_node_traits<lower::apply<R, O...>>::elementwise;
        std::string line = "  " + entry(I, elementwise) + " = " + std::string(R::name) + "(";
        std::size_t k = 0;
        ((line += (k++ ? ", " : "") + operand<O>(elementwise)), ...);
        line += ")";
        if (elementwise && many_entries(L.shape[I])) line += "  for e < " + entries_text(L.shape[I]);
        out += line + "    : " + shape_text(L.shape[I]) + "\n";
    }

    /// Node I's adjoint lines; a copy of an equal subexpression whose target is known
    /// (lower/equal_copies.hpp) passes its adjoint on in one line instead.
    template <std::size_t I, class Node, std::size_t N>
    static void adjoint_lines(Node, const std::array<std::size_t, N>& target, std::string& out) {
        if constexpr (lower::array_node_traits<Node>::kind == lower::node_kind::primitive) {
            if constexpr (L.live[I]) {
                if (target[I] != lower::no_node) {
                    out += "  b" + value_name(target[I]) + " += b" + value_name(I) + "   (" + value_name(I) +
                           " computes what " + value_name(target[I]) + " does)\n";
                } else {
                    print_adjoint<I>(Node{}, out);
                }
            }
        }
    }

    template <std::size_t I, class R, class... O>
    static void print_adjoint(lower::apply<R, O...>, std::string& out) {
        using node = lower::apply<R, O...>;
        constexpr bool elementwise = lower::array_node_traits<node>::elementwise;
        constexpr auto operands = lower::array_node_traits<node>::operands;
        for (std::size_t k = sizeof...(O); k-- > 0;) {
            if (!Program::analysis::template swept<I, node>(k)) continue;
            const std::size_t c = operands[k];
            const std::string target = "b" + value_name(c);
            if constexpr (elementwise) {
                const std::array<std::string, 4> names = [&] {
                    std::array<std::string, 4> n;
                    std::size_t j = 0;
                    ((n[j++] = operand<O>(true)), ...);
                    n[3] = entry(I, true);
                    return n;
                }();
                const std::string partial = substitute(R::partial_text[k], names);
                const bool broadcast = !many_entries(L.shape[c]) && many_entries(L.shape[I]);
                out += "  " + target + (broadcast || !many_entries(L.shape[c]) ? "" : "[e]") + " += " +
                       (is_single_term(partial) ? partial : "(" + partial + ")") + " * b" + entry(I, true);
                if (many_entries(L.shape[I])) out += "  for e < " + entries_text(L.shape[I]);
                out += "\n";
            } else {
                out += "  " + target + " += " + std::string(R::adjoint_text[R::adjoint_text.size() == 1 ? 0 : k]) +
                       "    (" + std::string(R::name) + ", operand " + std::to_string(k) + ", ȳ = b" + value_name(I) +
                       ")\n";
            }
        }
    }
};

}  // namespace detail

/// An array kernel's programs as text, one line per node (see the top of this file).
template <class Program, std::size_t Literals>
std::string to_string(const lower::array_kernel<Program, Literals>& k) {
    using printer = detail::array_printer<Program>;
    std::string out = "array kernel: " + std::to_string(Program::arity) + " variable(s) (";
    for (std::size_t j = 0; j < Program::arity; ++j)
        out += (j ? ", x" : "x") + std::to_string(j) + ": " + detail::shape_text(Program::set::shapes[j]);
    out += "), " + std::to_string(Program::output_count) + " output(s), wrt";
    for (std::size_t j : Program::wrt_variables) out += " x" + std::to_string(j);
    out += "\nprimal:\n";
    [&]<class... Nodes>(lower::flat<Nodes...>*) {
        [&]<std::size_t... I>(std::index_sequence<I...>) {
            (printer::template primal_line<I>(Nodes{}, k.literals(), out), ...);
        }(std::index_sequence_for<Nodes...>{});
        for (std::size_t m = 0; m < Program::output_count; ++m)
            out += "  output " + std::to_string(m) + " = " + printer::value_name(Program::output_node(m)) + "\n";
        out += "adjoint (derivatives start at 0; each line adds one operand's share):\n";
        const auto target = Program::copy_targets(k.literals());
        for (std::size_t m = 0; m < Program::output_count; ++m)
            out += "  b" + printer::value_name(Program::output_node(m)) + " += w" + std::to_string(m) + "\n";
        [&]<std::size_t... I>(std::index_sequence<I...>) {
            constexpr std::size_t n = sizeof...(Nodes);
            (printer::template adjoint_lines<n - 1 - I>(expr::pack_element<n - 1 - I, Nodes...>{}, target, out), ...);
        }(std::index_sequence_for<Nodes...>{});
    }(static_cast<typename Program::flat_type*>(nullptr));
    return out;
}

}  // namespace gradc
