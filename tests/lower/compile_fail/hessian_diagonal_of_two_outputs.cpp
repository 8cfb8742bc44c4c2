// expect: gradc kernel: hessian_diagonal() is for a kernel with one output
#include <gradc/gradc.hpp>
int main() {
    auto [x, y] = gradc::variables<2>();
    auto k = gradc::compile(x * y, x + y);
    return static_cast<int>(k.hessian_diagonal(1.0, 2.0).value);
}
