// Reductions and softmax: gradients (array_check.hpp), values, and PyTorch's conventions
// for ties (max, min: shared evenly) and infinities (log_sum_exp).
#include <limits>

#include "array_check.hpp"

using array_check::check_expression;
using array_check::filled;

TEST_CASE("sum, mean, squared_norm, log_sum_exp, softmax", "[arrays][reductions]") {
    auto [x, W] = gradc::variables(gradc::vec<6>, gradc::mat<3, 4>);
    const auto xv = filled<6>(-2, 2, 1);
    const auto wv = filled<12>(-2, 2, 2);
    check_expression(sum(x) * mean(W), xv, wv);
    check_expression(squared_norm(x) + squared_norm(W), xv, wv);
    check_expression(log_sum_exp(x) - log_sum_exp(W), xv, wv);
    check_expression(softmax(x) * 2.0, xv, wv);
    check_expression(max(x) + min(W), xv, wv);

    const auto k = gradc::compile(log_sum_exp(x), gradc::wrt(x));
    double expected = 0;
    for (double v : xv) expected += std::exp(v);
    CHECK(std::abs(k(xv, wv) - std::log(expected)) < 1e-14);
    // Stable: large entries do not overflow.
    std::array<double, 6> big{1000, 1001, 999, 1000.5, 998, 1000};
    double s = 0;
    for (double v : big) s += std::exp(v - 1001);
    CHECK(std::abs(k(big, wv) - (1001 + std::log(s))) < 1e-12);
    // All -inf: -inf, and no NaN in the value (torch.logsumexp).
    const double inf = std::numeric_limits<double>::infinity();
    std::array<double, 6> none{-inf, -inf, -inf, -inf, -inf, -inf};
    CHECK(k(none, wv) == -inf);
}

TEST_CASE("max and min share the adjoint evenly among ties, as torch.max()", "[arrays][reductions]") {
    auto [x] = gradc::variables(gradc::vec<4>);
    const auto k = gradc::compile(max(x));
    const auto r = k.gradient(std::array<double, 4>{1, 3, 3, 2});
    CHECK(r.value == 3);
    CHECK(std::get<0>(r.gradient) == std::array<double, 4>{0, 0.5, 0.5, 0});
    const auto kmin = gradc::compile(min(x));
    const auto rm = kmin.gradient(std::array<double, 4>{1, 3, 1, 1});
    CHECK(std::get<0>(rm.gradient)[0] == std::get<0>(rm.gradient)[3]);
    CHECK(std::abs(std::get<0>(rm.gradient)[0] - 1.0 / 3) < 1e-15);
    CHECK(std::isnan(k(std::array<double, 4>{1, std::nan(""), 3, 2})));
}

TEST_CASE("softmax sums to one and its gradient is y ⊙ (ȳ - ⟨ȳ, y⟩)", "[arrays][reductions]") {
    auto [x] = gradc::variables(gradc::vec<5>);
    const auto k = gradc::compile(softmax(x));
    const auto y = k(filled<5>(-3, 3, 4));
    double s = 0;
    for (double v : y) s += v;
    CHECK(std::abs(s - 1) < 1e-15);
}
