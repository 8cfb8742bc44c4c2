#pragma once
/// \file
/// The second-order batch calls of an array kernel with one scalar output (a base of
/// gradc::array_kernel), as scalar kernels have them (simd/second_order_interface.hpp):
///
///     k.hessian_batch(in, values, grad, hess);        hess: one span per entry (i, j), i ≤ j, of
///                                                     the upper triangle, row-major: W(W+1)/2
///     k.hvp_batch(in, v_in, values, grad, hvp_out);   H(xₚ)·vₚ at every point
///     auto h = k.map_reduce_hessian(data, W, b);      Σ f, Σ ∇θ f, Σ ∇²θ f (hessian[i][j])
///     auto d = k.map_reduce_hessian_diagonal(data, W, b);   Σ f, Σ ∇θ f, its diagonal
///     auto g = k.map_reduce_gauss_newton(data, W, b); Σ r², Jᵀr, JᵀJ (r the output)
///
/// The map-reduces take their arguments as `map_reduce` does (simd/array_map_reduce.hpp:
/// one span per entry of each data variable, θ one argument per wrt variable, an optional
/// call option last) and sum as simd/array_second_order_map_reduce.hpp says.
///
/// W is the number of wrt entries (each wrt variable flattened row-major, in wrt order),
/// and `grad`, `v_in` and `hvp_out` hold one span per wrt entry. `in` is what value_batch
/// takes (a list of spans, or a tuple with `gradc::broadcast(x)`); `v_in` is a list of
/// spans. The one-point calls' dual sweeps (lower/array_second_order.hpp) run on duals of
/// SIMD batches, one point per lane. Counts and lengths are checked first (gradc::Error).

#include <array>
#include <cstddef>
#include <type_traits>
#include <utility>

#include <gradc/lower/array_second_order.hpp>
#include <gradc/lower/results.hpp>
#include <gradc/simd/array_arguments.hpp>
#include <gradc/simd/array_second_order_map_reduce.hpp>
#include <gradc/simd/call_options.hpp>
#include <gradc/simd/config.hpp>
#include <gradc/simd/tail.hpp>

namespace gradc::simd {

/// The Hessian and Hessian-vector batch calls of an array kernel.
template <class Kernel>
class array_second_order_batch {
public:
    /// The value, the gradient and the Hessian's upper triangle at every point.
    template <class In, class Values, class Grad, class Hess, call_option A = default_arch>
    void hessian_batch(const In& in, Values&& values, Grad&& grad, Hess&& hess, A option = {}) const {
        static_assert(K::output_count == 1 && K::output_shape(0).is_scalar(),
                      "gradc kernel: hessian_batch() is for a kernel with one scalar output");
        using T = typename detail::input_lane<In>::type;
        constexpr auto per_point = detail::per_point_variables<K, In>();
        const auto x = detail::batch_inputs<K, T, per_point>("hessian_batch", in);
        constexpr std::size_t W = K::wrt_entries, H = W * (W + 1) / 2;
        constexpr std::size_t P = std::remove_cvref_t<decltype(x)>::per_point_count;
        const auto v = detail::output_pointers<T, 1>("hessian_batch", "values", "", std::forward<Values>(values), x.n);
        const auto g = detail::checked_pointers<T, W>("hessian_batch", "grad", "one per entry of each wrt variable",
                                                      std::forward<Grad>(grad), x.n);
        const auto h = detail::checked_pointers<T, H>("hessian_batch", "hess",
                                                      "one per entry of the Hessian's upper triangle, W(W+1)/2",
                                                      std::forward<Hess>(hess), x.n);
        detail::check_no_overlap("hessian_batch", x.n, detail::read_group<T>("in", x.spans_in_order()),
                                 detail::written_group<T>("values", v, true), detail::written_group<T>("grad", g),
                                 detail::written_group<T>("hess", h));
        const auto out = detail::joined(v, g, h);
        using B = xsimd::batch<T, arch_of<A>>;
        // The lambda's array types are named out here: g++ 12 fails on them spelled inside.
        using loaded = std::array<B, P>;
        using results = std::array<B, 1 + W + H>;
        using entries_t = std::array<B, W>;
        const auto fixed = x.template broadcast_batches<B>();
        detail::run_batches<arch_of<A>>(
            x.n, x.per_point, out,
            [&](const loaded& p) {
                const auto args = x.arguments(p, fixed);
                results y;
                entries_t grad_b;
                self().unit_sweeps(args.data(), y[0], grad_b, [&](std::size_t column, const entries_t& entries) {
                    // Column c holds H(i, c) for every i; the upper triangle keeps i ≤ c.
                    for (std::size_t i = 0; i <= column; ++i) y[1 + W + detail::upper_triangle_index(W, i, column)] = entries[i];
                });
                for (std::size_t j = 0; j < W; ++j) y[1 + j] = grad_b[j];
                return y;
            },
            threads_of(option));
    }

