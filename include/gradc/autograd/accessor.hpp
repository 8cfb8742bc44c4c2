#pragma once
/// \file
/// `TensorAccessor<T, N>` (what `Tensor::accessor<T, N>()` returns, LibTorch's name):
/// `a[i][j]` reaches an element through the tensor's strides without a check per access.
/// It points into the tensor's storage: keep the tensor alive while using it.

#include <cstddef>
#include <cstdint>

namespace gradc {

namespace detail {
/// What every accessor holds: the first element and the sizes and strides from its
/// dimension on.
template <class T>
class AccessorBase {
public:
    AccessorBase(T* data, const std::int64_t* sizes, const std::int64_t* strides)
        : data_(data), sizes_(sizes), strides_(strides) {}
    std::int64_t size(std::size_t dim) const { return sizes_[dim]; }
    std::int64_t stride(std::size_t dim) const { return strides_[dim]; }
    T* data() const { return data_; }

protected:
    T* data_;
    const std::int64_t* sizes_;
    const std::int64_t* strides_;
};
}  // namespace detail

/// `t.accessor<T, N>()`: element access through the strides, `a[i][j]`; indexing with `[]` gives an accessor of one dimension fewer.
template <class T, std::size_t N>
class TensorAccessor : public detail::AccessorBase<T> {
public:
    using detail::AccessorBase<T>::AccessorBase;
    /// The accessor of the sub-tensor at `i` along the first dimension.
    TensorAccessor<T, N - 1> operator[](std::int64_t i) const {
        return TensorAccessor<T, N - 1>(this->data_ + i * this->strides_[0], this->sizes_ + 1, this->strides_ + 1);
    }
};

/// An accessor of one dimension: `a[i]` is the element.
template <class T>
class TensorAccessor<T, 1> : public detail::AccessorBase<T> {
public:
    using detail::AccessorBase<T>::AccessorBase;
    /// Element `i` (through its stride).
    T& operator[](std::int64_t i) const { return this->data_[i * this->strides_[0]]; }
};

}  // namespace gradc
