#pragma once
/// \file
/// The one-point calls of a kernel with run-time extents: the same programs as a fixed
/// kernel's (lower/array_program.hpp), run with the layout computed from the arguments'
/// extents (lower/run_time_layout.hpp) and with the nodes' arrays in the kernel's
/// growing slabs (lower/run_time_workspace.hpp). Results whose extents are known only
/// now are given their shapes here (std::vector, gradc::matrix_value).

#include <array>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include <gradc/lower/array_call_arguments.hpp>
#include <gradc/lower/array_program.hpp>
#include <gradc/lower/array_results.hpp>
#include <gradc/lower/run_time_layout.hpp>
#include <gradc/lower/run_time_workspace.hpp>

namespace gradc::lower {

/// \cond INTERNAL

template <class Program, class Flat = typename Program::flat_type>
struct run_time_calls;

template <class Program, class... Nodes>
struct run_time_calls<Program, flat<Nodes...>> {
    using analysis = typename Program::analysis;
    static constexpr std::size_t arity = Program::arity;
    static constexpr std::size_t output_count = Program::output_count;
    static constexpr std::size_t wrt_count = Program::wrt_count;

    /// What one call needs besides its arguments: the literals, the forward table, the slabs.
    struct context {
        const double* literals;
        const std::size_t* forward;
        const growing_workspace& workspace;
    };

    /// The layout for the call's arguments (throws gradc::Error when their extents do not fit).
    template <class T>
    static run_time_layout<sizeof...(Nodes)> layout(const char* call, const call_arguments<Program, T>& a,
                                                    const double* literals) {
        return layout_at<analysis, Nodes...>(call, a.extents, literals);
    }
    /// The layout for variables of the given extents (a map-reduce's, read from its data and θ).
    static run_time_layout<sizeof...(Nodes)> layout_of(const char* call, const std::array<dims, arity>& extents,
                                                       const double* literals) {
        return layout_at<analysis, Nodes...>(call, extents, literals);
    }

    /// Gives output m's value its run-time shape.
    template <std::size_t m, class V>
    static void shape_output(V& v, const run_time_layout<sizeof...(Nodes)>& rl) {
        shape_to(v, rl.shape[Program::output_node(m)]);
    }
    /// Gives wrt variable j's entry (a gradient's) its run-time shape, from the arguments.
    template <std::size_t j, class V, class T>
    static void shape_wrt(V& v, const call_arguments<Program, T>& a) {
        shape_to(v, a.extents[Program::wrt_variables[j]]);
    }

    /// out[m] ← output m.
    template <class T>
    static void value(const context& c, const run_time_view& v, const T* const* x, T* const* out) {
        growing_lease lease(c.workspace);
        run_time_storage<T, false> s(lease, v.value_size, 0);
        const array_frame<T, arity> f{x, s.values(), c.literals, c.forward, &v};
        Program::primal(f);
        copy_outputs(f, out);
    }

    /// values[m] ← output m; grad[j] ← Σₘ wₘᵀ·∂(output m)/∂(wrt j), cleared first
    /// (`wrt_sizes[j]` entries each).
    template <class T>
    static void adjoint(const context& c, const run_time_view& v, const T* const* x, T* const* values,
                        const T* const* w, T* const* grad, const std::size_t* wrt_sizes) {
        for (std::size_t j = 0; j < wrt_count; ++j)
            for (std::size_t e = 0; e < wrt_sizes[j]; ++e) grad[j][e] = T(rules::scalar_t<T>(0));
        growing_lease lease(c.workspace);
        run_time_storage<T, true> s(lease, v.value_size, v.derivative_size);
        const array_frame<T, arity> f{x, s.values(), c.literals, c.forward, &v};
        Program::primal(f);
        copy_outputs(f, values);
        Program::adjoint(f, derivative_frame<T>{grad, s.derivatives(), &v}, w);
    }

    /// values[m] ← output m, tangents[m] ← its tangent for the wrt tangents dx[j].
    template <class T>
    static void tangent(const context& c, const run_time_view& v, const T* const* x, const T* const* dx,
                        T* const* values, T* const* tangents) {
        growing_lease lease(c.workspace);
        run_time_storage<T, true> s(lease, v.value_size, v.derivative_size);
        const array_frame<T, arity> f{x, s.values(), c.literals, c.forward, &v};
        Program::primal(f);
        copy_outputs(f, values);
        Program::tangent(f, derivative_frame<T>{const_cast<T* const*>(dx), s.derivatives(), &v}, tangents);
    }

    /// Gives each gradient entry its variable's extents in this call; returns their sizes.
    template <class Tuple, class T>
    static auto shape_gradient(Tuple& gradient, const call_arguments<Program, T>& a) {
        std::array<std::size_t, wrt_count == 0 ? 1 : wrt_count> sizes{};
        [&]<std::size_t... j>(std::index_sequence<j...>) {
            ((shape_wrt<j>(std::get<j>(gradient), a), sizes[j] = a.extents[Program::wrt_variables[j]].size()),
             ...);
        }(std::make_index_sequence<wrt_count>{});
        return sizes;
    }

