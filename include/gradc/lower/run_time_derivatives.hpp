#pragma once
/// \file
/// The Jacobian and the second-order calls of a kernel with run-time extents (a base of
/// gradc::array_kernel when some extent is known only at run time), with the same
/// methods as a fixed kernel's (lower/array_jacobian.hpp, lower/array_second_order.hpp):
///
///     k.jacobian(args...)                        {value, jacobian}: jacobian[i][j], a gradc::matrix_value
///     k.hessian(args...)                         {value, gradient, hessian}: hessian[i][j], a gradc::matrix_value
///     k.hessian_diagonal(args...)                {value, gradient, diagonal}
///     k.hvp(std::tie(args...), std::tie(v...))   {value, gradient, hvp}
///
/// The number of wrt and output entries is known only now, so the sweeps are counted at
/// run time: the Jacobian by one reverse sweep per output entry or one tangent sweep per
/// wrt entry, whichever are fewer; the Hessian by gradient sweeps on dual numbers of
/// `hessian_directions` directions. Every sweep runs the kernel's run-time programs with
/// the layout computed once per call. The dual copies of the arguments live in buffers
/// kept per thread, so after the first call at given extents a call allocates only the
/// results it returns.

#include <algorithm>
#include <array>
#include <cstddef>
#include <tuple>
#include <utility>
#include <vector>

#include <gradc/lower/array_call_arguments.hpp>
#include <gradc/lower/array_results.hpp>
#include <gradc/lower/array_second_order.hpp>
#include <gradc/lower/array_shapes.hpp>
#include <gradc/lower/run_time_layout.hpp>
#include <gradc/rules/dual.hpp>

namespace gradc {

/// `k.jacobian(args...)` of a kernel with run-time extents.
template <class T, class Value>
struct run_time_jacobian_result {
    Value value;  ///< The output(s), as `k(args...)` returns them.
    matrix_value<T> jacobian;  ///< jacobian[i][j] = ∂ output entry i / ∂ wrt entry j.
};

/// `k.hessian(args...)` of a kernel with run-time extents.
template <class T, class Gradient>
struct run_time_hessian_result {
    T value;  ///< The value.
    Gradient gradient;  ///< The gradient, one entry per wrt variable.
    matrix_value<T> hessian;  ///< hessian[i][j] = ∂²f / ∂wᵢ∂wⱼ over the wrt entries, exactly symmetric.
};

namespace lower {

/// The Jacobian and second-order calls of a kernel with run-time extents.
template <class Kernel>
class run_time_derivatives {
public:
    /// The outputs and the Jacobian of every output entry by every wrt entry.
    template <class... X>
    auto jacobian(const X&... x) const {
        using T = typename Kernel::template call_lane_t<X...>;
        const call_state<T> c(self(), "jacobian", x...);
        typename value_tuple<T, typename Kernel::output_shapes_t>::type out{};
        std::array<T*, Kernel::output_count> values{};
        std::size_t M = 0;
        [&]<std::size_t... m>(std::index_sequence<m...>) {
            ((Kernel::dynamic_calls::template shape_output<m>(std::get<m>(out), c.layout),
              values[m] = entries_of(std::get<m>(out)), M += c.layout.shape[Kernel::program::output_node(m)].size()),
             ...);
        }(std::make_index_sequence<Kernel::output_count>{});
        const std::size_t W = c.wrt_entries;
        run_time_jacobian_result<T, std::remove_cvref_t<decltype(self().value(x...))>> r{};
        shape_to(r.jacobian, rules::arrays::matrix_dims(M, W));
        T* jac = r.jacobian.data.data();
        const T zero(rules::scalar_t<T>(0)), one(rules::scalar_t<T>(1));
        const auto ctx = self().run_time_context();
        if (M == 0 || W == 0) {
            Kernel::dynamic_calls::value(ctx, c.view, c.args.pointers.data(), values.data());
        } else if (M <= W) {
            // Row i: the adjoint sweep seeded with the unit vector of output entry i.
            std::vector<T>& seed = scratch<T, 0>(M, zero);
            const auto w = output_pointers(static_cast<const T*>(seed.data()), c.layout);
            for (std::size_t i = 0; i < M; ++i) {
                seed[i] = one;
                const auto g = c.wrt_pointers(jac + i * W);
                Kernel::dynamic_calls::adjoint(ctx, c.view, c.args.pointers.data(), values.data(), w.data(), g.data(),
                                               c.wrt_sizes.data());
                seed[i] = zero;
            }
        } else {
            // Column j: the tangent sweep along the unit vector of wrt entry j.
            std::vector<T>& direction = scratch<T, 0>(W, zero);
            std::vector<T>& column = scratch<T, 1>(M, zero);
            const auto dx = c.wrt_pointers(static_cast<const T*>(direction.data()));
            const auto t = output_pointers(column.data(), c.layout);
            for (std::size_t j = 0; j < W; ++j) {
                direction[j] = one;
                Kernel::dynamic_calls::tangent(ctx, c.view, c.args.pointers.data(), dx.data(), values.data(), t.data());
                for (std::size_t i = 0; i < M; ++i) jac[i * W + j] = column[i];
                direction[j] = zero;
            }
        }
        if constexpr (Kernel::output_count == 1) {
            r.value = std::move(std::get<0>(out));
        } else {
            r.value = std::move(out);
        }
        return r;
    }

