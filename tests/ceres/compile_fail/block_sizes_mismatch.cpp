// expect: the parameter block sizes must add up to the kernel's number of wrt variables
#include <gradc/ceres.hpp>
#include <gradc/gradc.hpp>
int main() {
    auto [m, c, x, y] = gradc::variables<4>();
    const auto k = gradc::compile(y - exp(m * x + c), gradc::wrt(m, c));
    // Two wrt variables, but blocks of two and one.
    auto f = gradc::ceres::make_cost_function<2, 1>(k, 0.5, 2.0);
    return f->num_residuals();
}
