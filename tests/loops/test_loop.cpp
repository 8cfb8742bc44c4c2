// Loops whose steps chain, gradc::loop(n, init, f) (include/gradc/loops/loop.hpp):
//  - closed forms: the linear recurrence c <- a c + b, and RK4 on y' = -theta y, whose
//    discrete solution is y0 g(theta h)^n exactly; value, gradient, JVP, Hessian;
//  - the loop against the same steps unrolled (bit for bit) and against the dynamic
//    mode running a C++ loop over tensors (GradBench's ODE);
//  - edges: zero trips, one step, a body that returns its carry or ignores it, the
//    counter in arithmetic, a value used before, inside and after the loop, a matrix
//    carry, a sum_over inside the body;
//  - a kernel of fixed extents: batch calls and map-reduce against one-point calls;
//  - errors (a negative count, a body whose extents differ from the carry's when the
//    kernel runs) and calls from several threads at once.
// (Variables are taken apart with std::get: clang 14 cannot capture structured
// bindings in the loops' lambdas.)
#include <array>
#include <cmath>
#include <cstddef>
#include <span>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <catch2/catch.hpp>

#include <gradc/autograd.hpp>
#include <gradc/gradc.hpp>

#include "error_message.hpp"

using gradc::dynamic_extent;
using sample::error_of;

namespace {

/// Central differences of f at x, step h.
template <class F>
double central(F f, double x, double h = 1e-6) {
    return (f(x + h) - f(x - h)) / (2 * h);
}

/// One RK4 step of y' = -theta y, as an expression of y.
template <class Theta, class Y>
auto decay_step(const Theta& theta, const Y& y, double h) {
    const auto f = [=](const auto& v) { return -theta * v; };
    const auto k1 = f(y);
    const auto k2 = f(y + (h / 2) * k1);
    const auto k3 = f(y + (h / 2) * k2);
    const auto k4 = f(y + h * k3);
    return y + (h / 6) * (k1 + 2.0 * k2 + 2.0 * k3 + k4);
}

}  // namespace

TEST_CASE("loop: the linear recurrence against its closed form", "[loops][loop]") {
    const auto vars = gradc::variables(gradc::scalar, gradc::scalar, gradc::scalar);
    const auto a = std::get<0>(vars);
    const auto b = std::get<1>(vars);
    const auto c0 = std::get<2>(vars);
    for (int n : {1, 2, 7, 40}) {
        const auto k = gradc::compile(gradc::loop(n, c0, [=](auto c, auto) { return a * c + b; }));
        const double av = 0.93, bv = 0.3, cv = 1.5, an = std::pow(av, n);
        const double expected = an * cv + bv * (1 - an) / (1 - av);
        const auto r = k.gradient(av, bv, cv);
        CHECK(r.value == Approx(expected).epsilon(1e-13));
        const auto& [ga, gb, gc] = r.gradient;
        CHECK(gc == Approx(an).epsilon(1e-13));
        CHECK(gb == Approx((1 - an) / (1 - av)).epsilon(1e-13));
        // d/da of a^n c0 + b (1 - a^n) / (1 - a)
        const double dan = n * std::pow(av, n - 1);
        CHECK(ga == Approx(dan * cv + bv * (-dan * (1 - av) + (1 - an)) / ((1 - av) * (1 - av))).epsilon(1e-12));
    }
}

