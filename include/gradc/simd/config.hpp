#pragma once
/// \file
/// The architecture types the batch calls accept; xsimd itself comes from
/// gradc/math/xsimd.hpp (with the diagnostics GCC 12 needs around it).

#include <gradc/math/xsimd.hpp>

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
