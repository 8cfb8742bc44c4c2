/// Ceres Jet<double, K>: forward mode with K derivative components (ceres has erfc).

#include <ceres/jet.h>

#include "forward.hpp"

namespace bench {
namespace {

template <std::size_t K>
struct jet_traits {
    using S = ceres::Jet<double, int(K)>;
    static S variable(double x, std::size_t j) { return S(x, int(j)); }
    static S constant(double x) { return S(x); }
    static double value(const S& y) { return y.a; }
    static double derivative(const S& y, std::size_t j) { return y.v[Eigen::Index(j)]; }
};

}  // namespace

void register_ceres(registry& r) { register_forward<jet_traits>(r, "ceres-jet"); }

}  // namespace bench
