/// run_batch_calls for xsimd::avx512bw, compiled with its flags (tests/simd/meson.build).
#include "batch_calls.hpp"

#if XSIMD_WITH_AVX512BW
namespace gradc_dispatch_test {
template void run_batch_calls(xsimd::avx512bw, const inputs<double>&, outputs<double>&);
template void run_batch_calls(xsimd::avx512bw, const inputs<float>&, outputs<float>&);
}  // namespace gradc_dispatch_test
#else
#error "kernels_avx512.cpp must be compiled with avx512bw enabled"
#endif