    /// The value, the gradient and H·v at every point, v one span per wrt entry.
    template <class In, span_list VIn, class Values, class Grad, class Hvp, call_option A = default_arch>
    void hvp_batch(const In& in, const VIn& v_in, Values&& values, Grad&& grad, Hvp&& hvp_out, A option = {}) const {
        static_assert(K::output_count == 1 && K::output_shape(0).is_scalar(),
                      "gradc kernel: hvp_batch() is for a kernel with one scalar output");
        using T = typename detail::input_lane<In>::type;
        static_assert(std::is_same_v<span_list_value_t<VIn>, T>, "gradc hvp_batch: `v_in` must hold the same lane type as `in`");
        constexpr auto per_point = detail::per_point_variables<K, In>();
        const auto x = detail::batch_inputs<K, T, per_point>("hvp_batch", in);
        constexpr std::size_t W = K::wrt_entries, P = std::remove_cvref_t<decltype(x)>::per_point_count;
        const auto d = detail::checked_pointers<T, W>("hvp_batch", "v_in", "one per entry of each wrt variable", v_in, x.n);
        const auto v = detail::output_pointers<T, 1>("hvp_batch", "values", "", std::forward<Values>(values), x.n);
        const auto g = detail::checked_pointers<T, W>("hvp_batch", "grad", "one per entry of each wrt variable",
                                                      std::forward<Grad>(grad), x.n);
        const auto hv = detail::checked_pointers<T, W>("hvp_batch", "hvp_out", "one per entry of each wrt variable",
                                                       std::forward<Hvp>(hvp_out), x.n);
        detail::check_no_overlap("hvp_batch", x.n, detail::read_group<T>("in", x.spans_in_order()),
                                 detail::read_group<T>("v_in", d), detail::written_group<T>("values", v, true),
                                 detail::written_group<T>("grad", g), detail::written_group<T>("hvp_out", hv));
        const auto read = detail::joined(x.per_point, d);
        const auto out = detail::joined(v, g, hv);
        using B = xsimd::batch<T, arch_of<A>>;
        using loaded = std::array<B, P + W>;  // named out here, as in hessian_batch
        using results = std::array<B, 1 + 2 * W>;
        using entries_t = std::array<B, W>;
        const auto fixed = x.template broadcast_batches<B>();
        detail::run_batches<arch_of<A>>(
            x.n, read, out,
            [&](const loaded& p) {
                const auto args = x.arguments(p, fixed);
                results y;
                entries_t grad_b;
                std::array<entries_t, 1> column;
                self().template sweep<B, 1>(
                    args.data(), 0, [&](std::size_t i, std::size_t) { return p[P + i]; }, y[0], grad_b, column, false);
                for (std::size_t j = 0; j < W; ++j) {
                    y[1 + j] = grad_b[j];
                    y[1 + W + j] = column[0][j];
                }
                return y;
            },
            threads_of(option));
    }

