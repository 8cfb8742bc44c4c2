// The worked example of the tutorial reverse-mode implementation: v5 = sin(x1) + x1*x2 at
// x1 = x2 = 0.5.
// Prints the value, the gradient (1.37758256, 0.5), a JVP and the lowered programs, and
// writes the kernel's picture to seed.dot (and seed.png where Graphviz's `dot` is installed).

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>

#include <gradc/gradc.hpp>

int main() {
    auto [x1, x2] = gradc::variables<2>();
    auto f = sin(x1) + x1 * x2;
    auto k = gradc::compile(f);

    const auto r = k.gradient(0.5, 0.5);
    std::printf("f(0.5, 0.5)        = %.8f\n", r.value);
    std::printf("gradient           = (%.8f, %.8f)\n", r.gradient[0], r.gradient[1]);

    const auto t = k.jvp(std::array{0.5, 0.5}, std::array{1.0, 0.0});
    std::printf("JVP along (1, 0)   = %.8f\n", t.tangent);

    auto kw = gradc::compile(f, gradc::wrt(x2));
    std::printf("d/dx2 only         = %.8f\n\n", kw.gradient(0.5, 0.5).gradient[0]);

    std::cout << gradc::to_string(k);

    // The picture: the primal graph and the adjoint edges with their partials.
    std::ofstream("seed.dot") << gradc::to_dot(k);
    if (std::system("command -v dot > /dev/null 2>&1") == 0 && std::system("dot -Tpng seed.dot -o seed.png") == 0)
        std::cout << "\nwrote seed.dot and seed.png\n";
    else
        std::cout << "\nwrote seed.dot (render it with Graphviz: dot -Tpng seed.dot -o seed.png)\n";
    return (r.gradient[0] > 1.3775825 && r.gradient[0] < 1.3775826 && r.gradient[1] == 0.5) ? 0 : 1;
}
