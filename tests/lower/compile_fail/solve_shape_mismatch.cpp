// expect: gradc::solve(A, b): A must be a square mat<n, n> and b a vec<n> or a mat<n, m>
#include <gradc/gradc.hpp>

int main() {
    auto [A, b] = gradc::variables(gradc::mat<3, 3>, gradc::vec<4>);
    auto k = gradc::compile(sum(solve(A, b)));
    (void)k;
}