TEST_CASE("loop: RK4 on y' = -theta y, a vector state of run-time length", "[loops][loop]") {
    const auto vars = gradc::variables(gradc::scalar, gradc::vec<dynamic_extent>);
    const auto theta = std::get<0>(vars);
    const auto y0 = std::get<1>(vars);
    const int n = 50;
    const double h = 0.02;
    const auto yn = gradc::loop(n, y0, [=](auto y, auto) { return decay_step(theta, y, h); });
    const auto k = gradc::compile(sum(yn * yn));
    const double th = 1.3, z = th * h;
    const double g = 1 - z + z * z / 2 - z * z * z / 6 + z * z * z * z / 24;
    const double dg = -1 + z - z * z / 2 + z * z * z / 6;  // g'(z)
    const double gn = std::pow(g, n);
    for (const std::vector<double>& y : {std::vector<double>{1.0, -2.0, 0.5}, std::vector<double>{1, 2, 3, 4, 5},
                                         std::vector<double>{0.25}}) {
        double s2 = 0;
        for (double v : y) s2 += v * v;
        const auto r = k.gradient(th, y);
        CHECK(r.value == Approx(gn * gn * s2).epsilon(1e-13));
        CHECK(std::get<0>(r.gradient) == Approx(2.0 * n * std::pow(g, 2 * n - 1) * dg * h * s2).epsilon(1e-12));
        const auto& gy = std::get<1>(r.gradient);
        REQUIRE(gy.size() == y.size());
        for (std::size_t i = 0; i < y.size(); ++i) CHECK(gy[i] == Approx(2 * gn * gn * y[i]).epsilon(1e-13));

        // The JVP along (1, v) is the gradient's dot product with it.
        std::vector<double> v(y.size());
        double expected = std::get<0>(r.gradient);
        for (std::size_t i = 0; i < y.size(); ++i) {
            v[i] = 0.5 - 0.25 * double(i);
            expected += v[i] * gy[i];
        }
        CHECK(k.jvp(std::tie(th, y), std::tuple{1.0, v}).tangent == Approx(expected).epsilon(1e-12));

        // The Hessian's first column against differences of the gradient.
        const auto H = k.hessian(th, y);
        const auto up = k.gradient(th + 1e-5, y), down = k.gradient(th - 1e-5, y);
        CHECK(H.hessian(0, 0) == Approx((std::get<0>(up.gradient) - std::get<0>(down.gradient)) / 2e-5).epsilon(1e-6));
        for (std::size_t i = 0; i < y.size(); ++i) {
            CHECK(H.hessian(1 + i, 0) ==
                  Approx((std::get<1>(up.gradient)[i] - std::get<1>(down.gradient)[i]) / 2e-5).epsilon(1e-6));
            CHECK(H.hessian(1 + i, 0) == H.hessian(0, 1 + i));
        }
    }
}

TEST_CASE("loop: equal to the same steps unrolled, bit for bit", "[loops][loop]") {
    const auto vars = gradc::variables(gradc::scalar, gradc::vec<4>);
    const auto theta = std::get<0>(vars);
    const auto y0 = std::get<1>(vars);
    // A step without literals: an unrolled copy with literals would keep every use of the
    // previous step apart (docs/static.md, "Indices"), and its size would grow as 5ⁿ.
    const auto step = [=](const auto& y) { return y * theta + sin(y) * y; };
    const auto looped = gradc::compile(sum(sin(gradc::loop(3, y0, [=](auto y, auto) { return step(y); }))));
    const auto unrolled = gradc::compile(sum(sin(step(step(step(y0))))));
    const std::array<double, 4> y{0.3, -1.1, 2.0, 0.7};
    const double theta_value = 0.8;
    const auto a = looped.gradient(theta_value, y), b = unrolled.gradient(theta_value, y);
    CHECK(a.value == b.value);
    CHECK(std::get<0>(a.gradient) == std::get<0>(b.gradient));
    CHECK(std::get<1>(a.gradient) == std::get<1>(b.gradient));
    const auto ta = looped.jvp(std::tie(theta_value, y), std::tuple{0.5, y});
    const auto tb = unrolled.jvp(std::tie(theta_value, y), std::tuple{0.5, y});
    CHECK(ta.tangent == tb.tangent);
}

