#pragma once
// Elementwise kernels generated from the rule table: `map1<Rule>` and `map2<Rule>`
// instantiate `Rule::eval` on the element type and, for float and double, on xsimd
// batches over contiguous runs (broadcast operands are splatted into a batch).

#include <cstdint>

#include <gradc/autograd/tensor_impl.hpp>
#include <gradc/autograd/view.hpp>
#include <gradc/rules.hpp>

#include "../internal.hpp"
#include "convert.hpp"
#include "loop.hpp"
#include "parallel.hpp"
#include "repeated_row.hpp"
#include "simd.hpp"

namespace gradc::kernels {

/// Rules whose evaluation is defined for std::complex (holomorphic functions and the
/// field operations, declared by the rule's `complex_form`); the others throw for complex
/// tensors.
template <class Rule>
inline constexpr bool complex_ok = rules::has_complex_form<Rule>;

template <class Rule, class T>
void unary_run(const T* a, T* y, std::int64_t n, std::int64_t sa) {
    std::int64_t i = 0;
    if constexpr (has_batch<T>) {
        using B = batch<T>;
        constexpr std::int64_t W = B::size;
        if (sa == 1)
            for (; i + W <= n; i += W) Rule::eval(B::load_unaligned(a + i)).store_unaligned(y + i);
    }
    for (; i < n; ++i) y[i] = Rule::eval(a[i * sa]);
}

template <class Rule>
Tensor map1(const Tensor& a_in, const char* op) {
    const ScalarType dt = float_type(a_in.dtype());
    Tensor a = a_in.dtype() == dt ? a_in : detail::copy_as(a_in, dt);
    Tensor y = uninitialized_tensor(a.sizes(), dt);
    dispatch_floating(dt, op, [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (is_complex_v<T> && !complex_ok<Rule>) {
            throw Error(std::string("gradc: ") + op + " does not support complex tensors, got " + detail::describe(a));
        } else {
            const T* pa = static_cast<const T*>(a.raw_data());
            T* py = static_cast<T*>(y.raw_data());
            if (a.is_contiguous()) {  // one run, split over threads when large
                parallel_ranges(a.numel(), [&](std::int64_t b, std::int64_t e) { unary_run<Rule>(pa + b, py + b, e - b, 1); });
                return;
            }
            const Shape& ys = y.strides();
            for_each_run<2>(a.sizes(), {&ys, &a.strides()}, {0, 0}, [&](const Run<2>& r) {
                unary_run<Rule>(pa + r.offset[1], py + r.offset[0], r.count, r.stride[1]);
            });
        }
    });
    return y;
}

template <class Rule, class T>
void binary_run(const T* a, const T* b, T* y, std::int64_t n, std::int64_t sa, std::int64_t sb) {
    std::int64_t i = 0;
    if constexpr (has_batch<T>) {
        using B = batch<T>;
        constexpr std::int64_t W = B::size;
        if ((sa == 0 || sa == 1) && (sb == 0 || sb == 1)) {
            const B ka(a[0]), kb(b[0]);
            for (; i + W <= n; i += W) {
                const B va = sa ? B::load_unaligned(a + i) : ka;
                const B vb = sb ? B::load_unaligned(b + i) : kb;
                Rule::eval(va, vb).store_unaligned(y + i);
            }
        }
    }
    for (; i < n; ++i) y[i] = Rule::eval(a[i * sa], b[i * sb]);
}

template <class Rule>
Tensor map2(const Tensor& a_in, const Tensor& b_in, const char* op) {
    const ScalarType dt = result_type(a_in, b_in);
    Tensor a = a_in.dtype() == dt ? a_in : detail::copy_as(a_in, dt);
    Tensor b = b_in.dtype() == dt ? b_in : detail::copy_as(b_in, dt);
    // Common cases without the general strided loop: equal shapes, or a tensor and a
    // scalar, all contiguous.
    const bool flat = a.is_contiguous() && b.is_contiguous() &&
                      (a.sizes() == b.sizes() || (b.dim() == 0 && a.dim() > 0) || (a.dim() == 0 && b.dim() > 0));
    if (flat) {
        const Tensor& big = a.dim() == 0 ? b : a;
        Tensor y = uninitialized_tensor(big.sizes(), dt);
        const std::int64_t n = big.numel(), sa = a.dim() == 0 && b.dim() > 0 ? 0 : 1, sb = b.dim() == 0 && a.dim() > 0 ? 0 : 1;
        dispatch_floating(dt, op, [&](auto tag) {
            using T = typename decltype(tag)::type;
            if constexpr (is_complex_v<T> && !complex_ok<Rule>) {
                throw Error(std::string("gradc: ") + op + " does not support complex tensors, got " + detail::describe(a_in) +
                            " and " + detail::describe(b_in));
            } else {
                const T* pa = static_cast<const T*>(a.raw_data());
                const T* pb = static_cast<const T*>(b.raw_data());
                T* py = static_cast<T*>(y.raw_data());
                parallel_ranges(n, [&](std::int64_t s, std::int64_t e) {
                    binary_run<Rule>(pa + s * sa, pb + s * sb, py + s, e - s, sa, sb);
                });
            }
        });
        return y;
    }
    const Shape out = broadcast_shapes(a_in.sizes(), b_in.sizes(), op);
    Tensor y = uninitialized_tensor(out, dt);
    const Shape sa = broadcast_strides(a, out), sb = broadcast_strides(b, out);
    dispatch_floating(dt, op, [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (is_complex_v<T> && !complex_ok<Rule>) {
            throw Error(std::string("gradc: ") + op + " does not support complex tensors, got " + detail::describe(a_in) +
                        " and " + detail::describe(b_in));
        } else {
            const T* pa = static_cast<const T*>(a.raw_data());
            const T* pb = static_cast<const T*>(b.raw_data());
            T* py = static_cast<T*>(y.raw_data());
            const Shape& ys = y.strides();
            if (const auto which = find_repeated_row(out, ys, sa, sb); which != repeated_row_operand::none) {
                map_repeated_row(out, ys, sa, sb, which, pa, pb, py,
                                 [](const T* a, const T* b, T* r, std::int64_t n, std::int64_t ia, std::int64_t ib) {
                                     binary_run<Rule>(a, b, r, n, ia, ib);
                                 });
                return;
            }
            for_each_run<3>(out, {&ys, &sa, &sb}, {0, 0, 0}, [&](const Run<3>& r) {
                binary_run<Rule>(pa + r.offset[1], pb + r.offset[2], py + r.offset[0], r.count, r.stride[1], r.stride[2]);
            });
        }
    });
    return y;
}

}  // namespace gradc::kernels
