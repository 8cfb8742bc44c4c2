// hessian_batch and hvp_batch of array kernels: at every point equal to the one-point
// hessian and hvp (the same dual sweeps, on batches), on partial batches, two threads, a
// broadcast parameter and float; counts and lengths checked before anything is written.
#include <cmath>
#include <vector>

#include "array_check.hpp"

using array_check::close;

namespace {

constexpr std::size_t points = 11;

std::vector<std::vector<double>> spans(std::size_t count, std::size_t seed) {
    std::vector<std::vector<double>> s(count, std::vector<double>(points));
    for (std::size_t e = 0; e < count; ++e)
        for (std::size_t i = 0; i < points; ++i) s[e][i] = 0.5 * std::sin(0.9 * double(e + 7 * seed) + 0.23 * double(i)) + 0.2;
    return s;
}

}  // namespace

TEST_CASE("hessian_batch and hvp_batch of an array kernel against the one-point calls", "[arrays][batch][second_order]") {
    auto [W, x, c] = gradc::variables(gradc::mat<2, 3>, gradc::vec<3>, gradc::scalar);
    // wrt W (6 entries) and c: W = 7, the upper triangle 28 entries, beyond one 8-direction sweep.
    const auto k = gradc::compile(log_sum_exp(tanh(W * x) * c) + c * c * squared_norm(W), gradc::wrt(W, c));
    constexpr std::size_t Wn = 7, H = Wn * (Wn + 1) / 2;
    const auto in = spans(10, 0), v = spans(Wn, 1);
    for (int threads : {1, 2}) {
        std::vector<double> values(points), values2(points);
        std::vector<std::vector<double>> grad(Wn, std::vector<double>(points)), grad2 = grad, hvp = grad;
        std::vector<std::vector<double>> hess(H, std::vector<double>(points));
        k.hessian_batch(in, values, grad, hess, gradc::threads{threads});
        k.hvp_batch(in, v, values2, grad2, hvp, gradc::threads{threads});
        for (std::size_t i = 0; i < points; ++i) {
            std::array<double, 6> wv;
            std::array<double, 3> xv;
            for (std::size_t e = 0; e < 6; ++e) wv[e] = in[e][i];
            for (std::size_t e = 0; e < 3; ++e) xv[e] = in[6 + e][i];
            const double cv = in[9][i];
            const auto h = k.hessian(wv, xv, cv);
            INFO("point " << i << ", threads " << threads);
            close(values[i], h.value, 1e-15, 1e-15);
            close(values2[i], h.value, 1e-15, 1e-15);
            for (std::size_t e = 0; e < 6; ++e) close(grad[e][i], std::get<0>(h.gradient)[e], 1e-14, 1e-15);
            close(grad[6][i], std::get<1>(h.gradient), 1e-14, 1e-15);
            for (std::size_t e = 0; e < Wn; ++e) close(grad2[e][i], grad[e][i], 1e-14, 1e-15);
            std::size_t t = 0;
            for (std::size_t r = 0; r < Wn; ++r)
                for (std::size_t col = r; col < Wn; ++col) close(hess[t++][i], h.hessian[r][col], 1e-14, 1e-15);
            for (std::size_t r = 0; r < Wn; ++r) {
                double hv = 0;
                for (std::size_t col = 0; col < Wn; ++col) hv += h.hessian[r][col] * v[col][i];
                close(hvp[r][i], hv, 1e-13, 1e-14);
            }
        }
    }
}

TEST_CASE("hessian_batch with a broadcast parameter, in float, and bad counts", "[arrays][batch][second_order]") {
    auto [A, b] = gradc::variables(gradc::mat<2, 2>, gradc::vec<2>);
    const auto k = gradc::compile(log_det(A) + squared_norm(solve(A, b)), gradc::wrt(b));
    const std::array<double, 4> a{2, 0.3, 0.3, 1.5};
    const auto bs = spans(2, 2);
    std::vector<double> values(points);
    std::vector<std::vector<double>> grad(2, std::vector<double>(points)), hess(3, std::vector<double>(points));
    k.hessian_batch(std::forward_as_tuple(gradc::broadcast(a), bs), values, grad, hess);
    // ∂²/∂b² ‖A⁻¹b‖² = 2·A⁻ᵀA⁻¹, the same at every point.
    const double det = a[0] * a[3] - a[1] * a[2];
    const std::array<double, 4> inv{a[3] / det, -a[1] / det, -a[2] / det, a[0] / det};
    double m[2][2] = {};
    for (std::size_t r = 0; r < 2; ++r)
        for (std::size_t col = 0; col < 2; ++col)
            for (std::size_t q = 0; q < 2; ++q) m[r][col] += 2 * inv[q * 2 + r] * inv[q * 2 + col];
    for (std::size_t i = 0; i < points; ++i) {
        close(hess[0][i], m[0][0], 1e-13, 1e-14);
        close(hess[1][i], m[0][1], 1e-13, 1e-14);
        close(hess[2][i], m[1][1], 1e-13, 1e-14);
    }
    // Float.
    std::vector<std::vector<float>> inf(6, std::vector<float>(points));
    for (std::size_t i = 0; i < points; ++i) {
        for (std::size_t e = 0; e < 4; ++e) inf[e][i] = float(a[e]);
        for (std::size_t e = 0; e < 2; ++e) inf[4 + e][i] = float(bs[e][i]);
    }
    std::vector<float> vf(points);
    std::vector<std::vector<float>> gf(2, std::vector<float>(points)), hf(3, std::vector<float>(points));
    k.hessian_batch(inf, vf, gf, hf);
    for (std::size_t i = 0; i < points; ++i) close(double(hf[1][i]), m[0][1], 1e-4, 1e-4);
    // Bad counts: nothing written.
    const auto before = hess;
    hess.pop_back();
    auto kept = hess;
    CHECK_THROWS_WITH(k.hessian_batch(std::forward_as_tuple(gradc::broadcast(a), bs), values, grad, hess),
                      Catch::Matchers::Contains("hess") && Catch::Matchers::Contains("expected 3"));
    CHECK(hess == kept);
    std::vector<std::vector<double>> v1(1, std::vector<double>(points)), hv(2, std::vector<double>(points));
    CHECK_THROWS_WITH(k.hvp_batch(std::forward_as_tuple(gradc::broadcast(a), bs), v1, values, grad, hv),
                      Catch::Matchers::Contains("v_in") && Catch::Matchers::Contains("expected 2"));
}

