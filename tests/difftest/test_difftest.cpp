// The differential tester's fixed sample in the test suite: the expressions generated
// from seed 1 at build time (tests/difftest/meson.build), every mode against every other
// and against long double. scripts/difftest runs any number.

#include <catch2/catch.hpp>

#include "harness.hpp"

namespace gradc::difftest {
void run_all(runner& r);
}

TEST_CASE("static scalar, static batch, dynamic and long double agree on random expressions", "[difftest]") {
    gradc::difftest::runner r;
    gradc::difftest::run_all(r);
    for (const auto& report : r.reports()) FAIL_CHECK(report);
    CHECK(r.expressions() > 0);
#if XSIMD_WITH_AVX512F
    CHECK(r.narrow_expressions() > 0);  // AVX2 and SSE2 batches ran beside AVX-512
#endif
    CHECK(r.mismatches() == 0);
}
