// Every unary function of the rule table: value, first and second derivative against
// PyTorch, in float64 and float32, plus the conventions at non-differentiable points.
#include <cmath>
#include <complex>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <boost/hana/for_each.hpp>

#include <gradc/rules.hpp>

#include "support.hpp"

using namespace testing;

namespace {

using Fn = gradc::Tensor (*)(const gradc::Tensor&);

struct UnaryCase {
    const char* name;
    Fn f;
};

/// Every one-operand rule of the rule table with its tensor function; each needs its
/// reference values in reference/reference_data.hpp (reference_io.py's UNARY).
const std::vector<UnaryCase>& unary_cases() {
    static const std::vector<UnaryCase> cases = [] {
        std::vector<UnaryCase> c;
        boost::hana::for_each(gradc::rules::all, [&](auto rule) {
            using R = typename decltype(rule)::type;
            if constexpr (R::arity == 1) c.push_back({R::name.data(), &gradc::rule_tensor_op<R>::apply});
        });
        return c;
    }();
    return cases;
}

}  // namespace

TEST_CASE("unary functions: value, first and second derivative agree with PyTorch", "[autograd][unary]") {
    for (const auto& c : unary_cases()) {
        const std::string n = std::string("unary.") + c.name;
        INFO(c.name);
        auto x = ref_tensor(n + ".x", {5}, gradc::requires_grad());
        auto y = c.f(x);
        CHECK_THAT(values(y), matches(n + ".y", 1e-12));
        auto d1 = gradc::autograd::grad({y.sum()}, {x}, {}, std::nullopt, /*create_graph=*/true)[0];
        CHECK_THAT(values(d1), matches(n + ".d1", 1e-12));
        if (d1.requires_grad()) {
            auto d2 = gradc::autograd::grad({d1.sum()}, {x}, {}, std::nullopt, false, /*allow_unused=*/true)[0];
            CHECK_THAT(values(d2.defined() ? d2 : gradc::zeros({5})), matches(n + ".d2", 1e-10, 1e-12));
        } else {
            CHECK_THAT(expected(n + ".d2"), approx({0, 0, 0, 0, 0}));
        }
    }
}

TEST_CASE("unary functions in float32 use the vectorised kernel and keep the dtype", "[autograd][unary]") {
    for (const auto& c : unary_cases()) {
        const std::string n = std::string("unary.") + c.name;
        INFO(c.name);
        // 37 elements: several SIMD batches and a scalar tail.
        std::vector<double> xs;
        for (int i = 0; i < 37; ++i) xs.push_back(expected(n + ".x")[i % 5]);
        auto x = gradc::from_vector(xs, {37}, gradc::TensorOptions().dtype(gradc::kFloat32).requires_grad(true));
        auto y = c.f(x);
        CHECK(y.dtype() == gradc::kFloat32);
        y.sum().backward();
        CHECK(x.grad().dtype() == gradc::kFloat32);
        std::vector<double> ey, eg;
        for (int i = 0; i < 37; ++i) {
            ey.push_back(expected(n + ".y")[i % 5]);
            eg.push_back(expected(n + ".d1")[i % 5]);
        }
        CHECK_THAT(values(y), approx(ey, 2e-6, 1e-6));
        CHECK_THAT(values(x.grad()), approx(eg, 2e-6, 1e-6));
    }
}

TEST_CASE("derivatives at non-differentiable points follow the Autograd mechanics notes", "[autograd][unary]") {
    auto x = gradc::tensor({0.0}, gradc::requires_grad());
    gradc::relu(x).backward();
    CHECK(x.grad().item<double>() == 0.0);  // relu'(0) = 0
    x.mutable_grad() = gradc::Tensor();
    gradc::abs(x).backward();
    CHECK(x.grad().item<double>() == 0.0);  // abs'(0) = 0
    x.mutable_grad() = gradc::Tensor();
    gradc::sqrt(x).backward();
    CHECK(x.grad().item<double>() == std::numeric_limits<double>::infinity());  // sqrt'(0) = +inf
    // relu gates: an infinite gradient behind the closed gate does not leak as NaN.
    auto z = gradc::tensor({-1.0, 0.0, 2.0}, gradc::requires_grad());
    auto r = gradc::relu(z);
    r.backward(gradc::tensor({std::numeric_limits<double>::infinity(), 1.0, 3.0}));
    CHECK_THAT(values(z.grad()), approx({0, 0, 3}));
}

