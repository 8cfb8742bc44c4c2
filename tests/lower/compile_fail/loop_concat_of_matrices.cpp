// expect: gradc::concat_over(n, f) / stack_over(n, f): f(k) must be a scalar or a vector
#include <gradc/gradc.hpp>

int main() {
    const auto vars = gradc::variables(gradc::vec<gradc::dynamic_extent>);
    const auto x = std::get<0>(vars);
    // The parts of concat_over go end to end: a matrix part has no end.
    const auto e = gradc::concat_over(gradc::size(x), [=](auto k) { return outer(x, x) * x[k]; });
    (void)e;
}
