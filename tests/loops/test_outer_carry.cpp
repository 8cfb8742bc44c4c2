// Loops inside a chained loop's body that read its carry (outer carries,
// include/gradc/loops/body.hpp): each inner loop reads the outer carry as one more
// variable, its adjoint handed back to the outer step.
//  - a matrix-vector step written with sum_over and concat_over reading the carry,
//    against the same step with matvec (values and gradients to rounding);
//  - a chained loop in a chained loop's body whose body reads the outer carry, and a
//    part of it hoisted (depending on the outer carry alone), against the inner loop
//    unrolled by hand, and the gradient against central differences;
//  - three levels: a sum_over in a loop in a loop, reading the outermost carry;
//  - the JVP and the Hessian against the gradient.
// (Variables are taken apart with std::get: clang 14 cannot capture structured
// bindings in the loops' lambdas.)
#include <cmath>
#include <cstddef>
#include <tuple>
#include <vector>

#include <catch2/catch.hpp>

#include <gradc/gradc.hpp>

#include "approx.hpp"

using gradc::dynamic_extent;
using gradc::test::central_difference;

TEST_CASE("outer carry: sum_over and concat_over reading a chained loop's carry", "[loops][outer_carry]") {
    const auto vars = gradc::variables(gradc::mat<dynamic_extent, dynamic_extent>, gradc::vec<dynamic_extent>);
    const auto A = std::get<0>(vars);
    const auto c0 = std::get<1>(vars);
    // c <- c + 0.1 tanh(A c), the product written entry by entry.
    const auto looped = gradc::loop(6, c0, [=](auto c, auto) {
        const auto product = gradc::concat_over(gradc::size(c), [=](auto i) {
            return gradc::sum_over(gradc::size(c), [=](auto j) { return A(i, j) * c[j]; });
        });
        return c + 0.1 * tanh(product);
    });
    const auto direct = gradc::loop(6, c0, [=](auto c, auto) { return c + 0.1 * tanh(A * c); });
    const auto k = gradc::compile(sum(looped * looped));
    const auto reference = gradc::compile(sum(direct * direct));
    for (std::size_t n : {1, 3, 5}) {
        std::vector<double> a(n * n), c(n);
        for (std::size_t e = 0; e < n * n; ++e) a[e] = 0.3 * std::sin(double(e) + 1.0);
        for (std::size_t i = 0; i < n; ++i) c[i] = 1.0 - 0.4 * double(i);
        const auto r = k.gradient(gradc::mat_view(a, n, n), c);
        const auto e = reference.gradient(gradc::mat_view(a, n, n), c);
        CHECK(r.value == Approx(e.value).epsilon(1e-14));
        for (std::size_t i = 0; i < n * n; ++i)
            CHECK(std::get<0>(r.gradient).data[i] == Approx(std::get<0>(e.gradient).data[i]).margin(1e-15).epsilon(1e-13));
        for (std::size_t i = 0; i < n; ++i)
            CHECK(std::get<1>(r.gradient)[i] == Approx(std::get<1>(e.gradient)[i]).epsilon(1e-13));
    }
}

