#pragma once
// Strided iteration over N operands that share one shape. The innermost dimension is
// handed to the caller as a run (count, offsets, inner strides) so that kernels can use
// a contiguous SIMD loop when the inner strides allow it.

#include <array>
#include <cstdint>
#include <vector>

#include <gradc/autograd/tensor.hpp>

namespace gradc::kernels {

template <std::size_t N>
struct Run {
    std::int64_t count;
    std::array<std::int64_t, N> offset;  // element offsets of the run's first element
    std::array<std::int64_t, N> stride;  // element strides along the run
};

/// Calls `inner(Run<N>)` for each innermost row of `sizes`, operand k being laid out by
/// `strides[k]` from `base[k]`. The loop is row-major, so writes to a contiguous output
/// happen in order.
template <std::size_t N, class Inner>
void for_each_run(const Shape& sizes, const std::array<const Shape*, N>& strides,
                  const std::array<std::int64_t, N>& base, Inner&& inner) {
    const std::int64_t nd = static_cast<std::int64_t>(sizes.size());
    for (std::int64_t d = 0; d < nd; ++d)
        if (sizes[d] == 0) return;
    if (nd == 0) {
        inner(Run<N>{1, base, {}});
        return;
    }
    const std::int64_t last = nd - 1;
    std::array<std::int64_t, N> inner_stride{};
    for (std::size_t k = 0; k < N; ++k) inner_stride[k] = (*strides[k])[last];
    // The odometer lives on the stack for the usual ranks.
    std::array<std::int64_t, 8> small{};
    std::vector<std::int64_t> large(nd > 8 ? nd : 0, 0);
    std::int64_t* index = nd > 8 ? large.data() : small.data();
    std::array<std::int64_t, N> off = base;
    for (;;) {
        inner(Run<N>{sizes[last], off, inner_stride});
        std::int64_t d = last - 1;
        for (; d >= 0; --d) {
            if (++index[d] < sizes[d]) {
                for (std::size_t k = 0; k < N; ++k) off[k] += (*strides[k])[d];
                break;
            }
            for (std::size_t k = 0; k < N; ++k) off[k] -= (*strides[k])[d] * (sizes[d] - 1);
            index[d] = 0;
        }
        if (d < 0) return;
    }
}

/// Strides of `t` seen with the broadcast shape `out` (0 along broadcast dimensions).
Shape broadcast_strides(const Tensor& t, const Shape& out);
/// The same for a layout given as sizes and strides.
Shape broadcast_strides(const Shape& sizes, const Shape& strides, const Shape& out);

}  // namespace gradc::kernels
