/// The second-order benchmark (Google Benchmark), one thread, N points per kernel
/// (GRADC_BENCH_N, default 100,000), all in one run:
///  - every benchmark kernel: gradc's gradient_batch against its hvp_batch (one random
///    direction per point); loglik: map_reduce against map_reduce_hessian and
///    map_reduce_hessian_diagonal (its Hessian is not diagonal);
///  - a k-means cost (2-d points, three centres, Σ of each point's squared distance to its
///    nearest centre), whose Hessian is diagonal by structure: map_reduce against
///    map_reduce_hessian_diagonal and map_reduce_hessian;
///  - Black-Scholes, the full 5×5 Hessian at every point: gradc's hessian_batch and its
///    scalar k.hessian, the hand-written closed-form Greeks (xsimd batches and plain
///    doubles), and nested forward mode in Sacado, Ceres and Eigen.
/// Before timing, every implementation's Hessian is checked against gradc's (relative
/// 1e-9); a mismatch aborts the run. bench/second_order/report.py turns the JSON output
/// into the ratio tables of docs/benchmarks.md.

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include <gradc/gradc.hpp>
#include <gradc/simd.hpp>

#include "../bench.hpp"
#include "../gradc_kernels.hpp"
#include "greeks.hpp"
#include "nested.hpp"

GRADC_SIMD_DIAGNOSTICS_PUSH

