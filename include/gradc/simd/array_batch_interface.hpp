#pragma once
/// \file
/// Batch execution of an array kernel: one point per SIMD lane, as for scalar kernels
/// (simd/batch_interface.hpp), with array variables given as one span per entry and
/// parameters broadcast (simd/array_arguments.hpp):
///
///     k.value_batch(in, values);             values: one span per output entry
///     k.gradient_batch(in, values, grad);    grad: one span per entry of each wrt variable
///     k.jvp_batch(in, tangents_in, values, tangents_out)   J·dx at every point
///     k.vjp_batch(in, weights, grad);        wᵀ·J at every point
///     k.jacobian_batch(in, values, jac);     jac: one span per Jacobian entry, row-major
///     auto r = k.map_reduce(data, W, b);     Σᵢ f(θ, xᵢ) and its gradient (a tuple, as k.gradient)
///     double s = k.map_reduce_value(data, W, b);   Σᵢ f(θ, xᵢ) alone
///
/// The array programs run on `xsimd::batch<T, A>`; tails, threads and chunks as for
/// scalar kernels (simd/tail.hpp). A kernel with a workspace (lower/array_workspace.hpp)
/// is claimed once per chunk of points: each chunk runs on a copy of the per-batch
/// function, whose lease starts unclaimed. A wrong span count or length throws
/// gradc::Error naming the argument, before anything is written.

#include <array>
#include <cstddef>
#include <span>
#include <tuple>
#include <type_traits>
#include <utility>

#include <gradc/lower/array_results.hpp>
#include <gradc/simd/array_arguments.hpp>
#include <gradc/simd/array_map_reduce.hpp>
#include <gradc/simd/call_options.hpp>
#include <gradc/simd/config.hpp>
#include <gradc/simd/tail.hpp>

namespace gradc::simd {

/// The batch calls of an array kernel (a base of gradc::array_kernel): many points per call.
template <class Kernel>
class array_batch_interface {
public:
    /// The kernel's outputs at every point: values holds one span per output entry (all
    /// outputs, in order), or is one span for a kernel with one scalar output.
    template <class In, class Values, call_option A = default_arch>
    void value_batch(const In& in, Values&& values, A option = {}) const {
        using T = typename detail::input_lane<In>::type;
        constexpr auto per_point = detail::per_point_variables<K, In>();
        const auto x = detail::batch_inputs<K, T, per_point>("value_batch", in);
        constexpr std::size_t M = output_entries();
        const auto out = detail::output_pointers<T, M>("value_batch", "values", "one per output entry",
                                                       std::forward<Values>(values), x.n);
        detail::check_no_overlap("value_batch", x.n, detail::read_group<T>("in", x.spans_in_order()),
                                 detail::written_group<T>("values", out, M == 1));
        using B = xsimd::batch<T, arch_of<A>>;
        const auto fixed = x.template broadcast_batches<B>();
        detail::run_batches<arch_of<A>>(
            x.n, x.per_point, out,
            [&, lease = self().lease()](
                const std::array<B, std::remove_cvref_t<decltype(x)>::per_point_count>& p) mutable {
                const auto args = x.arguments(p, fixed);
                std::array<B, output_entries()> y;
                std::array<B*, K::output_count> o;
                std::size_t at = 0;
                for (std::size_t m = 0; m < K::output_count; ++m) {
                    o[m] = y.data() + at;
                    at += K::output_shape(m).size();
                }
                self().value_in(lease, args.data(), o.data());
                return y;
            },
            threads_of(option));
    }

