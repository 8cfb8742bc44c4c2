/// The benchmark's reports (report.hpp).

#include "report.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

namespace bench {

keeping_reporter::keeping_reporter(bool raw) : benchmark::ConsoleReporter(OO_Tabular), raw_(raw) {
    SetOutputStream(&std::cerr);
    SetErrorStream(&std::cerr);
}

bool keeping_reporter::ReportContext(const Context& context) {
    if (context_printed_) return true;
    context_printed_ = true;
    return benchmark::ConsoleReporter::ReportContext(context);
}

void keeping_reporter::ReportRuns(const std::vector<Run>& runs) {
    if (raw_) benchmark::ConsoleReporter::ReportRuns(runs);
    for (Run r : runs) {
        r.statistics = nullptr;  // points into the benchmark, which is cleared after its kernel
        runs_.push_back(r);
    }
}

std::optional<keeping_reporter::Run> keeping_reporter::find(const std::string& name,
                                                            const std::string& aggregate) const {
    for (const auto& r : runs_)
        if (r.run_name.function_name == name && r.aggregate_name == aggregate) return r;
    return std::nullopt;
}

void keeping_reporter::write_json(const std::string& path) const {
    std::ofstream file(path);
    benchmark::JSONReporter json;
    json.SetOutputStream(&file);
    json.SetErrorStream(&std::cerr);
    json.ReportContext(Context());
    json.ReportRuns(runs_);
    json.Finalize();
}

double seconds_per_iteration(const benchmark::BenchmarkReporter::Run& run) {
    double per_second = 1;
    switch (run.time_unit) {
        case benchmark::kNanosecond: per_second = 1e9; break;
        case benchmark::kMicrosecond: per_second = 1e6; break;
        case benchmark::kMillisecond: per_second = 1e3; break;
        case benchmark::kSecond: per_second = 1; break;
    }
    return run.GetAdjustedRealTime() / per_second;
}

std::string write_reports(const std::vector<row>& rows, const std::vector<std::string>& order,
                          const std::vector<std::string>& kernel_names, const std::string& dir) {
    std::ofstream csv(dir + "/latest.csv");
    csv << "kernel,implementation,n_points,ns_per_point,max_rel_error,ns_per_point_median,passes\n";
    for (const auto& r : rows) {
        char line[320];
        std::snprintf(line, sizeof line, "%s,%s,%zu,%.4g,%.3g,%.4g,%d\n", r.kernel.c_str(), r.implementation.c_str(),
                      r.n, r.best_ns, r.max_rel_error, r.median_ns, r.passes);
        csv << line;
    }

    std::ostringstream md;
    md << "| kernel | implementation | N | ns/point (best) | ns/point (median) | best vs hand-simd | median vs hand-simd "
          "| max rel. error |\n"
       << "|---|---|---:|---:|---:|---:|---:|---:|\n";
    for (const auto& r : rows) {
        const auto hand = std::find_if(rows.begin(), rows.end(), [&](const row& h) {
            return h.kernel == r.kernel && h.implementation == "hand-simd";
        });
        char best[32] = "—", median[32] = "—";
        if (hand != rows.end()) {
            std::snprintf(best, sizeof best, "%.2f×", r.best_ns / hand->best_ns);
            std::snprintf(median, sizeof median, "%.2f×", r.median_ns / hand->median_ns);
        }
        char line[512];
        std::snprintf(line, sizeof line, "| %s | %s | %zu | %.3g | %.3g | %s | %s | %.1e |\n", r.kernel.c_str(),
                      r.implementation.c_str(), r.n, r.best_ns, r.median_ns, best, median, r.max_rel_error);
        md << line;
    }
    std::ofstream(dir + "/latest.md") << md.str();

    // Plot data: one row per kernel, one column per implementation ("-": not run).
    std::ofstream dat(dir + "/latest.dat");
    dat << "kernel";
    for (const auto& name : order) dat << ' ' << name;
    dat << '\n';
    for (const auto& k : kernel_names) {
        dat << k;
        for (const auto& name : order) {
            const auto it = std::find_if(rows.begin(), rows.end(),
                                         [&](const row& r) { return r.kernel == k && r.implementation == name; });
            if (it == rows.end()) {
                dat << " -";
            } else {
                dat << ' ' << it->best_ns;
            }
        }
        dat << '\n';
    }
    return md.str();
}

std::string write_summary(const std::vector<row>& rows, const std::vector<std::string>& kernel_names,
                          const std::string& dir) {
    const auto find = [&](const std::string& kernel, const std::string& implementation) -> const row* {
        for (const auto& r : rows)
            if (r.kernel == kernel && r.implementation == implementation) return &r;
        return nullptr;
    };
    std::ostringstream md;
    md << "| kernel | N | gradc (ns/point) | hand-written xsimd | gradc ÷ hand-written | fastest peer | peer ÷ gradc |\n"
       << "|---|---:|---:|---:|---:|---|---:|\n";
    for (const auto& k : kernel_names) {
        const row* gradc = find(k, "gradc-batch");
        if (gradc == nullptr) continue;
        const row* hand = find(k, "hand-simd");
        const row* peer = nullptr;
        for (const auto& r : rows) {
            const bool is_peer = r.kernel == k && !r.implementation.starts_with("gradc") &&
                                 !r.implementation.starts_with("hand");
            if (is_peer && (peer == nullptr || r.best_ns < peer->best_ns)) peer = &r;
        }
        const auto number = [](const char* format, double x) {
            char text[32];
            std::snprintf(text, sizeof text, format, x);
            return std::string(text);
        };
        const std::string line = "| " + k + " | " + std::to_string(gradc->n) + " | " + number("%.3g", gradc->best_ns) +
                                 " | " + (hand ? number("%.3g", hand->best_ns) : "—") + " | " +
                                 (hand ? number("%.2f×", gradc->best_ns / hand->best_ns) : "—") + " | " +
                                 (peer ? peer->implementation + ", " + number("%.3g", peer->best_ns) : "—") + " | " +
                                 (peer ? number("%.1f×", peer->best_ns / gradc->best_ns) : "—") + " |\n";
        md << line;
    }
    std::ofstream(dir + "/summary.md") << md.str();
    return md.str();
}

}  // namespace bench
