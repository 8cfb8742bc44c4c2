// value, gradient, jvp, vjp and jacobian allocate nothing, nor do the batch calls with
// broadcast arguments on one thread: operator new is replaced by a counting one for this
// test executable.

#include <array>
#include <atomic>
#include <cstdlib>
#include <new>
#include <span>
#include <tuple>

#include <catch2/catch.hpp>
#include <gradc/gradc.hpp>
#include <gradc/simd.hpp>

#include "counting_new.hpp"

using counting_new::allocations;

TEST_CASE("kernel programs allocate nothing", "[lower][allocation]") {
    auto [x1, x2, x3] = gradc::variables<3>();
    auto k = gradc::compile(sin(x1) + x1 * x2 + where(x3 > 0, sqrt(x3), -x3) * 2.5);
    auto m = gradc::compile(exp(x1) * x2, x2 * x3, log1p(x3 * x3));
    double sink = 0;
    const long before = allocations.load();
    for (int i = 0; i < 100; ++i) {
        const double a = 0.01 * i;
        sink += k(a, 0.5, 1.0);
        sink += k.gradient(a, 0.5, 1.0).gradient[0];
        sink += k.jvp(std::array{a, 0.5, 1.0}, std::array{1.0, 0.0, 0.0}).tangent;
        sink += m.vjp(std::array{a, 0.5, 1.0}, std::array{1.0, 1.0, 1.0}).gradient[1];
        sink += m.jacobian(a, 0.5, 1.0).jacobian[2][2];
    }
    const long during = allocations.load() - before;
    CHECK(during == 0);
    CHECK(sink != 0);
}

TEST_CASE("batch calls with broadcast arguments allocate nothing", "[lower][allocation]") {
    auto [x1, x2, x3] = gradc::variables<3>();
    const auto k = gradc::compile(sin(x1) + x1 * x2 + exp(x3 * x1));
    constexpr std::size_t n = 37;  // full batches and a tail; buffers on the stack
    std::array<double, n> a, c, v{}, g1{}, g2{}, g3{}, h1{}, h2{}, h3{}, h4{}, h5{}, h6{};
    a.fill(0.25);
    c.fill(-0.5);
    const std::array<std::span<double>, 3> grad{g1, g2, g3};
    const std::array<std::span<double>, 6> hess{h1, h2, h3, h4, h5, h6};
    const double theta = 1.5;
    const long before = allocations.load();
    for (int i = 0; i < 10; ++i) {
        const auto in = std::tuple{std::span<const double>(a), gradc::broadcast(theta), std::span<const double>(c)};
        const auto dir = std::tuple{gradc::broadcast(1.0), std::span<const double>(c), gradc::broadcast(0.0)};
        k.value_batch(in, std::span<double>(v), gradc::threads{1});
        k.gradient_batch(in, std::span<double>(v), grad, gradc::threads{1});
        k.jvp_batch(in, dir, std::span<double>(v), std::span<double>(g1), gradc::threads{1});
        k.vjp_batch(in, std::tuple{gradc::broadcast(2.0)}, grad, gradc::threads{1});
        k.hessian_batch(in, std::span<double>(v), grad, hess, gradc::threads{1});
        k.hvp_batch(in, dir, std::span<double>(v), std::array<std::span<double>, 3>{h1, h2, h3}, grad,
                    gradc::threads{1});
    }
    const long during = allocations.load() - before;
    CHECK(during == 0);
    CHECK(v[0] != 0);
}
