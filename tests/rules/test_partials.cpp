// Every rule of the table, at the points of the domain it declares: the partials agree
// with central finite differences of the rule's own evaluation, with an independently
// written closed form where tests/rules/domains.hpp has one, and between double and
// float; and they read no value beyond those the rule's `reads` declares.

#include <bit>
#include <cstdint>
#include <limits>

#include <boost/hana/for_each.hpp>
#include <boost/hana/length.hpp>

#include <approx.hpp>
#include "domains.hpp"

namespace {

using gradc::test::point;

/// Calls f(operands...) for rule R at point p; where's condition is p[2] != 0.
template <class R, class F>
decltype(auto) with_operands(const point& p, F&& f) {
    if constexpr (std::is_same_v<R, gradc::rules::where>) {
        return f(p[2] != 0, p[0], p[1]);
    } else if constexpr (R::arity == 1) {
        return f(p[0]);
    } else {
        return f(p[0], p[1]);
    }
}

template <class R, int K>
double partial_at(const point& p) {
    return with_operands<R>(p, [](const auto&... a) {
        const double y = R::eval(a...);
        return gradc::rules::scale(R::partial(gradc::rules::arg<K>, a..., y), 1.0);
    });
}

template <class R, int K>
double finite_difference_at(const point& p) {
    const int slot = std::is_same_v<R, gradc::rules::where> ? K - 1 : K;
    return gradc::test::central_difference(
        [&](double v) {
            point q = p;
            q[slot] = v;
            return with_operands<R>(q, [](const auto&... a) { return R::eval(a...); });
        },
        p[slot]);
}

template <class R, int K>
float partial_in_float(const point& p) {
    const auto f = [](double v) { return static_cast<float>(v); };
    if constexpr (std::is_same_v<R, gradc::rules::where>) {
        const float a = f(p[0]), b = f(p[1]);
        return gradc::rules::scale(R::partial(gradc::rules::arg<K>, p[2] != 0, a, b, R::eval(p[2] != 0, a, b)), 1.0f);
    } else if constexpr (R::arity == 1) {
        const float a = f(p[0]);
        return gradc::rules::scale(R::partial(gradc::rules::arg<K>, a, R::eval(a)), 1.0f);
    } else {
        const float a = f(p[0]), b = f(p[1]);
        return gradc::rules::scale(R::partial(gradc::rules::arg<K>, a, b, R::eval(a, b)), 1.0f);
    }
}

template <class R, int K>
void check_operand(const point& p) {
    if constexpr (gradc::rules::is_differentiable_operand<R, K>) {
        const double analytic = partial_at<R, K>(p);
        INFO("rule " << R::name << ", operand " << K << ", at (" << p[0] << ", " << p[1] << ", " << p[2] << ")");
        CHECK_THAT(analytic, gradc::test::is_close_to(finite_difference_at<R, K>(p), 1e-7, 1e-9));
        if constexpr (gradc::test::has_closed_form<R>) {
            CHECK_THAT(analytic, gradc::test::is_close_to(gradc::test::closed_form<R>::d(p)[K], 1e-13, 1e-15));
        }
        CHECK_THAT(static_cast<double>(partial_in_float<R, K>(p)), gradc::test::is_close_to(analytic, 2e-5, 1e-6));
    }
}

bool same_bits(double a, double b) {
    return (std::isnan(a) && std::isnan(b)) || std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

/// The partial for operand K with every value the rule does not declare in `reads`
/// replaced by NaN: equal to the partial with all values when the declaration is right.
template <class R, int K>
void check_reads(const point& p) {
    if constexpr (gradc::rules::is_differentiable_operand<R, K>) {
        constexpr gradc::rules::reads_t reads = R::reads;
        const double nan = std::numeric_limits<double>::quiet_NaN();
        const auto keep = [&](bool read, double v) { return read ? v : nan; };
        const auto d = [](const auto&... v) { return gradc::rules::scale(R::partial(gradc::rules::arg<K>, v...), 1.0); };
        INFO("rule " << R::name << ", operand " << K << ": its partial reads a value its `reads` does not declare");
        if constexpr (std::is_same_v<R, gradc::rules::where>) {
            const bool c = p[2] != 0;
            const double y = R::eval(c, p[0], p[1]);
            CHECK(same_bits(d(c, p[0], p[1], y), d(c, keep(reads.b, p[0]), keep(reads.c, p[1]), keep(reads.y, y))));
        } else if constexpr (R::arity == 1) {
            const double y = R::eval(p[0]);
            CHECK(same_bits(d(p[0], y), d(keep(reads.a, p[0]), keep(reads.y, y))));
        } else {
            const double y = R::eval(p[0], p[1]);
            CHECK(same_bits(d(p[0], p[1], y), d(keep(reads.a, p[0]), keep(reads.b, p[1]), keep(reads.y, y))));
        }
    }
}

}  // namespace

TEST_CASE("every rule's partials match finite differences and closed forms", "[rules]") {
    std::size_t rules_checked = 0;
    boost::hana::for_each(gradc::rules::all, [&](auto rule) {
        using R = typename decltype(rule)::type;
        ++rules_checked;
        for (const point& p : gradc::test::points<R>()) {
            [&]<int... K>(std::integer_sequence<int, K...>) {
                (check_operand<R, K>(p), ...);
                (check_reads<R, K>(p), ...);
            }(std::make_integer_sequence<int, R::arity>{});
        }
    });
    CHECK(rules_checked == decltype(boost::hana::length(gradc::rules::all))::value);
    CHECK(rules_checked >= 35);
}

TEST_CASE("every rule is a Rule and prints a partial for each differentiable operand", "[rules]") {
    boost::hana::for_each(gradc::rules::all, [](auto rule) {
        using R = typename decltype(rule)::type;
        STATIC_REQUIRE(gradc::rules::Rule<R>);
        for (int k = 0; k < R::arity; ++k) {
            const bool differentiable = k != 0 || !std::is_same_v<R, gradc::rules::where>;
            CHECK(R::partial_text[static_cast<std::size_t>(k)].empty() == !differentiable);
        }
    });
}

TEST_CASE("every rule's test points lie inside the domain it declares", "[rules]") {
    boost::hana::for_each(gradc::rules::all, [](auto rule) {
        using R = typename decltype(rule)::type;
        const auto in = gradc::rules::domain_interval(R::domain);
        // where's operands are (condition, a, b); its points hold a, b first.
        constexpr int values = std::is_same_v<R, gradc::rules::where> ? 2 : R::arity;
        for (const gradc::test::point& p : gradc::test::points<R>()) {
            for (int k = 0; k < values; ++k) {
                INFO("rule " << R::name << ", coordinate " << k << " = " << p[static_cast<std::size_t>(k)]);
                CHECK(p[static_cast<std::size_t>(k)] > in.lo);
                CHECK(p[static_cast<std::size_t>(k)] < in.hi);
            }
        }
    });
}
