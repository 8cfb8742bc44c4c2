// Batch calls and map-reduce of array kernels: per-point SoA spans, broadcast
// parameters, tails, threads, float; map_reduce against the sum of one-point gradients.
#include <vector>

#include "array_check.hpp"

using array_check::close;
using array_check::filled;
using array_check::make_points;

TEST_CASE("gradient_batch with broadcast parameters equals one-point gradients", "[arrays][batch]") {
    auto [W, b, x] = gradc::variables(gradc::mat<4, 3>, gradc::vec<4>, gradc::vec<3>);
    const auto k = gradc::compile(sum(tanh(W * x + b)), gradc::wrt(W, b));
    const auto wv = filled<12>(-1, 1, 1);
    const auto bv = filled<4>(-1, 1, 2);
    for (std::size_t n : {0, 1, 7, 8, 9, 33, 20001}) {
        const auto p = make_points(n);
        std::vector<double> values(n), values2(n);
        std::vector<std::vector<double>> grad(16, std::vector<double>(n));
        k.gradient_batch(std::tuple{gradc::broadcast(wv), gradc::broadcast(bv), p.x}, values, grad);
        k.value_batch(std::tuple{gradc::broadcast(wv), gradc::broadcast(bv), p.x}, values2, gradc::threads{2});
        for (std::size_t i = 0; i < n; i += 1 + n / 50) {
            const std::array<double, 3> xi{p.x[0][i], p.x[1][i], p.x[2][i]};
            const auto r = k.gradient(wv, bv, xi);
            close(values[i], r.value, 1e-14, 1e-15);
            close(values2[i], r.value, 1e-14, 1e-15);
            for (std::size_t e = 0; e < 12; ++e) close(grad[e][i], std::get<0>(r.gradient)[e], 1e-13, 1e-14);
            for (std::size_t e = 0; e < 4; ++e) close(grad[12 + e][i], std::get<1>(r.gradient)[e], 1e-13, 1e-14);
        }
    }
}

TEST_CASE("the lane type is the per-point spans' even when a broadcast entry comes first", "[arrays][batch]") {
    // double parameters broadcast beside float data: the call runs on float lanes (the
    // parameters converted once), as if the parameters had been given as floats.
    auto [W, b, x] = gradc::variables(gradc::mat<4, 3>, gradc::vec<4>, gradc::vec<3>);
    const auto k = gradc::compile(sum(tanh(W * x + b)), gradc::wrt(W, b));
    const auto wv = filled<12>(-1, 1, 1);
    const auto bv = filled<4>(-1, 1, 2);
    std::array<float, 12> wf;
    std::array<float, 4> bf;
    for (std::size_t e = 0; e < 12; ++e) wf[e] = float(wv[e]);
    for (std::size_t e = 0; e < 4; ++e) bf[e] = float(bv[e]);
    const std::size_t n = 19;
    const auto p = make_points(n);
    std::vector<std::vector<float>> xf(3, std::vector<float>(n));
    for (std::size_t e = 0; e < 3; ++e)
        for (std::size_t i = 0; i < n; ++i) xf[e][i] = float(p.x[e][i]);
    std::vector<float> values(n), values_f(n);
    std::vector<std::vector<float>> grad(16, std::vector<float>(n)), grad_f(16, std::vector<float>(n));
    k.gradient_batch(std::tuple{gradc::broadcast(wv), gradc::broadcast(bv), xf}, values, grad);
    k.gradient_batch(std::tuple{gradc::broadcast(wf), gradc::broadcast(bf), xf}, values_f, grad_f);
    CHECK(values == values_f);
    CHECK(grad == grad_f);
}

