// The checker on array kernels: gradcheck (JVP columns against differences, VJP rows
// against JVP columns, batch against one-point calls) and the cross-check against the
// dynamic engine, for every kind of array operation, and a report that names the entry.
#include <array>
#include <cmath>
#include <tuple>
#include <vector>

#include <catch2/catch.hpp>

#include <gradc/check.hpp>
#include <gradc/gradc.hpp>

namespace {

template <std::size_t N>
std::array<double, N> values(double offset) {
    std::array<double, N> a;
    for (std::size_t i = 0; i < N; ++i) a[i] = 0.5 * std::sin(1.7 * double(i) + offset) + 0.1;
    return a;
}

}  // namespace

TEST_CASE("gradcheck and cross on array kernels", "[check][arrays]") {
    auto [W, b, x, s, p] = gradc::variables(gradc::mat<4, 3>, gradc::vec<4>, gradc::vec<3>, gradc::scalar, gradc::vec<6>);
    using point = std::tuple<std::array<double, 12>, std::array<double, 4>, std::array<double, 3>, double, std::array<double, 6>>;
    std::vector<point> points;
    for (int k = 0; k < 5; ++k)
        points.emplace_back(values<12>(k), values<4>(k + 1), values<3>(k + 2), 0.3 + 0.1 * k, values<6>(k + 3));

    const auto layer = sum(tanh(W * x + b)) * s;
    const auto parts = log_sum_exp(concat(row<1>(W), b)) + squared_norm(lower_triangular<3>(p) * x) - max(diag(W));
    const auto products = dot(transpose(W) * b, x) + sum(outer(b, x)) + mean(hadamard(W, W)) + min(softmax(p));
    const auto rows = sum(stack(x, segment<0, 3>(p), row<2>(W) * 2.0)) + W(gradc::index<3>, gradc::index<2>) * x[gradc::index<0>];
    const auto branches = sum(where(b > 0.2, exp(b), b * s));

    CHECK(gradc::check::gradcheck(gradc::compile(layer), points));
    CHECK(gradc::check::gradcheck(gradc::compile(parts, gradc::wrt(p, W)), points));
    CHECK(gradc::check::gradcheck(gradc::compile(W * x + b), points));  // an array output: the full Jacobian
    CHECK(gradc::check::cross(layer, points));
    CHECK(gradc::check::cross(parts, points));
    CHECK(gradc::check::cross(products, points));
    CHECK(gradc::check::cross(rows, points));
    CHECK(gradc::check::cross(branches, points));
}

TEST_CASE("the array gradcheck report names the output and variable entries", "[check][arrays]") {
    auto [x] = gradc::variables(gradc::vec<3>);
    // relu has a kink at 0: relu'(0) = 0 (PyTorch's convention), central differences give 0.5.
    const auto k = gradc::compile(sum(relu(x)));
    std::vector<std::tuple<std::array<double, 3>>> points{{std::array<double, 3>{1, 0, -1}}};
    gradc::check::Options opt;
    opt.raise_exception = true;
    try {
        gradc::check::gradcheck(k, points, opt);
        FAIL("no report");
    } catch (const gradc::autograd::GradcheckError& e) {
        const std::string m = e.what();
        CHECK(m.find("jvp at point 0") != std::string::npos);
        CHECK(m.find("output 0 entry 0, wrt variable 0 entry 1") != std::string::npos);
    }
}

TEST_CASE("gradcheck and cross through cumsum, cholesky, solve and log_det", "[check][arrays][decompositions]") {
    auto [S, x, B] = gradc::variables(gradc::mat<3, 3>, gradc::vec<3>, gradc::mat<3, 2>);
    using point = std::tuple<std::array<double, 9>, std::array<double, 3>, std::array<double, 6>>;
    std::vector<point> points;
    for (int k = 0; k < 4; ++k) {
        // Symmetric part positive definite: a dominant diagonal plus a skew part.
        auto s = values<9>(k);
        for (std::size_t i = 0; i < 3; ++i) s[i * 3 + i] += 3.0;
        points.emplace_back(s, values<3>(k + 1), values<6>(k + 2));
    }
    const auto f = log_det(S) + dot(solve(S, x), cumsum(x)) + sum(sin(cholesky(S))) + squared_norm(solve(S, B));
    CHECK(gradc::check::gradcheck(gradc::compile(f), points));
    CHECK(gradc::check::gradcheck(gradc::compile(cholesky(S) * x + cumsum(x)), points));  // the full Jacobian
    CHECK(gradc::check::cross(f, points));
    CHECK(gradc::check::cross(sum(hadamard(solve(S, B), B)) + log_det(S * transpose(S)), points));
}

TEST_CASE("gradgradcheck and cross_hessian on array kernels", "[check][arrays][second_order]") {
    auto [W, b, x, S] = gradc::variables(gradc::mat<2, 3>, gradc::vec<2>, gradc::vec<3>, gradc::mat<2, 2>);
    using point = std::tuple<std::array<double, 6>, std::array<double, 2>, std::array<double, 3>, std::array<double, 4>>;
    std::vector<point> points;
    for (int k = 0; k < 3; ++k) {
        auto s = values<4>(k + 3);
        s[0] += 2.0;
        s[3] += 2.0;
        points.emplace_back(values<6>(k), values<2>(k + 1), values<3>(k + 2), s);
    }
    const auto f = log_sum_exp(tanh(W * x + b)) * sum(x) + log_det(S) * dot(b, b) + squared_norm(solve(S, b));
    CHECK(gradc::check::gradgradcheck(gradc::compile(f), points));
    CHECK(gradc::check::gradgradcheck(gradc::compile(f, gradc::wrt(S, x)), points));
    CHECK(gradc::check::cross_hessian(f, points));
    CHECK(gradc::check::cross_hessian(sum(cumsum(x) * cumsum(x)) + sum(cholesky(S)), points));
}

TEST_CASE("the array gradgradcheck report names both wrt entries", "[check][arrays][second_order]") {
    auto [x] = gradc::variables(gradc::vec<3>);
    // relu(x)² at x = 0: the rules give relu'(0) = 0, so the Hessian entry is 0, while
    // central differences of the gradient 2·relu(x) give 1.
    const auto k = gradc::compile(sum(relu(x) * relu(x)));
    std::vector<std::tuple<std::array<double, 3>>> points{{std::array<double, 3>{1, 0, -1}}};
    gradc::check::Options opt;
    opt.raise_exception = true;
    try {
        gradc::check::gradgradcheck(k, points, opt);
        FAIL("no report");
    } catch (const gradc::autograd::GradcheckError& e) {
        const std::string m = e.what();
        CHECK(m.find("hessian at point 0") != std::string::npos);
        CHECK(m.find("variable 0 entry 1, variable 0 entry 1") != std::string::npos);
    }
}
