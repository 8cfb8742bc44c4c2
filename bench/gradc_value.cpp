/// gradc-batch-value: the value alone by value_batch, to measure what the gradient costs
/// on top of it (the gradient/value ratio target). Checked on the value only.

#include <array>
#include <numbers>
#include <span>
#include <utility>

#include <gradc/gradc.hpp>
#include <gradc/simd.hpp>

#include "bench.hpp"

GRADC_SIMD_DIAGNOSTICS_PUSH

namespace bench {
namespace {

template <int J, class X>
auto mlp_unit(const X& x) {
    const auto& [x0, x1, x2, x3] = x;
    return mlp_u(J) * tanh(mlp_w(0, J) * x0 + mlp_w(1, J) * x1 + mlp_w(2, J) * x2 + mlp_w(3, J) * x3);
}

template <class Kernel>
void batch_value(const Kernel& k, const problem& p) {
    std::array<std::span<const double>, Kernel::arity> in;
    for (std::size_t j = 0; j < Kernel::arity; ++j) in[j] = {p.in[j], p.n};
    k.value_batch(in, std::span<double>(p.out[0], p.n));
}

}  // namespace

namespace GRADC_BENCH_ARCH {

void register_gradc_value(registry& r) {
    auto& impl = r["gradc-batch-value"];
    {
        auto [s, k, t, rr, v] = gradc::variables<5>();
        const auto vs = v * sqrt(t);
        const auto d1 = (log(s / k) + (rr + 0.5 * (v * v)) * t) / vs;
        const auto d2 = d1 - vs;
        constexpr double c = -0.5 * std::numbers::sqrt2;
        const auto bs = gradc::compile(s * (0.5 * erfc(d1 * c)) - k * exp(-(rr * t)) * (0.5 * erfc(d2 * c)));
        impl["black_scholes"] = [bs](const problem& p) { batch_value(bs, p); };
    }
    {
        const auto x = gradc::variables<4>();
        const auto mlp = [&]<int... J>(std::integer_sequence<int, J...>) {
            return gradc::compile((mlp_unit<J>(x) + ...));
        }(std::make_integer_sequence<int, mlp_hidden>{});
        impl["mlp"] = [mlp](const problem& p) { batch_value(mlp, p); };
    }
}

}  // namespace GRADC_BENCH_ARCH

}  // namespace bench

GRADC_SIMD_DIAGNOSTICS_POP
