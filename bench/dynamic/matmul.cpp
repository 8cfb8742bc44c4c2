// The dynamic mode's matrix product against LibTorch's and Eigen's, one thread, float64,
// in the same run (Google Benchmark):
//  - square n × n products, n = 64, 256, 512, 1024;
//  - the shapes of the ADBench GMM (bench/arrays/gmm_tensors.hpp, d = 10, K = 5,
//    n = 1,000 points): [1000×10]·[10×10]; the batched [5,1000,10]·[5,10,10]ᵀ of the
//    objective (the second operand a transposed view, as there); and the weight gradient
//    of its backward, [5,10,1000]·[5,1000,10] with the first operand a transposed view.
// Each product's result is checked against a plain triple loop before timing.
//
// GCC 12 reports -W(maybe-)uninitialized inside its own avx512fintrin.h where Eigen's
// AVX-512 packets are inlined (GCC bug 105593, see gradc/math/xsimd.hpp).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <Eigen/Core>
#include <gradc/autograd.hpp>

#if GRADC_BENCH_LIBTORCH
#include <torch/torch.h>
#endif

namespace {

std::vector<double> values(std::int64_t count, double seed) {
    std::vector<double> v(static_cast<std::size_t>(count));
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = std::sin(seed + 0.37 * double(i));
    return v;
}

gradc::Tensor gradc_tensor(std::int64_t count, double seed, gradc::Shape sizes) {
    return gradc::from_vector(values(count, seed), sizes, gradc::TensorOptions().dtype(gradc::kDouble));
}

// The cases: a·b with a of [batch, m, k] and b of [batch, k, n] (batch 0: plain 2-D);
// transpose_a / transpose_b: the operand is stored the other way round and viewed
// transposed, as the GMM does.
struct product_case {
    std::int64_t batch, m, k, n;
    bool transpose_a, transpose_b;
};

gradc::Shape stored(std::int64_t batch, std::int64_t r, std::int64_t c, bool transposed) {
    if (transposed) std::swap(r, c);
    return batch ? gradc::Shape{batch, r, c} : gradc::Shape{r, c};
}

gradc::Tensor gradc_operand(std::int64_t batch, std::int64_t r, std::int64_t c, bool transposed, double seed) {
    auto t = gradc_tensor(std::max<std::int64_t>(batch, 1) * r * c, seed, stored(batch, r, c, transposed));
    return transposed ? t.transpose(-2, -1) : t;
}

/// Largest relative difference of gradc's product to a plain loop.
double check_gradc(const product_case& p) {
    auto a = gradc_operand(p.batch, p.m, p.k, p.transpose_a, 0.1), b = gradc_operand(p.batch, p.k, p.n, p.transpose_b, 0.7);
    auto c = gradc::matmul(a, b).contiguous();
    auto ac = a.contiguous(), bc = b.contiguous();
    const double *pa = ac.data_ptr<double>(), *pb = bc.data_ptr<double>(), *pc = c.data_ptr<double>();
    double worst = 0;
    for (std::int64_t s = 0; s < std::max<std::int64_t>(p.batch, 1); ++s)
        for (std::int64_t i = 0; i < p.m; ++i)
            for (std::int64_t j = 0; j < p.n; ++j) {
                double ref = 0;
                for (std::int64_t q = 0; q < p.k; ++q) ref += pa[(s * p.m + i) * p.k + q] * pb[(s * p.k + q) * p.n + j];
                worst = std::max(worst, std::abs(pc[(s * p.m + i) * p.n + j] - ref) / std::max(1.0, std::abs(ref)));
            }
    return worst;
}

product_case square(std::int64_t n) { return {0, n, n, n, false, false}; }
const product_case thin{0, 1000, 10, 10, false, false};
const product_case gmm_forward{5, 1000, 10, 10, false, true};
const product_case gmm_weight_gradient{5, 10, 1000, 10, true, false};

const product_case& case_of(std::int64_t id) {
    static const product_case cases[] = {thin, gmm_forward, gmm_weight_gradient};
    return cases[id];
}

const bool checked = [] {
    gradc::set_num_threads(1);
    for (const auto& p : {square(64), square(257), thin, gmm_forward, gmm_weight_gradient}) {
        const double w = check_gradc(p);
        if (!(w < 1e-12)) {
            std::fprintf(stderr, "matmul: gradc's product of [%lld, %lld, %lld] differs from a plain loop by %.2e\n",
                         (long long)p.m, (long long)p.k, (long long)p.n, w);
            std::exit(1);
        }
    }
#if GRADC_BENCH_LIBTORCH
    at::set_num_threads(1);
#endif
    return true;
}();

template <class Make, class Multiply>
void run(benchmark::State& state, const product_case& p, Make make, Multiply multiply) {
    auto a = make(p.batch, p.m, p.k, p.transpose_a, 0.1), b = make(p.batch, p.k, p.n, p.transpose_b, 0.7);
    for (auto _ : state) benchmark::DoNotOptimize(multiply(a, b));
    state.counters["GFLOP/s"] = benchmark::Counter(2.0 * double(std::max<std::int64_t>(p.batch, 1) * p.m * p.k * p.n),
                                                   benchmark::Counter::kIsIterationInvariantRate);
}

auto gradc_matmul = [](const gradc::Tensor& a, const gradc::Tensor& b) { return gradc::matmul(a, b); };

void BM_matmul_square_gradc(benchmark::State& s) { run(s, square(s.range(0)), gradc_operand, gradc_matmul); }
void BM_matmul_gmm_gradc(benchmark::State& s) { run(s, case_of(s.range(0)), gradc_operand, gradc_matmul); }

void BM_matmul_square_eigen(benchmark::State& s) {
    const auto n = s.range(0);
    const Eigen::MatrixXd a = Eigen::MatrixXd::Random(n, n), b = Eigen::MatrixXd::Random(n, n);
    Eigen::MatrixXd c(n, n);
    for (auto _ : s) {
        c.noalias() = a * b;
        benchmark::DoNotOptimize(c.data());
    }
    s.counters["GFLOP/s"] = benchmark::Counter(2.0 * double(n * n * n), benchmark::Counter::kIsIterationInvariantRate);
}

#if GRADC_BENCH_LIBTORCH
torch::Tensor torch_operand(std::int64_t batch, std::int64_t r, std::int64_t c, bool transposed, double seed) {
    auto v = values(std::max<std::int64_t>(batch, 1) * r * c, seed);
    auto sizes = stored(batch, r, c, transposed);
    auto t = torch::from_blob(v.data(), std::vector<std::int64_t>(sizes.begin(), sizes.end()), torch::kFloat64).clone();
    return transposed ? t.transpose(-2, -1) : t;
}
auto torch_matmul = [](const torch::Tensor& a, const torch::Tensor& b) { return torch::matmul(a, b); };
void BM_matmul_square_libtorch(benchmark::State& s) { run(s, square(s.range(0)), torch_operand, torch_matmul); }
void BM_matmul_gmm_libtorch(benchmark::State& s) { run(s, case_of(s.range(0)), torch_operand, torch_matmul); }
BENCHMARK(BM_matmul_square_libtorch)->Arg(64)->Arg(256)->Arg(512)->Arg(1024)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_matmul_gmm_libtorch)->DenseRange(0, 2)->Unit(benchmark::kMicrosecond);
#endif
BENCHMARK(BM_matmul_square_gradc)->Arg(64)->Arg(256)->Arg(512)->Arg(1024)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_matmul_square_eigen)->Arg(64)->Arg(256)->Arg(512)->Arg(1024)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_matmul_gmm_gradc)->DenseRange(0, 2)->Unit(benchmark::kMicrosecond);

}  // namespace
BENCHMARK_MAIN();
