#pragma once
/// For every rule of the table: points inside its domain (away from kinks, where finite
/// differences are meaningful) and its derivative written independently of the rule, as
/// a closed form. A rule without an entry here does not compile into the tests.

#include <array>
#include <cmath>
#include <numbers>
#include <vector>

#include <gradc/rules.hpp>

namespace gradc::test {

using point = std::array<double, 3>;
using closed_form = std::array<double, 3> (*)(const point&);

template <class Rule>
struct domain;  // intentionally undefined: every rule needs a specialisation

inline const std::vector<point> everywhere{{-2.5, 1.5, 0}, {-0.7, -1.3, 0}, {0.3, 0.8, 0},
                                           {1.1, -0.4, 0}, {2.9, 2.2, 0}, {-0.05, 0.45, 0}};
inline const std::vector<point> positive{{0.05, 1.5, 0}, {0.3, 0.7, 0}, {1.0, 2.0, 0}, {2.7, 0.2, 0}, {9.5, 1.3, 0}};
inline const std::vector<point> unit_interval{{-0.9, 0, 0}, {-0.35, 0, 0}, {0.0, 0, 0}, {0.42, 0, 0}, {0.88, 0, 0}};
inline const std::vector<point> above_minus_one{{-0.9, 0, 0}, {-0.2, 0, 0}, {0.0, 0, 0}, {0.7, 0, 0}, {5.0, 0, 0}};
inline const std::vector<point> small{{-1.2, 0.4, 0}, {-0.3, 0.9, 0}, {0.25, -0.6, 0}, {0.7, 0.1, 0}, {1.3, -1.1, 0}};

constexpr double pi = std::numbers::pi;

// clang-format off
template <> struct domain<rules::add> { static const auto& points() { return everywhere; } static std::array<double, 3> d(const point&) { return {1, 1, 0}; } };
template <> struct domain<rules::sub> { static const auto& points() { return everywhere; } static std::array<double, 3> d(const point&) { return {1, -1, 0}; } };
template <> struct domain<rules::mul> { static const auto& points() { return everywhere; } static std::array<double, 3> d(const point& p) { return {p[1], p[0], 0}; } };
template <> struct domain<rules::div> { static const auto& points() { return everywhere; } static std::array<double, 3> d(const point& p) { return {1 / p[1], -p[0] / (p[1] * p[1]), 0}; } };
template <> struct domain<rules::neg> { static const auto& points() { return everywhere; } static std::array<double, 3> d(const point&) { return {-1, 0, 0}; } };
template <> struct domain<rules::exp> { static const auto& points() { return everywhere; } static std::array<double, 3> d(const point& p) { return {std::exp(p[0]), 0, 0}; } };
template <> struct domain<rules::exp2> { static const auto& points() { return everywhere; } static std::array<double, 3> d(const point& p) { return {std::pow(2.0, p[0]) * std::log(2.0), 0, 0}; } };
template <> struct domain<rules::expm1> { static const auto& points() { return everywhere; } static std::array<double, 3> d(const point& p) { return {std::exp(p[0]), 0, 0}; } };
template <> struct domain<rules::log> { static const auto& points() { return positive; } static std::array<double, 3> d(const point& p) { return {1 / p[0], 0, 0}; } };
template <> struct domain<rules::log2> { static const auto& points() { return positive; } static std::array<double, 3> d(const point& p) { return {1 / (p[0] * std::log(2.0)), 0, 0}; } };
template <> struct domain<rules::log10> { static const auto& points() { return positive; } static std::array<double, 3> d(const point& p) { return {1 / (p[0] * std::log(10.0)), 0, 0}; } };
template <> struct domain<rules::log1p> { static const auto& points() { return above_minus_one; } static std::array<double, 3> d(const point& p) { return {1 / (1 + p[0]), 0, 0}; } };
template <> struct domain<rules::sqrt> { static const auto& points() { return positive; } static std::array<double, 3> d(const point& p) { return {0.5 / std::sqrt(p[0]), 0, 0}; } };
template <> struct domain<rules::cbrt> { static const auto& points() { return small; } static std::array<double, 3> d(const point& p) { return {std::pow(std::abs(p[0]), -2.0 / 3) / 3, 0, 0}; } };
template <> struct domain<rules::pow> { static const auto& points() { return positive; } static std::array<double, 3> d(const point& p) { return {p[1] * std::pow(p[0], p[1] - 1), std::pow(p[0], p[1]) * std::log(p[0]), 0}; } };
template <> struct domain<rules::sin> { static const auto& points() { return everywhere; } static std::array<double, 3> d(const point& p) { return {std::cos(p[0]), 0, 0}; } };
template <> struct domain<rules::cos> { static const auto& points() { return everywhere; } static std::array<double, 3> d(const point& p) { return {-std::sin(p[0]), 0, 0}; } };
template <> struct domain<rules::tan> { static const auto& points() { return small; } static std::array<double, 3> d(const point& p) { return {1 / (std::cos(p[0]) * std::cos(p[0])), 0, 0}; } };
template <> struct domain<rules::asin> { static const auto& points() { return unit_interval; } static std::array<double, 3> d(const point& p) { return {1 / std::sqrt(1 - p[0] * p[0]), 0, 0}; } };
template <> struct domain<rules::acos> { static const auto& points() { return unit_interval; } static std::array<double, 3> d(const point& p) { return {-1 / std::sqrt(1 - p[0] * p[0]), 0, 0}; } };
template <> struct domain<rules::atan> { static const auto& points() { return everywhere; } static std::array<double, 3> d(const point& p) { return {1 / (1 + p[0] * p[0]), 0, 0}; } };
template <> struct domain<rules::atan2> { static const auto& points() { return everywhere; } static std::array<double, 3> d(const point& p) { const double r = p[0] * p[0] + p[1] * p[1]; return {p[1] / r, -p[0] / r, 0}; } };
template <> struct domain<rules::hypot> { static const auto& points() { return everywhere; } static std::array<double, 3> d(const point& p) { const double r = std::sqrt(p[0] * p[0] + p[1] * p[1]); return {p[0] / r, p[1] / r, 0}; } };
template <> struct domain<rules::sinh> { static const auto& points() { return everywhere; } static std::array<double, 3> d(const point& p) { return {std::cosh(p[0]), 0, 0}; } };
template <> struct domain<rules::cosh> { static const auto& points() { return everywhere; } static std::array<double, 3> d(const point& p) { return {std::sinh(p[0]), 0, 0}; } };
template <> struct domain<rules::tanh> { static const auto& points() { return everywhere; } static std::array<double, 3> d(const point& p) { const double c = std::cosh(p[0]); return {1 / (c * c), 0, 0}; } };
template <> struct domain<rules::sigmoid> { static const auto& points() { return everywhere; } static std::array<double, 3> d(const point& p) { const double e = std::exp(-p[0]); return {e / ((1 + e) * (1 + e)), 0, 0}; } };
template <> struct domain<rules::softplus> { static const auto& points() { return everywhere; } static std::array<double, 3> d(const point& p) { return {std::exp(p[0]) / (1 + std::exp(p[0])), 0, 0}; } };
template <> struct domain<rules::erf> { static const auto& points() { return everywhere; } static std::array<double, 3> d(const point& p) { return {2 / std::sqrt(pi) * std::exp(-p[0] * p[0]), 0, 0}; } };
template <> struct domain<rules::erfc> { static const auto& points() { return everywhere; } static std::array<double, 3> d(const point& p) { return {-2 / std::sqrt(pi) * std::exp(-p[0] * p[0]), 0, 0}; } };
template <> struct domain<rules::abs> { static const auto& points() { return everywhere; } static std::array<double, 3> d(const point& p) { return {p[0] > 0 ? 1.0 : -1.0, 0, 0}; } };
template <> struct domain<rules::relu> { static const auto& points() { return everywhere; } static std::array<double, 3> d(const point& p) { return {p[0] > 0 ? 1.0 : 0.0, 0, 0}; } };
template <> struct domain<rules::max> { static const auto& points() { return everywhere; } static std::array<double, 3> d(const point& p) { return {p[0] > p[1] ? 1.0 : 0.0, p[0] > p[1] ? 0.0 : 1.0, 0}; } };
template <> struct domain<rules::min> { static const auto& points() { return everywhere; } static std::array<double, 3> d(const point& p) { return {p[0] < p[1] ? 1.0 : 0.0, p[0] < p[1] ? 0.0 : 1.0, 0}; } };
// where(c, a, b) with the condition taken as p[2] != 0.
template <> struct domain<rules::where> {
    static const auto& points() { static const std::vector<point> p{{0.3, -1.2, 1}, {0.3, -1.2, 0}, {-2.0, 4.0, 1}, {-2.0, 4.0, 0}}; return p; }
    static std::array<double, 3> d(const point& p) { return {0, p[2] != 0 ? 1.0 : 0.0, p[2] != 0 ? 0.0 : 1.0}; }
};
// clang-format on

}  // namespace gradc::test
