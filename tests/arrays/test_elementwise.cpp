// Every scalar rule applies elementwise to arrays, with scalar–array broadcasting.
#include "array_check.hpp"

using array_check::check_expression;
using array_check::filled;

TEST_CASE("unary rules elementwise", "[arrays][elementwise]") {
    auto [x, y] = gradc::variables(gradc::vec<5>, gradc::mat<2, 2>);
    const auto xv = filled<5>(0.2, 0.9, 1);
    const auto yv = filled<4>(0.2, 0.9, 2);
    check_expression(exp(x) + log(x) + sqrt(x), xv, yv);
    check_expression(sin(y) * cos(y) + tanh(y), xv, yv);
    check_expression(sigmoid(x) - softplus(x) + erf(x) + atan(x), xv, yv);
    check_expression(log1p(y) / expm1(y) + asin(y) + logit(y), xv, yv);
    check_expression(abs(x - 0.5) + relu(x - 0.5) + cbrt(x), xv, yv);
}

TEST_CASE("binary rules, broadcasting and where", "[arrays][elementwise]") {
    auto [x, z, s] = gradc::variables(gradc::vec<5>, gradc::vec<5>, gradc::scalar);
    const auto xv = filled<5>(0.2, 0.9, 1);
    const auto zv = filled<5>(0.2, 0.9, 3);
    const double sv = 0.6;
    check_expression(x * s + s / z - 2.0 * x, xv, zv, sv);
    check_expression(pow(x, s) + pow(z, 2.5) + atan2(x, z) + hypot(x, s), xv, zv, sv);
    check_expression(max(x, z) + min(x, s), xv, zv, sv);
    check_expression(where(x < z, x * z, exp(z)) + where(x > s, s, x), xv, zv, sv);

    const auto k = gradc::compile(x * s + 1.0);
    const auto v = k(xv, zv, 2.0);
    for (std::size_t i = 0; i < 5; ++i) CHECK(v[i] == xv[i] * 2.0 + 1.0);
}
