// expect: gradc::where(c, a, b): c must be a comparison of gradc expressions
#include <gradc/gradc.hpp>
int main() {
    auto [x] = gradc::variables<1>();
    auto e = where(x, x, 2.0);
    (void)e;
}
