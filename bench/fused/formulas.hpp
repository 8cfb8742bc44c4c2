#pragma once
// The three elementwise formulas of the fused-kernel benchmark, written once over any
// value type: gradc static variables (compiled and fused), gradc::Tensor (the unfused
// dynamic expression, one operation per node) and torch::Tensor (LibTorch, the same
// operations). Every function is found by argument-dependent lookup.

namespace fused_bench {

/// Φ(x), the standard normal distribution function.
template <class V>
auto normal_cdf(const V& x) {
    return 0.5 * erfc(x * -0.7071067811865476);
}

/// Black-Scholes price of a European call: spot, strike, expiry, rate, volatility.
struct black_scholes {
    static constexpr const char* name = "black_scholes";
    static constexpr int inputs = 5;
    static auto f(const auto& S, const auto& K, const auto& T, const auto& r, const auto& sigma) {
        const auto vol = sigma * sqrt(T);
        const auto d1 = (log(S / K) + (r + 0.5 * sigma * sigma) * T) / vol;
        const auto d2 = d1 - vol;
        return S * normal_cdf(d1) - K * exp(-(r * T)) * normal_cdf(d2);
    }
};

/// GELU of an input plus a bias broadcast along rows: 0.5·u·(1 + erf(u/√2)), u = x + b.
struct gelu_bias {
    static constexpr const char* name = "gelu_bias";
    static constexpr int inputs = 2;
    static auto f(const auto& x, const auto& b) {
        const auto u = x + b;
        return 0.5 * u * (1.0 + erf(u * 0.7071067811865476));
    }
};

/// The normal log-density of each x under one mean and one scale (0-dim tensors: the
/// gradient sums over every point), summed.
struct normal_logpdf {
    static constexpr const char* name = "normal_logpdf";
    static constexpr int inputs = 3;
    static auto f(const auto& x, const auto& mu, const auto& sigma) {
        const auto z = (x - mu) / sigma;
        return -0.5 * (z * z) - log(sigma) - 0.9189385332046728;
    }
};

}  // namespace fused_bench