    /// Σᵢ f(θ, xᵢ), its θ-gradient (a tuple, as `gradient`) and its θ-Hessian over the wrt
    /// entries, `hessian[i][j]` (an array_hessian_result, as `hessian`).
    template <span_list Data, class... Theta>
    auto map_reduce_hessian(const Data& data, const Theta&... theta) const {
        return sums<detail::second_order_sum::hessian>("map_reduce_hessian", data, theta...);
    }
    /// Σᵢ f(θ, xᵢ), its θ-gradient and the diagonal of its θ-Hessian, each shaped as the
    /// gradient (an array_hessian_diagonal_result, as `hessian_diagonal`).
    template <span_list Data, class... Theta>
    auto map_reduce_hessian_diagonal(const Data& data, const Theta&... theta) const {
        return sums<detail::second_order_sum::diagonal>("map_reduce_hessian_diagonal", data, theta...);
    }
    /// For a kernel whose output is a residual rᵢ = r(θ, xᵢ): Σ rᵢ², Jᵀr and JᵀJ over the
    /// points and the wrt entries (a gauss_newton_result, flat as scalar kernels' is).
    template <span_list Data, class... Theta>
    auto map_reduce_gauss_newton(const Data& data, const Theta&... theta) const {
        return sums<detail::second_order_sum::gauss_newton>("map_reduce_gauss_newton", data, theta...);
    }

private:
    using K = Kernel;
    /// A second-order map-reduce: θ one argument per wrt variable, maybe a call option
    /// last; the sums unpacked into the call's result.
    template <detail::second_order_sum What, class Data, class... Theta>
    auto sums(const char* call, const Data& data, const Theta&... theta) const {
        static_assert(K::output_count == 1 && K::output_shape(0).is_scalar(),
                      "gradc kernel: a second-order map-reduce sums a kernel with one scalar output");
        static_assert(K::wrt_count < K::arity,
                      "gradc kernel: map-reduce needs per-point data: compile the kernel with "
                      "gradc::wrt(parameters...) so that the variables not listed are the data");
        using T = span_list_value_t<Data>;
        constexpr std::size_t W = K::wrt_entries;
        const auto s = [&] {
            if constexpr (sizeof...(Theta) == K::wrt_count + 1) {
                const auto all = std::tie(theta...);
                const auto& option = std::get<K::wrt_count>(all);
                return [&]<std::size_t... j>(std::index_sequence<j...>) {
                    return detail::array_second_order_map_reduce<arch_of<std::remove_cvref_t<decltype(option)>>, What>(
                        self(), call, data, std::tie(std::get<j>(all)...), threads_of(option));
                }(std::make_index_sequence<K::wrt_count>{});
            } else {
                static_assert(sizeof...(Theta) == K::wrt_count,
                              "gradc kernel: a map-reduce takes one argument per wrt variable, in wrt order "
                              "(and optionally a call option last)");
                return detail::array_second_order_map_reduce<default_arch, What>(self(), call, data, std::tie(theta...),
                                                                              get_num_threads());
            }
        }();
        using gradient = typename K::template gradient_tuple<T>;
        if constexpr (What == detail::second_order_sum::gauss_newton) {
            gauss_newton_result<T, W> r{};
            r.value = s.value;
            for (std::size_t i = 0; i < W; ++i) {
                r.jtr[i] = s.first[i];
                for (std::size_t j = i; j < W; ++j)
                    r.jtj[i][j] = r.jtj[j][i] = s.second[detail::upper_triangle_index(W, i, j)];
            }
            return r;
        } else if constexpr (What == detail::second_order_sum::diagonal) {
            array_hessian_diagonal_result<T, gradient> r{};
            r.value = s.value;
            lower::scatter_flat(s.first.data(), r.gradient);
            lower::scatter_flat(s.second.data(), r.diagonal);
            return r;
        } else {
            array_hessian_result<T, gradient, W> r{};
            r.value = s.value;
            lower::scatter_flat(s.first.data(), r.gradient);
            for (std::size_t i = 0; i < W; ++i)
                for (std::size_t j = i; j < W; ++j)
                    r.hessian[i][j] = r.hessian[j][i] = s.second[detail::upper_triangle_index(W, i, j)];
            return r;
        }
    }
    const Kernel& self() const { return static_cast<const Kernel&>(*this); }
};

}  // namespace gradc::simd
