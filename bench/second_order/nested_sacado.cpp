/// Sacado SFad<SFad<double, 5>, 5>. Sacado has no erfc for Fad types: Φ is a user
/// function, value then φ(z)·dz per component, nested level by level.

#include <cmath>
#include <numbers>

#include <Sacado_No_Kokkos.hpp>

#include "nested.hpp"

namespace bench {

template <class S, int K>
struct normal_cdf<Sacado::Fad::SFad<S, K>> {
    using F = Sacado::Fad::SFad<S, K>;
    static F apply(const F& z) {
        const S v = z.val();
        using std::exp;
        const S pdf = exp(-0.5 * v * v) * (0.5 * std::numbers::inv_sqrtpi * std::numbers::sqrt2);
        F r(K, normal_cdf<S>::apply(v));
        for (int j = 0; j < K; ++j) r.fastAccessDx(j) = pdf * z.dx(j);
        return r;
    }
};

namespace nested {
namespace {

struct sacado_traits {
    using inner = Sacado::Fad::SFad<double, 5>;
    using outer = Sacado::Fad::SFad<inner, 5>;
    static outer variable(double x, std::size_t j) { return outer(5, int(j), inner(5, int(j), x)); }
    static outer price(const outer& s, const outer& k, const outer& t, const outer& r, const outer& v) {
        return formula::black_scholes(s, k, t, r, v);
    }
    static double value(const outer& y) { return y.val().val(); }
    static double gradient(const outer& y, std::size_t i) { return y.dx(int(i)).val(); }
    static double hessian(const outer& y, std::size_t i, std::size_t j) { return y.dx(int(i)).dx(int(j)); }
};

}  // namespace

points_fn sacado() { return &black_scholes_points<sacado_traits>; }

}  // namespace nested
}  // namespace bench
