// A program outside gradc, built against an installed gradc (by pkg-config's flags and by
// the CMake package): a compiled kernel's gradient and batch call, a Hessian, and a
// dynamic-mode backward pass (which links libgradc). Exit code 0 when all are right.
#include <array>
#include <cmath>
#include <cstdio>
#include <span>
#include <vector>

#include <gradc/autograd.hpp>
#include <gradc/gradc.hpp>

int main() {
    auto [x1, x2] = gradc::variables<2>();
    const auto k = gradc::compile(sin(x1) + x1 * x2);
    const auto r = k.gradient(0.5, 0.5);
    std::vector<double> a(37, 0.5), b(37, 0.5), v(37), g0(37), g1(37);
    k.gradient_batch(std::array<std::span<const double>, 2>{a, b}, std::span<double>(v),
                     std::array<std::span<double>, 2>{g0, g1});
    const auto h = k.hessian(0.5, 0.5);
    gradc::Tensor t = gradc::tensor({0.5, 0.5, 0.5}, gradc::TensorOptions().dtype(gradc::kDouble).requires_grad(true));
    (gradc::sin(t) * t).sum().backward();
    const double expected_grad = std::cos(0.5) * 0.5 + std::sin(0.5);
    const bool ok = std::abs(r.gradient[0] - (std::cos(0.5) + 0.5)) < 1e-15 && g1[36] == r.gradient[1] &&
                    std::abs(h.hessian[0][0] + std::sin(0.5)) < 1e-15 && h.hessian[0][1] == 1.0 &&
                    std::abs(t.grad()[1].item<double>() - expected_grad) < 1e-15;
    std::printf("gradient %.8f %.8f, hessian %.8f, dynamic grad %.8f: %s\n", r.gradient[0], r.gradient[1],
                h.hessian[0][0], t.grad()[1].item<double>(), ok ? "ok" : "WRONG");
    return ok ? 0 : 1;
}