TEST_CASE("loop: GradBench's ODE against the dynamic mode's loop over tensors", "[loops][loop]") {
    // Without literals in the body (the step sizes are variables, the parts fixed), so that
    // equal subexpressions merge: with literals each RK4 stage is kept apart per use, and
    // every hoisted part takes all the body's literals as operands (a graph of 1,300 nodes,
    // which clang 14 refuses at its fold-expression depth; docs/static.md, "Loops whose
    // steps chain"). bench/gradbench/ode.cpp runs the literal form at run-time n.
    const auto vars = gradc::variables(gradc::vec<7>, gradc::scalar, gradc::scalar, gradc::scalar);
    const auto x = std::get<0>(vars);
    const auto half_h = std::get<1>(vars);
    const auto h = std::get<2>(vars);
    const auto sixth_h = std::get<3>(vars);
    const std::size_t n = 7, steps = 5;
    const double hv = 2.0 / double(steps);
    // f(x, y) = (x0, x1 y0, x2 y1, ...)
    const auto f = [=](const auto& y) {
        return concat(x[gradc::index<0>], gradc::segment<1, 6>(x) * gradc::segment<0, 6>(y));
    };
    const auto state = gradc::loop(steps, x - x, [=](auto y, auto) {
        const auto k1 = f(y);
        const auto k2 = f(y + half_h * k1);
        const auto k3 = f(y + half_h * k2);
        const auto k4 = f(y + h * k3);
        return y + sixth_h * (k1 + k2 + k2 + k3 + k3 + k4);
    });
    const auto k = gradc::compile(state[gradc::index<6>], gradc::wrt(x));
    std::array<double, 7> xv{};
    for (std::size_t i = 0; i < n; ++i) xv[i] = 0.3 + 0.1 * double(i);
    const auto r = k.gradient(xv, hv / 2, hv, hv / 6);

    const auto options = gradc::TensorOptions().dtype(gradc::kFloat64);
    gradc::Tensor xt =
        gradc::from_vector(std::vector<double>(xv.begin(), xv.end()), {std::int64_t(n)}, options).requires_grad_(true);
    const auto derivative = [&](const gradc::Tensor& y) {
        return gradc::cat({xt.narrow(0, 0, 1), xt.narrow(0, 1, n - 1) * y.narrow(0, 0, n - 1)}, 0);
    };
    gradc::Tensor y = gradc::zeros_like(xt);
    for (std::size_t s = 0; s < steps; ++s) {
        const auto k1 = derivative(y);
        const auto k2 = derivative(y + (hv / 2) * k1);
        const auto k3 = derivative(y + (hv / 2) * k2);
        const auto k4 = derivative(y + hv * k3);
        y = y + (hv / 6) * (k1 + k2 + k2 + k3 + k3 + k4);
    }
    const gradc::Tensor last = y.select(0, std::int64_t(n - 1));
    const gradc::Tensor g = gradc::autograd::grad({last}, {xt})[0];
    CHECK(r.value == Approx(last.item<double>()).epsilon(1e-14));
    for (std::size_t i = 0; i < n; ++i)
        CHECK(std::get<0>(r.gradient)[i] == Approx(g[std::int64_t(i)].item<double>()).epsilon(1e-11));
}