    /// The value and the gradient at every point, for a kernel with one scalar output:
    /// grad holds one span per entry of each wrt variable, in wrt order.
    template <class In, class Values, class Grad, call_option A = default_arch>
    void gradient_batch(const In& in, Values&& values, Grad&& grad, A option = {}) const {
        static_assert(K::output_count == 1 && K::output_shape(0).is_scalar(),
                      "gradc kernel: gradient_batch() is for a kernel with one scalar output");
        using T = typename detail::input_lane<In>::type;
        constexpr auto per_point = detail::per_point_variables<K, In>();
        const auto x = detail::batch_inputs<K, T, per_point>("gradient_batch", in);
        constexpr std::size_t W = K::wrt_entries;
        const auto v = detail::output_pointers<T, 1>("gradient_batch", "values", "", std::forward<Values>(values), x.n);
        const auto g = detail::checked_pointers<T, W>("gradient_batch", "grad", "one per entry of each wrt variable",
                                                      std::forward<Grad>(grad), x.n);
        detail::check_no_overlap("gradient_batch", x.n, detail::read_group<T>("in", x.spans_in_order()),
                                 detail::written_group<T>("values", v, true), detail::written_group<T>("grad", g));
        const auto out = detail::joined(v, g);
        using B = xsimd::batch<T, arch_of<A>>;
        const auto fixed = x.template broadcast_batches<B>();
        detail::run_batches<arch_of<A>>(
            x.n, x.per_point, out,
            [&, lease = self().lease()](
                const std::array<B, std::remove_cvref_t<decltype(x)>::per_point_count>& p) mutable {
                const auto args = x.arguments(p, fixed);
                std::array<B, 1 + K::wrt_entries> y;
                const auto gp = detail::wrt_pointers<K>(y.data() + 1);
                self().gradient_in(lease, args.data(), y.data(), gp.data());
                return y;
            },
            threads_of(option));
    }

    /// values and tangents_out = J(xᵢ)·dxᵢ at every point: `tangents_in` one span per
    /// entry of each wrt variable (wrt order), `values` and `tangents_out` one span per
    /// output entry (all outputs, in order), or one span each for a kernel with one scalar
    /// output. Tangents are given per point (a list of spans); `in` as for value_batch.
    template <class In, span_list TangentsIn, class Values, class TangentsOut, call_option A = default_arch>
    void jvp_batch(const In& in, const TangentsIn& tangents_in, Values&& values, TangentsOut&& tangents_out,
                   A option = {}) const {
        using T = typename detail::input_lane<In>::type;
        static_assert(std::is_same_v<span_list_value_t<TangentsIn>, T>,
                      "gradc jvp_batch: `tangents_in` must hold the same lane type as `in`");
        constexpr auto per_point = detail::per_point_variables<K, In>();
        const auto x = detail::batch_inputs<K, T, per_point>("jvp_batch", in);
        constexpr std::size_t M = output_entries(), W = K::wrt_entries, P = std::remove_cvref_t<decltype(x)>::per_point_count;
        const auto dx = detail::checked_pointers<T, W>("jvp_batch", "tangents_in", "one per entry of each wrt variable",
                                                       tangents_in, x.n);
        const auto v = detail::output_pointers<T, M>("jvp_batch", "values", "one per output entry",
                                                     std::forward<Values>(values), x.n);
        const auto t = detail::output_pointers<T, M>("jvp_batch", "tangents_out", "one per output entry",
                                                     std::forward<TangentsOut>(tangents_out), x.n);
        detail::check_no_overlap("jvp_batch", x.n, detail::read_group<T>("in", x.spans_in_order()),
                                 detail::read_group<T>("tangents_in", dx), detail::written_group<T>("values", v, M == 1),
                                 detail::written_group<T>("tangents_out", t, M == 1));
        const auto read = detail::joined(x.per_point, dx);
        const auto out = detail::joined(v, t);
        using B = xsimd::batch<T, arch_of<A>>;
        const auto fixed = x.template broadcast_batches<B>();
        detail::run_batches<arch_of<A>>(
            x.n, read, out,
            [&, lease = self().lease()](const std::array<B, P + W>& p) mutable {
                const auto args = x.arguments(p, fixed);
                const auto d = detail::wrt_pointers<K>(p.data() + P);
                std::array<B, 2 * M> y;
                const auto vo = output_pointers(y.data()), to = output_pointers(y.data() + M);
                self().tangent_in(lease, args.data(), d.data(), vo.data(), to.data());
                return y;
            },
            threads_of(option));
    }

