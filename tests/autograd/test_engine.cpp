// The engine: graph structure, accumulation, retain_graph, autograd::grad, errors.
#include "support.hpp"

using namespace testing;
using Catch::Matchers::Contains;

TEST_CASE("requires_grad propagates and leaves are tensors without grad_fn", "[autograd][engine]") {
    auto x = gradc::tensor({1.0, 2.0}, gradc::requires_grad());
    auto c = gradc::tensor({3.0, 4.0});
    auto y = x * c;
    CHECK(x.is_leaf());
    CHECK(c.is_leaf());
    CHECK_FALSE(y.is_leaf());
    CHECK(y.requires_grad());
    CHECK_FALSE((c * c).requires_grad());
    CHECK((c * c).grad_fn() == nullptr);
    REQUIRE(y.grad_fn() != nullptr);
    CHECK(y.grad_fn()->name() == "MulBackward");
    CHECK(y.grad_fn()->next_edges()[0].is_valid());
    CHECK_FALSE(y.grad_fn()->next_edges()[1].is_valid());  // c does not require grad
    auto z = y.exp();
    CHECK(z.grad_fn()->sequence_nr() > y.grad_fn()->sequence_nr());
}

TEST_CASE("gradients of a diamond are summed before the shared node runs", "[autograd][engine]") {
    auto x = gradc::tensor({2.0}, gradc::requires_grad());
    auto a = x * x;          // 4, da/dx = 2x = 4
    auto b = a.sin() + a.cos() * a;  // uses a three times
    b.backward();
    const double av = 4.0;
    const double db_da = std::cos(av) - std::sin(av) * av + std::cos(av);
    CHECK(x.grad().item<double>() == Approx(db_da * 4.0).epsilon(1e-14));
}

TEST_CASE("gradients accumulate in leaves across backward calls", "[autograd][engine]") {
    auto x = gradc::tensor({1.0, -2.0}, gradc::requires_grad());
    (x * 3.0).sum().backward();
    (x * x).sum().backward();
    CHECK_THAT(values(x.grad()), approx({3 + 2, 3 - 4}));
    x.mutable_grad() = gradc::Tensor();
    (x * 2.0).sum().backward();
    CHECK_THAT(values(x.grad()), approx({2, 2}));
}

TEST_CASE("backward frees saved tensors unless retain_graph", "[autograd][engine][errors]") {
    auto x = gradc::tensor({0.5, 1.5}, gradc::requires_grad());
    auto y = (x.exp() * x).sum();
    y.backward(gradc::Tensor(), /*retain_graph=*/true);
    y.backward();  // allowed: the graph was retained
    CHECK_THAT(values(x.grad()), approx({2 * (std::exp(0.5) * 1.5), 2 * (std::exp(1.5) * 2.5)}, 1e-14));
    CHECK_THAT(error_of([&] { y.backward(); }),
               Contains("backward through the graph a second time") && Contains("retain_graph=true"));
    // A graph without saved tensors can be run again.
    auto s = (x + 1.0).sum();
    s.backward();
    CHECK_NOTHROW(s.backward());
}

TEST_CASE("backward on non-scalars needs a gradient of the same shape", "[autograd][engine][errors]") {
    auto x = gradc::tensor({1.0, 2.0, 3.0}, gradc::requires_grad());
    auto y = x * 2.0;
    CHECK_THAT(error_of([&] { y.backward(); }),
               Contains("grad can be implicitly created only for scalar outputs") && Contains("[3]"));
    CHECK_THAT(error_of([&] { y.backward(gradc::ones({2})); }),
               Contains("mismatch in shape") && Contains("[2]") && Contains("[3]"));
    auto c = gradc::tensor({1.0});
    CHECK_THAT(error_of([&] { c.backward(); }), Contains("does not require grad and does not have a grad_fn"));
    y.backward(gradc::tensor({1.0, 0.5, -1.0}));
    CHECK_THAT(values(x.grad()), approx({2, 1, -2}));
}

