/// Eigen AutoDiffScalar<Matrix<AutoDiffScalar<Vector5d>, 5, 1>>. Eigen's AutoDiffScalar
/// has no erfc: Φ is added as a user extends it, value and φ(z)·derivatives, nested.

#include <cmath>
#include <numbers>

#include <Eigen/Core>
#include <unsupported/Eigen/AutoDiff>

#include "nested.hpp"

namespace bench {

template <class Der>
struct normal_cdf<Eigen::AutoDiffScalar<Der>> {
    using A = Eigen::AutoDiffScalar<Der>;
    using S = typename Der::Scalar;
    static A apply(const A& z) {
        const S v = z.value();
        using std::exp;
        const S pdf = exp(-0.5 * v * v) * (0.5 * std::numbers::inv_sqrtpi * std::numbers::sqrt2);
        return A(normal_cdf<S>::apply(v), Der(z.derivatives() * pdf));
    }
};

namespace nested {
namespace {

struct eigen_traits {
    using inner = Eigen::AutoDiffScalar<Eigen::Matrix<double, 5, 1>>;
    using outer = Eigen::AutoDiffScalar<Eigen::Matrix<inner, 5, 1>>;
    static outer variable(double x, std::size_t j) {
        Eigen::Matrix<inner, 5, 1> d;
        for (int i = 0; i < 5; ++i) d[i] = inner(i == int(j) ? 1.0 : 0.0, Eigen::Matrix<double, 5, 1>::Zero());
        return outer(inner(x, 5, int(j)), d);
    }
    static outer price(const outer& s, const outer& k, const outer& t, const outer& r, const outer& v) {
        return formula::black_scholes(s, k, t, r, v);
    }
    static double value(const outer& y) { return y.value().value(); }
    static double gradient(const outer& y, std::size_t i) { return y.derivatives()[Eigen::Index(i)].value(); }
    static double hessian(const outer& y, std::size_t i, std::size_t j) {
        return y.derivatives()[Eigen::Index(i)].derivatives()[Eigen::Index(j)];
    }
};

}  // namespace

points_fn eigen() { return &black_scholes_points<eigen_traits>; }

}  // namespace nested
}  // namespace bench
