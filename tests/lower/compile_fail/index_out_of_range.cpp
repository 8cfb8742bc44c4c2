// expect: x[i] needs a vector x with more than i entries
#include <gradc/gradc.hpp>

int main() {
    auto [x] = gradc::variables(gradc::vec<3>);
    auto f = x[gradc::index<3>];
    (void)f;
}