TEST_CASE("outer carry: a chained loop inside a chained loop's body", "[loops][outer_carry]") {
    const auto vars = gradc::variables(gradc::scalar, gradc::vec<dynamic_extent>);
    const auto theta = std::get<0>(vars);
    const auto y0 = std::get<1>(vars);
    // Outer: y <- inner(y), where the inner loop refines d <- d − 0.5 (d − sin(θ y)) + 0.1 y ⊙ d
    // three times from d = y: it reads the outer carry y in its body, and sin(θ y)
    // depends on the outer carry alone (hoisted out of the inner loop).
    const auto looped = gradc::loop(4, y0, [=](auto y, auto) {
        return gradc::loop(3, y, [=](auto d, auto) { return d - 0.5 * (d - sin(theta * y)) + 0.1 * y * d; });
    });
    const auto inner_unrolled = [=](const auto& y) {
        const auto step = [=](const auto& d) { return d - 0.5 * (d - sin(theta * y)) + 0.1 * y * d; };
        return step(step(step(y)));
    };
    const auto unrolled = gradc::loop(4, y0, [=](auto y, auto) { return inner_unrolled(y); });
    const auto k = gradc::compile(sum(looped * looped));
    const auto reference = gradc::compile(sum(unrolled * unrolled));
    const std::vector<double> y{0.3, -0.7, 1.2};
    const double th = 0.8;
    const auto r = k.gradient(th, y), e = reference.gradient(th, y);
    CHECK(r.value == Approx(e.value).epsilon(1e-14));
    CHECK(std::get<0>(r.gradient) == Approx(std::get<0>(e.gradient)).epsilon(1e-13));
    for (std::size_t i = 0; i < 3; ++i) CHECK(std::get<1>(r.gradient)[i] == Approx(std::get<1>(e.gradient)[i]).epsilon(1e-13));
    CHECK(std::get<0>(r.gradient) == Approx(central_difference([&](double x) { return k(x, y); }, th)).epsilon(1e-8));
    for (std::size_t i = 0; i < 3; ++i) {
        const auto along = [&](double v) {
            auto w = y;
            w[i] = v;
            return k(th, w);
        };
        CHECK(std::get<1>(r.gradient)[i] == Approx(central_difference(along, y[i])).epsilon(1e-8));
    }
    // The JVP along (1, v) is the gradient's dot product with it; the Hessian's first
    // column against differences of the gradient.
    const std::vector<double> v{0.5, -1.0, 0.25};
    double expected = std::get<0>(r.gradient);
    for (std::size_t i = 0; i < 3; ++i) expected += v[i] * std::get<1>(r.gradient)[i];
    CHECK(k.jvp(std::tie(th, y), std::tuple{1.0, v}).tangent == Approx(expected).epsilon(1e-12));
    const auto H = k.hessian(th, y);
    const auto up = k.gradient(th + 1e-5, y), down = k.gradient(th - 1e-5, y);
    CHECK(H.hessian(0, 0) == Approx((std::get<0>(up.gradient) - std::get<0>(down.gradient)) / 2e-5).epsilon(1e-6));
    for (std::size_t i = 0; i < 3; ++i)
        CHECK(H.hessian(1 + i, 0) ==
              Approx((std::get<1>(up.gradient)[i] - std::get<1>(down.gradient)[i]) / 2e-5).epsilon(1e-6));
}

TEST_CASE("outer carry: three levels, the innermost reading the outermost carry", "[loops][outer_carry]") {
    const auto vars = gradc::variables(gradc::scalar, gradc::vec<dynamic_extent>);
    const auto a = std::get<0>(vars);
    const auto x0 = std::get<1>(vars);
    // x <- loop(2, x, d -> d + a Σ_j x_j d / n): the middle loop's body holds a sum_over
    // reading the outer carry x.
    const auto looped = gradc::loop(3, x0, [=](auto x, auto) {
        return gradc::loop(2, x, [=](auto d, auto) {
            return d + a * gradc::sum_over(gradc::size(x), [=](auto j) { return x[j]; }) * d * 0.25;
        });
    });
    const auto direct = gradc::loop(3, x0, [=](auto x, auto) {
        return gradc::loop(2, x, [=](auto d, auto) { return d + a * sum(x) * d * 0.25; });
    });
    const auto k = gradc::compile(sum(looped));
    const auto reference = gradc::compile(sum(direct));
    const std::vector<double> x{0.4, -0.1, 0.3, 0.2};
    const auto r = k.gradient(0.7, x), e = reference.gradient(0.7, x);
    CHECK(r.value == Approx(e.value).epsilon(1e-14));
    CHECK(std::get<0>(r.gradient) == Approx(std::get<0>(e.gradient)).epsilon(1e-13));
    for (std::size_t i = 0; i < 4; ++i) CHECK(std::get<1>(r.gradient)[i] == Approx(std::get<1>(e.gradient)[i]).epsilon(1e-13));
}
