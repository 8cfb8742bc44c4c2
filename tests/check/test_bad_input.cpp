// Bad input to gradcheck and gradgradcheck, one table: wrong options (a step of 0, a
// negative or NaN step, negative or NaN tolerances), inputs none of which requires grad,
// a function with nothing to check (no outputs, only an undefined or an integer output),
// grad_outputs of gradgradcheck of the wrong number, shape, kind or undefined, and a
// function that fails on an undefined input. Each must be a gradc::Error naming the check
// (or, for the function's own failure, the operation that failed), what it got and what
// it expected; never a silent pass or a "Jacobian mismatch" that blames the derivative;
// and the inputs must keep their values, versions and (absent) gradients.
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <gradc/autograd.hpp>
#include <gradc/check.hpp>

using Catch::Matchers::Contains;
using gradc::Tensor;
using gradc::tensor_list;
namespace ag = gradc::autograd;

namespace {

const auto f64 = gradc::dtype(gradc::kFloat64);

tensor_list square(const tensor_list& t) { return {t[0] * t[0]}; }

ag::GradcheckOptions with(const std::function<void(ag::GradcheckOptions&)>& change) {
    ag::GradcheckOptions o;
    change(o);
    return o;
}

struct BadInput {
    std::string name;
    std::function<void(const Tensor& x)> call;  // x: a float64 leaf of 3 entries
    std::vector<std::string> fragments;
};

std::vector<BadInput> gradcheck_table() {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    std::vector<BadInput> t;
    t.push_back({"a step of 0", [](const Tensor& x) { ag::gradcheck(square, {x}, with([](auto& o) { o.eps = 0; })); },
                 {"gradc: gradcheck: options.eps is 0", "expected a finite step > 0"}});
    t.push_back({"a negative step", [](const Tensor& x) { ag::gradcheck(square, {x}, with([](auto& o) { o.eps = -1e-6; })); },
                 {"gradc: gradcheck: options.eps is -1e-06", "expected a finite step > 0"}});
    t.push_back({"a NaN step", [nan](const Tensor& x) { ag::gradcheck(square, {x}, with([nan](auto& o) { o.eps = nan; })); },
                 {"gradc: gradcheck: options.eps is nan", "expected a finite step > 0"}});
    t.push_back({"a negative atol", [](const Tensor& x) { ag::gradcheck(square, {x}, with([](auto& o) { o.atol = -1; })); },
                 {"gradc: gradcheck: options.atol is -1", "expected a tolerance >= 0"}});
    t.push_back({"a NaN rtol", [nan](const Tensor& x) { ag::gradcheck(square, {x}, with([nan](auto& o) { o.rtol = nan; })); },
                 {"gradc: gradcheck: options.rtol is nan", "expected a tolerance >= 0"}});
    t.push_back({"a negative nondet_tol, in gradgradcheck",
                 [](const Tensor& x) { ag::gradgradcheck(square, {x}, {}, with([](auto& o) { o.nondet_tol = -1; })); },
                 {"gradc: gradcheck: options.nondet_tol is -1", "expected a tolerance >= 0"}});
    t.push_back({"neither reverse nor forward mode",
                 [](const Tensor& x) {
                     ag::gradcheck(square, {x}, with([](auto& o) { o.check_backward_ad = o.check_forward_ad = false; }));
                 },
                 {"gradcheck:", "at least one of check_forward_ad or check_backward_ad"}});
    t.push_back({"no input requires grad", [](const Tensor& x) { ag::gradcheck(square, {x.detach()}); },
                 {"gradcheck:", "at least one input tensor to require gradient", "none of the 1 inputs"}});
    t.push_back({"no inputs at all", [](const Tensor&) { ag::gradcheck(square, {}); },
                 {"gradcheck:", "none of the 0 inputs"}});
    t.push_back({"a function with no outputs",
                 [](const Tensor& x) { ag::gradcheck([](const tensor_list&) { return tensor_list{}; }, {x}); },
                 {"gradc: gradcheck: the function returned 0 outputs", "expected at least one to check"}});
    t.push_back({"a function whose only output is undefined",
                 [](const Tensor& x) { ag::gradcheck([](const tensor_list&) { return tensor_list{Tensor()}; }, {x}); },
                 {"gradc: gradcheck: the function returned 1 outputs", "none of them a defined floating point"}});
    t.push_back({"a function whose only output is an integer tensor",
                 [](const Tensor& x) {
                     ag::gradcheck([](const tensor_list&) { return tensor_list{gradc::tensor_i64({1, 2})}; }, {x});
                 },
                 {"gradc: gradcheck: the function returned 1 outputs", "none of them"}});
    t.push_back({"an undefined input the function uses",
                 [](const Tensor& x) {
                     ag::gradcheck([](const tensor_list& in) { return tensor_list{in[0] * in[1]}; }, {x, Tensor()});
                 },
                 {"gradc: mul:", "undefined tensor"}});
    t.push_back({"gradgradcheck: two grad_outputs for one output",
                 [](const Tensor& x) { ag::gradgradcheck(square, {x}, {gradc::ones({3}, f64), gradc::ones({3}, f64)}); },
                 {"gradgradcheck: got 2 grad_outputs", "expected one per differentiable output (1)"}});
    t.push_back({"gradgradcheck: a grad_output of the wrong shape",
                 [](const Tensor& x) { ag::gradgradcheck(square, {x}, {gradc::ones({2}, f64)}); },
                 {"gradc: gradgradcheck: grad_outputs[0] is Double [2]", "shape of output 0 (Double [3])"}});
    t.push_back({"gradgradcheck: an undefined grad_output",
                 [](const Tensor& x) { ag::gradgradcheck(square, {x}, {Tensor()}); },
                 {"gradc: gradgradcheck: grad_outputs[0] is an undefined Tensor", "output 0 (Double [3])"}});
    t.push_back({"gradgradcheck: a complex grad_output for a real output",
                 [](const Tensor& x) { ag::gradgradcheck(square, {x}, {gradc::ones({3}, gradc::dtype(gradc::kComplex128))}); },
                 {"gradc: gradgradcheck: grad_outputs[0] is ComplexDouble [3]", "real or complex as that output is"}});
    return t;
}

}  // namespace

TEST_CASE("gradcheck: every bad input is an error naming the check, never a silent pass", "[check][bad_input]") {
    for (const auto& row : gradcheck_table()) {
        INFO("row: " << row.name);
        auto x = gradc::tensor({1.0, -2.0, 0.5}, f64.requires_grad(true));
        std::string message;
        try {
            row.call(x);
        } catch (const gradc::Error& e) {
            message = e.what();
        }
        INFO("message: " << message);
        REQUIRE_FALSE(message.empty());
        for (const auto& fragment : row.fragments) CHECK_THAT(message, Contains(fragment));
        const double* p = x.data_ptr<double>();
        CHECK(std::vector<double>(p, p + 3) == std::vector<double>{1.0, -2.0, 0.5});
        CHECK(x._version() == 0);
        CHECK_FALSE(x.grad().defined());
    }
}

TEST_CASE("gradcheck: with raise_exception=false a function with nothing to check returns false",
          "[check][bad_input]") {
    auto x = gradc::tensor({1.0, -2.0}, f64.requires_grad(true));
    const auto quiet = with([](auto& o) { o.raise_exception = false; });
    CHECK_FALSE(ag::gradcheck([](const tensor_list&) { return tensor_list{}; }, {x}, quiet));
    CHECK(ag::gradcheck(square, {x}, quiet));
}
