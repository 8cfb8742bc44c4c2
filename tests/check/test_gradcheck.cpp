// gradcheck / gradgradcheck on correct functions: slow and fast mode, real and complex,
// one and several inputs and outputs, reverse and forward mode, and the option checks.
#include <complex>
#include <iostream>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>

#include <gradc/autograd.hpp>
#include <gradc/check.hpp>

using gradc::Tensor;
using gradc::tensor_list;
using gradc::autograd::GradcheckOptions;
namespace ag = gradc::autograd;

namespace {

Tensor real_input(std::initializer_list<double> v) {
    return gradc::tensor(v, gradc::requires_grad());
}
Tensor complex_input() {
    using c = std::complex<double>;
    return gradc::tensor({c(0.7, -0.3), c(-1.1, 0.4), c(0.2, 0.9)}, gradc::requires_grad());
}

GradcheckOptions fast() {
    GradcheckOptions o;
    o.fast_mode = true;
    return o;
}

}  // namespace

TEST_CASE("sin(a)*b passes gradcheck in slow and fast mode and gradgradcheck", "[check][gradcheck]") {
    auto a = real_input({0.3, -0.8, 1.4});
    auto b = real_input({1.1, 0.5, -0.7});
    auto fn = [](const std::vector<Tensor>& in) -> std::vector<Tensor> { return {in[0].sin() * in[1]}; };
    CHECK(gradc::autograd::gradcheck(fn, {a, b}));
    CHECK(gradc::autograd::gradcheck(fn, {a, b}, {.fast_mode = true}));
    CHECK(gradc::autograd::gradgradcheck(fn, {a, b}));
    CHECK(gradc::autograd::gradgradcheck(fn, {a, b}, {}, {.fast_mode = true}));
}

TEST_CASE("several inputs and several outputs, some inputs not requiring grad", "[check][gradcheck]") {
    auto x = real_input({0.3, -0.8, 1.4});
    auto w = gradc::tensor({{0.5, -1.0, 2.0}, {1.5, 0.25, -0.5}}, gradc::requires_grad());
    auto c = gradc::tensor({2.0, 3.0});  // constant
    auto fn = [](const tensor_list& in) -> tensor_list {
        Tensor y = gradc::mv(in[1], in[0].tanh()) * in[2];
        return {y, gradc::exp(in[0]).sum(), gradc::argmax(in[0], 0)};  // an int64 output is skipped
    };
    CHECK(ag::gradcheck(fn, {x, w, c}));
    CHECK(ag::gradcheck(fn, {x, w, c}, fast()));
    CHECK(ag::gradgradcheck(fn, {x, w, c}));
    CHECK(ag::gradgradcheck(fn, {x, w, c}, {}, fast()));
}

TEST_CASE("complex inputs: z·conj(z), abs, angle and complex outputs", "[check][gradcheck][complex]") {
    const std::pair<const char*, ag::GradcheckFunction> cases[] = {
        {"z*conj(z)", [](const tensor_list& in) -> tensor_list { return {in[0] * gradc::conj(in[0])}; }},
        {"abs", [](const tensor_list& in) -> tensor_list { return {gradc::abs(in[0])}; }},
        {"angle", [](const tensor_list& in) -> tensor_list { return {gradc::angle(in[0])}; }},
        {"exp (complex out)", [](const tensor_list& in) -> tensor_list { return {gradc::exp(in[0])}; }},
        {"z*z sum", [](const tensor_list& in) -> tensor_list { return {(in[0] * in[0]).sum()}; }},
        {"real, imag", [](const tensor_list& in) -> tensor_list { return {gradc::real(in[0]), gradc::imag(in[0])}; }},
    };
    for (const auto& [name, fn] : cases) {
        INFO(name);
        auto z = complex_input();
        CHECK(ag::gradcheck(fn, {z}));
        CHECK(ag::gradcheck(fn, {z}, fast()));
        CHECK(ag::gradgradcheck(fn, {z}));
        CHECK(ag::gradgradcheck(fn, {z}, {}, fast()));
    }
}

TEST_CASE("a real input of a complex-valued function", "[check][gradcheck][complex]") {
    auto x = real_input({0.5, -1.5});
    auto fn = [](const tensor_list& in) -> tensor_list {
        auto c = gradc::tensor({std::complex<double>(1, 1), std::complex<double>(2, -1)});
        return {in[0] * c, gradc::abs(in[0] * c)};
    };
    CHECK(ag::gradcheck(fn, {x}));
    CHECK(ag::gradcheck(fn, {x}, fast()));
}

