// Raw copies, conversions and fills (no autograd): the building blocks of the kernels.
#include <gradc/autograd/tensor_impl.hpp>
#include <gradc/autograd/view.hpp>

#include "internal.hpp"
#include "kernels/convert.hpp"
#include "kernels/loop.hpp"

namespace gradc {

namespace kernels {
Shape broadcast_strides(const Tensor& t, const Shape& out) { return broadcast_strides(t.sizes(), t.strides(), out); }

Shape broadcast_strides(const Shape& sizes, const Shape& strides, const Shape& out) {
    Shape s(out.size(), 0);
    const std::size_t lead = out.size() - sizes.size();
    for (std::size_t i = 0; i < sizes.size(); ++i) s[lead + i] = sizes[i] == 1 ? 0 : strides[i];
    return s;
}
}  // namespace kernels

namespace detail {

void copy_into(const Tensor& dst, const Tensor& src) {
    const Shape& out = dst.sizes();
    // src must broadcast *to* dst, not the other way round.
    if (src.sizes() != out && broadcast_shapes(src.sizes(), out, "copy_") != out)
        throw Error("gradc: copy_: source " + describe(src) + " cannot be broadcast to destination " + describe(dst));
    Shape src_strides = kernels::broadcast_strides(src, out);
    const Shape& dst_strides = dst.strides();
    dispatch(dst.dtype(), [&](auto dtag) {
        using D = typename decltype(dtag)::type;
        dispatch(src.dtype(), [&](auto stag) {
            using S = typename decltype(stag)::type;
            D* d = static_cast<D*>(dst.raw_data());
            const S* s = static_cast<const S*>(src.raw_data());
            kernels::for_each_run<2>(out, {&dst_strides, &src_strides}, {0, 0}, [&](const kernels::Run<2>& r) {
                D* dp = d + r.offset[0];
                const S* sp = s + r.offset[1];
                if (r.stride[0] == 1 && r.stride[1] == 1) {
                    for (std::int64_t i = 0; i < r.count; ++i) dp[i] = kernels::convert_value<D>(sp[i]);
                } else {
                    for (std::int64_t i = 0; i < r.count; ++i)
                        dp[i * r.stride[0]] = kernels::convert_value<D>(sp[i * r.stride[1]]);
                }
            });
        });
    });
}

Tensor copy_as(const Tensor& t, ScalarType dtype) {
    Tensor out = uninitialized_tensor(t.sizes(), dtype);
    copy_into(out, t);
    return out;
}

Tensor contiguous_as(const Tensor& t, ScalarType dtype) {
    if (t.dtype() == dtype && t.is_contiguous()) return t;
    return copy_as(t, dtype);
}

void fill_raw(const Tensor& dst, double value) {
    dispatch(dst.dtype(), [&](auto tag) {
        using D = typename decltype(tag)::type;
        const D v = kernels::convert_value<D>(value);
        D* d = static_cast<D*>(dst.raw_data());
        kernels::for_each_run<1>(dst.sizes(), {&dst.strides()}, {0}, [&](const kernels::Run<1>& r) {
            for (std::int64_t i = 0; i < r.count; ++i) d[r.offset[0] + i * r.stride[0]] = v;
        });
    });
}

void add_into(const Tensor& dst, const Tensor& src) {
    const Shape& out = dst.sizes();
    Shape src_strides = kernels::broadcast_strides(src, out);
    Tensor s_conv = src.dtype() == dst.dtype() ? src : copy_as(src, dst.dtype());
    if (!s_conv.is_same(src)) src_strides = kernels::broadcast_strides(s_conv, out);
    const Shape& dst_strides = dst.strides();
    dispatch(dst.dtype(), [&](auto tag) {
        using D = typename decltype(tag)::type;
        if constexpr (std::is_same_v<D, bool>) {
            throw Error("gradc: add_into: bool tensors cannot be added");
        } else {
            D* d = static_cast<D*>(dst.raw_data());
            const D* s = static_cast<const D*>(s_conv.raw_data());
            kernels::for_each_run<2>(out, {&dst_strides, &src_strides}, {0, 0}, [&](const kernels::Run<2>& r) {
                for (std::int64_t i = 0; i < r.count; ++i) d[r.offset[0] + i * r.stride[0]] += s[r.offset[1] + i * r.stride[1]];
            });
        }
    });
}

}  // namespace detail
}  // namespace gradc
