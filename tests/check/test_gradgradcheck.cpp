// gradc::check::gradgradcheck (compiled Hessian and HVP programs, scalar and batch, against
// central differences of the compiled gradient) and gradc::check::cross_hessian (against
// the dynamic engine's functional::hessian): every primitive of the rule table, composite
// kernels, and the failure report.
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

/// The rule applied to the variables, times a product that makes every second derivative
/// of the rule reach the Hessian (the rule's own second derivative, and its partials mixed
/// with another variable's).
template <class R, std::size_t... I>
auto curved_rule_expression(std::index_sequence<I...>) {
    auto vars = gradc::variables<sizeof...(I) + 1>();
    const auto applied = gradc::expr::node<R, std::tuple_element_t<I, decltype(vars)>...>{};
    const auto w = std::get<sizeof...(I)>(vars);
    return applied * (w + 0.5) + applied * applied;
}

}  // namespace

TEST_CASE("every primitive of the rule table passes gradgradcheck and the cross-check of Hessians",
          "[check][second_order][table]") {
    boost::hana::for_each(gradc::rules::all, [](auto t) {
        using R = typename decltype(t)::type;
        INFO(R::name);
        if constexpr (std::is_same_v<R, gradc::rules::where>) {
            auto [a, b, c] = gradc::variables<3>();
            const auto e = where(c > 0.5, a * a * b, sin(b) * a);
            const auto pts = gradc::test::first_coordinates<3>(gradc::test::points<R>());
            CHECK(gradc::check::gradgradcheck(gradc::compile(e), pts));
            CHECK(gradc::check::cross_hessian(e, pts));
        } else {
            const auto e = curved_rule_expression<R>(std::make_index_sequence<R::arity>{});
            auto pts3 = gradc::test::points<R>();
            for (auto& p : pts3) p[2] = 0.3;  // the weight variable
            std::vector<std::array<double, R::arity + 1>> pts;
            for (const auto& p : pts3) {
                std::array<double, R::arity + 1> q{};
                for (std::size_t j = 0; j < R::arity; ++j) q[j] = p[j];
                q[R::arity] = 0.3;
                pts.push_back(q);
            }
            CHECK(gradc::check::gradgradcheck(gradc::compile(e), pts));
            CHECK(gradc::check::cross_hessian(e, pts));
        }
    });
}

TEST_CASE("gradgradcheck and cross_hessian pass on composite kernels with wrt subsets", "[check][second_order]") {
    auto [x, mu, sigma] = gradc::variables<3>();
    const auto z = (x - mu) / sigma;
    const auto nll = log(sigma) + 0.5 * z * z + sqrt(abs(mu) + 1.0) * tanh(x) + pow(sigma, x) * erfc(mu);
    const std::vector<std::array<double, 3>> pts{{0.5, 0.1, 1.2}, {-1.0, 0.3, 0.7}, {2.0, -0.5, 2.5}};
    CHECK(gradc::check::gradgradcheck(gradc::compile(nll), pts));
    CHECK(gradc::check::gradgradcheck(gradc::compile(nll, gradc::wrt(sigma, mu)), pts));
    CHECK(gradc::check::cross_hessian(nll, pts));
}

TEST_CASE("a second-order disagreement names the program, the point, the lane and the variables",
          "[check][second_order]") {
    // relu(a)·a at a = 0: the Hessian is 0 by relu's convention (relu'(0) = 0), the central
    // difference of the gradient 2·relu(a) + ... is 1.
    auto [a, b] = gradc::variables<2>();
    const auto k = gradc::compile(relu(a) * a + b * b);
    const std::vector<std::array<double, 2>> pts{{0.7, 2.0}, {0.0, 2.0}};
    const std::string m = gradc::test::failure_report([&] { gradc::check::gradgradcheck(k, pts); });
    CHECK_THAT(m, Catch::Contains("gradc::check::gradgradcheck"));
    CHECK_THAT(m, Catch::Contains("hessian at point 1 (x0 = 0, x1 = 2), variable x0, variable x0: got 0, expected 1"));
    CHECK_THAT(m, Catch::Contains("hvp (unit direction) at point 1"));
    CHECK_THAT(m, Catch::Contains("hessian_batch (lane"));
    CHECK_THAT(m, Catch::Contains("hvp_batch (lane"));
    CHECK_THAT(m, !Catch::Contains("at point 0"));
    CHECK_FALSE(gradc::check::gradgradcheck(k, pts, gradc::test::quietly()));
}
