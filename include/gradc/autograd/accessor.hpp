#pragma once
/// `TensorAccessor<T, N>` (what `Tensor::accessor<T, N>()` returns, LibTorch's name):
/// `a[i][j]` reaches an element through the tensor's strides without a check per access.
/// It points into the tensor's storage: keep the tensor alive while using it.

#include <cstddef>
#include <cstdint>

namespace gradc {

template <class T, std::size_t N>
class TensorAccessor {
public:
    TensorAccessor(T* data, const std::int64_t* sizes, const std::int64_t* strides)
        : data_(data), sizes_(sizes), strides_(strides) {}
    /// The accessor of the sub-tensor at `i` along the first dimension (an element for N = 1).
    TensorAccessor<T, N - 1> operator[](std::int64_t i) const {
        return TensorAccessor<T, N - 1>(data_ + i * strides_[0], sizes_ + 1, strides_ + 1);
    }
    std::int64_t size(std::size_t dim) const { return sizes_[dim]; }
    std::int64_t stride(std::size_t dim) const { return strides_[dim]; }
    T* data() const { return data_; }

private:
    T* data_;
    const std::int64_t* sizes_;
    const std::int64_t* strides_;
};

template <class T>
class TensorAccessor<T, 1> {
public:
    TensorAccessor(T* data, const std::int64_t* sizes, const std::int64_t* strides)
        : data_(data), sizes_(sizes), strides_(strides) {}
    T& operator[](std::int64_t i) const { return data_[i * strides_[0]]; }
    std::int64_t size(std::size_t dim) const { return sizes_[dim]; }
    std::int64_t stride(std::size_t dim) const { return strides_[dim]; }
    T* data() const { return data_; }

private:
    T* data_;
    const std::int64_t* sizes_;
    const std::int64_t* strides_;
};

}  // namespace gradc
