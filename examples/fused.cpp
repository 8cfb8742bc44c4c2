// A small network trained by gradient descent in the dynamic mode, with its activation
// as one fused operation: the layer's bias and GELU are a compiled static kernel
// (gradc::autograd::fuse) inside an otherwise ordinary tensor program. The fused
// activation runs as one pass over the hidden units forward and one backward, where the
// same expression as separate operations would take seven of each and keep their
// temporaries for backward. The first step is checked against the unfused expression.
#include <cmath>
#include <cstdlib>
#include <iostream>

#include <gradc/autograd.hpp>
#include <gradc/gradc.hpp>

int main() {
    // Computes in double, as numerical code does; gradc's default (LibTorch's) is float32.
    gradc::set_default_dtype(gradc::kFloat64);
    namespace ag = gradc::autograd;
    // gelu(u) = u·Φ(u), u = x + b: the bias broadcasts along the rows of x.
    auto [x, b] = gradc::variables<2>();
    const auto u = x + b;
    const auto gelu_bias = ag::fuse(gradc::compile(0.5 * u * (1.0 + erf(u * 0.7071067811865476))), "gelu_bias");

    gradc::manual_seed(0);
    // Data: y = sin(2·x₀) + x₁², 512 samples with 2 features.
    const auto X = gradc::rand({512, 2}) * 2.0 - 1.0;
    const auto y = (gradc::sin(2.0 * X.select(1, 0)) + gradc::pow(X.select(1, 1), 2.0)).unsqueeze(1);

    auto W1 = (0.8 * gradc::randn({2, 32})).requires_grad_();
    auto b1 = gradc::zeros({32}, gradc::requires_grad());
    auto W2 = (0.2 * gradc::randn({32, 1})).requires_grad_();
    auto b2 = gradc::zeros({1}, gradc::requires_grad());
    const gradc::tensor_list params{W1, b1, W2, b2};

    // The fused layer and the same layer as separate operations agree.
    {
        const auto h = X.mm(W1);
        const auto fused = gelu_bias(h, b1);
        const auto v = h + b1;
        const auto unfused = 0.5 * v * (1.0 + gradc::erf(v * 0.7071067811865476));
        const auto g1 = ag::grad({(fused * fused).sum()}, {W1, b1}, {}, /*retain_graph=*/true);
        const auto g2 = ag::grad({(unfused * unfused).sum()}, {W1, b1});
        if (!gradc::allclose(fused, unfused, 1e-12, 1e-14) || !gradc::allclose(g1[0], g2[0], 1e-12, 1e-12) ||
            !gradc::allclose(g1[1], g2[1], 1e-12, 1e-12)) {
            std::cerr << "the fused layer disagrees with the unfused one\n";
            return EXIT_FAILURE;
        }
        std::cout << "node of the fused layer: " << fused.grad_fn()->name() << "\n";
    }

    double first = 0, last = 0;
    const double lr = 0.05;
    for (int step = 0; step < 800; ++step) {
        const auto hidden = gelu_bias(X.mm(W1), b1);  // one fused operation
        const auto prediction = hidden.mm(W2) + b2;  // ordinary operations around it
        const auto loss = gradc::pow(prediction - y, 2.0).mean();
        const auto grads = ag::grad({loss}, params);
        {
            gradc::NoGradGuard no_grad;
            for (std::size_t i = 0; i < params.size(); ++i) gradc::Tensor(params[i]).sub_(lr * grads[i]);
        }
        last = loss.item<double>();
        if (step == 0) first = last;
        if (step % 200 == 0 || step == 799) std::cout << "step " << step << "  loss " << last << "\n";
    }
    return last < first / 10 ? EXIT_SUCCESS : EXIT_FAILURE;
}
