// Binary functions of the rule table with broadcasting and scalar operands.
#include <cmath>
#include <limits>
#include <vector>

#include "support.hpp"

using namespace testing;
using Catch::Matchers::Contains;

namespace {
using Fn = gradc::Tensor (*)(const gradc::Tensor&, const gradc::Tensor&);
gradc::Tensor add2(const gradc::Tensor& a, const gradc::Tensor& b) { return a + b; }
gradc::Tensor sub2(const gradc::Tensor& a, const gradc::Tensor& b) { return a - b; }
gradc::Tensor pow2(const gradc::Tensor& a, const gradc::Tensor& b) { return gradc::pow(a, b); }
}  // namespace

TEST_CASE("binary functions broadcast and sum gradients back to each input's shape", "[autograd][binary]") {
    const std::pair<const char*, Fn> cases[] = {
        {"add", add2}, {"sub", sub2}, {"mul", gradc::mul}, {"div", gradc::div}, {"pow", pow2},
        {"atan2", gradc::atan2}, {"hypot", gradc::hypot}, {"maximum", gradc::maximum}, {"minimum", gradc::minimum},
    };
    for (const auto& [name, f] : cases) {
        INFO(name);
        const std::string n = std::string("binary.") + name;
        auto a = ref_tensor("binary.a", {2, 3}, gradc::requires_grad());
        auto b = ref_tensor("binary.b", {3}, gradc::requires_grad());
        auto y = f(a, b);
        CHECK(y.sizes() == gradc::Shape{2, 3});
        CHECK_THAT(values(y), matches(n + ".y", 1e-12));
        y.backward(ref_tensor("binary.w", {2, 3}));
        CHECK(a.grad().sizes() == gradc::Shape{2, 3});
        CHECK(b.grad().sizes() == gradc::Shape{3});
        CHECK_THAT(values(a.grad()), matches(n + ".a.grad", 1e-12));
        CHECK_THAT(values(b.grad()), matches(n + ".b.grad", 1e-12));
    }
}

TEST_CASE("maximum and minimum split the gradient at ties", "[autograd][binary]") {
    auto a = gradc::tensor({1.0, 2.0, 3.0}, gradc::requires_grad());
    auto b = gradc::tensor({1.0, 0.0, 3.0}, gradc::requires_grad());
    gradc::maximum(a, b).sum().backward();
    CHECK_THAT(values(a.grad()), matches("ties.maximum.a.grad"));
    CHECK_THAT(values(b.grad()), matches("ties.maximum.b.grad"));
    CHECK_THAT(values(a.grad()), approx({0.5, 1, 0.5}));
}

TEST_CASE("scalars on either side keep the tensor's dtype", "[autograd][binary]") {
    auto x = gradc::tensor({1.0, 2.0}, gradc::TensorOptions().dtype(gradc::kFloat32).requires_grad(true));
    auto y = 2.0 * x + x / 4.0 - 1.0 + (3.0 - x) * x / (1.0 + x);
    CHECK(y.dtype() == gradc::kFloat32);
    y.sum().backward();
    // d/dx [2x + x/4 - 1 + (3x - x²)/(1 + x)] = 2.25 + (3 - 2x - x²)/(1 + x)²
    CHECK_THAT(values(x.grad()), approx({2.25 + 0.0 / 4.0, 2.25 + (3.0 - 4.0 - 4.0) / 9.0}, 1e-6));
    auto d = gradc::tensor({1.0}) + gradc::tensor({1.0}, gradc::dtype(gradc::kFloat32));
    CHECK(d.dtype() == gradc::kFloat64);
    auto c = gradc::tensor({1.0}, gradc::dtype(gradc::kFloat32)) * gradc::tensor({std::complex<double>(0, 1)}, gradc::dtype(gradc::kComplex64));
    CHECK(c.dtype() == gradc::kComplex64);
}

TEST_CASE("pow follows PyTorch's conventions at zero", "[autograd][binary]") {
    auto a = gradc::tensor({0.0, 0.0, 2.0}, gradc::requires_grad());
    auto b = gradc::tensor({0.0, 2.0, 0.0}, gradc::requires_grad());
    gradc::pow(a, b).sum().backward();
    CHECK_THAT(values(a.grad()), approx({0, 0, 0}));           // b = 0: constant; 0^2 has slope 0
    CHECK_THAT(values(b.grad()), approx({0, 0, std::log(2.0)}));  // a = 0, b >= 0: flat
}

TEST_CASE("comparisons and where", "[autograd][binary]") {
    auto a = gradc::tensor({1.0, 5.0, 3.0}, gradc::requires_grad());
    auto b = gradc::tensor({2.0, 4.0, 3.0}, gradc::requires_grad());
    auto lt = a < b;
    CHECK(lt.dtype() == gradc::kBool);
    CHECK_FALSE(lt.requires_grad());
    CHECK_THAT(values(lt), approx({1, 0, 0}));
    CHECK_THAT(values(a <= b), approx({1, 0, 1}));
    CHECK_THAT(values(a == 3.0), approx({0, 0, 1}));
    CHECK_THAT(values(a != b), approx({1, 1, 0}));
    CHECK_THAT(values(~(a > b)), approx({1, 0, 1}));
    auto w = gradc::where(lt, a * 10.0, b);
    CHECK_THAT(values(w), approx({10, 4, 3}));
    w.sum().backward();
    CHECK_THAT(values(a.grad()), approx({10, 0, 0}));
    CHECK_THAT(values(b.grad()), approx({0, 1, 1}));
    CHECK_THAT(error_of([&] { gradc::where(a, a, b); }), Contains("where") && Contains("bool"));
    auto z = gradc::tensor({std::complex<double>(1, 1)});
    CHECK_THAT(error_of([&] { (void)(z < z); }), Contains("<") && Contains("complex"));
}

