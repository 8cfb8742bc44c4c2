#pragma once
/// The hand-written reference: the Black-Scholes call price, its gradient and its Hessian
/// in (s, k, t, r, v) from the closed forms, derived by hand from
///   C = s·N(d1) - k·e^(-rt)·N(d2),  d1 = (log(s/k) + (r + v²/2)t)/(v√t),  d2 = d1 - v√t,
/// sharing every common factor (k·e^(-rt)·φ(d2) = s·φ(d1), so one exponential serves both
/// densities). Generic in T: doubles or xsimd batches. The benchmark checks it against
/// gradc's Hessian before timing anything.

#include <cmath>
#include <numbers>

namespace bench::greeks {

/// out[0] value, out[1..5] gradient, out[6..20] the Hessian's upper triangle, row-major.
template <class T>
inline void black_scholes_second_order(const T& s, const T& k, const T& t, const T& r, const T& v, T* out) {
    using std::erfc;
    using std::exp;
    using std::log;
    using std::sqrt;
    const double inv_sqrt2 = 0.5 * std::numbers::sqrt2;
    const double inv_sqrt2pi = 0.5 * std::numbers::inv_sqrtpi * std::numbers::sqrt2;
    const T sq = sqrt(t);
    const T vs = v * sq;
    const T inv_vs = T(1.0) / vs;
    const T d1 = (log(s / k) + (r + 0.5 * v * v) * t) * inv_vs;
    const T d2 = d1 - vs;
    const T n1 = 0.5 * erfc(-d1 * inv_sqrt2);
    const T n2 = 0.5 * erfc(-d2 * inv_sqrt2);
    const T disc = exp(-r * t);
    const T kd = k * disc;
    const T phi1 = inv_sqrt2pi * exp(-0.5 * d1 * d1);
    const T sphi = s * phi1;         // = k·e^(-rt)·φ(d2)
    const T dphi2 = sphi / k;        // e^(-rt)·φ(d2)
    const T kdn2 = kd * n2;
    // Partials of d1 (d2's differ in v and t only, by those of v√t).
    const T d1_s = inv_vs / s;
    const T d1_k = -inv_vs / k;
    const T d1_r = t * inv_vs;
    const T d1_v = -d2 / v;
    const T d1_t = (r + 0.5 * v * v) * inv_vs - d1 / (2.0 * t);
    const T d2_v = d1_v - sq;
    const T d2_t = d1_t - v / (2.0 * sq);
    out[0] = s * n1 - kdn2;
    out[1] = n1;                                       // s
    out[2] = -disc * n2;                               // k
    out[3] = sphi * v / (2.0 * sq) + r * kdn2;         // t
    out[4] = t * kdn2;                                 // r
    out[5] = sphi * sq;                                // v
    const T half_vd1 = sphi * v * d1 / (2.0 * sq);
    out[6] = phi1 * d1_s;                              // s s
    out[7] = phi1 * d1_k;                              // s k
    out[8] = phi1 * d1_t;                              // s t
    out[9] = phi1 * d1_r;                              // s r
    out[10] = phi1 * d1_v;                             // s v
    out[11] = -dphi2 * d1_k;                           // k k
    out[12] = r * disc * n2 - dphi2 * d2_t;            // k t
    out[13] = t * disc * n2 - dphi2 * d1_r;            // k r
    out[14] = -dphi2 * d2_v;                           // k v
    out[15] = -half_vd1 * d1_t - sphi * v / (4.0 * t * sq) - r * r * kdn2 + r * sphi * d2_t;  // t t
    out[16] = -half_vd1 * d1_r + kdn2 - r * t * kdn2 + r * sphi * d1_r;                      // t r
    out[17] = sphi / (2.0 * sq) - half_vd1 * d1_v + r * sphi * d2_v;                         // t v
    out[18] = -t * t * kdn2 + t * sphi * d1_r;         // r r
    out[19] = t * sphi * d2_v;                         // r v
    out[20] = -sphi * sq * d1 * d1_v;                  // v v
}

}  // namespace bench::greeks
