// gradc::to_dot draws a kernel: its primal graph and its adjoint edges with their partials.

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <dot_syntax.hpp>
#include <gradc/gradc.hpp>

namespace {

// The statements of a DOT text, one per line, comments and the frame left out.
std::vector<std::string> statements(const std::string& dot) {
    std::vector<std::string> out;
    std::istringstream in(dot);
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("  ", 0) != 0 || line.rfind("  //", 0) == 0) continue;
        out.push_back(line.substr(2));
    }
    return out;
}

std::size_t count_edges(const std::vector<std::string>& lines) {
    return static_cast<std::size_t>(
        std::count_if(lines.begin(), lines.end(), [](const std::string& s) { return s.find(" -> ") != std::string::npos; }));
}

bool has(const std::vector<std::string>& lines, const std::string& line) {
    return std::find(lines.begin(), lines.end(), line) != lines.end();
}

const std::string adjoint = "style=dashed, color=\"#c0392b\", fontcolor=\"#c0392b\", constraint=false";

}  // namespace

TEST_CASE("to_dot draws the seed example's nodes, data edges and adjoint edges", "[lower][dot]") {
    auto [x1, x2] = gradc::variables<2>();
    const std::string dot = gradc::to_dot(gradc::compile(sin(x1) + x1 * x2));
    CHECK(testing::dot_syntax_error(dot).empty());
    const auto lines = statements(dot);
    // The nodes of to_string's primal program (tests/lower/test_print.cpp), and the output.
    CHECK(has(lines, "v0 [label=\"v0 = x0\", shape=ellipse, style=filled, fillcolor=\"#d6e9f8\"];"));
    CHECK(has(lines, "v1 [label=\"v1 = sin(v0)\", shape=box, style=rounded];"));
    CHECK(has(lines, "v2 [label=\"v2 = x1\", shape=ellipse, style=filled, fillcolor=\"#d6e9f8\"];"));
    CHECK(has(lines, "v3 [label=\"v3 = mul(v0, v2)\", shape=box, style=rounded];"));
    CHECK(has(lines, "v4 [label=\"v4 = add(v1, v3)\", shape=box, style=rounded];"));
    CHECK(has(lines, "y0 [label=\"y0\", shape=doublecircle];"));
    // Data edges: one per operand, and the output.
    for (const char* e : {"v0 -> v1;", "v0 -> v3;", "v2 -> v3;", "v1 -> v4;", "v3 -> v4;", "v4 -> y0;"})
        CHECK(has(lines, e));
    // Adjoint edges: those of the printed adjoint program (bv0 += cos(v0) * bv1, ...),
    // reversed, with their partials.
    CHECK(has(lines, "y0 -> v4 [" + adjoint + ", label=\"w0\"];"));
    CHECK(has(lines, "v4 -> v1 [" + adjoint + ", label=\"1\"];"));
    CHECK(has(lines, "v4 -> v3 [" + adjoint + ", label=\"1\"];"));
    CHECK(has(lines, "v3 -> v0 [" + adjoint + ", label=\"v2\"];"));
    CHECK(has(lines, "v3 -> v2 [" + adjoint + ", label=\"v0\"];"));
    CHECK(has(lines, "v1 -> v0 [" + adjoint + ", label=\"cos(v0)\"];"));
    CHECK(count_edges(lines) == 6 + 6);
}

