// Complex autograd in the conjugate Wirtinger convention of the "Autograd mechanics" notes.
#include "support.hpp"

using namespace testing;

TEST_CASE("gradients of real losses of complex tensors agree with PyTorch", "[autograd][complex]") {
    const std::pair<const char*, std::function<gradc::Tensor(const gradc::Tensor&)>> cases[] = {
        {"abs", [](const gradc::Tensor& z) { return gradc::abs(z).sum(); }},
        {"angle", [](const gradc::Tensor& z) { return gradc::angle(z).sum(); }},
        {"real", [](const gradc::Tensor& z) { return gradc::real(z).sum(); }},
        {"imag", [](const gradc::Tensor& z) { return gradc::imag(z).sum(); }},
        {"mulconj", [](const gradc::Tensor& z) { return gradc::real(z * gradc::conj(z)).sum(); }},
        {"exp_abs", [](const gradc::Tensor& z) { return gradc::abs(gradc::exp(z)).sum(); }},
        {"sin_real", [](const gradc::Tensor& z) { return gradc::real(gradc::sin(z * z)).sum(); }},
        {"square_abs", [](const gradc::Tensor& z) { return gradc::abs(z * z).sum(); }},
    };
    for (const auto& [name, f] : cases) {
        INFO(name);
        auto z = ref_complex("complex.z", {3}, true);
        f(z).backward();
        CHECK(z.grad().dtype() == gradc::kComplex128);
        CHECK_THAT(values(z.grad()), matches(std::string("complex.") + name + ".grad", 1e-12, 1e-14));
    }
}

TEST_CASE("a real input of a complex computation gets a real gradient", "[autograd][complex]") {
    auto x = gradc::tensor({0.5, 1.5}, gradc::requires_grad());
    auto c = gradc::tensor({std::complex<double>(1, 1), std::complex<double>(2, -1)});
    gradc::abs(x * c).sum().backward();
    CHECK(x.grad().dtype() == gradc::kFloat64);
    CHECK_THAT(values(x.grad()), matches("complex.real_input.grad"));
}

TEST_CASE("complex64 tensors keep their precision", "[autograd][complex]") {
    auto z = gradc::tensor({std::complex<double>(1, 2)}, gradc::TensorOptions().dtype(gradc::kComplex64).requires_grad(true));
    auto y = gradc::abs(z * z);
    CHECK(y.dtype() == gradc::kFloat32);
    y.sum().backward();
    CHECK(z.grad().dtype() == gradc::kComplex64);
    // |z²| = |z|², gradient 2z in this convention
    CHECK_THAT(values(z.grad()), approx({2, 4}, 1e-6));
}

namespace {

using gradc::Tensor;
using UnaryFn = std::function<Tensor(const Tensor&)>;

Tensor z23(bool requires_grad = true) { return ref_complex("cplx.z", {2, 3}, requires_grad); }
Tensor g23() { return ref_complex("cplx.g", {2, 3}); }

}  // namespace

TEST_CASE("C -> C functions: values and gradients for complex output gradients agree with PyTorch",
          "[autograd][complex]") {
    const std::pair<const char*, UnaryFn> cases[] = {
        {"exp", [](const Tensor& z) { return gradc::exp(z); }},
        {"log", [](const Tensor& z) { return gradc::log(z); }},
        {"log10", [](const Tensor& z) { return gradc::log10(z); }},
        {"sqrt", [](const Tensor& z) { return gradc::sqrt(z); }},
        {"sin", [](const Tensor& z) { return gradc::sin(z); }},
        {"cos", [](const Tensor& z) { return gradc::cos(z); }},
        {"tan", [](const Tensor& z) { return gradc::tan(z); }},
        {"asin", [](const Tensor& z) { return gradc::asin(z); }},
        {"acos", [](const Tensor& z) { return gradc::acos(z); }},
        {"atan", [](const Tensor& z) { return gradc::atan(z); }},
        {"sinh", [](const Tensor& z) { return gradc::sinh(z); }},
        {"cosh", [](const Tensor& z) { return gradc::cosh(z); }},
        {"tanh", [](const Tensor& z) { return gradc::tanh(z); }},
        {"sigmoid", [](const Tensor& z) { return gradc::sigmoid(z); }},
        {"neg", [](const Tensor& z) { return -z; }},
        {"square", [](const Tensor& z) { return gradc::square(z); }},
        {"conj", [](const Tensor& z) { return gradc::conj(z) * 1.0; }},
        {"reciprocal", [](const Tensor& z) { return 1.0 / z; }},
        {"scalar_pow", [](const Tensor& z) { return z * z * z; }},
    };
    for (const auto& [name, f] : cases) {
        INFO(name);
        const std::string key = std::string("cplx.unary.") + name;
        auto z = z23();
        auto y = f(z);
        CHECK(y.dtype() == gradc::kComplex128);
        CHECK_THAT(values(y), matches(key + ".y", 1e-12, 1e-14));
        y.backward(g23());
        CHECK_THAT(values(z.grad()), matches(key + ".grad", 1e-11, 1e-13));
    }
}

TEST_CASE("complex binary operations with broadcasting agree with PyTorch", "[autograd][complex]") {
    using BinaryFn = std::function<Tensor(const Tensor&, const Tensor&)>;
    const std::pair<const char*, BinaryFn> cases[] = {
        {"add", [](const Tensor& a, const Tensor& b) { return a + b; }},
        {"sub", [](const Tensor& a, const Tensor& b) { return a - b; }},
        {"mul", [](const Tensor& a, const Tensor& b) { return a * b; }},
        {"div", [](const Tensor& a, const Tensor& b) { return a / b; }},
    };
    for (const auto& [name, f] : cases) {
        INFO(name);
        const std::string key = std::string("cplx.binary.") + name;
        auto z = z23();
        auto w = ref_complex("cplx.w", {3}, true);
        auto y = f(z, w);
        CHECK_THAT(values(y), matches(key + ".y", 1e-12, 1e-14));
        y.backward(g23());
        CHECK_THAT(values(z.grad()), matches(key + ".z.grad", 1e-12, 1e-14));
        CHECK(w.grad().sizes() == gradc::Shape{3});
        CHECK_THAT(values(w.grad()), matches(key + ".w.grad", 1e-12, 1e-14));
    }
}