TEST_CASE("fast mode with a fixed seed is deterministic, for any seed", "[check][gradcheck]") {
    auto x = real_input({0.3, -0.8, 1.4});
    auto fn = [](const tensor_list& in) -> tensor_list { return {gradc::sigmoid(in[0]) * in[0]}; };
    for (std::uint64_t seed : {0ULL, 1ULL, 12345ULL}) {
        GradcheckOptions o = fast();
        o.seed = seed;
        CHECK(ag::gradcheck(fn, {x}, o));
    }
}

TEST_CASE("option checks: no mode, no input requiring grad, integer inputs, float32", "[check][gradcheck]") {
    auto x = real_input({0.3, -0.8});
    auto fn = [](const tensor_list& in) -> tensor_list { return {in[0].exp()}; };
    GradcheckOptions none;
    none.check_backward_ad = false;
    CHECK_THROWS_WITH(ag::gradcheck(fn, {x}, none), Catch::Contains("at least one of check_forward_ad or check_backward_ad"));
    none.raise_exception = false;
    CHECK_THROWS_AS(ag::gradcheck(fn, {x}, none), ag::GradcheckError);  // never a silent pass

    CHECK_THROWS_WITH(ag::gradcheck(fn, {gradc::tensor({1.0, 2.0})}),
                      Catch::Contains("at least one input tensor to require gradient"));

    // float32: accepted with a warning on stderr (and a looser tolerance here).
    auto xf = gradc::tensor({0.3, -0.8}, gradc::TensorOptions().dtype(gradc::kFloat32).requires_grad(true));
    GradcheckOptions loose;
    loose.eps = 1e-3;
    loose.atol = 1e-2;
    loose.rtol = 1e-2;
    std::ostringstream captured;
    auto* old = std::cerr.rdbuf(captured.rdbuf());
    const bool ok = ag::gradcheck(fn, {xf}, loose);
    std::cerr.rdbuf(old);
    CHECK(ok);
    CHECK_THAT(captured.str(), Catch::Contains("too low"));
}

TEST_CASE("a nondeterministic function is reported, and nondet_tol admits it", "[check][gradcheck]") {
    auto x = real_input({0.3, -0.8});
    int calls = 0;
    auto fn = [&calls](const tensor_list& in) -> tensor_list {
        ++calls;
        return {in[0] * 2.0 + (calls % 2 ? 1e-12 : 0.0)};
    };
    CHECK_THROWS_WITH(ag::gradcheck(fn, {x}), Catch::Contains("nondeterministic"));
    GradcheckOptions o;
    o.raise_exception = false;
    CHECK_FALSE(ag::gradcheck(fn, {x}, o));
    o.nondet_tol = 1e-9;
    CHECK(ag::gradcheck(fn, {x}, o));
}

TEST_CASE("a wrong derivative built from differentiable ops is caught with both matrices", "[check][gradcheck]") {
    // f(x) = x·detach(x)²: the autograd derivative misses the detached part.
    auto x = real_input({0.5, -1.5, 2.0});
    auto fn = [](const tensor_list& in) -> tensor_list { return {in[0] * in[0].detach() * in[0].detach()}; };
    try {
        ag::gradcheck(fn, {x});
        FAIL("expected a GradcheckError");
    } catch (const ag::GradcheckError& e) {
        const std::string m = e.what();
        CHECK_THAT(m, Catch::Contains("Jacobian mismatch for output 0 with respect to input 0"));
        CHECK_THAT(m, Catch::Contains("numerical:"));
        CHECK_THAT(m, Catch::Contains("analytical:"));
        CHECK_THAT(m, Catch::Contains("CPUDoubleType{3,3}"));
    }
    CHECK_THROWS_WITH(ag::gradcheck(fn, {x}, fast()),
                      Catch::Contains("fast mode") && Catch::Contains("Jacobian mismatch for output 0 with respect to input 0"));
    GradcheckOptions quiet;
    quiet.raise_exception = false;
    CHECK_FALSE(ag::gradcheck(fn, {x}, quiet));
}

// ---- forward mode (check_forward_ad) -----------------------------------------------------