    /// The value, the gradient and the Hessian at the point, as a run_time_hessian_result.
    template <class... X>
    auto hessian(const X&... x) const {
        using T = typename Kernel::template call_lane_t<X...>;
        const call_state<T> c(self(), "hessian", x...);
        const std::size_t W = c.wrt_entries;
        run_time_hessian_result<T, typename Kernel::template gradient_tuple<T>> r{};
        shape_to(r.hessian, rules::arrays::matrix_dims(W, W));
        std::vector<T>& grad = scratch<T, 0>(W, T(0));
        // Column j's entries on and above the diagonal, mirrored: exactly symmetric, as a
        // fixed kernel's (the two halves come from different sweeps and differ in rounding).
        unit_sweeps(c, r.value, grad.data(), [&](std::size_t j, const T* entries) {
            for (std::size_t i = 0; i <= j; ++i) r.hessian(i, j) = r.hessian(j, i) = entries[i];
        });
        scatter(c, grad.data(), r.gradient);
        return r;
    }

    /// The value, the gradient and the Hessian's diagonal (∂²f/∂wᵢ² for each wrt entry,
    /// shaped as the gradient): the diagonal entries of the sweeps `hessian` runs.
    template <class... X>
    auto hessian_diagonal(const X&... x) const {
        using T = typename Kernel::template call_lane_t<X...>;
        const call_state<T> c(self(), "hessian_diagonal", x...);
        const std::size_t W = c.wrt_entries;
        array_hessian_diagonal_result<T, typename Kernel::template gradient_tuple<T>> r{};
        std::vector<T>& grad = scratch<T, 0>(W, T(0));
        std::vector<T>& diagonal = scratch<T, 1>(W, T(0));
        unit_sweeps(c, r.value, grad.data(), [&](std::size_t j, const T* entries) { diagonal[j] = entries[j]; });
        scatter(c, grad.data(), r.gradient);
        scatter(c, diagonal.data(), r.diagonal);
        return r;
    }

    /// H·v with the value and the gradient: `args` a tuple of the arguments, `v` one
    /// entry per wrt variable with its extents.
    template <class Args, class V>
    auto hvp(const Args& args, const V& v) const {
        static_assert(std::tuple_size_v<V> == Kernel::wrt_count,
                      "gradc kernel: hvp(args, v): give one direction per wrt variable");
        return std::apply([&](const auto&... x) { return hvp_with(v, x...); }, args);
    }

private:
    const Kernel& self() const { return static_cast<const Kernel&>(*this); }
    // Functions, not constants: this class is a base of Kernel, incomplete when they are read.
    static constexpr std::size_t wrt_slots() { return Kernel::wrt_count == 0 ? 1 : Kernel::wrt_count; }
    static constexpr std::size_t no_wrt = static_cast<std::size_t>(-1);

    /// One call's arguments, its layout (computed once for all its sweeps), and where
    /// each wrt variable's entries start. Built in place: its pointers point into itself.
    template <class T>
    struct call_state {
        using arguments_t = typename Kernel::template arguments<T>;
        arguments_t args;
        decltype(Kernel::dynamic_calls::layout("", std::declval<const arguments_t&>(), nullptr)) layout;
        run_time_view view;
        std::array<std::size_t, wrt_slots()> wrt_sizes{}, wrt_offsets{};
        std::size_t wrt_entries = 0;

        template <class... X>
        call_state(const Kernel& k, const char* name, const X&... x)
            : args(name, x...),
              layout(Kernel::dynamic_calls::layout(name, args, k.literals().data())),
              view(layout.view()) {
            for (std::size_t j = 0; j < Kernel::wrt_count; ++j) {
                wrt_offsets[j] = wrt_entries;
                wrt_sizes[j] = args.extents[Kernel::wrt_variables[j]].size();
                wrt_entries += wrt_sizes[j];
            }
        }
        call_state(const call_state&) = delete;
        call_state& operator=(const call_state&) = delete;

        /// Pointers to each wrt variable's entries within one flat array.
        template <class P>
        std::array<P*, wrt_slots()> wrt_pointers(P* flat) const {
            std::array<P*, wrt_slots()> p{};
            for (std::size_t j = 0; j < Kernel::wrt_count; ++j) p[j] = flat + wrt_offsets[j];
            return p;
        }
    };

    /// Pointers to each output's entries within one flat array, at this call's extents.
    template <class P, class Layout>
    static auto output_pointers(P* flat, const Layout& layout) {
        std::array<P*, Kernel::output_count> p{};
        for (std::size_t m = 0, at = 0; m < Kernel::output_count; ++m) {
            p[m] = flat + at;
            at += layout.shape[Kernel::program::output_node(m)].size();
        }
        return p;
    }

