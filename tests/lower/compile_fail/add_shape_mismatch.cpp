// expect: elementwise operations need operands of one shape, or a scalar beside an array
#include <gradc/gradc.hpp>

int main() {
    auto [a, b] = gradc::variables(gradc::vec<3>, gradc::vec<4>);
    auto f = a + b;
    (void)f;
}
