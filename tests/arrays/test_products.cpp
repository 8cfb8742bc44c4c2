// Products of arrays: gradients against finite differences, JVP/VJP, batch and float
// (array_check.hpp), and values against loops written here.
#include "array_check.hpp"

using array_check::check_expression;
using array_check::filled;

TEST_CASE("matvec: W * x + b, small and along lanes", "[arrays][products]") {
    {
        auto [W, b, x] = gradc::variables(gradc::mat<4, 3>, gradc::vec<4>, gradc::vec<3>);
        check_expression(tanh(W * x + b), filled<12>(-1, 1, 1), filled<4>(-1, 1, 2), filled<3>(-1, 1, 3));
        check_expression(matvec(W, x), filled<12>(-1, 1, 1), filled<4>(-1, 1, 2), filled<3>(-1, 1, 3));
    }
    {
        // 16 columns: one point of double puts elements across SIMD lanes.
        auto [W, x] = gradc::variables(gradc::mat<16, 17>, gradc::vec<17>);
        check_expression(W * x, filled<16 * 17>(-1, 1, 4), filled<17>(-1, 1, 5));
    }
    auto [W, x] = gradc::variables(gradc::mat<2, 3>, gradc::vec<3>);
    const auto k = gradc::compile(W * x);
    const std::array<double, 6> w{1, 2, 3, 4, 5, 6};
    const std::array<double, 3> v{0.5, -1, 2};
    const auto y = k(w, v);
    CHECK(y[0] == 1 * 0.5 - 2 + 3 * 2);
    CHECK(y[1] == 4 * 0.5 - 5 + 6 * 2);
}

TEST_CASE("matmul, transpose, dot, outer, hadamard", "[arrays][products]") {
    {
        auto [A, B] = gradc::variables(gradc::mat<2, 3>, gradc::mat<3, 4>);
        check_expression(A * B, filled<6>(-1, 1, 1), filled<12>(-1, 1, 2));
        check_expression(matmul(transpose(B), transpose(A)), filled<6>(-1, 1, 1), filled<12>(-1, 1, 2));
    }
    {
        auto [A, B] = gradc::variables(gradc::mat<9, 10>, gradc::mat<10, 11>);
        check_expression(A * B, filled<90>(-1, 1, 3), filled<110>(-1, 1, 4));
    }
    {
        auto [a, b] = gradc::variables(gradc::vec<5>, gradc::vec<5>);
        check_expression(dot(a, b), filled<5>(-1, 1, 1), filled<5>(-1, 1, 2));
        check_expression(outer(a, b), filled<5>(-1, 1, 1), filled<5>(-1, 1, 2));
        check_expression(hadamard(a, b) + a * b, filled<5>(-1, 1, 1), filled<5>(-1, 1, 2));
        const auto k = gradc::compile(dot(a, b));
        CHECK(k(std::array<double, 5>{1, 2, 3, 4, 5}, std::array<double, 5>{1, 1, 1, 1, 2}) == 20.0);
    }
    {
        auto [A] = gradc::variables(gradc::mat<2, 3>);
        const auto k = gradc::compile(transpose(A));
        const auto t = k(std::array<double, 6>{1, 2, 3, 4, 5, 6});
        CHECK(t == std::array<double, 6>{1, 4, 2, 5, 3, 6});
    }
}
