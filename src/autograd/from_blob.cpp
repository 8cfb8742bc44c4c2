// from_blob: a tensor over memory the caller owns, without a copy (LibTorch's
// torch::from_blob).
#include <gradc/autograd/creation.hpp>
#include <gradc/autograd/tensor_impl.hpp>

#include "internal.hpp"

namespace gradc {

namespace {

// The bytes from the lowest to one past the highest element the geometry reaches.
std::size_t extent_bytes(const Shape& sizes, const Shape& strides, ScalarType dtype) {
    std::int64_t last = 0;
    for (std::size_t d = 0; d < sizes.size(); ++d) {
        if (sizes[d] == 0) return 0;
        if (strides[d] < 0)
            throw Error("gradc: from_blob: negative strides are not supported, got " + shape_string(strides));
        last += (sizes[d] - 1) * strides[d];
    }
    return static_cast<std::size_t>(last + 1) * element_size(dtype);
}

}  // namespace

Tensor from_blob(void* data, const Shape& sizes, const Shape& strides, std::function<void(void*)> deleter, TensorOptions options) {
    if (!data && shape_numel(sizes) != 0) throw Error("gradc: from_blob: data is a null pointer for shape " + shape_string(sizes));
    if (strides.size() != sizes.size())
        throw Error("gradc: from_blob: " + std::to_string(sizes.size()) + " sizes but " + std::to_string(strides.size()) +
                    " strides");
    for (std::int64_t s : sizes)
        if (s < 0) throw Error("gradc: from_blob: negative size in " + shape_string(sizes));
    const ScalarType dtype = options.dtype();
    auto storage = std::make_shared<Storage>(static_cast<std::byte*>(data), extent_bytes(sizes, strides, dtype), std::move(deleter));
    Tensor t(std::make_shared<TensorImpl>(std::move(storage), std::make_shared<VersionCounter>(), dtype, sizes, strides, 0));
    if (options.requires_grad()) t.set_requires_grad(true);
    return t;
}

Tensor from_blob(void* data, const Shape& sizes, const Shape& strides, TensorOptions options) {
    return from_blob(data, sizes, strides, nullptr, options);
}

Tensor from_blob(void* data, const Shape& sizes, std::function<void(void*)> deleter, TensorOptions options) {
    return from_blob(data, sizes, contiguous_strides(sizes), std::move(deleter), options);
}

Tensor from_blob(void* data, const Shape& sizes, TensorOptions options) {
    return from_blob(data, sizes, contiguous_strides(sizes), nullptr, options);
}

}  // namespace gradc
