// expect: mat<R, C> * vec<N> is a matrix-vector product and needs N == C
#include <gradc/gradc.hpp>

int main() {
    auto [W, x] = gradc::variables(gradc::mat<4, 3>, gradc::vec<4>);
    auto k = gradc::compile(sum(W * x));
    (void)k;
}
