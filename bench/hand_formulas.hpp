#pragma once
/// The hand-written derivatives of the per-point kernels, on any value type: double
/// (hand-scalar), xsimd batches (hand-simd), and the flop counter's scalar
/// (flop_count.hpp, flops.cpp). Written for speed: shared subexpressions, sincos, one
/// reciprocal instead of several divisions, Black-Scholes Greeks in closed form.
/// hand.cpp runs them over the benchmark's arrays; the likelihood's sufficient-statistics
/// loop is there too (it is not a per-point formula).

#include <array>
#include <cmath>
#include <numbers>
#include <type_traits>

#include <gradc/simd/config.hpp>

#include "bench.hpp"

GRADC_SIMD_DIAGNOSTICS_PUSH

namespace bench {
// Internal linkage: hand.cpp is compiled once per architecture in portable builds.
namespace hand {
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
    if constexpr (requires { typename V::arch_type; }) {  // an xsimd batch
        auto sc = xsimd::sincos(x);
        s = sc.first;
        c = sc.second;
    } else {  // double, or the flop counter's scalar (flop_count.hpp)
        s = sin(x);
        c = cos(x);
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

}  // namespace
}  // namespace hand
}  // namespace bench

GRADC_SIMD_DIAGNOSTICS_POP
