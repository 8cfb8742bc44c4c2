#pragma once
// The reduction kernel's driver: the reduced dimensions moved last (one contiguous copy),
// then each run of them reduced to one value, rows split over threads when there are many.

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include <gradc/autograd/dtype.hpp>
#include <gradc/autograd/tensor.hpp>
#include <gradc/autograd/tensor_impl.hpp>

#include "internal.hpp"
#include "kernels/convert.hpp"
#include "kernels/parallel.hpp"
#include "kernels/sum.hpp"

namespace gradc::reduction_kernel {

// What a reduction reads: the input with the reduced dimensions last, as `outer` rows of
// `inner` elements, and the result's shapes.
struct Plan {
    std::vector<bool> reduced;  // per input dimension
    Shape out_sizes;            // result shape (keepdim applied)
    Shape keep_sizes;           // result shape with reduced dims kept as 1
    std::int64_t outer = 1, inner = 1;
    Tensor data;                // reduced dims last, contiguous
};

// The plan of reducing `dims` of `a` (all when empty), computed in `dt`.
inline Plan plan(const Tensor& a, const Shape& dims, bool keepdim, const char* op, ScalarType dt) {
    detail::check_defined(a, op);
    Plan p;
    const std::int64_t n = a.dim();
    p.reduced = detail::reduced_dimensions(a, dims, op);
    Shape perm;
    for (std::int64_t i = 0; i < n; ++i)
        if (!p.reduced[i]) {
            perm.push_back(i);
            p.outer *= a.sizes()[i];
        }
    for (std::int64_t i = 0; i < n; ++i)
        if (p.reduced[i]) {
            perm.push_back(i);
            p.inner *= a.sizes()[i];
        }
    for (std::int64_t i = 0; i < n; ++i) {
        p.keep_sizes.push_back(p.reduced[i] ? 1 : a.sizes()[i]);
        if (!p.reduced[i] || keepdim) p.out_sizes.push_back(p.keep_sizes.back());
    }
    Shape permuted_sizes, permuted_strides;
    for (auto i : perm) {
        permuted_sizes.push_back(a.sizes()[i]);
        permuted_strides.push_back(a.strides()[i]);
    }
    p.data = detail::contiguous_as(alias_with_geometry(a, permuted_sizes, permuted_strides, a.storage_offset()), dt);
    return p;
}

// Calls rows(src, dst, begin, end, inner) to reduce rows [begin, end) of plan.data (runs of
// length plan.inner) into out[begin, end); many rows are split over threads, whole rows
// per chunk.
template <class Rows>
Tensor reduce_rows(const Plan& p, ScalarType out_type, const char* op, Rows rows) {
    Tensor out = uninitialized_tensor(p.out_sizes, out_type);
    dispatch_floating(p.data.dtype(), op, [&](auto tag) {
        using T = typename decltype(tag)::type;
        const T* src = static_cast<const T*>(p.data.raw_data());
        dispatch(out_type, [&](auto otag) {
            using O = typename decltype(otag)::type;
            O* dst = static_cast<O*>(out.raw_data());
            const std::int64_t per_chunk = std::max<std::int64_t>(1, kernels::elementwise_grain / std::max<std::int64_t>(p.inner, 1));
            const std::int64_t chunks = (p.outer + per_chunk - 1) / per_chunk;
            const int threads = get_num_threads();
            if (chunks < 2 || threads < 2) {
                rows(src, dst, std::int64_t{0}, p.outer, p.inner);
            } else {
                parallel::for_each_chunk(static_cast<std::size_t>(chunks), threads, [&](std::size_t c) {
                    const std::int64_t begin = static_cast<std::int64_t>(c) * per_chunk;
                    rows(src, dst, begin, std::min(p.outer, begin + per_chunk), p.inner);
                });
            }
        });
    });
    return out;
}

// out[i] = f(run i), with runs of length plan.inner.
template <class F>
Tensor reduce_raw(const Plan& p, ScalarType out_type, const char* op, F f) {
    return reduce_rows(p, out_type, op, [&](const auto* src, auto* dst, std::int64_t begin, std::int64_t end, std::int64_t inner) {
        using O = std::decay_t<decltype(*dst)>;
        for (std::int64_t i = begin; i < end; ++i) dst[i] = kernels::convert_value<O>(f(src + i * inner, inner));
    });
}

// out[i] = Σ run i · scale, the rows summed by kernels::sum_rows (short rows side by side).
inline Tensor reduce_sum(const Plan& p, ScalarType out_type, const char* op, double scale) {
    return reduce_rows(p, out_type, op, [scale](const auto* src, auto* dst, std::int64_t begin, std::int64_t end, std::int64_t inner) {
        using T = std::decay_t<decltype(*src)>;
        using O = std::decay_t<decltype(*dst)>;
        const auto s = static_cast<kernels::real_of_t<T>>(scale);
        kernels::sum_rows(src + begin * inner, end - begin, inner, [&](std::int64_t r, const T& sum) {
            dst[begin + r] = kernels::convert_value<O>(scale == 1 ? sum : sum / s);
        });
    });
}

}  // namespace gradc::reduction_kernel
