// expect: the outputs use variables from different gradc::variables calls
#include <gradc/gradc.hpp>

int main() {
    auto [a] = gradc::variables(gradc::vec<2>);
    auto [b] = gradc::variables(gradc::vec<2>);
    auto k = gradc::compile(dot(a, b));
    (void)k;
}
