#pragma once
// Moving blocks of a fused operation's points between tensors and the contiguous arrays
// the kernel's batch programs read and write. A fused operation visits the points of its
// broadcast shape in row-major order; block [begin, begin + count) of that order is
// gathered from each operand (converted to the lane type, broadcast dimensions repeated)
// unless the operand already holds it contiguously, and gradients of broadcast operands
// are summed back into their tensors in the same order (so the sums do not depend on how
// the points are split over threads).

#include <cstdint>

#include <gradc/autograd/tensor.hpp>

namespace gradc::autograd::fusion {

/// One operand as the fused operation sees it: its data, dtype and element strides along
/// the broadcast shape (0 along broadcast dimensions).
struct strided_operand {
    const void* data = nullptr;
    ScalarType dtype = kFloat64;
    Shape strides;
    bool contiguous = false;  // strides are those of a contiguous tensor of the broadcast shape
    bool constant = false;    // every stride is 0: one value for every point

    /// `t` seen with the broadcast shape `sizes` (t's shape broadcasts to it).
    static strided_operand of(const Tensor& t, const Shape& sizes);
};

/// The operand's values at points [begin, begin + count) as a contiguous array of T: a
/// pointer into the operand itself when it holds them so, else `buffer` filled.
template <class T>
const T* gather(const strided_operand& op, const Shape& sizes, std::int64_t begin, std::int64_t count, T* buffer);

/// dst[point] += src[point - begin] for points [begin, begin + count), dst laid out by
/// `strides` along the broadcast shape (0 along the dimensions it is summed over), in
/// point order; a run of points that add to one element is summed first (with SIMD), so
/// the result depends on `begin` and `count`: callers cut the points the same way
/// whatever the number of threads.
template <class T>
void scatter_add(T* dst, const Shape& strides, const Shape& sizes, std::int64_t begin, std::int64_t count, const T* src);

/// Element strides of a contiguous tensor of shape `own` seen along the broadcast shape
/// `sizes` (0 along the dimensions `own` is broadcast in).
Shape summed_strides(const Shape& own, const Shape& sizes);

}  // namespace gradc::autograd::fusion