TEST_CASE("where: the untaken branch still runs its backward, as in PyTorch", "[autograd][binary]") {
    // where passes 0 to sqrt at x = 0, and sqrt's backward multiplies 0 by sqrt'(0) = inf.
    auto x = gradc::tensor({0.0, 4.0}, gradc::requires_grad());
    gradc::where(x > 0.0, gradc::sqrt(x), gradc::zeros({2})).sum().backward();
    CHECK(std::isnan(values(x.grad())[0]));
    CHECK(values(x.grad())[1] == 0.25);
    // The usual fix: keep the untaken branch away from the singular point.
    auto x2 = gradc::tensor({0.0, 4.0}, gradc::requires_grad());
    auto safe = gradc::where(x2 > 0.0, x2, gradc::ones({2}));
    gradc::where(x2 > 0.0, gradc::sqrt(safe), gradc::zeros({2})).sum().backward();
    CHECK_THAT(values(x2.grad()), approx({0, 0.25}));
}

TEST_CASE("maximum and minimum of zeros of both signs give the first operand's zero, on every element", "[autograd][binary]") {
    // 17 elements: two full SIMD batches (of any width up to 8 doubles) and a scalar tail.
    std::vector<double> av(17), bv(17);
    for (int i = 0; i < 17; ++i) {
        av[i] = i % 2 == 0 ? 0.0 : -0.0;
        bv[i] = -av[i];
    }
    const auto a = gradc::from_vector(av, {17});
    const auto b = gradc::from_vector(bv, {17});
    for (const auto f : {gradc::maximum, gradc::minimum}) {
        const auto yv = values(f(a, b));
        for (int i = 0; i < 17; ++i) {
            INFO("element " << i);
            CHECK(yv[i] == 0.0);
            CHECK(std::signbit(yv[i]) == std::signbit(av[i]));
        }
    }
}

TEST_CASE("maximum and minimum keep NaN at every position of a long tensor, with PyTorch's gradient", "[autograd][binary]") {
    // 16 elements fill SIMD batches: NaN must survive the batch path as it does the
    // scalar tail. PyTorch 1.13 gives NaN and the whole incoming gradient to both inputs
    // wherever an operand is NaN, half of it to each at ties.
    const double nan = std::numeric_limits<double>::quiet_NaN();
    std::vector<double> av(16), bv(16);
    for (int i = 0; i < 16; ++i) {
        av[i] = i % 3 == 0 ? nan : 0.25 * i;
        bv[i] = i % 5 == 0 ? nan : 2.0 - 0.25 * i;
    }
    av[6] = bv[6] = 1.0;  // a tie (neither is NaN at 6)
    for (const auto f : {gradc::maximum, gradc::minimum}) {
        auto a = gradc::from_vector(av, {16}, gradc::requires_grad());
        auto b = gradc::from_vector(bv, {16}, gradc::requires_grad());
        auto y = f(a, b);
        y.sum().backward();
        const auto yv = values(y), ga = values(a.grad()), gb = values(b.grad());
        for (int i = 0; i < 16; ++i) {
            INFO("element " << i);
            const bool has_nan = std::isnan(av[i]) || std::isnan(bv[i]);
            CHECK(std::isnan(yv[i]) == has_nan);
            if (has_nan) {
                CHECK(ga[i] == 1.0);
                CHECK(gb[i] == 1.0);
            } else if (i == 6) {
                CHECK(ga[i] == 0.5);
                CHECK(gb[i] == 0.5);
            } else {
                CHECK(ga[i] + gb[i] == 1.0);
            }
        }
    }
}

TEST_CASE("pow on long tensors has C's special values at every position", "[autograd][binary]") {
    // The tensor kernels run the rule on SIMD batches for all but a tensor's tail: the
    // special values must not depend on an element's position.
    const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
    const std::vector<double> bases{0.0, -0.0, 0.0, inf, nan, 1.0, -1.0, -inf, -inf, 0.0, 2.0, 1e-310, -2.0, 0.5, 3.0, -0.0};
    const std::vector<double> exps{0.0, -1.0, -0.5, 0.0, 0.0, inf, -inf, 0.5, -3.0, nan, 1e300, 0.5, 1e300, -inf, 2.0, 3.0};
    const auto y = values(gradc::pow(gradc::from_vector(bases, {16}), gradc::from_vector(exps, {16})));
    for (std::size_t i = 0; i < 16; ++i) {
        INFO("pow(" << bases[i] << ", " << exps[i] << ")");
        CHECK(gradc::test::matches_c_result(y[i], std::pow(bases[i], exps[i]), 1e-13));
    }
}
