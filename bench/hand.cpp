/// Hand-written derivatives: the reference every implementation is checked against
/// (hand-scalar, on double) and the physical limit of this machine (hand-simd, the same
/// formulas on xsimd batches). Written for speed: shared subexpressions, sincos, one
/// reciprocal instead of several divisions, Black-Scholes Greeks in closed form, and for
/// the likelihood the loop-invariant parts (1/σ, log σ) taken out of the sum.

#include <array>
#include <cmath>
#include <cstddef>
#include <numbers>

#include <gradc/simd/config.hpp>

#include "bench.hpp"

GRADC_SIMD_DIAGNOSTICS_PUSH

namespace bench {
namespace {

using std::cos;
using std::erfc;
using std::exp;
using std::log;
using std::sin;
using std::sqrt;
using std::tanh;

template <class V>
void sincos_of(const V& x, V& s, V& c) {
    if constexpr (std::is_same_v<V, double>) {
        s = std::sin(x);
        c = std::cos(x);
    } else {
        auto sc = xsimd::sincos(x);
        s = sc.first;
        c = sc.second;
    }
}

template <class V>
void seed(const V* x, V* out) {
    V s, c;
    sincos_of(x[0], s, c);
    out[0] = s + x[0] * x[1];
    out[1] = c + x[1];
    out[2] = x[0];
}

template <class V>
void normal_logpdf(const V* x, V* out) {
    const V inv = V(1) / x[2];
    const V z = (x[0] - x[1]) * inv;
    const V zi = z * inv;
    out[0] = V(-0.5) * z * z - log(x[2]) - V(half_log_2pi);
    out[1] = -zi;
    out[2] = zi;
    out[3] = (z * z - V(1)) * inv;
}

template <class V>
void black_scholes(const V* x, V* out) {
    const V &s = x[0], &k = x[1], &t = x[2], &r = x[3], &v = x[4];
    const V sqt = sqrt(t);
    const V vs = v * sqt;
    const V d1 = (log(s / k) + (r + V(0.5) * v * v) * t) / vs;
    const V d2 = d1 - vs;
    const V c = V(-0.5 * std::numbers::sqrt2);
    const V n1 = V(0.5) * erfc(d1 * c);
    const V n2 = V(0.5) * erfc(d2 * c);
    const V df = exp(-r * t);
    const V kdf = k * df;
    const V kn2 = kdf * n2;
    const V spdf1 = s * exp(V(-0.5) * d1 * d1) * V(0.5 * std::numbers::inv_sqrtpi * std::numbers::sqrt2);
    out[0] = s * n1 - kn2;
    out[1] = n1;
    out[2] = -df * n2;
    out[3] = spdf1 * v / (V(2) * sqt) + r * kn2;
    out[4] = t * kn2;
    out[5] = spdf1 * sqt;
}

const mlp_table& weights = mlp_weights();

template <class V>
void mlp(const V* x, V* out) {
    V f(0);
    std::array<V, mlp_inputs> g;
    g.fill(V(0));
    for (int j = 0; j < mlp_hidden; ++j) {
        V a = V(weights.w[j][0]) * x[0];
        for (int i = 1; i < mlp_inputs; ++i) a = a + V(weights.w[j][i]) * x[i];
        const V h = tanh(a);
        f = f + V(weights.u[j]) * h;
        const V t = V(weights.u[j]) * (V(1) - h * h);
        for (int i = 0; i < mlp_inputs; ++i) g[i] = g[i] + t * V(weights.w[j][i]);
    }
    out[0] = f;
    for (int i = 0; i < mlp_inputs; ++i) out[1 + i] = g[i];
}

/// A per-point kernel over all points: batches, then the remainder on scalars.
template <std::size_t K, std::size_t M, void (*Batch)(const xsimd::batch<double>*, xsimd::batch<double>*),
          void (*Scalar)(const double*, double*)>
void per_point(const problem& p, bool simd) {
    using B = xsimd::batch<double>;
    std::size_t i = 0;
    if (simd) {
        for (; i + B::size <= p.n; i += B::size) {
            std::array<B, K> x;
            for (std::size_t j = 0; j < K; ++j) x[j] = B::load_unaligned(p.in[j] + i);
            std::array<B, M> y;
            Batch(x.data(), y.data());
            for (std::size_t m = 0; m < M; ++m) y[m].store_unaligned(p.out[m] + i);
        }
    }
    for (; i < p.n; ++i) {
        std::array<double, K> x;
        for (std::size_t j = 0; j < K; ++j) x[j] = p.in[j][i];
        std::array<double, M> y;
        Scalar(x.data(), y.data());
        for (std::size_t m = 0; m < M; ++m) p.out[m][i] = y[m];
    }
}

/// Σ log N(xᵢ; μ, σ) = -Σzᵢ²/2 - N log σ - N log(2π)/2 with zᵢ = (xᵢ-μ)/σ;
/// ∂/∂μ = Σzᵢ/σ, ∂/∂σ = (Σzᵢ² - N)/σ.
void loglik(const problem& p, bool simd) {
    using B = xsimd::batch<double>;
    const double mu = loglik_mu, sigma = loglik_sigma, inv = 1 / sigma;
    double sz = 0, szz = 0;
    std::size_t i = 0;
    if (simd) {
        // Two accumulator pairs: the adds then overlap instead of waiting on each other.
        B z1(0), zz1(0), z2(0), zz2(0);
        const B bmu(mu), binv(inv);
        for (; i + 2 * B::size <= p.n; i += 2 * B::size) {
            const B a = (B::load_unaligned(p.in[0] + i) - bmu) * binv;
            const B b = (B::load_unaligned(p.in[0] + i + B::size) - bmu) * binv;
            z1 += a;
            zz1 = xsimd::fma(a, a, zz1);
            z2 += b;
            zz2 = xsimd::fma(b, b, zz2);
        }
        sz = xsimd::hadd(z1 + z2);
        szz = xsimd::hadd(zz1 + zz2);
    }
    for (; i < p.n; ++i) {
        const double z = (p.in[0][i] - mu) * inv;
        sz += z;
        szz += z * z;
    }
    const double n = double(p.n);
    p.out[0][0] = -0.5 * szz - n * std::log(sigma) - n * half_log_2pi;
    p.out[1][0] = sz * inv;
    p.out[2][0] = (szz - n) * inv;
}

}  // namespace

namespace GRADC_BENCH_ARCH {

void register_hand(registry& r) {
    using B = xsimd::batch<double>;
    for (const bool simd : {false, true}) {
        auto& impl = r[simd ? "hand-simd" : "hand-scalar"];
        impl["seed"] = [simd](const problem& p) { per_point<2, 3, seed<B>, seed<double>>(p, simd); };
        impl["normal_logpdf"] = [simd](const problem& p) {
            per_point<3, 4, normal_logpdf<B>, normal_logpdf<double>>(p, simd);
        };
        impl["black_scholes"] = [simd](const problem& p) {
            per_point<5, 6, black_scholes<B>, black_scholes<double>>(p, simd);
        };
        impl["mlp"] = [simd](const problem& p) { per_point<4, 5, mlp<B>, mlp<double>>(p, simd); };
        impl["loglik"] = [simd](const problem& p) { loglik(p, simd); };
    }
}

}  // namespace GRADC_BENCH_ARCH

}  // namespace bench

GRADC_SIMD_DIAGNOSTICS_POP
