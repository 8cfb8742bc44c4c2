// The worked examples of the tutorial reverse-mode implementation in gradc's dynamic mode:
// v3 = sin(x1), v4 = x1·x2, v5 = v3 + v4, then backward. Writes the graph's picture to
// dynamic_seed.dot (and dynamic_seed.png where Graphviz's `dot` is installed).
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iostream>

#include <gradc/autograd.hpp>

int main() {
    // Computes in double, as numerical code does; gradc's default (LibTorch's) is float32.
    gradc::set_default_dtype(gradc::kFloat64);
    // Scalar inputs, as in the tutorial's first run.
    auto x1 = gradc::tensor({0.5}, gradc::requires_grad());
    auto x2 = gradc::tensor({0.5}, gradc::requires_grad());
    auto v3 = gradc::sin(x1);
    auto v4 = gradc::mul(x1, x2);
    auto v5 = gradc::add(v3, v4);
    std::cout << "v5 = " << v5.item<double>() << ", grad_fn = " << v5.grad_fn()->name() << "\n";
    // The picture, before backward frees the saved tensors: nodes, saved tensors, leaves.
    std::ofstream("dynamic_seed.dot") << gradc::autograd::to_dot(v5, {{"x1", x1}, {"x2", x2}, {"v5", v5}});
    if (std::system("command -v dot > /dev/null 2>&1") == 0 &&
        std::system("dot -Tpng dynamic_seed.dot -o dynamic_seed.png") == 0)
        std::cout << "wrote dynamic_seed.dot and dynamic_seed.png\n";
    else
        std::cout << "wrote dynamic_seed.dot (render it with Graphviz: dot -Tpng dynamic_seed.dot -o dynamic_seed.png)\n";
    v5.backward(gradc::tensor({1.0}));
    std::cout << "x1.grad =\n" << x1.grad() << "\nx2.grad =\n" << x2.grad() << "\n";  // 1.37758, 0.5

    // Vector inputs: elementwise operations keep the same graph.
    auto y1 = gradc::tensor({0.0140, 0.5773, 0.0469}, gradc::requires_grad());
    auto y2 = gradc::tensor({0.3232, 0.4903, 0.9395}, gradc::requires_grad());
    auto w5 = gradc::sin(y1) + y1 * y2;
    w5.backward(gradc::tensor({0.4948, 0.8746, 0.7076}));
    std::cout << "y1.grad =\n" << y1.grad() << "\ny2.grad =\n" << y2.grad() << "\n";

    // The run is also a check: exit status 1 if the tutorial's numbers are not reproduced.
    const bool ok = std::abs(x1.grad().item<double>() - 1.37758256) < 1e-8 && x2.grad().item<double>() == 0.5 &&
                    std::abs(y1.grad()[2].item<double>() - 1.37161212) < 1e-8;
    return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
