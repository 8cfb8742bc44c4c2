// expect: this array operation does not take extents known only at run time yet
#include <gradc/gradc.hpp>

int main() {
    auto [A] = gradc::variables(gradc::mat<gradc::dynamic_extent, gradc::dynamic_extent>);
    auto k = gradc::compile(sum(cholesky(A)));
    (void)k;
}
