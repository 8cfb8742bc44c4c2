// expect: gradc: W(i, j) needs a matrix W
#include <gradc/gradc.hpp>

int main() {
    auto [x] = gradc::variables(gradc::vec<3>);
    auto f = x(1, 0);
    (void)f;
}
