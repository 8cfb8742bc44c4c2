#pragma once
/// \file
/// A compiled kernel's batch programs behind the `block_programs` interface: each call
/// runs the kernel's value, adjoint or tangent program on SIMD batches over one block of
/// points (the same executors as `value_batch`, `vjp_batch` and `jvp_batch`, on one
/// thread: the tensor side splits the points over threads itself).

#include <algorithm>
#include <array>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>

#include <gradc/fused/block_programs.hpp>
#include <gradc/fused/dynamic_expression.hpp>
#include <gradc/simd/config.hpp>
#include <gradc/simd/sweeps.hpp>

namespace gradc::autograd::fusion {

template <class Kernel>
class kernel_programs final : public block_programs {
public:
    static constexpr std::size_t N = Kernel::arity, M = Kernel::output_count, W = Kernel::wrt_count;

    kernel_programs(const Kernel& k, std::string name) : kernel_(k), name_(std::move(name)) {}

    std::size_t arity() const override { return N; }
    std::size_t output_count() const override { return M; }
    std::span<const std::size_t> wrt_variables() const override { return Kernel::wrt_variables; }
    std::string_view name() const override { return name_; }

    void value(std::size_t n, const double* const* in, double* const* out) const override { value_of(n, in, out); }
    void value(std::size_t n, const float* const* in, float* const* out) const override { value_of(n, in, out); }
    void vjp(std::size_t n, const double* const* in, const double* const* w, double* const* grad) const override {
        vjp_of(n, in, w, grad);
    }
    void vjp(std::size_t n, const float* const* in, const float* const* w, float* const* grad) const override {
        vjp_of(n, in, w, grad);
    }
    void jvp(std::size_t n, const double* const* in, const double* const* dx, double* const* out) const override {
        jvp_of(n, in, dx, out);
    }
    void jvp(std::size_t n, const float* const* in, const float* const* dx, float* const* out) const override {
        jvp_of(n, in, dx, out);
    }

    tensor_list record(const tensor_list& inputs) const override { return kernel_outputs(kernel_, inputs); }

private:
    template <class T>
    void value_of(std::size_t n, const T* const* in, T* const* out) const {
        simd::detail::value_points<simd::default_arch>(kernel_, n, pointers<N>(in), pointers<M>(out));
    }
    template <class T>
    void vjp_of(std::size_t n, const T* const* in, const T* const* w, T* const* grad) const {
        std::array<const T*, N + M> x;
        for (std::size_t v = 0; v < N; ++v) x[v] = in[v];
        for (std::size_t m = 0; m < M; ++m) x[N + m] = w[m];
        simd::detail::vjp_points<simd::default_arch>(kernel_, n, x, pointers<W>(grad));
    }
    template <class T>
    void jvp_of(std::size_t n, const T* const* in, const T* const* dx, T* const* out) const {
        // The value program runs again inside the tangent program; its values go to a
        // block on the stack (the forward pass already stored them).
        alignas(64) T values[M][block_points];
        for (std::size_t begin = 0; begin < n; begin += block_points) {
            const std::size_t count = std::min(block_points, n - begin);
            std::array<const T*, N + W> x;
            for (std::size_t v = 0; v < N; ++v) x[v] = in[v] + begin;
            for (std::size_t j = 0; j < W; ++j) x[N + j] = dx[j] + begin;
            std::array<T*, 2 * M> y;
            for (std::size_t m = 0; m < M; ++m) {
                y[m] = values[m];
                y[M + m] = out[m] + begin;
            }
            simd::detail::jvp_points<simd::default_arch>(kernel_, count, x, y);
        }
    }
    template <std::size_t S, class P>
    static std::array<P, S> pointers(const P* p) {
        std::array<P, S> a;
        for (std::size_t i = 0; i < S; ++i) a[i] = p[i];
        return a;
    }

    Kernel kernel_;
    std::string name_;
};

}  // namespace gradc::autograd::fusion