TEST_CASE("to_dot draws literals, conditions and the edges a wrt choice drops", "[lower][dot]") {
    auto [x, y] = gradc::variables<2>();
    const std::string dot = gradc::to_dot(gradc::compile(where(x < 0.5, x * 2.5, sqrt(y) / y), gradc::wrt(x)));
    CHECK(testing::dot_syntax_error(dot).empty());
    const auto lines = statements(dot);
    CHECK(has(lines, "v1 [label=\"v1 = 0.5\", shape=plaintext, color=gray, fontcolor=gray];"));
    // y is not differentiated: a grey variable, grey operations, no adjoint edge to them.
    CHECK(has(lines, "v4 [label=\"v4 = x1\", shape=ellipse, style=filled, fillcolor=\"#eeeeee\", color=gray, fontcolor=gray];"));
    CHECK(has(lines, "v5 [label=\"v5 = sqrt(v4)\", shape=box, style=rounded, color=gray, fontcolor=gray];"));
    // The condition: a diamond read by where, fed by the nodes it compares.
    CHECK(has(lines, "c7_0 [shape=diamond, label=\"(v0 < v1)\"];"));
    CHECK(has(lines, "v0 -> c7_0 [style=dotted];"));
    CHECK(has(lines, "v1 -> c7_0 [style=dotted];"));
    CHECK(has(lines, "c7_0 -> v7 [style=dotted, label=\"condition\"];"));
    // where's gate on its taken branch, mul's partial; nothing into y's side.
    CHECK(has(lines, "v7 -> v3 [" + adjoint + ", label=\"[(v0 < v1)]\"];"));
    CHECK(has(lines, "v3 -> v0 [" + adjoint + ", label=\"v2\"];"));
    CHECK(dot.find("-> v6 [style=dashed") == std::string::npos);
    CHECK(dot.find("-> v5 [style=dashed") == std::string::npos);
    CHECK(dot.find("label=\"kernel: 2 variable(s), 1 output(s), derivatives with respect to x0\"") != std::string::npos);
}

TEST_CASE("to_dot draws every output of a kernel with several", "[lower][dot]") {
    auto [a, b] = gradc::variables<2>();
    const std::string dot = gradc::to_dot(gradc::compile(a * b, exp(a)));
    CHECK(testing::dot_syntax_error(dot).empty());
    const auto lines = statements(dot);
    CHECK(has(lines, "y1 [label=\"y1\", shape=doublecircle];"));
    CHECK(has(lines, "y0 -> v2 [" + adjoint + ", label=\"w0\"];"));
    CHECK(has(lines, "y1 -> v3 [" + adjoint + ", label=\"w1\"];"));
    // exp's partial reads its own value.
    CHECK(has(lines, "v3 -> v0 [" + adjoint + ", label=\"v3\"];"));
}

TEST_CASE("to_dot draws an array kernel with one node per array and its adjoint products", "[lower][dot]") {
    auto [W, b, v] = gradc::variables(gradc::mat<4, 3>, gradc::vec<4>, gradc::vec<3>);
    const std::string dot = gradc::to_dot(gradc::compile(sum(tanh(W * v + b)), gradc::wrt(W, b)));
    CHECK(testing::dot_syntax_error(dot).empty());
    const auto lines = statements(dot);
    // The nodes of to_string's program (tests/arrays), with their shapes; v is not a wrt variable.
    CHECK(has(lines, "v0 [label=\"x0: mat<4, 3>\", shape=ellipse, style=filled, fillcolor=\"#d6e9f8\"];"));
    CHECK(has(lines, "v1 [label=\"x2: vec<3>\", shape=ellipse, style=filled, fillcolor=\"#eeeeee\", color=gray, fontcolor=gray];"));
    CHECK(has(lines, "v2 [label=\"v2 = matvec(x0, x2)\\nvec<4>\", shape=box, style=rounded];"));
    CHECK(has(lines, "v6 [label=\"v6 = sum(v5)\\nscalar\", shape=box, style=rounded];"));
    for (const char* e : {"v0 -> v2;", "v1 -> v2;", "v2 -> v4;", "v3 -> v4;", "v4 -> v5;", "v5 -> v6;", "v6 -> y0;"})
        CHECK(has(lines, e));
    // An array operation's edge names the product it adds; x2 gets none.
    CHECK(has(lines, "v2 -> v0 [" + adjoint + ", label=\"ȳ·xᵀ\"];"));
    CHECK(has(lines, "v4 -> v3 [" + adjoint + ", label=\"1\"];"));
    CHECK(dot.find("-> v1 [style=dashed") == std::string::npos);
    CHECK(count_edges(lines) == 7 + 6);
}
