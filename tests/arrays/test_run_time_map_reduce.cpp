// map_reduce and map_reduce_value of kernels whose extents are known only when they are
// called (include/gradc/simd/run_time_map_reduce.hpp):
//  - against the sum of one-point gradients, point by point, at several sizes and point
//    counts (partial batches, one point, none);
//  - against a fixed kernel's map_reduce at the same size, bit for bit (the same split,
//    the same batches and leaves, built without FMA contraction);
//  - bitwise the same on one thread and on two;
//  - a kernel with loops over counters, per-point matrices (gradc::per_point) in a tuple of
//    the data, float data;
//  - data and θ that do not fit throw gradc::Error naming the call.
#include <array>
#include <cmath>
#include <cstddef>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include <catch2/catch.hpp>

#include <gradc/gradc.hpp>

#include "error_message.hpp"
#include "sample_values.hpp"

using gradc::dynamic_extent;

namespace {

using sample::error_of;
using sample::values;

/// d spans of n points each: entry e of point i.
template <class T = double>
std::vector<std::vector<T>> points(std::size_t d, std::size_t n, std::size_t seed) {
    std::vector<std::vector<T>> s(d);
    for (std::size_t e = 0; e < d; ++e) {
        const auto v = values(n, seed + 7 * e);
        s[e].assign(v.begin(), v.end());
    }
    return s;
}
template <class T>
std::vector<std::span<const T>> spans_of(const std::vector<std::vector<T>>& s) {
    return {s.begin(), s.end()};
}
/// Point i of the spans, as one vector.
template <class T>
std::vector<T> point(const std::vector<std::vector<T>>& s, std::size_t i) {
    std::vector<T> x;
    for (const auto& e : s) x.push_back(e[i]);
    return x;
}


}  // namespace

TEST_CASE("run-time map_reduce equals the sum of one-point gradients", "[arrays][run_time][map_reduce]") {
    auto [W, b, x] = gradc::variables(gradc::mat<dynamic_extent, dynamic_extent>, gradc::vec<dynamic_extent>,
                                      gradc::vec<dynamic_extent>);
    // log(1 + exp(·)) of a layer, with a θ-only part (‖b‖², computed once per call).
    const auto k = gradc::compile(sum(log(1.0 + exp(tanh(W * x + b)))) + 0.1 * squared_norm(b), gradc::wrt(W, b));
    const std::array<std::array<std::size_t, 3>, 4> sizes{{{3, 4, 37}, {1, 1, 1}, {5, 2, 16}, {2, 7, 203}}};
    for (const auto& [rows, cols, n] : sizes) {
        const auto w = values(rows * cols, 1), bv = values(rows, 2);
        const auto wm = gradc::mat_view(w, rows, cols);
        const auto data = points(cols, n, 3);
        const auto r = k.map_reduce(spans_of(data), wm, bv);
        double value = 0;
        std::vector<double> gW(rows * cols, 0.0), gb(rows, 0.0);
        for (std::size_t i = 0; i < n; ++i) {
            const auto g = k.gradient(wm, bv, point(data, i));
            value += g.value;
            for (std::size_t e = 0; e < rows * cols; ++e) gW[e] += std::get<0>(g.gradient).data[e];
            for (std::size_t e = 0; e < rows; ++e) gb[e] += std::get<1>(g.gradient)[e];
        }
        // The one-point sums count ‖b‖² once per point, as map_reduce does.
        CHECK(r.value == Approx(value).epsilon(1e-12));
        const auto& [rW, rb] = r.gradient;
        REQUIRE(rW.rows == rows);
        REQUIRE(rW.cols == cols);
        for (std::size_t e = 0; e < rows * cols; ++e) CHECK(rW.data[e] == Approx(gW[e]).epsilon(1e-12).margin(1e-13));
        for (std::size_t e = 0; e < rows; ++e) CHECK(rb[e] == Approx(gb[e]).epsilon(1e-12).margin(1e-13));
        CHECK(k.map_reduce_value(spans_of(data), wm, bv) == r.value);
        // One thread and two: bitwise the same (the tree of leaves depends on n alone).
        const auto r1 = k.map_reduce(spans_of(data), wm, bv, gradc::threads{1});
        const auto r2 = k.map_reduce(spans_of(data), wm, bv, gradc::threads{2});
        CHECK(r1.value == r2.value);
        CHECK(std::get<0>(r1.gradient).data == std::get<0>(r2.gradient).data);
        CHECK(std::get<1>(r1.gradient) == std::get<1>(r2.gradient));
    }
    // No points: 0 and a zero gradient of θ's extents.
    const auto w = values(6, 1), bv = values(2, 2);
    const std::vector<std::vector<double>> none(3);
    const auto r0 = k.map_reduce(spans_of(none), gradc::mat_view(w, 2, 3), bv);
    CHECK(r0.value == 0.0);
    CHECK(std::get<0>(r0.gradient).data == std::vector<double>(6, 0.0));
}