TEST_CASE("map_reduce sums values and parameter gradients over points", "[arrays][batch]") {
    auto [W, b, x] = gradc::variables(gradc::mat<4, 3>, gradc::vec<4>, gradc::vec<3>);
    const auto k = gradc::compile(log_sum_exp(W * x + b), gradc::wrt(W, b));
    const auto wv = filled<12>(-1, 1, 4);
    const auto bv = filled<4>(-1, 1, 5);
    for (std::size_t n : {1, 5, 1000, 20003}) {
        const auto p = make_points(n);
        double value = 0;
        std::array<double, 12> gw{};
        std::array<double, 4> gb{};
        for (std::size_t i = 0; i < n; ++i) {
            const auto r = k.gradient(wv, bv, std::array<double, 3>{p.x[0][i], p.x[1][i], p.x[2][i]});
            value += r.value;
            for (std::size_t e = 0; e < 12; ++e) gw[e] += std::get<0>(r.gradient)[e];
            for (std::size_t e = 0; e < 4; ++e) gb[e] += std::get<1>(r.gradient)[e];
        }
        const auto m = k.map_reduce(p.x, wv, bv);
        const auto m2 = k.map_reduce(p.x, wv, bv, gradc::threads{2});
        CHECK(k.map_reduce_value(p.x, wv, bv) == m.value);
        close(m.value, value, 1e-12, 1e-12);
        CHECK(m2.value == m.value);  // the sum tree does not depend on threads
        for (std::size_t e = 0; e < 12; ++e) close(std::get<0>(m.gradient)[e], gw[e], 1e-12, 1e-12);
        for (std::size_t e = 0; e < 4; ++e) close(std::get<1>(m.gradient)[e], gb[e], 1e-12, 1e-12);
        CHECK(std::get<0>(m2.gradient) == std::get<0>(m.gradient));
    }
}

TEST_CASE("map_reduce computes the nodes without data once and sweeps their edges once", "[arrays][batch]") {
    // Q = lower_triangular(exp(diag), lower) depends on θ alone; x - μ and the rest on the data.
    auto [q, mu, x] = gradc::variables(gradc::vec<6>, gradc::vec<3>, gradc::vec<3>);
    const auto Q = lower_triangular<3>(concat(exp(segment<0, 3>(q)), segment<3, 3>(q)));
    const auto k = gradc::compile(sum(segment<0, 3>(q)) - 0.5 * squared_norm(Q * (x - mu)) + where(x[gradc::index<0>] > 0.0, mu[gradc::index<1>], 0.0),
                                  gradc::wrt(q, mu));
    const auto qv = filled<6>(-0.5, 0.5, 7);
    const auto mv = filled<3>(-1, 1, 8);
    const auto p = make_points(1001);
    double value = 0;
    std::array<double, 6> gq{};
    std::array<double, 3> gm{};
    for (std::size_t i = 0; i < p.n; ++i) {
        const auto r = k.gradient(qv, mv, std::array<double, 3>{p.x[0][i], p.x[1][i], p.x[2][i]});
        value += r.value;
        for (std::size_t e = 0; e < 6; ++e) gq[e] += std::get<0>(r.gradient)[e];
        for (std::size_t e = 0; e < 3; ++e) gm[e] += std::get<1>(r.gradient)[e];
    }
    const auto m = k.map_reduce(p.x, qv, mv);
    close(m.value, value, 1e-12, 1e-12);
    for (std::size_t e = 0; e < 6; ++e) close(std::get<0>(m.gradient)[e], gq[e], 1e-12, 1e-12);
    for (std::size_t e = 0; e < 3; ++e) close(std::get<1>(m.gradient)[e], gm[e], 1e-12, 1e-12);
    close(k.map_reduce_value(p.x, qv, mv), value, 1e-12, 1e-12);
}

TEST_CASE("float batches and a wrong span count", "[arrays][batch]") {
    auto [W, x] = gradc::variables(gradc::mat<2, 3>, gradc::vec<3>);
    const auto k = gradc::compile(squared_norm(W * x), gradc::wrt(W));
    const std::size_t n = 13;
    std::vector<std::vector<float>> in(9, std::vector<float>(n));
    for (std::size_t e = 0; e < 9; ++e)
        for (std::size_t i = 0; i < n; ++i) in[e][i] = float(std::cos(double(e * n + i)));
    std::vector<float> values(n);
    std::vector<std::vector<float>> grad(6, std::vector<float>(n));
    k.gradient_batch(in, values, grad);
    for (std::size_t i = 0; i < n; ++i) {
        std::array<float, 6> w;
        std::array<float, 3> xv;
        for (std::size_t e = 0; e < 6; ++e) w[e] = in[e][i];
        for (std::size_t e = 0; e < 3; ++e) xv[e] = in[6 + e][i];
        const auto r = k.gradient(w, xv);
        CHECK(values[i] == r.value);
        for (std::size_t e = 0; e < 6; ++e) CHECK(std::abs(grad[e][i] - std::get<0>(r.gradient)[e]) <= 1e-6f * (1 + std::abs(grad[e][i])));
    }
    in.pop_back();
    CHECK_THROWS_AS(k.gradient_batch(in, values, grad), gradc::Error);
}
