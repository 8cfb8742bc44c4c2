// <gradc/ceres.hpp> against Ceres Solver's own automatic differentiation, on one thread,
// with Google Benchmark (bench/ceres/run.sh runs it):
//  - CostFunction::Evaluate of the exponential residual of Ceres's curve-fitting tutorial,
//    y - exp(m·x + c), per residual block, over the tutorial's 67 points: with both
//    Jacobian blocks and residual only; ceres::AutoDiffCostFunction (Jets) against
//    gradc::ceres::cost_function (the kernel's Jacobian sweep);
//    and a hand-written CostFunction (the residual and its two partials written out), the
//    floor both reach;
//  - the same for the reprojection error of Ceres's bundle-adjustment example
//    (SnavelyReprojectionError: 2 residuals, a camera block of 9 and a point block of 3);
//  - FirstOrderFunction::Evaluate of a normal negative log-likelihood summed over N
//    points, per point: ceres::AutoDiffFirstOrderFunction (a loop over the points on
//    Jets) against gradc::ceres::first_order_function (one map-reduce call).
// Before timing, each pair is checked to agree (|a - b| <= 1e-12·max(1, |b|)).

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <vector>

#include <benchmark/benchmark.h>
#include <ceres/autodiff_cost_function.h>
#include <ceres/autodiff_first_order_function.h>
#include <ceres/rotation.h>
#include <ceres/sized_cost_function.h>

#include <gradc/ceres.hpp>
#include <gradc/gradc.hpp>

#include "../../examples/curve_fit.hpp"

