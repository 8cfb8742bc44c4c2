#pragma once
/// \file
/// xsimd, included once for all of gradc's batch code, and the architecture types the
/// batch calls accept.
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

#include <gradc/simd/unoptimized_avx512bw.hpp>

GRADC_SIMD_DIAGNOSTICS_PUSH
#include <xsimd/xsimd.hpp>
GRADC_SIMD_DIAGNOSTICS_POP

#include <type_traits>

namespace gradc::simd {

/// The architecture the batch calls use unless told otherwise: the widest one the
/// compiler targets (-march=native by default; SSE2 in a portable build, where
/// `dispatch.hpp` picks a wider one at run time).
using default_arch = xsimd::default_arch;

/// `batch<T, A>`: one SIMD register of T, one point per lane.
template <class T, class A = default_arch>
using batch = xsimd::batch<T, A>;

/// The value types batches are made of.
template <class T>
concept lane_type = std::is_same_v<T, double> || std::is_same_v<T, float>;

/// An xsimd architecture tag the compiler can generate code for (xsimd::avx2, ...).
template <class A>
concept architecture = requires { A::supported(); A::available(); } && A::supported();

}  // namespace gradc::simd