    /// The flat wrt entries into a gradient tuple, each entry shaped by its variable.
    template <class T, class Gradient>
    static void scatter(const call_state<T>& c, const T* flat, Gradient& gradient) {
        Kernel::dynamic_calls::shape_gradient(gradient, c.args);
        [&]<std::size_t... j>(std::index_sequence<j...>) {
            ((std::copy_n(flat + c.wrt_offsets[j], c.wrt_sizes[j], entries_of(std::get<j>(gradient)))), ...);
        }(std::make_index_sequence<Kernel::wrt_count>{});
    }

    /// Working entries kept per thread (Slot tells a call's arrays apart): after the first
    /// call at given extents, the calls allocate only the results they return.
    template <class T, int Slot>
    static std::vector<T>& scratch(std::size_t n, const T& fill) {
        thread_local std::vector<T> entries;
        entries.assign(n, fill);
        return entries;
    }

    static constexpr std::size_t wrt_position(std::size_t v) {
        for (std::size_t j = 0; j < Kernel::wrt_count; ++j)
            if (Kernel::wrt_variables[j] == v) return j;
        return no_wrt;
    }

    /// The whole Hessian's dual sweeps, `hessian_directions` unit directions each: the
    /// value, the flat gradient, and `column(j, entries)` for each column j.
    template <class T, class Column>
    void unit_sweeps(const call_state<T>& c, T& value, T* grad, Column column) const {
        constexpr std::size_t D = hessian_directions;
        const std::size_t W = c.wrt_entries;
        if (W == 0) {
            sweep<T, 1>(c, [](std::size_t, std::size_t) { return T(0); }, value, grad, nullptr);
            return;
        }
        std::vector<T>& columns = scratch<T, 2>(D * W, T(0));
        for (std::size_t first = 0; first < W; first += D) {
            sweep<T, D>(c, [&](std::size_t i, std::size_t d) { return T(first + d == i ? 1 : 0); }, value, grad,
                        columns.data());
            for (std::size_t d = 0; d < D && first + d < W; ++d) column(first + d, columns.data() + d * W);
        }
    }

    /// One dual gradient sweep with D directions, direction d's entry i given by
    /// `tangent(i, d)` (i counting the gradient's entries, in wrt order): the value, the
    /// flat gradient, and columns[d·W + i] = (H·direction d)ᵢ when `columns` is given.
    template <class T, std::size_t D, class Tangent>
    void sweep(const call_state<T>& c, Tangent tangent, T& value, T* grad, T* columns) const {
        using dual = dual_numbers::dual<T, D>;
        // Kept per thread: after the first call at given extents, nothing is allocated here.
        thread_local std::vector<dual> xd, g;
        std::size_t A = 0;
        for (std::size_t v = 0; v < Kernel::arity; ++v) A += c.args.extents[v].size();
        xd.resize(A);
        g.resize(c.wrt_entries);
        std::array<const dual*, Kernel::arity> xp{};
        for (std::size_t v = 0, at = 0; v < Kernel::arity; ++v) {
            xp[v] = xd.data() + at;
            const std::size_t j = wrt_position(v);
            for (std::size_t e = 0, n = c.args.extents[v].size(); e < n; ++e, ++at) {
                xd[at] = dual(c.args.pointers[v][e]);
                if (j == no_wrt) continue;
                for (std::size_t d = 0; d < D; ++d) xd[at].tangent[d] = tangent(c.wrt_offsets[j] + e, d);
            }
        }
        const auto gp = c.wrt_pointers(g.data());
        dual y;
        dual* yp = &y;
        const dual one(rules::scalar_t<T>(1));
        const dual* w = &one;
        Kernel::dynamic_calls::adjoint(self().run_time_context(), c.view, xp.data(), &yp, &w, gp.data(),
                                       c.wrt_sizes.data());
        value = y.value;
        for (std::size_t i = 0; i < c.wrt_entries; ++i) {
            grad[i] = g[i].value;
            if (columns != nullptr)
                for (std::size_t d = 0; d < D; ++d) columns[d * c.wrt_entries + i] = g[i].tangent[d];
        }
    }

    template <class V, class... X>
    auto hvp_with(const V& v, const X&... x) const {
        using T = typename Kernel::template call_lane_t<X...>;
        const call_state<T> c(self(), "hvp", x...);
        const wrt_values<typename Kernel::program, T, typename Kernel::wrt_shapes_t> vp("hvp", v, c.args.extents);
        std::vector<T>& grad = scratch<T, 0>(c.wrt_entries, T(0));
        std::vector<T>& product = scratch<T, 1>(c.wrt_entries, T(0));
        array_hvp_result<T, typename Kernel::template gradient_tuple<T>> r{};
        sweep<T, 1>(
            c,
            [&](std::size_t i, std::size_t) {
                std::size_t j = 0;
                while (j + 1 < Kernel::wrt_count && i >= c.wrt_offsets[j + 1]) ++j;
                return vp.pointers[j][i - c.wrt_offsets[j]];
            },
            r.value, grad.data(), product.data());
        scatter(c, grad.data(), r.gradient);
        scatter(c, product.data(), r.hvp);
        return r;
    }
};

}  // namespace lower
}  // namespace gradc
