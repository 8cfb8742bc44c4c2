#pragma once
/// \file
/// The second-order batch calls of a compiled kernel (one output), over
/// structure-of-arrays spans as the first-order batch calls (batch_interface.hpp):
///
///     k.hessian_batch(in, values, grad, hess);         // hess: one span per entry of the
///                                                      // upper triangle, row-major, i ≤ j
///     k.hvp_batch(in, v_in, values, grad, hvp_out);    // H(x_i)·v_i at every point
///     auto h = k.map_reduce_hessian(data, theta);      // Σ f, Σ ∇θ f, Σ ∇²θ f
///     auto d = k.map_reduce_hessian_diagonal(data, theta); // Σ f, Σ ∇θ f, diag Σ ∇²θ f
///     auto g = k.map_reduce_gauss_newton(data, theta); // Σ r², Jᵀr, JᵀJ (r the output)
///
/// Wrong counts and lengths throw `gradc::Error` naming the argument, before
/// anything is written. `in` and `v_in` may be std::tuples of spans and
/// `gradc::broadcast(x)` (simd/point_inputs.hpp). An optional last argument picks the
/// architecture or the threads.

#include <array>
#include <cstddef>
#include <ranges>
#include <span>
#include <string>

#include <gradc/lower/results.hpp>
#include <gradc/lower/second_order.hpp>
#include <gradc/simd/arguments.hpp>
#include <gradc/simd/call_options.hpp>
#include <gradc/simd/config.hpp>
#include <gradc/simd/map_reduce.hpp>
#include <gradc/simd/point_inputs.hpp>
#include <gradc/simd/second_order_map_reduce.hpp>
#include <gradc/simd/second_order_sweeps.hpp>

namespace gradc::simd {

/// Base of every kernel (CRTP): adds the second-order batch calls to `gradc::kernel`.
template <class Kernel>
class second_order_interface {
public:
    /// values[i] = f(x_i), grad[j][i] = ∂f/∂w_j and hess[t][i] = ∂²f/∂w_j∂w_k for the t-th
    /// entry (j, k) of the upper triangle in row-major order (j ≤ k), at every point.
    /// `in`: one span per variable, or a std::tuple of spans and `gradc::broadcast(x)`.
    template <detail::read_argument In, class Values, class Grad, class Hess, call_option A = default_arch>
    void hessian_batch(const In& in, Values&& values, Grad&& grad, Hess&& hess, A option = {}) const {
        static_assert(mutable_span_list<Grad> && mutable_span_list<Hess>,
                      "gradc hessian_batch: `grad` and `hess` must be lists of spans or vectors that can be "
                      "written, not const");
        static_assert(K::output_count == 1, "gradc kernel: hessian_batch() is for a kernel with one output");
        static_assert(detail::has_point_span<In>,
                      "gradc hessian_batch: every variable is gradc::broadcast(x); give at least one as a span "
                      "of its values at every point (its length is the number of points)");
        using T = detail::call_lane_t<In>;
        static_assert(lane_type<T>, "gradc batch call: spans must hold double or float");
        constexpr std::size_t W = K::wrt_count, H = lower::triangle_size(K::wrt_count);
        const auto x = detail::read_inputs<T>("hessian_batch", detail::per_variable<K::arity>("in", in));
        const std::size_t n = x.n;
        const auto v = detail::output_pointers<T, 1>("hessian_batch", "values", "", std::forward<Values>(values), n,
                                                     x.first);
        const auto g = detail::checked_pointers<T, W>("hessian_batch", "grad", "one per wrt variable",
                                                      std::forward<Grad>(grad), n, x.first);
        const auto h = detail::checked_pointers<T, H>("hessian_batch", "hess",
                                                      "one per entry of the Hessian's upper triangle, W(W+1)/2",
                                                      std::forward<Hess>(hess), n, x.first);
        detail::check_no_overlap("hessian_batch", n, x.template group<0, K::arity>("in"),
                                 detail::written_group<T>("values", v, true), detail::written_group<T>("grad", g),
                                 detail::written_group<T>("hess", h));
        const auto out = detail::joined(v, g, h);
        detail::hessian_points<arch_of<A>>(self(), n, x, out, threads_of(option));
    }

