// expect: an array kernel's parameter blocks are its wrt variables
#include <gradc/ceres.hpp>
#include <gradc/gradc.hpp>
int main() {
    auto [p, x] = gradc::variables(gradc::vec<2>, gradc::vec<2>);
    const auto k = gradc::compile(exp(p) - x, gradc::wrt(p));
    // The block of p has size 2 by its shape; sizes are not the caller's to choose.
    auto f = gradc::ceres::make_cost_function<1, 1>(k, std::array{1.0, 2.0});
    return f->num_residuals();
}
