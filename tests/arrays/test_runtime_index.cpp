// Entry, row and column access with plain integer indices (`x[i]`, `W(i, j)`, `row(W, i)`,
// `col(W, j)`): the index is a literal of the expression, read when the kernel runs.
// Checked against the forms with indices fixed in the type (to rounding), against finite
// differences, batch and float calls (array_check.hpp), second order, the dynamic
// engine (gradc::check::cross), and for their errors.
#include <string>
#include <type_traits>
#include <vector>

#include <gradc/check.hpp>

#include "array_check.hpp"

using array_check::check_expression;
using array_check::filled;

TEST_CASE("run-time indices: the same values and gradients as compile-time ones",
          "[arrays][access][runtime-index]") {
    auto [W, x] = gradc::variables(gradc::mat<3, 4>, gradc::vec<5>);
    const auto wv = filled<12>(-1, 1, 1);
    const auto xv = filled<5>(-1, 1, 2);
    const int i = 2, r = 1, c = 3;
    const auto dynamic = gradc::compile(x[i] * W(r, c) + sum(row(W, r) * col(W, std::size_t(c - 1))[0]) +
                                        dot(col(W, 0), segment<1, 3>(x)));
    const auto fixed = gradc::compile(x[gradc::index<2>] * W(gradc::index<1>, gradc::index<3>) +
                                      sum(row<1>(W) * col<2>(W)[gradc::index<0>]) + dot(col<0>(W), segment<1, 3>(x)));
    const auto a = dynamic.gradient(wv, xv);
    const auto b = fixed.gradient(wv, xv);
    // The same entries are read and the same operations run; only the compiler's choice of
    // where to contract a·b + c into a fused multiply-add may differ between the two
    // kernels (it did at -O3), so they agree to rounding, not bit for bit.
    array_check::close(a.value, b.value, 1e-15, 1e-16);
    for (std::size_t e = 0; e < 12; ++e) array_check::close(std::get<0>(a.gradient)[e], std::get<0>(b.gradient)[e], 1e-15, 1e-16);
    for (std::size_t e = 0; e < 5; ++e) array_check::close(std::get<1>(a.gradient)[e], std::get<1>(b.gradient)[e], 1e-15, 1e-16);
    // Closed form of the first term's value: x[2]·W(1, 3).
    const auto first = gradc::compile(x[i] * W(r, c));
    CHECK(first(wv, xv) == xv[2] * wv[1 * 4 + 3]);
}

TEST_CASE("run-time indices: finite differences, JVP/VJP duality, batch and float", "[arrays][access][runtime-index]") {
    auto [W, x] = gradc::variables(gradc::mat<3, 4>, gradc::vec<5>);
    const auto wv = filled<12>(-1, 1, 3);
    const auto xv = filled<5>(-1, 1, 4);
    for (int k = 0; k < 3; ++k) {
        INFO("k = " << k);
        check_expression(x[k + 2] * W(k, 3 - k), wv, xv);
        check_expression(row(W, k) * x[k], wv, xv);
        check_expression(col(W, k + 1) + x[4 - k], wv, xv);
        check_expression(exp(W(k, k)) * dot(row(W, 2 - k), segment<0, 4>(x)), wv, xv);
    }
}

TEST_CASE("run-time indices: one expression type for every index, so a run-time loop can build kernels",
          "[arrays][access][runtime-index]") {
    auto [x] = gradc::variables(gradc::vec<6>);
    STATIC_REQUIRE(std::is_same_v<decltype(x[0]), decltype(x[5])>);
    STATIC_REQUIRE(std::is_same_v<decltype(x[0] * x[1]), decltype(x[4] * x[2])>);
    using K = decltype(gradc::compile(x[0] * x[1]));
    std::vector<K> pairs;
    for (std::size_t k = 0; k + 1 < 6; ++k) pairs.push_back(gradc::compile(x[k] * x[k + 1]));
    const auto xv = filled<6>(-2, 2, 5);
    for (std::size_t k = 0; k + 1 < 6; ++k) {
        const auto g = pairs[k].gradient(xv);
        CHECK(g.value == xv[k] * xv[k + 1]);
        for (std::size_t e = 0; e < 6; ++e) {
            const double expected = e == k ? xv[k + 1] : e == k + 1 ? xv[k] : 0.0;
            CHECK(std::get<0>(g.gradient)[e] == expected);
        }
    }
}

TEST_CASE("run-time indices: second order", "[arrays][access][runtime-index][second-order]") {
    auto [W, x] = gradc::variables(gradc::mat<3, 3>, gradc::vec<3>);
    const std::size_t i = 2, j = 0;
    // f = x_i · x_j · W(i, j): its Hessian in x has W(i, j) at (i, j) and (j, i) only.
    const auto k = gradc::compile(x[i] * x[j] * W(i, j), gradc::wrt(x));
    const auto wv = filled<9>(-1, 1, 6);
    const auto xv = filled<3>(-1, 1, 7);
    const auto h = k.hessian(wv, xv);
    for (std::size_t a = 0; a < 3; ++a)
        for (std::size_t b = 0; b < 3; ++b) {
            const bool off = (a == i && b == j) || (a == j && b == i);
            CHECK(h.hessian[a][b] == (off ? wv[i * 3 + j] : 0.0));
        }
    CHECK(h.value == xv[i] * xv[j] * wv[i * 3 + j]);
    const auto v = k.hvp(std::tie(wv, xv), std::tie(xv));
    CHECK(std::get<0>(v.hvp)[i] == Approx(wv[i * 3 + j] * xv[j]).epsilon(1e-15));
    CHECK(std::get<0>(v.hvp)[j] == Approx(wv[i * 3 + j] * xv[i]).epsilon(1e-15));
}

