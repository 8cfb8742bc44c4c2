#pragma once
/// \file
/// Lets batch code compile without optimisation (-O0) for AVX-512BW with GCC.
///
/// Without __OPTIMIZE__, GCC's avx512bwintrin.h defines `_mm512_mask_blend_epi8` and
/// `_mm512_mask_blend_epi16` as macros that cast their operands straight to `__v64qi` /
/// `__v32hi` (optimised builds get inline functions taking `__m512i`). xsimd 8.1's
/// AVX-512BW `select` passes `xsimd::batch` objects to them, for every integer width
/// inside a `switch` on sizeof, so the 64-bit lanes that its `log` (and so `pow`) uses
/// instantiate an invalid cast: a debug build of any batch call with log or pow failed
/// ("invalid cast from type 'const xsimd::batch<long int, xsimd::avx512bw>' to type
/// '__v64qi'"). The macros are redefined here with the conversion to `__m512i` the
/// inline functions perform, which `batch` provides. This must be seen before xsimd's
/// headers: gradc/math/xsimd.hpp includes it first, so a file that includes xsimd
/// itself before gradc's batch headers does not get the fix.

#if defined(__GNUC__) && !defined(__clang__) && !defined(__OPTIMIZE__) && defined(__AVX512BW__)
#include <immintrin.h>

#undef _mm512_mask_blend_epi8
#define _mm512_mask_blend_epi8(U, A, W)                                                        \
    ((__m512i)__builtin_ia32_blendmb_512_mask((__v64qi)(__m512i)(A), (__v64qi)(__m512i)(W), \
                                              (__mmask64)(U)))
#undef _mm512_mask_blend_epi16
#define _mm512_mask_blend_epi16(U, A, W)                                                       \
    ((__m512i)__builtin_ia32_blendmw_512_mask((__v32hi)(__m512i)(A), (__v32hi)(__m512i)(W), \
                                              (__mmask32)(U)))
#endif
