#pragma once
// The SIMD batch types of the dynamic mode's kernels. xsimd 8.1's AVX-512BW kernels do not
// compile for some math functions (log on 64-bit integer lanes), so on AVX-512 machines
// the kernels stop at AVX-512DQ, which still has the double↔int64 conversions that
// exp/log/sin need (AVX2 emulates them one lane at a time: 5-7x slower for double).

// The batches come from the math layer (gradc/math/), which the rules take their values
// from: a tensor long enough to fill a batch gets the same values as the static mode's
// batch calls, bit for bit (docs/architecture.md, "The pipeline").
//
// GCC 12 reports -W(maybe-)uninitialized inside its own avx512fintrin.h wherever xsimd's
// AVX-512 math is inlined (GCC bug 105593, see gradc/math/xsimd.hpp). The source files
// that include this header are kernel files, so the two warnings are off for them.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include <type_traits>

#include <gradc/math.hpp>

namespace gradc::kernels {

#if XSIMD_WITH_AVX512DQ
using simd_arch = xsimd::avx512dq;
#elif XSIMD_WITH_AVX2 && XSIMD_WITH_FMA3_AVX2
using simd_arch = xsimd::fma3<xsimd::avx2>;
#elif XSIMD_WITH_AVX2
using simd_arch = xsimd::avx2;
#else
using simd_arch = xsimd::default_arch;
#endif

template <class T>
using batch = xsimd::batch<T, simd_arch>;

template <class T>
inline constexpr bool has_batch = std::is_same_v<T, float> || std::is_same_v<T, double>;

}  // namespace gradc::kernels
