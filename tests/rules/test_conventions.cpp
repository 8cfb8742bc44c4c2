// Values and partials at non-differentiable points, domain edges, infinities and NaN.
// The conventions are those of the autograd notes and of PyTorch.

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include <approx.hpp>
#include <gradc/rules.hpp>

namespace {

namespace r = gradc::rules;
constexpr double inf = std::numeric_limits<double>::infinity();
const double not_a_number = std::numeric_limits<double>::quiet_NaN();

template <class R, int K, class... A>
double d(const A&... a) {
    return r::scale(R::partial(r::arg<K>, a..., R::eval(a...)), 1.0);
}

}  // namespace

TEST_CASE("kinks: abs'(0) = 0 and relu'(0) = 0", "[rules][conventions]") {
    CHECK(d<r::abs, 0>(0.0) == 0.0);
    CHECK(d<r::abs, 0>(-0.0) == 0.0);
    CHECK(d<r::abs, 0>(-3.0) == -1.0);
    CHECK(d<r::relu, 0>(0.0) == 0.0);
    CHECK(d<r::relu, 0>(1e-300) == 1.0);
    CHECK(r::relu::eval(-2.0) == 0.0);
    CHECK(std::isnan(r::relu::eval(not_a_number)));
}

TEST_CASE("sqrt'(0) = +inf, cbrt'(0) = +inf, asin'(1) = +inf", "[rules][conventions]") {
    CHECK(d<r::sqrt, 0>(0.0) == inf);
    CHECK(d<r::cbrt, 0>(0.0) == inf);
    CHECK(d<r::asin, 0>(1.0) == inf);
    CHECK(d<r::acos, 0>(1.0) == -inf);
    CHECK(std::isnan(d<r::sqrt, 0>(-1.0)));
    CHECK(d<r::log, 0>(0.0) == inf);
}

TEST_CASE("max and min split ties evenly and propagate NaN", "[rules][conventions]") {
    CHECK(d<r::max, 0>(2.0, 2.0) == 0.5);
    CHECK(d<r::max, 1>(2.0, 2.0) == 0.5);
    CHECK(d<r::min, 0>(2.0, 2.0) == 0.5);
    CHECK(d<r::max, 0>(3.0, 2.0) == 1.0);
    CHECK(d<r::max, 1>(3.0, 2.0) == 0.0);
    CHECK(d<r::min, 0>(3.0, 2.0) == 0.0);
    CHECK(d<r::min, 1>(3.0, 2.0) == 1.0);
    CHECK(std::isnan(r::max::eval(not_a_number, 1.0)));
    CHECK(std::isnan(r::max::eval(1.0, not_a_number)));
    CHECK(std::isnan(r::min::eval(not_a_number, 1.0)));
    CHECK(std::isnan(r::min::eval(1.0, not_a_number)));
}

TEST_CASE("pow at zero follows PyTorch", "[rules][conventions]") {
    CHECK(d<r::pow, 0>(0.0, 0.0) == 0.0);   // x^0 is constant, even at 0
    CHECK(d<r::pow, 0>(0.0, 2.0) == 0.0);
    CHECK(d<r::pow, 0>(0.0, 0.5) == inf);   // like sqrt
    CHECK(d<r::pow, 1>(0.0, 2.0) == 0.0);   // 0^b flat in b for b >= 0, not 0 * -inf
    CHECK(d<r::pow, 1>(0.0, 0.0) == 0.0);
    CHECK(d<r::pow, 1>(0.0, -1.0) == -inf);  // inf * log(0), as PyTorch
    const double d_pow = d<r::pow, 0>(-2.0, 3.0);
    CHECK_THAT(d_pow, gradc::test::is_close_to(12.0));
}

TEST_CASE("where gates the derivative of the branch not taken", "[rules][conventions]") {
    // An infinite derivative on the other branch does not leak in as inf * 0 = NaN.
    const auto g = r::where::partial(r::arg<1>, false, 0.0, 1.0, 1.0);
    CHECK(r::scale(g, inf) == 0.0);
    CHECK(r::scale(r::where::partial(r::arg<2>, false, 0.0, 1.0, 1.0), inf) == inf);
    CHECK(r::where::eval(true, 1.0, 2.0) == 1.0);
}

TEST_CASE("infinities give the limits of the derivative", "[rules][conventions]") {
    CHECK(d<r::exp, 0>(-inf) == 0.0);
    CHECK(d<r::tanh, 0>(inf) == 0.0);
    CHECK(d<r::tanh, 0>(-inf) == 0.0);
    CHECK(d<r::sigmoid, 0>(inf) == 0.0);
    CHECK(d<r::sigmoid, 0>(-inf) == 0.0);
    CHECK(d<r::atan, 0>(inf) == 0.0);
    CHECK(d<r::erf, 0>(inf) == 0.0);
    CHECK(d<r::softplus, 0>(inf) == 1.0);
    CHECK(d<r::softplus, 0>(-inf) == 0.0);
    CHECK(r::softplus::eval(1000.0) == 1000.0);  // no overflow
    CHECK(r::softplus::eval(-1000.0) == 0.0);
    CHECK_THAT(r::softplus::eval(-30.0), gradc::test::is_close_to(std::exp(-30.0), 1e-10));
}

