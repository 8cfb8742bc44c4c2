/// Hand-written derivatives: the reference every implementation is checked against
/// (hand-scalar, on double) and the physical limit of this machine (hand-simd, the same
/// formulas on xsimd batches). The per-point formulas are in hand_formulas.hpp; here,
/// the loops over the arrays, and the likelihood two ways: the formula summed point by
/// point, and rewritten with sufficient statistics (hand-simd-stats: Σz and Σz² only).

#include <array>
#include <cmath>
#include <cstddef>
#include <numbers>
#include <type_traits>

#include <gradc/simd/config.hpp>

#include "bench.hpp"
#include "hand_formulas.hpp"

GRADC_SIMD_DIAGNOSTICS_PUSH

namespace bench {
namespace {

using namespace hand;

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

/// log N(xᵢ; μ, σ) and its gradient by x, μ, σ at every point, μ and σ the same at every
/// point: 1/σ and log σ computed once, as a user writes the loop.
void normal_broadcast(const problem& p, bool simd) {
    using B = xsimd::batch<double>;
    const double mu = broadcast_mu, inv = 1 / broadcast_sigma, log_sigma = std::log(broadcast_sigma);
    const auto point = [&](const auto& x, auto* const* out, std::size_t i, auto store) {
        using V = std::remove_cvref_t<decltype(x)>;
        const V z = (x - V(mu)) * V(inv);
        const V zi = z * V(inv);
        store(out[0] + i, V(-0.5) * z * z - V(log_sigma + half_log_2pi));
        store(out[1] + i, -zi);
        store(out[2] + i, zi);
        store(out[3] + i, (z * z - V(1)) * V(inv));
    };
    std::size_t i = 0;
    if (simd)
        for (; i + B::size <= p.n; i += B::size)
            point(B::load_unaligned(p.in[0] + i), p.out.data(), i, [](double* at, const B& v) { v.store_unaligned(at); });
    for (; i < p.n; ++i) point(p.in[0][i], p.out.data(), i, [](double* at, double v) { *at = v; });
}

/// Σ log N(xᵢ; μ, σ) and its gradient by μ and σ, the formula of the other kernels summed
/// point by point (what gradc's map_reduce computes): per point the value
/// -zᵢ²/2 - log σ - log(2π)/2, ∂/∂μ = zᵢ/σ and ∂/∂σ = (zᵢ² - 1)/σ, with zᵢ = (xᵢ-μ)/σ;
/// 1/σ and log σ once, as a user writes the loop.
void loglik(const problem& p, bool simd) {
    using B = xsimd::batch<double>;
    const double mu = loglik_mu, inv = 1 / loglik_sigma, constant = std::log(loglik_sigma) + half_log_2pi;
    double value = 0, d_mu = 0, d_sigma = 0;
    std::size_t i = 0;
    if (simd) {
        B v(0), gm(0), gs(0);
        const B bmu(mu), binv(inv), bconstant(constant), one(1), half(0.5);
        for (; i + B::size <= p.n; i += B::size) {
            const B z = (B::load_unaligned(p.in[0] + i) - bmu) * binv;
            v += -(half * z * z) - bconstant;
            gm += z * binv;
            gs += (z * z - one) * binv;
        }
        value = xsimd::hadd(v);
        d_mu = xsimd::hadd(gm);
        d_sigma = xsimd::hadd(gs);
    }
    for (; i < p.n; ++i) {
        const double z = (p.in[0][i] - mu) * inv;
        value += -(0.5 * z * z) - constant;
        d_mu += z * inv;
        d_sigma += (z * z - 1) * inv;
    }
    p.out[0][0] = value;
    p.out[1][0] = d_mu;
    p.out[2][0] = d_sigma;
}

/// The sufficient-statistics version (hand-simd-stats): Σ log N(xᵢ; μ, σ) = -Σzᵢ²/2 - N log σ - N log(2π)/2 with zᵢ = (xᵢ-μ)/σ;
/// ∂/∂μ = Σzᵢ/σ, ∂/∂σ = (Σzᵢ² - N)/σ.
void loglik_statistics(const problem& p, bool simd) {
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
        impl["normal_broadcast"] = [simd](const problem& p) { normal_broadcast(p, simd); };
        impl["loglik"] = [simd](const problem& p) { loglik(p, simd); };
        if (simd) r["hand-simd-stats"]["loglik"] = [](const problem& p) { loglik_statistics(p, true); };
    }
}

}  // namespace GRADC_BENCH_ARCH

}  // namespace bench

GRADC_SIMD_DIAGNOSTICS_POP
