/// Empty registrations for the peers Meson did not find, so the benchmark runs with
/// whatever is installed.

#include "bench.hpp"

namespace bench {
#ifndef GRADC_BENCH_ADOLC
void register_adolc(registry&) {}
#endif
#ifndef GRADC_BENCH_SACADO
void register_sacado(registry&) {}
#endif
#ifndef GRADC_BENCH_CERES
void register_ceres(registry&) {}
#endif
#ifndef GRADC_BENCH_EIGEN
void register_eigen(registry&) {}
#endif
#ifndef GRADC_BENCH_LIBTORCH
void register_libtorch(registry&) {}
#endif
}  // namespace bench
