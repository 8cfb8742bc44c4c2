/// The benchmark: value and full gradient of six kernels at N points, by gradc, by
/// hand-written code, and by the peer libraries that were found at configure time.
///
///     gradc-bench [--full] [--n N] [--passes P] [--out DIR] [--raw] [--summary] [Google Benchmark's flags]
///
/// Every implementation's result is checked against hand-scalar in an untimed pass; a
/// mismatch is reported and the run exits with status 1. The timing loop is Google
/// Benchmark's: P repetitions (fewer, at least 3, for a system whose call takes seconds)
/// of one call over all N points, or of as many calls as take about 2 ms where one call
/// is shorter (calls_for), reported as the best repetition (a "min" statistic) and the
/// median. A pass in the reports is one repetition. A line per kernel and the machine's
/// context, with its CPU-frequency-scaling warning, go to stderr as the run progresses
/// (`--raw` adds Google Benchmark's line per repetition); the Markdown table of every
/// system, then the summary (gradc against hand-written code and the fastest peer), to
/// stdout (`--summary`: the summary alone). Writes DIR/latest.csv, DIR/latest.md,
/// DIR/summary.md, DIR/latest.dat (the plot's data for plot.gp) and DIR/latest.json
/// (Google Benchmark's JSON, every repetition and
/// aggregate). `--benchmark_filter=REGEX` selects benchmarks named kernel/implementation/N.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include <gradc/parallel/threads.hpp>
#include <gradc/simd/config.hpp>
#ifdef GRADC_BENCH_DISPATCH
#include <type_traits>

#include <gradc/simd/dispatch.hpp>
#endif

#include "bench.hpp"
#include "report.hpp"

