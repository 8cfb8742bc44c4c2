// expect: an argument does not fit its variable
#include <array>

#include <gradc/gradc.hpp>

int main() {
    auto [W, x] = gradc::variables(gradc::mat<2, 2>, gradc::vec<2>);
    const auto k = gradc::compile(sum(W * x));
    (void)k(std::array<double, 4>{}, std::array<double, 3>{});
}
