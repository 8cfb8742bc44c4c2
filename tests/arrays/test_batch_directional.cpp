// jvp_batch, vjp_batch and jacobian_batch of array kernels: at every point, equal to the one-point jvp and
// to the rows of the one-point Jacobian, for several outputs of several shapes, with a
// broadcast parameter, on partial batches, two threads and float; and the arguments'
// counts checked before anything is written.
#include <cmath>
#include <tuple>
#include <vector>

#include "array_check.hpp"

using array_check::close;

namespace {

constexpr std::size_t points = 11;  // a full batch and a partial one on every width

double at(std::size_t e, std::size_t i) { return 0.6 * std::sin(0.7 * double(e) + 0.31 * double(i)) + 0.1; }

std::vector<std::vector<double>> spans(std::size_t count, std::size_t seed) {
    std::vector<std::vector<double>> s(count, std::vector<double>(points));
    for (std::size_t e = 0; e < count; ++e)
        for (std::size_t i = 0; i < points; ++i) s[e][i] = at(e + 13 * seed, i);
    return s;
}

/// The arguments (a 2×2 matrix, a vector of 2, a scalar) at point i of their 7 spans.
std::tuple<std::array<double, 4>, std::array<double, 2>, double> point_of_three(
    const std::vector<std::vector<double>>& in, std::size_t i) {
    std::array<double, 4> w;
    std::array<double, 2> v;
    for (std::size_t e = 0; e < 4; ++e) w[e] = in[e][i];
    for (std::size_t e = 0; e < 2; ++e) v[e] = in[4 + e][i];
    return {w, v, in[6][i]};
}

}  // namespace

TEST_CASE("jvp_batch and vjp_batch of an array kernel with three outputs", "[arrays][batch]") {
    auto [W, v, s] = gradc::variables(gradc::mat<2, 2>, gradc::vec<2>, gradc::scalar);
    // Outputs: a 2×2 matrix, a scalar, a vector of 2 (7 entries); wrt W and v (6 entries).
    const auto k = gradc::compile(outer(tanh(W * v), v) * s, log_sum_exp(W) * s, exp(v * s), gradc::wrt(W, v));
    const auto in = spans(7, 0), dx = spans(6, 1), w = spans(7, 2);
    for (int threads : {1, 2}) {
        std::vector<std::vector<double>> values(7, std::vector<double>(points)), tangents = values;
        std::vector<std::vector<double>> grad(6, std::vector<double>(points));
        k.jvp_batch(in, dx, values, tangents, gradc::threads{threads});
        k.vjp_batch(in, w, grad, gradc::threads{threads});
        for (std::size_t i = 0; i < points; ++i) {
            const auto [wv, vv, sv] = point_of_three(in, i);
            const auto j = k.jacobian(wv, vv, sv);
            INFO("point " << i << ", threads " << threads);
            for (std::size_t r = 0; r < 7; ++r) {
                double jv = 0;
                for (std::size_t c = 0; c < 6; ++c) jv += j.jacobian[r][c] * dx[c][i];
                close(tangents[r][i], jv, 1e-13, 1e-14);
            }
            close(values[4][i], std::get<1>(j.value), 1e-15, 1e-15);
            for (std::size_t e = 0; e < 4; ++e) close(values[e][i], std::get<0>(j.value)[e], 1e-15, 1e-15);
            for (std::size_t c = 0; c < 6; ++c) {
                double wj = 0;
                for (std::size_t r = 0; r < 7; ++r) wj += w[r][i] * j.jacobian[r][c];
                close(grad[c][i], wj, 1e-13, 1e-14);
            }
        }
    }
}