    /// grad = Σₘ wₘ(xᵢ)ᵀ·Jₘ(xᵢ) at every point: `weights` one span per output entry (all
    /// outputs, in order), `grad` one span per entry of each wrt variable (wrt order); the
    /// backward pass of a batch of points, the weights their incoming adjoints.
    template <class In, span_list Weights, class Grad, call_option A = default_arch>
    void vjp_batch(const In& in, const Weights& weights, Grad&& grad, A option = {}) const {
        static_assert(mutable_span_list<Grad>,
                      "gradc vjp_batch: `grad` must be a list of spans or vectors (one per entry of each wrt "
                      "variable) that can be written, not const");
        using T = typename detail::input_lane<In>::type;
        static_assert(std::is_same_v<span_list_value_t<Weights>, T> && std::is_same_v<span_list_value_t<Grad>, T>,
                      "gradc vjp_batch: `weights` and `grad` must hold the same lane type as `in`");
        constexpr auto per_point = detail::per_point_variables<K, In>();
        const auto x = detail::batch_inputs<K, T, per_point>("vjp_batch", in);
        constexpr std::size_t M = output_entries(), W = K::wrt_entries, P = std::remove_cvref_t<decltype(x)>::per_point_count;
        const auto w = detail::checked_pointers<T, M>("vjp_batch", "weights", "one per output entry", weights, x.n);
        const auto g = detail::checked_pointers<T, W>("vjp_batch", "grad", "one per entry of each wrt variable",
                                                      std::forward<Grad>(grad), x.n);
        detail::check_no_overlap("vjp_batch", x.n, detail::read_group<T>("in", x.spans_in_order()),
                                 detail::read_group<T>("weights", w), detail::written_group<T>("grad", g));
        const auto read = detail::joined(x.per_point, w);
        constexpr std::size_t G = W == 0 ? 1 : W;  // named here: g++ 12 fails inside the lambda
        using B = xsimd::batch<T, arch_of<A>>;
        const auto fixed = x.template broadcast_batches<B>();
        detail::run_batches<arch_of<A>>(
            x.n, read, g,
            [&, lease = self().lease()](const std::array<B, P + M>& p) mutable {
                const auto args = x.arguments(p, fixed);
                const auto wp = output_pointers(p.data() + P);
                std::array<B, G> y;
                std::array<B, M> values;
                const auto vo = output_pointers(values.data());
                const auto gp = detail::wrt_pointers<K>(y.data());
                self().adjoint_in(lease, args.data(), vo.data(), wp.data(), gp.data());
                return y;
            },
            threads_of(option));
    }

    /// values and the Jacobian at every point: `values` one span per output entry (all
    /// outputs, in order), or one span for a kernel with one scalar output; `jac` one span
    /// per Jacobian entry, jac[i·W + j] = ∂ output entry i / ∂ wrt entry j (W the wrt
    /// entries, each wrt variable flattened row-major, in wrt order), as `k.jacobian`'s
    /// rows and columns; `in` as for value_batch. Each point takes `k.jacobian`'s sweeps.
    template <class In, class Values, class Jac, call_option A = default_arch>
    void jacobian_batch(const In& in, Values&& values, Jac&& jac, A option = {}) const {
        static_assert(mutable_span_list<Jac>,
                      "gradc jacobian_batch: `jac` must be a list of spans or vectors (one per Jacobian entry: "
                      "output entries × wrt entries, row-major) that can be written, not const");
        static_assert(K::wrt_entries > 0, "gradc jacobian_batch: the kernel has no wrt entry");
        using T = typename detail::input_lane<In>::type;
        static_assert(std::is_same_v<span_list_value_t<Jac>, T>,
                      "gradc jacobian_batch: `jac` must hold the same lane type as `in`");
        constexpr auto per_point = detail::per_point_variables<K, In>();
        const auto x = detail::batch_inputs<K, T, per_point>("jacobian_batch", in);
        constexpr std::size_t M = output_entries(), W = K::wrt_entries, P = std::remove_cvref_t<decltype(x)>::per_point_count;
        const auto v = detail::output_pointers<T, M>("jacobian_batch", "values", "one per output entry",
                                                     std::forward<Values>(values), x.n);
        const auto d = detail::checked_pointers<T, M * W>(
            "jacobian_batch", "jac", "one per Jacobian entry: output entries × wrt entries, row-major",
            std::forward<Jac>(jac), x.n);
        detail::check_no_overlap("jacobian_batch", x.n, detail::read_group<T>("in", x.spans_in_order()),
                                 detail::written_group<T>("values", v, M == 1), detail::written_group<T>("jac", d));
        const auto out = detail::joined(v, d);
        constexpr std::size_t Y = M * (1 + W);  // named here: g++ 12 fails inside the lambda
        using B = xsimd::batch<T, arch_of<A>>;
        const auto fixed = x.template broadcast_batches<B>();
        detail::run_batches<arch_of<A>>(
            x.n, x.per_point, out,
            [&, lease = self().lease()](const std::array<B, P>& p) mutable {
                const auto args = x.arguments(p, fixed);
                std::array<B, Y> y;
                self().jacobian_in(lease, args.data(), y.data(), y.data() + M);
                return y;
            },
            threads_of(option));
    }

