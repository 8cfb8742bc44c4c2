// Reductions, softmax and friends against PyTorch; gradients of ties and zeros.
#include "support.hpp"

using namespace testing;
using Catch::Matchers::Contains;

namespace {
gradc::Tensor m_leaf() { return ref_tensor("reduce.m", {3, 4}, gradc::requires_grad()); }

void check(const std::string& name, const std::function<gradc::Tensor(const gradc::Tensor&)>& f) {
    INFO(name);
    auto x = m_leaf();
    auto y = f(x);
    CHECK_THAT(values(y), matches("reduce." + name + ".y", 1e-12));
    y.backward(y.numel() == 3 ? ref_tensor("reduce.w", {3}).reshape(y.sizes()) : gradc::ones_like(y));
    CHECK_THAT(values(x.grad()), matches("reduce." + name + ".grad", 1e-12));
}
}  // namespace

TEST_CASE("reductions along a dimension agree with PyTorch", "[autograd][reduction]") {
    check("sum1", [](const gradc::Tensor& x) { return x.sum({1}); });
    check("mean1", [](const gradc::Tensor& x) { return x.mean({1}); });
    check("prod1", [](const gradc::Tensor& x) { return x.prod(1); });  // a zero in row 1
    check("amax1", [](const gradc::Tensor& x) { return x.amax({1}); });  // a tie in row 2
    check("max1", [](const gradc::Tensor& x) { return std::get<0>(x.max(1)); });
    check("min1", [](const gradc::Tensor& x) { return std::get<0>(x.min(1)); });
    check("logsumexp1", [](const gradc::Tensor& x) { return x.logsumexp({1}); });
}

TEST_CASE("full reductions agree with PyTorch", "[autograd][reduction]") {
    check("norm", [](const gradc::Tensor& x) { return x.norm(); });
    check("prod", [](const gradc::Tensor& x) { return (x + 3.0).prod(); });
    check("amax", [](const gradc::Tensor& x) { return x.amax(); });
}

TEST_CASE("softmax and log_softmax agree with PyTorch", "[autograd][reduction]") {
    auto x = m_leaf();
    auto y = gradc::softmax(x, 1);
    CHECK_THAT(values(y), matches("reduce.softmax.y", 1e-12));
    y.backward(ref_tensor("reduce.m", {3, 4}) * 0.5);
    CHECK_THAT(values(x.grad()), matches("reduce.softmax.grad", 1e-12, 1e-14));
    auto x2 = m_leaf();
    auto l = gradc::log_softmax(x2, 0);
    CHECK_THAT(values(l), matches("reduce.log_softmax.y", 1e-12));
    l.backward(ref_tensor("reduce.m", {3, 4}) * 0.5);
    CHECK_THAT(values(x2.grad()), matches("reduce.log_softmax.grad", 1e-12, 1e-14));
}

TEST_CASE("keepdim, several dims and negative dims", "[autograd][reduction]") {
    auto x = gradc::arange(24).reshape({2, 3, 4});
    CHECK(x.sum({1}, true).sizes() == gradc::Shape{2, 1, 4});
    CHECK(x.sum({0, 2}).sizes() == gradc::Shape{3});
    CHECK_THAT(values(x.sum({0, 2})), approx({60, 92, 124}));
    CHECK_THAT(values(x.sum({-1})), approx(values(x.sum({2}))));
    auto [v, i] = x.max(-1);
    CHECK_THAT(values(v), approx({3, 7, 11, 15, 19, 23}));
    CHECK(i.dtype() == gradc::kInt64);
    CHECK_THAT(values(i), approx({3, 3, 3, 3, 3, 3}));
    CHECK_THAT(error_of([&] { x.sum({3}); }), Contains("sum") && Contains("dimension out of range") && Contains("got 3"));
    CHECK_THAT(error_of([&] { x.sum({1, 1}); }), Contains("appears multiple times"));
}

TEST_CASE("norm at the origin has the minimum-norm subgradient 0", "[autograd][reduction]") {
    auto x = gradc::zeros({3}, gradc::requires_grad());
    x.norm().backward();
    CHECK_THAT(values(x.grad()), approx({0, 0, 0}));
    auto y = gradc::tensor({3.0, 4.0}, gradc::requires_grad());
    auto n = y.norm();
    CHECK(n.item<double>() == 5.0);
    n.backward();
    CHECK_THAT(values(y.grad()), approx({0.6, 0.8}));
}

TEST_CASE("sum of a large tensor uses the vectorised loop exactly", "[autograd][reduction]") {
    auto x = gradc::ones({1001}, gradc::dtype(gradc::kFloat32));
    CHECK(x.sum().item<double>() == 1001.0);
    CHECK(gradc::arange(1000).sum().item<double>() == 499500.0);
}
