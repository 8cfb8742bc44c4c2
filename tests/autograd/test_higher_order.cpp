// Higher-order derivatives: backward formulas are recorded when create_graph is set.
#include <cmath>

#include "support.hpp"

using namespace testing;

TEST_CASE("first, second and third derivative of tanh", "[autograd][higher]") {
    auto x = gradc::tensor({0.3, -0.8}, gradc::requires_grad());
    auto y = gradc::tanh(x).sum();
    auto d1 = gradc::autograd::grad({y}, {x}, {}, std::nullopt, true)[0];
    auto d2 = gradc::autograd::grad({d1.sum()}, {x}, {}, std::nullopt, true)[0];
    auto d3 = gradc::autograd::grad({d2.sum()}, {x})[0];
    CHECK_THAT(values(d1), matches("higher.tanh.d1", 1e-12));
    CHECK_THAT(values(d2), matches("higher.tanh.d2", 1e-12));
    CHECK_THAT(values(d3), matches("higher.tanh.d3", 1e-12));
    // Closed form: t = tanh x; t' = 1 - t², t'' = -2t(1 - t²), t''' = (6t² - 2)(1 - t²)
    const double t = std::tanh(0.3);
    CHECK(values(d3)[0] == Approx((6 * t * t - 2) * (1 - t * t)).epsilon(1e-13));
}

TEST_CASE("mixed second derivative through a matrix-vector product", "[autograd][higher]") {
    auto x = gradc::tensor({0.7, 1.3}, gradc::requires_grad());
    auto w = gradc::tensor({{0.5, -1.0}, {2.0, 0.25}}, gradc::requires_grad());
    auto y = (gradc::sigmoid(w.mv(x)) * x).sum();
    auto gx = gradc::autograd::grad({y}, {x}, {}, std::nullopt, true)[0];
    CHECK(gx.requires_grad());
    CHECK_THAT(values(gx), matches("higher.mixed.gx", 1e-12));
    auto hxw = gradc::autograd::grad({gx.sum()}, {w})[0];
    CHECK_THAT(values(hxw), matches("higher.mixed.hxw", 1e-12));
}

TEST_CASE("backward with create_graph leaves a differentiable .grad()", "[autograd][higher]") {
    auto x = gradc::tensor({2.0}, gradc::requires_grad());
    auto y = gradc::pow(x, 3.0);
    y.backward(gradc::Tensor(), std::nullopt, /*create_graph=*/true);
    auto g = x.grad();  // 3x² = 12
    CHECK(g.item<double>() == 12.0);
    REQUIRE(g.requires_grad());
    auto h = gradc::autograd::grad({g}, {x})[0];  // 6x = 12
    CHECK(h.item<double>() == 12.0);
    // x.grad() now refers to a graph that ends in x's AccumulateGrad, which owns x: a
    // cycle, as in PyTorch. Resetting the gradient breaks it.
    x.mutable_grad() = gradc::Tensor();
}

TEST_CASE("second derivatives of reductions, views and broadcasting", "[autograd][higher]") {
    // f(x) = Σ_i (Σ_j x_ij)² over rows; ∂²f/∂x_ij∂x_ik = 2 within a row.
    auto x = gradc::tensor({{1.0, 2.0}, {3.0, 4.0}}, gradc::requires_grad());
    auto f = gradc::pow(x.sum({1}), 2.0).sum();
    auto g = gradc::autograd::grad({f}, {x}, {}, std::nullopt, true)[0];
    CHECK_THAT(values(g), approx({6, 6, 14, 14}));
    auto h = gradc::autograd::grad({g.select(0, 0).sum()}, {x})[0];
    CHECK_THAT(values(h), approx({4, 4, 0, 0}));
    // Broadcast product: d/da Σ (a·b)² with a [2,1], b [3]
    auto a = gradc::tensor({1.0, 2.0}, gradc::requires_grad()).reshape({2, 1});
    auto b = gradc::tensor({1.0, 2.0, 3.0}, gradc::requires_grad());
    auto s = gradc::pow(a * b, 2.0).sum();
    auto ga = gradc::autograd::grad({s}, {b}, {}, std::nullopt, true)[0];  // 2 b Σ a² = 10 b
    CHECK_THAT(values(ga), approx({10, 20, 30}));
    auto hb = gradc::autograd::grad({ga.sum()}, {b})[0];
    CHECK_THAT(values(hb), approx({10, 10, 10}));
}

TEST_CASE("prod with zeros is differentiable twice, as PyTorch", "[autograd][higher]") {
    // y/x is 0/0 at a zero; the second derivative must still be the product of the others.
    auto x = ref_tensor("higher.prod_zeros.x", {3, 4}, gradc::requires_grad());
    auto d1 = gradc::autograd::grad({gradc::prod(x, 1).sum()}, {x}, {}, std::nullopt, true)[0];
    CHECK_THAT(values(d1), matches("higher.prod_zeros.d1"));
    REQUIRE(d1.requires_grad());
    auto d2 = gradc::autograd::grad({(d1 * gradc::arange(12.0).reshape({3, 4})).sum()}, {x})[0];
    CHECK_THAT(values(d2), matches("higher.prod_zeros.d2"));

    auto v = ref_tensor("higher.prod_zero_all.x", {4});
    auto h = gradc::autograd::functional::hessian([](const gradc::Tensor& t) { return gradc::prod(t); }, v);
    CHECK_THAT(values(h), matches("higher.prod_zero_all.hessian"));
}
