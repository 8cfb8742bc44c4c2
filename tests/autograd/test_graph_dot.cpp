// gradc::autograd::to_dot draws the backward graph as torchviz's make_dot does: nodes,
// edges, saved tensors, leaves, hooks, outputs.
#include <algorithm>
#include <any>
#include <string>

#include <dot_syntax.hpp>

#include "support.hpp"

using gradc::Tensor;
using gradc::autograd::to_dot;

namespace {

std::size_t occurrences(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
    return n;
}

}  // namespace

TEST_CASE("to_dot draws the seed example's backward graph", "[autograd][dot]") {
    auto x1 = gradc::tensor({0.5}, gradc::requires_grad());
    auto x2 = gradc::tensor({0.5}, gradc::requires_grad());
    auto v5 = gradc::sin(x1) + x1 * x2;
    const std::string dot = to_dot(v5, {{"x1", x1}, {"x2", x2}});
    CHECK(testing::dot_syntax_error(dot).empty());
    // The output, its grad_fn first (n0), then the nodes in the order the walk reaches them.
    CHECK(dot.find("out0 [label=\"output 0\\n[1] Double\", fillcolor=darkolivegreen1];") != std::string::npos);
    CHECK(dot.find("n0 [label=\"AddBackward\", fillcolor=lightgrey];") != std::string::npos);
    CHECK(dot.find("n0 -> out0;") != std::string::npos);
    CHECK(occurrences(dot, "[label=\"SinBackward\"") == 1);
    CHECK(occurrences(dot, "[label=\"MulBackward\"") == 1);
    // x1 feeds sin and mul through one AccumulateGrad: two in all, each with its leaf.
    CHECK(occurrences(dot, "[label=\"AccumulateGrad\"") == 2);
    CHECK(occurrences(dot, "[label=\"x1\\n[1] Double\", fillcolor=lightblue];") == 1);
    CHECK(occurrences(dot, "[label=\"x2\\n[1] Double\", fillcolor=lightblue];") == 1);
    // Saved tensors: sin saves its input, mul both; add none. Named where `names` names them.
    CHECK(occurrences(dot, "[label=\"self = x1\\n[1] Double\", fillcolor=orange];") == 2);
    CHECK(occurrences(dot, "[label=\"other = x2\\n[1] Double\", fillcolor=orange];") == 1);
    // Edges: out0←add, add←sin, add←mul, sin←acc(x1), mul←acc(x1), mul←acc(x2), two
    // leaves into their AccumulateGrad, three saved tensors.
    CHECK(occurrences(dot, " -> ") == 1 + 5 + 2 + 3);
    CHECK(occurrences(dot, "[style=dotted, arrowhead=none]") == 3);
}

TEST_CASE("to_dot shows saved tensors freed by backward, packed by hooks or modified", "[autograd][dot]") {
    auto x = gradc::tensor({1.0, 2.0}, gradc::requires_grad());
    SECTION("freed") {
        auto y = (x * x).sum();
        y.backward();
        const std::string dot = to_dot(y);
        CHECK(occurrences(dot, "freed by backward") == 2);
        CHECK(testing::dot_syntax_error(dot).empty());
    }
    SECTION("packed by a saved-tensor hook, which the picture does not call") {
        int unpacks = 0;
        Tensor y;
        {
            gradc::autograd::SavedTensorsHooks hooks([](const Tensor& t) { return std::any(t); },
                                                     [&](const std::any& a) { ++unpacks; return std::any_cast<Tensor>(a); });
            y = gradc::exp(x);
        }
        const std::string dot = to_dot(y);
        CHECK(dot.find("result\\npacked by a saved-tensor hook") != std::string::npos);
        CHECK(unpacks == 0);
        // Without hooks, a saved output is found under its name (it is saved as an alias).
        auto z = gradc::exp(x);
        CHECK(to_dot(z, {{"z", z}}).find("[label=\"result = z\\n[2] Double\", fillcolor=orange]") != std::string::npos);
    }
    SECTION("modified in place") {
        auto a = x * 1.0;
        auto y = a * a;
        a.mul_(2.0);
        const std::string dot = to_dot(y);
        CHECK(occurrences(dot, "modified in place since saved") == 2);
        CHECK(testing::dot_syntax_error(dot).empty());
    }
}

TEST_CASE("to_dot counts the hooks of nodes and leaves", "[autograd][dot]") {
    auto x = gradc::tensor({1.0, 2.0}, gradc::requires_grad());
    auto h = x * 3.0;
    h.register_hook([](const Tensor& g) { return g; });
    h.retain_grad();
    h.grad_fn()->register_prehook([](const gradc::tensor_list&) {});
    h.grad_fn()->register_hook([](const gradc::tensor_list&, const gradc::tensor_list&) {});
    h.grad_fn()->register_hook([](const gradc::tensor_list&, const gradc::tensor_list&) {});
    x.register_hook([](const Tensor& g) { return g; });
    x.register_post_accumulate_grad_hook([](const Tensor&) {});
    auto y = h.sum();
    const std::string dot = to_dot(y, {{"x", x}});
    CHECK(dot.find("[label=\"MulBackward\\npre-hooks: 1\\npost-hooks: 2\\ntensor hooks: 1\\nretain_grad: 1\"") !=
          std::string::npos);
    CHECK(dot.find("[label=\"x\\n[2] Double\\ntensor hooks: 1\\npost-accumulate-grad hooks: 1\", fillcolor=lightblue]") !=
          std::string::npos);
    CHECK(dot.find("[label=\"SumBackward\", fillcolor=lightgrey]") != std::string::npos);
    CHECK(testing::dot_syntax_error(dot).empty());
    // A retained gradient counts while its tensor lives.
    auto z = gradc::exp(x);
    auto fn = z.grad_fn();
    z.retain_grad();
    CHECK(to_dot(z).find("ExpBackward\\nretain_grad: 1") != std::string::npos);
    z = Tensor();  // fn lives on through `fn`, the retained tensor does not
    CHECK(fn->hook_counts().retained_grads == 0);
}

TEST_CASE("to_dot draws several outputs over one graph, and outputs without one", "[autograd][dot]") {
    auto x = gradc::tensor({1.0, 2.0}, gradc::requires_grad());
    auto s = gradc::sin(x);
    auto a = s * 2.0;
    auto b = s + 1.0;
    auto c = gradc::tensor({3.0});
    const std::string dot = to_dot(gradc::tensor_list{a, b, c, Tensor()}, {{"b", b}});
    CHECK(testing::dot_syntax_error(dot).empty());
    CHECK(occurrences(dot, "[label=\"SinBackward\"") == 1);  // shared, drawn once
    CHECK(occurrences(dot, "[label=\"AccumulateGrad\"") == 1);
    CHECK(dot.find("out1 [label=\"b\\n[2] Double\", fillcolor=darkolivegreen1];") != std::string::npos);
    CHECK(dot.find("out2 [label=\"output 2\\n[1] Double\\n(no graph: does not require grad)\"") != std::string::npos);
    CHECK(dot.find("out3 [label=\"output 3\\nundefined\"") != std::string::npos);
}

TEST_CASE("to_dot walks a long chain without recursion", "[autograd][dot]") {
    auto x = gradc::tensor({1.0}, gradc::requires_grad());
    Tensor y = x;
    constexpr int length = 20000;
    for (int i = 0; i < length; ++i) y = y * 1.0;
    const std::string dot = to_dot(y);
    CHECK(occurrences(dot, "[label=\"MulBackward\"") == length);
    CHECK(occurrences(dot, "[label=\"AccumulateGrad\"") == 1);
}