namespace {

using gradc::autograd::AutogradContext;

GradcheckOptions forward(bool fast_mode, bool backward = true) {
    GradcheckOptions o;
    o.check_forward_ad = true;
    o.check_backward_ad = backward;
    o.fast_mode = fast_mode;
    return o;
}

// x³ with a correct backward and a jvp that forgot the factor 3.
struct WrongJvp : gradc::autograd::Function<WrongJvp> {
    static Tensor forward(AutogradContext* ctx, Tensor x) {
        ctx->save_for_backward({x});
        return x * x * x;
    }
    static tensor_list backward(AutogradContext* ctx, tensor_list g) {
        const Tensor x = ctx->get_saved_variables()[0];
        return {3.0 * x * x * g[0]};
    }
    static tensor_list jvp(AutogradContext* ctx, tensor_list t) {
        const Tensor x = ctx->get_saved_variables()[0];
        return {x * x * t[0]};
    }
};

// a·b, whose jvp (asked not to materialise missing tangents) treats a missing tangent as ones.
struct SloppyJvp : gradc::autograd::Function<SloppyJvp> {
    static Tensor forward(AutogradContext* ctx, Tensor a, Tensor b) {
        ctx->set_materialize_grads(false);
        ctx->save_for_backward({a, b});
        return a * b;
    }
    static tensor_list backward(AutogradContext* ctx, tensor_list g) {
        const auto s = ctx->get_saved_variables();
        return {g[0] * s[1], g[0] * s[0]};
    }
    static tensor_list jvp(AutogradContext* ctx, tensor_list t) {
        const auto s = ctx->get_saved_variables();
        const Tensor ta = t[0].defined() ? t[0] : gradc::ones_like(s[0]);
        const Tensor tb = t[1].defined() ? t[1] : gradc::ones_like(s[1]);
        return {ta * s[1] + s[0] * tb};
    }
};

}  // namespace

TEST_CASE("check_forward_ad passes on correct functions, real and complex, slow and fast", "[check][gradcheck][forward_ad]") {
    auto x = real_input({0.3, -0.8, 1.4});
    auto w = gradc::tensor({{0.5, -1.0, 2.0}, {1.5, 0.25, -0.5}}, gradc::requires_grad());
    auto several = [](const tensor_list& in) -> tensor_list {
        return {gradc::mv(in[1], in[0].tanh()), gradc::exp(in[0]).prod(), gradc::argmax(in[0], 0)};
    };
    auto complex_fn = [](const tensor_list& in) -> tensor_list {
        return {in[0] * gradc::conj(in[0]) + gradc::exp(in[0]), gradc::abs(in[0]), gradc::angle(in[0]).sum()};
    };
    auto real_to_complex = [](const tensor_list& in) -> tensor_list {
        auto c = gradc::tensor({std::complex<double>(1, 1), std::complex<double>(2, -1), std::complex<double>(0.5, 0)});
        return {in[0] * c, gradc::abs(in[0] * c)};
    };
    for (bool fast_mode : {false, true}) {
        INFO((fast_mode ? "fast mode" : "slow mode"));
        CHECK(ag::gradcheck(several, {x, w}, forward(fast_mode)));
        CHECK(ag::gradcheck(several, {x, w}, forward(fast_mode, false)));  // forward mode only
        CHECK(ag::gradcheck(complex_fn, {complex_input()}, forward(fast_mode)));
        CHECK(ag::gradcheck(real_to_complex, {x}, forward(fast_mode)));
        // gradgradcheck: forward mode over the reverse pass of F(x, v) = vᵀJ.
        CHECK(ag::gradgradcheck(several, {x, w}, {}, forward(fast_mode)));
        CHECK(ag::gradgradcheck(complex_fn, {complex_input()}, {}, forward(fast_mode)));
    }
}

TEST_CASE("check_forward_ad catches a custom function's wrong jvp, slow and fast", "[check][gradcheck][forward_ad]") {
    auto x = real_input({0.5, -1.5, 2.0});
    auto fn = [](const tensor_list& in) -> tensor_list { return {WrongJvp::apply(in[0])}; };
    CHECK(ag::gradcheck(fn, {x}));  // reverse mode is right
    try {
        ag::gradcheck(fn, {x}, forward(false));
        FAIL("expected a GradcheckError");
    } catch (const ag::GradcheckError& e) {
        const std::string m = e.what();
        CHECK_THAT(m, Catch::Contains("Jacobian computed with forward mode mismatch for output 0 with respect to input 0"));
        CHECK_THAT(m, Catch::Contains("analytical (forward mode):"));
        CHECK_THAT(m, Catch::Contains("numerical:"));
    }
    CHECK_THROWS_WITH(ag::gradcheck(fn, {x}, forward(true)),
                      Catch::Contains("fast mode, forward AD") && Catch::Contains("forward mode mismatch for output 0"));
    GradcheckOptions quiet = forward(true);
    quiet.raise_exception = false;
    CHECK_FALSE(ag::gradcheck(fn, {x}, quiet));
}

TEST_CASE("check_forward_ad checks that a missing tangent counts as zero", "[check][gradcheck][forward_ad]") {
    auto a = real_input({0.5, -1.5});
    auto b = real_input({2.0, 0.25});
    auto fn = [](const tensor_list& in) -> tensor_list { return {SloppyJvp::apply(in[0], in[1])}; };
    CHECK_THROWS_WITH(ag::gradcheck(fn, {a, b}, forward(false)), Catch::Contains("undefined (zero) input tangents"));
    GradcheckOptions skip = forward(false);
    skip.check_undefined_grad = false;
    CHECK(ag::gradcheck(fn, {a, b}, skip));
}
