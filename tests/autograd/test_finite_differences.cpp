// A law instead of an oracle: for many compositions, the gradient from backward equals
// central finite differences (float64, h = 1e-6), and the gradient of the gradient
// (create_graph) equals finite differences of the gradient.
#include <functional>

#include "support.hpp"

using namespace testing;
using gradc::Tensor;

namespace {

using Scalar = std::function<Tensor(const Tensor&)>;

std::vector<double> numeric_gradient(const Scalar& f, const Tensor& x0) {
    gradc::NoGradGuard no_grad;
    const double h = 1e-6;
    std::vector<double> g;
    for (std::int64_t i = 0; i < x0.numel(); ++i) {
        Tensor xp = x0.detach().clone(), xm = x0.detach().clone();
        xp.data_ptr<double>()[i] += h;
        xm.data_ptr<double>()[i] -= h;
        g.push_back((f(xp).item<double>() - f(xm).item<double>()) / (2 * h));
    }
    return g;
}

void check_gradient(const char* name, const Scalar& f, const Tensor& x0) {
    INFO(name);
    Tensor x = x0.detach().clone().requires_grad_();
    Tensor g = gradc::autograd::grad({f(x)}, {x})[0];
    CHECK_THAT(values(g), approx(numeric_gradient(f, x0), 1e-6, 1e-7));
}

// Second order: the gradient of v·∇f equals the finite difference of v·∇f.
void check_second_order(const char* name, const Scalar& f, const Tensor& x0) {
    INFO(name);
    const Tensor v = gradc::linspace(-1, 1, x0.numel()).reshape(x0.sizes());
    Scalar vg = [&](const Tensor& x) {
        Tensor xx = x.requires_grad() ? x : x.detach().clone().requires_grad_();
        gradc::AutoGradMode enable(true);
        Tensor g = gradc::autograd::grad({f(xx)}, {xx}, {}, std::nullopt, /*create_graph=*/true)[0];
        return (g * v).sum();
    };
    Tensor x = x0.detach().clone().requires_grad_();
    Tensor h = gradc::autograd::grad({vg(x)}, {x}, {}, std::nullopt, false, true)[0];
    std::vector<double> expected = numeric_gradient([&](const Tensor& p) { return vg(p).detach(); }, x0);
    CHECK_THAT(values(h.defined() ? h : gradc::zeros_like(x0)), approx(expected, 1e-5, 1e-6));
}

}  // namespace

TEST_CASE("gradients equal finite differences", "[autograd][law]") {
    gradc::manual_seed(7);
    const Tensor m = gradc::randn({3, 4});
    const Tensor w = gradc::randn({4, 2});
    const Tensor p = gradc::rand({3, 4}) + 0.5;
    const std::pair<const char*, Scalar> cases[] = {
        {"broadcast mul/div", [](const Tensor& x) { return (x * x.sum({0}) / (x.amax({1}, true).abs() + 1.0)).sum(); }},
        {"matmul + tanh", [&](const Tensor& x) { return gradc::tanh(x.mm(w)).pow(2.0).sum(); }},
        {"softmax · m", [&](const Tensor& x) { return (gradc::softmax(x, 1) * m).sum(); }},
        {"log_softmax dim 0", [&](const Tensor& x) { return (gradc::log_softmax(x, 0) * m).sum(); }},
        {"logsumexp", [](const Tensor& x) { return x.logsumexp({0, 1}); }},
        {"norm + mean", [](const Tensor& x) { return x.norm() + x.mean({1}).prod(); }},
        {"views", [](const Tensor& x) { return (x.t().reshape({2, 6}).narrow(1, 1, 4) * x.slice(1, 0, 4, 2).flatten().sum()).sum(); }},
        {"select/expand", [](const Tensor& x) { return (x.select(1, 2).unsqueeze(1).expand({3, 4}) * x).sum(); }},
        {"cat/stack", [](const Tensor& x) { return gradc::stack({gradc::cat({x, x * x}, 1).sum({1}), x.sum({1})}, 0).pow(2.0).sum(); }},
        {"gather/index_select", [](const Tensor& x) {
             return (x.gather(1, gradc::tensor_i64({0, 3, 2, 2, 1, 0}, {3, 2})).exp() * 2.0).sum() +
                    x.index_select(1, gradc::tensor_i64({3, 3, 0})).sin().sum();
         }},
        {"where/clamp", [](const Tensor& x) { return gradc::where(x > 0.1, x * x, gradc::clamp(x, -0.5, 0.5)).sum(); }},
        {"maximum/minimum", [&](const Tensor& x) { return (gradc::maximum(x, m * 0.5) + gradc::minimum(x, -m)).sum(); }},
        {"pow/log/sqrt", [&](const Tensor& x) { return (gradc::pow(p, x) + gradc::sqrt(x * x + p) * gradc::log(p + x * x)).sum(); }},
        {"in-place on a view", [](const Tensor& x) {
             Tensor b = x * 1.0;
             b.slice(1, 1, 3).mul_(x.slice(1, 0, 2));
             b.select(0, 2).sin_();
             return (b * b).sum();
         }},
        {"copy_ into a buffer", [](const Tensor& x) {
             Tensor buf = gradc::zeros({3, 4});
             buf.slice(0, 0, 2).copy_(x.slice(0, 1, 3).exp());
             return (buf * buf).sum() + x.sum();
         }},
        {"max(dim)", [](const Tensor& x) { return std::get<0>(x.max(1)).pow(2.0).sum() + std::get<0>(x.min(0, true)).sum(); }},
        {"matmul batched", [&](const Tensor& x) { return gradc::matmul(x.reshape({3, 2, 2}), x.reshape({3, 2, 2})).sum(); }},
    };
    for (const auto& [name, f] : cases) check_gradient(name, f, m);
}

TEST_CASE("second derivatives equal finite differences of gradients", "[autograd][law]") {
    gradc::manual_seed(8);
    const Tensor m = gradc::randn({2, 3});
    const Tensor w = gradc::randn({3, 2});
    const std::pair<const char*, Scalar> cases[] = {
        {"elementwise", [](const Tensor& x) { return (gradc::sin(x) * gradc::exp(x * 0.3) + gradc::sigmoid(x) * x).sum(); }},
        {"matmul + softplus", [&](const Tensor& x) { return gradc::softplus(x.mm(w)).sum(); }},
        {"softmax", [&](const Tensor& x) { return (gradc::softmax(x, 1) * m).sum(); }},
        {"views and broadcasting", [](const Tensor& x) { return (x.t() * x.sum({1})).pow(2.0).sum(); }},
        {"division", [](const Tensor& x) { return (x / (x * x + 1.0)).sum(); }},
        {"norm", [](const Tensor& x) { return x.norm(); }},
    };
    for (const auto& [name, f] : cases) check_second_order(name, f, m);
}
