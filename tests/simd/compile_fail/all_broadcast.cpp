// expect: gradc gradient_batch: every variable is gradc::broadcast(x)
// A batch call needs the number of points: at least one variable given as a span.
#include <array>
#include <span>
#include <tuple>
#include <vector>

#include <gradc/gradc.hpp>
#include <gradc/simd.hpp>

int main() {
    auto [x1, x2] = gradc::variables<2>();
    const auto k = gradc::compile(sin(x1) + x1 * x2);
    std::vector<double> values(8), g1(8), g2(8);
    k.gradient_batch(std::tuple{gradc::broadcast(1.0), gradc::broadcast(2.0)}, std::span<double>(values),
                     std::array<std::span<double>, 2>{g1, g2});
}