TEST_CASE("run-time indices: the dynamic engine agrees (gradc::check::cross)", "[arrays][access][runtime-index]") {
    auto [W, x] = gradc::variables(gradc::mat<3, 4>, gradc::vec<4>);
    const int r = 2, c = 1;
    const auto f = W(r, c) * x[3] + sum(sin(row(W, 0)) * x) + dot(col(W, c), segment<0, 3>(x));
    std::vector<std::tuple<std::array<double, 12>, std::array<double, 4>>> points;
    for (std::size_t p = 0; p < 3; ++p) points.emplace_back(filled<12>(-1, 1, 10 + p), filled<4>(-1, 1, 20 + p));
    gradc::check::Options opt;
    opt.raise_exception = false;
    CHECK(gradc::check::cross(f, points, opt));
    CHECK(gradc::check::gradcheck(gradc::compile(f), points, opt));
}

TEST_CASE("run-time indices: the program prints the index as a literal operand", "[arrays][access][runtime-index][print]") {
    auto [W] = gradc::variables(gradc::mat<4, 4>);
    const auto k = gradc::compile(sum(row(W, 3)) * W(1, 2));
    const std::string text = gradc::to_string(k);
    INFO(text);
    CHECK(text.find("row(x0, v1)") != std::string::npos);
    CHECK(text.find("element(x0, v4, v5)") != std::string::npos);
    CHECK(text.find("= 3") != std::string::npos);
}

TEST_CASE("run-time indices out of range throw gradc::Error naming the access, the index and the range",
          "[arrays][access][runtime-index][bad-input]") {
    auto [W, x] = gradc::variables(gradc::mat<3, 4>, gradc::vec<5>);
    // Init-captures: clang 14 cannot capture structured bindings themselves.
    auto message = [](auto&& build) {
        try {
            (void)build();
        } catch (const gradc::Error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    CHECK(message([x = x] { return x[5]; }) == "gradc: x[i] of a vector of 5 entries: got i = 5, expected 0 <= i < 5");
    CHECK(message([x = x] { return x[-1]; }) == "gradc: x[i] of a vector of 5 entries: got i = -1, expected 0 <= i < 5");
    CHECK(message([W = W] { return W(3, 0); }) == "gradc: W(i, j) of a 3x4 matrix: got i = 3, expected 0 <= i < 3");
    CHECK(message([W = W] { return W(0, 4u); }) == "gradc: W(i, j) of a 3x4 matrix: got j = 4, expected 0 <= j < 4");
    CHECK(message([W = W] { return row(W, 7L); }) ==
          "gradc: gradc::row(W, i) of a 3x4 matrix: got i = 7, expected 0 <= i < 3");
    CHECK(message([W = W] { return col(W * 2.0, std::size_t(4)); }) ==
          "gradc: gradc::col(W, j) of a 3x4 matrix: got j = 4, expected 0 <= j < 4");
    CHECK(message([x = x] { return (x + 1.0)[4]; }) == "no error");
}

TEST_CASE("run-time indices in map_reduce: nodes without data computed once, threads agree",
          "[arrays][batch][runtime-index]") {
    // Component `c` of a mixture's means and log-scales, chosen when the expression is built.
    auto [mu, logs, x] = gradc::variables(gradc::mat<3, 2>, gradc::vec<3>, gradc::vec<2>);
    const int c = 1;
    const auto k = gradc::compile(-0.5 * squared_norm((x - row(mu, c)) * exp(-logs[c])) - 2.0 * logs[c],
                                  gradc::wrt(mu, logs));
    const auto mv = filled<6>(-1, 1, 30);
    const auto lv = filled<3>(-0.5, 0.5, 31);
    const std::size_t n = 1001;
    std::vector<std::vector<double>> data(2, std::vector<double>(n));
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t e = 0; e < 2; ++e) data[e][i] = array_check::value_at(i * 2 + e, -2, 2);
    double value = 0;
    std::array<double, 6> gm{};
    std::array<double, 3> gl{};
    for (std::size_t i = 0; i < n; ++i) {
        const auto r = k.gradient(mv, lv, std::array<double, 2>{data[0][i], data[1][i]});
        value += r.value;
        for (std::size_t e = 0; e < 6; ++e) gm[e] += std::get<0>(r.gradient)[e];
        for (std::size_t e = 0; e < 3; ++e) gl[e] += std::get<1>(r.gradient)[e];
    }
    const auto m = k.map_reduce(data, mv, lv);
    const auto m2 = k.map_reduce(data, mv, lv, gradc::threads{2});
    array_check::close(m.value, value, 1e-12, 1e-12);
    for (std::size_t e = 0; e < 6; ++e) array_check::close(std::get<0>(m.gradient)[e], gm[e], 1e-12, 1e-12);
    for (std::size_t e = 0; e < 3; ++e) array_check::close(std::get<1>(m.gradient)[e], gl[e], 1e-12, 1e-12);
    // Only component c's row and log-scale get a gradient.
    for (std::size_t e = 0; e < 6; ++e)
        if (e / 2 != std::size_t(c)) CHECK(std::get<0>(m.gradient)[e] == 0.0);
    CHECK(std::get<1>(m.gradient)[0] == 0.0);
    CHECK(std::get<1>(m.gradient)[2] == 0.0);
    CHECK(std::get<0>(m2.gradient) == std::get<0>(m.gradient));
    CHECK(m2.value == m.value);
}
