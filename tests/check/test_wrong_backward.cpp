// Deliberately wrong custom backward functions (gradc::autograd::Function) are caught by
// slow and fast mode, and the report names the output and input and prints both matrices.
#include <complex>
#include <string>

#include <catch2/catch.hpp>

#include <gradc/autograd.hpp>
#include <gradc/autograd/custom_function.hpp>
#include <gradc/check.hpp>

using gradc::Tensor;
using gradc::tensor_list;
using gradc::autograd::AutogradContext;
namespace ag = gradc::autograd;

namespace {

/// x³ with its derivative scaled by 1.01.
struct Scaled : ag::Function<Scaled> {
    static Tensor forward(AutogradContext* ctx, Tensor x) {
        ctx->save_for_backward({x});
        return x * x * x;
    }
    static tensor_list backward(AutogradContext* ctx, tensor_list g) {
        Tensor x = ctx->get_saved_variables()[0];
        return {g[0] * 3.0 * x * x * 1.01};
    }
};

/// sin(x) with d = -cos(x).
struct WrongSign : ag::Function<WrongSign> {
    static Tensor forward(AutogradContext* ctx, Tensor x) {
        ctx->save_for_backward({x});
        return gradc::sin(x);
    }
    static tensor_list backward(AutogradContext* ctx, tensor_list g) {
        return {-g[0] * gradc::cos(ctx->get_saved_variables()[0])};
    }
};

Tensor matrix_a() { return gradc::tensor({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}}); }

/// y = A·x with A 2×3; backward uses the 2×3 Jacobian read as 3×2 instead of Aᵀ.
struct Transposed : ag::Function<Transposed> {
    static Tensor forward(AutogradContext*, Tensor x) { return gradc::mv(matrix_a(), x); }
    static tensor_list backward(AutogradContext*, tensor_list g) {
        return {gradc::mv(matrix_a().reshape({3, 2}), g[0])};
    }
};

/// z² with backward g·2z instead of g·conj(2z): right for real inputs only.
struct ForgotConj : ag::Function<ForgotConj> {
    static Tensor forward(AutogradContext* ctx, Tensor z) {
        ctx->save_for_backward({z});
        return z * z;
    }
    static tensor_list backward(AutogradContext* ctx, tensor_list g) {
        return {g[0] * 2.0 * ctx->get_saved_variables()[0]};
    }
};

/// x² with a backward whose value is right but which is not differentiable (x detached):
/// first derivatives pass, second derivatives do not.
struct WrongSecond : ag::Function<WrongSecond> {
    static Tensor forward(AutogradContext* ctx, Tensor x) {
        ctx->save_for_backward({x});
        return x * x;
    }
    static tensor_list backward(AutogradContext* ctx, tensor_list g) {
        return {g[0] * (2.0 * ctx->get_saved_variables()[0].detach())};
    }
};

template <class F>
tensor_list call(const tensor_list& in) {
    return {F::apply(in[0])};
}

ag::GradcheckOptions mode(bool fast) {
    ag::GradcheckOptions o;
    o.fast_mode = fast;
    o.seed = 7;
    return o;
}

std::string failure(const ag::GradcheckFunction& fn, const tensor_list& in, bool fast) {
    try {
        ag::gradcheck(fn, in, mode(fast));
    } catch (const ag::GradcheckError& e) {
        return e.what();
    }
    return "";
}

void expect_caught(const ag::GradcheckFunction& fn, const tensor_list& in, const std::string& where) {
    for (bool fast : {false, true}) {
        INFO((fast ? "fast mode" : "slow mode"));
        const std::string m = failure(fn, in, fast);
        REQUIRE_FALSE(m.empty());
        CHECK_THAT(m, Catch::Contains(where));
        CHECK_THAT(m, Catch::Contains("numerical:"));
        CHECK_THAT(m, Catch::Contains("analytical:"));
        if (fast) CHECK_THAT(m, Catch::Contains("fast mode"));
        ag::GradcheckOptions quiet = mode(fast);
        quiet.raise_exception = false;
        CHECK_FALSE(ag::gradcheck(fn, in, quiet));
    }
}

Tensor x3() { return gradc::tensor({0.4, -1.3, 2.1}, gradc::requires_grad()); }

}  // namespace

TEST_CASE("a derivative scaled by 1.01 is caught", "[check][wrong]") {
    expect_caught(call<Scaled>, {x3()}, "Jacobian mismatch for output 0 with respect to input 0");
}

TEST_CASE("a derivative with the wrong sign is caught", "[check][wrong]") {
    expect_caught(call<WrongSign>, {x3()}, "Jacobian mismatch for output 0 with respect to input 0");
}

TEST_CASE("a transposed 2x3 Jacobian is caught, and the input index is the right one", "[check][wrong]") {
    auto fn = [](const tensor_list& in) -> tensor_list { return {in[1] * 2.0, Transposed::apply(in[0]) * in[1]}; };
    const tensor_list in{x3(), gradc::tensor({0.5, -0.25}, gradc::requires_grad())};
    expect_caught(fn, in, "Jacobian mismatch for output 1 with respect to input 0");
    const std::string m = failure(fn, in, false);
    CHECK_THAT(m, Catch::Contains("CPUDoubleType{2,3}"));
}

TEST_CASE("a forgotten conjugation is caught for complex inputs only", "[check][wrong][complex]") {
    CHECK(ag::gradcheck(call<ForgotConj>, {x3()}));
    CHECK(ag::gradcheck(call<ForgotConj>, {x3()}, mode(true)));
    using c = std::complex<double>;
    auto z = gradc::tensor({c(0.5, 0.3), c(-1.0, 0.8)}, gradc::requires_grad());
    expect_caught(call<ForgotConj>, {z}, "Jacobian mismatch for output 0 with respect to input 0");
    CHECK_THAT(failure(call<ForgotConj>, {z}, false), Catch::Contains("complex outputs only"));
}

TEST_CASE("a wrong second derivative passes gradcheck and is caught by gradgradcheck", "[check][wrong]") {
    const tensor_list in{x3()};
    CHECK(ag::gradcheck(call<WrongSecond>, in));
    CHECK(ag::gradcheck(call<WrongSecond>, in, mode(true)));
    for (bool fast : {false, true}) {
        INFO((fast ? "fast mode" : "slow mode"));
        try {
            ag::gradgradcheck(call<WrongSecond>, in, {}, mode(fast));
            FAIL("expected a GradcheckError");
        } catch (const ag::GradcheckError& e) {
            CHECK_THAT(std::string(e.what()), Catch::Contains("Jacobian mismatch for output 0 with respect to input 0"));
        }
    }
    // The correct second derivative passes.
    auto square = [](const tensor_list& t) -> tensor_list { return {t[0] * t[0]}; };
    CHECK(ag::gradgradcheck(square, in));
}
