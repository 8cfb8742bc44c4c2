// Reading parts of arrays and building arrays: gradients (array_check.hpp) and values.
#include <algorithm>
#include <string>

#include "array_check.hpp"

using array_check::check_expression;
using array_check::filled;

TEST_CASE("entries, rows, columns, segments, diagonals", "[arrays][access]") {
    auto [W, x] = gradc::variables(gradc::mat<3, 4>, gradc::vec<5>);
    const auto wv = filled<12>(-1, 1, 1);
    const auto xv = filled<5>(-1, 1, 2);
    check_expression(x[gradc::index<2>] * W(gradc::index<1>, gradc::index<3>), wv, xv);
    check_expression(row<1>(W) * col<2>(W)[gradc::index<0>], wv, xv);
    check_expression(segment<1, 3>(x) + col(W, gradc::index<3>), wv, xv);
    check_expression(diag(W) * segment<2, 3>(x), wv, xv);
    check_expression(element<4>(x) + element<2, 0>(W), wv, xv);

    const auto k = gradc::compile(concat(row<2>(W), x[gradc::index<0>]));
    const auto v = k(wv, xv);
    for (std::size_t c = 0; c < 4; ++c) CHECK(v[c] == wv[8 + c]);
    CHECK(v[4] == xv[0]);
}

TEST_CASE("concat, stack, lower_triangular (ADBench's packed order)", "[arrays][access]") {
    auto [a, b, s, p] = gradc::variables(gradc::vec<3>, gradc::vec<3>, gradc::scalar, gradc::vec<6>);
    const auto av = filled<3>(-1, 1, 1), bv = filled<3>(-1, 1, 2);
    const auto pv = filled<6>(-1, 1, 3);
    const double sv = 0.7;
    check_expression(concat(a, s, b) * 1.5, av, bv, sv, pv);
    check_expression(stack(a, b, a * s), av, bv, sv, pv);
    check_expression(lower_triangular<3>(p) * a, av, bv, sv, pv);

    // L = [[p0, 0, 0], [p3, p1, 0], [p4, p5, p2]].
    const auto k = gradc::compile(lower_triangular<3>(p));
    const std::array<double, 6> packed{1, 2, 3, 4, 5, 6};
    const auto L = k(av, bv, sv, packed);
    CHECK(L == std::array<double, 9>{1, 0, 0, 4, 2, 0, 5, 6, 3});
    const auto ks = gradc::compile(stack(a, b));
    const auto S = ks(std::array<double, 3>{1, 2, 3}, std::array<double, 3>{4, 5, 6}, sv, pv);
    CHECK(S == std::array<double, 6>{1, 2, 3, 4, 5, 6});
}

TEST_CASE("sum_over: K structurally equal terms indexed at compile time", "[arrays][access]") {
    auto [W, x] = gradc::variables(gradc::mat<4, 3>, gradc::vec<3>);
    // Init-captures: clang 14 cannot capture structured bindings themselves.
    const auto f = gradc::sum_over<4>([W = W, x = x](auto k) { return exp(dot(row(W, k), x)) * double(k + 1); });
    const auto wv = filled<12>(-1, 1, 5);
    const auto xv = filled<3>(-1, 1, 6);
    check_expression(f, wv, xv);
    double expected = 0;
    for (std::size_t k = 0; k < 4; ++k)
        expected += std::exp(wv[3 * k] * xv[0] + wv[3 * k + 1] * xv[1] + wv[3 * k + 2] * xv[2]) * double(k + 1);
    CHECK(std::abs(gradc::compile(f)(wv, xv) - expected) < 1e-13 * expected);
}

TEST_CASE("to_string prints an array program as loops, one line per node", "[arrays][print]") {
    auto [W, b, x] = gradc::variables(gradc::mat<64, 32>, gradc::vec<64>, gradc::vec<32>);
    const auto k = gradc::compile(sum(tanh(W * x + b)), gradc::wrt(W, b));
    const std::string text = gradc::to_string(k);
    CHECK(text.find("v2 = matvec(x0, x2)    : vec<64>") != std::string::npos);
    CHECK(text.find("v5[e] = tanh(v4[e])  for e < 64") != std::string::npos);
    CHECK(text.find("bx0 += ȳ·xᵀ    (matvec, operand 0, ȳ = bv2)") != std::string::npos);
    CHECK(std::count(text.begin(), text.end(), '\n') < 20);
}
