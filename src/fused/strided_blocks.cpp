// Gathering and summing blocks of points along a broadcast shape (strided_blocks.hpp).
#include "strided_blocks.hpp"

#include "../autograd/kernels/loop.hpp"
#include "../autograd/kernels/sum.hpp"

#include <algorithm>

#include <gradc/autograd/tensor_impl.hpp>

namespace gradc::autograd::fusion {

namespace {

/// Calls f(offset, stride, length, done) for each piece of an innermost row inside points
/// [begin, begin + count) of the row-major walk over `sizes`, for an operand laid out by
/// `strides`; `done` counts the points before the piece.
template <class F>
void for_each_piece(const Shape& sizes, const Shape& strides, std::int64_t begin, std::int64_t count, F&& f) {
    const std::size_t nd = sizes.size();
    if (count <= 0) return;
    if (nd == 0) {
        f(std::int64_t{0}, std::int64_t{0}, std::int64_t{1}, std::int64_t{0});
        return;
    }
    // The multi-index of `begin` and its offset.
    Shape index(nd);
    std::int64_t rest = begin, offset = 0;
    for (std::size_t d = nd; d-- > 0;) {
        index[d] = rest % sizes[d];
        rest /= sizes[d];
        offset += index[d] * strides[d];
    }
    const std::size_t last = nd - 1;
    std::int64_t done = 0;
    while (done < count) {
        const std::int64_t length = std::min(sizes[last] - index[last], count - done);
        f(offset, strides[last], length, done);
        done += length;
        offset += length * strides[last];
        index[last] += length;
        // Carry into the outer dimensions.
        for (std::size_t d = last; d > 0 && index[d] == sizes[d]; --d) {
            offset -= sizes[d] * strides[d];
            index[d] = 0;
            ++index[d - 1];
            offset += strides[d - 1];
        }
    }
}

template <class T, class S>
void copy_piece(const S* src, std::int64_t stride, std::int64_t length, T* dst) {
    if (stride == 1) {
        for (std::int64_t i = 0; i < length; ++i) dst[i] = static_cast<T>(src[i]);
    } else if (stride == 0) {
        std::fill(dst, dst + length, static_cast<T>(src[0]));
    } else {
        for (std::int64_t i = 0; i < length; ++i) dst[i] = static_cast<T>(src[i * stride]);
    }
}

template <class T, class S>
void gather_from(const S* src, const strided_operand& op, const Shape& sizes, std::int64_t begin, std::int64_t count,
                 T* buffer) {
    if (op.constant) {
        std::fill(buffer, buffer + count, static_cast<T>(src[0]));
        return;
    }
    for_each_piece(sizes, op.strides, begin, count, [&](std::int64_t off, std::int64_t stride, std::int64_t length, std::int64_t done) {
        copy_piece(src + off, stride, length, buffer + done);
    });
}

}  // namespace

strided_operand strided_operand::of(const Tensor& t, const Shape& sizes) {
    strided_operand op;
    op.data = t.raw_data();
    op.dtype = t.dtype();
    op.strides = kernels::broadcast_strides(t, sizes);
    const Shape want = contiguous_strides(sizes);
    op.constant = op.contiguous = true;
    for (std::size_t d = 0; d < sizes.size(); ++d) {
        if (sizes[d] == 1) continue;  // a dimension of size 1 has any stride
        op.constant = op.constant && op.strides[d] == 0;
        op.contiguous = op.contiguous && op.strides[d] == want[d];
    }
    return op;
}

template <class T>
const T* gather(const strided_operand& op, const Shape& sizes, std::int64_t begin, std::int64_t count, T* buffer) {
    if (op.dtype == dtype_of_v<T> && op.contiguous) return static_cast<const T*>(op.data) + begin;
    if (op.dtype == kFloat64) {
        gather_from(static_cast<const double*>(op.data), op, sizes, begin, count, buffer);
    } else {
        gather_from(static_cast<const float*>(op.data), op, sizes, begin, count, buffer);
    }
    return buffer;
}

template <class T>
void scatter_add(T* dst, const Shape& strides, const Shape& sizes, std::int64_t begin, std::int64_t count, const T* src) {
    for_each_piece(sizes, strides, begin, count, [&](std::int64_t off, std::int64_t stride, std::int64_t length, std::int64_t done) {
        const T* s = src + done;
        if (stride == 0) {
            // A run of points that all add to one element: a SIMD sum (its grouping
            // depends only on where the run starts and ends, which the caller fixes).
            dst[off] += kernels::sum_run_serial(s, length);
        } else {
            for (std::int64_t i = 0; i < length; ++i) dst[off + i * stride] += s[i];
        }
    });
}

Shape summed_strides(const Shape& own, const Shape& sizes) {
    return kernels::broadcast_strides(own, contiguous_strides(own), sizes);
}

template const double* gather(const strided_operand&, const Shape&, std::int64_t, std::int64_t, double*);
template const float* gather(const strided_operand&, const Shape&, std::int64_t, std::int64_t, float*);
template void scatter_add(double*, const Shape&, const Shape&, std::int64_t, std::int64_t, const double*);
template void scatter_add(float*, const Shape&, const Shape&, std::int64_t, std::int64_t, const float*);

}  // namespace gradc::autograd::fusion
