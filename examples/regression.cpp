// Linear regression trained by gradient descent with the dynamic mode: the model, the
// loss and the update are ordinary tensor code; backward() supplies the gradients.
#include <cmath>
#include <cstdlib>
#include <iostream>

#include <gradc/autograd.hpp>

int main() {
    // Computes in double, as numerical code does; gradc's default (LibTorch's) is float32.
    gradc::set_default_dtype(gradc::kFloat64);
    gradc::manual_seed(0);
    // Data: y = X·w_true + b_true + noise, 200 samples with 3 features.
    const auto w_true = gradc::tensor({{1.5}, {-2.0}, {0.5}});
    const double b_true = 0.7;
    auto X = gradc::randn({200, 3});
    auto y = X.mm(w_true) + b_true + 0.01 * gradc::randn({200, 1});

    // Parameters: leaves that require grad.
    auto w = gradc::zeros({3, 1}, gradc::requires_grad());
    auto b = gradc::zeros({1}, gradc::requires_grad());
    const double lr = 0.1;

    for (int step = 0; step < 200; ++step) {
        auto prediction = X.mm(w) + b;  // b broadcasts over the samples
        auto loss = gradc::pow(prediction - y, 2.0).mean();
        loss.backward();
        {
            // The update must not be recorded, and in-place updates of leaves that
            // require grad are only allowed outside grad mode.
            gradc::NoGradGuard no_grad;
            w.sub_(lr * w.grad());
            b.sub_(lr * b.grad());
            w.mutable_grad().zero_();
            b.mutable_grad().zero_();
        }
        if (step % 50 == 0 || step == 199) std::cout << "step " << step << "  loss " << loss.item<double>() << "\n";
    }
    std::cout << "w =\n" << w << "\nb =\n" << b << "\n";
    const bool ok = gradc::allclose(w, w_true, 0, 0.01) && std::abs(b.item<double>() - b_true) < 0.01;
    return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
