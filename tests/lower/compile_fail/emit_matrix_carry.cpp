// expect: the loop's carry must be a scalar or a vector
#include <gradc/gradc.hpp>

#include <tuple>

int main() {
    // A loop keeps the states of a scalar or vector carry only; this one is a matrix.
    const auto vars = gradc::variables(gradc::mat<2, 2>);
    const auto m = std::get<0>(vars);
    const auto e = gradc::loop(3, m, [](auto carry, auto) { return gradc::emit(carry, sum(carry)); });
    (void)e;
}
