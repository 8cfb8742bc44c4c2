/// ADOL-C: each kernel traced once (trace_on/trace_off), then per point the taped
/// forward sweep (zos_forward, keeping the Taylor buffer) and one reverse sweep
/// (fos_reverse): the gradient driver's two calls, also giving the value. ADOL-C has
/// erf but no erfc, so Φ(z) = (1 + erf(z/√2))/2.

#include <array>
#include <cmath>
#include <numbers>
#include <vector>

#include <adolc/adolc.h>

#include "bench.hpp"

namespace bench {

template <>
struct normal_cdf<adouble> {
    static adouble apply(const adouble& z) { return 0.5 * (1.0 + erf(z * (0.5 * std::numbers::sqrt2))); }
};

namespace {

template <int K, class F>
short trace(short tag, F f) {
    trace_on(tag);
    std::array<adouble, K> x;
    for (auto& e : x) e <<= 1.0;
    adouble y = [&]<std::size_t... j>(std::index_sequence<j...>) { return f(x[j]...); }(std::make_index_sequence<K>{});
    double out;
    y >>= out;
    trace_off();
    return tag;
}

template <int K>
void taped_points(short tag, const problem& p) {
    std::array<double, K> x, g;
    double y, w = 1;
    for (std::size_t i = 0; i < p.n; ++i) {
        for (int j = 0; j < K; ++j) x[j] = p.in[j][i];
        zos_forward(tag, 1, K, 1, x.data(), &y);
        fos_reverse(tag, 1, K, &w, g.data());
        p.out[0][i] = y;
        for (int j = 0; j < K; ++j) p.out[1 + j][i] = g[j];
    }
}

}  // namespace

void register_adolc(registry& r) {
    auto& impl = r["adolc"];
    const short seed = trace<2>(1, [](const adouble& a, const adouble& b) { return formula::seed(a, b); });
    const short normal = trace<3>(2, [](const auto&... a) { return formula::normal_logpdf<adouble>(a...); });
    const short bs = trace<5>(3, [](const auto&... a) { return formula::black_scholes<adouble>(a...); });
    const short mlp = trace<4>(4, [](const auto&... a) { return formula::mlp<adouble>(a...); });
    impl["seed"] = [seed](const problem& p) { taped_points<2>(seed, p); };
    impl["normal_logpdf"] = [normal](const problem& p) { taped_points<3>(normal, p); };
    impl["black_scholes"] = [bs](const problem& p) { taped_points<5>(bs, p); };
    impl["mlp"] = [mlp](const problem& p) { taped_points<4>(mlp, p); };
    impl["loglik"] = [normal](const problem& p) {
        std::array<double, 3> x{0, loglik_mu, loglik_sigma}, g;
        double y, w = 1, v = 0, gm = 0, gs = 0;
        for (std::size_t i = 0; i < p.n; ++i) {
            x[0] = p.in[0][i];
            zos_forward(normal, 1, 3, 1, x.data(), &y);
            fos_reverse(normal, 1, 3, &w, g.data());
            v += y;
            gm += g[1];
            gs += g[2];
        }
        p.out[0][0] = v;
        p.out[1][0] = gm;
        p.out[2][0] = gs;
    };
}

}  // namespace bench