TEST_CASE("run-time map_reduce equals a fixed kernel's bit for bit", "[arrays][run_time][map_reduce]") {
    const auto data = points(4, 1000, 5);
    const auto w = values(12, 1), bv = values(3, 2);
    auto [W, b, x] = gradc::variables(gradc::mat<dynamic_extent, dynamic_extent>, gradc::vec<dynamic_extent>,
                                      gradc::vec<dynamic_extent>);
    const auto k = gradc::compile(sum(tanh(W * x + b)) + 0.1 * squared_norm(b), gradc::wrt(W, b));
    auto [Wf, bf, xf] = gradc::variables(gradc::mat<3, 4>, gradc::vec<3>, gradc::vec<4>);
    const auto kf = gradc::compile(sum(tanh(Wf * xf + bf)) + 0.1 * squared_norm(bf), gradc::wrt(Wf, bf));
    const auto rd = k.map_reduce(spans_of(data), gradc::mat_view(w, 3, 4), bv);
    const auto rf = kf.map_reduce(spans_of(data), std::span<const double, 12>(w.data(), 12),
                                  std::span<const double, 3>(bv.data(), 3));
    CHECK(rd.value == rf.value);
    CHECK(std::get<0>(rd.gradient).data == std::vector<double>(std::get<0>(rf.gradient).begin(), std::get<0>(rf.gradient).end()));
    CHECK(std::get<1>(rd.gradient) == std::vector<double>(std::get<1>(rf.gradient).begin(), std::get<1>(rf.gradient).end()));
}

TEST_CASE("run-time map_reduce of loops, per-point matrices and float data", "[arrays][run_time][map_reduce][loops]") {
    SECTION("a loop over θ's entries at every point") {
        // Σ_i log Σ_k exp(a_k·x_i[k] − c_k²): a and c parameters, x the data, K read from a.
        const auto vars = gradc::variables(gradc::vec<dynamic_extent>, gradc::vec<dynamic_extent>,
                                           gradc::vec<dynamic_extent>);
        const auto a = std::get<0>(vars);
        const auto c = std::get<1>(vars);
        const auto x = std::get<2>(vars);
        const auto f = log_sum_exp(gradc::concat_over(gradc::size(a), [=](auto k) { return a[k] * x[k] - c[k] * c[k]; }));
        const auto kernel = gradc::compile(f, gradc::wrt(a, c));
        const std::size_t K = 6, n = 53;
        const auto av = values(K, 1), cv = values(K, 2);
        const auto data = points(K, n, 3);
        const auto r = kernel.map_reduce(spans_of(data), av, cv);
        double value = 0;
        std::vector<double> ga(K, 0.0), gc(K, 0.0);
        for (std::size_t i = 0; i < n; ++i) {
            const auto g = kernel.gradient(av, cv, point(data, i));
            value += g.value;
            for (std::size_t e = 0; e < K; ++e) {
                ga[e] += std::get<0>(g.gradient)[e];
                gc[e] += std::get<1>(g.gradient)[e];
            }
        }
        CHECK(r.value == Approx(value).epsilon(1e-12));
        for (std::size_t e = 0; e < K; ++e) {
            CHECK(std::get<0>(r.gradient)[e] == Approx(ga[e]).epsilon(1e-12));
            CHECK(std::get<1>(r.gradient)[e] == Approx(gc[e]).epsilon(1e-12));
        }
    }
    SECTION("the same loop at fixed extents") {
        // Its map-reduce split passes sets of nodes as template arguments whose members
        // g++ 12 once confused (include/gradc/lower/node_mask.hpp): the gradient was zero.
        const auto vars = gradc::variables(gradc::vec<6>, gradc::vec<6>, gradc::vec<6>);
        const auto a = std::get<0>(vars);
        const auto c = std::get<1>(vars);
        const auto x = std::get<2>(vars);
        const auto f = log_sum_exp(gradc::concat_over(gradc::size(a), [=](auto k) { return a[k] * x[k] - c[k] * c[k]; }));
        const auto kernel = gradc::compile(f, gradc::wrt(a, c));
        const auto av = values(6, 1), cv = values(6, 2);
        const std::span<const double, 6> a6(av.data(), 6), c6(cv.data(), 6);
        const auto data = points(6, 29, 3);
        const auto r = kernel.map_reduce(spans_of(data), a6, c6);
        double value = 0;
        std::array<double, 6> ga{}, gc{};
        for (std::size_t i = 0; i < 29; ++i) {
            const auto xi = point(data, i);
            const auto g = kernel.gradient(a6, c6, std::span<const double, 6>(xi.data(), 6));
            value += g.value;
            for (std::size_t e = 0; e < 6; ++e) {
                ga[e] += std::get<0>(g.gradient)[e];
                gc[e] += std::get<1>(g.gradient)[e];
            }
        }
        CHECK(r.value == Approx(value).epsilon(1e-12));
        for (std::size_t e = 0; e < 6; ++e) {
            CHECK(std::get<0>(r.gradient)[e] == Approx(ga[e]).epsilon(1e-12));
            CHECK(std::get<1>(r.gradient)[e] == Approx(gc[e]).epsilon(1e-12));
        }
    }
    SECTION("per-point matrices in a tuple of the data, and float data") {
        auto [v, M, s] = gradc::variables(gradc::vec<dynamic_extent>, gradc::mat<dynamic_extent, dynamic_extent>,
                                          gradc::vec<dynamic_extent>);
        const auto kernel = gradc::compile(sum(sin(M * v)) * sum(s), gradc::wrt(v));
        const std::size_t rows = 3, cols = 4, n = 21;
        const auto vv = values(cols, 1);
        const auto ms = points(rows * cols, n, 2);
        const auto ss = points(2, n, 3);
        const auto r = kernel.map_reduce(std::tuple{gradc::per_point(spans_of(ms), rows, cols), spans_of(ss)}, vv);
        double value = 0;
        std::vector<double> gv(cols, 0.0);
        for (std::size_t i = 0; i < n; ++i) {
            const auto mi = point(ms, i);
            const auto g = kernel.gradient(vv, gradc::mat_view(mi, rows, cols), point(ss, i));
            value += g.value;
            for (std::size_t e = 0; e < cols; ++e) gv[e] += std::get<0>(g.gradient)[e];
        }
        CHECK(r.value == Approx(value).epsilon(1e-12));
        for (std::size_t e = 0; e < cols; ++e) CHECK(std::get<0>(r.gradient)[e] == Approx(gv[e]).epsilon(1e-12));

        // Float data runs on float lanes; θ is converted once.
        std::vector<std::vector<float>> msf(ms.size()), ssf(ss.size());
        for (std::size_t e = 0; e < ms.size(); ++e) msf[e].assign(ms[e].begin(), ms[e].end());
        for (std::size_t e = 0; e < ss.size(); ++e) ssf[e].assign(ss[e].begin(), ss[e].end());
        const float rf = kernel.map_reduce_value(std::tuple{gradc::per_point(spans_of(msf), rows, cols), spans_of(ssf)}, vv);
        CHECK(rf == Approx(value).margin(1e-5));  // a sum of terms of order 1 that nearly cancel
    }
}

