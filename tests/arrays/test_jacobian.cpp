// k.jacobian of array kernels: rows are output entries (outputs in order, each
// row-major), columns wrt entries. Against closed forms (A·x + b, cumsum, solve), against
// finite differences and the kernel's own jvp/vjp, on both of its paths (reverse sweeps
// when rows are fewer, tangent sweeps otherwise), for several outputs and in float.
#include "array_check.hpp"

using array_check::close;
using array_check::filled;

TEST_CASE("jacobian of A·x + b: A itself, the identity, and xᵀ blocks", "[arrays][jacobian]") {
    auto [A, x, b] = gradc::variables(gradc::mat<2, 3>, gradc::vec<3>, gradc::vec<2>);
    const auto av = filled<6>(-1, 1, 1);
    const auto xv = filled<3>(-1, 1, 2);
    const auto bv = filled<2>(-1, 1, 3);
    // 2 rows, 11 columns: reverse sweeps.
    const auto k = gradc::compile(A * x + b);
    const auto r = k.jacobian(av, xv, bv);
    CHECK(r.value == k(av, xv, bv));
    for (std::size_t i = 0; i < 2; ++i) {
        for (std::size_t c = 0; c < 3; ++c) {
            CHECK(r.jacobian[i][i * 3 + c] == xv[c]);             // ∂yᵢ/∂A(i, c)
            CHECK(r.jacobian[i][(1 - i) * 3 + c] == 0.0);
            CHECK(r.jacobian[i][6 + c] == av[i * 3 + c]);         // ∂yᵢ/∂x_c
        }
        for (std::size_t j = 0; j < 2; ++j) CHECK(r.jacobian[i][9 + j] == (i == j ? 1.0 : 0.0));  // ∂yᵢ/∂b_j
    }
    // wrt x only: 2 rows, 3 columns; A itself.
    const auto kx = gradc::compile(A * x + b, gradc::wrt(x));
    const auto rx = kx.jacobian(av, xv, bv);
    for (std::size_t i = 0; i < 2; ++i)
        for (std::size_t c = 0; c < 3; ++c) CHECK(rx.jacobian[i][c] == av[i * 3 + c]);
}

TEST_CASE("jacobian by tangent sweeps: cumsum and solve", "[arrays][jacobian][decompositions]") {
    // 5 rows, 1... 5 columns: as many rows as columns takes reverse sweeps; add a row.
    auto [x] = gradc::variables(gradc::vec<4>);
    const auto k = gradc::compile(concat(cumsum(x), sum(x)));  // 5 rows > 4 columns: tangent sweeps
    const auto r = k.jacobian(filled<4>(-1, 1, 4));
    for (std::size_t i = 0; i < 4; ++i)
        for (std::size_t j = 0; j < 4; ++j) CHECK(r.jacobian[i][j] == (j <= i ? 1.0 : 0.0));
    for (std::size_t j = 0; j < 4; ++j) CHECK(r.jacobian[4][j] == 1.0);

    // ∂ solve(A, b) / ∂b = A⁻¹, from either path.
    auto [A, b] = gradc::variables(gradc::mat<3, 3>, gradc::vec<3>);
    const std::array<double, 9> av{0, 2, 1, 1, 1, 1, 2, 1, 0};
    const auto bv = filled<3>(-1, 1, 5);
    const auto inverse = gradc::compile(solve(A, b), gradc::wrt(b)).jacobian(av, bv).jacobian;  // 3 ≤ 3: reverse
    const auto both = gradc::compile(solve(A, b), 2.0 * solve(A, b), gradc::wrt(b)).jacobian(av, bv);  // 6 > 3: tangent
    for (std::size_t i = 0; i < 3; ++i)
        for (std::size_t j = 0; j < 3; ++j) {
            double identity = 0;
            for (std::size_t m = 0; m < 3; ++m) identity += av[i * 3 + m] * inverse[m][j];
            close(identity, i == j ? 1.0 : 0.0, 1e-15, 1e-15);
            close(both.jacobian[i][j], inverse[i][j], 1e-15, 1e-15);
            close(both.jacobian[3 + i][j], 2.0 * inverse[i][j], 1e-15, 1e-15);
        }
    CHECK(std::get<0>(both.value) == gradc::compile(solve(A, b))(av, bv));
}

TEST_CASE("jacobian of several outputs against finite differences, jvp and vjp", "[arrays][jacobian]") {
    auto [W, v, s] = gradc::variables(gradc::mat<2, 2>, gradc::vec<2>, gradc::scalar);
    const auto wv = filled<4>(-1, 1, 6);
    const auto vv = filled<2>(-1, 1, 7);
    const double sv = 0.7;
    // Outputs: a matrix (4 entries), a scalar, a vector (2): 7 rows; 7 columns.
    const auto k = gradc::compile(outer(tanh(W * v), v) * s, log_sum_exp(W) * s, exp(v * s));
    const auto r = k.jacobian(wv, vv, sv);
    CHECK(std::get<1>(r.value) == std::get<1>(k(wv, vv, sv)));
    auto flat = [&](const std::array<double, 4>& w, const std::array<double, 2>& v2, double s2) {
        const auto y = k(w, v2, s2);
        std::array<double, 7> f{};
        for (std::size_t e = 0; e < 4; ++e) f[e] = std::get<0>(y)[e];
        f[4] = std::get<1>(y);
        for (std::size_t e = 0; e < 2; ++e) f[5 + e] = std::get<2>(y)[e];
        return f;
    };
    for (std::size_t j = 0; j < 7; ++j) {
        auto wp = wv, wm = wv;
        auto vp = vv, vm = vv;
        double sp = sv, sm = sv;
        const double h = 1e-6;
        if (j < 4) {
            wp[j] += h;
            wm[j] -= h;
        } else if (j < 6) {
            vp[j - 4] += h;
            vm[j - 4] -= h;
        } else {
            sp += h;
            sm -= h;
        }
        const auto up = flat(wp, vp, sp), down = flat(wm, vm, sm);
        for (std::size_t i = 0; i < 7; ++i) {
            INFO("row " << i << " column " << j);
            close(r.jacobian[i][j], (up[i] - down[i]) / (2 * h), 1e-7, 1e-8);
        }
    }
    // One output's rows against its own kernel's jvp and vjp.
    const auto one = gradc::compile(outer(tanh(W * v), v) * s);
    const auto rows = one.jacobian(wv, vv, sv).jacobian;  // 4 rows, 7 columns: reverse
    for (std::size_t j = 0; j < 7; ++j) {
        std::tuple<std::array<double, 4>, std::array<double, 2>, double> t{};
        if (j < 4) std::get<0>(t)[j] = 1;
        else if (j < 6) std::get<1>(t)[j - 4] = 1;
        else std::get<2>(t) = 1;
        const auto jv = one.jvp(std::tie(wv, vv, sv), t);
        for (std::size_t i = 0; i < 4; ++i) close(rows[i][j], jv.tangent[i], 1e-14, 1e-15);
    }
    // In float.
    const auto rf = one.jacobian(array_check::to_float(wv), array_check::to_float(vv), float(sv));
    for (std::size_t i = 0; i < 4; ++i)
        for (std::size_t j = 0; j < 7; ++j) close(double(rf.jacobian[i][j]), rows[i][j], 1e-5, 1e-5);
}
