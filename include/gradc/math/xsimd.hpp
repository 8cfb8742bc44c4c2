#pragma once
/// \file
/// xsimd, included once for all of gradc's batch code.
///
/// GCC 12 with AVX-512 enabled reports -Wuninitialized / -Wmaybe-uninitialized inside
/// its own avx512fintrin.h (`_mm512_undefined_epi32` reads an intentionally undefined
/// register; GCC bug 105593). The warning is issued where xsimd's math is inlined, so it
/// is silenced for gradc's batch headers and, through GRADC_SIMD_DIAGNOSTICS_*, around
/// the code that instantiates batch math in tests and benchmarks. Nothing else is hidden.

#if defined(__GNUC__) && !defined(__clang__)
#define GRADC_SIMD_DIAGNOSTICS_PUSH                                   \
    _Pragma("GCC diagnostic push")                                    \
    _Pragma("GCC diagnostic ignored \"-Wuninitialized\"")             \
    _Pragma("GCC diagnostic ignored \"-Wmaybe-uninitialized\"")
#define GRADC_SIMD_DIAGNOSTICS_POP _Pragma("GCC diagnostic pop")
#else
#define GRADC_SIMD_DIAGNOSTICS_PUSH
#define GRADC_SIMD_DIAGNOSTICS_POP
#endif

#include <gradc/math/unoptimized_avx512bw.hpp>

GRADC_SIMD_DIAGNOSTICS_PUSH
#include <xsimd/xsimd.hpp>
GRADC_SIMD_DIAGNOSTICS_POP

namespace gradc::math {

/// The tag a batch function's kernels are chosen by, as in xsimd's own `arch/`: a kernel
/// overload takes `requires_arch<xsimd::generic>` (every architecture) or a named one
/// (`requires_arch<xsimd::avx512f>`), and a call passes the batch's architecture, so the
/// most specific overload wins and an architecture without one falls back to the weaker
/// one it derives from (avx512bw → avx512dq → ... → generic).
template <class A>
using requires_arch = xsimd::kernel::requires_arch<A>;

}  // namespace gradc::math
