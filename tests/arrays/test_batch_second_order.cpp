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
