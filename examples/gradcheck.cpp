// Checking derivatives (docs/gradcheck.md): gradcheck and gradgradcheck of dynamic-mode
// functions — a correct one (reverse and forward mode), a custom function with a deliberately wrong backward (the
// printed report names the output and input and shows both Jacobians), fast mode — and
// the static checker and the static-vs-dynamic cross-check of a compiled kernel.
#include <cstdlib>
#include <iostream>

#include <gradc/autograd.hpp>
#include <gradc/check.hpp>
#include <gradc/gradc.hpp>

using gradc::Tensor;
using gradc::tensor_list;
using gradc::autograd::AutogradContext;

// x ↦ x·exp(x) with a backward that forgets the product rule's first term.
struct WrongXExp : gradc::autograd::Function<WrongXExp> {
    static Tensor forward(AutogradContext* ctx, Tensor x) {
        ctx->save_for_backward({x});
        return x * gradc::exp(x);
    }
    static tensor_list backward(AutogradContext* ctx, tensor_list g) {
        Tensor x = ctx->get_saved_variables()[0];
        return {g[0] * x * gradc::exp(x)};  // should be (1 + x)·exp(x)
    }
};

int main() {
    // Computes in double, as numerical code does; gradc's default (LibTorch's) is float32.
    gradc::set_default_dtype(gradc::kFloat64);
    namespace ag = gradc::autograd;
    bool ok = true;
    gradc::manual_seed(7);
    auto a = gradc::randn({2, 3}, gradc::requires_grad());
    auto b = gradc::randn({3}, gradc::requires_grad());
    auto fn = [](const tensor_list& in) -> tensor_list { return {in[0].sin() * in[1], (in[0] * in[0]).sum()}; };

    const bool slow = ag::gradcheck(fn, {a, b});
    const bool fast = ag::gradcheck(fn, {a, b}, {.fast_mode = true});
    const bool second = ag::gradgradcheck(fn, {a, b});
    const bool forward = ag::gradcheck(fn, {a, b}, {.check_forward_ad = true});  // forward-mode columns too
    std::cout << "sin(a)*b, sum(a^2): gradcheck " << slow << ", fast " << fast << ", gradgradcheck " << second
              << ", with forward mode " << forward << "\n";
    ok = ok && slow && fast && second && forward;

    // Complex inputs: f(z) = z·conj(z) is real-valued and not holomorphic.
    auto z = gradc::complex(gradc::randn({3}), gradc::randn({3})).requires_grad_();
    const bool cplx = ag::gradcheck([](const tensor_list& in) -> tensor_list { return {in[0] * in[0].conj()}; }, {z});
    std::cout << "z*conj(z) on complex input: gradcheck " << cplx << "\n";
    ok = ok && cplx;

    // A wrong backward: the report says where and prints both matrices.
    auto x = gradc::tensor({0.3, -0.8}, gradc::requires_grad());
    try {
        ag::gradcheck([](const tensor_list& in) -> tensor_list { return {WrongXExp::apply(in[0])}; }, {x});
        std::cout << "the wrong backward was not caught\n";
        ok = false;
    } catch (const ag::GradcheckError& e) {
        std::cout << "caught, as it should be:\n" << e.what() << "\n";
    }
    ag::GradcheckOptions quiet;
    quiet.raise_exception = false;
    quiet.fast_mode = true;
    const bool wrong_fast = ag::gradcheck([](const tensor_list& in) -> tensor_list { return {WrongXExp::apply(in[0])}; }, {x}, quiet);
    std::cout << "fast mode on the wrong backward returns " << wrong_fast << "\n";
    ok = ok && !wrong_fast;

    // A compiled static kernel: its programs against finite differences in scalar and
    // batch execution, and against the dynamic engine.
    auto [px, mu, sigma] = gradc::variables<3>();
    const auto zz = (px - mu) / sigma;
    const auto nll = log(sigma) + 0.5 * zz * zz;
    const std::vector<std::array<double, 3>> points{{0.5, 0.1, 1.2}, {-1.0, 0.3, 0.7}, {2.0, -0.5, 2.5}};
    const bool kernel_ok = gradc::check::gradcheck(gradc::compile(nll), points);
    const bool cross_ok = gradc::check::cross(std::tuple{nll, zz}, points);
    std::cout << "static kernel: gradcheck " << kernel_ok << ", cross-check with the dynamic engine " << cross_ok << "\n";
    ok = ok && kernel_ok && cross_ok;

    std::cout << (ok ? "all checks behaved as expected\n" : "UNEXPECTED RESULT\n");
    return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
