// value, gradient, jvp, vjp and jacobian allocate nothing: operator new is replaced by
// a counting one for this test executable.

#include <atomic>
#include <cstdlib>
#include <new>

#include <catch2/catch.hpp>
#include <gradc/gradc.hpp>

namespace {
std::atomic<long> allocations{0};
}

void* operator new(std::size_t n) {
    ++allocations;
    if (void* p = std::malloc(n ? n : 1)) return p;
    throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

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
