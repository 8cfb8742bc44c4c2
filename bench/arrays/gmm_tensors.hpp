#pragma once
// The GMM objective with tensor operations, written once for gradc's dynamic mode and
// for LibTorch (the same names; free functions found by argument-dependent lookup).
// The K inverse Cholesky factors are gathered from [exp(diag), lower, 0] by an index
// map, and the products Q_k (x_i - μ_k) of all points are one batched matrix product.
#include <array>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <vector>

#include "../../examples/gmm_objective.hpp"

namespace gmm_tensors {

/// Lib::make(values, sizes, requires_grad), Lib::make_index(values, sizes), Lib::zeros(sizes)
/// and Lib::cat(tensors, dim) are the library's; the gradient goes to `grad` (alphas,
/// means, icf) when given.
template <class Lib, std::size_t d, std::size_t K>
double evaluate(const std::vector<std::vector<double>>& points, const std::array<double, K>& a,
                const std::array<double, K * d>& mu, const std::array<double, K * d * (d + 1) / 2>& q,
                std::vector<double>* grad) {
    constexpr std::size_t P = d * (d + 1) / 2;
    const std::int64_t n = std::int64_t(points[0].size()), D = d, KK = K, PP = P;
    std::vector<double> xs(std::size_t(n) * d);
    for (std::size_t i = 0; i < std::size_t(n); ++i)
        for (std::size_t j = 0; j < d; ++j) xs[i * d + j] = points[j][i];
    const bool g = grad != nullptr;
    auto X = Lib::make(xs, {n, D}, false);
    auto A = Lib::make(std::vector<double>(a.begin(), a.end()), {KK}, g);
    auto M = Lib::make(std::vector<double>(mu.begin(), mu.end()), {KK, D}, g);
    auto Q = Lib::make(std::vector<double>(q.begin(), q.end()), {KK, PP}, g);
    auto diag = narrow(Q, 1, 0, D);
    auto lower = narrow(Q, 1, D, PP - D);
    auto packed = Lib::cat({exp(diag), lower, Lib::zeros({KK, 1})}, 1);
    std::vector<std::int64_t> map(d * d, std::int64_t(P));
    for (std::size_t r = 0; r < d; ++r) {
        map[r * d + r] = std::int64_t(r);
        for (std::size_t c = 0; c < r; ++c) map[r * d + c] = std::int64_t(d + c * (2 * d - c - 1) / 2 + (r - c - 1));
    }
    auto L = index_select(packed, 1, Lib::make_index(map, {D * D})).reshape({KK, D, D});
    auto centred = X.reshape({1, n, D}) - M.reshape({KK, 1, D});  // [K, n, d]
    auto Lx = bmm(centred, L.transpose(1, 2));                     // [K, n, d]
    auto main = A.reshape({KK, 1}) + diag.sum({1}).reshape({KK, 1}) - 0.5 * (Lx * Lx).sum({2});
    auto prior = 0.5 * ((exp(diag) * exp(diag)).sum() + lower.square().sum());
    auto f = logsumexp(main, {0}).sum() - double(n) * logsumexp(A, {0}) + prior +
             gmm_model<d, K>::constant_terms(double(n));
    if (g) {
        f.backward();
        grad->clear();
        for (const auto& t : {A.grad(), M.grad(), Q.grad()}) {
            const auto c = t.contiguous();
            const double* p = c.template data_ptr<double>();
            grad->insert(grad->end(), p, p + c.numel());
        }
    }
    return f.template item<double>();
}

}  // namespace gmm_tensors