TEST_CASE("a real operand of a complex product gets the real part of its gradient", "[autograd][complex]") {
    auto z = z23();
    auto r = gradc::tensor({0.5, -1.5, 2.0}, gradc::requires_grad());
    (z * r).backward(g23());
    CHECK(r.grad().dtype() == gradc::kFloat64);
    CHECK_THAT(values(z.grad()), matches("cplx.mixed.z.grad", 1e-12, 1e-14));
    CHECK_THAT(values(r.grad()), matches("cplx.mixed.r.grad", 1e-12, 1e-14));
}

TEST_CASE("a real function computed through complex intermediates has the real gradient", "[autograd][complex]") {
    // exp(ix)·exp(-ix)·x = x, so the gradient is 1 everywhere — as the real computation.
    auto x = gradc::tensor({0.3, -1.2, 0.8}, gradc::requires_grad());
    const auto i = gradc::tensor({std::complex<double>(0, 1)});
    gradc::real(gradc::exp(x * i) * gradc::exp(x * -i) * x).sum().backward();
    CHECK(x.grad().dtype() == gradc::kFloat64);
    CHECK_THAT(values(x.grad()), matches("cplx.roundtrip.grad", 1e-12, 1e-14));
    CHECK_THAT(values(x.grad()), approx({1, 1, 1}, 1e-12));
}

TEST_CASE("complex reductions, products and views agree with PyTorch", "[autograd][complex]") {
    const auto gs = gradc::tensor({std::complex<double>(0.5, -0.25), std::complex<double>(1.0, 0.5)});
    const std::pair<const char*, UnaryFn> cases[] = {
        {"sum1", [](const Tensor& z) { return gradc::sum(z, {1}); }},
        {"mean1", [](const Tensor& z) { return gradc::mean(z, {1}); }},
        {"prod1", [](const Tensor& z) { return gradc::prod(z, 1); }},
        {"mv", [](const Tensor& z) { return gradc::mv(z, ref_complex("cplx.w", {3})); }},
        {"norm", [](const Tensor& z) {
             const auto i = gradc::tensor({std::complex<double>(0, 1)});
             return gradc::stack({gradc::norm(z) * 1.0 + 0.0 * i[0], gradc::norm(z) * i[0]});
         }},
    };
    for (const auto& [name, f] : cases) {
        INFO(name);
        const std::string key = std::string("cplx.reduce.") + name;
        auto z = z23();
        auto y = f(z);
        CHECK_THAT(values(y), matches(key + ".y", 1e-12, 1e-14));
        y.backward(gs);
        CHECK_THAT(values(z.grad()), matches(key + ".grad", 1e-12, 1e-14));
    }

    auto z = z23();
    auto w = ref_complex("cplx.w", {3}, true);
    auto d = gradc::dot(z.select(0, 0), w);
    CHECK_THAT(values(d), matches("cplx.dot.y", 1e-12, 1e-14));
    d.backward(gradc::tensor({std::complex<double>(0.5, 1.5)}).reshape({}));
    CHECK_THAT(values(z.grad()), matches("cplx.dot.z.grad", 1e-12, 1e-14));
    CHECK_THAT(values(w.grad()), matches("cplx.dot.w.grad", 1e-12, 1e-14));

    auto z2 = z23();
    auto m = ref_complex("cplx.mm.m2", {3, 2}, true);
    auto y = gradc::mm(z2, m);
    CHECK_THAT(values(y), matches("cplx.mm.y", 1e-12, 1e-14));
    y.backward(gradc::tensor({std::complex<double>(1, 1), std::complex<double>(0, -0.5), std::complex<double>(0.25, 0),
                              std::complex<double>(2, -1)})
                   .reshape({2, 2}));
    CHECK_THAT(values(z2.grad()), matches("cplx.mm.z.grad", 1e-12, 1e-14));
    CHECK_THAT(values(m.grad()), matches("cplx.mm.m2.grad", 1e-12, 1e-14));

    auto z3 = z23();
    auto v = z3.t().slice(0, 1, 3).reshape({-1});
    v.backward(gradc::arange(4.0) * gradc::tensor({std::complex<double>(1, -1)}));
    CHECK_THAT(values(z3.grad()), matches("cplx.views.grad", 1e-12, 1e-14));
}

TEST_CASE("backward() of a complex scalar without a gradient is an error, as the notes say", "[autograd][complex]") {
    // PyTorch 1.13 seeds it with 1; the notes' PyTorch refuses, and so does gradc.
    auto z = gradc::tensor({std::complex<double>(1, 2)}, gradc::requires_grad());
    auto y = (z * z).sum();
    CHECK_THAT(error_of([&] { y.backward(); }),
               Catch::Contains("backward") && Catch::Contains("real scalar outputs") && Catch::Contains("ComplexDouble"));
    CHECK_THAT(error_of([&] { gradc::autograd::grad({y}, {z}); }), Catch::Contains("real scalar outputs"));
    CHECK_FALSE(z.grad().defined());
    // With an explicit gradient it is the conjugate Wirtinger gradient: conj(2z)·1.
    y.backward(gradc::ones_like(y));
    CHECK_THAT(values(z.grad()), approx({2, -4}));
}
