// expect: give one number per kernel variable not in wrt(...)
#include <gradc/ceres.hpp>
#include <gradc/gradc.hpp>
int main() {
    auto [m, c, x, y] = gradc::variables<4>();
    const auto k = gradc::compile(y - exp(m * x + c), gradc::wrt(m, c));
    // x and y are data, but only x is given.
    auto f = gradc::ceres::make_cost_function(k, 0.5);
    return f->num_residuals();
}