    /// values[i] = f(x_i), grad[j][i] and hvp_out[j][i] = (H(x_i)·v_i)_j, with v_i =
    /// v_in[j][i] (one span per wrt variable, or a std::tuple of spans and
    /// `gradc::broadcast(v)`: one direction for every point).
    template <detail::read_argument In, detail::read_argument VIn, class Values, class Grad, class Hvp,
              call_option A = default_arch>
    void hvp_batch(const In& in, const VIn& v_in, Values&& values, Grad&& grad, Hvp&& hvp_out, A option = {}) const {
        static_assert(mutable_span_list<Grad> && mutable_span_list<Hvp>,
                      "gradc hvp_batch: `grad` and `hvp_out` must be lists of spans or vectors that can be "
                      "written, not const");
        static_assert(K::output_count == 1, "gradc kernel: hvp_batch() is for a kernel with one output");
        static_assert(detail::has_point_span<In, VIn>,
                      "gradc hvp_batch: every variable and direction is gradc::broadcast(x); give at least one as "
                      "a span of its values at every point (its length is the number of points)");
        using T = detail::call_lane_t<In, VIn>;
        static_assert(lane_type<T>, "gradc batch call: spans must hold double or float");
        constexpr std::size_t W = K::wrt_count;
        const auto x = detail::read_inputs<T>("hvp_batch", detail::per_variable<K::arity>("in", in),
                                              detail::per_wrt_variable<W>("v_in", v_in));
        const std::size_t n = x.n;
        const auto v = detail::output_pointers<T, 1>("hvp_batch", "values", "", std::forward<Values>(values), n,
                                                     x.first);
        const auto g = detail::checked_pointers<T, W>("hvp_batch", "grad", "one per wrt variable",
                                                      std::forward<Grad>(grad), n, x.first);
        const auto hv = detail::checked_pointers<T, W>("hvp_batch", "hvp_out", "one per wrt variable",
                                                       std::forward<Hvp>(hvp_out), n, x.first);
        detail::check_no_overlap("hvp_batch", n, x.template group<0, K::arity>("in"),
                                 x.template group<K::arity, W>("v_in"), detail::written_group<T>("values", v, true),
                                 detail::written_group<T>("grad", g), detail::written_group<T>("hvp_out", hv));
        const auto out = detail::joined(v, g, hv);
        detail::hvp_points<arch_of<A>>(self(), n, x, out, threads_of(option));
    }

    /// Σᵢ f(θ, xᵢ), its θ-gradient and its θ-Hessian (a `hessian_result`), arguments as
    /// `map_reduce`: Newton steps for maximum likelihood, observed Fisher information.
    template <span_list Data, std::ranges::sized_range Theta, call_option A = default_arch>
    auto map_reduce_hessian(const Data& data, const Theta& theta, A option = {}) const {
        const auto [d, p, n] = map_reduce_arguments("map_reduce_hessian", data, theta);
        return detail::reduce_hessian<arch_of<A>>(self(), n, d, p, threads_of(option));
    }

    /// Σᵢ f(θ, xᵢ), its θ-gradient and the diagonal of its θ-Hessian (a
    /// `hessian_diagonal_result`), arguments as `map_reduce`: Newton steps with a diagonal
    /// Hessian (k-means). One direction of duals where the Hessian is diagonal by
    /// structure (lower/hessian_structure.hpp), else the cost of `map_reduce_hessian`.
    template <span_list Data, std::ranges::sized_range Theta, call_option A = default_arch>
    auto map_reduce_hessian_diagonal(const Data& data, const Theta& theta, A option = {}) const {
        const auto [d, p, n] = map_reduce_arguments("map_reduce_hessian_diagonal", data, theta);
        return detail::reduce_hessian_diagonal<arch_of<A>>(self(), n, d, p, threads_of(option));
    }

    /// For a kernel whose output is a residual rᵢ = r(θ, xᵢ): Σ rᵢ², Jᵀr and JᵀJ over the
    /// points (a `gauss_newton_result`), J the Jacobian of the residuals by θ.
    template <span_list Data, std::ranges::sized_range Theta, call_option A = default_arch>
    auto map_reduce_gauss_newton(const Data& data, const Theta& theta, A option = {}) const {
        const auto [d, p, n] = map_reduce_arguments("map_reduce_gauss_newton", data, theta);
        return detail::reduce_gauss_newton<arch_of<A>>(self(), n, d, p, threads_of(option));
    }

private:
    // Only used inside the calls: `Kernel` is incomplete where this base is instantiated.
    using K = Kernel;

    const Kernel& self() const { return static_cast<const Kernel&>(*this); }

    template <class T>
    struct checked_map_reduce {
        std::array<const T*, detail::data_layout<Kernel>::data_count> data;
        std::array<T, Kernel::wrt_count> theta;
        std::size_t n;
    };

    /// The data pointers, θ and the number of points, checked as `map_reduce` does.
    template <class Data, class Theta>
    static auto map_reduce_arguments(const char* call, const Data& data, const Theta& theta) {
        static_assert(K::output_count == 1, "gradc kernel: map-reduce sums a kernel with one output");
        static_assert(K::wrt_count < K::arity,
                      "gradc kernel: map-reduce needs per-point data: compile the kernel with "
                      "gradc::wrt(parameters...) so that the variables not listed are the data");
        using T = span_list_value_t<Data>;
        static_assert(lane_type<T>, "gradc batch call: spans must hold double or float");
        using layout = detail::data_layout<K>;
        checked_map_reduce<T> r;
        r.n = detail::point_count(data);
        r.data = detail::checked_pointers<T, layout::data_count>(call, "data", "one per variable not in wrt(...)",
                                                                 data, r.n, "data[0]");
        if (std::ranges::size(theta) != K::wrt_count) {
            detail::bad_argument(call, "argument `theta` has " + std::to_string(std::ranges::size(theta)) +
                                           " entries, expected " + std::to_string(K::wrt_count) +
                                           " (one per wrt variable)");
        }
        std::size_t j = 0;
        for (const auto& t : theta) r.theta[j++] = static_cast<T>(t);
        return r;
    }
};

}  // namespace gradc::simd
