// expect: gradc: x[i] needs a vector x
// A run-time index is checked against the range when the node is built, but the shape
// is known at compile time: an entry of a scalar does not compile.
#include <gradc/gradc.hpp>

int main() {
    auto [s, x] = gradc::variables(gradc::scalar, gradc::vec<3>);
    const int i = 0;
    auto f = (s * 2.0)[i] + x[i];
    (void)f;
}
