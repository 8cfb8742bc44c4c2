// expect: gradc::compile(): every output must be a gradc expression
#include <gradc/gradc.hpp>
int main() {
    auto [x, y] = gradc::variables<2>();
    auto k = gradc::compile(x < y);
    (void)k;
}
