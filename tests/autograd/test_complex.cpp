// Complex autograd in the conjugate Wirtinger convention of the autograd notes.
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