TEST_CASE("jvp_batch and vjp_batch with a broadcast parameter, one scalar output, and float", "[arrays][batch]") {
    auto [A, x] = gradc::variables(gradc::mat<3, 3>, gradc::vec<3>);
    const auto k = gradc::compile(squared_norm(solve(A, x)), gradc::wrt(A, x));
    const std::array<double, 9> a{0, 2, 1, 1, 1, 1, 2, 1, 0.5};
    const auto xs = spans(3, 3), dx = spans(12, 4), w = spans(1, 5);
    std::vector<double> values(points), tangents(points);
    std::vector<std::vector<double>> grad(12, std::vector<double>(points));
    k.jvp_batch(std::forward_as_tuple(gradc::broadcast(a), xs), dx, values, tangents);
    k.vjp_batch(std::forward_as_tuple(gradc::broadcast(a), xs), w, grad);
    for (std::size_t i = 0; i < points; ++i) {
        const std::array<double, 3> xv{xs[0][i], xs[1][i], xs[2][i]};
        const auto g = k.gradient(a, xv);
        double jv = 0;
        for (std::size_t e = 0; e < 9; ++e) jv += std::get<0>(g.gradient)[e] * dx[e][i];
        for (std::size_t e = 0; e < 3; ++e) jv += std::get<1>(g.gradient)[e] * dx[9 + e][i];
        close(values[i], g.value, 1e-14, 1e-15);
        close(tangents[i], jv, 1e-12, 1e-13);
        for (std::size_t e = 0; e < 9; ++e) close(grad[e][i], w[0][i] * std::get<0>(g.gradient)[e], 1e-12, 1e-13);
        for (std::size_t e = 0; e < 3; ++e) close(grad[9 + e][i], w[0][i] * std::get<1>(g.gradient)[e], 1e-12, 1e-13);
    }
    // In float.
    std::vector<std::vector<float>> inf(12, std::vector<float>(points)), dxf(12, std::vector<float>(points));
    for (std::size_t i = 0; i < points; ++i) {
        for (std::size_t e = 0; e < 9; ++e) inf[e][i] = float(a[e]);
        for (std::size_t e = 0; e < 3; ++e) inf[9 + e][i] = float(xs[e][i]);
        for (std::size_t e = 0; e < 12; ++e) dxf[e][i] = float(dx[e][i]);
    }
    std::vector<float> vf(points), tf(points);
    k.jvp_batch(inf, dxf, vf, tf);
    for (std::size_t i = 0; i < points; ++i) close(double(tf[i]), tangents[i], 1e-4, 1e-4);
}

TEST_CASE("jvp_batch and vjp_batch check their span counts and lengths first", "[arrays][batch]") {
    auto [W, v] = gradc::variables(gradc::mat<2, 2>, gradc::vec<2>);
    const auto k = gradc::compile(tanh(W * v), gradc::wrt(v));
    const auto in = spans(6, 0);
    auto dx = spans(2, 1), w = spans(2, 2);
    std::vector<std::vector<double>> values(2, std::vector<double>(points, 7.0)), tangents = values;
    std::vector<std::vector<double>> grad(2, std::vector<double>(points, 7.0));
    const auto before_values = values, before_grad = grad;
    dx.pop_back();
    CHECK_THROWS_WITH(k.jvp_batch(in, dx, values, tangents),
                      Catch::Matchers::Contains("jvp_batch") && Catch::Matchers::Contains("tangents_in") && Catch::Matchers::Contains("expected 2"));
    w[1].pop_back();
    CHECK_THROWS_WITH(k.vjp_batch(in, w, grad), Catch::Matchers::Contains("vjp_batch") && Catch::Matchers::Contains("weights[1]"));
    CHECK(values == before_values);
    CHECK(tangents == before_values);
    CHECK(grad == before_grad);
}

