/// The nested peers not built in this configuration: nullptr, and the benchmark skips them.

#include "nested.hpp"

namespace bench::nested {
#ifndef GRADC_BENCH_SACADO
points_fn sacado() { return nullptr; }
#endif
#ifndef GRADC_BENCH_CERES
points_fn ceres() { return nullptr; }
#endif
#ifndef GRADC_BENCH_EIGEN
points_fn eigen() { return nullptr; }
#endif
}  // namespace bench::nested