TEST_CASE("loop: zero trips, the carry returned or ignored, the counter, values around the loop", "[loops][loop]") {
    const auto vars = gradc::variables(gradc::scalar, gradc::vec<dynamic_extent>);
    const auto a = std::get<0>(vars);
    const auto v = std::get<1>(vars);
    const std::vector<double> x{1, 2};
    // n = 0: the init, and the identity as its derivative.
    const auto none = gradc::compile(sum(gradc::loop(0, v, [=](auto c, auto) { return a * c; })));
    const auto r0 = none.gradient(2.0, x);
    CHECK(r0.value == 3.0);
    CHECK(std::get<0>(r0.gradient) == 0.0);
    CHECK(std::get<1>(r0.gradient) == std::vector<double>{1, 1});
    // One step.
    const auto one = gradc::compile(sum(gradc::loop(1, v, [=](auto c, auto) { return a * c; })));
    CHECK(one.gradient(2.0, x).value == 6.0);
    CHECK(std::get<0>(one.gradient(2.0, x).gradient) == 3.0);
    // A body that returns its carry.
    const auto same = gradc::compile(sum(gradc::loop(3, v, [=](auto c, auto) { return c; })) * a);
    const auto ri = same.gradient(2.0, x);
    CHECK(ri.value == 6.0);
    CHECK(std::get<1>(ri.gradient) == std::vector<double>{2, 2});
    // A body that ignores its carry: the last step's value.
    const auto last = gradc::compile(sum(gradc::loop(4, v, [=](auto, auto i) { return a * v * i; })));
    const auto rg = last.gradient(2.0, x);
    CHECK(rg.value == 18.0);
    CHECK(std::get<0>(rg.gradient) == 9.0);
    CHECK(std::get<1>(rg.gradient) == std::vector<double>{6, 6});
    // The counter indexes and takes part in arithmetic; the count from an extent.
    // c0 = a, c1 = c0 v0 + 0, c2 = c1 v1 + 1.
    const auto counted = gradc::compile(gradc::loop(gradc::size(v), a, [=](auto c, auto i) { return c * v[i] + i; }));
    CHECK(counted(3.0, x) == 7.0);
    const auto rc = counted.gradient(3.0, x);
    CHECK(std::get<0>(rc.gradient) == 2.0);
    CHECK(std::get<1>(rc.gradient) == std::vector<double>{6, 3});
    CHECK(counted(3.0, std::vector<double>{}) == 3.0);
    // A value made before the loop, used inside it and after it: both paths reach the gradient.
    const auto w = exp(a);
    const auto around = gradc::compile(gradc::loop(3, a, [=](auto c, auto) { return c * w; }) + w);
    for (double av : {0.4, -1.2}) {
        const auto rb = around.gradient(av, x);
        CHECK(rb.value == Approx(av * std::exp(3 * av) + std::exp(av)));
        CHECK(std::get<0>(rb.gradient) == Approx(std::exp(3 * av) * (1 + 3 * av) + std::exp(av)));
    }
}

TEST_CASE("loop: a matrix carry, a sum_over inside the body", "[loops][loop]") {
    const auto vars = gradc::variables(gradc::mat<2, 2>, gradc::mat<2, 2>);
    const auto A = std::get<0>(vars);
    const auto B = std::get<1>(vars);
    // B A³ / tr(A)³: the trace, a sum_over, depends on neither counter nor carry (hoisted).
    const auto trace = gradc::sum_over(2, [=](auto j) { return A(j, j); });
    const auto k = gradc::compile(sum(gradc::loop(3, B, [=](auto c, auto) { return matmul(c, A) / trace; })));
    const std::array<double, 4> a{0.5, 0.1, -0.2, 0.9}, b{1, 2, 3, 4};
    const auto product = [](const std::array<double, 4>& p, const std::array<double, 4>& q) {
        return std::array<double, 4>{p[0] * q[0] + p[1] * q[2], p[0] * q[1] + p[1] * q[3], p[2] * q[0] + p[3] * q[2],
                                     p[2] * q[1] + p[3] * q[3]};
    };
    const auto value = [&](const std::array<double, 4>& av) {
        const auto r = product(product(product(b, av), av), av);
        return (r[0] + r[1] + r[2] + r[3]) / std::pow(av[0] + av[3], 3);
    };
    CHECK(k(a, b) == Approx(value(a)).epsilon(1e-14));
    const auto g = k.gradient(a, b);
    for (std::size_t i = 0; i < 4; ++i) {
        const auto along = [&](double t) {
            auto p = a;
            p[i] = t;
            return value(p);
        };
        CHECK(std::get<0>(g.gradient)[i] == Approx(central(along, a[i])).epsilon(1e-8));
    }
}

