#pragma once
/// The points where the table-driven tests check each rule: one set per `test_domain`
/// (rules/rule.hpp), the domain a rule declares. Optionally, a rule's derivative written
/// independently of it, as a closed form.

#include <array>
#include <cmath>
#include <numbers>
#include <type_traits>
#include <vector>

#include <gradc/rules.hpp>

namespace gradc::test {

using point = std::array<double, 3>;

inline const std::vector<point> everywhere{{-2.5, 1.5, 0}, {-0.7, -1.3, 0}, {0.3, 0.8, 0},
                                           {1.1, -0.4, 0}, {2.9, 2.2, 0}, {-0.05, 0.45, 0}};
inline const std::vector<point> positive{{0.05, 1.5, 0}, {0.3, 0.7, 0}, {1.0, 2.0, 0}, {2.7, 0.2, 0}, {9.5, 1.3, 0}};
inline const std::vector<point> above_minus_one{{-0.9, 0.3, 0}, {-0.2, -0.7, 0}, {0.0, 1.6, 0}, {0.7, 0.1, 0}, {5.0, -0.4, 0}};
inline const std::vector<point> above_one{{1.05, 2.5, 0}, {1.4, 1.2, 0}, {2.0, 6.0, 0}, {3.7, 1.9, 0}, {12.0, 1.1, 0}};
inline const std::vector<point> inside_unit{{-0.9, 0.2, 0}, {-0.35, -0.6, 0}, {0.0, 0.5, 0}, {0.42, -0.1, 0}, {0.88, 0.7, 0}};
inline const std::vector<point> probability{{0.04, 0.5, 0}, {0.3, 0.2, 0}, {0.5, 0.9, 0}, {0.71, 0.35, 0}, {0.95, 0.6, 0}};
inline const std::vector<point> moderate{{-1.2, 0.4, 0}, {-0.3, 0.9, 0}, {0.25, -0.6, 0}, {0.7, 0.1, 0}, {1.3, -1.1, 0}};

/// The points of a test domain (rules/rule.hpp), inside its interval in every coordinate
/// but the last (tests/rules/test_partials.cpp checks it).
inline const std::vector<point>& points_of(rules::test_domain d) {
    using enum rules::test_domain;
    switch (d) {
        case positive: return test::positive;
        case above_minus_one: return test::above_minus_one;
        case above_one: return test::above_one;
        case inside_unit: return test::inside_unit;
        case probability: return test::probability;
        case moderate: return test::moderate;
        case everywhere: break;
    }
    return test::everywhere;
}

/// The points where rule R is tested: those of its domain; for `where`, the condition
/// (the third coordinate, true when not 0) alternates so that both branches are taken.
template <class R>
const std::vector<point>& points() {
    if constexpr (std::is_same_v<R, rules::where>) {
        static const std::vector<point> p = [] {
            std::vector<point> r = points_of(R::domain);
            for (std::size_t i = 0; i < r.size(); ++i) r[i][2] = static_cast<double>(i % 2);
            return r;
        }();
        return p;
    } else {
        return points_of(R::domain);
    }
}

/// Optionally, a rule's derivative written independently of the rule, as a closed form
/// (`d(p)`: the partial with respect to each operand). A rule needs none; those given
/// here are checked in tests/rules/test_partials.cpp.
template <class Rule>
struct closed_form {};

template <class R>
concept has_closed_form = requires(const point& p) { closed_form<R>::d(p); };

constexpr double pi = std::numbers::pi;

// clang-format off
template <> struct closed_form<rules::add> { static std::array<double, 3> d(const point&) { return {1, 1, 0}; } };
template <> struct closed_form<rules::sub> { static std::array<double, 3> d(const point&) { return {1, -1, 0}; } };
template <> struct closed_form<rules::mul> { static std::array<double, 3> d(const point& p) { return {p[1], p[0], 0}; } };
template <> struct closed_form<rules::div> { static std::array<double, 3> d(const point& p) { return {1 / p[1], -p[0] / (p[1] * p[1]), 0}; } };
template <> struct closed_form<rules::neg> { static std::array<double, 3> d(const point&) { return {-1, 0, 0}; } };
template <> struct closed_form<rules::exp> { static std::array<double, 3> d(const point& p) { return {std::exp(p[0]), 0, 0}; } };
template <> struct closed_form<rules::exp2> { static std::array<double, 3> d(const point& p) { return {std::pow(2.0, p[0]) * std::log(2.0), 0, 0}; } };
template <> struct closed_form<rules::expm1> { static std::array<double, 3> d(const point& p) { return {std::exp(p[0]), 0, 0}; } };
template <> struct closed_form<rules::log> { static std::array<double, 3> d(const point& p) { return {1 / p[0], 0, 0}; } };
template <> struct closed_form<rules::log2> { static std::array<double, 3> d(const point& p) { return {1 / (p[0] * std::log(2.0)), 0, 0}; } };
template <> struct closed_form<rules::log10> { static std::array<double, 3> d(const point& p) { return {1 / (p[0] * std::log(10.0)), 0, 0}; } };
template <> struct closed_form<rules::log1p> { static std::array<double, 3> d(const point& p) { return {1 / (1 + p[0]), 0, 0}; } };
template <> struct closed_form<rules::sqrt> { static std::array<double, 3> d(const point& p) { return {0.5 / std::sqrt(p[0]), 0, 0}; } };
template <> struct closed_form<rules::cbrt> { static std::array<double, 3> d(const point& p) { return {std::pow(std::abs(p[0]), -2.0 / 3) / 3, 0, 0}; } };
template <> struct closed_form<rules::pow> { static std::array<double, 3> d(const point& p) { return {p[1] * std::pow(p[0], p[1] - 1), std::pow(p[0], p[1]) * std::log(p[0]), 0}; } };
template <> struct closed_form<rules::sin> { static std::array<double, 3> d(const point& p) { return {std::cos(p[0]), 0, 0}; } };
template <> struct closed_form<rules::cos> { static std::array<double, 3> d(const point& p) { return {-std::sin(p[0]), 0, 0}; } };
template <> struct closed_form<rules::tan> { static std::array<double, 3> d(const point& p) { return {1 / (std::cos(p[0]) * std::cos(p[0])), 0, 0}; } };
template <> struct closed_form<rules::asin> { static std::array<double, 3> d(const point& p) { return {1 / std::sqrt(1 - p[0] * p[0]), 0, 0}; } };
template <> struct closed_form<rules::acos> { static std::array<double, 3> d(const point& p) { return {-1 / std::sqrt(1 - p[0] * p[0]), 0, 0}; } };
template <> struct closed_form<rules::atan> { static std::array<double, 3> d(const point& p) { return {1 / (1 + p[0] * p[0]), 0, 0}; } };
template <> struct closed_form<rules::atan2> { static std::array<double, 3> d(const point& p) { const double r = p[0] * p[0] + p[1] * p[1]; return {p[1] / r, -p[0] / r, 0}; } };
template <> struct closed_form<rules::hypot> { static std::array<double, 3> d(const point& p) { const double r = std::sqrt(p[0] * p[0] + p[1] * p[1]); return {p[0] / r, p[1] / r, 0}; } };
template <> struct closed_form<rules::sinh> { static std::array<double, 3> d(const point& p) { return {std::cosh(p[0]), 0, 0}; } };
template <> struct closed_form<rules::cosh> { static std::array<double, 3> d(const point& p) { return {std::sinh(p[0]), 0, 0}; } };
template <> struct closed_form<rules::tanh> { static std::array<double, 3> d(const point& p) { const double c = std::cosh(p[0]); return {1 / (c * c), 0, 0}; } };
template <> struct closed_form<rules::sigmoid> { static std::array<double, 3> d(const point& p) { const double e = std::exp(-p[0]); return {e / ((1 + e) * (1 + e)), 0, 0}; } };
template <> struct closed_form<rules::softplus> { static std::array<double, 3> d(const point& p) { return {std::exp(p[0]) / (1 + std::exp(p[0])), 0, 0}; } };
template <> struct closed_form<rules::erf> { static std::array<double, 3> d(const point& p) { return {2 / std::sqrt(pi) * std::exp(-p[0] * p[0]), 0, 0}; } };
template <> struct closed_form<rules::erfc> { static std::array<double, 3> d(const point& p) { return {-2 / std::sqrt(pi) * std::exp(-p[0] * p[0]), 0, 0}; } };
template <> struct closed_form<rules::abs> { static std::array<double, 3> d(const point& p) { return {p[0] > 0 ? 1.0 : -1.0, 0, 0}; } };
template <> struct closed_form<rules::relu> { static std::array<double, 3> d(const point& p) { return {p[0] > 0 ? 1.0 : 0.0, 0, 0}; } };
template <> struct closed_form<rules::max> { static std::array<double, 3> d(const point& p) { return {p[0] > p[1] ? 1.0 : 0.0, p[0] > p[1] ? 0.0 : 1.0, 0}; } };
template <> struct closed_form<rules::min> { static std::array<double, 3> d(const point& p) { return {p[0] < p[1] ? 1.0 : 0.0, p[0] < p[1] ? 0.0 : 1.0, 0}; } };
// where(c, a, b) with the condition taken as p[2] != 0.
template <> struct closed_form<rules::where> {
    static std::array<double, 3> d(const point& p) { return {0, p[2] != 0 ? 1.0 : 0.0, p[2] != 0 ? 0.0 : 1.0}; }
};
// clang-format on

/// The first A coordinates of each point: the operands of an A-operand rule.
template <std::size_t A>
std::vector<std::array<double, A>> first_coordinates(const std::vector<point>& points) {
    std::vector<std::array<double, A>> r;
    for (const auto& p : points) {
        std::array<double, A> q{};
        for (std::size_t j = 0; j < A; ++j) q[j] = p[j];
        r.push_back(q);
    }
    return r;
}

}  // namespace gradc::test