    /// Σᵢ f(θ, xᵢ) and its gradient with respect to θ, for a kernel compiled with
    /// `gradc::wrt(parameters...)`: `data` holds one span per entry of each variable not
    /// in wrt (variable order), θ one argument per wrt variable (wrt order), as the
    /// one-point calls take them. An optional last argument is a call option.
    template <span_list Data, class... Theta>
    auto map_reduce(const Data& data, const Theta&... theta) const {
        static_assert(K::output_count == 1 && K::output_shape(0).is_scalar(),
                      "gradc kernel: map_reduce() sums a kernel with one scalar output");
        static_assert(K::wrt_count < K::arity,
                      "gradc kernel: map_reduce() needs per-point data: compile the kernel with "
                      "gradc::wrt(parameters...) so that the variables not listed are the data");
        if constexpr (sizeof...(Theta) == K::wrt_count + 1) {
            auto all = std::tie(theta...);
            auto option = std::get<K::wrt_count>(all);
            return [&]<std::size_t... j>(std::index_sequence<j...>) {
                return detail::array_map_reduce<arch_of<decltype(option)>>(self(), data, std::tie(std::get<j>(all)...),
                                                                           threads_of(option));
            }(std::make_index_sequence<K::wrt_count>{});
        } else {
            static_assert(sizeof...(Theta) == K::wrt_count,
                          "gradc kernel: map_reduce(data, theta...) takes one argument per wrt variable, in "
                          "wrt order (and optionally a call option last)");
            return detail::array_map_reduce<default_arch>(self(), data, std::tie(theta...), get_num_threads());
        }
    }

    /// Σᵢ f(θ, xᵢ) alone, as map_reduce computes it (the nodes that do not depend on the
    /// data evaluated once), without the gradient.
    template <span_list Data, class... Theta>
    auto map_reduce_value(const Data& data, const Theta&... theta) const {
        static_assert(K::output_count == 1 && K::output_shape(0).is_scalar(),
                      "gradc kernel: map_reduce_value() sums a kernel with one scalar output");
        if constexpr (sizeof...(Theta) == K::wrt_count + 1) {
            auto all = std::tie(theta...);
            auto option = std::get<K::wrt_count>(all);
            return [&]<std::size_t... j>(std::index_sequence<j...>) {
                return detail::array_map_reduce<arch_of<decltype(option)>, false>(
                    self(), data, std::tie(std::get<j>(all)...), threads_of(option));
            }(std::make_index_sequence<K::wrt_count>{});
        } else {
            static_assert(sizeof...(Theta) == K::wrt_count,
                          "gradc kernel: map_reduce_value(data, theta...) takes one argument per wrt variable");
            return detail::array_map_reduce<default_arch, false>(self(), data, std::tie(theta...), get_num_threads());
        }
    }

private:
    using K = Kernel;
    static constexpr std::size_t output_entries() {
        std::size_t n = 0;
        for (std::size_t m = 0; m < K::output_count; ++m) n += K::output_shape(m).size();
        return n;
    }
    const Kernel& self() const { return static_cast<const Kernel&>(*this); }
    /// Pointers to each output's entries within one flat array of all output entries.
    template <class P>
    static auto output_pointers(P* flat) {
        std::array<P*, K::output_count> p{};
        for (std::size_t m = 0, at = 0; m < K::output_count; at += K::output_shape(m).size(), ++m) p[m] = flat + at;
        return p;
    }
};

}  // namespace gradc::simd
