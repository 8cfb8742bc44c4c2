// expect: cond(carry) must be one condition
#include <gradc/gradc.hpp>

#include <tuple>

int main() {
    // The condition compares every entry of a vector carry: one condition per entry.
    const auto vars = gradc::variables(gradc::vec<3>);
    const auto v = std::get<0>(vars);
    const auto e = gradc::while_loop(v, [](auto carry) { return carry > 1.0; }, [](auto carry) { return 0.5 * carry; });
    (void)e;
}
