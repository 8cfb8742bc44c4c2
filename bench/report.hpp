#pragma once
/// The benchmark's reports, from Google Benchmark's runs: a console reporter that also
/// keeps every aggregate it prints, and the files written from them (latest.csv,
/// latest.md, latest.dat for bench/plot.gp, latest.json in Google Benchmark's format).

#include <optional>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

namespace bench {

/// One timed (kernel, implementation): ns per point, best and median of the passes.
struct row {
    std::string kernel, implementation;
    std::size_t n;
    double best_ns, median_ns, max_rel_error;
    int passes;
};

/// Keeps the runs, so that the reports can be written after the last kernel, and prints
/// the machine's context (CPU, caches, frequency-scaling warning) once, to stderr (stdout
/// is for the Markdown tables). Google Benchmark's line per repetition goes to stderr
/// too when `raw` is set (gradc-bench --raw); the runs are in latest.json either way.
class keeping_reporter : public benchmark::ConsoleReporter {
public:
    explicit keeping_reporter(bool raw);
    bool ReportContext(const Context& context) override;
    void ReportRuns(const std::vector<Run>& runs) override;

    /// The run `aggregate` ("min", "median", ...) of benchmark `name`, if it ran.
    std::optional<Run> find(const std::string& name, const std::string& aggregate) const;
    /// Every run so far, as Google Benchmark's JSON reporter writes them.
    void write_json(const std::string& path) const;

private:
    bool raw_ = false;
    bool context_printed_ = false;
    std::vector<Run> runs_;
};

/// Seconds per iteration of a run.
double seconds_per_iteration(const benchmark::BenchmarkReporter::Run& run);

/// latest.csv, latest.md (also returned) and latest.dat in `dir`; `order` is the
/// implementations' column order of the plot data.
std::string write_reports(const std::vector<row>& rows, const std::vector<std::string>& order,
                          const std::vector<std::string>& kernel_names, const std::string& dir);

/// summary.md in `dir` (also returned): per kernel, gradc's batch code against the
/// hand-written xsimd code and against the fastest peer that ran.
std::string write_summary(const std::vector<row>& rows, const std::vector<std::string>& kernel_names,
                          const std::string& dir);

}  // namespace bench
