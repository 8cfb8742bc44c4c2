// Prefix sums and factorisations: cumsum, cholesky, solve and log_det. Values against
// closed forms and the defining identities (L·Lᵀ = A, A·X = B), gradients against finite
// differences with JVP/VJP duality, batch and float (array_check.hpp), pivoting that
// differs from lane to lane of a batch, and what a matrix that cannot be factorised gives.
#include <cmath>
#include <limits>
#include <vector>

#include "array_check.hpp"

using array_check::check_expression;
using array_check::close;
using array_check::filled;

namespace {

/// A symmetric positive-definite n×n matrix: M·Mᵀ + n·I for a filled M.
template <std::size_t N>
std::array<double, N * N> spd(std::size_t seed) {
    const auto m = filled<N * N>(-1, 1, seed);
    std::array<double, N * N> a{};
    for (std::size_t i = 0; i < N; ++i)
        for (std::size_t j = 0; j < N; ++j) {
            double s = i == j ? double(N) : 0.0;
            for (std::size_t k = 0; k < N; ++k) s += m[i * N + k] * m[j * N + k];
            a[i * N + j] = s;
        }
    return a;
}

/// A matrix whose symmetric part is positive definite, but which is not symmetric.
template <std::size_t N>
std::array<double, N * N> spd_plus_skew(std::size_t seed) {
    auto a = spd<N>(seed);
    const auto s = filled<N * N>(-0.5, 0.5, seed + 1);
    for (std::size_t i = 0; i < N; ++i)
        for (std::size_t j = 0; j < N; ++j) a[i * N + j] += s[i * N + j] - s[j * N + i];
    return a;
}

}  // namespace

TEST_CASE("cumsum: prefix sums and their derivatives", "[arrays][decompositions]") {
    auto [x] = gradc::variables(gradc::vec<5>);
    const auto k = gradc::compile(cumsum(x));
    CHECK(k(std::array<double, 5>{1, 2, 3, 4, 5}) == std::array<double, 5>{1, 3, 6, 10, 15});
    check_expression(cumsum(x), filled<5>(-1, 1, 1));
    check_expression(dot(cumsum(x), x), filled<5>(-1, 1, 2));
    // The adjoint is the suffix sums of ȳ.
    const auto g = k.vjp(std::tuple{std::array<double, 5>{}}, std::array<double, 5>{1, 10, 100, 1000, 10000});
    CHECK(std::get<0>(g.gradient) == std::array<double, 5>{11111, 11110, 11100, 11000, 10000});
    auto [v] = gradc::variables(gradc::vec<1>);
    CHECK(gradc::compile(cumsum(v))(std::array<double, 1>{-2.5}) == std::array<double, 1>{-2.5});
}

TEST_CASE("cholesky: the factor of a known matrix, and of the symmetric part", "[arrays][decompositions]") {
    auto [A] = gradc::variables(gradc::mat<3, 3>);
    const auto k = gradc::compile(cholesky(A));
    // The textbook example: L = [[2, 0, 0], [6, 1, 0], [-8, 5, 3]].
    const std::array<double, 9> a{4, 12, -16, 12, 37, -43, -16, -43, 98};
    CHECK(k(a) == std::array<double, 9>{2, 0, 0, 6, 1, 0, -8, 5, 3});
    // Only the symmetric part counts: moving weight across the diagonal changes nothing.
    std::array<double, 9> skewed = a;
    skewed[1] += 3;
    skewed[3] -= 3;
    skewed[2] -= 7;
    skewed[6] += 7;
    CHECK(k(skewed) == k(a));
    // L·Lᵀ = A on a 6×6 matrix, and L's upper part is zero.
    auto [B] = gradc::variables(gradc::mat<6, 6>);
    const auto b = spd<6>(4);
    const auto l = gradc::compile(cholesky(B))(b);
    for (std::size_t i = 0; i < 6; ++i)
        for (std::size_t j = 0; j < 6; ++j) {
            double s = 0;
            for (std::size_t m = 0; m < 6; ++m) s += l[i * 6 + m] * l[j * 6 + m];
            close(s, b[i * 6 + j], 1e-14, 1e-14);
            if (j > i) CHECK(l[i * 6 + j] == 0.0);
        }
    // Not positive definite: NaN from the first non-positive pivot on, nothing else thrown.
    const auto bad = k(std::array<double, 9>{1, 2, 0, 2, 1, 0, 0, 0, 1});
    CHECK(bad[0] == 1.0);
    CHECK(bad[3] == 2.0);
    CHECK(std::isnan(bad[4]));
}

TEST_CASE("cholesky: derivatives", "[arrays][decompositions]") {
    {
        auto [A] = gradc::variables(gradc::mat<3, 3>);
        check_expression(cholesky(A), spd<3>(1));
        check_expression(cholesky(A), spd_plus_skew<3>(2));
    }
    {
        // 9 columns: one point of double puts elements across SIMD lanes in the products.
        auto [A, x] = gradc::variables(gradc::mat<9, 9>, gradc::vec<9>);
        check_expression(cholesky(A) * x, spd<9>(3), filled<9>(-1, 1, 4));
    }
    {
        // The symmetric matrix built inside the kernel, as a model writes it: M·Mᵀ + 2·E,
        // with E = I given as a variable.
        auto [M, E] = gradc::variables(gradc::mat<4, 4>, gradc::mat<4, 4>);
        check_expression(diag(cholesky(M * transpose(M) + E * 2.0)), filled<16>(-1, 1, 5),
                         std::array<double, 16>{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1});
    }
}