TEST_CASE("autograd::grad returns gradients without touching .grad()", "[autograd][engine]") {
    auto x = gradc::tensor({1.0, 2.0}, gradc::requires_grad());
    auto w = gradc::tensor({3.0, -1.0}, gradc::requires_grad());
    auto y = (x * w).sum();
    auto g = gradc::autograd::grad({y}, {x, w});
    CHECK_THAT(values(g[0]), approx({3, -1}));
    CHECK_THAT(values(g[1]), approx({1, 2}));
    CHECK_FALSE(x.grad().defined());
    CHECK_FALSE(w.grad().defined());
    CHECK_FALSE(g[0].requires_grad());

    auto unused = gradc::tensor({1.0}, gradc::requires_grad());
    auto y2 = (x * x).sum();
    CHECK_THAT(error_of([&] { gradc::autograd::grad({y2}, {unused}, {}, true); }),
               Contains("appears to not have been used in the graph") && Contains("Set allow_unused=True"));
    auto r = gradc::autograd::grad({y2}, {x, unused}, {}, true, false, true);
    CHECK_THAT(values(r[0]), approx({2, 4}));
    CHECK_FALSE(r[1].defined());
    auto nograd = gradc::tensor({1.0});
    CHECK_THAT(error_of([&] { gradc::autograd::grad({y2}, {nograd}); }), Contains("does not require grad"));
}

TEST_CASE("autograd::grad with respect to an intermediate and with grad_outputs", "[autograd][engine]") {
    auto x = gradc::tensor({1.0, 2.0}, gradc::requires_grad());
    auto h = x * x;
    auto y = h.sin();
    auto g = gradc::autograd::grad({y}, {h}, {gradc::tensor({1.0, 2.0})});
    CHECK_THAT(values(g[0]), approx({std::cos(1.0), 2 * std::cos(4.0)}));
    CHECK_FALSE(x.grad().defined());
}

TEST_CASE("backward with inputs only accumulates into those", "[autograd][engine]") {
    auto x = gradc::tensor({1.0}, gradc::requires_grad());
    auto w = gradc::tensor({2.0}, gradc::requires_grad());
    auto y = x * w;
    y.backward(gradc::Tensor(), std::nullopt, false, {w});
    CHECK_FALSE(x.grad().defined());
    CHECK(w.grad().item<double>() == 1.0);
    auto h = x * 3.0;
    auto z = h * h;
    z.backward(gradc::Tensor(), std::nullopt, false, {h});
    CHECK(h.grad().item<double>() == 6.0);
    CHECK_FALSE(x.grad().defined());
}

TEST_CASE("retain_grad keeps the gradient of a non-leaf", "[autograd][engine]") {
    auto x = gradc::tensor({1.0, 2.0}, gradc::requires_grad());
    auto h = x * 2.0;
    h.retain_grad();
    CHECK(h.retains_grad());
    auto y = (h * h).sum();
    y.backward();
    CHECK_THAT(values(h.grad()), approx({4, 8}));
    CHECK_THAT(values(x.grad()), approx({8, 16}));
    auto plain = x * 3.0;
    (plain.sum()).backward();
    CHECK_FALSE(plain.grad().defined());
    CHECK_THAT(error_of([] { gradc::tensor({1.0}).retain_grad(); }), Contains("requires_grad=false"));
}

TEST_CASE("detach, detach_ and requires_grad_", "[autograd][engine]") {
    auto x = gradc::tensor({1.0, 2.0}, gradc::requires_grad());
    auto y = x * 2.0;
    auto d = y.detach();
    CHECK_FALSE(d.requires_grad());
    CHECK(d.is_leaf());
    CHECK(d.data_ptr<double>() == y.data_ptr<double>());  // shares storage
    CHECK(d._version() == y._version());
    auto z = (d * x).sum();
    z.backward();
    CHECK_THAT(values(x.grad()), approx({2, 4}));  // no gradient through d
    auto y2 = x * 3.0;
    y2.detach_();
    CHECK(y2.is_leaf());
    CHECK_FALSE(y2.requires_grad());
    CHECK_THAT(error_of([&] { (x * 1.0).requires_grad_(false); }),
               Contains("only change requires_grad flags of leaf") && Contains("detach()"));
    auto leaf = gradc::tensor({1.0});
    leaf.requires_grad_();
    CHECK(leaf.requires_grad());
    leaf.requires_grad_(false);
    CHECK_FALSE(leaf.requires_grad());
}

TEST_CASE("the graph is freed with the last tensor referring to it", "[autograd][engine]") {
    std::weak_ptr<gradc::autograd::Node> node;
    std::weak_ptr<gradc::autograd::Node> acc;
    auto x = gradc::tensor({1.0, 2.0}, gradc::requires_grad());
    {
        auto y = x.exp();  // saves its own output
        auto z = (y * y).sum();
        node = y.grad_fn();
        acc = y.grad_fn()->next_edges()[0].function;
        CHECK_FALSE(node.expired());
    }
    CHECK(node.expired());
    CHECK(acc.expired());
    {
        auto h = x * 2.0;
        h.retain_grad();  // the node refers back to h only weakly
        node = h.grad_fn();
    }
    CHECK(node.expired());
}

