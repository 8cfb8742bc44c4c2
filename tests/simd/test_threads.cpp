// Batch calls and map-reduce on several threads (oneTBB): results bitwise identical for 1,
// 2, 3 and 8 threads, and equal to the single-threaded sums; the thread settings.
#include <array>
#include <cstring>
#include <random>
#include <span>
#include <stdexcept>
#include <vector>

#include <catch2/catch.hpp>

#include <gradc/gradc.hpp>
#include <gradc/simd.hpp>

namespace {

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

std::vector<double> normal_points(std::size_t n, unsigned seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> normal(1.5, 2.0);
    std::vector<double> x(n);
    for (auto& v : x) v = normal(rng);
    return x;
}

}  // namespace

TEST_CASE("map-reduce gives bitwise the same sums on 1, 2, 3 and 8 threads", "[simd][threads]") {
    auto [x, mu, sigma] = gradc::variables<3>();
    const auto z = (x - mu) / sigma;
    const auto k = gradc::compile(-0.5 * z * z - log(sigma) + 0.1 * sin(x * mu), gradc::wrt(mu, sigma));
    for (std::size_t n : {std::size_t{1}, std::size_t{1000}, std::size_t{300'007}}) {
        const auto xs = normal_points(n, 17);
        const std::array<std::span<const double>, 1> data{xs};
        const std::array theta{1.4, 2.1};
        const auto one = k.map_reduce(data, theta, gradc::threads{1});
        const auto h1 = k.map_reduce_hessian(data, theta, gradc::threads{1});
        const auto g1 = k.map_reduce_gauss_newton(data, theta, gradc::threads{1});
        for (int t : {2, 3, 8}) {
            INFO("n = " << n << ", threads = " << t);
            const auto r = k.map_reduce(data, theta, gradc::threads{t});
            CHECK(same_bits(r.value, one.value));
            CHECK(same_bits(r.gradient[0], one.gradient[0]));
            CHECK(same_bits(r.gradient[1], one.gradient[1]));
            const auto h = k.map_reduce_hessian(data, theta, gradc::threads{t});
            CHECK(same_bits(h.value, h1.value));
            for (std::size_t i = 0; i < 2; ++i)
                for (std::size_t j = 0; j < 2; ++j) CHECK(same_bits(h.hessian[i][j], h1.hessian[i][j]));
            const auto g = k.map_reduce_gauss_newton(data, theta, gradc::threads{t});
            CHECK(same_bits(g.jtj[0][1], g1.jtj[0][1]));
            CHECK(same_bits(g.jtr[1], g1.jtr[1]));
        }
        // And against a plain sum of the scalar gradients.
        double value = 0, gm = 0;
        for (double v : xs) {
            const auto p = k.gradient(v, theta[0], theta[1]);
            value += p.value;
            gm += p.gradient[0];
        }
        CHECK(one.value == Approx(value).epsilon(1e-12));
        CHECK(one.gradient[0] == Approx(gm).epsilon(1e-10).margin(1e-9));
    }
}

TEST_CASE("batch calls on several threads equal the single-threaded calls", "[simd][threads]") {
    auto [a, b] = gradc::variables<2>();
    const auto k = gradc::compile(exp(a * b) * sin(b) + a / (1.0 + b * b));
    const std::size_t n = 100'003;
    std::vector<double> xa(n), xb(n);
    std::mt19937_64 rng(3);
    std::uniform_real_distribution<double> u(-1, 1);
    for (std::size_t i = 0; i < n; ++i) {
        xa[i] = u(rng);
        xb[i] = u(rng);
    }
    const std::array<std::span<const double>, 2> in{xa, xb};
    std::vector<double> v1(n), v4(n), g1a(n), g1b(n), g4a(n), g4b(n);
    k.gradient_batch(in, std::span<double>(v1), std::array<std::span<double>, 2>{g1a, g1b}, gradc::threads{1});
    k.gradient_batch(in, std::span<double>(v4), std::array<std::span<double>, 2>{g4a, g4b},
                     gradc::threads{4, gradc::simd::default_arch{}});
    CHECK(std::memcmp(v1.data(), v4.data(), n * sizeof(double)) == 0);
    CHECK(std::memcmp(g1b.data(), g4b.data(), n * sizeof(double)) == 0);
    std::vector<std::vector<double>> h1(3, std::vector<double>(n)), h3(3, std::vector<double>(n));
    k.hessian_batch(in, std::span<double>(v1), std::array<std::span<double>, 2>{g1a, g1b},
                    std::array<std::span<double>, 3>{h1[0], h1[1], h1[2]}, gradc::threads{1});
    k.hessian_batch(in, std::span<double>(v4), std::array<std::span<double>, 2>{g4a, g4b},
                    std::array<std::span<double>, 3>{h3[0], h3[1], h3[2]}, gradc::threads{3});
    for (std::size_t t = 0; t < 3; ++t) CHECK(std::memcmp(h1[t].data(), h3[t].data(), n * sizeof(double)) == 0);
}

TEST_CASE("the thread settings", "[simd][threads]") {
    const int before = gradc::get_num_threads();
    CHECK(before >= 1);
    gradc::set_num_threads(3);
    CHECK(gradc::get_num_threads() == 3);
    REQUIRE_THROWS_WITH(gradc::set_num_threads(0), "gradc::set_num_threads: got 0, expected at least 1");
    CHECK(gradc::get_num_threads() == 3);
    REQUIRE_THROWS_WITH(gradc::threads{-2}, "gradc::threads: got -2, expected at least 1");
    REQUIRE_THROWS_AS(gradc::set_num_threads(0), gradc::Error);  // the one type of every bad argument
    REQUIRE_THROWS_AS(gradc::threads{0}, gradc::Error);
    gradc::set_num_threads(before);
}
