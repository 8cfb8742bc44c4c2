// Custom autograd functions (docs/dynamic.md, "Custom functions"): a numerically stable
// log(1 + exp(x)) with its own backward, a once-differentiable clamp that passes gradients
// straight through, and an in-place custom operation marked dirty.
#include <cmath>
#include <cstdlib>
#include <iostream>

#include <gradc/autograd.hpp>

using gradc::Tensor;
using gradc::tensor_list;
using gradc::autograd::AutogradContext;

// softplus(x) = log(1 + e^x); d/dx = sigmoid(x). The backward uses differentiable
// operations, so second derivatives work too.
struct Softplus : gradc::autograd::Function<Softplus> {
    static Tensor forward(AutogradContext* ctx, Tensor x, double beta) {
        ctx->save_for_backward({x});
        ctx->saved_data["beta"] = beta;
        return gradc::softplus(x * beta) / beta;
    }
    static tensor_list backward(AutogradContext* ctx, tensor_list grad_outputs) {
        Tensor x = ctx->get_saved_variables()[0];
        const double beta = ctx->saved_data["beta"].toDouble();
        return {gradc::sigmoid(x * beta) * grad_outputs[0], Tensor()};  // no gradient for beta
    }
};

// Straight-through clamp: forward clamps, backward pretends it was the identity.
struct StraightThroughClamp : gradc::autograd::Function<StraightThroughClamp> {
    static constexpr bool once_differentiable = true;
    static Tensor forward(AutogradContext*, Tensor x, double lo, double hi) { return x.clamp(lo, hi); }
    static tensor_list backward(AutogradContext*, tensor_list g) { return {g[0], Tensor(), Tensor()}; }
};

// x ← 2x in place.
struct Twice_ : gradc::autograd::Function<Twice_> {
    static Tensor forward(AutogradContext* ctx, Tensor x) {
        x.mul_(2.0);
        ctx->mark_dirty({x});
        return x;
    }
    static tensor_list backward(AutogradContext*, tensor_list g) { return {2.0 * g[0]}; }
};

int main() {
    // Computes in double, as numerical code does; gradc's default (LibTorch's) is float32.
    gradc::set_default_dtype(gradc::kFloat64);
    bool ok = true;
    auto x = gradc::tensor({-1.0, 0.0, 2.0}, gradc::requires_grad());
    auto y = Softplus::apply(x, 1.0);
    std::cout << "softplus(x) =\n" << y << "\ngrad_fn: " << y.grad_fn()->name() << "\n";
    auto g = gradc::autograd::grad({y.sum()}, {x}, {}, std::nullopt, /*create_graph=*/true)[0];
    auto gg = gradc::autograd::grad({g.sum()}, {x})[0];
    std::cout << "d/dx = sigmoid(x) =\n" << g << "\nd2/dx2 = sigmoid(x)(1 - sigmoid(x)) =\n" << gg << "\n";
    const double s = 1 / (1 + std::exp(-2.0));
    ok = ok && std::abs(g[2].item<double>() - s) < 1e-12 && std::abs(gg[2].item<double>() - s * (1 - s)) < 1e-12;

    auto w = gradc::tensor({-3.0, 0.5, 3.0}, gradc::requires_grad());
    auto c = StraightThroughClamp::apply(w, -1.0, 1.0);
    (c * c).sum().backward();
    std::cout << "straight-through clamp gradient (2·clamp(w)) =\n" << w.grad() << "\n";
    ok = ok && w.grad()[0].item<double>() == -2.0 && w.grad()[1].item<double>() == 1.0;
    try {
        auto gw = gradc::autograd::grad({StraightThroughClamp::apply(w, -1.0, 1.0).sum()}, {w}, {}, std::nullopt, true)[0];
        gw.sum().backward();
        ok = false;
    } catch (const gradc::Error& e) {
        std::cout << "double backward refused: " << e.what() << "\n";
    }

    auto h = x * 1.0;
    Twice_::apply(h);
    std::cout << "after Twice_: " << h.grad_fn()->name() << ", version " << h._version() << "\n";
    x.mutable_grad() = Tensor();
    h.sum().backward();
    ok = ok && x.grad()[0].item<double>() == 2.0;
    return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