    /// vjp's weights w, of the output's shape `expected` (known now).
    template <class T, class W, class Buffer>
    static const T* weights_of(const W& w, Buffer& buffer, const dims& expected) {
        if constexpr (first_output.is_dynamic()) {
            using U = std::remove_cvref_t<W>;
            if constexpr (first_output.is_matrix() && !eigen_dense<U> && !is_matrix_view<U>::value) {
                // A matrix output's weights may also come flat, row-major: its extents are known now.
                if (std::size(w) != expected.size())
                    bad_run_time_argument("vjp", arity, rules::arrays::vector_dims(std::size(w)), expected);
                return contiguous_entries<T>(w, buffer);
            } else {
                dims got;
                const T* p = run_time_argument_pointer<T, first_output>("vjp", arity, w, buffer, got);
                if (!(got == expected)) bad_run_time_argument("vjp", arity, got, expected);
                return p;
            }
        } else {
            return argument_pointer<T, first_output>("vjp", arity, w, buffer);
        }
    }

private:
    static constexpr dims first_output = Program::L.shape[Program::output_node(0)];

    template <class T>
    static void copy_outputs(const array_frame<T, arity>& f, T* const* out) {
        [&]<std::size_t... m>(std::index_sequence<m...>) {
            (copy_output<Program::output_node(m)>(f, out[m]), ...);
        }(std::make_index_sequence<output_count>{});
    }
    template <std::size_t N, class T>
    static void copy_output(const array_frame<T, arity>& f, T* out) {
        const T* y = Program::steps::template value_of<N>(f);
        for (std::size_t e = 0, entries = Program::steps::template size_of<N>(f); e < entries; ++e) out[e] = y[e];
    }
};

/// The operation a node applies (none for a variable or a literal).
template <class Node>
struct node_operation {};
template <class R, class... O>
struct node_operation<apply<R, O...>> {
    using type = R;
};

/// An array operation on a node with a run-time extent must take run-time extents: the
/// static_assert names it (R) in its instantiation context.
template <class R>
struct operation_taking_run_time_extents {
    static_assert(rules::arrays::takes_run_time_extents<R>,
                  "gradc: this array operation does not take extents known only at run time yet (R names it "
                  "below); docs/static.md, \"Extents known at run time\", lists those that do");
    static constexpr bool ok = true;
};
template <class Node, bool Dynamic>
constexpr bool node_fits_its_extents() {
    if constexpr (Dynamic) {
        if constexpr (requires { typename node_operation<Node>::type; }) {
            using R = typename node_operation<Node>::type;
            if constexpr (rules::arrays::array_operation<R>) return operation_taking_run_time_extents<R>::ok;
        }
    }
    return true;
}
/// Whether every dynamic node's operation takes run-time extents (a kernel with one
/// that does not fails to compile when it is made, naming the operation).
template <class Analysis, class Flat = void>
struct run_time_operations;
template <class Analysis, class... Nodes>
struct run_time_operations<Analysis, flat<Nodes...>> {
    template <std::size_t... I>
    static constexpr bool check(std::index_sequence<I...>) {
        return (node_fits_its_extents<Nodes, Analysis::layout.dynamic[I]>() && ...);
    }
    static constexpr bool fit = check(std::index_sequence_for<Nodes...>{});
};

/// The calls a kernel with run-time extents does not have yet: each fails to compile
/// with a message that says so, instead of an error deep in its implementation.
struct run_time_pending_calls {
#define GRADC_PENDING_CALL(call)                                                                                   \
    template <class... A>                                                                                          \
    void call(const A&...) const {                                                                                 \
        static_assert(sizeof...(A) != sizeof...(A),                                                                \
                      "gradc kernel: with extents known only at run time, this call is not there yet: " #call     \
                      "; the one-point calls are (docs/static.md, \"Extents known at run time\")");                \
    }
    GRADC_PENDING_CALL(value_batch)
    GRADC_PENDING_CALL(gradient_batch)
    GRADC_PENDING_CALL(jvp_batch)
    GRADC_PENDING_CALL(vjp_batch)
    GRADC_PENDING_CALL(jacobian_batch)
    GRADC_PENDING_CALL(hessian_batch)
    GRADC_PENDING_CALL(hvp_batch)
    GRADC_PENDING_CALL(map_reduce_hessian)
    GRADC_PENDING_CALL(map_reduce_hessian_diagonal)
    GRADC_PENDING_CALL(map_reduce_gauss_newton)
#undef GRADC_PENDING_CALL
};

/// A kernel's slabs for run-time extents: none for a kernel of fixed extents.
template <bool Dynamic>
struct growing_member {};
template <>
struct growing_member<true> {
    growing_workspace slabs;
};

/// \endcond

}  // namespace gradc::lower
