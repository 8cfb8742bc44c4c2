/// run_batch_calls for xsimd::sse2, compiled with its flags (tests/simd/meson.build).
#include "batch_calls.hpp"

#if XSIMD_WITH_SSE2
namespace gradc_dispatch_test {
template void run_batch_calls(xsimd::sse2, const inputs<double>&, outputs<double>&);
template void run_batch_calls(xsimd::sse2, const inputs<float>&, outputs<float>&);
}  // namespace gradc_dispatch_test
#else
#error "kernels_sse2.cpp must be compiled with sse2 enabled"
#endif