namespace {

const curve_fit_points& curve() {
    static const curve_fit_points d;
    return d;
}

std::vector<std::unique_ptr<ceres::CostFunction>> ceres_blocks() {
    std::vector<std::unique_ptr<ceres::CostFunction>> b;
    for (std::size_t i = 0; i < curve().xs.size(); ++i)
        b.emplace_back(new ceres::AutoDiffCostFunction<exponential_residual, 1, 1, 1>(
            new exponential_residual{curve().xs[i], curve().ys[i]}));
    return b;
}

std::vector<std::unique_ptr<ceres::CostFunction>> gradc_blocks() {
    auto [m, c, x, y] = gradc::variables<4>();
    const auto k = gradc::compile(y - exp(m * x + c), gradc::wrt(m, c));
    std::vector<std::unique_ptr<ceres::CostFunction>> b;
    for (std::size_t i = 0; i < curve().xs.size(); ++i)
        b.emplace_back(gradc::ceres::make_cost_function<1, 1>(k, curve().xs[i], curve().ys[i]));
    return b;
}

// The residual and its partials by hand: the floor (one exp and a call).
class exponential_by_hand final : public ceres::SizedCostFunction<1, 1, 1> {
public:
    exponential_by_hand(double x, double y) : x_(x), y_(y) {}
    bool Evaluate(double const* const* p, double* r, double** j) const override {
        const double e = std::exp(p[0][0] * x_ + p[1][0]);
        r[0] = y_ - e;
        if (j != nullptr) {
            if (j[0] != nullptr) j[0][0] = -x_ * e;
            if (j[1] != nullptr) j[1][0] = -e;
        }
        return true;
    }

private:
    double x_, y_;
};

std::vector<std::unique_ptr<ceres::CostFunction>> hand_blocks() {
    std::vector<std::unique_ptr<ceres::CostFunction>> b;
    for (std::size_t i = 0; i < curve().xs.size(); ++i)
        b.emplace_back(new exponential_by_hand(curve().xs[i], curve().ys[i]));
    return b;
}

bool close(double a, double b) { return std::abs(a - b) <= 1e-12 * std::max(1.0, std::abs(b)); }

void check_cost_functions(const std::vector<std::unique_ptr<ceres::CostFunction>>& ours) {
    const auto theirs = ceres_blocks();
    const double m = 0.25, c = 0.05;
    const double* p[2] = {&m, &c};
    for (std::size_t i = 0; i < ours.size(); ++i) {
        double r[2], dm[2], dc[2];
        double* j0[2] = {&dm[0], &dc[0]};
        double* j1[2] = {&dm[1], &dc[1]};
        ours[i]->Evaluate(p, &r[0], j0);
        theirs[i]->Evaluate(p, &r[1], j1);
        if (!close(r[0], r[1]) || !close(dm[0], dm[1]) || !close(dc[0], dc[1])) {
            std::fprintf(stderr, "cost functions disagree at block %zu\n", i);
            std::exit(1);
        }
    }
}

void run_evaluate(benchmark::State& state, const std::vector<std::unique_ptr<ceres::CostFunction>>& blocks,
                  bool with_jacobian) {
    double m = 0.25, c = 0.05;
    const double* p[2] = {&m, &c};
    double residual = 0, dm = 0, dc = 0;
    double* jacobians[2] = {&dm, &dc};
    for (auto _ : state) {
        for (const auto& f : blocks) {
            f->Evaluate(p, &residual, with_jacobian ? jacobians : nullptr);
            benchmark::DoNotOptimize(residual);
            benchmark::DoNotOptimize(dm);
            benchmark::DoNotOptimize(dc);
        }
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(blocks.size()));
    state.counters["ns_per_block"] = benchmark::Counter(
        static_cast<double>(state.iterations()) * static_cast<double>(blocks.size()),
        benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_cost_evaluate_jacobian_ceres_autodiff(benchmark::State& s) {
    static const auto b = ceres_blocks();
    run_evaluate(s, b, true);
}
void BM_cost_evaluate_jacobian_gradc(benchmark::State& s) {
    static const auto b = gradc_blocks();
    run_evaluate(s, b, true);
}
void BM_cost_evaluate_jacobian_hand(benchmark::State& s) {
    static const auto b = hand_blocks();
    run_evaluate(s, b, true);
}
void BM_cost_evaluate_residual_ceres_autodiff(benchmark::State& s) {
    static const auto b = ceres_blocks();
    run_evaluate(s, b, false);
}
void BM_cost_evaluate_residual_gradc(benchmark::State& s) {
    static const auto b = gradc_blocks();
    run_evaluate(s, b, false);
}
void BM_cost_evaluate_residual_hand(benchmark::State& s) {
    static const auto b = hand_blocks();
    run_evaluate(s, b, false);
}

// ---- the reprojection error of Ceres's bundle-adjustment example (examples/
// snavely_reprojection_error.h): camera = angle-axis rotation (3), translation (3), focal
// length, two radial distortion terms; point (3); the data are the observed x and y.

struct snavely_reprojection_error {
    double observed_x, observed_y;
    template <class T>
    bool operator()(const T* const camera, const T* const point, T* residuals) const {
        T p[3];
        ceres::AngleAxisRotatePoint(camera, point, p);
        p[0] += camera[3];
        p[1] += camera[4];
        p[2] += camera[5];
        const T xp = -p[0] / p[2];
        const T yp = -p[1] / p[2];
        const T r2 = xp * xp + yp * yp;
        const T distortion = 1.0 + r2 * (camera[7] + camera[8] * r2);
        residuals[0] = camera[6] * distortion * xp - observed_x;
        residuals[1] = camera[6] * distortion * yp - observed_y;
        return true;
    }
};

/// The same residual as a gradc kernel; the rotation is Ceres's formula away from a zero
/// angle (Ceres switches to a first-order form below θ² = ε, never reached here). The 1
/// is a named constant, so that the subexpressions that hold it, used several times, are
/// one node each (docs/static.md, "Named constants").
auto snavely_kernel() {
    auto [w0, w1, w2, t0, t1, t2, f, k1, k2, X, Y, Z, ox, oy] = gradc::variables<14>();
    const auto one = gradc::constant([] { return 1.0; });
    const auto theta = sqrt(w0 * w0 + w1 * w1 + w2 * w2);
    const auto c = cos(theta);
    const auto s = sin(theta);
    const auto u0 = w0 / theta;
    const auto u1 = w1 / theta;
    const auto u2 = w2 / theta;
    const auto along = (u0 * X + u1 * Y + u2 * Z) * (one - c);
    const auto p0 = X * c + (u1 * Z - u2 * Y) * s + u0 * along + t0;
    const auto p1 = Y * c + (u2 * X - u0 * Z) * s + u1 * along + t1;
    const auto p2 = Z * c + (u0 * Y - u1 * X) * s + u2 * along + t2;
    const auto xp = -p0 / p2;
    const auto yp = -p1 / p2;
    const auto r2 = xp * xp + yp * yp;
    const auto scale = f * (one + r2 * (k1 + k2 * r2));
    return gradc::compile(scale * xp - ox, scale * yp - oy, gradc::wrt(w0, w1, w2, t0, t1, t2, f, k1, k2, X, Y, Z));
}

struct bundle_data {
    std::vector<std::array<double, 9>> cameras;
    std::vector<std::array<double, 3>> points;
    std::vector<std::array<double, 2>> observed;
    bundle_data() {
        std::mt19937_64 rng(5);
        std::uniform_real_distribution<double> u(-1.0, 1.0);
        for (int i = 0; i < 64; ++i) {
            cameras.push_back({0.3 * u(rng), 0.3 * u(rng), 0.3 * u(rng), 0.5 * u(rng), 0.5 * u(rng), -5.0 + u(rng),
                               500.0 + 50.0 * u(rng), 1e-3 * u(rng), 1e-6 * u(rng)});
            points.push_back({u(rng), u(rng), u(rng)});
            observed.push_back({40.0 * u(rng), 40.0 * u(rng)});
        }
    }
};

const bundle_data& bundle() {
    static const bundle_data d;
    return d;
}

std::vector<std::unique_ptr<ceres::CostFunction>> bundle_blocks(bool use_gradc) {
    const auto k = snavely_kernel();
    std::vector<std::unique_ptr<ceres::CostFunction>> b;
    for (const auto& o : bundle().observed) {
        if (use_gradc)
            b.emplace_back(gradc::ceres::make_cost_function<9, 3>(k, o[0], o[1]));
        else
            b.emplace_back(new ceres::AutoDiffCostFunction<snavely_reprojection_error, 2, 9, 3>(
                new snavely_reprojection_error{o[0], o[1]}));
    }
    return b;
}

/// Evaluates block i at camera i and point i: residuals and both Jacobian blocks.
void evaluate_bundle(const ceres::CostFunction& f, std::size_t i, double* r, double* jc, double* jp) {
    const double* p[2] = {bundle().cameras[i].data(), bundle().points[i].data()};
    double* j[2] = {jc, jp};
    f.Evaluate(p, r, j);
}

void check_bundle(const std::vector<std::unique_ptr<ceres::CostFunction>>& ours,
                  const std::vector<std::unique_ptr<ceres::CostFunction>>& theirs) {
    for (std::size_t i = 0; i < ours.size(); ++i) {
        double r[2][2], jc[2][18], jp[2][6];
        evaluate_bundle(*ours[i], i, r[0], jc[0], jp[0]);
        evaluate_bundle(*theirs[i], i, r[1], jc[1], jp[1]);
        bool same = close(r[0][0], r[1][0]) && close(r[0][1], r[1][1]);
        for (int e = 0; e < 18; ++e) same = same && std::abs(jc[0][e] - jc[1][e]) <= 1e-9 * std::max(1.0, std::abs(jc[1][e]));
        for (int e = 0; e < 6; ++e) same = same && std::abs(jp[0][e] - jp[1][e]) <= 1e-9 * std::max(1.0, std::abs(jp[1][e]));
        if (!same) {
            std::fprintf(stderr, "bundle-adjustment cost functions disagree at block %zu\n", i);
            std::exit(1);
        }
    }
}

void run_bundle(benchmark::State& state, const std::vector<std::unique_ptr<ceres::CostFunction>>& blocks) {
    double r[2], jc[18], jp[6];
    for (auto _ : state) {
        for (std::size_t i = 0; i < blocks.size(); ++i) {
            evaluate_bundle(*blocks[i], i, r, jc, jp);
            benchmark::DoNotOptimize(r);
            benchmark::DoNotOptimize(jc);
            benchmark::DoNotOptimize(jp);
        }
        benchmark::ClobberMemory();
    }
    state.counters["ns_per_block"] = benchmark::Counter(
        static_cast<double>(state.iterations()) * static_cast<double>(blocks.size()),
        benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_bundle_evaluate_jacobian_ceres_autodiff(benchmark::State& s) {
    static const auto b = bundle_blocks(false);
    run_bundle(s, b);
}
void BM_bundle_evaluate_jacobian_gradc(benchmark::State& s) {
    static const auto b = bundle_blocks(true);
    run_bundle(s, b);
}

// ---- the negative log-likelihood of a normal sample, Σᵢ zᵢ²/2 + log σ, zᵢ = (xᵢ - μ)/σ

std::vector<double> sample(std::size_t n) {
    std::vector<double> xs(n);
    std::mt19937_64 rng(7);
    std::normal_distribution<double> normal(2.0, 0.8);
    for (double& e : xs) e = normal(rng);
    return xs;
}

struct normal_nll {
    const std::vector<double>* xs;
    template <class T>
    bool operator()(const T* const theta, T* cost) const {
        T sum(0.0);
        const T inverse_sigma = 1.0 / theta[1];
        for (double x : *xs) {
            const T z = (x - theta[0]) * inverse_sigma;
            sum += 0.5 * (z * z);
        }
        cost[0] = sum + static_cast<double>(xs->size()) * log(theta[1]);
        return true;
    }
};

std::unique_ptr<ceres::FirstOrderFunction> gradc_nll(const std::vector<double>& xs) {
    auto [x, mu, sigma] = gradc::variables<3>();
    const auto z = (x - mu) / sigma;
    const auto k = gradc::compile(0.5 * (z * z) + log(sigma), gradc::wrt(mu, sigma));
    const std::array<std::span<const double>, 1> data{xs};
    return gradc::ceres::make_first_order_function(k, data, gradc::threads{1});
}

void check_first_order(const std::vector<double>& xs) {
    const auto ours = gradc_nll(xs);
    const ceres::AutoDiffFirstOrderFunction<normal_nll, 2> theirs(new normal_nll{&xs});
    const double theta[2] = {1.7, 0.9};
    double v[2], g[2][2];
    ours->Evaluate(theta, &v[0], g[0]);
    theirs.Evaluate(theta, &v[1], g[1]);
    if (!close(v[0], v[1]) || !close(g[0][0], g[1][0]) || !close(g[0][1], g[1][1])) {
        std::fprintf(stderr, "first-order functions disagree: %.17g %.17g\n", v[0], v[1]);
        std::exit(1);
    }
}

void run_first_order(benchmark::State& state, const ceres::FirstOrderFunction& f, std::size_t n) {
    const double theta[2] = {1.7, 0.9};
    double cost = 0, gradient[2] = {0, 0};
    for (auto _ : state) {
        f.Evaluate(theta, &cost, gradient);
        benchmark::DoNotOptimize(cost);
        benchmark::DoNotOptimize(gradient);
    }
    state.counters["ns_per_point"] = benchmark::Counter(static_cast<double>(state.iterations()) * static_cast<double>(n),
                                                        benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_first_order_ceres_autodiff(benchmark::State& s) {
    const auto xs = sample(static_cast<std::size_t>(s.range(0)));
    const ceres::AutoDiffFirstOrderFunction<normal_nll, 2> f(new normal_nll{&xs});
    run_first_order(s, f, xs.size());
}
void BM_first_order_gradc(benchmark::State& s) {
    const auto xs = sample(static_cast<std::size_t>(s.range(0)));
    const auto f = gradc_nll(xs);
    run_first_order(s, *f, xs.size());
}

}  // namespace

BENCHMARK(BM_cost_evaluate_jacobian_ceres_autodiff);
BENCHMARK(BM_cost_evaluate_jacobian_gradc);
BENCHMARK(BM_cost_evaluate_jacobian_hand);
BENCHMARK(BM_cost_evaluate_residual_ceres_autodiff);
BENCHMARK(BM_cost_evaluate_residual_gradc);
BENCHMARK(BM_cost_evaluate_residual_hand);
BENCHMARK(BM_bundle_evaluate_jacobian_ceres_autodiff);
BENCHMARK(BM_bundle_evaluate_jacobian_gradc);
BENCHMARK(BM_first_order_ceres_autodiff)->Arg(1000)->Arg(100000);
BENCHMARK(BM_first_order_gradc)->Arg(1000)->Arg(100000);

int main(int argc, char** argv) {
    check_cost_functions(gradc_blocks());
    check_cost_functions(hand_blocks());
    check_bundle(bundle_blocks(true), bundle_blocks(false));
    check_first_order(sample(1000));
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
