// The arguments array kernels take: std::array, std::span, std::vector, Eigen matrices
// (both storage orders) and maps of them; wrong run-time sizes are a gradc::Error; two
// calls of gradc::variables give distinct variables.
#include <cmath>
#include <span>
#include <vector>

#include <Eigen/Core>

#include "array_check.hpp"

using array_check::filled;

TEST_CASE("span, vector and Eigen arguments give the std::array result", "[arrays][arguments]") {
    auto [W, b, x] = gradc::variables(gradc::mat<4, 3>, gradc::vec<4>, gradc::vec<3>);
    const auto k = gradc::compile(sum(tanh(W * x + b)), gradc::wrt(W, b));
    const auto wv = filled<12>(-1, 1, 1);
    const auto bv = filled<4>(-1, 1, 2);
    const auto xv = filled<3>(-1, 1, 3);
    const auto r = k.gradient(wv, bv, xv);

    const auto rs = k.gradient(std::span<const double, 12>(wv), std::span<const double>(bv.data(), 4),
                               std::vector<double>(xv.begin(), xv.end()));
    CHECK(rs.value == r.value);
    CHECK(std::get<0>(rs.gradient) == std::get<0>(r.gradient));

    Eigen::Matrix<double, 4, 3, Eigen::RowMajor> Wr;
    Eigen::Matrix<double, 4, 3> Wc;  // column-major: copied in row order
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 3; ++j) Wr(i, j) = Wc(i, j) = wv[std::size_t(3 * i + j)];
    Eigen::Vector4d be(bv[0], bv[1], bv[2], bv[3]);
    Eigen::Map<const Eigen::Vector3d> xe(xv.data());
    const auto re = k.gradient(Wr, be, xe);
    const auto rc = k.gradient(Wc, be, xe);
    CHECK(re.value == r.value);
    CHECK(rc.value == r.value);
    CHECK(std::get<0>(rc.gradient) == std::get<0>(r.gradient));
    CHECK(std::get<1>(re.gradient) == std::get<1>(r.gradient));
    // A map with strides: every other entry of a longer array.
    std::array<double, 6> spaced{xv[0], 9, xv[1], 9, xv[2], 9};
    Eigen::Map<const Eigen::Vector3d, 0, Eigen::InnerStride<2>> xs(spaced.data());
    CHECK(k.gradient(wv, bv, xs).value == r.value);
}

TEST_CASE("gradients map onto Eigen in place, row-major", "[arrays][arguments]") {
    auto [W, b, x] = gradc::variables(gradc::mat<4, 3>, gradc::vec<4>, gradc::vec<3>);
    const auto k = gradc::compile(sum(tanh(W * x + b)), gradc::wrt(W, b));
    const auto wv = filled<12>(-1, 1, 4);
    const auto bv = filled<4>(-1, 1, 5);
    const auto xv = filled<3>(-1, 1, 6);
    const auto r = k.gradient(wv, bv, xv);
    Eigen::Map<const Eigen::Matrix<double, 4, 3, Eigen::RowMajor>> gW(std::get<0>(r.gradient).data());
    Eigen::Map<const Eigen::Vector4d> gb(std::get<1>(r.gradient).data());
    CHECK(gW.data() == std::get<0>(r.gradient).data());  // a view, not a copy
    // Closed form: d/db_i = 1 − tanh²(u_i), d/dW_ij = (1 − tanh²(u_i))·x_j, u = W x + b.
    Eigen::Map<const Eigen::Matrix<double, 4, 3, Eigen::RowMajor>> We(wv.data());
    Eigen::Map<const Eigen::Vector3d> xe(xv.data());
    for (int i = 0; i < 4; ++i) {
        double u = bv[std::size_t(i)];
        for (int j = 0; j < 3; ++j) u += We(i, j) * xe(j);
        const double s = 1 - std::tanh(u) * std::tanh(u);
        CHECK(gb(i) == Approx(s).epsilon(1e-14));
        for (int j = 0; j < 3; ++j) CHECK(gW(i, j) == Approx(s * xe(j)).epsilon(1e-14));
    }
}

TEST_CASE("a wrong run-time size is a gradc::Error naming the argument", "[arrays][arguments]") {
    auto [W, x] = gradc::variables(gradc::mat<2, 2>, gradc::vec<2>);
    const auto k = gradc::compile(sum(W * x));
    const std::vector<double> three{1, 2, 3};
    const std::array<double, 4> w{1, 2, 3, 4};
    try {
        (void)k.gradient(w, three);
        FAIL("no error");
    } catch (const gradc::Error& e) {
        CHECK(std::string(e.what()) ==
              "gradc kernel gradient: argument 1 has 3 entries, expected 2 (the size of its variable's shape)");
    }
}

TEST_CASE("two calls of gradc::variables give distinct variables", "[arrays][variables]") {
    auto [x1, y1] = gradc::variables<2>();
    auto [x2, y2] = gradc::variables<2>();
    STATIC_REQUIRE(!std::is_same_v<decltype(x1), decltype(x2)>);
    const auto k = gradc::compile(x1 * y1);
    const auto r = k.gradient(3.0, 5.0);
    CHECK(r.gradient == std::array<double, 2>{5.0, 3.0});
    auto [a] = gradc::variables(gradc::vec<2>);
    auto [b] = gradc::variables(gradc::vec<2>);
    STATIC_REQUIRE(!std::is_same_v<decltype(a), decltype(b)>);
}
