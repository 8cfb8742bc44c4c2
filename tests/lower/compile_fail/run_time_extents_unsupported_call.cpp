// expect: with extents known only at run time, this call is not there yet
#include <gradc/gradc.hpp>
#include <vector>

int main() {
    auto [x] = gradc::variables(gradc::vec<gradc::dynamic_extent>);
    auto k = gradc::compile(sum(sin(x)));
    std::vector<double> v{1, 2, 3};
    (void)k.value_batch(v);
}
