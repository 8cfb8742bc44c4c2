/// Sacado SFad<double, K>: forward mode, expression templates, fixed K. Sacado has no
/// erf/erfc for Fad types, so Φ is a user function: value, then φ(z)·dz per component.

#include <cmath>
#include <numbers>

#include <Sacado_No_Kokkos.hpp>

#include "forward.hpp"

namespace bench {

template <int K>
using sfad = Sacado::Fad::SFad<double, K>;

template <int K>
struct normal_cdf<sfad<K>> {
    static sfad<K> apply(const sfad<K>& z) {
        const double v = z.val();
        const double pdf = std::exp(-0.5 * v * v) * 0.5 * std::numbers::inv_sqrtpi * std::numbers::sqrt2;
        sfad<K> r(K, 0.5 * std::erfc(-v * 0.5 * std::numbers::sqrt2));
        for (int j = 0; j < K; ++j) r.fastAccessDx(j) = pdf * z.dx(j);
        return r;
    }
};

namespace {

template <std::size_t K>
struct sacado_traits {
    using S = sfad<int(K)>;
    static S variable(double x, std::size_t j) { return S(int(K), int(j), x); }
    static S constant(double x) { return S(x); }
    static double value(const S& y) { return y.val(); }
    static double derivative(const S& y, std::size_t j) { return y.dx(int(j)); }
};

}  // namespace

void register_sacado(registry& r) { register_forward<sacado_traits>(r, "sacado-sfad"); }

}  // namespace bench
