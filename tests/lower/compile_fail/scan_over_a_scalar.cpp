// expect: xs must be a vector expression (one step per entry) or a matrix
#include <gradc/gradc.hpp>

#include <tuple>

int main() {
    // A scan steps over the entries of a vector or the rows of a matrix, not a scalar.
    const auto vars = gradc::variables(gradc::scalar, gradc::scalar);
    const auto c0 = std::get<0>(vars);
    const auto x = std::get<1>(vars);
    const auto e = gradc::scan(c0, x, [](auto carry, auto x_t) { return carry * x_t; });
    (void)e;
}