TEST_CASE("run-time map_reduce: data and θ that do not fit throw", "[arrays][run_time][map_reduce]") {
    auto [W, b, x] = gradc::variables(gradc::mat<dynamic_extent, dynamic_extent>, gradc::vec<dynamic_extent>,
                                      gradc::vec<dynamic_extent>);
    const auto k = gradc::compile(sum(tanh(W * x + b)), gradc::wrt(W, b));
    const auto w = values(6, 1), bv = values(2, 2);
    auto data = points(3, 10, 3);
    // x has 4 entries at each point, W 3 columns: matvec does not fit.
    CHECK_THAT(error_of([&] { (void)k.map_reduce(spans_of(points(4, 10, 3)), gradc::mat_view(w, 2, 3), bv); }),
               Catch::Contains("gradc kernel map_reduce: matvec got a 2×3 matrix and a vector of 4"));
    data[1].pop_back();
    CHECK_THAT(error_of([&] { (void)k.map_reduce(spans_of(data), gradc::mat_view(w, 2, 3), bv); }),
               Catch::Contains("gradc kernel map_reduce: data span 1 has 9 entries, the first has 10"));
    CHECK_THAT(error_of([&] { (void)k.map_reduce_value(spans_of(points(3, 10, 3)), gradc::mat_view(w, 2, 3), values(3, 2)); }),
               Catch::Contains("gradc kernel map_reduce_value: add got a vector of 2 and a vector of 3"));

    auto [v, M] = gradc::variables(gradc::vec<dynamic_extent>, gradc::mat<dynamic_extent, dynamic_extent>);
    const auto km = gradc::compile(sum(M * v), gradc::wrt(v));
    const auto ms = points(6, 5, 1);
    CHECK_THAT(error_of([&] { (void)km.map_reduce(gradc::per_point(spans_of(ms), 2, 2), values(2, 1)); }),
               Catch::Contains("gradc::per_point(spans, 2, 2) has 6 spans, expected rows·cols = 4"));
}
