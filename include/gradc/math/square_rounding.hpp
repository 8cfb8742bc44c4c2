#pragma once
/// \file
/// The rounding error of a square, a·a - hi for hi = a·a rounded: what e^(±a²) needs
/// to be accurate where a² is large (erfc's tail, the float batch e^(-a²), erfinv's
/// derivative e^(y²)), since e^(x + ε) = e^x·(1 + ε) and the rounding of a² is up to
/// 2⁻⁵³·a² there.

#include <bit>
#include <cstdint>
#include <type_traits>

#include <gradc/math/value_traits.hpp>
#include <gradc/math/xsimd.hpp>

namespace gradc::math::detail {

/// a·a - hi, exactly, for hi = a·a rounded and a double or float (number or batch) a:
/// a's high half ah (its top 26 or 12 significant bits, by a mask) squares exactly,
/// ah² - hi is exact (the two are within a factor of 2), and the rest, al·(a + ah) with
/// al = a - ah, is rounded once but small. A compiler that contracts a product and a sum
/// into an fma keeps it exact (ah² is exact either way), where Veltkamp's split would
/// not be. xsimd 8.1's batch fma is a multiply and an add, not fused, on AVX-512 too, and
/// Dekker's product of Veltkamp's halves costs twice as many instructions.
template <class B>
GRADC_ALWAYS_INLINE inline B square_rounding(const B& a, const B& hi) {
    constexpr bool is_double = sizeof(scalar_t<B>) == 8;
    using word = std::conditional_t<is_double, std::uint64_t, std::uint32_t>;
    constexpr word mask = is_double ? word(0xFFFFFFFFF8000000ull) : word(0xFFFFF000u);
    B ah;
    if constexpr (simd_batch<B>) {
        using bits = xsimd::batch<word, typename B::arch_type>;
        ah = a & xsimd::bitwise_cast<B>(bits(mask));
    } else {
        ah = std::bit_cast<B>(word(std::bit_cast<word>(a) & mask));
    }
    const B al = a - ah;
    return (ah * ah - hi) + al * (a + ah);
}

}  // namespace gradc::math::detail
