#pragma once
/// \file
/// Batch execution of a compiled kernel over structure-of-arrays inputs.
///
///     std::array<std::span<const double>, 2> in{x1s, x2s};  // one span per variable
///     k.value_batch(in, values);                           // values[i] = f(x_i)
///     k.gradient_batch(in, values, grad);                  // and grad[j][i] = df/dwrt_j
///     k.jvp_batch(in, tangents_in, values, tangents_out);  // J(x_i)·dx_i at every point
///     k.vjp_batch(in, weights, grad);                      // w_iᵀ·J(x_i) at every point
///     k.jacobian_batch(in, values, jac);                   // jac[m·W + j][i] = ∂f_m/∂wrt_j
///     auto [sum, g] = k.map_reduce(data, theta);           // Σᵢ f(θ, xᵢ) and its θ-gradient
///
///     k.gradient_batch(std::tuple{gradc::broadcast(theta), std::span(xs)}, values, grad);
///                                                          // θ one number for every point
///
/// The read arguments (`in`, `tangents_in`, `weights`) are a list of spans, or a
/// std::tuple with one entry per slot: a span, or `gradc::broadcast(x)`, splatted once
/// per call (simd/point_inputs.hpp).
/// Lanes are points: the kernel's lowered programs run on `xsimd::batch<T, A>` with T the
/// lane type of the spans (float or double). Every span holds one entry per point; spans
/// may be unaligned and any length N ≥ 0. A wrong number of spans or a span of the wrong
/// length throws `gradc::Error` naming the argument, before anything is written.
/// An optional last argument picks the architecture (`xsimd::avx2{}`); by default the
/// widest the compiler targets.

#include <array>
#include <cstddef>
#include <ranges>
#include <span>
#include <string>
#include <type_traits>

#include <gradc/lower/results.hpp>
#include <gradc/simd/arguments.hpp>
#include <gradc/simd/call_options.hpp>
#include <gradc/simd/config.hpp>
#include <gradc/simd/map_reduce.hpp>
#include <gradc/simd/point_inputs.hpp>
#include <gradc/simd/sweeps.hpp>

namespace gradc::simd {

/// Base of every kernel (CRTP): adds the batch calls to `gradc::kernel`.
template <class Kernel>
class batch_interface {
public:
    /// values[i] (or values[m][i] for M outputs) = the kernel's output(s) at point i.
    /// `in`: one span per variable, or a std::tuple of spans and `gradc::broadcast(x)`.
    template <detail::read_argument In, class Values, call_option A = default_arch>
    void value_batch(const In& in, Values&& values, A option = {}) const {
        static_assert(detail::has_point_span<In>,
                      "gradc value_batch: every variable is gradc::broadcast(x); give at least one as a span "
                      "of its values at every point (its length is the number of points)");
        using T = checked_lane_type<In>;
        const auto x = detail::read_inputs<T>("value_batch", detail::per_variable<K::arity>("in", in));
        const auto out = detail::output_pointers<T, K::output_count>("value_batch", "values", "one per output",
                                                                     std::forward<Values>(values), x.n, x.first);
        detail::check_no_overlap("value_batch", x.n, x.template group<0, K::arity>("in"),
                                 detail::written_group<T>("values", out, K::output_count == 1));
        detail::value_points<arch_of<A>>(self(), x.n, x, out, threads_of(option));
    }

    /// values[i] = f(x_i) and grad[j][i] = ∂f/∂(wrt variable j) at x_i, for a kernel with
    /// one output; grad has one span per wrt variable, also for a variable given by
    /// `gradc::broadcast` (its gradient differs from point to point).
    template <detail::read_argument In, class Values, class Grad, call_option A = default_arch>
    void gradient_batch(const In& in, Values&& values, Grad&& grad, A option = {}) const {
        static_assert(K::output_count == 1,
                      "gradc kernel: gradient_batch() is for a kernel with one output; use "
                      "jvp_batch() for several outputs");
        static_assert(mutable_span_list<Grad>,
                      "gradc gradient_batch: `grad` must be a list of spans or vectors (one per wrt "
                      "variable) that can be written, not const");
        static_assert(detail::has_point_span<In>,
                      "gradc gradient_batch: every variable is gradc::broadcast(x); give at least one as a span "
                      "of its values at every point (its length is the number of points)");
        using T = checked_lane_type<In>;
        static_assert(std::is_same_v<span_list_value_t<Grad>, T>,
                      "gradc gradient_batch: `grad` must hold the same lane type as `in`");
        const auto x = detail::read_inputs<T>("gradient_batch", detail::per_variable<K::arity>("in", in));
        const auto v = detail::output_pointers<T, 1>("gradient_batch", "values", "", std::forward<Values>(values), x.n,
                                                     x.first);
        const auto g = detail::checked_pointers<T, K::wrt_count>("gradient_batch", "grad", "one per wrt variable",
                                                                 std::forward<Grad>(grad), x.n, x.first);
        detail::check_no_overlap("gradient_batch", x.n, x.template group<0, K::arity>("in"),
                                 detail::written_group<T>("values", v, true), detail::written_group<T>("grad", g));
        std::array<T*, 1 + K::wrt_count> out;
        out[0] = v[0];
        for (std::size_t j = 0; j < K::wrt_count; ++j) out[1 + j] = g[j];
        detail::gradient_points<arch_of<A>>(self(), x.n, x, out, threads_of(option));
    }