namespace {

using columns = std::vector<std::vector<double>>;

std::size_t point_count() {
    const char* env = std::getenv("GRADC_BENCH_N");
    return env ? std::strtoull(env, nullptr, 10) : 100'000;
}

columns inputs_of(const bench::kernel_info& info, std::size_t n, unsigned seed) {
    std::mt19937_64 rng(seed);
    columns in;
    for (const auto& [lo, hi] : info.ranges) {
        std::uniform_real_distribution<double> u(lo, hi);
        in.emplace_back(n);
        for (auto& x : in.back()) x = u(rng);
    }
    return in;
}

template <std::size_t K>
std::array<std::span<const double>, K> const_spans(const columns& c, std::size_t first = 0) {
    std::array<std::span<const double>, K> s;
    for (std::size_t j = 0; j < K; ++j) s[j] = c[first + j];
    return s;
}

template <std::size_t K>
std::array<std::span<double>, K> spans(columns& c, std::size_t first = 0) {
    std::array<std::span<double>, K> s;
    for (std::size_t j = 0; j < K; ++j) s[j] = c[first + j];
    return s;
}

void add(const std::string& name, std::size_t n, std::function<void()> run) {
    benchmark::RegisterBenchmark(name.c_str(), [n, run](benchmark::State& state) {
        for (auto _ : state) {
            run();
            benchmark::ClobberMemory();
        }
        state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
        state.counters["points"] = static_cast<double>(n);
    })->Unit(benchmark::kMillisecond);
}

/// gradient_batch against hvp_batch for one per-point kernel.
template <class Kernel>
void register_hvp(const char* kernel, const Kernel& k, std::size_t n, unsigned seed) {
    constexpr std::size_t N = Kernel::arity, W = Kernel::wrt_count;
    const auto& info = [&]() -> const bench::kernel_info& {
        for (const auto& i : bench::kernels())
            if (i.name == kernel) return i;
        std::abort();
    }();
    auto in = std::make_shared<columns>(inputs_of(info, n, seed));
    auto dir = std::make_shared<columns>(W, std::vector<double>(n));
    std::mt19937_64 rng(seed + 1);
    std::uniform_real_distribution<double> u(-1, 1);
    for (auto& col : *dir)
        for (auto& x : col) x = u(rng);
    auto out = std::make_shared<columns>(1 + 2 * W, std::vector<double>(n));
    add(std::string(kernel) + "/gradc gradient_batch", n, [k, in, out] {
        k.gradient_batch(const_spans<N>(*in), std::span<double>((*out)[0]), spans<W>(*out, 1));
    });
    add(std::string(kernel) + "/gradc hvp_batch", n, [k, in, dir, out] {
        k.hvp_batch(const_spans<N>(*in), const_spans<W>(*dir), std::span<double>((*out)[0]), spans<W>(*out, 1),
                    spans<W>(*out, 1 + W));
    });
}

void register_loglik(std::size_t n) {
    const auto k = bench::loglik_kernel();
    auto x = std::make_shared<std::vector<double>>(n);
    std::mt19937_64 rng(5);
    std::normal_distribution<double> normal(1.5, 2.0);
    for (auto& v : *x) v = normal(rng);
    const std::array theta{bench::loglik_mu, bench::loglik_sigma};
    add("loglik/gradc map_reduce", n, [k, x, theta] {
        const std::array<std::span<const double>, 1> data{*x};
        benchmark::DoNotOptimize(k.map_reduce(data, theta));
    });
    add("loglik/gradc map_reduce_hessian", n, [k, x, theta] {
        const std::array<std::span<const double>, 1> data{*x};
        benchmark::DoNotOptimize(k.map_reduce_hessian(data, theta));
    });
    add("loglik/gradc map_reduce_hessian_diagonal", n, [k, x, theta] {
        const std::array<std::span<const double>, 1> data{*x};
        benchmark::DoNotOptimize(k.map_reduce_hessian_diagonal(data, theta));
    });
}

/// Σᵢ minⱼ |xᵢ - cⱼ|² over 2-d points xᵢ and three centres cⱼ (GradBench's kmeans cost
/// at d = 2, k = 3), by θ = the six centre coordinates.
auto kmeans_kernel() {
    auto [x0, x1, a0, a1, b0, b1, c0, c1] = gradc::variables<8>();
    const auto distance = [&](const auto& u0, const auto& u1) { return (x0 - u0) * (x0 - u0) + (x1 - u1) * (x1 - u1); };
    return gradc::compile(min(min(distance(a0, a1), distance(b0, b1)), distance(c0, c1)),
                          gradc::wrt(a0, a1, b0, b1, c0, c1));
}

void register_kmeans(std::size_t n) {
    const auto k = kmeans_kernel();
    static_assert(decltype(k)::program::hessian_is_diagonal());
    auto points = std::make_shared<columns>(2, std::vector<double>(n));
    std::mt19937_64 rng(6);
    std::normal_distribution<double> normal(0.0, 2.0);
    for (auto& col : *points)
        for (auto& v : col) v = normal(rng);
    const std::array theta{-2.0, 0.5, 1.0, 1.5, 2.5, -1.0};
    add("kmeans/gradc map_reduce", n, [k, points, theta] {
        benchmark::DoNotOptimize(k.map_reduce(const_spans<2>(*points), theta));
    });
    add("kmeans/gradc map_reduce_hessian_diagonal", n, [k, points, theta] {
        benchmark::DoNotOptimize(k.map_reduce_hessian_diagonal(const_spans<2>(*points), theta));
    });
    add("kmeans/gradc map_reduce_hessian", n, [k, points, theta] {
        benchmark::DoNotOptimize(k.map_reduce_hessian(const_spans<2>(*points), theta));
    });
}

/// The full Black-Scholes Hessian at every point by every implementation, each checked
/// first against gradc's hessian_batch.
void register_black_scholes_hessian(std::size_t n) {
    const auto k = bench::black_scholes_kernel();
    const auto& info = bench::kernels()[2];
    auto in = std::make_shared<columns>(inputs_of(info, n, 9));
    auto reference = std::make_shared<columns>(21, std::vector<double>(n));
    k.hessian_batch(const_spans<5>(*in), std::span<double>((*reference)[0]), spans<5>(*reference, 1),
                    spans<15>(*reference, 6));
    using impl = std::function<void(columns&)>;
    const auto run_points = [in](bench::nested::points_fn f) {
        return impl([in, f](columns& out) {
            std::array<const double*, 5> x;
            std::array<double*, 21> y;
            for (std::size_t j = 0; j < 5; ++j) x[j] = (*in)[j].data();
            for (std::size_t j = 0; j < 21; ++j) y[j] = out[j].data();
            f(x.data(), (*in)[0].size(), y.data());
        });
    };
    std::vector<std::pair<std::string, impl>> impls;
    impls.emplace_back("gradc hessian_batch", [k, in](columns& out) {
        k.hessian_batch(const_spans<5>(*in), std::span<double>(out[0]), spans<5>(out, 1), spans<15>(out, 6));
    });
    impls.emplace_back("gradc hessian (scalar calls)", [k, in](columns& out) {
        std::array<double, 15> upper;
        for (std::size_t p = 0; p < (*in)[0].size(); ++p) {
            const std::array<double, 5> x{(*in)[0][p], (*in)[1][p], (*in)[2][p], (*in)[3][p], (*in)[4][p]};
            std::array<double, 5> g;
            k.hessian_at(x.data(), &out[0][p], g.data(), upper.data());
            for (std::size_t j = 0; j < 5; ++j) out[1 + j][p] = g[j];
            for (std::size_t t = 0; t < 15; ++t) out[6 + t][p] = upper[t];
        }
    });
    impls.emplace_back("hand-written Greeks (batch)", [in](columns& out) {
        using B = xsimd::batch<double>;
        constexpr std::size_t L = B::size;
        const std::size_t total = (*in)[0].size();
        std::size_t p = 0;
        std::array<B, 21> y;
        for (; p + L <= total; p += L) {
            bench::greeks::black_scholes_second_order(B::load_unaligned(&(*in)[0][p]), B::load_unaligned(&(*in)[1][p]),
                                                      B::load_unaligned(&(*in)[2][p]), B::load_unaligned(&(*in)[3][p]),
                                                      B::load_unaligned(&(*in)[4][p]), y.data());
            for (std::size_t j = 0; j < 21; ++j) y[j].store_unaligned(&out[j][p]);
        }
        std::array<double, 21> s;
        for (; p < total; ++p) {
            bench::greeks::black_scholes_second_order((*in)[0][p], (*in)[1][p], (*in)[2][p], (*in)[3][p], (*in)[4][p],
                                                      s.data());
            for (std::size_t j = 0; j < 21; ++j) out[j][p] = s[j];
        }
    });
    impls.emplace_back("hand-written Greeks (scalar)", [in](columns& out) {
        std::array<double, 21> s;
        for (std::size_t p = 0; p < (*in)[0].size(); ++p) {
            bench::greeks::black_scholes_second_order((*in)[0][p], (*in)[1][p], (*in)[2][p], (*in)[3][p], (*in)[4][p],
                                                      s.data());
            for (std::size_t j = 0; j < 21; ++j) out[j][p] = s[j];
        }
    });
    if (auto f = bench::nested::sacado()) impls.emplace_back("sacado SFad<SFad<double,5>,5>", run_points(f));
    if (auto f = bench::nested::ceres()) impls.emplace_back("ceres Jet<Jet<double,5>,5>", run_points(f));
    if (auto f = bench::nested::eigen()) impls.emplace_back("eigen AutoDiffScalar nested", run_points(f));
    for (auto& [name, run] : impls) {
        auto out = std::make_shared<columns>(21, std::vector<double>(n));
        run(*out);
        for (std::size_t j = 0; j < 21; ++j)
            for (std::size_t p = 0; p < n; ++p) {
                const double a = (*out)[j][p], b = (*reference)[j][p];
                if (!(std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b)))) {
                    std::fprintf(stderr, "black_scholes/%s: entry %zu at point %zu is %.17g, gradc gives %.17g\n",
                                 name.c_str(), j, p, a, b);
                    std::exit(1);
                }
            }
        add("black_scholes hessian/" + name, n, [run, out] { run(*out); });
    }
}

}  // namespace

int main(int argc, char** argv) {
    const std::size_t n = point_count();
    register_hvp("seed", bench::seed_kernel(), n, 1);
    register_hvp("normal_logpdf", bench::normal_kernel(), n, 2);
    register_hvp("black_scholes", bench::black_scholes_kernel(), n, 3);
    register_hvp("mlp", bench::mlp_kernel(), n, 4);
    register_loglik(n);
    register_kmeans(n);
    register_black_scholes_hessian(n);
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
}

GRADC_SIMD_DIAGNOSTICS_POP