TEST_CASE("a long chain is freed and differentiated without deep recursion", "[autograd][engine]") {
    // Each node owns the previous one through its edge and through its saved input. Freed
    // recursively, the depth of the recursion grows with the chain (a chain of a million
    // overflowed the default 8 MiB stack); sanitizer builds use larger frames.
    constexpr int n = 300000;
    auto x = gradc::tensor({0.5}, gradc::requires_grad());
    std::weak_ptr<gradc::autograd::Node> first;
    {
        gradc::Tensor y = x;
        for (int i = 0; i < n; ++i) {
            y = gradc::sin(y) * 1.0;
            if (i == 0) first = y.grad_fn();
        }
        CHECK_FALSE(first.expired());
    }
    CHECK(first.expired());  // freed without backward

    gradc::Tensor y = x;
    double value = 0.5, derivative = 1;
    for (int i = 0; i < n / 4; ++i) {
        derivative *= std::cos(value);
        value = std::sin(value);
        y = gradc::sin(y);
    }
    y.backward();
    CHECK(x.grad().item<double>() == Approx(derivative).epsilon(1e-12));
    CHECK(y.item<double>() == Approx(value).epsilon(1e-12));
}

TEST_CASE("saved outputs are restored with their grad_fn for double backward", "[autograd][engine]") {
    auto x = gradc::tensor({0.3}, gradc::requires_grad());
    auto y = x.exp();
    auto g = gradc::autograd::grad({y}, {x}, {}, std::nullopt, true);
    auto gg = gradc::autograd::grad({g[0]}, {x});
    CHECK(gg[0].item<double>() == Approx(std::exp(0.3)).epsilon(1e-15));
}

TEST_CASE("more misuse is reported by name", "[autograd][engine][errors]") {
    auto x = gradc::tensor({1.0, 2.0}, gradc::requires_grad());
    auto v = (x * 1.0).slice(0, 0, 1);
    CHECK_THAT(error_of([&] { v.detach_(); }), Contains("detach_()") && Contains("views"));
    auto c = gradc::tensor({1.0});
    auto y = (x * x).sum();
    CHECK_THAT(error_of([&] { y.backward(gradc::Tensor(), std::nullopt, false, {c}); }),
               Contains("backward") && Contains("does not require grad"));
    CHECK_THAT(error_of([&] { gradc::autograd::grad({c}, {x}); }), Contains("autograd::grad") && Contains("does not require grad"));
    CHECK_THAT(error_of([&] { gradc::autograd::backward({y, y}, {gradc::Tensor()}); }), Contains("got 1 gradients for 2 outputs"));
    CHECK_THAT(error_of([&] { gradc::complex(gradc::tensor({1.0}), gradc::tensor({1.0}, gradc::dtype(gradc::kFloat32))); }),
               Contains("complex") && Contains("same dtype"));
}

TEST_CASE("several outputs and a shared subgraph in one backward", "[autograd][engine]") {
    auto x = gradc::tensor({1.0, 2.0}, gradc::requires_grad());
    auto h = x.exp();
    auto a = (h * 2.0).sum();
    auto b = (h * h).sum();
    gradc::autograd::backward({a, b});
    CHECK_THAT(values(x.grad()), approx({(2 + 2 * std::exp(1.0)) * std::exp(1.0), (2 + 2 * std::exp(2.0)) * std::exp(2.0)}, 1e-14));
    // One output depending on another: the engine waits for both contributions.
    auto x2 = gradc::tensor({3.0}, gradc::requires_grad());
    auto p = x2 * x2;
    auto q = p * 2.0;
    gradc::autograd::backward({p, q});
    CHECK(x2.grad().item<double>() == 18.0);  // (1 + 2)·2x
}

TEST_CASE("to() between floating dtypes is differentiable", "[autograd][engine]") {
    auto x = gradc::tensor({1.5}, gradc::requires_grad());
    auto y = x.to(gradc::kFloat32);
    CHECK(y.dtype() == gradc::kFloat32);
    (y * y).sum().backward();
    CHECK(x.grad().dtype() == gradc::kFloat64);
    CHECK(x.grad().item<double>() == 3.0);
}