TEST_CASE("tanh, sigmoid and expm1 backward stay accurate where the result rounds to ±1", "[autograd][unary]") {
    // 1 - y², y(1 - y) and y + 1 gave 0 here; the rules use forms that do not cancel.
    const std::vector<double> xs{-40, -20, -13, -0.3, 0.0, 0.7, 13, 20, 40, 300, -300, 2, 3, 4, 5, 6};
    auto x = gradc::from_vector(xs, {16}, gradc::TensorOptions().requires_grad(true));
    for (const auto& [name, f] : std::vector<std::pair<const char*, Fn>>{
             {"tanh", gradc::tanh}, {"sigmoid", gradc::sigmoid}, {"expm1", gradc::expm1}}) {
        INFO(name);
        x.mutable_grad() = gradc::Tensor();
        f(x).sum().backward();
        const auto g = values(x.grad());
        for (std::size_t i = 0; i < xs.size(); ++i) {
            const long double a = xs[i];
            const long double c = std::cosh(a), e = std::exp(-std::fabs(a));
            const long double exact = name == std::string("tanh")      ? 1 / (c * c)
                                      : name == std::string("sigmoid") ? e / ((1 + e) * (1 + e))
                                                                       : std::exp(a);
            INFO("x = " << xs[i]);
            CHECK(gradc::test::close(g[i], double(exact), 1e-14, 0));
        }
    }
}

TEST_CASE("asinh backward is 1/|a| where a² overflows, and twice differentiable everywhere", "[autograd][unary]") {
    // 1/sqrt(a² + 1) was 0 beyond |a| ≈ 1.3e154; PyTorch 1.13 computes it so and gives 0.
    // The second derivative -a/(a² + 1)^(3/2) must not be NaN at 0 or ±inf, where the
    // rule's scaled form discards a branch (rules/hyperbolic.hpp).
    const double inf = std::numeric_limits<double>::infinity();
    const std::vector<double> xs{-1.7e308, -1e300, -1.5e154, -3, -0.5, 0, 0.5, 1, 2, 1.3e154, 1e200, inf, -inf, 7, 1e-3, -1e10};
    auto x = gradc::from_vector(xs, {16}, gradc::TensorOptions().requires_grad(true));
    auto d1 = gradc::autograd::grad({gradc::asinh(x).sum()}, {x}, {}, std::nullopt, /*create_graph=*/true)[0];
    auto d2 = gradc::autograd::grad({d1.sum()}, {x})[0];
    const auto g = values(d1), h = values(d2);
    for (std::size_t i = 0; i < xs.size(); ++i) {
        const long double a = xs[i];
        const long double s = std::isinf(a) ? 0 : 1 / std::sqrt(a * a + 1);
        INFO("x = " << xs[i] << ": " << g[i] << ", " << h[i]);
        CHECK(gradc::test::close(g[i], double(s), 1e-14, 0));
        CHECK(gradc::test::close(h[i], std::isinf(a) ? 0.0 : double(-a * s * s * s), 1e-13, 1e-300));
    }
    // float32: a² overflows from 1.8e19.
    auto f = gradc::from_vector({1e20, -3e38, inf, 2}, {4}, gradc::TensorOptions().dtype(gradc::kFloat32).requires_grad(true));
    gradc::asinh(f).sum().backward();
    CHECK_THAT(values(f.grad()), approx({1e-20, 1 / 3e38, 0, 1 / std::sqrt(5.0)}, 1e-6, 0));
}