TEST_CASE("NaN propagates through values and partials", "[rules][conventions]") {
    CHECK(std::isnan(r::sin::eval(not_a_number)));
    CHECK(std::isnan(d<r::sin, 0>(not_a_number)));
    CHECK(std::isnan(d<r::exp, 0>(not_a_number)));
    CHECK(std::isnan(d<r::mul, 0>(1.0, not_a_number)));
    CHECK(std::isnan(d<r::div, 1>(not_a_number, 2.0)));
    CHECK(std::isnan(d<r::log, 0>(not_a_number)));
    CHECK(std::isnan(d<r::tanh, 0>(not_a_number)));
}

TEST_CASE("atan2 and hypot at the origin give NaN partials, as PyTorch", "[rules][conventions]") {
    CHECK(std::isnan(d<r::atan2, 0>(0.0, 0.0)));
    CHECK(std::isnan(d<r::hypot, 0>(0.0, 0.0)));
    CHECK(r::hypot::eval(3e300, 4e300) == 5e300);  // no overflow
}

TEST_CASE("logit follows PyTorch's logit without eps; acosh and atanh at their ends", "[rules][conventions]") {
    CHECK(r::logit::eval(0.0) == -inf);
    CHECK(r::logit::eval(1.0) == inf);
    CHECK(d<r::logit, 0>(0.0) == inf);
    CHECK(d<r::logit, 0>(1.0) == inf);
    CHECK(std::isnan(r::logit::eval(1.5)));
    CHECK(std::isnan(d<r::logit, 0>(1.5)));
    CHECK(std::isnan(d<r::logit, 0>(-0.5)));
    CHECK(d<r::acosh, 0>(1.0) == inf);
    CHECK(std::isnan(d<r::acosh, 0>(0.5)));
    CHECK(d<r::atanh, 0>(1.0) == inf);
    CHECK(d<r::atanh, 0>(-1.0) == inf);
    CHECK(d<r::asinh, 0>(inf) == 0.0);
}

TEST_CASE("max and min of equal operands give the first: the sign of a zero is the first's", "[rules][conventions]") {
    // It decides atan2, 1/x and pow downstream: min(+0, -0) is +0, as std::min.
    CHECK(!std::signbit(r::min::eval(0.0, -0.0)));
    CHECK(std::signbit(r::min::eval(-0.0, 0.0)));
    CHECK(!std::signbit(r::max::eval(0.0, -0.0)));
    CHECK(std::signbit(r::max::eval(-0.0, 0.0)));
    CHECK(std::signbit(std::min(-0.0, 0.0)) == std::signbit(r::min::eval(-0.0, 0.0)));
    CHECK(std::signbit(std::max(0.0, -0.0)) == std::signbit(r::max::eval(0.0, -0.0)));
}

TEST_CASE("max and min with a NaN operand give the whole derivative to both, as PyTorch", "[rules][conventions]") {
    // torch.maximum / torch.minimum backward (PyTorch 1.13): where either operand is NaN,
    // a.grad = b.grad = the incoming gradient.
    CHECK(d<r::max, 0>(not_a_number, 0.5) == 1.0);
    CHECK(d<r::max, 1>(not_a_number, 0.5) == 1.0);
    CHECK(d<r::max, 0>(0.5, not_a_number) == 1.0);
    CHECK(d<r::max, 1>(not_a_number, not_a_number) == 1.0);
    CHECK(d<r::min, 0>(not_a_number, 0.5) == 1.0);
    CHECK(d<r::min, 1>(not_a_number, 0.5) == 1.0);
    CHECK(d<r::min, 1>(0.5, not_a_number) == 1.0);
}

TEST_CASE("erfinv is ±inf at ±1 with derivative +inf, NaN beyond, as PyTorch's", "[rules][conventions]") {
    CHECK(r::erfinv::eval(1.0) == inf);
    CHECK(r::erfinv::eval(-1.0) == -inf);
    CHECK(d<r::erfinv, 0>(1.0) == inf);
    CHECK(d<r::erfinv, 0>(-1.0) == inf);
    CHECK(std::isnan(r::erfinv::eval(1.5)));
    CHECK(std::isnan(r::erfinv::eval(-inf)));
    CHECK(std::isnan(d<r::erfinv, 0>(1.5)));
    CHECK(std::isnan(d<r::erfinv, 0>(not_a_number)));
    CHECK(std::signbit(r::erfinv::eval(-0.0)));
    CHECK(d<r::erfinv, 0>(0.0) == std::sqrt(std::numbers::pi) / 2);
}