    /// values and tangents_out = J(x_i)·dx_i at every point, with dx_i = tangents_in[j][i]
    /// (one span per wrt variable, or a tuple of spans and `gradc::broadcast(dx)`) and one
    /// output span each per output.
    template <detail::read_argument In, detail::read_argument TangentsIn, class Values, class TangentsOut,
              call_option A = default_arch>
    void jvp_batch(const In& in, const TangentsIn& tangents_in, Values&& values, TangentsOut&& tangents_out,
                   A option = {}) const {
        static_assert(detail::has_point_span<In, TangentsIn>,
                      "gradc jvp_batch: every variable and tangent is gradc::broadcast(x); give at least one as "
                      "a span of its values at every point (its length is the number of points)");
        using T = checked_lane_type<In, TangentsIn>;
        if constexpr (span_list<TangentsIn>)
            static_assert(std::is_same_v<span_list_value_t<TangentsIn>, T>,
                          "gradc jvp_batch: `tangents_in` must hold the same lane type as `in`");
        constexpr std::size_t M = K::output_count;
        const auto x = detail::read_inputs<T>("jvp_batch", detail::per_variable<K::arity>("in", in),
                                              detail::per_wrt_variable<K::wrt_count>("tangents_in", tangents_in));
        const auto v = detail::output_pointers<T, M>("jvp_batch", "values", "one per output",
                                                     std::forward<Values>(values), x.n, x.first);
        const auto t = detail::output_pointers<T, M>("jvp_batch", "tangents_out", "one per output",
                                                     std::forward<TangentsOut>(tangents_out), x.n, x.first);
        detail::check_no_overlap("jvp_batch", x.n, x.template group<0, K::arity>("in"),
                                 x.template group<K::arity, K::wrt_count>("tangents_in"),
                                 detail::written_group<T>("values", v, M == 1),
                                 detail::written_group<T>("tangents_out", t, M == 1));
        const auto out = detail::joined(v, t);
        detail::jvp_points<arch_of<A>>(self(), x.n, x, out, threads_of(option));
    }

    /// grad[j][i] = Σₘ weights[m][i]·∂f_m/∂(wrt variable j) at x_i: the vector-Jacobian
    /// product at every point, one weight span per output (or a tuple of spans and
    /// `gradc::broadcast(w)`), one gradient span per wrt variable (the backward pass of
    /// an elementwise operation: weights are the incoming gradients).
    template <detail::read_argument In, detail::read_argument Weights, class Grad, call_option A = default_arch>
    void vjp_batch(const In& in, const Weights& weights, Grad&& grad, A option = {}) const {
        static_assert(mutable_span_list<Grad>,
                      "gradc vjp_batch: `grad` must be a list of spans or vectors (one per wrt "
                      "variable) that can be written, not const");
        static_assert(detail::has_point_span<In, Weights>,
                      "gradc vjp_batch: every variable and weight is gradc::broadcast(x); give at least one as "
                      "a span of its values at every point (its length is the number of points)");
        using T = checked_lane_type<In, Weights>;
        static_assert(std::is_same_v<span_list_value_t<Grad>, T>,
                      "gradc vjp_batch: `weights` and `grad` must hold the same lane type as `in`");
        if constexpr (span_list<Weights>)
            static_assert(std::is_same_v<span_list_value_t<Weights>, T>,
                          "gradc vjp_batch: `weights` and `grad` must hold the same lane type as `in`");
        constexpr std::size_t M = K::output_count;
        const auto x = detail::read_inputs<T>("vjp_batch", detail::per_variable<K::arity>("in", in),
                                              detail::per_output<M>("weights", weights));
        const auto g = detail::checked_pointers<T, K::wrt_count>("vjp_batch", "grad", "one per wrt variable",
                                                                 std::forward<Grad>(grad), x.n, x.first);
        detail::check_no_overlap("vjp_batch", x.n, x.template group<0, K::arity>("in"),
                                 x.template group<K::arity, M>("weights"), detail::written_group<T>("grad", g));
        detail::vjp_points<arch_of<A>>(self(), x.n, x, g, threads_of(option));
    }

