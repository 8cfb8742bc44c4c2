/// Eigen AutoDiffScalar<Matrix<double, K, 1>>: forward mode with a fixed-size derivative
/// vector. It has no erf/erfc, so Φ is added the way a user extends it: value and
/// derivative (φ(z) times the incoming derivatives) by MakeAutoDiffScalar.

#include <cmath>
#include <numbers>

#include <Eigen/Core>
#include <unsupported/Eigen/AutoDiff>

#include "forward.hpp"

namespace bench {

template <int K>
using eigen_ad = Eigen::AutoDiffScalar<Eigen::Matrix<double, K, 1>>;

template <int K>
struct normal_cdf<eigen_ad<K>> {
    static eigen_ad<K> apply(const eigen_ad<K>& z) {
        const double v = z.value();
        const double pdf = std::exp(-0.5 * v * v) * 0.5 * std::numbers::inv_sqrtpi * std::numbers::sqrt2;
        return Eigen::MakeAutoDiffScalar(0.5 * std::erfc(-v * 0.5 * std::numbers::sqrt2),
                                         Eigen::Matrix<double, K, 1>(z.derivatives() * pdf));
    }
};

namespace {

template <std::size_t K>
struct eigen_traits {
    using S = eigen_ad<int(K)>;
    static S variable(double x, std::size_t j) { return S(x, int(K), int(j)); }
    static S constant(double x) { return S(x, Eigen::Matrix<double, int(K), 1>::Zero()); }
    static double value(const S& y) { return y.value(); }
    static double derivative(const S& y, std::size_t j) { return y.derivatives()[Eigen::Index(j)]; }
};

}  // namespace

void register_eigen(registry& r) { register_forward<eigen_traits>(r, "eigen-autodiff"); }

}  // namespace bench
