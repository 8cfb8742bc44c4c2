// expect: the wrt() variables come from another gradc::variables call than the outputs'
#include <gradc/gradc.hpp>
int main() {
    auto [x, y] = gradc::variables<2>();
    auto [u, v] = gradc::variables<2>();  // the same size: only the call tells them apart
    (void)v;
    auto k = gradc::compile(x * y, gradc::wrt(u));
    (void)k;
}
