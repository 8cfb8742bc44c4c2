// scripts/difftest's program: runs the generated expressions (parts.cpp) and prints
// every mismatch with its reproduction, then "difftest: N expressions, M mismatches".
// Exit status 1 when M > 0.

#include <cstdio>

#include "harness.hpp"

namespace gradc::difftest {
void run_all(runner& r);
}

int main() {
    gradc::difftest::runner r;
    gradc::difftest::run_all(r);
    for (const auto& report : r.reports()) std::fputs(report.c_str(), stdout);
    std::printf("difftest: %zu points compared, %zu skipped as ill-conditioned\n", r.points_compared(),
                r.points_ill_conditioned());
    std::printf("difftest: Hessians of %zu expressions at %zu points (%zu entries against second differences); "
                "float kernels of %zu expressions at %zu points; narrower SIMD architectures for %zu expressions\n",
                r.hessian_expressions(), r.hessian_points_compared(), r.hessian_entries_against_differences(),
                r.float_expressions(), r.float_points_compared(), r.narrow_expressions());
    std::printf("difftest: %zu expressions, %zu mismatches\n", r.expressions(), r.mismatches());
    return r.mismatches() == 0 ? 0 : 1;
}