TEST_CASE("solve: values, pivoting and derivatives", "[arrays][decompositions]") {
    auto [A, b] = gradc::variables(gradc::mat<3, 3>, gradc::vec<3>);
    const auto k = gradc::compile(solve(A, b));
    // A zero leading entry needs a row swap.
    const std::array<double, 9> a{0, 2, 1, 1, 1, 1, 2, 1, 0};
    const std::array<double, 3> x{1, -2, 3};
    std::array<double, 3> rhs{};
    for (std::size_t i = 0; i < 3; ++i)
        for (std::size_t j = 0; j < 3; ++j) rhs[i] += a[i * 3 + j] * x[j];
    const auto got = k(a, rhs);
    for (std::size_t i = 0; i < 3; ++i) close(got[i], x[i], 1e-15, 1e-15);
    // A tiny leading pivot: without pivoting the solution loses every digit.
    const std::array<double, 4> tiny{1e-20, 1, 1, 1};
    auto [T2, c] = gradc::variables(gradc::mat<2, 2>, gradc::vec<2>);
    const auto s2 = gradc::compile(solve(T2, c))(tiny, std::array<double, 2>{1, 2});
    close(s2[0], 1.0, 1e-15, 1e-15);
    close(s2[1], 1.0, 1e-15, 1e-15);
    // Singular: infinite or NaN entries, nothing thrown.
    const auto singular = k(std::array<double, 9>{1, 2, 3, 2, 4, 6, 1, 0, 1}, std::array<double, 3>{1, 1, 1});
    CHECK((!std::isfinite(singular[0]) || !std::isfinite(singular[1]) || !std::isfinite(singular[2])));

    check_expression(solve(A, b), spd_plus_skew<3>(6), filled<3>(-1, 1, 7));
    check_expression(solve(A, b), a, filled<3>(-1, 1, 8));
    {
        auto [M, B] = gradc::variables(gradc::mat<4, 4>, gradc::mat<4, 2>);
        check_expression(solve(M, B), spd_plus_skew<4>(9), filled<8>(-1, 1, 10));
    }
    {
        auto [M, v] = gradc::variables(gradc::mat<10, 10>, gradc::vec<10>);
        check_expression(solve(M, v), spd_plus_skew<10>(11), filled<10>(-1, 1, 12));
    }
}

TEST_CASE("solve: each lane of a batch picks its own pivots", "[arrays][decompositions][batch]") {
    auto [A, b] = gradc::variables(gradc::mat<3, 3>, gradc::vec<3>);
    const auto k = gradc::compile(sum(sin(solve(A, b))));
    // 11 points (a full batch and a partial one on every width): point p is a fixed
    // matrix with its rows rotated by p, so the pivot rows differ from lane to lane.
    const std::array<double, 9> base{0, 2, 1, 1, 1e-3, 1, 2, 1, 0};
    constexpr std::size_t n = 11;
    std::vector<std::vector<double>> in(12, std::vector<double>(n));
    std::vector<std::array<double, 9>> as(n);
    std::vector<std::array<double, 3>> bs(n);
    for (std::size_t p = 0; p < n; ++p) {
        for (std::size_t r = 0; r < 3; ++r)
            for (std::size_t c = 0; c < 3; ++c) as[p][r * 3 + c] = base[((r + p) % 3) * 3 + c] + 0.01 * double(p);
        bs[p] = {1.0 + 0.1 * double(p), -0.5, 0.25};
        for (std::size_t e = 0; e < 9; ++e) in[e][p] = as[p][e];
        for (std::size_t e = 0; e < 3; ++e) in[9 + e][p] = bs[p][e];
    }
    std::vector<double> values(n);
    std::vector<std::vector<double>> grad(12, std::vector<double>(n));
    k.gradient_batch(in, values, grad);
    for (std::size_t p = 0; p < n; ++p) {
        const auto r = k.gradient(as[p], bs[p]);
        INFO("point " << p);
        close(values[p], r.value, 1e-13, 1e-14);
        for (std::size_t e = 0; e < 9; ++e) close(grad[e][p], std::get<0>(r.gradient)[e], 1e-12, 1e-13);
        for (std::size_t e = 0; e < 3; ++e) close(grad[9 + e][p], std::get<1>(r.gradient)[e], 1e-12, 1e-13);
    }
}

TEST_CASE("log_det of a symmetric positive-definite matrix", "[arrays][decompositions]") {
    auto [A] = gradc::variables(gradc::mat<3, 3>);
    const auto k = gradc::compile(log_det(A));
    close(k(std::array<double, 9>{4, 12, -16, 12, 37, -43, -16, -43, 98}), std::log(36.0), 1e-15, 1e-15);
    // d log det A = tr(A⁻¹ dA): the gradient of a symmetric A is A⁻¹.
    const auto a = spd<3>(13);
    const auto g = k.gradient(a);
    auto [S, I] = gradc::variables(gradc::mat<3, 3>, gradc::mat<3, 3>);
    const auto inv = gradc::compile(solve(S, I))(a, std::array<double, 9>{1, 0, 0, 0, 1, 0, 0, 0, 1});
    for (std::size_t e = 0; e < 9; ++e) close(std::get<0>(g.gradient)[e], inv[e], 1e-13, 1e-14);
    check_expression(log_det(A), spd_plus_skew<3>(14));
    auto [B] = gradc::variables(gradc::mat<7, 7>);
    check_expression(log_det(B), spd<7>(15));
}