TEST_CASE("complex asinh backward keeps the principal branch where z² overflows", "[autograd][unary]") {
    // The scaled form r/sqrt((z·r)² + r²), r = 1/|z|, is the same principal root:
    // for Re z < 0 the derivative is about -1/z, not 1/z.
    const std::vector<std::complex<double>> zs{{3, 4}, {-1e200, 1e200}, {0.5, 0.2}, {2e160, -1e160}, {-0.3, 2}};
    auto z = gradc::tensor({zs[0], zs[1], zs[2], zs[3], zs[4]}, gradc::requires_grad());
    gradc::asinh(z).backward(gradc::ones_like(z));
    const auto g = values(z.grad());
    for (std::size_t i = 0; i < zs.size(); ++i) {
        const std::complex<long double> w(zs[i].real(), zs[i].imag());
        // The conjugate Wirtinger convention of the "Autograd mechanics" notes: conj(f'(z)).
        const std::complex<long double> d = std::conj(1.0L / std::sqrt(w * w + 1.0L));
        INFO("z = " << zs[i]);
        const double scale = double(std::abs(d));
        CHECK(gradc::test::close(g[2 * i], double(d.real()), 0, 1e-14 * scale));
        CHECK(gradc::test::close(g[2 * i + 1], double(d.imag()), 0, 1e-14 * scale));
    }
}

TEST_CASE("NaN, infinite and huge elements give on SIMD batches what they give alone", "[autograd][unary]") {
    // xsimd converts a multiple of exp's argument to an integer; for NaN, ±inf and values
    // beyond int64 that conversion was undefined behaviour (UndefinedBehaviorSanitizer,
    // which runs this test in the suite's sanitizer stage, reports it). Each element of
    // the long tensor runs on a SIMD batch; alone, on the scalar path.
    const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
    const std::vector<double> specials{nan, inf, -inf, 1e300, -1e300, 1600, -1600, 1400, -1400, 30.5, -30.5, 0.25};
    for (const auto dtype : {gradc::kFloat64, gradc::kFloat32}) {
        for (const auto& c : unary_cases()) {
            INFO(c.name << (dtype == gradc::kFloat32 ? " float32" : " float64"));
            std::vector<double> xs;  // every special value at several lane positions
            for (int i = 0; i < 48; ++i) xs.push_back(specials[(i * 5) % specials.size()]);
            auto x = gradc::from_vector(xs, {48}, gradc::TensorOptions().dtype(dtype).requires_grad(true));
            auto y = c.f(x);
            y.sum().backward();
            const auto ys = values(y), gs = values(x.grad());
            for (std::size_t i = 0; i < xs.size(); ++i) {
                auto xi = gradc::from_vector({xs[i]}, {1}, gradc::TensorOptions().dtype(dtype).requires_grad(true));
                auto yi = c.f(xi);
                yi.sum().backward();
                const double y1 = values(yi)[0], g1 = values(xi.grad())[0];
                INFO("x = " << xs[i] << ": batch " << ys[i] << ", " << gs[i] << "; alone " << y1 << ", " << g1);
                const double tol = dtype == gradc::kFloat32 ? 1e-6 : 1e-14;
                CHECK(std::isnan(ys[i]) == std::isnan(y1));
                if (!std::isnan(y1)) CHECK(gradc::test::close(ys[i], y1, tol, 0));
                CHECK(std::isnan(gs[i]) == std::isnan(g1));
                if (!std::isnan(g1)) CHECK(gradc::test::close(gs[i], g1, tol, 0));
            }
        }
    }
}

TEST_CASE("clamp passes the gradient at its bounds, as PyTorch", "[autograd][unary]") {
    auto x = gradc::tensor({-2.0, -1.0, 0.0, 1.0, 2.0}, gradc::requires_grad());
    auto y = gradc::clamp(x, -1.0, 1.0);
    CHECK_THAT(values(y), approx({-1, -1, 0, 1, 1}));
    y.sum().backward();
    CHECK_THAT(values(x.grad()), matches("clamp.grad"));
    auto m = gradc::tensor({-1.0, 3.0}, gradc::requires_grad());
    gradc::clamp_min(m, 0.0).sum().backward();
    CHECK_THAT(values(m.grad()), approx({0, 1}));
}

TEST_CASE("unary functions reject complex tensors they are not defined for", "[autograd][unary][errors]") {
    auto z = gradc::tensor({std::complex<double>(1, 1)});
    CHECK_THAT(error_of([&] { gradc::relu(z); }), Catch::Matchers::Contains("relu does not support complex tensors"));
    CHECK_NOTHROW(gradc::exp(z));
}