    /// values[m][i] = output m at x_i and jac[m·W + j][i] = ∂f_m/∂(wrt variable j) at x_i:
    /// the Jacobian at every point, one span per entry, row-major (output m, wrt variable
    /// j), W the number of wrt variables; `in` as for value_batch. Each point's Jacobian
    /// is `k.jacobian`'s: one reverse sweep carrying M weight vectors or one forward sweep
    /// carrying W tangents, whichever carries fewer.
    template <detail::read_argument In, class Values, class Jac, call_option A = default_arch>
    void jacobian_batch(const In& in, Values&& values, Jac&& jac, A option = {}) const {
        static_assert(mutable_span_list<Jac>,
                      "gradc jacobian_batch: `jac` must be a list of spans or vectors (one per Jacobian entry, "
                      "output m and wrt variable j at m·W + j) that can be written, not const");
        static_assert(detail::has_point_span<In>,
                      "gradc jacobian_batch: every variable is gradc::broadcast(x); give at least one as a span "
                      "of its values at every point (its length is the number of points)");
        static_assert(K::wrt_count > 0, "gradc jacobian_batch: the kernel has no wrt variable");
        using T = checked_lane_type<In>;
        static_assert(std::is_same_v<span_list_value_t<Jac>, T>,
                      "gradc jacobian_batch: `jac` must hold the same lane type as `in`");
        constexpr std::size_t M = K::output_count;
        const auto x = detail::read_inputs<T>("jacobian_batch", detail::per_variable<K::arity>("in", in));
        const auto v = detail::output_pointers<T, M>("jacobian_batch", "values", "one per output",
                                                     std::forward<Values>(values), x.n, x.first);
        const auto d = detail::checked_pointers<T, M * K::wrt_count>(
            "jacobian_batch", "jac", "one per Jacobian entry: outputs × wrt variables, row-major",
            std::forward<Jac>(jac), x.n, x.first);
        detail::check_no_overlap("jacobian_batch", x.n, x.template group<0, K::arity>("in"),
                                 detail::written_group<T>("values", v, M == 1), detail::written_group<T>("jac", d));
        const auto out = detail::joined(v, d);
        detail::jacobian_points<arch_of<A>>(self(), x.n, x, out, threads_of(option));
    }

    /// Σᵢ f(θ, xᵢ) and its gradient with respect to θ (a `gradient_result`), for a kernel
    /// compiled with `gradc::wrt(parameters...)`: θ holds the wrt variables' values (in
    /// wrt order), `data` one span per other variable (in variable order), one entry per
    /// point. Vectorised over points; per-point gradients are never stored.
    template <span_list Data, std::ranges::sized_range Theta, call_option A = default_arch>
    auto map_reduce(const Data& data, const Theta& theta, A option = {}) const {
        static_assert(K::output_count == 1, "gradc kernel: map_reduce() sums a kernel with one output");
        static_assert(K::wrt_count < K::arity,
                      "gradc kernel: map_reduce() needs per-point data: compile the kernel with "
                      "gradc::wrt(parameters...) so that the variables not listed are the data");
        using T = checked_lane_type<Data>;
        using layout = detail::data_layout<K>;
        const std::size_t n = detail::point_count(data);
        const auto d = detail::checked_pointers<T, layout::data_count>(
            "map_reduce", "data", "one per variable not in wrt(...)", data, n, "data[0]");
        if (std::ranges::size(theta) != K::wrt_count) {
            detail::bad_argument("map_reduce", "argument `theta` has " + std::to_string(std::ranges::size(theta)) +
                                                   " entries, expected " + std::to_string(K::wrt_count) +
                                                   " (one per wrt variable)");
        }
        std::array<T, K::wrt_count> p;
        std::size_t j = 0;
        for (const auto& t : theta) p[j++] = static_cast<T>(t);
        return detail::reduce_points<arch_of<A>>(self(), n, d, p, threads_of(option));
    }

private:
    // Only used inside the calls: `Kernel` is incomplete where this base is instantiated.
    using K = Kernel;

    /// The lane type of a call: that of the first span of its read arguments.
    template <class... In>
    struct lane_of {
        using type = detail::call_lane_t<In...>;
        static_assert(lane_type<type>, "gradc batch call: spans must hold double or float");
    };
    template <class... In>
    using checked_lane_type = typename lane_of<In...>::type;

    const Kernel& self() const { return static_cast<const Kernel&>(*this); }
};

}  // namespace gradc::simd
