// expect: gradc::wrt(): every argument must be a variable
#include <gradc/gradc.hpp>
int main() {
    auto [x1, x2] = gradc::variables<2>();
    auto k = gradc::compile(x1 * x2, gradc::wrt(x1 * 2.0));
    return static_cast<int>(k(1.0, 2.0));
}
