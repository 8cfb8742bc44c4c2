// expect: cond(carry) must read the carry
#include <gradc/gradc.hpp>

#include <tuple>

int main() {
    // The condition reads a variable but not the carry: it would stop at once or never.
    const auto vars = gradc::variables(gradc::scalar, gradc::scalar);
    const auto x = std::get<0>(vars);
    const auto limit = std::get<1>(vars);
    const auto e = gradc::while_loop(x, [=](auto) { return limit > 1.0; }, [](auto carry) { return 0.5 * carry; });
    (void)e;
}
