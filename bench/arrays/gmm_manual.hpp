#pragma once
// The GMM objective's gradient written by hand from its formulas ("Manual" in ADBench),
// plain C++ loops over the points, no heap per point. For point x and component k, with
// xc = x - μ_k, z = Q_k·xc (Q_k lower-triangular: diagonal exp(q_diag), strict lower
// part L) and main_k = α_k + Σ q_diag - ½‖z‖²:
//   ∂main_k/∂α_k = 1, ∂main_k/∂μ_k = Q_kᵀ z, ∂main_k/∂q_diag_j = 1 - z_j·xc_j·exp(q_diag_j),
//   ∂main_k/∂L(r, c) = -z_r·xc_c,
// each weighted by the softmax of main over k. The prior adds exp(2 q_diag) and L; the
// normaliser -n·softmax(α).
#include <array>
#include <cmath>
#include <cstddef>
#include <vector>

#include "../../examples/gmm_objective.hpp"

namespace gmm_manual {

template <std::size_t d, std::size_t K, bool Gradient>
double evaluate(const std::vector<std::vector<double>>& x, const std::array<double, K>& alphas,
                const std::array<double, K * d>& means, const std::array<double, K * d * (d + 1) / 2>& icf,
                std::vector<double>* grad) {
    constexpr std::size_t P = d * (d + 1) / 2;
    const std::size_t n = x[0].size();
    // Per component: exp of the diagonal, and Σ diag.
    std::array<double, K * d> qdiag;
    std::array<double, K> sum_qs{};
    for (std::size_t k = 0; k < K; ++k)
        for (std::size_t j = 0; j < d; ++j) {
            qdiag[k * d + j] = std::exp(icf[k * P + j]);
            sum_qs[k] += icf[k * P + j];
        }
    std::array<double, K> g_alpha{};
    std::array<double, K * d> g_means{};
    std::array<double, K * P> g_icf{};
    double total = 0;
    std::array<double, d> xi;
    std::array<std::array<double, d>, K> xc, z;
    std::array<double, K> main;
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = 0; j < d; ++j) xi[j] = x[j][i];
        double m = -INFINITY;
        for (std::size_t k = 0; k < K; ++k) {
            const double* q = icf.data() + k * P;
            for (std::size_t j = 0; j < d; ++j) xc[k][j] = xi[j] - means[k * d + j];
            double sq = 0;
            std::size_t at = d;
            for (std::size_t r = 0; r < d; ++r) z[k][r] = qdiag[k * d + r] * xc[k][r];
            for (std::size_t c = 0; c < d; ++c)
                for (std::size_t r = c + 1; r < d; ++r) z[k][r] += q[at++] * xc[k][c];
            for (std::size_t r = 0; r < d; ++r) sq += z[k][r] * z[k][r];
            main[k] = alphas[k] + sum_qs[k] - 0.5 * sq;
            m = std::max(m, main[k]);
        }
        double s = 0;
        for (std::size_t k = 0; k < K; ++k) s += std::exp(main[k] - m);
        const double lse = std::log(s) + m;
        total += lse;
        if constexpr (Gradient) {
            for (std::size_t k = 0; k < K; ++k) {
                const double w = std::exp(main[k] - lse);
                const double* q = icf.data() + k * P;
                g_alpha[k] += w;
                double* gq = g_icf.data() + k * P;
                // Q_kᵀ z into the means' gradient, and the factor's gradient.
                std::array<double, d> qtz;
                for (std::size_t c = 0; c < d; ++c) qtz[c] = qdiag[k * d + c] * z[k][c];
                std::size_t at = d;
                for (std::size_t c = 0; c < d; ++c)
                    for (std::size_t r = c + 1; r < d; ++r) {
                        qtz[c] += q[at] * z[k][r];
                        gq[at] -= w * z[k][r] * xc[k][c];
                        ++at;
                    }
                for (std::size_t j = 0; j < d; ++j) {
                    g_means[k * d + j] += w * qtz[j];
                    gq[j] += w * (1 - z[k][j] * xc[k][j] * qdiag[k * d + j]);
                }
            }
        }
    }
    // The terms without points.
    double amax = -INFINITY;
    for (double a : alphas) amax = std::max(amax, a);
    double as = 0;
    for (double a : alphas) as += std::exp(a - amax);
    const double lse_alpha = std::log(as) + amax;
    double prior = 0;
    for (std::size_t k = 0; k < K; ++k) {
        for (std::size_t j = 0; j < d; ++j) prior += 0.5 * qdiag[k * d + j] * qdiag[k * d + j];
        for (std::size_t j = d; j < P; ++j) prior += 0.5 * icf[k * P + j] * icf[k * P + j];
    }
    const double value = total - double(n) * lse_alpha + prior + gmm_model<d, K>::constant_terms(double(n));
    if constexpr (Gradient) {
        grad->assign(K + K * d + K * P, 0.0);
        for (std::size_t k = 0; k < K; ++k) (*grad)[k] = g_alpha[k] - double(n) * std::exp(alphas[k] - lse_alpha);
        for (std::size_t e = 0; e < K * d; ++e) (*grad)[K + e] = g_means[e];
        for (std::size_t k = 0; k < K; ++k)
            for (std::size_t j = 0; j < P; ++j) {
                const double prior_term = j < d ? qdiag[k * d + j] * qdiag[k * d + j] : icf[k * P + j];
                (*grad)[K + K * d + k * P + j] = g_icf[k * P + j] + prior_term;
            }
    }
    return value;
}

}  // namespace gmm_manual