TEST_CASE("map_reduce_hessian, its diagonal and Gauss-Newton of an array kernel", "[arrays][map_reduce][second_order]") {
    // A Gaussian log-likelihood in θ = (S, μ), with x the data: Σ over points against
    // loops over the one-point calls, on partial leaves and two threads.
    auto [S, mu, x] = gradc::variables(gradc::mat<2, 2>, gradc::vec<2>, gradc::vec<2>);
    const auto v = x - mu;
    const auto k = gradc::compile(-0.5 * log_det(S) - 0.5 * squared_norm(solve(cholesky(S), v)), gradc::wrt(S, mu));
    const auto r = gradc::compile(dot(row<0>(S), v) - mu[gradc::index<1>] * x[gradc::index<0>], gradc::wrt(S, mu));
    const std::array<double, 4> sv{1.5, 0.2, 0.2, 0.9};
    const std::array<double, 2> mv{0.1, -0.3};
    constexpr std::size_t W = 6;
    for (std::size_t n : {1, 7, 8, 1001, 5003}) {
        std::vector<std::vector<double>> data(2, std::vector<double>(n));
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t e = 0; e < 2; ++e) data[e][i] = std::sin(0.37 * double(i) + double(e));
        double value = 0, rr = 0;
        std::array<double, W> g{}, jtr{};
        std::array<std::array<double, W>, W> h{}, jtj{};
        for (std::size_t i = 0; i < n; ++i) {
            const std::array<double, 2> xv{data[0][i], data[1][i]};
            const auto hi = k.hessian(sv, mv, xv);
            value += hi.value;
            for (std::size_t e = 0; e < 4; ++e) g[e] += std::get<0>(hi.gradient)[e];
            for (std::size_t e = 0; e < 2; ++e) g[4 + e] += std::get<1>(hi.gradient)[e];
            for (std::size_t a = 0; a < W; ++a)
                for (std::size_t b = 0; b < W; ++b) h[a][b] += hi.hessian[a][b];
            const auto gi = r.gradient(sv, mv, xv);
            std::array<double, W> row{};
            for (std::size_t e = 0; e < 4; ++e) row[e] = std::get<0>(gi.gradient)[e];
            for (std::size_t e = 0; e < 2; ++e) row[4 + e] = std::get<1>(gi.gradient)[e];
            rr += gi.value * gi.value;
            for (std::size_t a = 0; a < W; ++a) {
                jtr[a] += gi.value * row[a];
                for (std::size_t b = 0; b < W; ++b) jtj[a][b] += row[a] * row[b];
            }
        }
        INFO("n = " << n);
        const auto m = k.map_reduce_hessian(data, sv, mv);
        const auto m2 = k.map_reduce_hessian(data, sv, mv, gradc::threads{2});
        const auto d = k.map_reduce_hessian_diagonal(data, sv, mv);
        const auto gn = r.map_reduce_gauss_newton(data, sv, mv);
        close(m.value, value, 1e-12, 1e-12);
        for (std::size_t e = 0; e < 4; ++e) close(std::get<0>(m.gradient)[e], g[e], 1e-12, 1e-11);
        for (std::size_t e = 0; e < 2; ++e) close(std::get<1>(m.gradient)[e], g[4 + e], 1e-12, 1e-11);
        for (std::size_t a = 0; a < W; ++a)
            for (std::size_t b = 0; b < W; ++b) close(m.hessian[a][b], h[a][b], 1e-12, 1e-11);
        CHECK(m2.hessian == m.hessian);  // the sum tree does not depend on the threads
        CHECK(m2.value == m.value);
        for (std::size_t e = 0; e < 4; ++e) CHECK(std::get<0>(d.diagonal)[e] == m.hessian[e][e]);
        for (std::size_t e = 0; e < 2; ++e) CHECK(std::get<1>(d.diagonal)[e] == m.hessian[4 + e][4 + e]);
        close(gn.value, rr, 1e-12, 1e-12);
        for (std::size_t a = 0; a < W; ++a) {
            close(gn.jtr[a], jtr[a], 1e-12, 1e-11);
            for (std::size_t b = 0; b < W; ++b) close(gn.jtj[a][b], jtj[a][b], 1e-12, 1e-11);
        }
    }
}