TEST_CASE("jacobian_batch of an array kernel is the one-point Jacobian at every point", "[arrays][batch]") {
    auto [W, v, s] = gradc::variables(gradc::mat<2, 2>, gradc::vec<2>, gradc::scalar);
    // More output entries (7) than wrt entries (6): a tangent sweep per column.
    const auto tall = gradc::compile(outer(tanh(W * v), v) * s, log_sum_exp(W) * s, exp(v * s), gradc::wrt(W, v));
    // One output entry, 7 wrt entries: one adjoint sweep per row.
    const auto wide = gradc::compile(sum(tanh(W * v)) * s, gradc::wrt(W, v, s));
    const auto in = spans(7, 6);
    for (int threads : {1, 2}) {
        std::vector<std::vector<double>> values(7, std::vector<double>(points)), jac(42, std::vector<double>(points));
        std::vector<double> value(points);
        std::vector<std::vector<double>> row(7, std::vector<double>(points));
        tall.jacobian_batch(in, values, jac, gradc::threads{threads});
        wide.jacobian_batch(in, value, row, gradc::threads{threads});
        for (std::size_t i = 0; i < points; ++i) {
            const auto [wv, vv, sv] = point_of_three(in, i);
            const auto j = tall.jacobian(wv, vv, sv);
            const auto r = wide.jacobian(wv, vv, sv);
            INFO("point " << i << ", threads " << threads);
            for (std::size_t e = 0; e < 4; ++e) close(values[e][i], std::get<0>(j.value)[e], 1e-15, 1e-15);
            close(values[4][i], std::get<1>(j.value), 1e-15, 1e-15);
            for (std::size_t r_ = 0; r_ < 7; ++r_)
                for (std::size_t c = 0; c < 6; ++c) close(jac[r_ * 6 + c][i], j.jacobian[r_][c], 1e-13, 1e-14);
            close(value[i], r.value, 1e-14, 1e-15);
            for (std::size_t c = 0; c < 7; ++c) close(row[c][i], r.jacobian[0][c], 1e-13, 1e-14);
        }
    }
}

TEST_CASE("jacobian_batch with a broadcast parameter and in float; its spans checked first", "[arrays][batch]") {
    auto [A, x] = gradc::variables(gradc::mat<3, 3>, gradc::vec<3>);
    const auto k = gradc::compile(solve(A, x), gradc::wrt(x));  // 3 outputs by 3 wrt entries
    const std::array<double, 9> a{0, 2, 1, 1, 1, 1, 2, 1, 0.5};
    const auto xs = spans(3, 7);
    std::vector<std::vector<double>> values(3, std::vector<double>(points)), jac(9, std::vector<double>(points));
    k.jacobian_batch(std::forward_as_tuple(gradc::broadcast(a), xs), values, jac);
    std::vector<std::vector<float>> inf(12, std::vector<float>(points)), valuesf(3, std::vector<float>(points)),
        jacf(9, std::vector<float>(points));
    for (std::size_t i = 0; i < points; ++i) {
        for (std::size_t e = 0; e < 9; ++e) inf[e][i] = float(a[e]);
        for (std::size_t e = 0; e < 3; ++e) inf[9 + e][i] = float(xs[e][i]);
    }
    k.jacobian_batch(inf, valuesf, jacf);
    for (std::size_t i = 0; i < points; ++i) {
        const std::array<double, 3> xv{xs[0][i], xs[1][i], xs[2][i]};
        const auto j = k.jacobian(a, xv);
        INFO("point " << i);
        for (std::size_t r = 0; r < 3; ++r) {
            close(values[r][i], j.value[r], 1e-14, 1e-15);
            for (std::size_t c = 0; c < 3; ++c) {
                close(jac[r * 3 + c][i], j.jacobian[r][c], 1e-12, 1e-13);
                close(double(jacf[r * 3 + c][i]), j.jacobian[r][c], 1e-4, 1e-4);
            }
        }
    }
    // A solve is linear in x: the Jacobian is A⁻¹ at every point, the same for all.
    for (std::size_t e = 0; e < 9; ++e)
        for (std::size_t i = 1; i < points; ++i) close(jac[e][i], jac[e][0], 1e-13, 1e-14);
    auto short_jac = jac;
    short_jac.pop_back();
    auto before = values;
    CHECK_THROWS_WITH(k.jacobian_batch(std::forward_as_tuple(gradc::broadcast(a), xs), values, short_jac),
                      Catch::Matchers::Contains("jacobian_batch") && Catch::Matchers::Contains("jac") &&
                          Catch::Matchers::Contains("expected 9"));
    CHECK(values == before);
}
