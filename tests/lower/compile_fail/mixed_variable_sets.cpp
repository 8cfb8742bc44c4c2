// expect: the outputs use variables from different gradc::variables calls
#include <gradc/gradc.hpp>
int main() {
    auto [x] = gradc::variables<1>();
    auto [a, b] = gradc::variables<2>();
    (void)b;
    auto k = gradc::compile(x * a);
    (void)k;
}
