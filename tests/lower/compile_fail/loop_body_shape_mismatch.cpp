// expect: f(carry, k) must return the carry's shape
#include <gradc/gradc.hpp>

#include <tuple>

int main() {
    // The carry is a vector of 3; the body returns its sum, a scalar.
    const auto vars = gradc::variables(gradc::vec<3>);
    const auto v = std::get<0>(vars);
    const auto e = gradc::loop(4, v, [](auto carry, auto) { return sum(carry); });
    (void)e;
}
