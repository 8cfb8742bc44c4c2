/// One call of one system on one kernel at N points, made through `measured_call` so that
/// bench/flops_executed.sh can single-step exactly that call in gdb and count the
/// floating-point instructions the compiled batch code executes (the flop side of the
/// roofline, docs/benchmarks.md). The inputs are drawn as gradc-bench draws them.
///
///     gradc-bench-one-call KERNEL IMPLEMENTATION N
///
/// Only the systems with batch code (gradc-batch, hand-simd, and the scalar variants).

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench.hpp"

extern "C" [[gnu::noinline]] void measured_call(const bench::runner& run, const bench::problem& p) { run(p); }

int main(int argc, char** argv) {
    using namespace bench;
    if (argc != 4) {
        std::fprintf(stderr, "usage: gradc-bench-one-call KERNEL IMPLEMENTATION N\n");
        return 2;
    }
    const std::string kernel = argv[1], implementation = argv[2];
    const std::size_t n = std::strtoul(argv[3], nullptr, 10);
    const kernel_info* k = find_kernel(kernel);
    if (k == nullptr) {
        std::fprintf(stderr, "gradc-bench-one-call: no kernel %s\n", kernel.c_str());
        return 2;
    }
    const registry reg = native_registry();
    const auto in = draw_columns(*k, n);
    std::vector<std::vector<double>> out(1 + k->gradient_size, std::vector<double>(k->reduction ? 1 : n));
    problem p;
    p.n = n;
    for (const auto& v : in) p.in.push_back(v.data());
    for (auto& v : out) p.out.push_back(v.data());
    measured_call(reg.at(implementation).at(kernel), p);
    std::printf("%g\n", out[0][0]);
    return 0;
}
