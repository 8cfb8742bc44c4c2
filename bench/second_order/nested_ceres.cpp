/// Ceres Jet<Jet<double, 5>, 5> (Ceres's Jet has erfc, generic in its scalar). A nested
/// Jet does not multiply with a double, so the formula of bench.hpp is written here with
/// its constants as Jets, as a Ceres user writes it.

#include <cmath>
#include <numbers>

#include <ceres/jet.h>

#include "nested.hpp"

namespace bench::nested {
namespace {

struct ceres_traits {
    using inner = ceres::Jet<double, 5>;
    using outer = ceres::Jet<inner, 5>;
    static outer variable(double x, std::size_t j) { return outer(inner(x, int(j)), int(j)); }
    static outer price(const outer& s, const outer& k, const outer& t, const outer& r, const outer& v) {
        const outer half(inner(0.5)), c(inner(-0.5 * std::numbers::sqrt2));
        const outer vs = v * sqrt(t);
        const outer d1 = (log(s / k) + (r + half * v * v) * t) / vs;
        const outer d2 = d1 - vs;
        return s * (half * erfc(d1 * c)) - k * exp(-r * t) * (half * erfc(d2 * c));
    }
    static double value(const outer& y) { return y.a.a; }
    static double gradient(const outer& y, std::size_t i) { return y.v[Eigen::Index(i)].a; }
    static double hessian(const outer& y, std::size_t i, std::size_t j) { return y.v[Eigen::Index(i)].v[Eigen::Index(j)]; }
};

}  // namespace

points_fn ceres() { return &black_scholes_points<ceres_traits>; }

}  // namespace bench::nested