TEST_CASE("loop: in a kernel of fixed extents, batch calls and map-reduce", "[loops][loop]") {
    const auto vars = gradc::variables(gradc::scalar, gradc::scalar);
    const auto th = std::get<0>(vars);
    const auto x = std::get<1>(vars);
    const auto y = gradc::loop(20, x, [=](auto c, auto) { return c + 0.05 * sin(th * c); });
    const auto k = gradc::compile(y * y, gradc::wrt(th, x));
    constexpr std::size_t points = 13;  // one full batch and a partial one, at any width
    std::vector<double> ths(points), xs(points), values(points), g0(points), g1(points);
    for (std::size_t i = 0; i < points; ++i) {
        ths[i] = 0.5 + 0.1 * double(i);
        xs[i] = 1.0 - 0.05 * double(i);
    }
    k.gradient_batch(std::array{std::span<const double>(ths), std::span<const double>(xs)}, std::span<double>(values),
                     std::array{std::span<double>(g0), std::span<double>(g1)});
    for (std::size_t i = 0; i < points; ++i) {
        const auto r = k.gradient(ths[i], xs[i]);
        CHECK(values[i] == Approx(r.value).epsilon(1e-14));
        CHECK(g0[i] == Approx(std::get<0>(r.gradient)).epsilon(1e-14));
        CHECK(g1[i] == Approx(std::get<1>(r.gradient)).epsilon(1e-14));
    }
    const auto theta_only = gradc::compile(y * y, gradc::wrt(th));
    const auto m = theta_only.map_reduce(std::array{std::span<const double>(xs)}, 0.7);
    double value = 0, gradient = 0;
    for (std::size_t i = 0; i < points; ++i) {
        const auto r = theta_only.gradient(0.7, xs[i]);
        value += r.value;
        gradient += std::get<0>(r.gradient);
    }
    CHECK(m.value == Approx(value).epsilon(1e-13));
    CHECK(std::get<0>(m.gradient) == Approx(gradient).epsilon(1e-13));
}

TEST_CASE("loop: a bad count and a body of other extents throw gradc::Error", "[loops][loop]") {
    const auto vars = gradc::variables(gradc::vec<dynamic_extent>);
    const auto v = std::get<0>(vars);
    CHECK(error_of([&] { (void)gradc::loop(-2, v, [=](auto c, auto) { return c; }); }) ==
          "gradc::loop(n, init, f): got n = -2, expected n >= 0");
    // The body's result has 2 entries whatever the carry's length.
    const auto k = gradc::compile(sum(gradc::loop(3, v, [=](auto c, auto) { return gradc::segment(c, 0, 2); })));
    CHECK(k(std::vector<double>{1, 2}) == 3.0);
    CHECK(error_of([&] { (void)k(std::vector<double>{1, 2, 3}); }) ==
          "gradc kernel value: loop got a scalar and a scalar and a vector of 3 and a scalar; their extents do "
          "not fit the operation (docs/static.md, \"Extents known at run time\", lists what each operation needs)");
}

TEST_CASE("loop: one kernel called from several threads at different sizes", "[loops][loop]") {
    const auto vars = gradc::variables(gradc::scalar, gradc::vec<dynamic_extent>);
    const auto theta = std::get<0>(vars);
    const auto y0 = std::get<1>(vars);
    const auto k = gradc::compile(sum(gradc::loop(30, y0, [=](auto y, auto) { return decay_step(theta, y, 0.05); })));
    const auto serial = [&](std::size_t n) {
        return k.gradient(0.9, std::vector<double>(n, 1.5));
    };
    std::vector<decltype(serial(1))> expected;
    for (std::size_t n : {3, 17}) expected.push_back(serial(n));
    std::vector<decltype(serial(1))> got(2);
    std::thread first([&] {
        for (int r = 0; r < 50; ++r) got[0] = serial(3);
    });
    std::thread second([&] {
        for (int r = 0; r < 50; ++r) got[1] = serial(17);
    });
    first.join();
    second.join();
    for (std::size_t i = 0; i < 2; ++i) {
        CHECK(got[i].value == expected[i].value);
        CHECK(std::get<0>(got[i].gradient) == std::get<0>(expected[i].gradient));
        CHECK(std::get<1>(got[i].gradient) == std::get<1>(expected[i].gradient));
    }
}