namespace {

using namespace bench;

/// Arrays at different offsets within a 4 KiB page (multiples of a cache line): equal
/// offsets make loads and stores of different arrays alias in the store buffer.
class arrays {
public:
    arrays(std::size_t count, std::size_t n) {
        for (std::size_t k = 0; k < count; ++k) {
            const std::size_t offset = (k * 5 % 64) * 8;  // doubles: 0, 320 B, 640 B, ...
            const std::size_t bytes = ((n + offset) * sizeof(double) + 4095) / 4096 * 4096 + 4096;
            auto* raw = static_cast<double*>(std::aligned_alloc(4096, bytes));
            std::fill(raw, raw + bytes / sizeof(double), 0.0);
            owned_.emplace_back(raw, &std::free);
            ptr_.push_back(raw + offset);
        }
    }
    double* operator[](std::size_t k) const { return ptr_[k]; }
    std::size_t size() const { return ptr_.size(); }

private:
    std::vector<std::unique_ptr<double, decltype(&std::free)>> owned_;
    std::vector<double*> ptr_;
};

const std::vector<std::string> implementation_order{"gradc-batch", "gradc-batch-value", "gradc-scalar", "hand-scalar", "hand-simd",
                                                    "hand-simd-stats", "adolc",       "sacado-sfad",  "ceres-jet",   "eigen-autodiff",
                                                    "libtorch"};

/// gradc's and the hand-written implementations, from the copy of their files compiled
/// for this machine: the build machine's (-march=native), or in a portable build the
/// widest architecture this CPU runs, chosen now. Returns that architecture's name.
std::string register_batch_implementations(registry& reg) {
#ifdef GRADC_BENCH_DISPATCH
    return gradc::simd::dispatch([&](auto arch) -> std::string {
        using A = decltype(arch);
        if constexpr (std::is_same_v<A, xsimd::avx512bw>) {
            avx512::register_gradc(reg);
            avx512::register_gradc_value(reg);
            avx512::register_hand(reg);
        } else if constexpr (std::is_same_v<A, xsimd::avx2>) {
            avx2::register_gradc(reg);
            avx2::register_gradc_value(reg);
            avx2::register_hand(reg);
        } else {
            sse2::register_gradc(reg);
            sse2::register_gradc_value(reg);
            sse2::register_hand(reg);
        }
        return std::string(A::name()) + " (portable build, chosen at run time)";
    });
#else
    native::register_gradc(reg);
    native::register_gradc_value(reg);
    native::register_hand(reg);
    return std::string(xsimd::default_arch::name()) + " (chosen at compile time)";
#endif
}

/// Seconds one call takes once warm: the checked (first) call's time when it is long
/// enough for the first call's page faults not to matter, else the mean over doubling
/// numbers of calls until they take a millisecond.
template <class Call>
double warm_call_seconds(double first_call_seconds, const Call& call) {
    if (first_call_seconds > 0.1) return first_call_seconds;
    for (long calls = 1;; calls *= 2) {
        const auto t0 = std::chrono::steady_clock::now();
        for (long c = 0; c < calls; ++c) call();
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (s > 1e-3) return s / double(calls);
    }
}

/// Calls per repetition for one of `seconds`: enough for about 2 ms. Google Benchmark's
/// timer reads the thread's CPU clock inside the timed interval, which costs about 1.4 µs
/// on this virtual machine (a system call): one call per repetition measured gradc's seed
/// at N = 10³ at 2.3 ns a point instead of 0.9.
benchmark::IterationCount calls_for(double seconds) {
    return std::clamp<benchmark::IterationCount>(benchmark::IterationCount(2e-3 / std::max(seconds, 1e-9)), 1, 1'000'000);
}

/// Repetitions for one of `seconds`: `passes`, but at least 3 and no more than fit in
/// about 10 s (ADOL-C takes seconds a pass from N = 10⁶ on).
int passes_for(double seconds, int passes) {
    return std::clamp(int(10 / std::max(seconds, 1e-9)), std::min(3, passes), passes);
}

/// The inputs of kernel k at n points, drawn as every run draws them (fixed seed).
void draw_inputs(const kernel_info& k, std::size_t n, const arrays& in) {
    std::mt19937_64 rng(42);
    for (std::size_t j = 0; j < k.ranges.size(); ++j) {
        if (k.reduction) {
            std::normal_distribution<double> d(1.5, 2.0);
            for (std::size_t i = 0; i < n; ++i) in[j][i] = d(rng);
        } else {
            std::uniform_real_distribution<double> d(k.ranges[j].first, k.ranges[j].second);
            for (std::size_t i = 0; i < n; ++i) in[j][i] = d(rng);
        }
    }
}

/// max |a - b| / max(|b|, 1) over the first `outputs` arrays: relative for large values,
/// absolute near zero, where peers that build Φ from 1 - erf lose the relative accuracy
/// of tiny prices. NaN counts as infinite.
double max_error(const arrays& got, const arrays& reference, std::size_t outputs, std::size_t n) {
    double err = 0;
    for (std::size_t m = 0; m < outputs; ++m)
        for (std::size_t i = 0; i < n; ++i) {
            const double e = std::abs(got[m][i] - reference[m][i]) / std::max(std::abs(reference[m][i]), 1.0);
            err = std::isnan(e) ? INFINITY : std::max(err, e);
        }
    return err;
}

/// Registers `run` on `p` with Google Benchmark: calls_for(seconds) calls per repetition,
/// passes_for repetitions, wall-clock time, and a "min" statistic beside the median.
void register_timed(const std::string& name, const runner& run, const problem& p, double call_seconds, int passes) {
    const auto calls = calls_for(call_seconds);
    benchmark::RegisterBenchmark(name.c_str(),
                                 [run, p](benchmark::State& state) {
                                     for (auto _ : state) run(p);
                                     state.SetItemsProcessed(state.iterations() * std::int64_t(p.n));
                                 })
        ->Iterations(calls)
        ->Repetitions(passes_for(call_seconds * double(calls), passes))
        ->ComputeStatistics("min", [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); })
        ->ReportAggregatesOnly(true)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
}

}  // namespace

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    std::size_t n = 100'000;
    int passes = 5;
    std::string out_dir = "bench/results";
    bool raw = false, summary_only = false;
    for (int a = 1; a < argc; ++a) {
        const std::string arg = argv[a];
        if (arg == "--full") {
            n = 1'000'000;
            passes = 7;
        } else if (arg == "--n" && a + 1 < argc) {
            n = std::stoul(argv[++a]);
        } else if (arg == "--passes" && a + 1 < argc) {
            passes = std::max(1, std::stoi(argv[++a]));
        } else if (arg == "--out" && a + 1 < argc) {
            out_dir = argv[++a];
        } else if (arg == "--raw") {
            raw = true;
        } else if (arg == "--summary") {
            summary_only = true;
        } else {
            std::cerr << "usage: gradc-bench [--full] [--n N] [--passes P] [--out DIR] [--raw] [--summary] "
                         "[--benchmark_...]\n";
            return 2;
        }
    }
    const std::regex selected(benchmark::GetBenchmarkFilter().empty() || benchmark::GetBenchmarkFilter() == "all"
                                  ? std::string(".")
                                  : benchmark::GetBenchmarkFilter());

    // One thread for every system: gradc's batch calls would otherwise use every core
    // the process may run on (all of them when it is not pinned with taskset).
    gradc::set_num_threads(1);
    registry reg;
    const std::string arch = register_batch_implementations(reg);
    std::fprintf(stderr, "batch code of gradc and hand-simd: %s\n", arch.c_str());
    register_adolc(reg);
    register_sacado(reg);
    register_ceres(reg);
    register_eigen(reg);
    register_libtorch(reg);

    keeping_reporter reporter(raw);
    std::vector<row> rows;
    bool mismatch = false;
    for (std::size_t kernel_index = 0; kernel_index < kernels().size(); ++kernel_index) {
        const auto& k = kernels()[kernel_index];
        auto name_of = [&](const std::string& impl) { return k.name + "/" + impl + "/" + std::to_string(n); };
        std::vector<std::string> impls;
        for (const auto& name : implementation_order) {
            const auto impl = reg.find(name);
            if (impl != reg.end() && impl->second.contains(k.name) && std::regex_search(name_of(name), selected))
                impls.push_back(name);
        }
        if (impls.empty()) continue;
        std::fprintf(stderr, "kernel %zu of %zu: %s, N = %zu, %zu systems\n", kernel_index + 1, kernels().size(),
                     k.name.c_str(), n, impls.size());

        const std::size_t arity = k.ranges.size();
        const std::size_t outputs = 1 + k.gradient_size;
        const std::size_t out_n = k.reduction ? 1 : n;
        arrays in(arity, n);
        draw_inputs(k, n, in);
        arrays reference(outputs, out_n), out(outputs, out_n);
        auto make_problem = [&](const arrays& o) {
            problem p;
            p.n = n;
            for (std::size_t j = 0; j < arity; ++j) p.in.push_back(in[j]);
            for (std::size_t m = 0; m < outputs; ++m) p.out.push_back(o[m]);
            return p;
        };
        reg.at("hand-scalar").at(k.name)(make_problem(reference));

        std::vector<double> errors;
        for (const auto& name : impls) {
            const auto& run = reg.at(name).at(k.name);
            problem p = make_problem(out);
            for (std::size_t m = 0; m < outputs; ++m) std::fill(out[m], out[m] + out_n, std::nan(""));

            const auto t0 = std::chrono::steady_clock::now();
            run(p);
            const double checked_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            const double err = max_error(out, reference, name.ends_with("-value") ? 1 : outputs, out_n);
            errors.push_back(err);
            // A sum over N points carries N rounding errors; per-point results one.
            const double tolerance = k.reduction ? 1e-9 * std::sqrt(double(n)) : 1e-9;
            if (!(err <= tolerance)) {
                std::cerr << "MISMATCH: " << name << " on " << k.name << ": max relative error " << err
                          << " > " << tolerance << " against hand-scalar\n";
                mismatch = true;
            }

            p.results_needed = false;
            register_timed(name_of(name), run, p, warm_call_seconds(checked_seconds, [&] { run(p); }), passes);
        }
        benchmark::RunSpecifiedBenchmarks(&reporter);
        benchmark::ClearRegisteredBenchmarks();

        const double scale = 1e9 / double(n);
        for (std::size_t i = 0; i < impls.size(); ++i) {
            const auto best = reporter.find(name_of(impls[i]), "min");
            const auto median = reporter.find(name_of(impls[i]), "median");
            if (!best || !median) continue;
            rows.push_back({k.name, impls[i], n, seconds_per_iteration(*best) * scale,
                            seconds_per_iteration(*median) * scale, errors[i], int(best->repetitions)});
        }
    }

    std::vector<std::string> kernel_names;
    for (const auto& k : kernels()) kernel_names.push_back(k.name);
    const std::string table = write_reports(rows, implementation_order, kernel_names, out_dir);
    const std::string summary = write_summary(rows, kernel_names, out_dir);
    if (summary_only) {
        std::cout << summary << "\n(every system: " << out_dir << "/latest.md; each repetition: latest.json)\n";
    } else {
        std::cout << table << "\n" << summary;
    }
    reporter.write_json(out_dir + "/latest.json");

    if (mismatch) {
        std::cerr << "gradc-bench: some implementations disagree with hand-scalar (see MISMATCH above)\n";
        return 1;
    }
    return 0;
}
