/// The benchmark: value and full gradient of five kernels at N points, by gradc, by
/// hand-written code, and by the peer libraries that were found at configure time.
///
///     gradc-bench [--full] [--n N] [--passes P] [--out DIR]
///
/// Every implementation's result is checked against hand-scalar before it is timed; a
/// mismatch is reported and the run exits with status 1. Timing is the best of several
/// passes (the spread, median over best, goes into the Markdown table). Writes
/// DIR/latest.csv, DIR/latest.md and DIR/latest.dat (the plot's data for plot.gp).

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <gradc/parallel/threads.hpp>
#include <gradc/simd/config.hpp>
#ifdef GRADC_BENCH_DISPATCH
#include <type_traits>

#include <gradc/simd/dispatch.hpp>
#endif

#include "bench.hpp"

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
                                                    "adolc",       "sacado-sfad",  "ceres-jet",   "eigen-autodiff",
                                                    "libtorch"};

struct row {
    std::string kernel, implementation;
    std::size_t n;
    double best_ns, median_ns, max_rel_error;
};

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

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
    std::size_t n = 100'000;
    int passes = 5;
    std::string out_dir = "bench/results";
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
        } else {
            std::cerr << "usage: gradc-bench [--full] [--n N] [--passes P] [--out DIR]\n";
            return 2;
        }
    }

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

    std::vector<row> rows;
    bool mismatch = false;
    for (const auto& k : kernels()) {
        const std::size_t arity = k.ranges.size();
        const std::size_t outputs = 1 + k.gradient_size;
        const std::size_t out_n = k.reduction ? 1 : n;
        arrays in(arity, n);
        std::mt19937_64 rng(42);
        for (std::size_t j = 0; j < arity; ++j) {
            if (k.reduction) {
                std::normal_distribution<double> d(1.5, 2.0);
                for (std::size_t i = 0; i < n; ++i) in[j][i] = d(rng);
            } else {
                std::uniform_real_distribution<double> d(k.ranges[j].first, k.ranges[j].second);
                for (std::size_t i = 0; i < n; ++i) in[j][i] = d(rng);
            }
        }
        arrays reference(outputs, out_n), out(outputs, out_n);
        auto make_problem = [&](const arrays& o) {
            problem p;
            p.n = n;
            for (std::size_t j = 0; j < arity; ++j) p.in.push_back(in[j]);
            for (std::size_t m = 0; m < outputs; ++m) p.out.push_back(o[m]);
            return p;
        };
        reg.at("hand-scalar").at(k.name)(make_problem(reference));

        for (const auto& name : implementation_order) {
            const auto impl = reg.find(name);
            if (impl == reg.end() || !impl->second.contains(k.name)) continue;
            const auto& run = impl->second.at(k.name);
            problem p = make_problem(out);
            for (std::size_t m = 0; m < outputs; ++m) std::fill(out[m], out[m] + out_n, std::nan(""));

            run(p);
            // |a - b| / max(|b|, 1): relative for large values, absolute near zero, where
            // peers that build Φ from 1 - erf lose the relative accuracy of tiny prices.
            double err = 0;
            const bool value_only = name.ends_with("-value");
            for (std::size_t m = 0; m < (value_only ? 1 : outputs); ++m)
                for (std::size_t i = 0; i < out_n; ++i) {
                    const double e = std::abs(out[m][i] - reference[m][i]) / std::max(std::abs(reference[m][i]), 1.0);
                    err = std::isnan(e) ? INFINITY : std::max(err, e);
                }
            // A sum over N points carries N rounding errors; per-point results one.
            const double tolerance = k.reduction ? 1e-9 * std::sqrt(double(n)) : 1e-9;
            if (!(err <= tolerance)) {
                std::cerr << "MISMATCH: " << name << " on " << k.name << ": max relative error " << err
                          << " > " << tolerance << " against hand-scalar\n";
                mismatch = true;
            }

            p.results_needed = false;
            std::vector<double> times;
            const auto start = std::chrono::steady_clock::now();
            for (int pass = 0; pass < passes; ++pass) {
                const auto t0 = std::chrono::steady_clock::now();
                run(p);
                times.push_back(seconds_since(t0));
                // Slow peers: three passes are enough when one takes seconds.
                if (pass >= 2 && seconds_since(start) > 10) break;
            }
            std::sort(times.begin(), times.end());
            const double scale = 1e9 / double(n);
            rows.push_back({k.name, name, n, times.front() * scale, times[times.size() / 2] * scale, err});
            std::fprintf(stderr, "  %-14s %-15s %10.3f ns/point (median %.3f, %zu passes)\n", k.name.c_str(),
                         name.c_str(), times.front() * scale, times[times.size() / 2] * scale, times.size());
        }
    }

    std::ofstream csv(out_dir + "/latest.csv");
    csv << "kernel,implementation,n_points,ns_per_point,max_rel_error\n";
    for (const auto& r : rows) {
        char line[256];
        std::snprintf(line, sizeof line, "%s,%s,%zu,%.4g,%.3g\n", r.kernel.c_str(), r.implementation.c_str(), r.n,
                      r.best_ns, r.max_rel_error);
        csv << line;
    }

    std::ostringstream md;
    md << "| kernel | implementation | N | ns/point (best) | spread (median/best) | vs hand-simd | max rel. error |\n"
       << "|---|---|---:|---:|---:|---:|---:|\n";
    for (const auto& r : rows) {
        double hand = 0;
        for (const auto& h : rows)
            if (h.kernel == r.kernel && h.implementation == "hand-simd") hand = h.best_ns;
        char line[512];
        std::snprintf(line, sizeof line, "| %s | %s | %zu | %.3g | %.2f | %.2f× | %.1e |\n", r.kernel.c_str(),
                      r.implementation.c_str(), r.n, r.best_ns, r.median_ns / r.best_ns, r.best_ns / hand,
                      r.max_rel_error);
        md << line;
    }
    std::ofstream(out_dir + "/latest.md") << md.str();
    std::cout << md.str();

    // Plot data: one row per kernel, one column per implementation ("-": not run).
    std::ofstream dat(out_dir + "/latest.dat");
    dat << "kernel";
    for (const auto& name : implementation_order) dat << ' ' << name;
    dat << '\n';
    for (const auto& k : kernels()) {
        dat << k.name;
        for (const auto& name : implementation_order) {
            const auto it = std::find_if(rows.begin(), rows.end(), [&](const row& r) {
                return r.kernel == k.name && r.implementation == name;
            });
            if (it == rows.end()) {
                dat << " -";
            } else {
                dat << ' ' << it->best_ns;
            }
        }
        dat << '\n';
    }

    if (mismatch) {
        std::cerr << "gradc-bench: some implementations disagree with hand-scalar (see MISMATCH above)\n";
        return 1;
    }
    return 0;
}
