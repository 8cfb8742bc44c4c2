// A kernel called on the caller's own dual numbers (forward mode over a compiled kernel,
// as a nested derivative does): every call carries the tangents of every argument,
// including variables outside wrt(...). f(x, w) = x·(1 − w) + sin(x·w), differentiated
// with respect to x only, at (x, w) = (3, 0.5), with the tangent on w; each result's
// tangent is d/dw of that result, in closed form.
#include <array>
#include <cmath>

#include <catch2/catch.hpp>

#include <gradc/gradc.hpp>

namespace {

using D = gradc::dual<double, 1>;

constexpr double x0 = 3.0, w0 = 0.5;

// f, ∂f/∂x, ∂²f/∂x² and their derivatives by w.
double f() { return x0 * (1 - w0) + std::sin(x0 * w0); }
double df_dw() { return -x0 + x0 * std::cos(x0 * w0); }
double fx() { return (1 - w0) + w0 * std::cos(x0 * w0); }
double dfx_dw() { return -1 + std::cos(x0 * w0) - x0 * w0 * std::sin(x0 * w0); }
double fxx() { return -w0 * w0 * std::sin(x0 * w0); }
double dfxx_dw() { return -2 * w0 * std::sin(x0 * w0) - w0 * w0 * x0 * std::cos(x0 * w0); }

std::array<D, 2> point() {
    D x(x0), w(w0);
    w.tangent[0] = 1;
    return {x, w};
}

auto kernel_wrt_x() {
    auto [x, w] = gradc::variables<2>();
    return gradc::compile(x * (1.0 - w) + sin(x * w), gradc::wrt(x));
}

}  // namespace

TEST_CASE("first-order calls on dual numbers carry the tangent of a variable outside wrt") {
    const auto k = kernel_wrt_x();
    const auto g = k.gradient(point());
    CHECK(g.value.value == Approx(f()));
    CHECK(g.value.tangent[0] == Approx(df_dw()));
    CHECK(g.gradient[0].value == Approx(fx()));
    CHECK(g.gradient[0].tangent[0] == Approx(dfx_dw()));

    const auto t = k.jvp(point(), std::array{D(1.0)});
    CHECK(t.value.tangent[0] == Approx(df_dw()));
    CHECK(t.tangent.value == Approx(fx()));
    CHECK(t.tangent.tangent[0] == Approx(dfx_dw()));

    const auto v = k.vjp(point(), std::array{D(2.0)});
    CHECK(v.value[0].tangent[0] == Approx(df_dw()));
    CHECK(v.gradient[0].tangent[0] == Approx(2 * dfx_dw()));

    const auto j = k.jacobian(point());
    CHECK(j.jacobian[0][0].value == Approx(fx()));
    CHECK(j.jacobian[0][0].tangent[0] == Approx(dfx_dw()));
}

TEST_CASE("second-order calls on dual numbers carry the tangent of a variable outside wrt") {
    const auto k = kernel_wrt_x();
    const auto h = k.hessian(point());
    CHECK(h.value.tangent[0] == Approx(df_dw()));
    CHECK(h.gradient[0].tangent[0] == Approx(dfx_dw()));
    CHECK(h.hessian[0][0].value == Approx(fxx()));
    CHECK(h.hessian[0][0].tangent[0] == Approx(dfxx_dw()));

    const auto hv = k.hvp(point(), std::array{D(1.0)});
    CHECK(hv.hvp[0].value == Approx(fxx()));
    CHECK(hv.hvp[0].tangent[0] == Approx(dfxx_dw()));

    const auto d = k.hessian_diagonal(point());
    CHECK(d.diagonal[0].value == Approx(fxx()));
    CHECK(d.diagonal[0].tangent[0] == Approx(dfxx_dw()));
}

TEST_CASE("calls on dual numbers agree with the kernel of every variable") {
    auto [x, w] = gradc::variables<2>();
    const auto every = gradc::compile(x * (1.0 - w) + sin(x * w));
    const auto only_x = kernel_wrt_x();
    const auto all = every.gradient(point());
    const auto some = only_x.gradient(point());
    CHECK(some.value.tangent[0] == Approx(all.value.tangent[0]));
    CHECK(some.gradient[0].tangent[0] == Approx(all.gradient[0].tangent[0]));
}
