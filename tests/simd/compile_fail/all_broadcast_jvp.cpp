// expect: gradc jvp_batch: every variable and tangent is gradc::broadcast(x)
// With every variable and every tangent broadcast there is no number of points.
#include <array>
#include <span>
#include <tuple>
#include <vector>

#include <gradc/gradc.hpp>
#include <gradc/simd.hpp>

int main() {
    auto [x1, x2] = gradc::variables<2>();
    const auto k = gradc::compile(sin(x1) + x1 * x2);
    std::vector<double> values(8), tangents(8);
    k.jvp_batch(std::tuple{gradc::broadcast(1.0), gradc::broadcast(2.0)},
                std::tuple{gradc::broadcast(1.0), gradc::broadcast(0.0)}, std::span<double>(values),
                std::span<double>(tangents));
}
