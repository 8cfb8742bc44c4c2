#pragma once
/// What the benchmark's implementations share: the five kernels (their inputs, and
/// their formulas written once for every peer's scalar type), and the registry each
/// implementation adds its runners to.

#include <array>
#include <cmath>
#include <cstddef>
#include <functional>
#include <map>
#include <numbers>
#include <random>
#include <string>
#include <vector>

namespace bench {

/// N points as structure of arrays. A per-point kernel writes out[0][i] (value) and
/// out[1 + j][i] (gradient entry j); a reduction (loglik) writes out[0][0] (the sum)
/// and out[1 + j][0] (its gradient in μ, σ).
struct problem {
    std::size_t n = 0;
    std::vector<const double*> in;
    std::vector<double*> out;
    /// False in the timed passes: an implementation whose results live in its own storage
    /// (LibTorch's tensors) may leave them there, as a program using it would, instead of
    /// copying them into `out`; the untimed checked pass sets it.
    bool results_needed = true;
};

using runner = std::function<void(const problem&)>;

/// implementation name → kernel name → runner. Peers register only the kernels they run.
using registry = std::map<std::string, std::map<std::string, runner>>;

void register_adolc(registry&);
void register_sacado(registry&);
void register_ceres(registry&);
void register_eigen(registry&);
void register_libtorch(registry&);

/// The implementations with batch code: gradc's (gradc.cpp, gradc_value.cpp) and the
/// hand-written ones (hand.cpp). Their files are compiled in namespace
/// bench::GRADC_BENCH_ARCH: once, as `native`, in the default build (-march=native); once
/// per architecture, as `sse2`, `avx2` and `avx512`, in a portable build
/// (-Dportable=true), where main.cpp calls the widest this CPU runs (bench/meson.build).
#ifndef GRADC_BENCH_ARCH
#define GRADC_BENCH_ARCH native
#endif
namespace native {
void register_gradc(registry&);
void register_gradc_value(registry&);
void register_hand(registry&);
}  // namespace native
namespace sse2 {
void register_gradc(registry&);
void register_gradc_value(registry&);
void register_hand(registry&);
}  // namespace sse2
namespace avx2 {
void register_gradc(registry&);
void register_gradc_value(registry&);
void register_hand(registry&);
}  // namespace avx2
namespace avx512 {
void register_gradc(registry&);
void register_gradc_value(registry&);
void register_hand(registry&);
}  // namespace avx512

inline constexpr double half_log_2pi = 0.91893853320467274178;  // log(2π)/2

/// mlp weights: hidden unit j = tanh(Σᵢ w_ij xᵢ), w_ij = 0.5 sin(i + 2j) (i < 4, j < 8);
/// output = Σⱼ u_j h_j with u_j = 0.5 cos(j). No biases.
inline double mlp_w(int i, int j) { return 0.5 * std::sin(double(i + 2 * j)); }
inline double mlp_u(int j) { return 0.5 * std::cos(double(j)); }
inline constexpr int mlp_inputs = 4;
inline constexpr int mlp_hidden = 8;

/// The weights, computed once: every implementation reads this table inside its
/// per-point code (a formula calling mlp_w/mlp_u there would pay 36 sin/cos per point
/// that the others do not; docs/benchmark-history.md, "Fairness of the peers: the mlp
/// weights").
struct mlp_table {
    std::array<std::array<double, mlp_inputs>, mlp_hidden> w;
    std::array<double, mlp_hidden> u;
};
inline const mlp_table& mlp_weights() {
    static const mlp_table t = [] {
        mlp_table m;
        for (int j = 0; j < mlp_hidden; ++j) {
            for (int i = 0; i < mlp_inputs; ++i) m.w[std::size_t(j)][std::size_t(i)] = mlp_w(i, j);
            m.u[std::size_t(j)] = mlp_u(j);
        }
        return m;
    }();
    return t;
}

/// Φ(z) = erfc(-z/√2)/2 for a peer's scalar type; specialised where a peer has no erfc.
template <class S>
struct normal_cdf {
    static S apply(const S& z) {
        using std::erfc;
        return 0.5 * erfc(-z * std::numbers::sqrt2 * 0.5);
    }
};

/// The kernels in the peers' scalar types (forward-mode numbers, taped numbers, tensors).
namespace formula {

template <class S>
S seed(const S& x1, const S& x2) {
    using std::sin;
    return sin(x1) + x1 * x2;
}

/// x may be a plain double where it is data, not a variable (the likelihood's data points),
/// as a user of a forward-mode type writes it: no derivative components to carry for it.
template <class X, class S>
S normal_logpdf(const X& x, const S& mu, const S& sigma) {
    using std::log;
    const S z = (x - mu) / sigma;
    return -0.5 * z * z - log(sigma) - half_log_2pi;
}

template <class S>
S black_scholes(const S& s, const S& k, const S& t, const S& r, const S& v) {
    using std::exp;
    using std::log;
    using std::sqrt;
    const S vs = v * sqrt(t);
    const S d1 = (log(s / k) + (r + 0.5 * v * v) * t) / vs;
    const S d2 = d1 - vs;
    return s * normal_cdf<S>::apply(d1) - k * exp(-r * t) * normal_cdf<S>::apply(d2);
}

template <class S>
S mlp(const S& x0, const S& x1, const S& x2, const S& x3) {
    using std::tanh;
    const mlp_table& t = mlp_weights();
    auto unit = [&](std::size_t j) -> S {  // S, not auto: an expression-template peer would return references to temporaries
        const auto& w = t.w[j];
        return t.u[j] * tanh(w[0] * x0 + w[1] * x1 + w[2] * x2 + w[3] * x3);
    };
    S out = unit(0);
    for (std::size_t j = 1; j < std::size_t(mlp_hidden); ++j) out = out + unit(j);
    return out;
}

}  // namespace formula

/// Inputs of every kernel: arity, gradient size, and the range each input is drawn from.
struct kernel_info {
    std::string name;
    std::vector<std::pair<double, double>> ranges;  // one per input
    std::size_t gradient_size;
    bool reduction;
};

inline const std::vector<kernel_info>& kernels() {
    static const std::vector<kernel_info> k{
        {"seed", {{-3, 3}, {-3, 3}}, 2, false},
        {"normal_logpdf", {{-3, 3}, {-1, 1}, {0.5, 2}}, 3, false},
        {"black_scholes", {{80, 120}, {80, 120}, {0.25, 2}, {0.01, 0.05}, {0.1, 0.5}}, 5, false},
        {"mlp", {{-2, 2}, {-2, 2}, {-2, 2}, {-2, 2}}, 4, false},
        // x per point, μ and σ one value for every point (gradc::broadcast); the
        // gradient by x, μ and σ at every point
        {"normal_broadcast", {{-3, 3}}, 3, false},
        // data x ~ N(1.5, 2²) drawn by the harness; μ = 1.4, σ = 2.1 fixed
        {"loglik", {{0, 0}}, 2, true},
    };
    return k;
}

inline constexpr double broadcast_mu = 0.3;
inline constexpr double broadcast_sigma = 1.3;
inline constexpr double loglik_mu = 1.4;
inline constexpr double loglik_sigma = 2.1;

/// The inputs of kernel k at n points, one column per input, drawn as gradc-bench draws
/// them (fixed seed): uniform in each input's range, or for a reduction N(1.5, 2²) data.
inline std::vector<std::vector<double>> draw_columns(const kernel_info& k, std::size_t n) {
    std::vector<std::vector<double>> in(k.ranges.size(), std::vector<double>(n));
    std::mt19937_64 rng(42);
    for (std::size_t j = 0; j < in.size(); ++j) {
        if (k.reduction) {
            std::normal_distribution<double> d(1.5, 2.0);
            for (auto& x : in[j]) x = d(rng);
        } else {
            std::uniform_real_distribution<double> d(k.ranges[j].first, k.ranges[j].second);
            for (auto& x : in[j]) x = d(rng);
        }
    }
    return in;
}

/// The kernel called `name`, or null.
inline const kernel_info* find_kernel(const std::string& name) {
    for (const auto& k : kernels())
        if (k.name == name) return &k;
    return nullptr;
}

/// gradc's and the hand-written batch code of the build machine, registered: what the
/// tools built for it alone (gradc-bench-one-call, gradc-bench-paired) run.
inline registry native_registry() {
    registry reg;
    native::register_gradc(reg);
    native::register_hand(reg);
    return reg;
}

}  // namespace bench
