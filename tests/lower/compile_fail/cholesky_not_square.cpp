// expect: gradc::cholesky(A): A must be a square matrix, mat<n, n>
#include <gradc/gradc.hpp>

int main() {
    auto [A] = gradc::variables(gradc::mat<3, 2>);
    auto k = gradc::compile(sum(cholesky(A)));
    (void)k;
}
