// expect: gradc kernel: wrong number of arguments
#include <gradc/gradc.hpp>
int main() {
    auto [x1, x2] = gradc::variables<2>();
    auto k = gradc::compile(sin(x1) + x1 * x2);
    return static_cast<int>(k(1.0));
}
