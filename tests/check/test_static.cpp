// gradc::check::gradcheck and gradc::check::cross on compiled static kernels, and the
// table-driven check of every primitive of the rule table (gradc::rules::all).
#include <array>
#include <string>
#include <vector>

#include <boost/hana/for_each.hpp>
#include <catch2/catch.hpp>

#include <gradc/autograd.hpp>
#include <gradc/check.hpp>
#include <gradc/gradc.hpp>

#include "../rules/domains.hpp"
#include "failure_report.hpp"

namespace {

template <class R, std::size_t... I>
auto rule_expression(std::index_sequence<I...>) {
    return gradc::expr::node<R, gradc::expr::variable<I, sizeof...(I)>...>{};
}

}  // namespace

TEST_CASE("every primitive of the rule table passes the static checker and the cross-check", "[check][static][table]") {
    boost::hana::for_each(gradc::rules::all, [](auto t) {
        using R = typename decltype(t)::type;
        INFO(R::name);
        if constexpr (std::is_same_v<R, gradc::rules::where>) {
            auto [a, b, c] = gradc::variables<3>();
            const auto e = where(c > 0.5, a, b);
            const auto pts = gradc::test::first_coordinates<3>(gradc::test::points<R>());
            CHECK(gradc::check::gradcheck(gradc::compile(e), pts));
            CHECK(gradc::check::cross(e, pts));
        } else {
            const auto e = rule_expression<R>(std::make_index_sequence<R::arity>{});
            const auto pts = gradc::test::first_coordinates<R::arity>(gradc::test::points<R>());
            CHECK(gradc::check::gradcheck(gradc::compile(e), pts));
            CHECK(gradc::check::cross(e, pts));
        }
    });
}

TEST_CASE("a kernel with several outputs and wrt variables passes in scalar and batch execution", "[check][static]") {
    auto [x, mu, sigma] = gradc::variables<3>();
    const auto z = (x - mu) / sigma;
    const auto k = gradc::compile(-0.5 * z * z - log(sigma), exp(z) * x, gradc::wrt(mu, sigma));
    const std::vector<std::array<double, 3>> pts{{0.5, 0.1, 1.2}, {-1.0, 0.3, 0.7}, {2.0, -0.5, 2.5}};
    CHECK(gradc::check::gradcheck(k, pts));
    const auto nll = log(sigma) + 0.5 * z * z + sqrt(abs(mu) + 1.0) * tanh(x);
    CHECK(gradc::check::gradcheck(gradc::compile(nll), pts));
    CHECK(gradc::check::cross(nll, pts));
}

TEST_CASE("the cross-check compares every output and Jacobian row of a multi-output kernel", "[check][static]") {
    auto [x, y, z] = gradc::variables<3>();
    const std::vector<std::array<double, 3>> pts{{0.4, -1.2, 0.9}, {1.5, 0.3, -0.7}, {-0.2, 2.0, 0.1}};
    // Outputs that use different subsets of the variables (y alone has a one-hot row, the
    // last output none of x).
    CHECK(gradc::check::cross(std::tuple{sin(x) * y, exp(z - x) + x * y * z, hypot(x, z), y, tanh(y) * z}, pts));
    CHECK(gradc::check::cross(std::tuple{erfc(x * y)}, pts));
}

TEST_CASE("a disagreement names the program, the point, the lane, the variable and the output", "[check][static]") {
    // relu at its kink: the program's derivative is 0 (the convention), the central
    // difference 1/2.
    auto [a, b] = gradc::variables<2>();
    const auto k = gradc::compile(relu(a) * b);
    const std::vector<std::array<double, 2>> pts{{0.7, 2.0}, {0.0, 2.0}};
    const std::string m = gradc::test::failure_report([&] { gradc::check::gradcheck(k, pts); });
    CHECK_THAT(m, Catch::Contains("gradient at point 1 (x0 = 0, x1 = 2), output 0, variable x0: got 0, expected 1"));
    CHECK_THAT(m, Catch::Contains("jvp_batch (lane"));
    CHECK_THAT(m, Catch::Contains("gradient_batch (lane"));
    CHECK_THAT(m, !Catch::Contains("at point 0"));
    CHECK_FALSE(gradc::check::gradcheck(k, pts, gradc::test::quietly()));
}
